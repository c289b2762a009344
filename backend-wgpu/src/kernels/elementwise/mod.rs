//! Fused elementwise kernels: a [`Program`] lowered to WGSL ([`source`]) and dispatched
//! over the output's index space.
//!
//! Shapes, offsets, strides (broadcast strides are 0, reversed axes negative, all in units
//! of the operand's storage, computed in wrapping u32 arithmetic) and scalar values arrive
//! in the parameter block; the compiled kernel depends only on the program, the access
//! class of each input and which binding each operand uses.
//!
//! **Vectorised.** When the output is f32/i32/u32 and starts at a multiple of four
//! elements, the bulk of the range runs the vec4 kernel (four outputs per thread, 128-bit
//! loads of every aligned 32-bit contiguous input and 128-bit stores); the last `n mod 4`
//! elements run the scalar kernel in a second dispatch.
//!
//! **Arrays larger than one binding.** Contiguous operands and the output are processed in
//! chunks of the index space whose windows fit in `max_storage_buffer_binding_size`;
//! broadcast and strided operands must fit in one binding as a whole (otherwise a
//! [`WgpuError::LimitExceeded`] names the limit).

mod source;

pub(crate) use source::{Layout, is_word, source};

use gpuarrays_core::kernel::{Access as OpAccess, ElementwiseArgs, Operand, Program};
use gpuarrays_core::{DType, Scalar};

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan, Window};
use crate::error::{Result, WgpuError, invalid};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::WORKGROUP;
use crate::wgsl::types::{Class, is_byte, unit_bytes, units};
use source::{Slots, slots};

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

/// A compiled kernel variant and its parameter layout, kept across the chunks of one run.
type Compiled = Option<(ShaderSpec, Slots)>;

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
    let out_d = program.output_dtype();
    // Chunk the index space when contiguous operands exceed one binding (a multiple of 4
    // elements, so every chunk keeps the alignment the vec4 kernel needs).
    let max_bind = ctx.limits.max_storage_buffer_binding_size;
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    let mut widest = out_d.size() as u64;
    for op in &args.inputs {
        if op.access() == OpAccess::Contiguous {
            widest = widest.max(op.dtype.size() as u64);
        }
    }
    let chunk = ((max_bind.saturating_sub(2 * align)) / widest / 4 * 4).max(4) as usize;
    let vec4 = is_word(out_d) && args.output.offset % 4 == 0;
    let vec4_inputs: Vec<bool> = args
        .inputs
        .iter()
        .map(|op| op.access() == OpAccess::Contiguous && is_word(op.dtype) && op.offset % 4 == 0)
        .collect();
    let mut compiled: [Compiled; 2] = [None, None];
    let mut start = 0usize;
    while start < n {
        let end = (start + chunk).min(n);
        let body = if vec4 { (end - start) / 4 * 4 } else { 0 };
        if body > 0 {
            let range = (start, start + body);
            dispatch_range(ctx, program, args, range, &vec4_inputs, &mut compiled[1])?;
        }
        if start + body < end {
            let range = (start + body, end);
            dispatch_range(ctx, program, args, range, &[], &mut compiled[0])?;
        }
        start = end;
    }
    Ok(())
}

/// One dispatch over output elements `range.0..range.1`: the vec4 kernel when
/// `vec4_inputs` is given (one flag per input), else the scalar (or byte) kernel.
fn dispatch_range(
    ctx: &Context,
    program: &Program,
    args: &ElementwiseArgs<'_, WgpuBuffer>,
    (start, end): (usize, usize),
    vec4_inputs: &[bool],
    compiled: &mut Compiled,
) -> Result<()> {
    let vec4 = !vec4_inputs.is_empty();
    let shape = &args.shape;
    let out = &args.output;
    let out_d = program.output_dtype();
    let access: Vec<OpAccess> = args.inputs.iter().map(Operand::access).collect();
    let mut plan = BindingPlan::default();
    let mut binding = Vec::new();
    let mut first_byte = Vec::new();
    for (k, (op, a)) in args.inputs.iter().zip(&access).enumerate() {
        let (lo, hi) = match a {
            OpAccess::Contiguous => ((op.offset + start) as i64, (op.offset + end - 1) as i64),
            _ => reach(op, shape),
        };
        let (blo, bhi) = byte_range(op.dtype, lo, hi);
        let class = if vec4 && vec4_inputs[k] {
            Class::V4
        } else {
            Class::of(op.dtype)
        };
        binding.push(plan.add(op.buffer, class, Access::Read, blo, bhi));
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
    let out_class = if vec4 { Class::V4 } else { Class::of(out_d) };
    let ob = plan.add(out.buffer, out_class, Access::ReadWrite, olo, ohi);
    binding.push(ob);
    let windows: Vec<Window> = plan.windows(ctx)?;
    let layout = Layout {
        ndim: shape.len(),
        inputs: access.clone(),
        vec4_inputs: vec4_inputs.to_vec(),
        vec4,
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
            label: format!(
                "elementwise{}[{}]",
                if vec4 { "_vec4" } else { "" },
                program.describe()
            ),
            source: source(program, &layout)?,
            storage,
        };
        *compiled = Some((spec, s));
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
    p[0] = if vec4 {
        len / 4
    } else if is_byte(out_d) {
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
    dispatch::launch(ctx, spec, &p, &plan, &windows, s.f64_view, groups)
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
