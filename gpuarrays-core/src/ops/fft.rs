//! Fast Fourier transforms with NumPy's semantics: `fft`, `ifft`, `rfft`, `irfft` along one
//! axis, `fft2`/`ifft2`, and `fftn`/`ifftn`/`rfftn`/`irfftn` over chosen axes.
//!
//! # Semantics (those of `numpy.fft`, NumPy ≥ 2.0)
//!
//! - **Transform.** `fft`: `X[k] = Σ_j x[j]·exp(−2πi·jk/n)`; `ifft` has `+2πi` and the
//!   factor `1/n`; the n-dimensional forms apply the 1-D transform along each chosen axis.
//! - **Normalisation** ([`FftNorm`]): `Backward` (the default: forward unscaled, inverse
//!   `1/n`), `Ortho` (`1/√n` both ways), `Forward` (forward `1/n`, inverse unscaled), where
//!   `n` is the product of the transform lengths (for `irfftn`, of the *output* lengths).
//! - **Lengths** (`n` of the 1-D forms, `s` of the others): each transformed axis of the input
//!   is cropped or zero-padded (at the end) to its length before the transform. Without
//!   them, the input's own lengths, except for `irfft`/`irfftn`, whose last output length
//!   defaults to `2·(m − 1)` for an input of `m` along that axis. A length of 0 is an error
//!   (`InvalidArgument`), as in NumPy.
//! - **Axes.** `fft2` defaults to the last two axes; `fftn` to the last `s.len()` axes when
//!   `s` is given, else all. `rfftn`/`irfftn` treat the *last listed* axis as the real one.
//!   An axis out of range is `AxisOutOfRange`; a repeated axis, or `s` and `axes` of
//!   different lengths, `InvalidArgument` (NumPy allows repeats for complex transforms;
//!   gpuarrays does not).
//! - **Types.** f32 and c32 transform in single precision, f64 and c64 in double. Real input
//!   to `fft`/`ifft`/`fftn`/`irfft` is promoted to complex of its precision (f32 → c32: NumPy
//!   2.0 keeps single precision too). `rfft`/`rfftn` need real input (complex:
//!   `InvalidDType`); integers and bool are `InvalidDType` everywhere (cast first; NumPy
//!   would compute in f64).
//! - **`irfft` of a non-Hermitian spectrum.** As NumPy: the inverse transforms of the
//!   non-real axes are complex, then each row along the real axis is treated as a half
//!   spectrum whose zero-frequency bin (and Nyquist bin for an even length) has its
//!   imaginary part ignored.
//! - **Empty batches.** An input with 0 elements along an axis that is not transformed gives
//!   an empty result of the right shape; nothing is dispatched.
//!
//! # Cost, on top of the transforms
//!
//! Lowering is in `fft_lowering.rs`. An FFT over the last axes of a complex array is one
//! backend call reading the input in place. Extra passes over memory are made only for:
//! real input to a complex transform (one casting copy), `n`/`s` that differ from the input
//! (one copy, plus a fill when padding), a scale other than 1 (one in-place pass), and
//! `irfft`/`irfftn` (always one copy: C2R libraries overwrite their input). Axes that are not
//! one strided batch (neither the first nor the last of the array) run as `min(outer,
//! inner)` backend calls instead of a transposing copy.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::Result;
use crate::ops::fft_lowering::{Axes, Transform, transform};
pub use crate::ops::fft_norm::FftNorm;
use crate::{Complex32, Complex64};

fn one(n: Option<usize>) -> Option<[usize; 1]> {
    n.map(|n| [n])
}

impl<B: Backend> RawArray<B> {
    /// The 1-D discrete Fourier transform along `axis`, cropped or zero-padded to `n`.
    pub fn fft(&self, n: Option<usize>, axis: usize, norm: FftNorm) -> Result<RawArray<B>> {
        let s = one(n);
        transform(
            self,
            Transform::Fft,
            s.as_ref().map(|s| &s[..]),
            Axes::Given(&[axis]),
            norm,
        )
    }

    /// The 1-D inverse transform along `axis` (see [`fft`](Self::fft)).
    pub fn ifft(&self, n: Option<usize>, axis: usize, norm: FftNorm) -> Result<RawArray<B>> {
        let s = one(n);
        transform(
            self,
            Transform::Ifft,
            s.as_ref().map(|s| &s[..]),
            Axes::Given(&[axis]),
            norm,
        )
    }

