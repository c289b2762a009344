//! FFTs on the host with rustfft (the `host-fft` feature): the serial pieces the CPU
//! reference backend's batched FFTs are built from, and the kit's whole transform.
//!
//! Every transform of the batch is gathered from its strided layout into a contiguous
//! complex block, transformed axis by axis with 1-D plans (the multi-dimensional DFT is
//! separable), and scattered to the output. R2C is transformed as complex and its half
//! spectrum kept; C2R undoes the non-real axes as complex, then rebuilds each row's full
//! Hermitian spectrum from the half ([`hermitian_row`]) and keeps the real part. That costs
//! about twice a dedicated real transform, which is fine for a reference and a fallback.

use std::sync::Arc;

use bytemuck::Pod;
use num_complex::Complex;
pub use rustfft::{Fft, FftNum, FftPlanner};

use super::storage::HostStorage;
use crate::error::{Error, Result};
use crate::host::io::{read_vec, write_slice};
use crate::kernel::{FftArgs, FftDirection, FftKind};

/// The rustfft direction of a transform direction.
pub fn rustfft_direction(dir: FftDirection) -> rustfft::FftDirection {
    match dir {
        FftDirection::Forward => rustfft::FftDirection::Forward,
        FftDirection::Inverse => rustfft::FftDirection::Inverse,
    }
}

/// Transforms a row-major block of shape `dims` in place along `axis`, with the plan
/// `plan(len, dir)` gives.
pub fn along_axis<T: FftNum>(
    plan: &impl Fn(usize, FftDirection) -> Arc<dyn Fft<T>>,
    data: &mut [Complex<T>],
    dims: &[usize],
    axis: usize,
    dir: FftDirection,
) {
    let n = dims[axis];
    if n <= 1 {
        return;
    }
    let plan = plan(n, dir);
    let inner: usize = dims[axis + 1..].iter().product();
    if inner == 1 {
        plan.process(data);
        return;
    }
    let mut line = vec![Complex::new(T::zero(), T::zero()); n];
    for block in data.chunks_mut(n * inner) {
        for i in 0..inner {
            for (k, v) in line.iter_mut().enumerate() {
                *v = block[k * inner + i];
            }
            plan.process(&mut line);
            for (k, v) in line.iter().enumerate() {
                block[k * inner + i] = *v;
            }
        }
    }
}

/// The non-redundant half (last axis `n/2 + 1`) of full spectra of shape `lengths`.
pub fn keep_half<T: Copy>(full: &[T], lengths: &[usize], per_out: usize) -> Vec<T> {
    let n = lengths[lengths.len() - 1];
    let m = n / 2 + 1;
    let batch = full.len() / lengths.iter().product::<usize>();
    let mut out = Vec::with_capacity(per_out * batch);
    for row in full.chunks(n) {
        out.extend_from_slice(&row[..m]);
    }
    out
}

/// The full Hermitian spectrum of one row from its half `h` (`row.len()/2 + 1` values):
/// `X[k] = h[k]`, `X[n − k] = conj(h[k])`, with the zero-frequency (and for even `n` the
/// Nyquist) bin taken as real.
pub fn hermitian_row<T: FftNum>(h: &[Complex<T>], row: &mut [Complex<T>]) {
    let n = row.len();
    for (k, x) in row.iter_mut().enumerate() {
        *x = if k < h.len() { h[k] } else { h[n - k].conj() };
    }
    row[0].im = T::zero();
    if n % 2 == 0 {
        row[n / 2].im = T::zero();
    }
}

/// The element positions of one transform's embed, in the layout's units.
pub fn positions(offset: usize, stride: usize, per: usize) -> impl Iterator<Item = usize> {
    (0..per).map(move |j| offset + stride * j)
}

/// The inverse of one gathered half spectrum `x` (C2R) into the full complex block `y`
/// (shape `lengths`), whose real parts are the output: the non-real axes of `x` (shape
/// `half`) as complex, then each row's Hermitian spectrum rebuilt and transformed.
pub fn c2r_block<T: FftNum>(
    plan: &impl Fn(usize, FftDirection) -> Arc<dyn Fft<T>>,
    dir: FftDirection,
    lengths: &[usize],
    half: &[usize],
    x: &mut [Complex<T>],
    y: &mut [Complex<T>],
) {
    let rank = lengths.len();
    let (n, m) = (lengths[rank - 1], half[rank - 1]);
    for axis in 0..rank - 1 {
        along_axis(plan, x, half, axis, dir);
    }
    for (h, row) in x.chunks(m).zip(y.chunks_mut(n)) {
        hermitian_row(h, row);
    }
    along_axis(plan, y, lengths, rank - 1, dir);
}

