//! The WGSL of a fused elementwise kernel: the program, lowered by core to primitives
//! (`gpuarrays_core::kernel::lowered`), as one function `eval(j, jl, ...)` giving the output element at linear index `j` (`jl` relative to the
//! dispatch), and an entry point in one of three shapes:
//! - **scalar**: one thread per output element;
//! - **vec4**: one thread per four consecutive output elements of a 32-bit type, loading
//!   each 32-bit contiguous input whose offset is a multiple of four as one `vec4<u32>`
//!   word (passed to `eval` as its four lanes) and storing the four results as one word:
//!   128-bit memory accesses, as the hardware's bandwidth wants;
//! - **bytes**: bool/u8 outputs, one thread per output *word* (no two threads write one
//!   word).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::lowered::{self, Prim};
use gpuarrays_core::kernel::{Access as OpAccess, Program};

use crate::error::{Result, invalid};
use crate::pipeline::Access;
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::random;
use crate::wgsl::types::{self, Class, is_packed, per_word, units};

/// Where each operand is bound and how it is read: everything the source depends on
/// besides the program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    pub ndim: usize,
    pub inputs: Vec<OpAccess>,
    /// Inputs the vec4 kernel reads as whole `vec4<u32>` words (others: element loads).
    pub vec4_inputs: Vec<bool>,
    /// The vec4 kernel (four outputs per thread) rather than the scalar one.
    pub vec4: bool,
    /// The output is a strided view (scalar kernel, types of 4 bytes or more): stored at
    /// its offset plus each index times its stride, like a strided input is read.
    pub strided_output: bool,
    /// Binding index of each input, then of the output.
    pub binding: Vec<usize>,
    pub storage: Vec<(Class, Access)>,
}

/// Word positions of the parameter block: 0 threads, 1 first output index, 2 output
/// offset (units, relative to its window), 3 elements in the dispatch, then the shape, each
/// input's offset (and strides), a strided output's strides, each scalar.
pub(crate) struct Slots {
    pub shape: usize,
    pub input_off: Vec<usize>,
    /// The first of a strided output's strides (units).
    pub output_strides: Option<usize>,
    pub scalar: Vec<usize>,
    /// A word left 0: the imaginary part of real-to-complex casts (see `Helpers::zero`).
    pub zero: usize,
    pub words: usize,
    pub f64_view: bool,
}

pub(crate) fn slots(program: &Program, layout: &Layout) -> Slots {
    let mut w = 4 + layout.ndim;
    let mut input_off = Vec::new();
    for a in &layout.inputs {
        input_off.push(w);
        w += 1 + if matches!(a, OpAccess::Strided(_)) {
            layout.ndim
        } else {
            0
        };
    }
    let output_strides = layout.strided_output.then_some(w);
    if layout.strided_output {
        w += layout.ndim;
    }
    let mut scalar = Vec::new();
    let mut f64_view = false;
    for d in &program.scalars {
        let words = d.size().div_ceil(4);
        if words >= 2 && w % 2 == 1 {
            w += 1;
        }
        scalar.push(w);
        w += words.max(1);
        f64_view |= matches!(d, DType::F64 | DType::C64);
    }
    Slots {
        shape: 4,
        input_off,
        output_strides,
        scalar,
        zero: w,
        words: w + 1,
        f64_view,
    }
}

fn scalar_expr(d: DType, w: usize) -> String {
    match d {
        DType::Bool => format!("(prm({w}u) != 0u)"),
        DType::U8 => format!("(prm({w}u) & 0xffu)"),
        DType::U32 => format!("prm({w}u)"),
        DType::I32 => format!("bitcast<i32>(prm({w}u))"),
        DType::F32 => format!("bitcast<f32>(prm({w}u))"),
        DType::C32 => format!(
            "vec2<f32>(bitcast<f32>(prm({w}u)), bitcast<f32>(prm({}u)))",
            w + 1
        ),
        DType::U64 => format!("((u64(prm({}u)) << 32u) | u64(prm({w}u)))", w + 1),
        DType::I64 => format!(
            "bitcast<i64>((u64(prm({}u)) << 32u) | u64(prm({w}u)))",
            w + 1
        ),
        DType::F64 => format!("pf[{}u]", w / 2),
        DType::C64 => format!("vec2<f64>(pf[{}u], pf[{}u])", w / 2, w / 2 + 1),
        // Narrow scalars arrive in the low bits of their word (little-endian bytes).
        DType::I8 => format!("(bitcast<i32>(prm({w}u) << 24u) >> 24u)"),
        DType::I16 => format!("(bitcast<i32>(prm({w}u) << 16u) >> 16u)"),
        DType::U16 => format!("(prm({w}u) & 0xffffu)"),
        DType::F16 => format!("ga_h2f(prm({w}u) & 0xffffu)"),
        DType::BF16 => format!("bitcast<f32>(prm({w}u) << 16u)"),
    }
}

