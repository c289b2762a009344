//! NumPy's FFT helpers: the sample frequencies of a transform (`fftfreq`, `rfftfreq`) and
//! moving the zero frequency to the centre (`fftshift`) and back (`ifftshift`).
//!
//! - `fftfreq(n, d)`: `[0, 1, ..., ⌈n/2⌉ − 1, −⌊n/2⌋, ..., −1] / (d·n)`;
//! - `rfftfreq(n, d)`: `[0, 1, ..., ⌊n/2⌋] / (d·n)`;
//!   both computed in f64 (`i · (1/(d·n))`, as NumPy does) and rounded once to `T`.
//! - `fftshift(axes)`: rolls each axis (default: all) by `⌊len/2⌋`; `ifftshift` by
//!   `−⌊len/2⌋`; an axis listed twice is rolled twice, as NumPy does. Any element type; the result is a new array (one box copy per combination
//!   of the two halves of the shifted axes).

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::{self, Element};
use crate::error::{Error, Result};
use crate::ops::region::copy_box;
use crate::scalar::Scalar;
use crate::shape;

/// Frequencies are computed on the host and written in pieces of this many elements, so a
/// transform of any length needs no host buffer of its size.
const PIECE: usize = 1 << 16;

/// The bins of an `n`-point transform with spacing `d`: how many (`len`), how many count up
/// from zero before the negative ones start (`positive`), and `1/(d·n)`.
struct Bins {
    n: usize,
    len: usize,
    positive: usize,
    val: f64,
}

impl Bins {
    fn new(op: &str, n: usize, d: f64, half: bool) -> Result<Bins> {
        if n == 0 || !(d.is_finite() && d != 0.0) {
            return Err(Error::invalid_arg(
                op,
                format!("needs n ≥ 1 and a finite, non-zero spacing d; got n = {n}, d = {d}"),
            ));
        }
        let (len, positive) = if half {
            (n / 2 + 1, n / 2 + 1)
        } else {
            (n, (n - 1) / 2 + 1)
        };
        Ok(Bins {
            n,
            len,
            positive,
            val: 1.0 / (n as f64 * d),
        })
    }

    /// Bin `i`'s frequency in f64: `k · (1/(d·n))` with `k = i` or `i − n`, as NumPy.
    fn frequency(&self, i: usize) -> f64 {
        let k = if i < self.positive {
            i as f64
        } else {
            -((self.n - i) as f64)
        };
        k * self.val
    }
}

/// The frequencies as a new array of `T` (f32 or f64). The type is checked first and the
/// device array allocated before anything is computed, so a length that cannot be held
/// is an error (out of memory, or a byte count past `usize`), never an abort of the host.
fn frequencies<T: Element, B: Backend>(
    op: &str,
    backend: &B,
    n: usize,
    d: f64,
    half: bool,
) -> Result<Array<T, B>> {
    if !T::DTYPE.is_float() {
        return Err(Error::invalid_dtype(
            op,
            T::DTYPE,
            "frequencies are f32 or f64",
        ));
    }
    let bins = Bins::new(op, n, d, half)?;
    let out = RawArray::alloc(backend, T::DTYPE, &[bins.len])?;
    let size = T::DTYPE.size();
    {
        let buf = out.buffer()?;
        let mut piece = Vec::with_capacity(PIECE.min(bins.len));
        for start in (0..bins.len).step_by(PIECE) {
            piece.clear();
            for i in start..(start + PIECE).min(bins.len) {
                let v = T::from_scalar(Scalar::F64(bins.frequency(i)).cast(T::DTYPE)).ok_or_else(
                    || Error::invalid_dtype(op, T::DTYPE, "frequencies are f32 or f64"),
                )?;
                piece.push(v);
            }
            crate::graph::dispatch::write(backend, &buf, start * size, element::as_bytes(&piece))?;
        }
    }
    Ok(Array::from_raw(out))
}

impl<T: Element, B: Backend> Array<T, B> {
    /// NumPy's `fftfreq(n, d)`: the frequency of each bin of an `n`-point transform with
    /// sample spacing `d` (f32 or f64).
    pub fn fftfreq(backend: &B, n: usize, d: f64) -> Result<Self> {
        frequencies("fftfreq", backend, n, d, false)
    }

    /// NumPy's `rfftfreq(n, d)`: the frequencies of the `n/2 + 1` bins of an `rfft`.
    pub fn rfftfreq(backend: &B, n: usize, d: f64) -> Result<Self> {
        frequencies("rfftfreq", backend, n, d, true)
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
            // A roll by k: out[(j + k) mod n] = in[j]. An axis listed twice rolls twice
            // (NumPy's `roll` sums the shifts of a repeated axis).
            let k = (if inverse { n - n / 2 } else { n / 2 }) % n.max(1);
            shift[ax] = (shift[ax] + k) % n.max(1);
        }
        let out = RawArray::alloc(&self.backend, self.dtype, &self.dims)?;
        if self.is_empty() {
            self.ensure_alive()?;
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
        let all = |n: usize, d: f64, half: bool| {
            let b = Bins::new("t", n, d, half).unwrap();
            (0..b.len).map(|i| b.frequency(i)).collect::<Vec<f64>>()
        };
        assert_eq!(all(5, 0.5, false), vec![0.0, 0.4, 0.8, -0.8, -0.4]);
        assert_eq!(all(4, 1.0, false), vec![0.0, 0.25, -0.5, -0.25]);
        assert_eq!(all(4, 1.0, true), vec![0.0, 0.25, 0.5]);
        assert!(Bins::new("t", 0, 1.0, false).is_err());
        assert!(Bins::new("t", 3, 0.0, true).is_err());
        // The largest lengths are described without overflow (the array is another matter).
        let b = Bins::new("t", usize::MAX, 1.0, false).unwrap();
        assert_eq!(b.len, usize::MAX);
        assert!(b.frequency(usize::MAX - 1) < 0.0);
        assert_eq!(
            Bins::new("t", usize::MAX, 1.0, true).unwrap().len,
            usize::MAX / 2 + 1
        );
    }
}