    /// The 1-D transform of real input: `n/2 + 1` complex values along `axis`.
    pub fn rfft(&self, n: Option<usize>, axis: usize, norm: FftNorm) -> Result<RawArray<B>> {
        let s = one(n);
        transform(
            self,
            Transform::Rfft,
            s.as_ref().map(|s| &s[..]),
            Axes::Given(&[axis]),
            norm,
        )
    }

    /// The inverse of [`rfft`](Self::rfft): `n` real values along `axis` (default
    /// `2·(m − 1)`).
    pub fn irfft(&self, n: Option<usize>, axis: usize, norm: FftNorm) -> Result<RawArray<B>> {
        let s = one(n);
        transform(
            self,
            Transform::Irfft,
            s.as_ref().map(|s| &s[..]),
            Axes::Given(&[axis]),
            norm,
        )
    }

    /// The 2-D transform, over the last two axes unless `axes` says otherwise.
    pub fn fft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Fft, s, Axes::LastTwo(axes), norm)
    }

    /// The 2-D inverse transform (see [`fft2`](Self::fft2)).
    pub fn ifft2(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Ifft, s, Axes::LastTwo(axes), norm)
    }

    /// The n-dimensional transform over `axes` (default: the last `s.len()` axes, or all).
    pub fn fftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Fft, s, Axes::AllOr(axes), norm)
    }

    /// The n-dimensional inverse transform (see [`fftn`](Self::fftn)).
    pub fn ifftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Ifft, s, Axes::AllOr(axes), norm)
    }

    /// The n-dimensional transform of real input; the last listed axis is halved.
    pub fn rfftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Rfft, s, Axes::AllOr(axes), norm)
    }

    /// The inverse of [`rfftn`](Self::rfftn); `s` are the output lengths.
    pub fn irfftn(
        &self,
        s: Option<&[usize]>,
        axes: Option<&[usize]>,
        norm: FftNorm,
    ) -> Result<RawArray<B>> {
        transform(self, Transform::Irfft, s, Axes::AllOr(axes), norm)
    }
}

/// The element types FFTs take, with the types they produce: f32 and c32 transform in
/// single precision (`Complex = Complex32`, `Real = f32`), f64 and c64 in double.
pub trait FftElement: Element {
    /// The spectrum's element type.
    type Complex: Element;
    /// The real element type of this precision.
    type Real: Element;
}

impl FftElement for f32 {
    type Complex = Complex32;
    type Real = f32;
}
impl FftElement for f64 {
    type Complex = Complex64;
    type Real = f64;
}
impl FftElement for Complex32 {
    type Complex = Complex32;
    type Real = f32;
}
impl FftElement for Complex64 {
    type Complex = Complex64;
    type Real = f64;
}

macro_rules! typed {
    ($(#[$doc:meta])* $name:ident, one, $out:ident) => {
        $(#[$doc])*
        pub fn $name(&self, n: Option<usize>, axis: usize, norm: FftNorm) -> Result<Array<T::$out, B>> {
            self.raw.$name(n, axis, norm)?.into_typed()
        }
    };
    ($(#[$doc:meta])* $name:ident, many, $out:ident) => {
        $(#[$doc])*
        pub fn $name(
            &self,
            s: Option<&[usize]>,
            axes: Option<&[usize]>,
            norm: FftNorm,
        ) -> Result<Array<T::$out, B>> {
            self.raw.$name(s, axes, norm)?.into_typed()
        }
    };
}

impl<T: FftElement, B: Backend> Array<T, B> {
    typed!(
        /// See [`RawArray::fft`].
        fft, one, Complex
    );
    typed!(
        /// See [`RawArray::ifft`].
        ifft, one, Complex
    );
    typed!(
        /// See [`RawArray::rfft`] (complex `T` is `InvalidDType`).
        rfft, one, Complex
    );
    typed!(
        /// See [`RawArray::irfft`].
        irfft, one, Real
    );
    typed!(
        /// See [`RawArray::fft2`].
        fft2, many, Complex
    );
    typed!(
        /// See [`RawArray::ifft2`].
        ifft2, many, Complex
    );
    typed!(
        /// See [`RawArray::fftn`].
        fftn, many, Complex
    );
    typed!(
        /// See [`RawArray::ifftn`].
        ifftn, many, Complex
    );
    typed!(
        /// See [`RawArray::rfftn`] (complex `T` is `InvalidDType`).
        rfftn, many, Complex
    );
    typed!(
        /// See [`RawArray::irfftn`].
        irfftn, many, Real
    );
}
