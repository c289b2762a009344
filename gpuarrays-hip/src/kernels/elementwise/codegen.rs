//! C++ for a fused elementwise kernel: core lowers the program to primitives
//! (`gpuarrays_core::kernel::lowered`), each primitive becomes one statement of `ga_eval`,
//! and the `ga_ew` kernel feeds it from its operands as the layout says.
//!
//! Kernel parameters, in order (the launcher packs the same list):
//! `n`; one pointer per input (already advanced to the operand's offset); a `GaDims` of
//! strides per strided input; the output pointer; the output's `GaDims` if strided; the shape
//! `GaDims` if anything is strided; one parameter per scalar (so a new constant reuses the
//! compiled kernel).

use std::fmt::Write;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::lowered::{self, Prim};
use gpuarrays_core::kernel::{Node, Program, random};

use super::layout::{Class, EwLayout};
use crate::error::{HipError, Result};
use crate::kernels::cpp::element_types::{cty, load, mty, store, tag};
use crate::kernels::cpp::{philox, primitives, unit_math};

pub use super::layout::EW_BLOCK;

fn invalid(msg: String) -> HipError {
    HipError::InvalidArgument(format!("elementwise program: {msg}"))
}

/// The `ga_eval` function: the program lowered by core to primitives, one statement each.
fn eval_function(p: &Program) -> Result<String> {
    let lowered = lowered::lower(p).map_err(|e| invalid(e.to_string()))?;
    let out = p
        .instrs
        .last()
        .ok_or_else(|| invalid("no instructions".into()))?;
    let mut params = vec!["const i64 idx".to_string()];
    params.extend(
        p.inputs
            .iter()
            .enumerate()
            .map(|(k, &d)| format!("const {} in{k}", cty(d))),
    );
    params.extend(
        p.scalars
            .iter()
            .enumerate()
            .map(|(k, &d)| format!("const {} s{k}", mty(d))),
    );
    params.extend(randoms(p).map(|r| format!("const {} r{}", cty(r.dtype), r.instr)));
    let mut s = format!(
        "GA_INLINE {} ga_eval({}) {{\n",
        cty(out.dtype),
        params.join(", ")
    );
    // The drawn element is an argument (the vector loop draws a whole vector's elements at
    // once, a normal pair at a time), named after the program's instruction.
    let leaf = |v: u32, prim: Prim| match prim {
        Prim::Input(k) => format!("in{k}"),
        Prim::Scalar(k) => load(p.scalars[k as usize], &format!("s{k}")),
        Prim::Index => "idx".to_string(),
        _ => {
            let i = lowered.values.iter().position(|&x| x == v).unwrap_or(0);
            format!("r{i}")
        }
    };
    s.push_str(&primitives::statements(&lowered.block, "v", &leaf));
    let _ = writeln!(s, "  return v{};\n}}", lowered.block.results[0]);
    Ok(s)
}

/// Statements computing `o{k}` (element offsets) from the linear index `idx` for the operands
/// whose class `pick` selects.
fn offsets(l: &EwLayout, pick: impl Fn(Class) -> bool, idx_name: &str) -> String {
    let mut names: Vec<(String, String)> = l
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, c)| pick(**c))
        .map(|(k, _)| (format!("o{k}"), format!("st{k}")))
        .collect();
    if pick(l.output) {
        names.push(("o_out".into(), "st_out".into()));
    }
    if names.is_empty() {
        return String::new();
    }
    let idx = if l.idx32 { "u32" } else { "u64" };
    let mut s = String::new();
    for (o, _) in &names {
        let _ = write!(s, "i64 {o} = 0; ");
    }
    let _ = write!(
        s,
        "{{ {idx} r = ({idx}){idx_name};\n#pragma unroll\n for (int d = {} - 1; d > 0; --d) {{ const {idx} e = ({idx})shape.v[d]; const {idx} c = r % e; r /= e; ",
        l.ndim
    );
    for (o, st) in &names {
        let _ = write!(s, "{o} += (i64)c * {st}.v[d]; ");
    }
    s.push_str("}\n ");
    for (o, st) in &names {
        let _ = write!(s, "{o} += (i64)r * {st}.v[0]; ");
    }
    s.push_str("}\n");
    s
}

/// A random leaf of a program.
struct RandomLeaf {
    /// Its instruction index.
    instr: usize,
    /// The scalar slot of its seed.
    slot: u32,
    dtype: DType,
    /// `uniform_f32` ... `normal_f64` (see [`philox::draw_name`]).
    name: &'static str,
    /// Stream words per draw.
    words: u32,
    /// Elements per draw (2 for a Box–Muller pair).
    elements: u32,
}

/// The random leaves of `p` (leaves of other types are rejected by `eval_function`).
fn randoms(p: &Program) -> impl Iterator<Item = RandomLeaf> + '_ {
    p.instrs
        .iter()
        .enumerate()
        .filter_map(|(i, ins)| match ins.node {
            Node::Random(dist, slot) => Some(RandomLeaf {
                instr: i,
                slot,
                dtype: ins.dtype,
                name: philox::draw_name(dist, ins.dtype)?,
                words: random::words_per_draw(dist, ins.dtype),
                elements: random::elements_per_draw(dist),
            }),
            _ => None,
        })
}

