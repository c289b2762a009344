//! Fused elementwise kernels: a [`Program`] lowered to one WGSL function `eval(j)` giving
//! the output element at linear index `j`, called by one thread per output element (or,
//! for bool/u8 outputs, one thread per output *word*, so that no two threads write one
//! word).
//!
//! Shapes, offsets, strides (broadcast strides are 0, reversed axes negative, all in units
//! of the operand's storage, computed in wrapping u32 arithmetic) and scalar values arrive
//! in the parameter block; the compiled kernel depends only on the program, the access
//! class of each input and which binding each operand uses.
//!
//! **Arrays larger than one binding.** Contiguous operands and the output are processed in
//! chunks of the index space whose windows fit in `max_storage_buffer_binding_size`;
//! broadcast and strided operands must fit in one binding as a whole (otherwise a
//! [`WgpuError::LimitExceeded`] names the limit).

use gpuarrays_core::kernel::random;
use gpuarrays_core::kernel::{Access as OpAccess, ElementwiseArgs, Node, Operand, Program};
use gpuarrays_core::{DType, Scalar};

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan, Window};
use crate::error::{Result, WgpuError, invalid};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::{self, Class, is_byte, unit_bytes, units};
use crate::wgsl::{ops, philox};

/// Where each operand is bound and how it is read: everything the source depends on
/// besides the program.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    pub ndim: usize,
    pub inputs: Vec<OpAccess>,
    /// Binding index of each input, then of the output.
    pub binding: Vec<usize>,
    pub storage: Vec<(Class, Access)>,
}

/// Word positions of the parameter block.
struct Slots {
    shape: usize,
    input_off: Vec<usize>,
    scalar: Vec<usize>,
    words: usize,
    f64_view: bool,
}

fn slots(program: &Program, layout: &Layout) -> Slots {
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
        scalar,
        words: w,
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
    }
}

/// The WGSL source of `program` with `layout`.
pub fn source(program: &Program, layout: &Layout) -> Result<String> {
    let s = slots(program, layout);
    let mut h = Helpers::default();
    let out = program.output_dtype();
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
    for (i, ins) in program.instrs.iter().enumerate() {
        let dt = |k: u32| -> Result<DType> {
            program
                .instrs
                .get(k as usize)
                .filter(|_| (k as usize) < i)
                .map(|x| x.dtype)
                .ok_or_else(|| invalid(format!("instruction {i} uses %{k}")))
        };
        let e = match ins.node {
            Node::Input(slot) => {
                let slot = slot as usize;
                let access = layout
                    .inputs
                    .get(slot)
                    .ok_or_else(|| invalid(format!("input {slot} of {}", layout.inputs.len())))?;
                let off = s.input_off[slot];
                let u = units(ins.dtype);
                let pos = match access {
                    OpAccess::Contiguous => format!("prm({off}u) + jl * {u}u"),
                    OpAccess::Broadcast => format!("prm({off}u)"),
                    OpAccess::Strided(_) => {
                        let mut p = format!("prm({off}u)");
                        for k in 0..layout.ndim {
                            p.push_str(&format!(" + i{k} * prm({}u)", off + 1 + k));
                        }
                        p
                    }
                };
                types::load(
                    ins.dtype,
                    &format!("b{}", layout.binding[slot] + 1),
                    &format!("({pos})"),
                )
            }
            Node::Scalar(slot) => {
                let w = *s
                    .scalar
                    .get(slot as usize)
                    .ok_or_else(|| invalid(format!("scalar {slot}")))?;
                scalar_expr(ins.dtype, w)
            }
            Node::Index => "i64(j)".to_string(),
            Node::Unary(op, a) => ops::unary(&mut h, op, dt(a)?, &format!("v{a}"))?,
            Node::Binary(op, a, b) => {
                ops::binary(&mut h, op, dt(a)?, &format!("v{a}"), &format!("v{b}"))?
            }
            Node::Cast(to, a) => ops::cast(&mut h, dt(a)?, to, &format!("v{a}")),
            Node::Select(c, a, b) => {
                dt(c)?;
                dt(a)?;
                dt(b)?;
                format!("select(v{b}, v{a}, v{c})")
            }
            Node::Random(dist, slot) => {
                let w = *s
                    .scalar
                    .get(slot as usize)
                    .ok_or_else(|| invalid(format!("seed scalar {slot}")))?;
                let f = philox::philox(&mut h);
                // Element j takes stream words per·j ..: call (per·j) / 4, from word (per·j) % 4.
                let per = random::words_per_element(dist, ins.dtype);
                let (shift, mask) = match per {
                    1 => (2, 3),
                    2 => (1, 1),
                    _ => (0, 0),
                };
                let q = format!(
                    "{f}(vec4<u32>(j >> {shift}u, 0u, 0u, 0u), vec2<u32>(prm({w}u), prm({}u)))",
                    w + 1
                );
                body.push_str(&format!("  let q{i} = {q};\n"));
                if per == 4 {
                    body.push_str(&format!("  let r{i} = q{i};\n"));
                } else {
                    body.push_str(&format!(
                        "  let o{i} = (j & {mask}u) * {per}u;\n  let r{i} = vec4<u32>(q{i}[o{i}], q{i}[(o{i} + 1u) & 3u], 0u, 0u);\n"
                    ));
                }
                philox::draw(&mut h, dist, ins.dtype, &format!("r{i}")).map_err(|reason| {
                    WgpuError::NotAccurate {
                        dtype: ins.dtype,
                        reason,
                    }
                })?
            }
        };
        body.push_str(&format!("  let v{i}: {} = {e};\n", types::ty(ins.dtype)));
    }
    let last = program
        .instrs
        .len()
        .checked_sub(1)
        .ok_or_else(|| invalid("an empty program"))?;
    let store = if is_byte(out) {
        format!(
            "  let w = (prm(2u) >> 2u) + t;
  var word = {ob}[w];
  for (var k = 0u; k < 4u; k++) {{
    let p = w * 4u + k;
    if (p >= prm(2u) && p - prm(2u) < prm(3u)) {{
      let jl = p - prm(2u);
      let v = {};
      word = (word & ~(0xffu << (k * 8u))) | (v << (k * 8u));
    }}
  }}
  {ob}[w] = word;
",
            types::byte_of(out, "eval(prm(1u) + jl, jl)")
        )
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
        "fn eval(j: u32, jl: u32) -> {} {{\n{body}  return v{last};\n}}\n",
        types::ty(out)
    ));
    src.push_str(&header::entry(WORKGROUP));
    src.push_str(&format!("  if (t >= prm(0u)) {{ return; }}\n{store}}}\n"));
    Ok(src)
}

