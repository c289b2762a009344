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
//! **Arrays larger than one binding.** The index space is dispatched in boxes (linear
//! ranges of the row-major output: a range along one dimension, every index after it) whose
//! operand windows each fit in `max_storage_buffer_binding_size`: runs of elements for
//! contiguous operands, slabs for strided ones (a transposed view larger than a binding
//! runs as many slabs). More than [`MAX_BOXES`] boxes is a [`WgpuError::LimitExceeded`].

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
use crate::wgsl::types::{Class, is_packed, per_word, unit_bytes, units};
use source::{Slots, slots};

/// A box of the output's index space: indices `prefix` in the dimensions before `level`,
/// `a..b` along `level`, every index after it. In row-major order that is the linear range
/// `start..end`.
#[derive(Debug, Clone)]
struct Box {
    prefix: Vec<usize>,
    level: usize,
    a: usize,
    b: usize,
    start: usize,
    end: usize,
}

impl Box {
    /// Element positions `(lowest, highest)` an operand with `strides` reaches in the box.
    fn reach(&self, offset: usize, strides: &[isize], shape: &[usize]) -> (i64, i64) {
        let mut base = offset as i64;
        for (k, &i) in self.prefix.iter().enumerate() {
            base += i as i64 * strides[k] as i64;
        }
        let s = strides[self.level] as i64;
        let (x, y) = (self.a as i64 * s, (self.b as i64 - 1) * s);
        let (mut lo, mut hi) = (base + x.min(y), base + x.max(y));
        for k in self.level + 1..shape.len() {
            let span = strides[k] as i64 * (shape[k] as i64 - 1);
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo, hi)
    }
}

/// The most dispatches one elementwise kernel is split into.
const MAX_BOXES: usize = 1 << 20;

/// The boxes a run is dispatched in: the coarsest level of the index space whose boxes fit
/// every operand's window in one binding, with as many indices along it per box as fit
/// (contiguous operands: runs of elements; strided ones: slabs). Usually one box.
fn boxes(
    ctx: &Context,
    program: &Program,
    args: &ElementwiseArgs<'_, WgpuBuffer>,
) -> Result<Vec<Box>> {
    let shape = args.shape;
    let ndim = shape.len();
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    let cap = ctx
        .limits
        .max_storage_buffer_binding_size
        .saturating_sub(2 * align);
    let out_size = program.output_dtype().size() as u64;
    let strided_output = !gpuarrays_core::shape::is_contiguous(shape, args.output.strides);
    // Whether a box of `r` indices at `level` fits every operand.
    let fits = |level: usize, r: usize| -> bool {
        let inner: usize = shape[level + 1..].iter().product();
        if !strided_output && (r * inner) as u64 * out_size > cap {
            return false;
        }
        let strided = args
            .inputs
            .iter()
            .chain(strided_output.then_some(&args.output));
        strided.into_iter().all(|op| {
            let st = op.strides;
            let mut span = st[level].unsigned_abs() as u64 * (r as u64 - 1) + 1;
            for k in level + 1..ndim {
                span += st[k].unsigned_abs() as u64 * (shape[k] as u64 - 1);
            }
            span * op.dtype.size() as u64 <= cap
        })
    };
    let level = (0..ndim)
        .find(|&l| fits(l, 1))
        .ok_or_else(|| invalid("no box of the index space fits in a binding"))?;
    let (mut lo, mut hi) = (1usize, shape[level]);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(level, mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let r = lo;
    let outer: usize = shape[..level].iter().product();
    let count = outer * shape[level].div_ceil(r);
    if count > MAX_BOXES {
        return Err(WgpuError::LimitExceeded {
            what: format!(
                "an elementwise kernel whose strided operands need {count} separate windows"
            ),
            requested: count as u64,
            limit: MAX_BOXES as u64,
            limit_name: "dispatches per elementwise kernel (windows of max_storage_buffer_binding_size)",
            adapter: ctx.adapter_name.clone(),
            hint: "copy the strided operand to a contiguous array in smaller pieces, or use smaller arrays",
        });
    }
    let inner: usize = shape[level + 1..].iter().product();
    let mut out = Vec::with_capacity(count);
    for p in 0..outer {
        let mut prefix = vec![0usize; level];
        let mut rem = p;
        for k in (0..level).rev() {
            prefix[k] = rem % shape[k];
            rem /= shape[k];
        }
        let mut a = 0;
        while a < shape[level] {
            let b = (a + r).min(shape[level]);
            out.push(Box {
                prefix: prefix.clone(),
                level,
                a,
                b,
                start: (p * shape[level] + a) * inner,
                end: (p * shape[level] + b) * inner,
            });
            a = b;
        }
    }
    Ok(out)
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
    if args
        .inputs
        .iter()
        .chain(std::iter::once(&args.output))
        .any(|op| op.strides.len() != args.shape.len())
    {
        return Err(invalid("operand strides do not match the shape"));
    }
    if args.shape.is_empty() {
        return in_one_dimension(args, |one| run(ctx, program, one));
    }
    let out_d = program.output_dtype();
    let strided_output = !gpuarrays_core::shape::is_contiguous(args.shape, args.output.strides);
    if strided_output && is_packed(out_d) {
        return Err(invalid(format!(
            "a strided {out_d} output (its elements share words: core writes those in contiguous runs)"
        )));
    }
    let vec4 = is_word(out_d) && args.output.offset % 4 == 0 && !strided_output;
    let vec4_inputs: Vec<bool> = args
        .inputs
        .iter()
        .map(|op| op.access() == OpAccess::Contiguous && is_word(op.dtype) && op.offset % 4 == 0)
        .collect();
    let mut compiled: [Compiled; 2] = [None, None];
    for bx in boxes(ctx, program, args)? {
        // A scalar head up to a multiple of 4, the vec4 body, a scalar tail.
        let (start, end) = (bx.start, bx.end);
        let (s4, e4) = if vec4 {
            (start.div_ceil(4) * 4, end / 4 * 4)
        } else {
            (end, end)
        };
        if s4 >= e4 {
            dispatch_range(ctx, program, args, &bx, (start, end), &[], &mut compiled[0])?;
            continue;
        }
        if start < s4 {
            dispatch_range(ctx, program, args, &bx, (start, s4), &[], &mut compiled[0])?;
        }
        dispatch_range(
            ctx,
            program,
            args,
            &bx,
            (s4, e4),
            &vec4_inputs,
            &mut compiled[1],
        )?;
        if e4 < end {
            dispatch_range(ctx, program, args, &bx, (e4, end), &[], &mut compiled[0])?;
        }
    }
    Ok(())
}

/// A 0-d index space (one element) as one dimension of length 1. Core sends rank 0 where a
/// box copy's destination runs are single elements (`fftshift` of a last axis of length 2
/// or 3, zero-padding a last axis of length 1); the boxes and kernels here index at least
/// one dimension: `f` runs on that description.
fn in_one_dimension<'a, R>(
    args: &ElementwiseArgs<'a, WgpuBuffer>,
    f: impl FnOnce(&ElementwiseArgs<'_, WgpuBuffer>) -> R,
) -> R {
    let one = |op: &Operand<'a, WgpuBuffer>| Operand {
        strides: &[1],
        ..*op
    };
    let inputs: Vec<Operand<'_, WgpuBuffer>> = args.inputs.iter().map(one).collect();
    f(&ElementwiseArgs {
        shape: &[1],
        inputs: &inputs,
        scalars: args.scalars,
        output: one(&args.output),
    })
}

