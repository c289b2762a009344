//! Reductions over the middle axis of an (outer, len, inner) view.
//!
//! One kernel, generated per (operation, type, source, lanes):
//! - `lanes = 256`: a workgroup per output, its threads striding over the axis and
//!   combining in workgroup memory (rows, and columns when there are few outputs);
//! - `lanes = 1`: a thread per output looping over the axis (short axes, and columns when
//!   there are many outputs: neighbouring threads read neighbouring elements).
//!
//! With few outputs and a long axis, each row is first split into `S` segments reduced into
//! partial states (value, index) in temporaries, then the partials are reduced: the whole
//! GPU works on a full sum. States combine with the CPU reference's rules: NaN-propagating
//! min/max, and for argmin/argmax NaN first, then the better value, then the lower index
//! (symmetric, so the order of combination does not matter).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{ReduceArgs, ReduceOp};

use super::temp::{from_temp, pack, temp_dtype, to_temp};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::ops;
use crate::wgsl::types::{self, Class, unit_bytes, units};

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

fn is_arg(op: ReduceOp) -> bool {
    matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax)
}

/// `combine(a, b)` of two states for `op` over values of `d`, as WGSL statements updating
/// `(av, ai, ak)` from `(bv, bi, bk)` (`k` = state holds a value).
fn combine(h: &mut Helpers, op: ReduceOp, d: DType) -> Result<String> {
    let f = match op {
        ReduceOp::Sum => ops::binary(h, gpuarrays_core::kernel::BinaryOp::Add, d, "av", "bv")?,
        ReduceOp::Prod => ops::binary(h, gpuarrays_core::kernel::BinaryOp::Mul, d, "av", "bv")?,
        ReduceOp::Min => ops::binary(h, gpuarrays_core::kernel::BinaryOp::Min, d, "av", "bv")?,
        ReduceOp::Max => ops::binary(h, gpuarrays_core::kernel::BinaryOp::Max, d, "av", "bv")?,
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

// Parameters: 0 outputs (o, s, i triples), 1 len, 2 inner, 3 seg, 4 S, 5 input offset
// (units), 6 output offset (units), 7 index-input offset.

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
    let out_pos = "((o * prm(4u) + s) * prm(2u) + i)";
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
                s.push_str(&format!("\n    b{}[{out_pos}] = st_i;", bi + 1));
            }
            s
        }
    };
    let lanes = p.lanes;
    let mut src = header::declarations(8, storage, false);
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
        "  let q = {g};
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

/// Runs a reduction.
pub fn run(ctx: &Context, a: &ReduceArgs<'_, WgpuBuffer>) -> Result<()> {
    let out_d =
        a.op.result_dtype(a.dtype)
            .map_err(|e| invalid(e.to_string()))?;
    let outputs = a.outer * a.inner;
    if outputs == 0 || a.len == 0 {
        return Err(invalid("a reduction with no outputs or an empty axis"));
    }
    let total = a.outer as u64 * a.len as u64 * a.inner as u64;
    if total >= u32::MAX as u64 / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("a reduction over {total} elements"),
            requested: total,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "reduce parts of the array separately",
        });
    }
    let lanes = if a.len <= 64 || (a.inner > 1 && outputs >= 2048) {
        1
    } else {
        256
    };
    let segments = if lanes > 1 && outputs < 512 && a.len > 4096 {
        (512 / outputs).clamp(1, a.len.div_ceil(2048))
    } else {
        1
    };
    let arg = is_arg(a.op);
    if segments == 1 {
        return pass_final(ctx, a, out_d, lanes, Source::Array, None);
    }
    // Split: partial states of `segments` per output, then reduce them.
    let seg = a.len.div_ceil(segments);
    let td = temp_dtype(a.dtype);
    let n_part = outputs * segments;
    let pv = ctx.alloc(n_part * td.size())?;
    let pi = if arg {
        Some(ctx.alloc(n_part * 4)?)
    } else {
        None
    };
    let r = (|| {
        let pass = Pass {
            op: a.op,
            dtype: a.dtype,
            source: Source::Array,
            sink: Sink::Partial,
            lanes,
        };
        let mut plan = BindingPlan::default();
        let bin = add_input(
            &mut plan,
            a.input,
            a.dtype,
            a.input_offset,
            total as usize,
            ctx,
        )?;
        let bout = plan.add(
            &pv,
            Class::of(td),
            Access::ReadWrite,
            0,
            (n_part * td.size()) as u64,
        );
        let bidx = match &pi {
            Some(b) => Some(plan.add(b, Class::W32, Access::ReadWrite, 0, (n_part * 4) as u64)),
            None => None,
        };
        let windows = plan.windows(ctx)?;
        let spec = spec(&pass, &plan, bin, None, bout, bidx)?;
        let in_off = rel(windows[bin].start, a.input_offset, a.dtype);
        let params = [
            n_part as u32,
            a.len as u32,
            a.inner as u32,
            seg as u32,
            segments as u32,
            in_off,
            0,
            0,
        ];
        dispatch::launch(
            ctx,
            &spec,
            &params,
            &plan,
            &windows,
            false,
            groups(n_part, lanes),
        )?;
        let part = ReduceArgs {
            op: a.op,
            dtype: a.dtype,
            input: &pv,
            input_offset: 0,
            outer: a.outer,
            len: segments,
            inner: a.inner,
            output: a.output,
            output_offset: a.output_offset,
        };
        pass_final(ctx, &part, out_d, 256, Source::Partial, pi.as_ref())
    })();
    ctx.release(pv);
    if let Some(b) = pi {
        ctx.release(b);
    }
    r
}

