//! The blocked scan of long rows (`inner == 1`): rows are cut into blocks of [`BLOCK`]
//! elements, one workgroup each (256 threads × [`PER_THREAD`] consecutive elements: a
//! sequential scan per thread, then a Hillis–Steele scan of the thread totals in workgroup
//! memory). Three passes: block totals, a scan of the totals (the same machinery, one level
//! down), and each block's scan plus the scanned total of the blocks before it.
//!
//! Lanes past the end of a row hold the operation's identity (0 or 1), which leaves every
//! combination unchanged; for running maxima and minima they hold the block's first
//! element instead, which every prefix of the block already contains (`max(m, x0) = m`
//! when `m` includes `x0`, NaN included), so no infinity or integer bound is spelled out
//! for each type.
//!
//! Parameters: 0 end of the block range, 1 len, 2 blocks per row, 3 input offset (units,
//! relative to its window, wrapping), 4 output offset, 5 first block of the dispatch,
//! 6 totals offset.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ScanOp;

use super::combine;
use crate::error::Result;
use crate::pipeline::Access;
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::{self, Class, lit, units};

/// Threads per workgroup.
pub(crate) const LANES: u32 = 256;
/// Consecutive elements per thread.
pub(crate) const PER_THREAD: u32 = 4;
/// Elements per block.
pub(crate) const BLOCK: usize = (LANES * PER_THREAD) as usize;

/// Words of the parameter block.
pub(crate) const PARAMS: usize = 7;

/// What a pass does with its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Writes the block's total to the totals buffer.
    Totals,
    /// Writes the block's scan, offset by the scanned totals of the blocks before it.
    Apply,
}

/// The source; `bin` the input, `btot` the totals (written by `Totals`, read by `Apply`),
/// `bout` the output (`Apply` only).
pub(crate) fn source(
    op: ScanOp,
    d: DType,
    mode: Mode,
    storage: &[(Class, Access)],
    bin: usize,
    btot: usize,
    bout: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let comb = combine(&mut h, op, d, "a", "b")?;
    let t = types::ty(d);
    let u = units(d);
    let load = types::load(
        d,
        &format!("b{}", bin + 1),
        &format!("(prm(3u) + (row + e) * {u}u)"),
    );
    let id = match op {
        ScanOp::Sum => lit(d, 0),
        ScanOp::Prod => lit(d, 1),
        ScanOp::Max | ScanOp::Min => types::load(
            d,
            &format!("b{}", bin + 1),
            &format!("(prm(3u) + (row + b * {BLOCK}u) * {u}u)"),
        ),
    };
    let tb = format!("b{}", btot + 1);
    let finish = match mode {
        Mode::Totals => format!(
            "  if (lid == 0u) {{ {} }}\n",
            types::store(
                d,
                &tb,
                &format!("prm(6u) + q * {u}u"),
                &format!("sh[{}]", LANES - 1)
            )
        ),
        Mode::Apply => {
            let prev = types::load(d, &tb, &format!("(prm(6u) + (q - 1u) * {u}u)"));
            let store = types::store(
                d,
                &format!("b{}", bout + 1),
                &format!("prm(4u) + (row + e) * {u}u"),
                "select(vals[k], comb(off, vals[k]), has_off)",
            );
            // Products start from their first factor: no identity is ever multiplied in
            // ((1+0i)·(inf+0i) would be inf+NaN·i), so offsets carry a "has" flag.
            format!(
                "  var off: {t} = {id};
  var has_off = false;
  if (b > 0u) {{ off = {prev}; has_off = true; }}
  if (lid > 0u) {{
    if (has_off) {{ off = comb(off, sh[lid - 1u]); }} else {{ off = sh[lid - 1u]; has_off = true; }}
  }}
  for (var k = 0u; k < {PER_THREAD}u; k++) {{
    let e = e0 + k;
    if (e < prm(1u)) {{ {store} }}
  }}
"
            )
        }
    };
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str(&h.emit());
    s.push_str(&format!(
        "var<workgroup> sh: array<{t}, {LANES}>;
fn comb(a: {t}, b: {t}) -> {t} {{ return {comb}; }}
"
    ));
    s.push_str(&header::entry(LANES));
    s.push_str(&format!(
        "  let q = g + prm(5u);
  if (q >= prm(0u)) {{ return; }}
  let o = q / prm(2u);
  let b = q % prm(2u);
  let row = o * prm(1u);
  let e0 = b * {BLOCK}u + lid * {PER_THREAD}u;
  var acc: {t} = {id};
  var has = false;
  var vals: array<{t}, {PER_THREAD}>;
  for (var k = 0u; k < {PER_THREAD}u; k++) {{
    let e = e0 + k;
    if (e < prm(1u)) {{
      let x = {load};
      if (has) {{ acc = comb(acc, x); }} else {{ acc = x; has = true; }}
    }}
    vals[k] = acc;
  }}
  sh[lid] = acc;
  workgroupBarrier();
  for (var w = 1u; w < {LANES}u; w = w << 1u) {{
    var v = sh[lid];
    if (lid >= w) {{ v = comb(sh[lid - w], v); }}
    workgroupBarrier();
    sh[lid] = v;
    workgroupBarrier();
  }}
{finish}}}
"
    ));
    Ok(s)
}
