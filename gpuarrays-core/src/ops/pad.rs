//! Repeating and padding: `tile`, `repeat` (a broadcast view copied once, then reshaped)
//! and `pad` with NumPy's `constant`, `edge` and `wrap` modes (the input copied into the
//! middle of the result, then each axis's margins copied from views of the result); the
//! `reflect` and `symmetric` modes gather through a host-made index map
//! (`ops/pad_mirror.rs`), and `repeat` with one count per element is in
//! `ops/repeat_counts.rs`.

use std::ops::Range;

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::copy::copy_raw;
use crate::ops::pad_mirror::pad_mirrored;
use crate::scalar::Scalar;
use crate::shape;

/// How [`RawArray::pad`] fills the margins (NumPy `np.pad` modes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pad<T> {
    /// Every margin element is this value.
    Constant(T),
    /// The nearest edge element (NumPy `edge`).
    Edge,
    /// The array repeated periodically (NumPy `wrap`): margin element `i` along an axis of
    /// length `n` is element `(i - before) mod n`.
    Wrap,
    /// The array mirrored about its edge elements, which are not repeated (NumPy `reflect`
    /// with the default `reflect_type='even'`): along an axis of length `n > 1`, margin
    /// element `i` is element `m` or `p − m`, whichever is below `n`, where `p = 2(n − 1)`
    /// and `m = (i − before) mod p` (so margins wider than the axis keep reflecting, as
    /// NumPy's do); an axis of length 1 repeats its one element.
    Reflect,
    /// The array mirrored with its edge elements repeated (NumPy `symmetric`, default
    /// `reflect_type='even'`): margin element `i` is element `m` or `p − 1 − m`, whichever
    /// is below `n`, where `p = 2n` and `m = (i − before) mod p`.
    Symmetric,
}

/// Bytes of a constant-padded result from which its margins are filled one slab per side
/// and axis instead of one fill of the whole: below, the whole fill costs less than the
/// extra launches (4 MiB at ~3 TB/s is ~1.4 µs, about one launch).
const MARGIN_FILL_BYTES: usize = 4 << 20;

fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

fn product(op: &str, a: usize, b: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| {
        Error::invalid_arg(op, "the result would have more than usize::MAX elements")
    })
}

impl<B: Backend> RawArray<B> {
    /// The array repeated `reps[k]` times along each axis (NumPy `tile`): a shorter `reps`
    /// is padded with leading 1s, a longer one gives the array leading axes of length 1.
    pub fn tile(&self, reps: &[usize]) -> Result<RawArray<B>> {
        let n = self.ndim().max(reps.len());
        shape::check_rank(n)?;
        let mut a = self.clone();
        while a.ndim() < n {
            a = a.expand_dims(0)?;
        }
        let reps: Vec<usize> = std::iter::repeat_n(1, n - reps.len())
            .chain(reps.iter().copied())
            .collect();
        // [r0, d0, r1, d1, ..] with stride 0 along each repetition (axes repeated once left
        // out), copied once.
        let (mut dims, mut strides, mut out) = (Vec::new(), Vec::new(), Vec::new());
        for (k, &r) in reps.iter().enumerate() {
            if r != 1 {
                dims.push(r);
                strides.push(0);
            }
            dims.push(a.dims[k]);
            strides.push(a.strides[k]);
            out.push(product("tile", r, a.dims[k])?);
        }
        shape::checked_numel(&out)?;
        shape::check_rank(dims.len())?;
        let spread = a.derive_strided(a.dtype, dims, strides, a.offset);
        spread.copy()?.reshape(&signed(&out))
    }

    /// Each element repeated `repeats` times along `axis` (NumPy `repeat` with one count);
    /// `None` repeats the elements of the flattened array.
    pub fn repeat(&self, repeats: usize, axis: Option<usize>) -> Result<RawArray<B>> {
        let (a, axis) = match axis {
            Some(ax) => (self.clone(), ax),
            None => (self.contiguous()?.reshape(&[-1])?, 0),
        };
        shape::check_axis("repeat", axis, a.ndim())?;
        shape::check_rank(a.ndim() + 1)?;
        let (mut dims, mut strides) = (a.dims.clone(), a.strides.clone());
        dims.insert(axis + 1, repeats);
        strides.insert(axis + 1, 0);
        let mut out = a.dims.clone();
        out[axis] = product("repeat", out[axis], repeats)?;
        let spread = a.derive_strided(a.dtype, dims, strides, a.offset);
        spread.copy()?.reshape(&signed(&out))
    }

