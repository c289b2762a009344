//! Batched matrix products, tiled in workgroup memory: a workgroup of 16×16 threads computes
//! a tile of `16·T × 16·T` outputs (`T` = 4 for elements of up to 4 bytes, 2 for 8 bytes,
//! 1 for c64, so the two staged tiles take 8 KiB), staging 16-wide slices of `k` of both
//! operands per step. Each output accumulates its products in order of `k` from zero, as
//! the CPU reference does (integers wrap; complex multiplies as complex). bool/u8 results go
//! through a word-per-element temporary.
//!
//! **Large operands.** When an operand exceeds one binding, each batch runs separately in
//! blocks of rows (of `a` and the output) and ranges of `k` (rows of `b`); a range after the
//! first adds to the output the previous ranges wrote, which keeps the order of
//! accumulation. A row of `b` (or of the output) larger than half a binding is a typed
//! [`WgpuError::LimitExceeded`].
//!
//! Parameters: 0 rows in the dispatch, 1 n, 2 k (a's row stride), 3 k0, 4 k1, 5 a offset,
//! 6 a batch stride, 7 b offset, 8 b batch stride, 9 output offset, 10 output batch stride
//! (units; offsets relative to their windows, wrapping), 11 row tiles, 12 column tiles,
//! 13 batches, 14 accumulate onto the output.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, MatmulArgs};

use super::temp::{from_temp, pack, temp_dtype, to_temp};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::ops;
use crate::wgsl::types::{self, Class, lit, unit_bytes, units};

/// Words of the parameter block.
const PARAMS: usize = 15;

/// Outputs per thread along each axis.
fn per_thread(d: DType) -> usize {
    match d.size() {
        0..=4 => 4,
        8 => 2,
        _ => 1,
    }
}

pub(crate) fn source(
    d: DType,
    storage: &[(Class, Access)],
    ba: usize,
    bb: usize,
    bo: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let add = ops::binary(&mut h, BinaryOp::Add, d, "acc", "p")?;
    let t = types::ty(d);
    let u = units(d);
    let tm = per_thread(d);
    let bm = 16 * tm;
    let zero = lit(d, 0);
    let od = temp_dtype(d);
    let la = types::load(
        d,
        &format!("b{}", ba + 1),
        &format!("(prm(5u) + bt * prm(6u) + (r * prm(2u) + q) * {u}u)"),
    );
    let lb = types::load(
        d,
        &format!("b{}", bb + 1),
        &format!("(prm(7u) + bt * prm(8u) + (q * prm(1u) + c) * {u}u)"),
    );
    let out_at = format!("prm(9u) + bt * prm(10u) + (r * prm(1u) + c) * {u}u");
    let prev = from_temp(
        d,
        &types::load(od, &format!("b{}", bo + 1), &format!("({out_at})")),
    );
    let mut s = String::new();
    s.push_str(&format!(
        "var<workgroup> sa: array<{t}, {}>;\nvar<workgroup> sb: array<{t}, {}>;\n",
        bm * 16,
        bm * 16
    ));
    s.push_str(&header::entry(256));
    s.push_str(&format!(
        "  let per_batch = prm(11u) * prm(12u);
  let bt = g / per_batch;
  if (bt >= prm(13u)) {{ return; }}
  let tile = g % per_batch;
  let row0 = (tile / prm(12u)) * {bm}u;
  let col0 = (tile % prm(12u)) * {bm}u;
  let ty = lid / 16u;
  let tx = lid % 16u;
"
    ));
    for i in 0..tm {
        for j in 0..tm {
            s.push_str(&format!("  var acc{i}_{j}: {t} = {zero};\n"));
        }
    }
    s.push_str(&format!(
        "  for (var k0 = prm(3u); k0 < prm(4u); k0 = k0 + 16u) {{
    for (var x = 0u; x < {tm}u; x++) {{
      let e = lid + 256u * x;
      let r = row0 + e / 16u;
      let q = k0 + e % 16u;
      var v: {t} = {zero};
      if (r < prm(0u) && q < prm(4u)) {{ v = {la}; }}
      sa[e] = v;
      let qb = k0 + e / {bm}u;
      let c = col0 + e % {bm}u;
      var w: {t} = {zero};
      if (qb < prm(4u) && c < prm(1u)) {{ w = {lbq}; }}
      sb[e] = w;
    }}
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {{
",
        lbq = lb.replace("(q * prm(1u)", "(qb * prm(1u)"),
    ));
    for i in 0..tm {
        s.push_str(&format!(
            "      let a{i} = sa[(ty + {}u) * 16u + kk];\n",
            16 * i
        ));
    }
    for j in 0..tm {
        s.push_str(&format!(
            "      let b{j} = sb[kk * {bm}u + tx + {}u];\n",
            16 * j
        ));
    }
    for i in 0..tm {
        for j in 0..tm {
            let m = ops::binary(&mut h, BinaryOp::Mul, d, &format!("a{i}"), &format!("b{j}"))?;
            s.push_str(&format!(
                "      {{ let p = {m}; let acc = acc{i}_{j}; acc{i}_{j} = {add}; }}\n"
            ));
        }
    }
    s.push_str("    }\n    workgroupBarrier();\n  }\n");
    for i in 0..tm {
        for j in 0..tm {
            let store = types::store(od, &format!("b{}", bo + 1), &out_at, &to_temp(d, "v"));
            s.push_str(&format!(
                "  {{
    let r = row0 + ty + {ri}u;
    let c = col0 + tx + {cj}u;
    if (r < prm(0u) && c < prm(1u)) {{
      var v = acc{i}_{j};
      if (prm(14u) != 0u) {{ let acc = {prev}; let p = v; v = {add}; }}
      {store}
    }}
  }}
",
                ri = 16 * i,
                cj = 16 * j,
            ));
        }
    }
    s.push_str("}\n");
    let mut src = header::declarations(PARAMS, storage, false);
    src.push_str(&h.emit());
    src.push_str(&s);
    Ok(src)
}