fn byte_range(d: DType, lo: i64, hi: i64) -> (u64, u64) {
    let size = d.size() as u64;
    (lo.max(0) as u64 * size, (hi.max(0) as u64 + 1) * size)
}

/// One dispatch over output elements `start..end` of box `bx`: the vec4 kernel when
/// `vec4_inputs` is given (one flag per input), else the scalar (or byte) kernel.
fn dispatch_range(
    ctx: &Context,
    program: &Program,
    args: &ElementwiseArgs<'_, WgpuBuffer>,
    bx: &Box,
    (start, end): (usize, usize),
    vec4_inputs: &[bool],
    compiled: &mut Compiled,
) -> Result<()> {
    let vec4 = !vec4_inputs.is_empty();
    let shape = args.shape;
    let out = &args.output;
    let out_d = program.output_dtype();
    let access: Vec<OpAccess> = args.inputs.iter().map(Operand::access).collect();
    let mut plan = BindingPlan::default();
    let mut binding = Vec::new();
    let mut first_byte = Vec::new();
    for (k, (op, a)) in args.inputs.iter().zip(&access).enumerate() {
        let (lo, hi) = match a {
            OpAccess::Contiguous => ((op.offset + start) as i64, (op.offset + end - 1) as i64),
            _ => bx.reach(op.offset, op.strides, shape),
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
    let strided_output = !gpuarrays_core::shape::is_contiguous(shape, out.strides);
    let (olo, ohi) = if strided_output {
        let (lo, hi) = bx.reach(out.offset, out.strides, shape);
        byte_range(out_d, lo, hi)
    } else {
        byte_range(
            out_d,
            (out.offset + start) as i64,
            (out.offset + end - 1) as i64,
        )
    };
    let out_class = if vec4 { Class::V4 } else { Class::of(out_d) };
    let ob = plan.add(out.buffer, out_class, Access::ReadWrite, olo, ohi);
    binding.push(ob);
    let windows: Vec<Window> = plan.windows(ctx)?;
    let layout = Layout {
        ndim: shape.len(),
        inputs: access.clone(),
        vec4_inputs: vec4_inputs.to_vec(),
        vec4,
        strided_output,
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
    // Relative to the window, wrapping: a strided operand's first element may lie before
    // the window of a box that starts further on.
    let rel = |byte: u64, b: usize, d: DType| -> u32 {
        ((byte as i64 - windows[b].start as i64) / unit_bytes(d) as i64) as u32
    };
    let mut p = vec![0u32; s.words];
    let len = (end - start) as u32;
    let out_off = if strided_output {
        rel(out.offset as u64 * out_d.size() as u64, ob, out_d)
    } else {
        rel(olo, ob, out_d)
    };
    p[0] = if vec4 {
        len / 4
    } else if is_packed(out_d) {
        let n = per_word(out_d);
        (out_off + len - 1) / n - out_off / n + 1
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
    if let Some(w) = s.output_strides {
        for (k, &st) in out.strides.iter().enumerate() {
            p[w + k] = (st as i64 * units(out_d) as i64) as u32;
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
