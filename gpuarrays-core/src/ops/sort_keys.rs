//! Stable sorting permutations built on the backends' row sort: every value becomes an
//! unsigned *order key* (its sort order as an unsigned number), the key is packed with the
//! element's position in its row into one u64, and the packed rows are sorted with
//! [`Backend::sort`](crate::Backend::sort). Equal keys then stand in position order, so
//! the permutation read from the low 32 bits is stable, on every backend and whatever
//! algorithm the backend's sort uses (the packed words are distinct, so any correct sort
//! puts them in the same place).
//!
//! | element type | key | sorts |
//! |---|---|---|
//! | bool, u8, u32, i32, f32 | 32 bits | one u64 sort: `key << 32 \| position` |
//! | u64, i64, f64 | 64 bits | two, least significant half first (a radix sort with 32-bit digits): the low halves with positions, then the high halves of the permuted keys with positions |
//!
//! Order keys: unsigned values as they are; signed integers with the sign bit flipped;
//! floats by their bits, negatives inverted and positives with the sign bit set, after
//! `-0.0` is made `+0.0` (they compare equal, so they keep their order) and every NaN the
//! largest key (NaNs last, in position order, as NumPy and PyTorch sort). Descending order
//! inverts the key, so NaNs come first (PyTorch's `descending=True`) and equal elements
//! still keep their order.
//!
//! Why not a key–value sort in each backend: this path needs nothing a backend does not
//! already have (an elementwise kernel, the row sort, a gather), so every backend sorts
//! pairs correctly from the start. The sort is told ([`SortArgs::ordered_low_bits`] = 32)
//! that the low halves already increase along every row, so a radix sort orders the 32
//! key bits only: four 8-bit passes over 8-byte words, the traffic of a key–value sort of
//! 4-byte keys with 4-byte positions (PyTorch's argsort moves 4-byte keys with 8-byte
//! indices).

use crate::array::RawArray;
use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::{IndexMode, SortArgs};
use crate::ops::expr::Expr;
use crate::ops::index_space::{Folded, gather};
use crate::scalar::Scalar;
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

/// Ascending (smallest first, NaNs last) or descending (largest first, NaNs first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SortOrder {
    #[default]
    Ascending,
    Descending,
}

const LOW32: u64 = 0xFFFF_FFFF;

/// The order key of every element of `x` (any layout), as u32 for types of up to four
/// bytes and u64 for eight-byte types: unsigned integers whose order is the elements'
/// (signed integers with the sign bit flipped; floats by their bits, negatives inverted,
/// both zeros one key, every NaN the largest).
pub(crate) fn order_key<B: Backend>(
    op: &str,
    x: &RawArray<B>,
    order: SortOrder,
) -> Result<Expr<B>> {
    let val = || Expr::array(x);
    let bits =
        |t: DType| Expr::array(&x.derive_strided(t, x.dims.clone(), x.strides.clone(), x.offset));
    let float = |t: DType, sign: Scalar, max: Scalar| {
        let finite = bits(t).ge(sign).select(!bits(t), bits(t) | sign);
        val()
            .is_nan()
            .select(max, val().eq(0.0).select(sign, finite))
    };
    let key = match x.dtype {
        DType::Bool | DType::U8 | DType::U16 => val().cast(DType::U32),
        DType::I8 => bits(DType::U8).cast(DType::U32) ^ Scalar::U32(1 << 7),
        DType::I16 => bits(DType::U16).cast(DType::U32) ^ Scalar::U32(1 << 15),
        // The 16-bit float keys, widened (a cast of an unsigned key keeps its order).
        DType::F16 | DType::BF16 => {
            float(DType::U16, Scalar::U16(1 << 15), Scalar::U16(u16::MAX)).cast(DType::U32)
        }
        DType::U32 | DType::U64 => val(),
        DType::I32 => bits(DType::U32) ^ Scalar::U32(1 << 31),
        DType::I64 => bits(DType::U64) ^ Scalar::U64(1 << 63),
        DType::F32 => float(DType::U32, Scalar::U32(1 << 31), Scalar::U32(u32::MAX)),
        DType::F64 => float(DType::U64, Scalar::U64(1 << 63), Scalar::U64(u64::MAX)),
        other => {
            return Err(Error::invalid_dtype(
                op,
                other,
                "only ordered types sort (complex numbers have no order: sort by abs or the real part)",
            ));
        }
    };
    Ok(match order {
        SortOrder::Ascending => key,
        SortOrder::Descending => !key,
    })
}

/// A stable sorting permutation along the last axis, and optionally the sorted keys.
pub(crate) struct Permutation<B: Backend> {
    /// i64 positions within each row, dense, of the input's shape: row `r` of the sorted
    /// result is `x[r][perm[r][0]], x[r][perm[r][1]], ...`.
    pub perm: RawArray<B>,
    /// The order keys in sorted order (u32 or u64, dense), when asked for: equal keys are
    /// exactly the elements that compare equal (every NaN one key, `-0.0` equal to `0.0`).
    pub keys: Option<RawArray<B>>,
}

