//! `searchsorted` (NumPy `np.searchsorted`): insertion points of values in a sorted 1-D
//! array, by binary search in the backend's [`search_sorted`](crate::Backend::search_sorted)
//! kernel.
//!
//! Both arrays become the unsigned order keys argsort sorts by ([`order_key`]: `-0.0` equal
//! to `0.0`, every NaN the largest key), so a backend searches u32 or u64 keys only and
//! every element type has one comparison. A u32 or u64 array that is already contiguous is
//! its own keys. Cost: one elementwise pass over each array to make the keys, then
//! `O(log n)` reads of the table per value; the table is usually small and stays in cache.
//! (The previous lowering sorted the values and the table together: linear in the table per
//! call, and 0.20× PyTorch at 2^26 values on the H200.)

use std::borrow::Cow;

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{SearchArgs, Side};
use crate::ops::sort_keys::{SortOrder, order_key};
use crate::scalar::Scalar;
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

/// The order keys of `x` (u32 or u64), contiguous.
fn keys<'a, B: Backend>(op: &str, x: &'a RawArray<B>) -> Result<Cow<'a, RawArray<B>>> {
    if matches!(x.dtype, DType::U32 | DType::U64) && x.is_contiguous() {
        return Ok(Cow::Borrowed(x));
    }
    Ok(Cow::Owned(
        order_key(op, x, SortOrder::Ascending)?.eval_raw()?,
    ))
}

impl<B: Backend> RawArray<B> {
    /// Where each of `values` would be inserted into this sorted 1-D array to keep it
    /// sorted (NumPy `searchsorted`): i64 of `values`' shape, each the number of elements
    /// smaller than the value (`Side::Left`) or not larger (`Side::Right`), in the order
    /// [`argsort`](Self::argsort) uses (NaNs largest, `-0.0 == 0.0`). Both arrays have one
    /// element type (cast first).
    ///
    /// The array must be sorted ascending in that order ([`sort`](Self::sort) gives it);
    /// the answers come from a binary search, so for an array that is not sorted they are
    /// unspecified (as NumPy's), though always positions in `0..=len`.
    pub fn searchsorted(&self, values: &RawArray<B>, side: Side) -> Result<RawArray<B>> {
        let _span = crate::profiling::operation("searchsorted");
        let op = "searchsorted";
        self.same_device(op, values)?;
        if self.ndim() != 1 {
            return Err(Error::RankMismatch {
                op: op.into(),
                expected: "a 1-D sorted array".into(),
                got: self.ndim(),
            });
        }
        if values.dtype != self.dtype {
            return Err(Error::DTypeMismatch {
                op: format!("{op} (cast the values to the sorted array's type)"),
                lhs: self.dtype,
                rhs: values.dtype,
            });
        }
        ensure_type_rule(op, self.dtype, OpKind::Sort)?;
        // The search compares order keys computed from the elements' bits, which a backend
        // may read in a type it cannot compute in: ask about the type itself.
        ensure_supported(&self.backend, self.dtype, OpKind::Sort)?;
        let b = &self.backend;
        if values.is_empty() || self.is_empty() {
            self.ensure_alive()?;
            values.ensure_alive()?;
            return RawArray::full(b, &values.dims, Scalar::I64(0));
        }
        let key_type = if self.dtype.size() == 8 {
            DType::U64
        } else {
            DType::U32
        };
        ensure_supported(b, key_type, OpKind::Sort)?;
        let table = keys(op, self)?;
        let flat = keys(op, values)?;
        let out = RawArray::alloc(b, DType::I64, &values.dims)?;
        {
            let (tb, vb, ob) = (table.buffer()?, flat.buffer()?, out.buffer()?);
            let _span = crate::profiling::kernel("searchsorted", key_type);
            crate::graph::dispatch::search_sorted(
                b,
                &SearchArgs {
                    dtype: key_type,
                    side,
                    table: &tb,
                    table_offset: table.offset,
                    table_len: table.len(),
                    values: &vb,
                    values_offset: flat.offset,
                    len: flat.len(),
                    output: &ob,
                    output_offset: out.offset,
                },
            )?;
        }
        Ok(out)
    }
}

impl<T: crate::element::Element, B: Backend> Array<T, B> {
    /// Insertion points of `values` into this sorted 1-D array (see
    /// [`RawArray::searchsorted`]).
    pub fn searchsorted(&self, values: &Self, side: Side) -> Result<Array<i64, B>> {
        Ok(Array::from_raw(self.raw.searchsorted(&values.raw, side)?))
    }
}
