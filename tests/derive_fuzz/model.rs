//! The independent model of derived arrays and broadcasting.
//!
//! An array is modelled as the list of byte positions (in its buffer) of its elements, in
//! row-major order, plus its element type, dimensions and first byte. Every derive operation
//! is computed from the documented rules by plain index arithmetic over that list, with
//! 128-bit counts so that nothing here can overflow; none of gpuarrays' shape code is used.
//! The rules modelled (from `docs/guide.md`, `docs/architecture.md` and the error docs):
//!
//! - a shape is valid when the product of its non-zero dimensions fits in `usize`, and it has
//!   at most [`MAX_DIMS`] dimensions (NumPy's rule: zero-size arrays may have huge other
//!   dimensions, but not ones whose product overflows);
//! - `view(ranges)`: one range per dimension, each inside its dimension; the view gathers
//!   the selected elements (any layout: arrays are strided); an empty view starts where its
//!   parent starts;
//! - `reshape(dims)`: at most one `-1`, no other negative value, the element count unchanged
//!   (`-1` inferred when the other dimensions' product is non-zero and divides it); the
//!   elements' byte positions, in row-major order of the new shape, must step by one
//!   constant amount along each new axis (else `NonContiguousView`: no strides describe it);
//! - `reinterpret(to)`: to any type (any byte is a bool: nonzero is true); the first byte a multiple of the new
//!   element size; the last dimension's bytes a multiple of it (a 0-d array only between
//!   types of one size); the result shape valid. An array whose elements are not one run
//!   keeps its positions between types of one size; between sizes it needs its last axis
//!   to be one run (or of length 1) and every other axis's step to be a multiple of the new
//!   size, else `NonContiguousView`;
//! - `slice(range)`: `view` of the flattened array;
//! - broadcasting: shapes aligned at the right, each pair of dimensions equal or one of them
//!   1; `broadcast_to(target)` additionally needs the broadcast shape to be `target`.

use std::ops::Range;

use gpuarrays::DType;

/// The most dimensions an array may have (documented limit).
pub const MAX_DIMS: usize = 8;

/// The error the model predicts, by variant name (as `Error::kind()` names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    RankMismatch,
    RankTooLarge,
    ViewOutOfBounds,
    NonContiguousView,
    Reshape,
    Reinterpret,
    ShapeMismatch,
    InvalidArgument,
}

impl Expect {
    pub fn name(self) -> &'static str {
        match self {
            Expect::RankMismatch => "RankMismatch",
            Expect::RankTooLarge => "RankTooLarge",
            Expect::ViewOutOfBounds => "ViewOutOfBounds",
            Expect::NonContiguousView => "NonContiguousView",
            Expect::Reshape => "Reshape",
            Expect::Reinterpret => "Reinterpret",
            Expect::ShapeMismatch => "ShapeMismatch",
            Expect::InvalidArgument => "InvalidArgument",
        }
    }
}

/// Bytes of one element (written out here, not taken from `DType::size`).
pub fn size_of(d: DType) -> usize {
    match d {
        DType::Bool | DType::I8 | DType::U8 => 1,
        DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
        DType::I32 | DType::U32 | DType::F32 => 4,
        DType::I64 | DType::U64 | DType::F64 | DType::C32 => 8,
        DType::C64 => 16,
    }
}

/// Every element type the model knows.
pub const DTYPES: [DType; 15] = [
    DType::Bool,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::I32,
    DType::U32,
    DType::I64,
    DType::U64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
];

/// The element count of `dims` (exact up to saturation at `u128::MAX`).
pub fn count(dims: &[usize]) -> u128 {
    dims.iter()
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128))
}

/// Whether `dims` is a valid shape: rank within the limit checked separately, and the
/// product of the non-zero dimensions fits in `usize`.
pub fn fits(dims: &[usize]) -> bool {
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
    nonzero <= usize::MAX as u128
}

