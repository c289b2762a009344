//! Reductions over the middle axis of an (outer, len, inner) view: choosing the kernels,
//! splitting long axes into segments, and binding operands larger than one storage binding.
//!
//! **Plan.** A level reduces `len` to `S` segments per output (`S = 1`: to the output). The
//! first level over f32/i32/u32 rows (`inner == 1`) of sums, products, minima and maxima
//! uses [`rows`] (vec4 loads, the bandwidth path); everything else [`general`] with a
//! workgroup or a thread per (output, segment). While `S > 1`, the partial states (values,
//! and indices for argmin/argmax) are reduced by the next level, until one remains.
//!
//! **Large operands.** Every (output, segment) group reads one contiguous range of the
//! input, and consecutive groups read consecutive ranges, so a level is dispatched in
//! ranges of groups whose input and output windows each fit in
//! `max_storage_buffer_binding_size`; segments are made short enough that one group's
//! range fits. Offsets relative to a window may be "negative" (the window starts after the
//! operand's first element): the kernels add them in wrapping u32 arithmetic, so positions
//! inside the window come out right. The one case that cannot be split this way is an
//! `inner` extent (elements after the reduced axis) larger than a binding: a typed
//! [`WgpuError::LimitExceeded`].

mod general;
mod launch;
mod rows;

#[cfg(test)]
pub(crate) use general::Pass;
pub(crate) use general::{Sink, Source};

use gpuarrays_core::kernel::ReduceArgs;

use super::temp::{pack, temp_dtype};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::error::{Result, WgpuError, invalid};
use crate::kernels::windows::capacity;
use crate::wgsl::types::{self, Class, unit_bytes};

#[cfg(test)]
pub(crate) use general::source as general_source;
#[cfg(test)]
pub(crate) use rows::source as rows_source;

/// Where a level reads: the array, or the partial states of the previous level.
#[derive(Clone, Copy)]
struct Input<'a> {
    values: &'a WgpuBuffer,
    /// Offset of the first element, in elements of the values' type.
    offset: usize,
    indices: Option<&'a WgpuBuffer>,
    source: Source,
}

/// Which kernel a level runs and how it splits the axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    Rows,
    General { lanes: u32 },
}

#[derive(Debug, Clone, Copy)]
struct Level {
    kernel: Kernel,
    /// Segments per output.
    segments: usize,
    /// Elements per segment.
    seg: usize,
}

/// Runs a reduction.
pub fn run(ctx: &Context, a: &ReduceArgs<'_, WgpuBuffer>) -> Result<()> {
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
    let input = Input {
        values: a.input,
        offset: a.input_offset,
        indices: None,
        source: Source::Array,
    };
    level(ctx, a, input, a.len)
}

fn plan(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    input: &Input<'_>,
    len: usize,
) -> Result<Level> {
    let outputs = a.outer * a.inner;
    let elem = match input.source {
        Source::Array => a.dtype.size(),
        Source::Partial => temp_dtype(a.dtype).size(),
    } as u64;
    let rows_ok = input.source == Source::Array && a.inner == 1 && rows::applies(a.op, a.dtype);
    let (kernel, mut segments) = if rows_ok && len > 64 {
        let mut s = len.div_ceil(16384);
        if a.outer * s < 1024 {
            s = s.max((1024 / a.outer).min(len.div_ceil(1024)));
        }
        (Kernel::Rows, s)
    } else if len > 64 && (a.inner == 1 || outputs < 2048) {
        // Partial states are few: one workgroup per output reads up to 64 Ki of them.
        let long = if input.source == Source::Array {
            4096
        } else {
            65536
        };
        let s = if len > long {
            1024usize.div_ceil(outputs).min(len.div_ceil(2048)).max(1)
        } else {
            1
        };
        (Kernel::General { lanes: 256 }, s)
    } else {
        // Enough threads to fill a large GPU (132 SMs × 2048 on the H200).
        let s = if outputs < 262_144 && len > 256 {
            262_144usize.div_ceil(outputs).min(len.div_ceil(64)).max(1)
        } else {
            1
        };
        (Kernel::General { lanes: 1 }, s)
    };
    // One group's input range must fit in a binding (with room for the others' ranges).
    let cap = capacity(ctx);
    let inner_bytes = a.inner as u64 * elem;
    // A level makes progress only if one group reads at least two steps of the axis: with
    // room for one step only (inner_bytes > cap / 4), each partial pass would copy its input
    // and the levels would never end.
    if inner_bytes > cap / 4 {
        return Err(WgpuError::LimitExceeded {
            what: format!(
                "a reduction whose {} elements after the reduced axis",
                a.inner
            ),
            requested: inner_bytes,
            limit: cap / 4,
            limit_name: "max_storage_buffer_binding_size (a quarter of it: one group's range holds two steps of the axis)",
            adapter: ctx.adapter_name.clone(),
            hint: "reduce a transposed copy (the axis last) or split the array",
        });
    }
    let max_seg = ((cap / 2) / inner_bytes).max(1) as usize;
    segments = segments.max(len.div_ceil(max_seg)).min(len);
    let mut seg = len.div_ceil(segments);
    if kernel == Kernel::Rows {
        seg = seg.div_ceil(4) * 4;
    }
    let segments = len.div_ceil(seg);
    Ok(Level {
        kernel,
        segments,
        seg,
    })
}