/// The largest span of one binding, in bytes (less the alignment slack of its start).
fn capacity(ctx: &Context) -> u64 {
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    ctx.limits
        .max_storage_buffer_binding_size
        .saturating_sub(2 * align)
}

/// `byte − start` in units of `unit` bytes, as the wrapping u32 the kernel adds.
fn rel(byte: u64, start: u64, unit: u64) -> u32 {
    ((byte as i64 - start as i64) / unit as i64) as u32
}

/// Batches `b0..b1`, rows `m0..m1` of `a` and the output, `k0..k1` of the inner axis.
#[derive(Clone, Copy)]
struct Block {
    b: (usize, usize),
    m: (usize, usize),
    k: (usize, usize),
}

/// Runs a (batched) matrix product.
pub fn run(ctx: &Context, a: &MatmulArgs<'_, WgpuBuffer>) -> Result<()> {
    let d = a.dtype;
    let outputs = a.batch * a.m * a.n;
    if outputs == 0 {
        return Ok(());
    }
    let size = d.size() as u64;
    let last = |off: usize, stride: usize, rows: usize, cols: usize| {
        (off + stride * (a.batch - 1) + rows * cols) as u64
    };
    if outputs as u64 >= u32::MAX as u64 / 2
        || last(a.a_offset, a.a_batch_stride, a.m, a.k) >= u32::MAX as u64 / 2
        || last(a.b_offset, a.b_batch_stride, a.k, a.n) >= u32::MAX as u64 / 2
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
    let osize = od.size() as u64;
    let cap = capacity(ctx);
    let span_a = (last(a.a_offset, a.a_batch_stride, a.m, a.k) - a.a_offset as u64) * size;
    let span_b = (last(a.b_offset, a.b_batch_stride, a.k, a.n) - a.b_offset as u64) * size;
    let whole = span_a <= cap && span_b <= cap && outputs as u64 * osize <= cap;
    if !whole && a.n as u64 * size.max(osize) > cap / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("a matrix product with rows of {} elements", a.n),
            requested: a.n as u64 * size.max(osize),
            limit: cap / 2,
            limit_name: "max_storage_buffer_binding_size (half of it, for one row)",
            adapter: ctx.adapter_name.clone(),
            hint: "multiply blocks of columns separately",
        });
    }
    let temp = if od != d {
        Some(ctx.alloc(outputs * 4)?)
    } else {
        None
    };
    let r = (|| {
        let (ob, oo) = match &temp {
            Some(t) => (t, 0usize),
            None => (a.output, a.output_offset),
        };
        let mut spec: Option<ShaderSpec> = None;
        if whole {
            let all = Block {
                b: (0, a.batch),
                m: (0, a.m),
                k: (0, a.k),
            };
            dispatch_block(ctx, a, ob, oo, all, &mut spec)?;
        } else {
            let elems = cap / size;
            let kc = if (a.k * a.n) as u64 <= elems {
                a.k
            } else {
                ((elems / a.n as u64) as usize).max(1)
            }
            .min(elems as usize)
            .max(1);
            let rows_a = if a.k as u64 <= elems {
                ((elems - kc as u64) / a.k.max(1) as u64) as usize + 1
            } else {
                1
            };
            let mc = rows_a.min((cap / (a.n as u64 * osize)) as usize).max(1);
            for bt in 0..a.batch {
                for m0 in (0..a.m).step_by(mc) {
                    let mut k0 = 0;
                    loop {
                        let k1 = (k0 + kc).min(a.k);
                        let blk = Block {
                            b: (bt, bt + 1),
                            m: (m0, (m0 + mc).min(a.m)),
                            k: (k0, k1),
                        };
                        dispatch_block(ctx, a, ob, oo, blk, &mut spec)?;
                        k0 = k1;
                        if k0 >= a.k {
                            break;
                        }
                    }
                }
            }
        }
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

fn dispatch_block(
    ctx: &Context,
    a: &MatmulArgs<'_, WgpuBuffer>,
    out: &WgpuBuffer,
    out_offset: usize,
    blk: Block,
    spec: &mut Option<ShaderSpec>,
) -> Result<()> {
    let d = a.dtype;
    let od = temp_dtype(d);
    let (size, osize) = (d.size() as u64, od.size() as u64);
    let (ub, oub) = (unit_bytes(d), unit_bytes(od));
    let u = units(d);
    let ((b0, b1), (m0, m1), (k0, k1)) = (blk.b, blk.m, blk.k);
    let a_first = (a.a_offset + b0 * a.a_batch_stride + m0 * a.k) as u64;
    let a_lo = a_first + k0 as u64;
    let a_hi = (a.a_offset + (b1 - 1) * a.a_batch_stride + (m1 - 1) * a.k + k1) as u64;
    let b_first = (a.b_offset + b0 * a.b_batch_stride) as u64;
    let b_lo = b_first + (k0 * a.n) as u64;
    let b_hi = (a.b_offset + (b1 - 1) * a.b_batch_stride + k1.max(1) * a.n) as u64;
    let mn = a.m * a.n;
    let c_first = (out_offset + b0 * mn + m0 * a.n) as u64;
    let c_hi = (out_offset + (b1 - 1) * mn + m1 * a.n) as u64;
    let mut plan = BindingPlan::default();
    let cls = Class::of(d);
    let ba = plan.add(
        a.a,
        cls,
        Access::Read,
        a_lo * size,
        a_hi.max(a_lo + 1) * size,
    );
    let bb = plan.add(
        a.b,
        cls,
        Access::Read,
        b_lo * size,
        b_hi.max(b_lo + 1) * size,
    );
    let bo = plan.add(
        out,
        Class::of(od),
        Access::ReadWrite,
        c_first * osize,
        c_hi * osize,
    );
    let w = plan.windows(ctx)?;
    if spec.is_none() {
        let layout = plan.layout();
        *spec = Some(ShaderSpec {
            label: format!("matmul[{d}]"),
            source: source(d, &layout, ba, bb, bo)?,
            storage: layout.iter().map(|x| x.1).collect(),
        });
    }
    let bm = 16 * per_thread(d);
    let rows = m1 - m0;
    let (tiles_m, tiles_n) = (rows.div_ceil(bm), a.n.div_ceil(bm));
    let params = [
        rows as u32,
        a.n as u32,
        a.k as u32,
        k0 as u32,
        k1 as u32,
        rel(a_first * size, w[ba].start, ub),
        (a.a_batch_stride as u32) * u,
        rel(b_first * size, w[bb].start, ub),
        (a.b_batch_stride as u32) * u,
        rel(c_first * osize, w[bo].start, oub),
        (mn as u32) * units(od),
        tiles_m as u32,
        tiles_n as u32,
        (b1 - b0) as u32,
        u32::from(k0 > 0),
    ];
    let Some(spec) = spec.as_ref() else {
        return Err(crate::error::invalid("no kernel"));
    };
    let groups = ((b1 - b0) * tiles_m * tiles_n) as u64;
    dispatch::launch(ctx, spec, &params, &plan, &w, false, groups)
}
