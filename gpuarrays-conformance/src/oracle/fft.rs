//! The oracle of FFTs: NumPy's `numpy.fft` semantics as documented in
//! `gpuarrays_core::ops::fft`, computed as a direct O(n²) DFT in complex f64 along each
//! chosen axis (the multi-dimensional DFT is separable), with twiddles `exp(∓2πi·(jk mod
//! n)/n)` so that their angles stay exact.
//!
//! Written from the documentation only: axes and lengths are resolved here again, crop and
//! pad are index arithmetic, and the real transforms are the complex DFT of real data
//! (forward, keeping the first `n/2 + 1` bins of the last listed axis) and its inverse from
//! the Hermitian extension of each half spectrum (zero-frequency and Nyquist bins taken as
//! real).

use gpuarrays_core::{Complex64, DType, FftNorm, Scalar};

use super::index::numel;
use super::magnitudes::magnitude;
use super::rules::{AXIS_OUT_OF_RANGE, Expected, INVALID_ARGUMENT, INVALID_DTYPE, RANK_MISMATCH};
use super::value::{Wide, from_complex, from_real, widen};
use crate::case::FftCase;
use crate::host::{HostArray, HostData};

/// What a valid call transforms: the chosen axes (the real one last), the logical lengths,
/// the input's shape after crop/pad (`work`) and the result's shape.
struct Resolved {
    axes: Vec<usize>,
    lengths: Vec<usize>,
    work: Vec<usize>,
    out: Vec<usize>,
}

/// The error a call must produce, or what it transforms.
fn resolve(f: &FftCase, a: &HostArray) -> Result<Resolved, Expected> {
    let t = a.dtype();
    let floating = matches!(t, DType::F32 | DType::F64 | DType::C32 | DType::C64);
    if !floating || (f.form.real_input() && t.is_complex()) {
        return Err(INVALID_DTYPE);
    }
    let ndim = a.dims.len();
    let axes: Vec<usize> = match (&f.axes, &f.s) {
        (Some(axes), _) => axes.clone(),
        (None, _) if f.form.two_axes() => {
            if ndim < 2 {
                return Err(RANK_MISMATCH);
            }
            vec![ndim - 2, ndim - 1]
        }
        (None, Some(s)) => {
            if s.len() > ndim {
                return Err(INVALID_ARGUMENT);
            }
            (ndim - s.len()..ndim).collect()
        }
        (None, None) => (0..ndim).collect(),
    };
    if axes.iter().any(|&ax| ax >= ndim) {
        return Err(AXIS_OUT_OF_RANGE);
    }
    for (i, ax) in axes.iter().enumerate() {
        if axes[..i].contains(ax) {
            return Err(INVALID_ARGUMENT);
        }
    }
    if f.s.as_ref().is_some_and(|s| s.len() != axes.len()) {
        return Err(INVALID_ARGUMENT);
    }
    let real_axis = f.form.real_input() || f.form.real_output();
    if real_axis && axes.is_empty() {
        return Err(INVALID_ARGUMENT);
    }
    let mut lengths: Vec<usize> = match &f.s {
        Some(s) => s.clone(),
        None => axes.iter().map(|&ax| a.dims[ax]).collect(),
    };
    if f.form.real_output() && f.s.is_none() {
        let last = axes[axes.len() - 1];
        let m = a.dims[last];
        *lengths.last_mut().ok_or(INVALID_ARGUMENT)? = if m == 0 { 0 } else { 2 * (m - 1) };
    }
    if lengths.contains(&0) {
        return Err(INVALID_ARGUMENT);
    }
    let mut work = a.dims.clone();
    for (&ax, &n) in axes.iter().zip(&lengths) {
        work[ax] = n;
    }
    let mut out = work.clone();
    if let (Some(&last), Some(&n)) = (axes.last(), lengths.last()) {
        if f.form.real_input() {
            out[last] = n / 2 + 1;
        }
        if f.form.real_output() {
            work[last] = n / 2 + 1;
        }
    }
    Ok(Resolved {
        axes,
        lengths,
        work,
        out,
    })
}

fn to_complex(s: Scalar) -> Complex64 {
    match widen(s) {
        Wide::Complex(z) => z,
        Wide::Real(x) => Complex64::new(x, 0.0),
        Wide::Int(x) => Complex64::new(x as f64, 0.0),
        Wide::Bool(b) => Complex64::new(b as u8 as f64, 0.0),
    }
}

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<usize> {
    let mut st = vec![1; dims.len()];
    for k in (0..dims.len().saturating_sub(1)).rev() {
        st[k] = st[k + 1] * dims[k + 1];
    }
    st
}

/// The multi-index of linear position `i` in `dims`.
fn unravel(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        if dims[k] > 0 {
            idx[k] = i % dims[k];
            i /= dims[k];
        }
    }
    idx
}

/// `a` as complex values, cropped or zero-padded at the end of each axis to `dims`.
fn resized(a: &HostArray, dims: &[usize]) -> Vec<Complex64> {
    let st = strides(&a.dims);
    (0..numel(dims))
        .map(|i| {
            let idx = unravel(i, dims);
            if idx.iter().zip(&a.dims).any(|(&j, &m)| j >= m) {
                Complex64::new(0.0, 0.0)
            } else {
                let pos: usize = idx.iter().zip(&st).map(|(j, s)| j * s).sum();
                to_complex(a.data.get(pos))
            }
        })
        .collect()
}