fn rel(window_start: u64, offset: usize, d: DType) -> u32 {
    ((offset as u64 * d.size() as u64 - window_start) / unit_bytes(d)) as u32
}

fn groups(outputs: usize, lanes: u32) -> u64 {
    if lanes > 1 {
        outputs as u64
    } else {
        (outputs as u64).div_ceil(header::WORKGROUP as u64)
    }
}

fn add_input<'a>(
    plan: &mut BindingPlan<'a>,
    buf: &'a WgpuBuffer,
    d: DType,
    offset: usize,
    count: usize,
    _ctx: &Context,
) -> Result<usize> {
    let size = d.size() as u64;
    Ok(plan.add(
        buf,
        Class::of(d),
        Access::Read,
        offset as u64 * size,
        (offset + count) as u64 * size,
    ))
}

fn spec(
    p: &Pass,
    plan: &BindingPlan<'_>,
    bin: usize,
    bidx: Option<usize>,
    bout: usize,
    bout_idx: Option<usize>,
) -> Result<ShaderSpec> {
    let layout = plan.layout();
    Ok(ShaderSpec {
        label: format!(
            "reduce[{} {} {:?}->{:?} x{}]",
            p.op, p.dtype, p.source, p.sink, p.lanes
        ),
        source: source(p, &layout, bin, bidx, bout, bout_idx)?,
        storage: layout.iter().map(|x| x.1).collect(),
    })
}

/// The last pass: reads `a.input` (the array, or partials with indices `idx`) and writes
/// the output (through a word-per-element temporary for bool/u8 outputs).
fn pass_final(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    out_d: DType,
    lanes: u32,
    source: Source,
    idx: Option<&WgpuBuffer>,
) -> Result<()> {
    let outputs = a.outer * a.inner;
    let total = a.outer * a.len * a.inner;
    let pass = Pass {
        op: a.op,
        dtype: a.dtype,
        source,
        sink: Sink::Final,
        lanes,
    };
    let byte_out = types::is_byte(out_d);
    let temp = if byte_out {
        Some(ctx.alloc(outputs * 4)?)
    } else {
        None
    };
    let r = (|| {
        let mut plan = BindingPlan::default();
        let in_d = if source == Source::Partial {
            temp_dtype(a.dtype)
        } else {
            a.dtype
        };
        let bin = add_input(&mut plan, a.input, in_d, a.input_offset, total, ctx)?;
        let bidx = match idx {
            Some(b) => Some(plan.add(b, Class::W32, Access::Read, 0, total as u64 * 4)),
            None => None,
        };
        let (out_buf, out_off, out_unit_d) = match &temp {
            Some(t) => (t, 0usize, DType::U32),
            None if is_arg(a.op) => (a.output, a.output_offset * 2, DType::U32),
            None => (a.output, a.output_offset, out_d),
        };
        let ob_class = Class::of(out_unit_d);
        let osize = out_unit_d.size() as u64;
        let count = if is_arg(a.op) && temp.is_none() {
            outputs * 2
        } else {
            outputs
        };
        let bout = plan.add(
            out_buf,
            ob_class,
            Access::ReadWrite,
            out_off as u64 * osize,
            (out_off + count) as u64 * osize,
        );
        let windows = plan.windows(ctx)?;
        let spec = spec(&pass, &plan, bin, bidx, bout, None)?;
        let in_off = rel(windows[bin].start, a.input_offset, in_d);
        let o_off =
            ((out_off as u64 * osize - windows[bout].start) / unit_bytes(out_unit_d)) as u32;
        let params = [
            outputs as u32,
            a.len as u32,
            a.inner as u32,
            a.len as u32,
            1,
            in_off,
            o_off,
            0,
        ];
        dispatch::launch(
            ctx,
            &spec,
            &params,
            &plan,
            &windows,
            false,
            groups(outputs, lanes),
        )?;
        if let Some(t) = &temp {
            pack(ctx, t, out_d, a.output, a.output_offset, outputs)?;
        }
        Ok(())
    })();
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}
