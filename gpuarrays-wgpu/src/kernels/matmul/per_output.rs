//! The per-output kernel: one thread per output element, adding its products in a plain
//! loop over the range of `k`. For products with fewer than 16 rows or columns
//! (`super::Kernel`), where the tiled kernel's 16·T-wide tiles are mostly empty: on lavapipe
//! a batch of 70,000 (2, 3)·(3, 2) products took 109 s tiled (a workgroup of 256 threads,
//! with barriers, per 4 outputs) and `ones(1, 70000)·ones(70000, 1)` 0.8 s.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::BinaryOp;

use super::{Operands, PARAMS, compute_dtype};
use crate::error::Result;
use crate::kernels::temp::{temp_dtype, to_temp};
use crate::pipeline::Access;
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::types::{self, Class, lit};

/// The kernel's WGSL, with `a`, `b` and the output (or its temporary) at bindings `ba`,
/// `bb`, `bo` of `storage`. Thread `t` computes output `t` of the dispatch's batches
/// (row-major over batch, row, column).
pub(super) fn source(
    d: DType,
    storage: &[(Class, Access)],
    ba: usize,
    bb: usize,
    bo: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let cd = compute_dtype(d);
    let mul = primitives::binary(&mut h, BinaryOp::Mul, cd, "x", "y")?;
    let add = primitives::binary(&mut h, BinaryOp::Add, cd, "acc", "p")?;
    let (t, zero, od) = (types::ty(d), lit(d, 0), temp_dtype(d));
    let Operands {
        la,
        lb,
        out_at,
        prev,
    } = Operands::new(d, ba, bb, bo);
    let store = types::store(od, &format!("b{}", bo + 1), &out_at, &to_temp(d, "v"));
    let mut src = header::declarations(PARAMS, storage, false);
    src.push_str(&h.emit());
    src.push_str(&header::entry(WORKGROUP));
    src.push_str(&format!(
        "  let per_batch = prm(0u) * prm(1u);
  let bt = t / per_batch;
  if (bt >= prm(13u)) {{ return; }}
  let r = (t % per_batch) / prm(1u);
  let c = t % prm(1u);
  var acc: {t} = {zero};
  if (prm(14u) != 0u) {{ acc = {prev}; }}
  for (var q = prm(3u); q < prm(4u); q++) {{
    let x = {la};
    let y = {lb};
    let p = {mul};
    acc = {add};
  }}
  let v = acc;
  {store}
}}
"
    ));
    Ok(src)
}