/// The direct DFT of every lane of `x` (shape `dims`) along `axis`.
fn dft_axis(x: &mut [Complex64], dims: &[usize], axis: usize, inverse: bool) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer = x.len().checked_div(n * inner).unwrap_or(0);
    let sign = if inverse { 1.0 } else { -1.0 };
    let twiddle: Vec<Complex64> = (0..n)
        .map(|r| Complex64::from_polar(1.0, sign * std::f64::consts::TAU * r as f64 / n as f64))
        .collect();
    let mut lane = vec![Complex64::new(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            for (j, v) in lane.iter_mut().enumerate() {
                *v = x[at(j)];
            }
            for k in 0..n {
                let sum: Complex64 = (0..n).map(|j| lane[j] * twiddle[(j * k) % n]).sum();
                x[at(k)] = sum;
            }
        }
    }
}

/// The norm's factor for a transform of `n` points in total.
fn norm_factor(norm: FftNorm, n: usize, inverse: bool) -> f64 {
    let n = n as f64;
    match (norm, inverse) {
        (FftNorm::Ortho, _) => 1.0 / n.sqrt(),
        (FftNorm::Backward, true) | (FftNorm::Forward, false) => 1.0 / n,
        _ => 1.0,
    }
}

/// The expected result of the FFT call `f` on `a`, or the error it must produce.
pub fn fft(f: &FftCase, a: &HostArray) -> Result<HostArray, Expected> {
    let r = resolve(f, a)?;
    let real = a.dtype().real();
    let complex = if real == DType::F32 {
        DType::C32
    } else {
        DType::C64
    };
    let out_dtype = if f.form.real_output() { real } else { complex };
    if numel(&r.out) == 0 {
        return Ok(HostArray::new(r.out, HostData::empty(out_dtype)));
    }
    let scale = norm_factor(f.norm, r.lengths.iter().product(), f.form.inverse());
    let inverse = f.form.inverse();
    let mut x = resized(a, &r.work);
    let values: Vec<Complex64> = if f.form.real_output() {
        let (rest, last) = r.axes.split_at(r.axes.len() - 1);
        for &ax in rest {
            dft_axis(&mut x, &r.work, ax, true);
        }
        let mut full = hermitian(&x, &r.work, last[0], r.out[last[0]]);
        dft_axis(&mut full, &r.out, last[0], true);
        full
    } else {
        for &ax in &r.axes {
            dft_axis(&mut x, &r.work, ax, inverse);
        }
        if f.form.real_input() {
            keep_half(&x, &r.work, &r.out)
        } else {
            x
        }
    };
    let mut data = HostData::with_capacity(out_dtype, values.len());
    for v in values {
        let v = v * scale;
        data.push(if f.form.real_output() {
            from_real(v.re, out_dtype)
        } else {
            from_complex(v, out_dtype)
        });
    }
    Ok(HostArray::new(r.out, data))
}

/// The full spectra (length `n` along `axis`) whose halves are the lanes of `x` (shape
/// `half_dims`): `X[k] = h[k]`, `X[n − k] = conj(h[k])`, bins 0 and `n/2` (even `n`) real.
fn hermitian(x: &[Complex64], half_dims: &[usize], axis: usize, n: usize) -> Vec<Complex64> {
    let mut dims = half_dims.to_vec();
    dims[axis] = n;
    let (hst, m) = (strides(half_dims), half_dims[axis]);
    (0..numel(&dims))
        .map(|i| {
            let mut idx = unravel(i, &dims);
            let k = idx[axis];
            let (src, conj) = if k < m { (k, false) } else { (n - k, true) };
            idx[axis] = src;
            let pos: usize = idx.iter().zip(&hst).map(|(j, s)| j * s).sum();
            let mut v = x[pos];
            if src == 0 || (n % 2 == 0 && src == n / 2) {
                v.im = 0.0;
            }
            if conj { v.conj() } else { v }
        })
        .collect()
}

/// The elements of spectra of shape `dims` inside the (smaller) shape `out`: the first
/// `n/2 + 1` bins of the halved axis.
fn keep_half(x: &[Complex64], dims: &[usize], out: &[usize]) -> Vec<Complex64> {
    let st = strides(dims);
    (0..numel(out))
        .map(|i| {
            let idx = unravel(i, out);
            x[idx.iter().zip(&st).map(|(j, s)| j * s).sum::<usize>()]
        })
        .collect()
}

/// The tolerance of the FFT call `f` on `a` (see the crate documentation): units and, per
/// output element, Σ|x| over the input its transform reads, times the norm's factor (twice
/// that for `irfft`, whose half spectrum stands for both halves). `None` for calls that
/// fail.
pub fn fft_tolerance(f: &FftCase, a: &HostArray) -> Option<(f64, Vec<f64>)> {
    let r = resolve(f, a).ok()?;
    let n: usize = r.lengths.iter().product();
    let units = 4.0 * ((n.max(1) as f64).log2() + 2.0);
    let factor =
        norm_factor(f.norm, n, f.form.inverse()) * if f.form.real_output() { 2.0 } else { 1.0 };
    // Σ|x| per combination of the axes that are not transformed (the same in input and
    // output), as a linear index over those axes.
    let kept: Vec<usize> = (0..r.work.len()).filter(|d| !r.axes.contains(d)).collect();
    let key = |idx: &[usize], dims: &[usize]| -> usize {
        kept.iter().fold(0, |acc, &d| acc * dims[d] + idx[d])
    };
    let lanes = kept.iter().map(|&d| r.work[d]).product::<usize>();
    let mut sums = vec![0.0f64; lanes.max(1)];
    for (i, v) in resized(a, &r.work).into_iter().enumerate() {
        let idx = unravel(i, &r.work);
        sums[key(&idx, &r.work)] += magnitude(Scalar::C64(v));
    }
    let scale = (0..numel(&r.out))
        .map(|i| sums[key(&unravel(i, &r.out), &r.out)] * factor)
        .collect();
    Some((units, scale))
}