/// Transforms one gathered block (`x`: the full input for C2C/R2C, the half spectrum for
/// C2R) and returns its result as complex values (C2R: the real parts are the output).
pub fn transform_block<T: FftNum>(
    plan: &impl Fn(usize, FftDirection) -> Arc<dyn Fft<T>>,
    kind: FftKind,
    dir: FftDirection,
    lengths: &[usize],
    half: &[usize],
    x: &mut [Complex<T>],
) -> Vec<Complex<T>> {
    match kind {
        FftKind::C2C | FftKind::R2C => {
            for axis in 0..lengths.len() {
                along_axis(plan, x, lengths, axis, dir);
            }
            x.to_vec()
        }
        FftKind::C2R => {
            let mut y = vec![Complex::new(T::zero(), T::zero()); lengths.iter().product()];
            c2r_block(plan, dir, lengths, half, x, &mut y);
            y
        }
    }
}

fn fft_typed<T: FftNum + Pod, B: HostStorage>(backend: &B, a: &FftArgs<'_, B::Buffer>) -> Result<()>
where
    Complex<T>: Pod,
{
    let (per_in, per_out) = a.elements_per_transform();
    let (il, ol) = (a.input_layout, a.output_layout);
    let half = a.input_embed();
    let zero = Complex::new(T::zero(), T::zero());
    let mut planner = FftPlanner::<T>::new();
    let mut plans: Vec<(usize, FftDirection, Arc<dyn Fft<T>>)> = Vec::new();
    for &n in a.lengths.iter().chain(&half) {
        if !plans.iter().any(|p| p.0 == n) {
            let plan = planner.plan_fft(n, rustfft_direction(a.direction));
            plans.push((n, a.direction, plan));
        }
    }
    let plan = |n: usize, dir: FftDirection| {
        let found = plans.iter().find(|p| p.0 == n && p.1 == dir);
        found.map_or_else(
            || FftPlanner::<T>::new().plan_fft(n, rustfft_direction(dir)),
            |p| p.2.clone(),
        )
    };
    let extent_in = a.extent(true) - il.offset;
    let input: Vec<Complex<T>> = if a.kind == FftKind::R2C {
        let src: Vec<T> = read_vec(backend, a.input, il.offset, extent_in)?;
        src.into_iter()
            .map(|v| Complex::new(v, T::zero()))
            .collect()
    } else {
        read_vec(backend, a.input, il.offset, extent_in)?
    };
    // The output range is read first: the layout may leave gaps that must keep their bytes.
    let extent_out = a.extent(false) - ol.offset;
    let mut out_c: Vec<Complex<T>> = Vec::new();
    let mut out_r: Vec<T> = Vec::new();
    if a.kind == FftKind::C2R {
        out_r = read_vec(backend, a.output, ol.offset, extent_out)?;
    } else {
        out_c = read_vec(backend, a.output, ol.offset, extent_out)?;
    }
    let mut block = vec![zero; per_in];
    for b in 0..a.batch {
        for (d, p) in block
            .iter_mut()
            .zip(positions(b * il.dist, il.stride, per_in))
        {
            *d = input[p];
        }
        let mut result = transform_block(&plan, a.kind, a.direction, &a.lengths, &half, &mut block);
        if a.kind == FftKind::R2C {
            result = keep_half(&result, &a.lengths, per_out);
        }
        let dst = positions(b * ol.dist, ol.stride, per_out);
        for (s, p) in result.iter().zip(dst) {
            match a.kind {
                FftKind::C2R => out_r[p] = s.re,
                _ => out_c[p] = *s,
            }
        }
    }
    if a.kind == FftKind::C2R {
        write_slice(backend, a.output, ol.offset, &out_r)
    } else {
        write_slice(backend, a.output, ol.offset, &out_c)
    }
}

/// Runs one batched FFT on the host: reads the operands, transforms, writes the output.
/// The description is one core has validated ([`FftArgs::validate`]).
pub fn fft<B: HostStorage>(backend: &B, a: &FftArgs<'_, B::Buffer>) -> Result<()> {
    crate::dispatch_dtype!(a.real, [F32, F64], T => fft_typed::<T, B>(backend, a),
    else other => Err(Error::invalid_dtype(
        "fft",
        other,
        "FFTs compute in f32 or f64; core's type rules exclude the rest",
    )))
}
