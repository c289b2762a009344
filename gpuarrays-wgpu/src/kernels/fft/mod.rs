//! FFTs of complex f32 data of power-of-two lengths: a Stockham transform of whole lines in
//! workgroup memory, split four-step style into several passes over global memory when a
//! line does not fit (`plan.rs`), WGSL in `source.rs`, host-computed twiddles in
//! `twiddle.rs`.
//!
//! Other lengths and f64 are not computed: [`refusal`] says why, and the backend turns it
//! into core's `Error::Unsupported` (f64 is refused by `supports` already, so core reports
//! it before dispatch).
//!
//! One call records one dispatch per step into the pending encoder (no read back). Every
//! operand is bound as a window (`dispatch::BindingPlan`), so an operand larger than
//! `max_storage_buffer_binding_size` is a typed `LimitExceeded`; line counts above 65,535
//! workgroups use the two-dimensional grid of `dispatch::launch`.

mod plan;
mod source;
mod steps;
mod twiddle;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{FftArgs, FftDirection};

use crate::buffer::{WgpuBuffer, next_buffer_id};
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::types::Class;

use plan::{Buf, Plan, PlanError, Step, StepKind};
use source::{Bindings, LinesKernel, THREADS};
use twiddle::Table;

#[cfg(test)]
pub(crate) use plan::{Load, Store};
#[cfg(test)]
pub(crate) use source::{edge as edge_source, lines as lines_source};
#[cfg(test)]
pub(crate) type FftBindings = Bindings;
#[cfg(test)]
pub(crate) type FftLinesKernel = LinesKernel;

/// Why the backend does not compute `args`, if it does not: `(dtype, reason)`.
pub(crate) fn refusal<B>(args: &FftArgs<'_, B>) -> Option<(DType, String)> {
    if args.real != DType::F32 {
        return Some((
            args.complex(),
            "the wgpu FFT computes single precision (c32/f32) only".into(),
        ));
    }
    args.lengths.iter().find(|n| !n.is_power_of_two()).map(|n| {
        (
            args.complex(),
            format!(
                "FFT length {n} is not a power of two: the wgpu backend's Stockham FFT \
                     takes power-of-two lengths only"
            ),
        )
    })
}

/// What core is told to do instead of a refused FFT.
pub(crate) const ALTERNATIVE: &str =
    "pad to a power of two with `n`/`s`, or run this transform on the CPU or HIP backend";

