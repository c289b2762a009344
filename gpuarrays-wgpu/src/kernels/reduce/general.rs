//! The general reduction kernel: every operation and element type, any (outer, len, inner)
//! view, in one of two shapes:
//! - `lanes = 256`: a workgroup per (output, segment), its threads striding over the
//!   segment and combining in workgroup memory (rows, and columns when there are few
//!   outputs);
//! - `lanes = 1`: a thread per (output, segment) looping over it (short axes, and columns:
//!   neighbouring threads read neighbouring elements).
//!
//! A pass reads the array or the partial states (value, index) of a previous pass, and
//! writes the output or partial states. States combine with the CPU reference's rules:
//! NaN-propagating min/max, and for argmin/argmax NaN first, then the better value, then
//! the lower index (symmetric, so the order of combination does not matter).
//!
//! Parameters: 0 end of the group range, 1 len, 2 inner, 3 seg, 4 S (segments per output),
//! 5 input offset (units, relative to its window, wrapping), 6 output offset (units),
//! 7 index-input offset, 8 first group of the dispatch, 9 index-output offset.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::ReduceOp;

use crate::error::{Result, invalid};
use crate::kernels::temp::{from_temp, temp_dtype, to_temp};
use crate::pipeline::Access;
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::types::{self, Class, units};

/// Where a pass reads: the input array, or partial states (values + indices) of a
/// previous pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Array,
    Partial,
}

/// Where a pass writes: the final output, or partial states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sink {
    Final,
    Partial,
}

pub(crate) fn is_arg(op: ReduceOp) -> bool {
    matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax)
}

/// `combine(a, b)` of two states for `op` over values of `d`, as WGSL statements updating
/// `(av, ai, ak)` from `(bv, bi, bk)` (`k` = state holds a value).
fn combine(h: &mut Helpers, op: ReduceOp, d: DType) -> Result<String> {
    let f = match op {
        ReduceOp::Sum => {
            primitives::binary(h, gpuarrays_core::kernel::BinaryOp::Add, d, "av", "bv")?
        }
        ReduceOp::Prod => {
            primitives::binary(h, gpuarrays_core::kernel::BinaryOp::Mul, d, "av", "bv")?
        }
        ReduceOp::Min => {
            primitives::binary(h, gpuarrays_core::kernel::BinaryOp::Min, d, "av", "bv")?
        }
        ReduceOp::Max => {
            primitives::binary(h, gpuarrays_core::kernel::BinaryOp::Max, d, "av", "bv")?
        }
        ReduceOp::Any => "(av || bv)".into(),
        ReduceOp::All => "(av && bv)".into(),
        ReduceOp::ArgMin | ReduceOp::ArgMax => {
            let (na, nb) = if d.is_float() {
                let n = h.isnan(d);
                (format!("{n}(av)"), format!("{n}(bv)"))
            } else {
                ("false".to_string(), "false".to_string())
            };
            let (x, y) = if d == DType::Bool {
                (
                    "select(0u, 1u, av)".to_string(),
                    "select(0u, 1u, bv)".to_string(),
                )
            } else {
                ("av".to_string(), "bv".to_string())
            };
            let better = if op == ReduceOp::ArgMin { "<" } else { ">" };
            return Ok(format!(
                "    var take_b = false;
    if ({na} && {nb}) {{ take_b = bi < ai; }}
    else if ({na}) {{ take_b = false; }}
    else if ({nb}) {{ take_b = true; }}
    else if ({x} == {y}) {{ take_b = bi < ai; }}
    else {{ take_b = {y} {better} {x}; }}
    if (take_b) {{ av = bv; ai = bi; }}
"
            ));
        }
    };
    Ok(format!("    av = {f};\n"))
}

pub(crate) struct Pass {
    pub op: ReduceOp,
    pub dtype: DType,
    pub source: Source,
    pub sink: Sink,
    pub lanes: u32,
}

/// Words of the parameter block.
pub(crate) const PARAMS: usize = 10;