/// Element positions `(lowest, highest)` an operand reaches over `shape`.
fn reach(op: &Operand<'_, WgpuBuffer>, shape: &[usize]) -> (i64, i64) {
    let (mut lo, mut hi) = (op.offset as i64, op.offset as i64);
    for (&s, &d) in op.strides.iter().zip(shape) {
        let span = s as i64 * (d as i64 - 1);
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    (lo, hi)
}

fn byte_range(d: DType, lo: i64, hi: i64) -> (u64, u64) {
    let size = d.size() as u64;
    (lo.max(0) as u64 * size, (hi.max(0) as u64 + 1) * size)
}

/// Runs `program` over `args`.
pub fn run(ctx: &Context, program: &Program, args: &ElementwiseArgs<'_, WgpuBuffer>) -> Result<()> {
    if args.inputs.len() != program.inputs.len() || args.scalars.len() != program.scalars.len() {
        return Err(invalid(format!(
            "{} inputs and {} scalars for a program of {} and {}",
            args.inputs.len(),
            args.scalars.len(),
            program.inputs.len(),
            program.scalars.len()
        )));
    }
    let n = args.len();
    if n == 0 {
        return Ok(());
    }
    if n as u64 >= (u32::MAX - 2 * WORKGROUP) as u64 {
        return Err(WgpuError::LimitExceeded {
            what: format!("an elementwise kernel over {n} elements"),
            requested: n as u64,
            limit: (u32::MAX - 2 * WORKGROUP) as u64,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "split the array",
        });
    }
    let shape = &args.shape;
    let out = &args.output;
    let out_d = program.output_dtype();
    // Chunk the index space when contiguous operands exceed one binding.
    let max_bind = ctx.limits.max_storage_buffer_binding_size;
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    let mut widest = out_d.size() as u64;
    for op in &args.inputs {
        if op.access() == OpAccess::Contiguous {
            widest = widest.max(op.dtype.size() as u64);
        }
    }
    let chunk = ((max_bind.saturating_sub(2 * align)) / widest / 4 * 4).max(4) as usize;
    let access: Vec<OpAccess> = args.inputs.iter().map(Operand::access).collect();
    let mut start = 0usize;
    let mut compiled: Option<(ShaderSpec, Slots)> = None;
    while start < n {
        let end = (start + chunk).min(n);
        let mut plan = BindingPlan::default();
        let mut binding = Vec::new();
        let mut first_byte = Vec::new();
        for (op, a) in args.inputs.iter().zip(&access) {
            let (lo, hi) = match a {
                OpAccess::Contiguous => ((op.offset + start) as i64, (op.offset + end - 1) as i64),
                _ => reach(op, shape),
            };
            let (blo, bhi) = byte_range(op.dtype, lo, hi);
            let b = plan
                .add(op.buffer, Class::of(op.dtype), Access::Read, blo, bhi)
                .map_err(|_| conflict(ctx))?;
            binding.push(b);
            first_byte.push(match a {
                OpAccess::Contiguous => blo,
                _ => op.offset as u64 * op.dtype.size() as u64,
            });
        }
        let (olo, ohi) = byte_range(
            out_d,
            (out.offset + start) as i64,
            (out.offset + end - 1) as i64,
        );
        let ob = plan
            .add(out.buffer, Class::of(out_d), Access::ReadWrite, olo, ohi)
            .map_err(|_| conflict(ctx))?;
        binding.push(ob);
        let windows: Vec<Window> = plan.windows(ctx)?;
        let layout = Layout {
            ndim: shape.len(),
            inputs: access.clone(),
            binding: binding.clone(),
            storage: plan.layout(),
        };
        if compiled.is_none() {
            let s = slots(program, &layout);
            let mut storage: Vec<Access> = layout.storage.iter().map(|x| x.1).collect();
            if s.f64_view {
                storage.push(Access::Read);
            }
            let spec = ShaderSpec {
                label: format!("elementwise[{}]", program.describe()),
                source: source(program, &layout)?,
                storage,
            };
            compiled = Some((spec, s));
        }
        let Some((spec, s)) = compiled.as_ref() else {
            return Err(invalid("no kernel"));
        };
        let rel = |byte: u64, b: usize, d: DType| -> u32 {
            ((byte - windows[b].start) / unit_bytes(d)) as u32
        };
        let mut p = vec![0u32; s.words];
        let len = (end - start) as u32;
        let out_off = rel(olo, ob, out_d);
        p[0] = if is_byte(out_d) {
            ((out_off + len - 1) >> 2) - (out_off >> 2) + 1
        } else {
            len
        };
        p[1] = start as u32;
        p[2] = out_off;
        p[3] = len;
        for (k, &d) in shape.iter().enumerate() {
            p[s.shape + k] = d as u32;
        }
        for (i, op) in args.inputs.iter().enumerate() {
            let w = s.input_off[i];
            p[w] = rel(first_byte[i], binding[i], op.dtype);
            if matches!(access[i], OpAccess::Strided(_)) {
                for (k, &st) in op.strides.iter().enumerate() {
                    p[w + 1 + k] = (st as i64 * units(op.dtype) as i64) as u32;
                }
            }
        }
        for (sc, &w) in args.scalars.iter().zip(&s.scalar) {
            put_scalar(&mut p, w, sc);
        }
        let groups = (p[0] as u64).div_ceil(WORKGROUP as u64);
        dispatch::launch(ctx, spec, &p, &plan, &windows, s.f64_view, groups)?;
        start = end;
    }
    Ok(())
}

fn put_scalar(p: &mut [u32], w: usize, s: &Scalar) {
    let mut bytes = s.to_le_bytes();
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    for (k, c) in bytes.chunks(4).enumerate() {
        if let Some(slot) = p.get_mut(w + k) {
            *slot = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
    }
}

fn conflict(ctx: &Context) -> WgpuError {
    WgpuError::Unimplemented(format!(
        "wgpu on '{}': an elementwise kernel writes a buffer that one of its inputs reads as \
         a different element type (a reinterpreted view of the output); wgpu cannot bind one \
         buffer both ways in one dispatch: copy that input first (`copy`)",
        ctx.adapter_name
    ))
}
