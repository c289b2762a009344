//! The bandwidth kernel for sums, products, minima and maxima of f32/i32/u32 along
//! contiguous rows (`inner == 1`): a workgroup per (row, segment), each thread loading
//! whole `vec4<u32>` words with a stride of the workgroup and keeping four independent
//! accumulators, then one tree in workgroup memory. Elements before the first and after
//! the last whole word of a segment (at most three each) are loaded singly, so any offset
//! and row length work. Each workgroup writes one value: the output itself when a row is
//! one segment, else a partial that the general kernel reduces.
//!
//! Empty lanes start from the operation's identity (0, 1, +∞/−∞ or the integer bounds),
//! so no lane needs a "has a value" flag.
//!
//! Parameters: 0 end of the group range, 1 len, 2 seg (a multiple of 4), 3 S (segments per
//! row), 4 input offset (elements, relative to the window, wrapping), 5 output offset,
//! 6 first group of the dispatch.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, ReduceOp};

use crate::error::{Result, invalid};
use crate::kernels::elementwise::is_word;
use crate::pipeline::Access;
use crate::wgsl::extended;
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::types::{self, Class};

/// Threads per workgroup.
pub(crate) const LANES: u32 = 256;

/// Words of the parameter block.
pub(crate) const PARAMS: usize = 7;

/// Whether the row kernel computes `op` over `d`.
pub(crate) fn applies(op: ReduceOp, d: DType) -> bool {
    is_word(d)
        && matches!(
            op,
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Min | ReduceOp::Max
        )
}

/// The identity of `op` over `d` as a WGSL expression.
fn identity(h: &mut Helpers, op: ReduceOp, d: DType) -> String {
    let inf = |h: &mut Helpers| extended::inf(h, DType::F32);
    match (op, d) {
        (ReduceOp::Sum, _) => types::lit(d, 0),
        (ReduceOp::Prod, _) => types::lit(d, 1),
        (ReduceOp::Min, DType::F32) => format!("{}()", inf(h)),
        (ReduceOp::Max, DType::F32) => format!("-{}()", inf(h)),
        (ReduceOp::Min, _) => types::int_bounds(d).1,
        _ => types::int_bounds(d).0,
    }
}

/// The source of the row kernel; `bv`/`bs` are the input's vec4 and word bindings, `bo`
/// the output's (a word binding of `d`).
pub(crate) fn source(
    op: ReduceOp,
    d: DType,
    storage: &[(Class, Access)],
    bv: usize,
    bs: usize,
    bo: usize,
) -> Result<String> {
    if !applies(op, d) {
        return Err(invalid(format!("the row reduction kernel for {op} of {d}")));
    }
    let mut h = Helpers::default();
    let bin = match op {
        ReduceOp::Sum => BinaryOp::Add,
        ReduceOp::Prod => BinaryOp::Mul,
        ReduceOp::Min => BinaryOp::Min,
        _ => BinaryOp::Max,
    };
    let comb = primitives::binary(&mut h, bin, d, "a", "b")?;
    let id = identity(&mut h, op, d);
    let t = types::ty(d);
    let conv = |w: &str| {
        if d == DType::U32 {
            w.to_string()
        } else {
            format!("bitcast<{t}>({w})")
        }
    };
    let (vb, sb, ob) = (bv + 1, bs + 1, bo + 1);
    let mut src = header::declarations(PARAMS, storage, false);
    src.push_str(&h.emit());
    src.push_str(&format!(
        "var<workgroup> sh: array<{t}, {LANES}>;
fn comb(a: {t}, b: {t}) -> {t} {{ return {comb}; }}
"
    ));
    src.push_str(&header::entry(LANES));
    src.push_str(&format!(
        "  let q = g + prm(6u);
  if (q >= prm(0u)) {{ return; }}
  let o = q / prm(3u);
  let s = q % prm(3u);
  let row = prm(4u) + o * prm(1u);
  let a = row + s * prm(2u);
  let b = row + min((s + 1u) * prm(2u), prm(1u));
  let wa = (a + 3u) >> 2u;
  let wb = b >> 2u;
  var acc0: {t} = {id};
  var acc1: {t} = {id};
  var acc2: {t} = {id};
  var acc3: {t} = {id};
  var w = wa + lid;
  // Two independent 16-byte loads in flight per iteration.
  for (; w + {LANES}u < wb; w = w + {two}u) {{
    let v = b{vb}[w];
    let u = b{vb}[w + {LANES}u];
    acc0 = comb(acc0, {x});
    acc1 = comb(acc1, {y});
    acc2 = comb(acc2, {z});
    acc3 = comb(acc3, {w});
    acc0 = comb(acc0, {ux});
    acc1 = comb(acc1, {uy});
    acc2 = comb(acc2, {uz});
    acc3 = comb(acc3, {uw});
  }}
  if (w < wb) {{
    let v = b{vb}[w];
    acc0 = comb(acc0, {x});
    acc1 = comb(acc1, {y});
    acc2 = comb(acc2, {z});
    acc3 = comb(acc3, {w});
  }}
  let head_end = min(wa * 4u, b);
  if (a + lid < head_end) {{ acc0 = comb(acc0, {head}); }}
  let tail = max(wb, wa) * 4u;
  if (tail + lid < b) {{ acc1 = comb(acc1, {tail}); }}
  sh[lid] = comb(comb(acc0, acc1), comb(acc2, acc3));
  workgroupBarrier();
  for (var k = {half}u; k > 0u; k = k >> 1u) {{
    if (lid < k) {{ sh[lid] = comb(sh[lid], sh[lid + k]); }}
    workgroupBarrier();
  }}
  if (lid == 0u) {{ {store} }}
}}
",
        x = conv("v.x"),
        y = conv("v.y"),
        z = conv("v.z"),
        w = conv("v.w"),
        ux = conv("u.x"),
        uy = conv("u.y"),
        uz = conv("u.z"),
        uw = conv("u.w"),
        two = 2 * LANES,
        head = types::load(d, &format!("b{sb}"), "(a + lid)"),
        tail = types::load(d, &format!("b{sb}"), "(tail + lid)"),
        half = LANES / 2,
        store = types::store(d, &format!("b{ob}"), "prm(5u) + q", "sh[0]"),
    ));
    Ok(src)
}
