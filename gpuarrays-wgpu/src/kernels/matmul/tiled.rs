//! The tiled kernel: a workgroup of 16×16 threads computes a tile of `16·T × 16·T` outputs
//! (`T` = 4 for elements of up to 4 bytes, 2 for 8 bytes, 1 for c64, so the two staged tiles
//! take 8 KiB), staging 16-wide slices of `k` of both operands in workgroup memory per step,
//! so each element loaded serves `16·T` products. For matrices of at least 16 rows and
//! columns (`super::Kernel`).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::BinaryOp;

use super::{Operands, PARAMS, compute_dtype};
use crate::error::Result;
use crate::kernels::temp::{temp_dtype, to_temp};
use crate::pipeline::Access;
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::types::{self, Class, lit};

/// Outputs per thread along each axis.
pub(super) fn per_thread(d: DType) -> usize {
    match d.size() {
        0..=4 => 4,
        8 => 2,
        _ => 1,
    }
}

/// The kernel's WGSL, with `a`, `b` and the output (or its temporary) at bindings `ba`,
/// `bb`, `bo` of `storage`.
pub(super) fn source(
    d: DType,
    storage: &[(Class, Access)],
    ba: usize,
    bb: usize,
    bo: usize,
) -> Result<String> {
    let mut h = Helpers::default();
    let cd = compute_dtype(d);
    let add = primitives::binary(&mut h, BinaryOp::Add, cd, "acc", "p")?;
    let t = types::ty(d);
    let tm = per_thread(d);
    let bm = 16 * tm;
    let zero = lit(d, 0);
    let od = temp_dtype(d);
    let Operands {
        la,
        lb,
        out_at,
        prev,
    } = Operands::new(d, ba, bb, bo);
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
    // A range of k after the first continues from the sums the previous ranges stored, so
    // every output adds its products in order of k from zero, whatever the split.
    s.push_str("  if (prm(14u) != 0u) {\n");
    for i in 0..tm {
        for j in 0..tm {
            s.push_str(&format!(
                "    {{
      let r = row0 + ty + {ri}u;
      let c = col0 + tx + {cj}u;
      if (r < prm(0u) && c < prm(1u)) {{ acc{i}_{j} = {prev}; }}
    }}
",
                ri = 16 * i,
                cj = 16 * j,
            ));
        }
    }
    s.push_str("  }\n");
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
            let m = primitives::binary(
                &mut h,
                BinaryOp::Mul,
                cd,
                &format!("a{i}"),
                &format!("b{j}"),
            )?;
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
      let v = acc{i}_{j};
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