/// Whether elements of `d` can travel as the lanes of a `vec4<u32>` word.
pub fn is_word(d: DType) -> bool {
    matches!(d, DType::F32 | DType::I32 | DType::U32)
}

/// The value of type `d` held in the u32 word `w`.
fn from_word(d: DType, w: &str) -> String {
    match d {
        DType::U32 => w.to_string(),
        _ => format!("bitcast<{}>({w})", types::ty(d)),
    }
}

/// The WGSL source of `program` with `layout`.
pub fn source(program: &Program, layout: &Layout) -> Result<String> {
    let s = slots(program, layout);
    let mut h = Helpers::default();
    h.set_zero_word(s.zero);
    let out = program.output_dtype();
    if layout.vec4 && !is_word(out) {
        return Err(invalid(format!(
            "a vec4 elementwise kernel with {out} output"
        )));
    }
    if layout.strided_output && (layout.vec4 || is_packed(out)) {
        return Err(invalid(format!(
            "a strided {out} output in the {} kernel",
            if layout.vec4 { "vec4" } else { "packed" }
        )));
    }
    let vec4_input = |slot: usize| layout.vec4 && layout.vec4_inputs.get(slot) == Some(&true);
    let ob = format!("b{}", layout.binding[layout.inputs.len()] + 1);
    let mut body = String::new();
    if layout
        .inputs
        .iter()
        .any(|a| matches!(a, OpAccess::Strided(_)))
    {
        body.push_str("  var r = j;\n");
        for k in (1..layout.ndim).rev() {
            body.push_str(&format!(
                "  let i{k} = r % prm({}u);\n  r = r / prm({}u);\n",
                s.shape + k,
                s.shape + k
            ));
        }
        body.push_str("  let i0 = r;\n");
    }
    // The program lowered by core to primitives, one `let` each; the leaves read the
    // operands, the parameter block and the random elements.
    let lowered = lowered::lower(program).map_err(|e| invalid(e.to_string()))?;
    let block = &lowered.block;
    let leaf = |h: &mut Helpers, v: u32, prim: Prim| -> Result<String> {
        Ok(match prim {
            Prim::Input(slot) => {
                let slot = slot as usize;
                let access = layout
                    .inputs
                    .get(slot)
                    .ok_or_else(|| invalid(format!("input {slot} of {}", layout.inputs.len())))?;
                let d = program.inputs[slot];
                if vec4_input(slot) {
                    from_word(d, &format!("x{slot}"))
                } else {
                    let off = s.input_off[slot];
                    let pos = match access {
                        OpAccess::Contiguous => format!("prm({off}u) + jl * {}u", units(d)),
                        OpAccess::Broadcast => format!("prm({off}u)"),
                        OpAccess::Strided(_) => {
                            let mut p = format!("prm({off}u)");
                            for k in 0..layout.ndim {
                                p.push_str(&format!(" + i{k} * prm({}u)", off + 1 + k));
                            }
                            p
                        }
                    };
                    let b = format!("b{}", layout.binding[slot] + 1);
                    types::load(d, &b, &format!("({pos})"))
                }
            }
            Prim::Scalar(slot) => {
                scalar_expr(program.scalars[slot as usize], s.scalar[slot as usize])
            }
            Prim::Index => "i64(j)".to_string(),
            Prim::Random(dist, slot) => {
                let w = s.scalar[slot as usize];
                let t = block.ty(v);
                let f = random::element(h, dist, t);
                format!("{f}(j, 0u, prm({w}u), prm({}u))", w + 1)
            }
            other => return Err(invalid(format!("a lowered program with {other:?}"))),
        })
    };
    let mut failed = None;
    let mut print_leaf = |h: &mut Helpers, v: u32, prim: Prim| {
        leaf(h, v, prim).unwrap_or_else(|e| {
            failed = Some(e);
            String::new()
        })
    };
    body.push_str(&primitives::statements(&mut h, block, "v", &mut print_leaf));
    if let Some(e) = failed {
        return Err(e);
    }
    let last = lowered.block.results[0];
    let word_inputs: Vec<usize> = (0..layout.inputs.len())
        .filter(|&k| vec4_input(k))
        .collect();
    let params: String = word_inputs.iter().map(|k| format!(", x{k}: u32")).collect();
    let store = if layout.vec4 {
        let mut st = String::from("  let jl = t * 4u;\n");
        for &k in &word_inputs {
            st.push_str(&format!(
                "  let a{k} = b{}[(prm({}u) >> 2u) + t];\n",
                layout.binding[k] + 1,
                s.input_off[k]
            ));
        }
        let lanes: Vec<String> = ["x", "y", "z", "w"]
            .iter()
            .enumerate()
            .map(|(q, lane)| {
                let args: String = word_inputs
                    .iter()
                    .map(|k| format!(", a{k}.{lane}"))
                    .collect();
                format!("bitcast<u32>(eval(prm(1u) + jl + {q}u, jl + {q}u{args}))")
            })
            .collect();
        st.push_str(&format!(
            "  {ob}[(prm(2u) >> 2u) + t] = vec4<u32>({});\n",
            lanes.join(", ")
        ));
        st
    } else if is_packed(out) {
        // One thread per output word: `n` elements of `bits` bits each.
        let (n, bits) = (per_word(out), 32 / per_word(out));
        let mask = if bits == 8 { "0xffu" } else { "0xffffu" };
        format!(
            "  let w = (prm(2u) / {n}u) + t;
  var word = {ob}[w];
  for (var k = 0u; k < {n}u; k++) {{
    let p = w * {n}u + k;
    if (p >= prm(2u) && p - prm(2u) < prm(3u)) {{
      let jl = p - prm(2u);
      let v = {};
      word = (word & ~({mask} << (k * {bits}u))) | (v << (k * {bits}u));
    }}
  }}
  {ob}[w] = word;
",
            types::bits_of(out, "eval(prm(1u) + jl, jl)")
        )
    } else if let Some(w) = s.output_strides {
        // The output's multi-index, as the strided inputs' is found in `eval`.
        let mut st = String::from("  let jl = t;\n  var q = prm(1u) + jl;\n");
        let mut pos = String::from("prm(2u)");
        for k in (0..layout.ndim).rev() {
            if k > 0 {
                st.push_str(&format!(
                    "  let o{k} = q % prm({d}u);\n  q = q / prm({d}u);\n",
                    d = s.shape + k
                ));
            } else {
                st.push_str("  let o0 = q;\n");
            }
        }
        for k in 0..layout.ndim {
            pos.push_str(&format!(" + o{k} * prm({}u)", w + k));
        }
        st.push_str(&format!(
            "  {}\n",
            types::store(out, &ob, &format!("({pos})"), "eval(prm(1u) + jl, jl)")
        ));
        st
    } else {
        format!(
            "  let jl = t;\n  {}\n",
            types::store(
                out,
                &ob,
                &format!("prm(2u) + jl * {}u", units(out)),
                "eval(prm(1u) + jl, jl)"
            )
        )
    };
    let mut src = header::declarations(s.words, &layout.storage, s.f64_view);
    src.push_str(&h.emit());
    src.push_str(&format!(
        "fn eval(j: u32, jl: u32{params}) -> {} {{\n{body}  return v{last};\n}}\n",
        types::ty(out)
    ));
    src.push_str(&header::entry(WORKGROUP));
    src.push_str(&format!("  if (t >= prm(0u)) {{ return; }}\n{store}}}\n"));
    Ok(src)
}