/// The stable permutation sorting each row (the last axis) of `x` (any layout, at least
/// one dimension) in `order`; with `want_keys`, the sorted order keys too.
pub(crate) fn sort_last_axis<B: Backend>(
    op: &'static str,
    x: &RawArray<B>,
    order: SortOrder,
    want_keys: bool,
) -> Result<Permutation<B>> {
    let _span = crate::profiling::operation(op);
    ensure_type_rule(op, x.dtype, OpKind::Sort)?;
    // The keys are computed from the elements' bits, which a backend may be able to read
    // in a type it cannot compute in: ask about the type itself.
    ensure_supported(&x.backend, x.dtype, OpKind::Sort)?;
    let key = order_key(op, x, order)?;
    let key_type = if x.dtype.size() == 8 {
        DType::U64
    } else {
        DType::U32
    };
    let len = x.dims.last().copied().unwrap_or(1);
    if x.is_empty() {
        x.ensure_alive()?;
        let empty = |t| RawArray::alloc(&x.backend, t, &x.dims);
        let keys = if want_keys {
            Some(empty(key_type)?)
        } else {
            None
        };
        return Ok(Permutation {
            perm: empty(DType::I64)?,
            keys,
        });
    }
    if len as u64 > 1 << 32 {
        return Err(Error::invalid_arg(
            op,
            format!("rows of {len} elements are too long to sort stably (at most 2^32)"),
        ));
    }
    for t in [DType::U64, DType::I64] {
        ensure_supported(&x.backend, t, OpKind::Sort)?;
        ensure_supported(&x.backend, t, OpKind::Gather)?;
    }
    let b = &x.backend;
    // Positions within a row, computed in the kernel that packs them (a stored row of
    // positions, broadcast, would cost a read of 8 bytes per element more).
    let rows = x.len() / len;
    let pos = || {
        let flat = Expr::index(b, &x.dims).cast(DType::U64);
        match rows {
            1 => flat,
            _ => flat % Scalar::U64(len as u64),
        }
    };
    if key_type == DType::U32 {
        let packed = ((key.cast(DType::U64) << Scalar::U64(32)) | pos()).eval_raw()?;
        if !want_keys {
            return Ok(Permutation {
                perm: sorted_positions(&packed, len)?,
                keys: None,
            });
        }
        sort_rows(&packed, len)?;
        let keys = Some((Expr::array(&packed) >> Scalar::U64(32)).eval_raw()?);
        return Ok(Permutation {
            perm: low_positions(&packed).eval_raw()?,
            keys,
        });
    }
    // 64-bit keys: least significant half first, then the high half of the keys in that
    // order; each pass keeps the previous order among equal halves (positions in the word).
    let full = key.eval_raw()?;
    let first =
        (((Expr::array(&full) & Scalar::U64(LOW32)) << Scalar::U64(32)) | pos()).eval_raw()?;
    let p1 = sorted_positions(&first, len)?;
    drop(first);
    let moved = gather_last(&full, &p1)?;
    let second = ((Expr::array(&moved) & Scalar::U64(!LOW32)) | pos()).eval_raw()?;
    drop(moved);
    let p2 = sorted_positions(&second, len)?;
    drop(second);
    let perm = gather_last(&p1, &p2)?;
    let keys = match want_keys {
        true => Some(gather_last(&full, &perm)?),
        false => None,
    };
    Ok(Permutation { perm, keys })
}

/// Sorts the rows of `len` packed words of the dense u64 array `a` and returns the i64
/// positions of their low halves: in the backend's sort where it can
/// ([`Backend::sort_into_positions`](crate::Backend::sort_into_positions); `a`'s words are
/// then unspecified), else a sort in place and an elementwise extraction.
fn sorted_positions<B: Backend>(a: &RawArray<B>, len: usize) -> Result<RawArray<B>> {
    let out = RawArray::alloc(&a.backend, DType::I64, &a.dims)?;
    let fused = {
        let (buf, ob) = (a.buffer()?, out.buffer()?);
        let _span = crate::profiling::kernel("sort", a.dtype);
        crate::graph::dispatch::sort_into_positions(
            &a.backend,
            &packed_rows(a, &buf, len),
            &ob,
            out.offset,
        )?
    };
    if !fused {
        sort_rows(a, len)?;
        low_positions(a).eval_into_raw(&out)?;
    }
    Ok(out)
}

/// The low halves of the u64 words of `a` as i64.
fn low_positions<B: Backend>(a: &RawArray<B>) -> Expr<B> {
    (Expr::array(a) & Scalar::U64(LOW32)).cast(DType::I64)
}

/// The sort of the rows of `len` packed words of the dense u64 array `a`, whose buffer is
/// `buf`.
fn packed_rows<'a, B: Backend>(
    a: &RawArray<B>,
    buf: &'a B::Buffer,
    len: usize,
) -> SortArgs<'a, B::Buffer> {
    SortArgs {
        dtype: a.dtype,
        buffer: buf,
        offset: a.offset,
        rows: a.len() / len,
        len,
        // Every packed word holds its position (first pass) or its rank after the first
        // pass (second) in the low half: increasing along the row.
        ordered_low_bits: 32,
    }
}

/// Sorts the rows of `len` elements of the dense u64 array `a` in place.
fn sort_rows<B: Backend>(a: &RawArray<B>, len: usize) -> Result<()> {
    let buf = a.buffer()?;
    let _span = crate::profiling::kernel("sort", a.dtype);
    crate::graph::dispatch::sort(&a.backend, &packed_rows(a, &buf, len))
}

/// `out[r][j] = src[r][idx[r][j]]` along the last axis, for indices known to be in range
/// (positions produced by a sort): no range check, so no read-back.
pub(crate) fn gather_last<B: Backend>(src: &RawArray<B>, idx: &RawArray<B>) -> Result<RawArray<B>> {
    let last = src.ndim() - 1;
    let extent = src.dims[last];
    let count = idx.dims[last];
    let rows = idx.len() / count.max(1);
    let s = Folded::new(src, last..last + 1)?;
    let i = Folded::new(idx, last..last + 1)?;
    gather(
        "sort",
        &s,
        &i,
        [rows, count, 1],
        extent,
        IndexMode::Clip,
        &idx.dims,
    )
}
