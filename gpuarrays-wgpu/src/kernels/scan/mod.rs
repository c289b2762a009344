//! Inclusive scans (cumulative sums and products) along the middle axis of an
//! (outer, len, inner) view.
//!
//! - Rows (`inner == 1`) longer than 256 elements: the [`blocked`] scan (block totals, a
//!   scan of the totals one level down, block scans with offsets): parallel along the row.
//! - Everything else (columns, short rows, u8): the [`lines`] scan, one thread per line.
//!
//! bool/u8 results go through a word-per-element temporary (`temp::pack`).
//!
//! **Large operands.** Blocks and lines are dispatched in ranges whose input and output
//! windows fit in one binding (offsets relative to a window wrap in u32, as in the
//! reductions); a line longer than a binding is scanned in ranges of `k`, each starting
//! from the previous range's last output. An `inner` extent larger than half a binding is
//! a typed [`WgpuError::LimitExceeded`].

mod blocked;
mod lines;

#[cfg(test)]
pub(crate) use blocked::{Mode as BlockMode, source as blocked_source};
#[cfg(test)]
pub(crate) use lines::source as lines_source;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, ScanArgs, ScanOp};

use super::temp::{pack, temp_dtype};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::kernels::windows::{capacity, for_ranges, rel};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::WORKGROUP;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::primitives;
use crate::wgsl::types::{Class, is_packed, unit_bytes};

/// The most iterations one thread's loop makes in one dispatch.
const MAX_LOOP: usize = 32768;

/// `a op b` for the scan's operation.
fn combine(h: &mut Helpers, op: ScanOp, d: DType, a: &str, b: &str) -> Result<String> {
    let bin = match op {
        ScanOp::Sum => BinaryOp::Add,
        ScanOp::Prod => BinaryOp::Mul,
        // NaN-propagating, as `BinaryOp::Max`/`Min` are everywhere.
        ScanOp::Max => BinaryOp::Max,
        ScanOp::Min => BinaryOp::Min,
    };
    primitives::binary(h, bin, d, a, b)
}

/// One operand of a scan: a buffer and the element offset of the view in it.
#[derive(Clone, Copy)]
struct View<'a> {
    buffer: &'a WgpuBuffer,
    offset: usize,
}

/// The shape of a scan: (outer, len, inner).
#[derive(Clone, Copy)]
struct Shape {
    outer: usize,
    len: usize,
    inner: usize,
}

/// Runs a scan.
pub fn run(ctx: &Context, a: &ScanArgs<'_, WgpuBuffer>) -> Result<()> {
    let total = a.outer * a.len * a.inner;
    if total == 0 {
        return Ok(());
    }
    if total as u64 >= u32::MAX as u64 / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("a scan over {total} elements"),
            requested: total as u64,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "scan parts of the array separately",
        });
    }
    let shape = Shape {
        outer: a.outer,
        len: a.len,
        inner: a.inner,
    };
    let input = View {
        buffer: a.input,
        offset: a.input_offset,
    };
    let d = a.dtype;
    if is_packed(d) {
        let temp = ctx.alloc(total * 4)?;
        let out = View {
            buffer: &temp,
            offset: 0,
        };
        let r = lines_scan(ctx, a.op, d, input, out, shape)
            .and_then(|()| pack(ctx, &temp, d, a.output, a.output_offset, total));
        ctx.release(temp);
        return r;
    }
    let out = View {
        buffer: a.output,
        offset: a.output_offset,
    };
    scan(ctx, a.op, d, input, out, shape)
}

fn scan(
    ctx: &Context,
    op: ScanOp,
    d: DType,
    input: View<'_>,
    out: View<'_>,
    s: Shape,
) -> Result<()> {
    if s.inner == 1 && s.len > 256 {
        blocked_scan(ctx, op, d, input, out, s)
    } else {
        lines_scan(ctx, op, d, input, out, s)
    }
}