/// Philox calls one vector of `vec` elements of `r` needs (it starts at a multiple of
/// `vec / elements` draws, so fewer than 4 words lie inside one call).
fn calls_per_vector(vec: u32, r: &RandomLeaf) -> u32 {
    (vec / r.elements * r.words / 4).max(1)
}

/// The arguments of a `ga_eval` call; `vector` selects the vector loop's form of the
/// contiguous inputs.
fn eval_call(p: &Program, l: &EwLayout, vector: bool) -> String {
    let mut args = vec!["idx".to_string()];
    for (k, (&d, c)) in p.inputs.iter().zip(&l.inputs).enumerate() {
        args.push(match c {
            Class::Contiguous | Class::Rows if vector => load(d, &format!("a{k}.v[j]")),
            Class::Contiguous => load(d, &format!("p{k}[idx]")),
            Class::Broadcast => format!("b{k}"),
            Class::Strided | Class::Rows => load(d, &format!("p{k}[o{k}]")),
        });
    }
    args.extend((0..p.scalars.len()).map(|k| format!("s{k}")));
    for r in randoms(p) {
        args.push(if vector {
            format!("rv{}[j]", r.instr)
        } else {
            format!("ga_at_{}((u64)idx, s{})", r.name, r.slot)
        });
    }
    format!("ga_eval({})", args.join(", "))
}

/// The body (everything after the kernel header) of the kernel for `program` with `layout`.
pub fn body(p: &Program, l: &EwLayout, out_dtype: DType) -> Result<String> {
    if l.inputs.len() != p.inputs.len() {
        return Err(invalid(format!(
            "{} input layouts for {} inputs",
            l.inputs.len(),
            p.inputs.len()
        )));
    }
    if let Some(t) = &l.transpose {
        if p.draws_random() {
            return Err(invalid(
                "the tiled kernel takes no random draws (they are planned for the generic one)"
                    .into(),
            ));
        }
        let eval = eval_function(p)?;
        return Ok(super::transpose::body(p, l, t, out_dtype, &eval));
    }
    let mut s = String::new();
    if l.ndim > 0 {
        let _ = writeln!(s, "struct GaDims {{ i64 v[{}]; }};", l.ndim);
    }
    if p.draws_random() {
        s.push_str(unit_math::UNIT_MATH);
        let draws: Vec<_> = p
            .instrs
            .iter()
            .filter_map(|i| match i.node {
                Node::Random(dist, _) => Some((dist, i.dtype)),
                _ => None,
            })
            .collect();
        s.push_str(&philox::library(&draws));
    }
    let vec = l.vec;
    if vec > 1 {
        let mut seen: Vec<&str> = Vec::new();
        let contiguous = p
            .inputs
            .iter()
            .zip(&l.inputs)
            .filter(|(_, c)| c.is_vector())
            .map(|(d, _)| *d)
            .chain(std::iter::once(out_dtype));
        for d in contiguous {
            if seen.contains(&tag(d)) {
                continue;
            }
            seen.push(tag(d));
            let align = (vec as usize * d.size()).min(16);
            let _ = writeln!(
                s,
                "struct alignas({align}) GaVec_{t} {{ {m} v[{vec}]; }};",
                t = tag(d),
                m = mty(d)
            );
        }
    }
    s.push_str(&eval_function(p)?);
    let mut params = vec!["const i64 n".to_string()];
    for (k, &d) in p.inputs.iter().enumerate() {
        params.push(format!("const {}* __restrict__ p{k}", mty(d)));
    }
    for (k, c) in l.inputs.iter().enumerate() {
        if c.has_strides() {
            params.push(format!("const GaDims st{k}"));
        }
    }
    params.push(format!("{}* out", mty(out_dtype)));
    if l.output.has_strides() {
        params.push("const GaDims st_out".into());
    }
    if l.ndim > 0 {
        params.push("const GaDims shape".into());
    }
    for (k, &d) in p.scalars.iter().enumerate() {
        params.push(format!("const {} s{k}", mty(d)));
    }
    let _ = writeln!(
        s,
        "__global__ void __launch_bounds__({EW_BLOCK}) ga_ew({}) {{",
        params.join(", ")
    );
    s.push_str("  const i64 gtid = (i64)blockIdx.x * (i64)blockDim.x + (i64)threadIdx.x;\n");
    if !l.one_step {
        s.push_str("  const i64 gstride = (i64)gridDim.x * (i64)blockDim.x;\n");
    }
    for (k, (&d, c)) in p.inputs.iter().zip(&l.inputs).enumerate() {
        if *c == Class::Broadcast {
            let _ = writeln!(
                s,
                "  const {} b{k} = {};",
                cty(d),
                load(d, &format!("p{k}[0]"))
            );
        }
    }
    if vec > 1 {
        let _ = writeln!(s, "  const i64 nvec = n / {vec};");
        let step = vector_step(p, l, out_dtype);
        if l.one_step {
            // One launch covers every vector (`per_thread` of them per thread, `EW_BLOCK`
            // apart so that a warp's stores stay contiguous): no loop. When all of a thread's
            // vectors are in range they run in one straight block, where the compiler shares
            // what they have in common (a Philox key schedule).
            let u = l.per_thread.max(1);
            let _ = writeln!(
                s,
                "  const i64 v0 = (i64)blockIdx.x * (i64){} + (i64)threadIdx.x;",
                u * EW_BLOCK
            );
            let _ = writeln!(
                s,
                "  if (v0 + {} < nvec) {{\n#pragma unroll\n  for (int u = 0; u < {u}; ++u) {{\n    const i64 v = v0 + (i64)u * {EW_BLOCK};\n{step}  }}\n  }}",
                (u - 1) * EW_BLOCK
            );
            if u > 1 {
                let _ = writeln!(
                    s,
                    "  else {{\n#pragma unroll\n  for (int u = 0; u < {u}; ++u) {{\n    const i64 v = v0 + (i64)u * {EW_BLOCK};\n    if (v < nvec) {{\n{step}    }}\n  }}\n  }}"
                );
            }
        } else {
            let _ = writeln!(
                s,
                "  for (i64 v = gtid; v < nvec; v += gstride) {{\n{step}  }}"
            );
        }
    }
    let start = if vec > 1 {
        format!("nvec * (i64){vec}")
    } else {
        "0".to_string()
    };
    let target = if l.output.has_strides() {
        "out[o_out]"
    } else {
        "out[idx]"
    };
    let offs = offsets(l, Class::has_strides, "idx");
    let element = format!(
        "    {offs}    {target} = {};\n",
        store(out_dtype, &eval_call(p, l, false))
    );
    if l.one_step {
        // The elements after the vectors (all of them when `vec` is 1): one per thread.
        let _ = writeln!(
            s,
            "  {{\n    const i64 idx = {start} + gtid;\n    if (idx < n) {{\n{element}    }}\n  }}\n}}"
        );
    } else {
        let _ = writeln!(
            s,
            "  for (i64 idx = {start} + gtid; idx < n; idx += gstride) {{\n{element}  }}\n}}"
        );
    }
    Ok(s)
}

