//! Batched matrix products: one thread per output element, accumulating over `k` in the
//! element type (integers wrap, complex multiplies as complex), in the order the CPU
//! reference uses. bool/u8 results go through a word-per-element temporary.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, MatmulArgs};

use super::temp::{pack, temp_dtype, to_temp};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::ops;
use crate::wgsl::types::{self, Class, lit, unit_bytes, units};

// Parameters: 0 outputs, 1 m, 2 n, 3 k, 4 a off, 5 a batch stride, 6 b off, 7 b batch
// stride, 8 out off (all offsets and strides in units).

pub(crate) fn source(
    d: DType,
    storage: &[(Class, Access)],
    ba: usize,
    bb: usize,
    bo: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let mul = ops::binary(&mut h, BinaryOp::Mul, d, "x", "y")?;
    let add = ops::binary(&mut h, BinaryOp::Add, d, "acc", "p")?;
    let u = units(d);
    let la = types::load(
        d,
        &format!("b{}", ba + 1),
        &format!("(prm(4u) + bi * prm(5u) + (row * prm(3u) + q) * {u}u)"),
    );
    let lb = types::load(
        d,
        &format!("b{}", bb + 1),
        &format!("(prm(6u) + bi * prm(7u) + (q * prm(2u) + col) * {u}u)"),
    );
    let st = types::store(
        temp_dtype(d),
        &format!("b{}", bo + 1),
        &format!("prm(8u) + t * {u}u"),
        &to_temp(d, "acc"),
    );
    let mut s = header::declarations(9, storage, false);
    s.push_str(&h.emit());
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!(
        "  if (t >= prm(0u)) {{ return; }}
  let mn = prm(1u) * prm(2u);
  let bi = t / mn;
  let e = t % mn;
  let row = e / prm(2u);
  let col = e % prm(2u);
  var acc: {ty} = {zero};
  for (var q = 0u; q < prm(3u); q++) {{
    let x = {la};
    let y = {lb};
    let p = {mul};
    acc = {add};
  }}
  {st}
}}
",
        ty = types::ty(d),
        zero = lit(d, 0),
    ));
    Ok(s)
}

/// Runs a (batched) matrix product.
pub fn run(ctx: &Context, a: &MatmulArgs<'_, WgpuBuffer>) -> Result<()> {
    let d = a.dtype;
    let outputs = a.batch * a.m * a.n;
    if outputs == 0 {
        return Ok(());
    }
    let size = d.size() as u64;
    let span = |off: usize, stride: usize, rows: usize, cols: usize| {
        let last = off + stride * (a.batch - 1) + rows * cols;
        (off as u64 * size, (last.max(off + 1)) as u64 * size)
    };
    let (alo, ahi) = span(a.a_offset, a.a_batch_stride, a.m, a.k);
    let (blo, bhi) = span(a.b_offset, a.b_batch_stride, a.k, a.n);
    if outputs as u64 >= u32::MAX as u64 / 2
        || ahi / size >= u32::MAX as u64 / 2
        || bhi / size >= u32::MAX as u64 / 2
    {
        return Err(WgpuError::LimitExceeded {
            what: format!("a matrix product of {outputs} outputs"),
            requested: outputs as u64,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "multiply in batches",
        });
    }
    let od = temp_dtype(d);
    let temp = if od != d {
        Some(ctx.alloc(outputs * 4)?)
    } else {
        None
    };
    let r = (|| {
        let mut plan = BindingPlan::default();
        let cls = Class::of(d);
        let ba = plan.add(a.a, cls, Access::Read, alo, ahi);
        let bb = plan.add(a.b, cls, Access::Read, blo, bhi);
        let (ob, oo) = match &temp {
            Some(t) => (t, 0usize),
            None => (a.output, a.output_offset),
        };
        let osize = od.size() as u64;
        let bo = plan.add(
            ob,
            Class::of(od),
            Access::ReadWrite,
            oo as u64 * osize,
            (oo + outputs) as u64 * osize,
        );
        let w = plan.windows(ctx)?;
        let layout = plan.layout();
        let spec = ShaderSpec {
            label: format!("matmul[{d}]"),
            source: source(d, &layout, ba, bb, bo)?,
            storage: layout.iter().map(|x| x.1).collect(),
        };
        let ub = unit_bytes(d);
        let u = units(d);
        let params = [
            outputs as u32,
            a.m as u32,
            a.n as u32,
            a.k as u32,
            ((alo - w[ba].start) / ub) as u32,
            (a.a_batch_stride as u32) * u,
            ((blo - w[bb].start) / ub) as u32,
            (a.b_batch_stride as u32) * u,
            ((oo as u64 * osize - w[bo].start) / unit_bytes(od)) as u32,
        ];
        dispatch::launch(
            ctx,
            &spec,
            &params,
            &plan,
            &w,
            false,
            (outputs as u64).div_ceil(WORKGROUP as u64),
        )?;
        if let Some(t) = &temp {
            pack(ctx, t, d, a.output, a.output_offset, outputs)?;
        }
        Ok(())
    })();
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}