fn blocked_scan(
    ctx: &Context,
    op: ScanOp,
    d: DType,
    input: View<'_>,
    out: View<'_>,
    s: Shape,
) -> Result<()> {
    let nb = s.len.div_ceil(blocked::BLOCK);
    if nb == 1 {
        return blocked_pass(ctx, op, d, blocked::Mode::Apply, input, out, out, s, nb);
    }
    let size = d.size();
    let totals = ctx.alloc(s.outer * nb * size)?;
    let scanned = match ctx.alloc(s.outer * nb * size) {
        Ok(b) => b,
        Err(e) => {
            ctx.release(totals);
            return Err(e);
        }
    };
    let r = (|| {
        let tv = View {
            buffer: &totals,
            offset: 0,
        };
        let sv = View {
            buffer: &scanned,
            offset: 0,
        };
        blocked_pass(ctx, op, d, blocked::Mode::Totals, input, tv, out, s, nb)?;
        let level = Shape {
            outer: s.outer,
            len: nb,
            inner: 1,
        };
        scan(ctx, op, d, tv, sv, level)?;
        blocked_pass(ctx, op, d, blocked::Mode::Apply, input, sv, out, s, nb)
    })();
    ctx.release(totals);
    ctx.release(scanned);
    r
}

/// One pass of the blocked scan over every block, in ranges that fit.
#[allow(clippy::too_many_arguments)]
fn blocked_pass(
    ctx: &Context,
    op: ScanOp,
    d: DType,
    mode: blocked::Mode,
    input: View<'_>,
    totals: View<'_>,
    out: View<'_>,
    s: Shape,
    nb: usize,
) -> Result<()> {
    let size = d.size() as u64;
    let ub = unit_bytes(d);
    let cap = capacity(ctx);
    let block = blocked::BLOCK;
    let span = |q0: usize, q1: usize| {
        let (o0, b0) = (q0 / nb, q0 % nb);
        let (o1, b1) = ((q1 - 1) / nb, (q1 - 1) % nb);
        let lo = o0 * s.len + b0 * block;
        let hi = o1 * s.len + ((b1 + 1) * block).min(s.len);
        (lo as u64, hi as u64)
    };
    let fits = |q0: usize, q1: usize| {
        let (lo, hi) = span(q0, q1);
        (hi - lo) * size <= cap && (q1 - q0 + 1) as u64 * size <= cap
    };
    let mut spec: Option<ShaderSpec> = None;
    for_ranges(s.outer * nb, fits, |q0, q1| {
        let (lo, hi) = span(q0, q1);
        let in_base = input.offset as u64 * size;
        let out_base = out.offset as u64 * size;
        let mut plan = BindingPlan::default();
        let cls = Class::of(d);
        let bin = plan.add(
            input.buffer,
            cls,
            Access::Read,
            in_base + lo * size,
            in_base + hi * size,
        );
        let t_base = totals.offset as u64 * size;
        let (tlo, thi) = (
            t_base + q0.saturating_sub(1) as u64 * size,
            t_base + q1 as u64 * size,
        );
        let tacc = if mode == blocked::Mode::Totals {
            Access::ReadWrite
        } else {
            Access::Read
        };
        let btot = plan.add(totals.buffer, cls, tacc, tlo, thi);
        let bout = if mode == blocked::Mode::Apply {
            plan.add(
                out.buffer,
                cls,
                Access::ReadWrite,
                out_base + lo * size,
                out_base + hi * size,
            )
        } else {
            btot
        };
        let w = plan.windows(ctx)?;
        if spec.is_none() {
            let layout = plan.layout();
            spec = Some(ShaderSpec {
                label: format!("scan_blocked[{} {d} {mode:?}]", op.name()),
                source: blocked::source(op, d, mode, &layout, bin, btot, bout)?,
                storage: layout.iter().map(|x| x.1).collect(),
            });
        }
        let params = [
            q1 as u32,
            s.len as u32,
            nb as u32,
            rel(in_base, w[bin].start, ub),
            rel(out_base, w[bout].start, ub),
            q0 as u32,
            rel(t_base, w[btot].start, ub),
        ];
        let Some(spec) = spec.as_ref() else {
            return Err(invalid("no kernel"));
        };
        dispatch::launch(ctx, spec, &params, &plan, &w, false, (q1 - q0) as u64)
    })
}