/// The statements of one vector step: vector `v` (an `i64` in scope) of `vec` elements
/// starting at `base`, its contiguous inputs and rows loaded and its output stored 16 bytes at
/// a time (a row's offset is computed once per vector: the vector lies inside one row).
fn vector_step(p: &Program, l: &EwLayout, out_dtype: DType) -> String {
    let vec = l.vec;
    let mut s = String::new();
    let _ = writeln!(s, "    const i64 base = v * {vec};");
    let rows = offsets(l, |c| c == Class::Rows, "base");
    if !rows.is_empty() {
        let _ = write!(s, "    {rows}");
    }
    for (k, (&d, c)) in p.inputs.iter().zip(&l.inputs).enumerate() {
        let at = match c {
            Class::Contiguous => "base".to_string(),
            Class::Rows => format!("o{k}"),
            _ => continue,
        };
        let t = tag(d);
        let _ = writeln!(
            s,
            "    const GaVec_{t} a{k} = *reinterpret_cast<const GaVec_{t}*>(p{k} + {at});"
        );
    }
    // Each Philox call once per vector (rq{i}[c] for the calls of elements base ..), then
    // each draw once: rv{i}[j] is element base + j.
    for r in randoms(p) {
        let (i, slot, w, e) = (r.instr, r.slot, r.words, r.elements);
        let nc = calls_per_vector(vec, &r);
        let _ = writeln!(
            s,
            "    const u64 d{i} = (u64)base / {e}u;\n    const u32 rw{i} = (u32)((d{i} * {w}u) & 3u);\n    GaWords rq{i}[{nc}];\n#pragma unroll\n    for (int c = 0; c < {nc}; ++c) rq{i}[c] = ga_philox(((d{i} * {w}u) >> 2) + (u64)c, s{slot});\n    {t} rv{i}[{vec}];\n#pragma unroll\n    for (int k = 0; k < {draws}; ++k) ga_draw_{name}(ga_vec_words<{w}, {nc}>(rq{i}, k, rw{i}), rv{i} + k * {e});",
            t = cty(r.dtype),
            draws = vec / e,
            name = r.name
        );
    }
    let _ = writeln!(s, "    GaVec_{} o;", tag(out_dtype));
    let _ = writeln!(s, "#pragma unroll\n    for (int j = 0; j < {vec}; ++j) {{");
    s.push_str("      const i64 idx = base + j;\n      ");
    s.push_str(&offsets(l, |c| c == Class::Strided, "idx"));
    let _ = writeln!(
        s,
        "      o.v[j] = {};\n    }}",
        store(out_dtype, &eval_call(p, l, true))
    );
    let at = if l.output == Class::Rows {
        "o_out"
    } else {
        "base"
    };
    let _ = writeln!(
        s,
        "    *reinterpret_cast<GaVec_{}*>(out + {at}) = o;",
        tag(out_dtype)
    );
    s
}
