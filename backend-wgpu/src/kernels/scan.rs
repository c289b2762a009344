//! Inclusive scans (cumulative sums and products) along the middle axis of an
//! (outer, len, inner) view: one thread per line, walking the line in order, so results
//! are accumulated in the same order as the CPU reference. Neighbouring threads take
//! neighbouring columns (`inner`), so column scans read coalesced; a single very long row
//! runs on one thread (correct, not fast: a blocked scan is future work).
//!
//! bool/u8 results go through a word-per-element temporary (`temp::pack`).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, ScanArgs, ScanOp};

use super::temp::{pack, temp_dtype, to_temp};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::ops;
use crate::wgsl::types::{self, Class, unit_bytes, units};

pub(crate) fn source(
    op: ScanOp,
    d: DType,
    storage: &[(Class, Access)],
    bin: usize,
    bout: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let f = ops::binary(
        &mut h,
        if op == ScanOp::Sum {
            BinaryOp::Add
        } else {
            BinaryOp::Mul
        },
        d,
        "acc",
        "v",
    )?;
    let u = units(d);
    let od = temp_dtype(d);
    let load = types::load(
        d,
        &format!("b{}", bin + 1),
        &format!("(prm(3u) + (base + k * prm(2u)) * {u}u)"),
    );
    let store = types::store(
        od,
        &format!("b{}", bout + 1),
        &format!("prm(4u) + (base + k * prm(2u)) * {u}u"),
        &to_temp(d, "acc"),
    );
    let mut s = header::declarations(5, storage, false);
    s.push_str(&h.emit());
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!(
        "  if (t >= prm(0u)) {{ return; }}
  let o = t / prm(2u);
  let i = t % prm(2u);
  let base = o * prm(1u) * prm(2u) + i;
  var acc: {ty} = {first};
  {st0}
  for (var k = 1u; k < prm(1u); k++) {{
    let v = {load};
    acc = {f};
    {store}
  }}
}}
",
        ty = types::ty(d),
        first = load.replace("k * prm(2u)", "0u"),
        st0 = store.replace("k * prm(2u)", "0u"),
    ));
    Ok(s)
}

/// Runs a scan.
pub fn run(ctx: &Context, a: &ScanArgs<'_, WgpuBuffer>) -> Result<()> {
    let lines = a.outer * a.inner;
    let total = a.outer * a.len * a.inner;
    if total == 0 {
        return Ok(());
    }
    if total as u64 >= u32::MAX as u64 / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("a scan over {total} elements"),
            requested: total as u64,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "scan parts of the array separately",
        });
    }
    let d = a.dtype;
    let od = temp_dtype(d);
    let temp = if od != d {
        Some(ctx.alloc(total * 4)?)
    } else {
        None
    };
    let r = (|| {
        let mut plan = BindingPlan::default();
        let size = d.size() as u64;
        let bin = plan.add(
            a.input,
            Class::of(d),
            Access::Read,
            a.input_offset as u64 * size,
            (a.input_offset + total) as u64 * size,
        );
        let (ob, oo) = match &temp {
            Some(t) => (t, 0usize),
            None => (a.output, a.output_offset),
        };
        let osize = od.size() as u64;
        let bout = plan.add(
            ob,
            Class::of(od),
            Access::ReadWrite,
            oo as u64 * osize,
            (oo + total) as u64 * osize,
        );
        let w = plan.windows(ctx)?;
        let layout = plan.layout();
        let spec = ShaderSpec {
            label: format!("scan[{} {d}]", a.op.name()),
            source: source(a.op, d, &layout, bin, bout)?,
            storage: layout.iter().map(|x| x.1).collect(),
        };
        let in_off = ((a.input_offset as u64 * size - w[bin].start) / unit_bytes(d)) as u32;
        let out_off = ((oo as u64 * osize - w[bout].start) / unit_bytes(od)) as u32;
        let params = [lines as u32, a.len as u32, a.inner as u32, in_off, out_off];
        dispatch::launch(
            ctx,
            &spec,
            &params,
            &plan,
            &w,
            false,
            (lines as u64).div_ceil(WORKGROUP as u64),
        )?;
        if let Some(t) = &temp {
            pack(ctx, t, d, a.output, a.output_offset, total)?;
        }
        Ok(())
    })();
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}