/// Reduces `input` (an (outer, len, inner) view) to the output, through partial levels.
fn level(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    input: Input<'_>,
    len: usize,
) -> Result<()> {
    let lv = plan(ctx, a, &input, len)?;
    if lv.segments == 1 {
        return final_pass(ctx, a, &input, len, lv);
    }
    if lv.segments >= len {
        return Err(invalid(format!(
            "reduction plan makes no progress: {len} steps of the axis into {} segments",
            lv.segments
        )));
    }
    let arg = general::is_arg(a.op);
    let td = temp_dtype(a.dtype);
    let n_part = a.outer * lv.segments * a.inner;
    let values = ctx.alloc(n_part * td.size())?;
    let indices = if arg {
        match ctx.alloc(n_part * 4) {
            Ok(b) => Some(b),
            Err(e) => {
                ctx.release(values);
                return Err(e);
            }
        }
    } else {
        None
    };
    let r = (|| {
        let sink = Dest {
            buffer: &values,
            offset_bytes: 0,
            unit: unit_bytes(td),
            per_group: types::units(td) as u64,
            class: Class::of(td),
            indices: indices.as_ref(),
        };
        dispatch_level(ctx, a, &input, len, lv, Sink::Partial, &sink)?;
        let next = Input {
            values: &values,
            offset: 0,
            indices: indices.as_ref(),
            source: Source::Partial,
        };
        level(ctx, a, next, lv.segments)
    })();
    ctx.release(values);
    if let Some(b) = indices {
        ctx.release(b);
    }
    r
}

/// Where a pass writes: group `q` writes `per_group` units at `offset_bytes + q·per_group`.
struct Dest<'a> {
    buffer: &'a WgpuBuffer,
    offset_bytes: u64,
    unit: u64,
    per_group: u64,
    class: Class,
    /// Partial indices (argmin/argmax partial passes).
    indices: Option<&'a WgpuBuffer>,
}

/// The last level: writes the output (bool outputs through a word temporary).
fn final_pass(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    input: &Input<'_>,
    len: usize,
    lv: Level,
) -> Result<()> {
    let outputs = a.outer * a.inner;
    let out_d =
        a.op.result_dtype(a.dtype)
            .map_err(|e| invalid(e.to_string()))?;
    if types::is_packed(out_d) {
        let temp = ctx.alloc(outputs * 4)?;
        let sink = Dest {
            buffer: &temp,
            offset_bytes: 0,
            unit: 4,
            per_group: 1,
            class: Class::W32,
            indices: None,
        };
        let r = dispatch_level(ctx, a, input, len, lv, Sink::Final, &sink)
            .and_then(|()| pack(ctx, &temp, out_d, a.output, a.output_offset, outputs));
        ctx.release(temp);
        return r;
    }
    let sink = if general::is_arg(a.op) {
        // i64 positions as (low, high) word pairs.
        Dest {
            buffer: a.output,
            offset_bytes: a.output_offset as u64 * 8,
            unit: 4,
            per_group: 2,
            class: Class::W32,
            indices: None,
        }
    } else {
        Dest {
            buffer: a.output,
            offset_bytes: a.output_offset as u64 * out_d.size() as u64,
            unit: unit_bytes(out_d),
            per_group: types::units(out_d) as u64,
            class: Class::of(out_d),
            indices: None,
        }
    };
    dispatch_level(ctx, a, input, len, lv, Sink::Final, &sink)
}

use launch::dispatch_level;
