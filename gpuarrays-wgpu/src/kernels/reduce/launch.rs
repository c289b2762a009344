//! Running one level of a reduction: its groups in ranges whose binding windows fit, each
//! range one dispatch with offsets relative to its windows.

use gpuarrays_core::kernel::ReduceArgs;

use super::general::{self, Pass, Sink, Source};
use super::rows;
use super::{Dest, Input, Kernel, Level};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, invalid};
use crate::kernels::temp::temp_dtype;
use crate::kernels::windows::{capacity, for_ranges, rel};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header;
use crate::wgsl::types::{Class, unit_bytes};

/// Element range `[lo, hi)` of the (outer, len, inner) view that groups `q0..q1` read.
fn span(lv: Level, len: usize, inner: usize, q0: usize, q1: usize) -> (u64, u64) {
    let decode = |q: usize| {
        let i = q % inner;
        let r = q / inner;
        (r / lv.segments, r % lv.segments, i)
    };
    let (o0, s0, i0) = decode(q0);
    let (o1, s1, i1) = decode(q1 - 1);
    let k_end = ((s1 + 1) * lv.seg).min(len);
    let lo = (o0 * len + s0 * lv.seg) * inner + i0;
    let hi = (o1 * len + k_end - 1) * inner + i1 + 1;
    (lo as u64, hi as u64)
}

/// Runs one level's pass over all its groups, in ranges whose windows fit.
pub(super) fn dispatch_level(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    input: &Input<'_>,
    len: usize,
    lv: Level,
    sink: Sink,
    dest: &Dest<'_>,
) -> Result<()> {
    let groups = a.outer * lv.segments * a.inner;
    let in_d = match input.source {
        Source::Array => a.dtype,
        Source::Partial => temp_dtype(a.dtype),
    };
    let esize = in_d.size() as u64;
    let cap = capacity(ctx);
    let fits = |q0: usize, q1: usize| {
        let (lo, hi) = span(lv, len, a.inner, q0, q1);
        let out = (q1 - q0) as u64 * dest.per_group * dest.unit;
        (hi - lo) * esize <= cap && out <= cap && (hi - lo) * 4 <= cap
    };
    let mut spec: Option<ShaderSpec> = None;
    for_ranges(groups, fits, |q0, q1| {
        dispatch_range(ctx, a, input, len, lv, sink, dest, (q0, q1), &mut spec)
    })
}

#[allow(clippy::too_many_arguments)]
fn dispatch_range(
    ctx: &Context,
    a: &ReduceArgs<'_, WgpuBuffer>,
    input: &Input<'_>,
    len: usize,
    lv: Level,
    sink: Sink,
    dest: &Dest<'_>,
    (q0, q1): (usize, usize),
    spec: &mut Option<ShaderSpec>,
) -> Result<()> {
    let in_d = match input.source {
        Source::Array => a.dtype,
        Source::Partial => temp_dtype(a.dtype),
    };
    let esize = in_d.size() as u64;
    let ub = unit_bytes(in_d);
    let (lo, hi) = span(lv, len, a.inner, q0, q1);
    let base = input.offset as u64 * esize;
    let (in_lo, in_hi) = (base + lo * esize, base + hi * esize);
    let (out_lo, out_hi) = (
        dest.offset_bytes + q0 as u64 * dest.per_group * dest.unit,
        dest.offset_bytes + q1 as u64 * dest.per_group * dest.unit,
    );
    let mut plan = BindingPlan::default();
    match lv.kernel {
        Kernel::Rows => {
            let bv = plan.add(input.values, Class::V4, Access::Read, in_lo, in_hi);
            let bs = plan.add(input.values, Class::W32, Access::Read, in_lo, in_hi);
            let bo = plan.add(dest.buffer, dest.class, Access::ReadWrite, out_lo, out_hi);
            let w = plan.windows(ctx)?;
            if spec.is_none() {
                let layout = plan.layout();
                *spec = Some(ShaderSpec {
                    label: format!("reduce_rows[{} {}]", a.op, a.dtype),
                    source: rows::source(a.op, a.dtype, &layout, bv, bs, bo)?,
                    storage: layout.iter().map(|x| x.1).collect(),
                });
            }
            let params = [
                q1 as u32,
                len as u32,
                lv.seg as u32,
                lv.segments as u32,
                rel(base, w[bs].start, 4),
                rel(dest.offset_bytes, w[bo].start, dest.unit),
                q0 as u32,
            ];
            let Some(spec) = spec.as_ref() else {
                return Err(invalid("no kernel"));
            };
            dispatch::launch(ctx, spec, &params, &plan, &w, false, (q1 - q0) as u64)
        }
        Kernel::General { lanes } => {
            let bin = plan.add(input.values, Class::of(in_d), Access::Read, in_lo, in_hi);
            let bidx = input.indices.map(|b| {
                plan.add(
                    b,
                    Class::W32,
                    Access::Read,
                    (input.offset as u64 + lo) * 4,
                    (input.offset as u64 + hi) * 4,
                )
            });
            let bo = plan.add(dest.buffer, dest.class, Access::ReadWrite, out_lo, out_hi);
            let bout_idx = dest.indices.map(|b| {
                plan.add(
                    b,
                    Class::W32,
                    Access::ReadWrite,
                    q0 as u64 * 4,
                    q1 as u64 * 4,
                )
            });
            let w = plan.windows(ctx)?;
            if spec.is_none() {
                let pass = Pass {
                    op: a.op,
                    dtype: a.dtype,
                    source: input.source,
                    sink,
                    lanes,
                };
                let layout = plan.layout();
                *spec = Some(ShaderSpec {
                    label: format!(
                        "reduce[{} {} {:?}->{:?} x{lanes}]",
                        a.op, a.dtype, input.source, sink
                    ),
                    source: general::source(&pass, &layout, bin, bidx, bo, bout_idx)?,
                    storage: layout.iter().map(|x| x.1).collect(),
                });
            }
            let params = [
                q1 as u32,
                len as u32,
                a.inner as u32,
                lv.seg as u32,
                lv.segments as u32,
                rel(base, w[bin].start, ub),
                rel(dest.offset_bytes, w[bo].start, dest.unit),
                bidx.map_or(0, |b| rel(input.offset as u64 * 4, w[b].start, 4)),
                q0 as u32,
                bout_idx.map_or(0, |b| rel(0, w[b].start, 4)),
            ];
            let Some(spec) = spec.as_ref() else {
                return Err(invalid("no kernel"));
            };
            let threads = (q1 - q0) as u64;
            let groups = if lanes > 1 {
                threads
            } else {
                threads.div_ceil(header::WORKGROUP as u64)
            };
            dispatch::launch(ctx, spec, &params, &plan, &w, false, groups)
        }
    }
}