    /// The array with `widths[k] = (before, after)` elements added along each axis `k`
    /// (NumPy `pad`; one pair per axis), filled as `mode` says. A constant must have the
    /// array's type; every mode but `Constant` needs a non-empty axis wherever it adds
    /// elements (an `InvalidArgument` error otherwise, as NumPy raises `ValueError`).
    pub fn pad(&self, widths: &[(usize, usize)], mode: Pad<Scalar>) -> Result<RawArray<B>> {
        let op = "pad";
        if widths.len() != self.ndim() {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: format!(
                    "one (before, after) pair per dimension ({} given)",
                    widths.len()
                ),
                got: self.ndim(),
            });
        }
        let mut dims = Vec::with_capacity(self.ndim());
        for (&d, &(b, e)) in self.dims.iter().zip(widths) {
            let n = d.checked_add(b).and_then(|x| x.checked_add(e));
            dims.push(n.ok_or_else(|| {
                Error::invalid_arg(op, "a padded axis would be longer than usize::MAX")
            })?);
        }
        shape::checked_numel(&dims)?;
        if let Pad::Constant(v) = mode {
            if v.dtype() != self.dtype {
                return Err(Error::DTypeMismatch {
                    op: op.into(),
                    lhs: self.dtype,
                    rhs: v.dtype(),
                });
            }
        }
        let adds = |k: usize| widths[k].0 + widths[k].1 > 0;
        if !matches!(mode, Pad::Constant(_)) {
            if let Some(k) = (0..self.ndim()).find(|&k| adds(k) && self.dims[k] == 0) {
                return Err(Error::invalid_arg(
                    op,
                    format!(
                        "axis {k} is empty, so there is no edge to extend it with; use a constant"
                    ),
                ));
            }
        }
        if matches!(mode, Pad::Reflect | Pad::Symmetric) {
            return pad_mirrored(self, widths, mode == Pad::Symmetric);
        }
        let out = RawArray::alloc(&self.backend, self.dtype, &dims)?;
        let whole = |k: usize, r: Range<usize>| -> Result<RawArray<B>> {
            let mut ranges: Vec<Range<usize>> = dims.iter().map(|&d| 0..d).collect();
            ranges[k] = r;
            out.view(&ranges)
        };
        if let Pad::Constant(v) = mode {
            // A large result gets its margins filled (every element outside the middle is
            // in a margin of some axis), not the whole of it: a whole fill writes the middle
            // once more, a third of the traffic of a pad by a few elements.
            if out.len() * self.dtype.size() >= MARGIN_FILL_BYTES {
                for k in (0..self.ndim()).filter(|&k| adds(k)) {
                    let (b, n) = (widths[k].0, self.dims[k]);
                    whole(k, 0..b)?.fill(v)?;
                    whole(k, b + n..dims[k])?.fill(v)?;
                }
            } else {
                out.fill(v)?;
            }
        }
        let middle: Vec<Range<usize>> = (0..self.ndim())
            .map(|k| widths[k].0..widths[k].0 + self.dims[k])
            .collect();
        copy_raw(self, &out.view(&middle)?)?;
        if out.is_empty() || matches!(mode, Pad::Constant(_)) {
            return Ok(out);
        }
        // Axis by axis, over the whole extent of the other axes: a margin of axis k is
        // copied from inside axis k; later axes copy the margins of earlier ones along.
        for k in (0..self.ndim()).filter(|&k| adds(k)) {
            let (b, n, total) = (widths[k].0, self.dims[k], dims[k]);
            match mode {
                Pad::Edge => {
                    if b > 0 {
                        let edge = whole(k, b..b + 1)?;
                        let dst = whole(k, 0..b)?;
                        copy_raw(&edge.broadcast_to(&dst.dims)?, &dst)?;
                    }
                    if b + n < total {
                        let edge = whole(k, b + n - 1..b + n)?;
                        let dst = whole(k, b + n..total)?;
                        copy_raw(&edge.broadcast_to(&dst.dims)?, &dst)?;
                    }
                }
                Pad::Wrap => {
                    // Whole periods of the inside, walking outwards from it.
                    let mut end = b;
                    while end > 0 {
                        let len = n.min(end);
                        copy_raw(&whole(k, b + n - len..b + n)?, &whole(k, end - len..end)?)?;
                        end -= len;
                    }
                    let mut start = b + n;
                    while start < total {
                        let len = n.min(total - start);
                        copy_raw(&whole(k, b..b + len)?, &whole(k, start..start + len)?)?;
                        start += len;
                    }
                }
                Pad::Constant(_) | Pad::Reflect | Pad::Symmetric => {}
            }
        }
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The array repeated along each axis (NumPy `tile`), a new array.
    pub fn tile(&self, reps: &[usize]) -> Result<Self> {
        Ok(Array::from_raw(self.raw.tile(reps)?))
    }

    /// Each element repeated along `axis` (or of the flattened array), NumPy `repeat`.
    pub fn repeat(&self, repeats: usize, axis: Option<usize>) -> Result<Self> {
        Ok(Array::from_raw(self.raw.repeat(repeats, axis)?))
    }

    /// The array with margins `widths[k] = (before, after)` along each axis (NumPy `pad`).
    pub fn pad(&self, widths: &[(usize, usize)], mode: Pad<T>) -> Result<Self> {
        let mode = match mode {
            Pad::Constant(v) => Pad::Constant(v.to_scalar()),
            Pad::Edge => Pad::Edge,
            Pad::Wrap => Pad::Wrap,
            Pad::Reflect => Pad::Reflect,
            Pad::Symmetric => Pad::Symmetric,
        };
        Ok(Array::from_raw(self.raw.pad(widths, mode)?))
    }
}