/// The workgroup line limit; tests lower it to exercise the multi-pass path on small data.
static LINE_LIMIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Caps the points of one workgroup line (a power of two ≥ 2; `0` restores the device's
/// limit). For tests of the multi-pass path: affects every wgpu device of the process.
#[doc(hidden)]
pub fn set_line_limit(points: usize) {
    LINE_LIMIT.store(points, std::sync::atomic::Ordering::Relaxed);
}

fn line_limit(ctx: &Context) -> usize {
    let device = plan::local_limit(ctx.limits.max_compute_workgroup_storage_size);
    match LINE_LIMIT.load(std::sync::atomic::Ordering::Relaxed) {
        0 => device,
        cap => device.min(cap.max(2).next_power_of_two()),
    }
}

/// A binding index from `BindingPlan::add_raw` (whose return type differs between versions
/// of `dispatch.rs`: a plain index, or a `Result` refusing two element classes of one buffer,
/// which the FFT never asks for since it binds every buffer as words).
trait BindingIndex {
    fn index(self) -> Result<usize>;
}

impl BindingIndex for usize {
    fn index(self) -> Result<usize> {
        Ok(self)
    }
}

impl<E: std::fmt::Debug> BindingIndex for std::result::Result<usize, E> {
    fn index(self) -> Result<usize> {
        self.map_err(|e| invalid(format!("FFT bindings: {e:?}")))
    }
}

/// Runs the FFT `args` describes (the backend has checked [`refusal`] and validated `args`).
pub(crate) fn run(ctx: &Context, args: &FftArgs<'_, WgpuBuffer>) -> Result<()> {
    let local = line_limit(ctx);
    let plan = plan::for_args(args, local).map_err(|e| match e {
        PlanError::NotPowerOfTwo(n) => invalid(format!("FFT length {n} is not a power of two")),
        PlanError::TooManyDigits(n) => WgpuError::LimitExceeded {
            what: format!(
                "an FFT whose layout needs {n} line indices (lengths {:?}, batch {})",
                args.lengths, args.batch
            ),
            requested: n as u64,
            limit: plan::MAX_DIGITS as u64,
            limit_name: "line indices of the FFT kernels (a count, not bytes)",
            adapter: ctx.adapter_name.clone(),
            hint: "make the array contiguous first (a copy) or transform fewer axes at once",
        },
    })?;
    let bytes = plan.temp_elems * 8;
    let mut temps = Vec::with_capacity(plan.temps);
    let result = (|| {
        for _ in 0..plan.temps {
            temps.push(ctx.alloc(bytes)?);
        }
        record(ctx, args, &plan, &temps)
    })();
    for t in temps {
        ctx.release(t);
    }
    result
}

fn record(
    ctx: &Context,
    args: &FftArgs<'_, WgpuBuffer>,
    plan: &Plan,
    temps: &[WgpuBuffer],
) -> Result<()> {
    let inverse = args.direction == FftDirection::Inverse;
    let mut table = Table::default();
    // Table offsets first (one upload for every step).
    let offsets: Vec<(usize, Option<twiddle::Split>)> = plan
        .steps
        .iter()
        .map(|s| match s.kind {
            StepKind::Lines { m, twiddle_n, .. } => (
                table.line(m),
                (twiddle_n > 0).then(|| table.split(twiddle_n)),
            ),
            StepKind::Edge { .. } => (0, None),
        })
        .collect();
    let table_buf = ctx.upload_buffer(&table.bytes(), wgpu::BufferUsages::STORAGE)?;
    let table_id = next_buffer_id();
    let buffer = |b: Buf| -> Result<&WgpuBuffer> {
        match b {
            Buf::Input => Ok(args.input),
            Buf::Output => Ok(args.output),
            Buf::Temp(i) => temps.get(i).ok_or_else(|| invalid("FFT temporary")),
        }
    };
    for (step, (line_off, split)) in plan.steps.iter().zip(offsets) {
        let (src_real, dst_real) = step.real_sides();
        let unit = |real: bool| if real { 4u64 } else { 8 };
        let (su, du) = (unit(src_real), unit(dst_real));
        let (slo, shi) = step.span(true);
        let (dlo, dhi) = step.span(false);
        let mut bind = BindingPlan::default();
        let (sb, db) = (buffer(step.src.buf)?, buffer(step.dst.buf)?);
        let src = bind
            .add_raw(
                &sb.buffer,
                sb.id,
                Class::W32,
                Access::Read,
                slo as u64 * su,
                shi as u64 * su,
            )
            .index()?;
        let dst = bind
            .add_raw(
                &db.buffer,
                db.id,
                Class::W32,
                Access::ReadWrite,
                dlo as u64 * du,
                dhi as u64 * du,
            )
            .index()?;
        let tab = match step.kind {
            StepKind::Lines { .. } => Some(
                bind.add_raw(
                    &table_buf,
                    table_id,
                    Class::W32,
                    Access::Read,
                    0,
                    table_buf.size(),
                )
                .index()?,
            ),
            StepKind::Edge { .. } => None,
        };
        let windows = bind.windows(ctx)?;
        let layout = bind.layout();
        let bindings = Bindings {
            src: src + 1,
            dst: dst + 1,
            table: tab.map(|t| t + 1),
        };
        let rel = |window: usize, offset: usize, unit: u64| -> Result<u32> {
            let w = windows
                .get(window)
                .ok_or_else(|| invalid("FFT binding window"))?;
            to_u32((offset as u64 * unit - w.start) / unit)
        };
        let mut params = line_params(step)?;
        params[12] = rel(src, step.src.offset, su)?;
        params[13] = rel(dst, step.dst.offset, du)?;
        let (label, source, groups) = match step.kind {
            StepKind::Lines {
                m,
                twiddle_n,
                load,
                store,
                keep,
            } => {
                let (lines_per_group, interleave) = grouping(ctx, step, m);
                let k = LinesKernel {
                    m,
                    load,
                    store,
                    twiddle: twiddle_n > 0,
                    lines_per_group,
                    interleave,
                };
                params[16] = to_u32(keep)?;
                params[17] = to_u32(line_off)?;
                params[22] = u32::from(inverse);
                if let Some(s) = split {
                    params[18] = to_u32(s.coarse)?;
                    params[19] = to_u32(s.fine)?;
                    params[20] = s.fine_bits;
                    params[21] = to_u32(twiddle_n - 1)?;
                }
                let groups = step.lines().div_ceil(k.lines_per_group);
                (
                    format!("fft lines[{m}]"),
                    source::lines(&k, &layout, bindings),
                    groups,
                )
            }
            StepKind::Edge { keep, extend_n } => {
                params[0] = to_u32(step.lines() * keep)?;
                params[16] = to_u32(keep)?;
                params[17] = to_u32(extend_n)?;
                (
                    "fft edge".to_string(),
                    source::edge(extend_n > 0, &layout, bindings),
                    (step.lines() * keep).div_ceil(THREADS),
                )
            }
        };
        let spec = ShaderSpec {
            label,
            source,
            storage: layout.iter().map(|x| x.1).collect(),
        };
        dispatch::launch(ctx, &spec, &params, &bind, &windows, false, groups as u64)?;
    }
    Ok(())
}

/// Lines per workgroup and whether to interleave them (see `LinesKernel`): up to 16 lines
/// when the innermost line index steps by one element on a side whose points are apart,
/// as workgroup memory allows.
fn grouping(ctx: &Context, step: &Step, m: usize) -> (usize, bool) {
    let least = LinesKernel::min_lines_per_group(m);
    let apart = |digit: usize, point: usize| digit == 1 && point != 1;
    let interleave = step.digits.last().is_some_and(|d| {
        d.count > 1 && (apart(d.src, step.src.stride) || apart(d.dst, step.dst.stride))
    });
    if !interleave {
        return (least, false);
    }
    let fit = (ctx.limits.max_compute_workgroup_storage_size as usize / (m * 8 + 16)).max(1);
    let fit = 1usize << fit.ilog2();
    (least.max(fit.min(16)).min(THREADS), true)
}

fn to_u32(v: impl TryInto<u32> + Copy + std::fmt::Debug) -> Result<u32> {
    v.try_into()
        .map_err(|_| invalid(format!("FFT index {v:?} does not fit 32 bits")))
}

/// Parameter words 0..=15 of a step (offsets filled in by the caller).
fn line_params(step: &Step) -> Result<Vec<u32>> {
    let mut p = vec![0u32; source::PARAM_WORDS];
    p[0] = to_u32(step.lines())?;
    // Right-align the digits: digit 3 is the last (the twiddle digit).
    let pad = plan::MAX_DIGITS - step.digits.len();
    for (i, d) in step.digits.iter().enumerate() {
        let slot = pad + i;
        if slot > 0 {
            p[slot] = to_u32(d.count)?;
        }
        p[4 + slot] = to_u32(d.src)?;
        p[8 + slot] = to_u32(d.dst)?;
    }
    // Absent leading digits: count 1, strides 0.
    for count in p.iter_mut().take(pad).skip(1) {
        *count = 1;
    }
    p[14] = to_u32(step.src.stride)?;
    p[15] = to_u32(step.dst.stride)?;
    Ok(p)
}