/// Row-major multi-indices of `dims` (only called for shapes with few elements).
fn multi_indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n = count(dims) as usize;
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; dims.len()];
    for _ in 0..n {
        out.push(idx.clone());
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// The flat row-major position of `idx` in `dims`.
fn flat(idx: &[usize], dims: &[usize]) -> usize {
    idx.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// A modelled array.
#[derive(Clone, Debug)]
pub struct MArr {
    pub dtype: DType,
    pub dims: Vec<usize>,
    /// Byte position of the first element (of where it would be, for an empty array).
    pub start: usize,
    /// Byte position of each element, row-major.
    pub elems: Vec<usize>,
    /// Whether the buffer was released by `free_all_shared`.
    pub freed: bool,
}

impl MArr {
    /// A freshly uploaded array, or the error its shape gives.
    pub fn base(dtype: DType, dims: &[usize]) -> Result<MArr, Expect> {
        // Upload checks the element count first, then the rank.
        if !fits(dims) {
            return Err(Expect::InvalidArgument);
        }
        if dims.len() > MAX_DIMS {
            return Err(Expect::RankTooLarge);
        }
        let size = size_of(dtype);
        let n = count(dims) as usize;
        Ok(MArr {
            dtype,
            dims: dims.to_vec(),
            start: 0,
            elems: (0..n).map(|k| k * size).collect(),
            freed: false,
        })
    }

    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// The element offset gpuarrays reports (`RawArray::offset`).
    pub fn offset(&self) -> usize {
        self.start / size_of(self.dtype)
    }

    /// The array's bytes, gathered from the host copy of its buffer.
    pub fn bytes(&self, buffer: &[u8]) -> Vec<u8> {
        let size = size_of(self.dtype);
        self.elems
            .iter()
            .flat_map(|&p| buffer[p..p + size].iter().copied())
            .collect()
    }

    /// Checks the model's own invariant: the first element is at `start`, every element
    /// is aligned to its size.
    pub fn check_invariant(&self) {
        let size = size_of(self.dtype);
        if let Some(&first) = self.elems.first() {
            assert_eq!(first, self.start, "model invariant broken: {self:?}");
        }
        for &p in &self.elems {
            assert_eq!(p % size, 0, "model invariant broken: {self:?}");
        }
        assert_eq!(self.start % size, 0, "model invariant broken: {self:?}");
    }

    fn with(&self, dtype: DType, dims: Vec<usize>, start: usize, elems: Vec<usize>) -> MArr {
        MArr {
            dtype,
            dims,
            start,
            elems,
            freed: self.freed,
        }
    }

    pub fn view(&self, ranges: &[Range<usize>]) -> Result<MArr, Expect> {
        if ranges.len() != self.dims.len() {
            return Err(Expect::RankMismatch);
        }
        if ranges
            .iter()
            .zip(&self.dims)
            .any(|(r, &d)| r.start > r.end || r.end > d)
        {
            return Err(Expect::ViewOutOfBounds);
        }
        let dims: Vec<usize> = ranges.iter().map(|r| r.end - r.start).collect();
        if count(&dims) == 0 {
            return Ok(self.with(self.dtype, dims, self.start, Vec::new()));
        }
        // Gather: element i of the view is element (start_d + i_d) of the parent.
        let elems: Vec<usize> = multi_indices(&dims)
            .iter()
            .map(|idx| {
                let parent: Vec<usize> = idx.iter().zip(ranges).map(|(i, r)| r.start + i).collect();
                self.elems[flat(&parent, &self.dims)]
            })
            .collect();
        Ok(self.with(self.dtype, dims, elems[0], elems))
    }

    pub fn reshape(&self, dims: &[isize]) -> Result<MArr, Expect> {
        if dims.len() > MAX_DIMS {
            return Err(Expect::RankTooLarge);
        }
        let free = dims.iter().filter(|&&d| d == -1).count();
        if free > 1 || dims.iter().any(|&d| d < -1) {
            return Err(Expect::Reshape);
        }
        let total = self.elems.len() as u128;
        let known = dims
            .iter()
            .filter(|&&d| d >= 0)
            .fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
        let mut out: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
        if free == 1 {
            if known == 0 || total % known != 0 {
                return Err(Expect::Reshape);
            }
            let inferred = total / known;
            let at = dims.iter().position(|&d| d == -1).unwrap();
            out[at] = inferred as usize;
        } else if known != total {
            return Err(Expect::Reshape);
        }
        if !fits(&out) {
            return Err(Expect::Reshape);
        }
        if !steps_evenly(&self.elems, &out) {
            return Err(Expect::NonContiguousView);
        }
        Ok(self.with(self.dtype, out, self.start, self.elems.clone()))
    }

    /// Whether the elements are one run of consecutive positions.
    fn is_run(&self) -> bool {
        let size = size_of(self.dtype);
        self.elems.windows(2).all(|w| w[1] == w[0] + size)
    }

    /// The byte step along axis `k` (`None` for an axis of length 1 or an empty array).
    fn step(&self, k: usize) -> Option<i128> {
        if self.elems.is_empty() || self.dims[k] < 2 {
            return None;
        }
        let mut idx = vec![0; self.dims.len()];
        idx[k] = 1;
        Some(self.elems[flat(&idx, &self.dims)] as i128 - self.elems[0] as i128)
    }

    /// `reinterpret` of an array whose elements are not one run (non-empty, rank >= 1).
    fn reinterpret_scattered(&self, to: DType) -> Result<MArr, Expect> {
        let (from_size, to_size) = (size_of(self.dtype), size_of(to));
        let last = self.dims.len() - 1;
        if from_size == to_size {
            if self.start % to_size != 0 {
                return Err(Expect::NonContiguousView);
            }
            return Ok(self.with(to, self.dims.clone(), self.start, self.elems.clone()));
        }
        if self.step(last).is_some_and(|s| s != from_size as i128) {
            return Err(Expect::NonContiguousView);
        }
        let whole = |s: Option<i128>| s.is_none_or(|s| s % to_size as i128 == 0);
        if self.start % to_size != 0 || !(0..last).all(|k| whole(self.step(k))) {
            return Err(Expect::NonContiguousView);
        }
        let row_bytes = self.dims[last] as u128 * from_size as u128;
        if row_bytes % to_size as u128 != 0 {
            return Err(Expect::Reinterpret);
        }
        let mut dims = self.dims.clone();
        dims[last] = (row_bytes / to_size as u128) as usize;
        // Each row (last axis) starts where the old one did and runs on in the new size.
        let elems = self
            .elems
            .chunks(self.dims[last])
            .flat_map(|row| (0..dims[last]).map(move |j| row[0] + j * to_size))
            .collect();
        Ok(self.with(to, dims, self.start, elems))
    }

    pub fn reinterpret(&self, to: DType) -> Result<MArr, Expect> {
        if !self.elems.is_empty() && !self.is_run() {
            return self.reinterpret_scattered(to);
        }
        let (from_size, to_size) = (size_of(self.dtype), size_of(to));
        if self.start % to_size != 0 {
            return Err(Expect::Reinterpret);
        }
        let mut dims = self.dims.clone();
        match dims.last_mut() {
            None if from_size != to_size => return Err(Expect::Reinterpret),
            None => {}
            Some(last) => {
                let bytes = *last as u128 * from_size as u128;
                if bytes % to_size as u128 != 0 {
                    return Err(Expect::Reinterpret);
                }
                let new_last = bytes / to_size as u128;
                if new_last > usize::MAX as u128 {
                    return Err(Expect::Reinterpret);
                }
                *last = new_last as usize;
            }
        }
        if !fits(&dims) {
            return Err(Expect::Reinterpret);
        }
        let n = count(&dims) as usize;
        let elems = (0..n).map(|k| self.start + k * to_size).collect();
        Ok(self.with(to, dims, self.start, elems))
    }

    pub fn slice(&self, range: Range<usize>) -> Result<MArr, Expect> {
        self.reshape(&[-1])?.view(&[range])
    }
}

/// Whether `elems` (row-major positions) step by one constant amount along each axis of
/// `dims`: whether some strides describe them in that shape.
fn steps_evenly(elems: &[usize], dims: &[usize]) -> bool {
    if elems.is_empty() {
        return true;
    }
    let positions = multi_indices(dims);
    (0..dims.len()).all(|k| {
        let mut step = None;
        positions
            .iter()
            .filter(|idx| idx[k] + 1 < dims[k])
            .all(|idx| {
                let mut next = idx.clone();
                next[k] += 1;
                let d = elems[flat(&next, dims)] as i128 - elems[flat(idx, dims)] as i128;
                *step.get_or_insert(d) == d
            })
    })
}

/// The broadcast of two shapes, or `None` if they do not broadcast.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for k in 0..n {
        // k counts from the right.
        let da = if k < a.len() { a[a.len() - 1 - k] } else { 1 };
        let db = if k < b.len() { b[b.len() - 1 - k] } else { 1 };
        out[n - 1 - k] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// The flat row-major index in an operand of shape `src` read for output multi-index `idx`
/// when `src` is broadcast to the output (stretched dimensions read index 0).
pub fn source_index(src: &[usize], idx: &[usize]) -> usize {
    let lead = idx.len() - src.len();
    let own: Vec<usize> = src
        .iter()
        .zip(&idx[lead..])
        .map(|(&d, &i)| if d == 1 { 0 } else { i })
        .collect();
    flat(&own, src)
}

/// Every row-major multi-index of `dims`.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    multi_indices(dims)
}