pub(crate) fn source(
    p: &Pass,
    storage: &[(Class, Access)],
    bin: usize,
    bidx: Option<usize>,
    bout: usize,
    bout_idx: Option<usize>,
) -> Result<String> {
    let d = p.dtype;
    let t = types::ty(d);
    let mut h = Helpers::default();
    let comb = combine(&mut h, p.op, d)?;
    let arg = is_arg(p.op);
    let out_d = p.op.result_dtype(d).map_err(|e| invalid(e.to_string()))?;
    let inb = format!("b{}", bin + 1);
    let u = units(d);
    let load = match p.source {
        Source::Array => types::load(
            d,
            &inb,
            &format!("(prm(5u) + ((o * prm(1u) + k) * prm(2u) + i) * {u}u)"),
        ),
        Source::Partial => {
            let td = temp_dtype(d);
            from_temp(
                d,
                &types::load(
                    td,
                    &inb,
                    &format!("(prm(5u) + ((o * prm(1u) + k) * prm(2u) + i) * {u}u)"),
                ),
            )
        }
    };
    let load_idx = match (p.source, bidx) {
        (Source::Partial, Some(b)) => {
            format!("b{}[prm(7u) + (o * prm(1u) + k) * prm(2u) + i]", b + 1)
        }
        _ => "k".to_string(),
    };
    let ob = format!("b{}", bout + 1);
    let out_pos = "q";
    let store = match p.sink {
        Sink::Final if arg => format!(
            "{ob}[prm(6u) + {out_pos} * 2u] = st_i;\n    {ob}[prm(6u) + {out_pos} * 2u + 1u] = 0u;"
        ),
        Sink::Final => types::store(
            temp_dtype(out_d),
            &ob,
            &format!("prm(6u) + {out_pos} * {}u", units(out_d)),
            &to_temp(out_d, "st_v"),
        ),
        Sink::Partial => {
            let mut s = types::store(
                temp_dtype(d),
                &ob,
                &format!("prm(6u) + {out_pos} * {u}u"),
                &to_temp(d, "st_v"),
            );
            if let Some(bi) = bout_idx {
                s.push_str(&format!("\n    b{}[prm(9u) + {out_pos}] = st_i;", bi + 1));
            }
            s
        }
    };
    let lanes = p.lanes;
    let mut src = header::declarations(PARAMS, storage, false);
    src.push_str(&h.emit());
    // The combine step as a function of two states.
    src.push_str(&format!(
        "fn comb(a: {t}, a_i: u32, b: {t}, b_i: u32) -> St {{
    var av = a; var ai = a_i; let bv = b; let bi = b_i;
{comb}    return St(av, ai);
}}
"
    ));
    let st_ty = if d == DType::Bool { "u32" } else { t };
    src = src.replacen(
        "fn comb",
        &format!("struct St {{ v: {t}, i: u32 }}\n{}fn comb", if lanes > 1 { format!("var<workgroup> sh_v: array<{st_ty}, {lanes}>;\nvar<workgroup> sh_i: array<u32, {lanes}>;\nvar<workgroup> sh_k: array<u32, {lanes}>;\n") } else { String::new() }),
        1,
    );
    src.push_str(&header::entry(if lanes > 1 {
        lanes
    } else {
        header::WORKGROUP
    }));
    let (g, first, step) = if lanes > 1 {
        ("g", "lid", lanes)
    } else {
        ("t", "0u", 1)
    };
    src.push_str(&format!(
        "  let q = {g} + prm(8u);
  let live = q < prm(0u);
  let i = q % prm(2u);
  let r = q / prm(2u);
  let s = r % prm(4u);
  let o = r / prm(4u);
  let begin = s * prm(3u);
  let end = min(begin + prm(3u), prm(1u));
  var st_v: {t};
  var st_i = 0u;
  var st_k = false;
  if (live) {{
    for (var k = begin + {first}; k < end; k += {step}u) {{
      let v = {load};
      let vi = {load_idx};
      if (st_k) {{ let c = comb(st_v, st_i, v, vi); st_v = c.v; st_i = c.i; }}
      else {{ st_v = v; st_i = vi; st_k = true; }}
    }}
  }}
"
    ));
    if lanes > 1 {
        let to_sh = if d == DType::Bool {
            "select(0u, 1u, st_v)"
        } else {
            "st_v"
        };
        let from_sh = |e: &str| {
            if d == DType::Bool {
                format!("({e} != 0u)")
            } else {
                e.to_string()
            }
        };
        src.push_str(&format!(
            "  sh_v[lid] = {to_sh};
  sh_i[lid] = st_i;
  sh_k[lid] = select(0u, 1u, st_k);
  workgroupBarrier();
  for (var w = {half}u; w > 0u; w = w >> 1u) {{
    if (lid < w && sh_k[lid + w] != 0u) {{
      if (sh_k[lid] != 0u) {{
        let c = comb({a}, sh_i[lid], {b}, sh_i[lid + w]);
        sh_v[lid] = {cv};
        sh_i[lid] = c.i;
      }} else {{
        sh_v[lid] = sh_v[lid + w];
        sh_i[lid] = sh_i[lid + w];
        sh_k[lid] = 1u;
      }}
    }}
    workgroupBarrier();
  }}
  if (lid != 0u || !live) {{ return; }}
  st_v = {v0};
  st_i = sh_i[0];
",
            half = lanes / 2,
            a = from_sh("sh_v[lid]"),
            b = from_sh("sh_v[lid + w]"),
            cv = if d == DType::Bool {
                "select(0u, 1u, c.v)".to_string()
            } else {
                "c.v".to_string()
            },
            v0 = from_sh("sh_v[0]"),
        ));
    } else {
        src.push_str("  if (!live) { return; }\n");
    }
    src.push_str(&format!("  {store}\n}}\n"));
    Ok(src)
}
