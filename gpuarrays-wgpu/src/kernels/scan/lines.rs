//! The line scan: one thread per line (an (outer, inner) pair) walking `k` in order, so the
//! result accumulates in the CPU reference's order. Neighbouring threads take neighbouring
//! columns (`inner`), so column scans read and write coalesced.
//!
//! A dispatch covers a range of lines and a range `k0..k1` of the axis; when `k0 > 0` each
//! line starts from its output at `k0 − 1` (the previous range's last value), so a line
//! longer than one binding is scanned range by range.
//!
//! Parameters: 0 end of the line range, 1 len, 2 inner, 3 input offset (units, relative
//! to its window, wrapping), 4 output offset, 5 first line of the dispatch, 6 k0, 7 k1.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ScanOp;

use super::combine;
use crate::error::Result;
use crate::kernels::temp::{from_temp, temp_dtype, to_temp};
use crate::pipeline::Access;
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::{self, Class, units};

/// Words of the parameter block.
pub(crate) const PARAMS: usize = 8;

pub(crate) fn source(
    op: ScanOp,
    d: DType,
    storage: &[(Class, Access)],
    bin: usize,
    bout: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let f = combine(&mut h, op, d, "acc", "v")?;
    let u = units(d);
    let od = temp_dtype(d);
    let at = |k: &str| format!("(base + {k} * prm(2u)) * {u}u");
    let load = types::load(
        d,
        &format!("b{}", bin + 1),
        &format!("(prm(3u) + {})", at("k")),
    );
    let prev = from_temp(
        d,
        &types::load(
            od,
            &format!("b{}", bout + 1),
            &format!("(prm(4u) + {})", at("(k0 - 1u)")),
        ),
    );
    let store = types::store(
        od,
        &format!("b{}", bout + 1),
        &format!("prm(4u) + {}", at("k")),
        &to_temp(d, "acc"),
    );
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str(&h.emit());
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!(
        "  let q = t + prm(5u);
  if (q >= prm(0u)) {{ return; }}
  let o = q / prm(2u);
  let i = q % prm(2u);
  let base = o * prm(1u) * prm(2u) + i;
  let k0 = prm(6u);
  var acc: {ty};
  var k = k0;
  if (k0 == 0u) {{
    acc = {load};
    {store}
    k = 1u;
  }} else {{
    acc = {prev};
  }}
  for (; k < prm(7u); k++) {{
    let v = {load};
    acc = {f};
    {store}
  }}
}}
",
        ty = types::ty(d),
    ));
    Ok(s)
}