fn lines_scan(
    ctx: &Context,
    op: ScanOp,
    d: DType,
    input: View<'_>,
    out: View<'_>,
    s: Shape,
) -> Result<()> {
    let od = temp_dtype(d);
    let (isize, osize) = (d.size() as u64, od.size() as u64);
    let esize = isize.max(osize);
    let cap = capacity(ctx);
    let inner_bytes = s.inner as u64 * esize;
    if 2 * inner_bytes > cap {
        return Err(WgpuError::LimitExceeded {
            what: format!("a scan with {} elements after the scanned axis", s.inner),
            requested: inner_bytes,
            limit: cap / 2,
            limit_name: "max_storage_buffer_binding_size (half of it, for one range of lines)",
            adapter: ctx.adapter_name.clone(),
            hint: "scan a transposed copy (the axis last) or split the array",
        });
    }
    // k ranges: the whole axis when a line range can hold it, else what fits with the
    // previous range's last row.
    let kc = if s.len as u64 * inner_bytes <= cap {
        s.len
    } else {
        ((cap / inner_bytes) as usize).saturating_sub(1).max(1)
    };
    // Lavapipe ends loops after 65,535 iterations: no thread walks more than 32 Ki in one
    // dispatch (a GPU would not want it to either).
    let kc = kc.min(MAX_LOOP);
    let lines = s.outer * s.inner;
    let mut spec: Option<ShaderSpec> = None;
    let mut k0 = 0;
    while k0 < s.len {
        let k1 = (k0 + kc).min(s.len);
        let span = |q0: usize, q1: usize, from: usize| {
            let (o0, i0) = (q0 / s.inner, q0 % s.inner);
            let (o1, i1) = ((q1 - 1) / s.inner, (q1 - 1) % s.inner);
            let lo = (o0 * s.len + from) * s.inner + i0;
            let hi = (o1 * s.len + k1 - 1) * s.inner + i1 + 1;
            (lo as u64, hi as u64)
        };
        let from_out = k0.saturating_sub(1);
        let fits = |q0: usize, q1: usize| {
            let (lo, hi) = span(q0, q1, from_out);
            (hi - lo) * esize <= cap
        };
        for_ranges(lines, fits, |q0, q1| {
            let (ilo, ihi) = span(q0, q1, k0);
            let (olo, ohi) = span(q0, q1, from_out);
            let in_base = input.offset as u64 * isize;
            let out_base = out.offset as u64 * osize;
            let mut plan = BindingPlan::default();
            let bin = plan.add(
                input.buffer,
                Class::of(d),
                Access::Read,
                in_base + ilo * isize,
                in_base + ihi * isize,
            );
            let bout = plan.add(
                out.buffer,
                Class::of(od),
                Access::ReadWrite,
                out_base + olo * osize,
                out_base + ohi * osize,
            );
            let w = plan.windows(ctx)?;
            if spec.is_none() {
                let layout = plan.layout();
                spec = Some(ShaderSpec {
                    label: format!("scan_lines[{} {d}]", op.name()),
                    source: lines::source(op, d, &layout, bin, bout)?,
                    storage: layout.iter().map(|x| x.1).collect(),
                });
            }
            let params = [
                q1 as u32,
                s.len as u32,
                s.inner as u32,
                rel(in_base, w[bin].start, unit_bytes(d)),
                rel(out_base, w[bout].start, unit_bytes(od)),
                q0 as u32,
                k0 as u32,
                k1 as u32,
            ];
            let Some(spec) = spec.as_ref() else {
                return Err(invalid("no kernel"));
            };
            let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
            dispatch::launch(ctx, spec, &params, &plan, &w, false, groups)
        })?;
        k0 = k1;
    }
    Ok(())
}
