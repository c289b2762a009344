//! FFTs with rustfft: the semantics of `gpuarrays_core::kernel::fft`, written for clarity.
//!
//! The serial pieces (one axis, the half spectrum, the Hermitian row, one block) are core's
//! (`gpuarrays_core::host::fft`), shared with the small-backend kit; this module adds the
//! parallel batch, the buffer access and the plan cache.
//!
//! Every transform of the batch is gathered from its strided layout into a contiguous
//! complex block, transformed axis by axis with 1-D rustfft plans (the multi-dimensional
//! DFT is separable), and scattered to the output. Real input (R2C) is transformed as
//! complex and its half spectrum kept; C2R undoes the non-real axes as complex, then
//! rebuilds each row's full Hermitian spectrum from the half (ignoring the imaginary part
//! of the zero-frequency and Nyquist bins, as NumPy does) and keeps the real part. That
//! costs about twice a dedicated real transform, which is fine for the reference.
//!
//! Transforms of a batch run in parallel; each is computed by one thread from the same
//! plans, so results do not depend on the number of threads. Plans (rustfft's, shared and
//! immutable) are kept in a bounded [`HandleCache`] keyed by (precision, length,
//! direction), so thousands of distinct lengths do not keep thousands of plans.

use std::sync::Arc;

use gpuarrays_core::handle_cache::{HandleCache, Limits};
use gpuarrays_core::host::fft::{
    Fft, FftNum, FftPlanner, along_axis, c2r_block, keep_half, positions, rustfft_direction,
};
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind};
use gpuarrays_core::{DType, dispatch_dtype};
use num_complex::Complex;
use rayon::prelude::*;

use crate::buffer::CpuBuffer;
use crate::error::{CpuError, invalid};

/// A rustfft plan of either precision.
#[derive(Clone)]
enum Plan {
    F32(Arc<dyn Fft<f32>>),
    F64(Arc<dyn Fft<f64>>),
}

type PlanKey = (DType, usize, FftDirection);

/// The CPU backend's FFT plans: at most 64 idle plans (8 per length and direction).
pub(crate) struct CpuFftPlans {
    cache: HandleCache<PlanKey, Plan>,
}

impl Default for CpuFftPlans {
    fn default() -> Self {
        CpuFftPlans {
            cache: HandleCache::with_drop(Limits::new(8, 64)),
        }
    }
}

/// The precisions this module computes in.
trait Precision: FftNum + bytemuck::Pod {
    fn plan(plans: &CpuFftPlans, len: usize, dir: FftDirection) -> Arc<dyn Fft<Self>>;
}

macro_rules! precision {
    ($t:ty, $dtype:ident, $variant:ident) => {
        impl Precision for $t {
            fn plan(plans: &CpuFftPlans, len: usize, dir: FftDirection) -> Arc<dyn Fft<$t>> {
                let key = (DType::$dtype, len, dir);
                let created = plans.cache.get_or_create(key, || {
                    let plan = FftPlanner::<$t>::new().plan_fft(len, rustfft_direction(dir));
                    Ok::<_, std::convert::Infallible>((Plan::$variant(plan), 0))
                });
                match created.as_deref() {
                    Ok(Plan::$variant(p)) => p.clone(),
                    // The key names the precision, so the cached plan has it.
                    _ => FftPlanner::<$t>::new().plan_fft(len, rustfft_direction(dir)),
                }
            }
        }
    };
}
precision!(f32, F32, F32);
precision!(f64, F64, F64);

fn run_typed<T: Precision>(
    plans: &CpuFftPlans,
    a: &FftArgs<'_, CpuBuffer>,
) -> Result<(), CpuError> {
    let (per_in, per_out) = a.elements_per_transform();
    let (il, ol) = (a.input_layout, a.output_layout);
    let (lengths, rank) = (&a.lengths, a.lengths.len());
    let half = a.input_embed();
    let full: usize = lengths.iter().product();
    let zero = Complex::new(T::zero(), T::zero());
    // Gather: one contiguous complex block per transform (C2R: the half spectrum).
    let block = if a.kind == FftKind::C2R { per_in } else { full };
    let mut data = vec![zero; block * a.batch];
    let extent = a.extent(true) - il.offset;
    if a.kind == FftKind::R2C {
        // SAFETY: only read while `src` lives; the output is written after it is gone.
        let src: &[T] = unsafe { a.input.slice(il.offset, extent)? };
        for (b, dst) in data.chunks_mut(block).enumerate() {
            for (d, p) in dst
                .iter_mut()
                .zip(positions(b * il.dist, il.stride, per_in))
            {
                *d = Complex::new(src[p], T::zero());
            }
        }
    } else {
        // SAFETY: as above.
        let src: &[Complex<T>] = unsafe { a.input.slice(il.offset, extent)? };
        for (b, dst) in data.chunks_mut(block).enumerate() {
            for (d, p) in dst
                .iter_mut()
                .zip(positions(b * il.dist, il.stride, per_in))
            {
                *d = src[p];
            }
        }
    }
    // Transform each block.
    let dir = a.direction;
    let plan = |len: usize, dir: FftDirection| T::plan(plans, len, dir);
    let results: Vec<Complex<T>> = match a.kind {
        FftKind::C2C | FftKind::R2C => {
            data.par_chunks_mut(block)
                .with_min_len(crate::parallel::min_len())
                .for_each(|x| {
                    for axis in 0..rank {
                        along_axis(&plan, x, lengths, axis, dir);
                    }
                });
            if a.kind == FftKind::C2C {
                data
            } else {
                keep_half(&data, lengths, per_out)
            }
        }
        FftKind::C2R => {
            let mut out = vec![zero; full * a.batch];
            data.par_chunks_mut(block)
                .zip(out.par_chunks_mut(full))
                .with_min_len(crate::parallel::min_len())
                .for_each(|(x, y)| {
                    c2r_block(&plan, dir, lengths, &half, x, y);
                });
            out
        }
    };
    // Scatter (the input slices are gone: an in-place transform reads nothing from here on).
    let extent = a.extent(false) - ol.offset;
    if a.kind == FftKind::C2R {
        // SAFETY: only this call writes the output range, and nothing reads it meanwhile.
        let dst: &mut [T] = unsafe { a.output.slice_mut(ol.offset, extent)? };
        for (b, src) in results.chunks(per_out).enumerate() {
            for (s, p) in src.iter().zip(positions(b * ol.dist, ol.stride, per_out)) {
                dst[p] = s.re;
            }
        }
    } else {
        // SAFETY: as above.
        let dst: &mut [Complex<T>] = unsafe { a.output.slice_mut(ol.offset, extent)? };
        for (b, src) in results.chunks(per_out).enumerate() {
            for (s, p) in src.iter().zip(positions(b * ol.dist, ol.stride, per_out)) {
                dst[p] = *s;
            }
        }
    }
    Ok(())
}

/// Runs one batched FFT; the description is one core has validated.
pub(crate) fn run(plans: &CpuFftPlans, a: &FftArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    dispatch_dtype!(a.real, [F32, F64], T => run_typed::<T>(plans, a),
        else other => Err(invalid(format!("an FFT in precision {other}"))))
}
