//! NumPy's FFT helpers: the sample frequencies of a transform (`fftfreq`, `rfftfreq`) and
//! moving the zero frequency to the centre (`fftshift`) and back (`ifftshift`).
//!
//! - `fftfreq(n, d)`: `[0, 1, ..., ⌈n/2⌉ − 1, −⌊n/2⌋, ..., −1] / (d·n)`;
//! - `rfftfreq(n, d)`: `[0, 1, ..., ⌊n/2⌋] / (d·n)`;
//!   both computed in f64 (`i · (1/(d·n))`, as NumPy does) and rounded once to `T`.
//! - `fftshift(axes)`: rolls each axis (default: all) by `⌊len/2⌋`; `ifftshift` by
//!   `−⌊len/2⌋`. Any element type; the result is a new array (one box copy per combination
//!   of the two halves of the shifted axes).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::region::copy_box;
use crate::scalar::Scalar;
use crate::shape;

/// The frequencies as f64, before rounding to the element type.
fn frequencies(op: &str, n: usize, d: f64, half: bool) -> Result<Vec<f64>> {
    if n == 0 || !(d.is_finite() && d != 0.0) {
        return Err(Error::invalid_arg(
            op,
            format!("needs n ≥ 1 and a finite, non-zero spacing d; got n = {n}, d = {d}"),
        ));
    }
    let val = 1.0 / (n as f64 * d);
    let ints: Vec<i64> = if half {
        (0..=(n / 2) as i64).collect()
    } else {
        let positive = (n - 1) / 2 + 1;
        (0..positive as i64).chain(-((n / 2) as i64)..0).collect()
    };
    Ok(ints.into_iter().map(|i| i as f64 * val).collect())
}

fn upload<T: Element, B: Backend>(op: &str, backend: &B, values: Vec<f64>) -> Result<Array<T, B>> {
    if !T::DTYPE.is_float() {
        return Err(Error::invalid_dtype(
            op,
            T::DTYPE,
            "frequencies are f32 or f64",
        ));
    }
    let data = values
        .into_iter()
        .map(|v| T::from_scalar(Scalar::F64(v).cast(T::DTYPE)))
        .collect::<Option<Vec<T>>>()
        .ok_or_else(|| Error::invalid_dtype(op, T::DTYPE, "frequencies are f32 or f64"))?;
    Array::from_slice(backend, &[data.len()], &data)
}

impl<T: Element, B: Backend> Array<T, B> {
    /// NumPy's `fftfreq(n, d)`: the frequency of each bin of an `n`-point transform with
    /// sample spacing `d` (f32 or f64).
    pub fn fftfreq(backend: &B, n: usize, d: f64) -> Result<Self> {
        upload("fftfreq", backend, frequencies("fftfreq", n, d, false)?)
    }

    /// NumPy's `rfftfreq(n, d)`: the frequencies of the `n/2 + 1` bins of an `rfft`.
    pub fn rfftfreq(backend: &B, n: usize, d: f64) -> Result<Self> {
        upload("rfftfreq", backend, frequencies("rfftfreq", n, d, true)?)
    }

    /// NumPy's `fftshift`: the zero frequency moved to the centre of each axis in `axes`
    /// (default: all).
    pub fn fftshift(&self, axes: Option<&[usize]>) -> Result<Self> {
        Ok(Array::from_raw(
            self.raw.roll_half("fftshift", axes, false)?,
        ))
    }

    /// NumPy's `ifftshift`: the inverse of [`fftshift`](Self::fftshift).
    pub fn ifftshift(&self, axes: Option<&[usize]>) -> Result<Self> {
        Ok(Array::from_raw(self.raw.roll_half(
            "ifftshift",
            axes,
            true,
        )?))
    }
}

impl<B: Backend> RawArray<B> {
    /// [`Array::fftshift`] of an untyped array.
    pub fn fftshift(&self, axes: Option<&[usize]>) -> Result<Self> {
        self.roll_half("fftshift", axes, false)
    }

    /// [`Array::ifftshift`] of an untyped array.
    pub fn ifftshift(&self, axes: Option<&[usize]>) -> Result<Self> {
        self.roll_half("ifftshift", axes, true)
    }

    /// Rolls each axis in `axes` by `len/2` (`inverse`: by `−len/2`) into a new array.
    fn roll_half(&self, op: &str, axes: Option<&[usize]>, inverse: bool) -> Result<Self> {
        let ndim = self.ndim();
        let axes: Vec<usize> = axes.map_or_else(|| (0..ndim).collect(), <[usize]>::to_vec);
        let mut shift = vec![0usize; ndim];
        for &ax in &axes {
            shape::check_axis(op, ax, ndim)?;
            let n = self.dims[ax];
            // A roll by k: out[(j + k) mod n] = in[j].
            shift[ax] = (if inverse { n - n / 2 } else { n / 2 }) % n.max(1);
        }
        let out = RawArray::alloc(&self.backend, self.dtype, &self.dims)?;
        if self.is_empty() {
            return Ok(out);
        }
        // Each axis splits into the part that moves forward and the part that wraps around.
        for combo in 0..(1usize << ndim) {
            let (mut src, mut dst, mut extent) = (vec![0; ndim], vec![0; ndim], vec![0; ndim]);
            let mut valid = true;
            for ax in 0..ndim {
                let (n, k) = (self.dims[ax], shift[ax]);
                let wraps = combo >> ax & 1 == 1;
                if k == 0 && wraps {
                    valid = false;
                    break;
                }
                (src[ax], dst[ax], extent[ax]) = if wraps { (n - k, 0, k) } else { (0, k, n - k) };
            }
            if valid {
                copy_box(self, &src, &out, &dst, &extent)?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequencies_follow_numpy() {
        let f = frequencies("t", 5, 0.5, false).unwrap();
        assert_eq!(f, vec![0.0, 0.4, 0.8, -0.8, -0.4]);
        let f = frequencies("t", 4, 1.0, false).unwrap();
        assert_eq!(f, vec![0.0, 0.25, -0.5, -0.25]);
        assert_eq!(
            frequencies("t", 4, 1.0, true).unwrap(),
            vec![0.0, 0.25, 0.5]
        );
        assert!(frequencies("t", 0, 1.0, false).is_err());
        assert!(frequencies("t", 3, 0.0, true).is_err());
    }
}
