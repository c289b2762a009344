//! Matrix products: 2-D, and batched 3-D (a batch of 1 on either side repeats that matrix).
//!
//! The batch sizes broadcast as NumPy's do: equal, or one side 1 (or 2-D), which takes the
//! other side's size, so an empty batch against a batch of 1 is an empty batch (`[0, 3, 4]
//! · [1, 4, 5]` is `[0, 3, 5]`). Before a kernel runs, the elements its arguments describe
//! are checked to lie inside the three arrays (`check_extents`): an inconsistency here is
//! a typed error, never a backend reading memory that belongs to another array.

use std::ops::Range;

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::MatmulArgs;
use crate::support::{OpKind, ensure_supported, ensure_type_rule};

impl<B: Backend> RawArray<B> {
    /// `self · rhs` for shapes (m, k)·(k, n) or (batch, m, k)·(batch, k, n), where either
    /// side may be 2-D or have batch 1 to be repeated across the other's batch.
    pub fn matmul(&self, rhs: &RawArray<B>) -> Result<RawArray<B>> {
        self.same_device("matmul", rhs)?;
        if self.dtype != rhs.dtype {
            return Err(Error::DTypeMismatch {
                op: "matmul".into(),
                lhs: self.dtype,
                rhs: rhs.dtype,
            });
        }
        ensure_type_rule("matmul", self.dtype, OpKind::Matmul)?;
        for a in [self, rhs] {
            if !(2..=3).contains(&a.ndim()) {
                return Err(Error::RankMismatch {
                    op: "matmul".into(),
                    expected: "2 or 3 dimensions".into(),
                    got: a.ndim(),
                });
            }
        }
        let split = |a: &RawArray<B>| match a.dims[..] {
            [r, c] => (1, r, c, false),
            [b, r, c] => (b, r, c, true),
            _ => (0, 0, 0, false),
        };
        let (ba, m, k, a3) = split(self);
        let (bb, k2, n, b3) = split(rhs);
        let mismatch = || Error::ShapeMismatch {
            op: "matmul".into(),
            lhs: self.dims.clone(),
            rhs: rhs.dims.clone(),
        };
        if k != k2 || (ba != bb && ba != 1 && bb != 1) {
            return Err(mismatch());
        }
        // Equal, or one side 1 taking the other's size (which may be 0).
        let batch = if ba == 1 { bb } else { ba };
        ensure_supported(&self.backend, self.dtype, OpKind::Matmul)?;
        let dims = if a3 || b3 {
            vec![batch, m, n]
        } else {
            vec![m, n]
        };
        let out = RawArray::alloc(&self.backend, self.dtype, &dims)?;
        if out.is_empty() {
            self.ensure_alive()?;
            rhs.ensure_alive()?;
            return Ok(out);
        }
        // The kernels read contiguous matrices: strided views are copied first.
        let (lhs, rhs) = (self.dense()?, rhs.dense()?);
        let (lhs, rhs) = (lhs.as_ref(), rhs.as_ref());
        let (a, b, o) = (lhs.buffer()?, rhs.buffer()?, out.buffer()?);
        let args = MatmulArgs {
            dtype: self.dtype,
            batch,
            m,
            n,
            k,
            a: &*a,
            a_offset: lhs.offset,
            a_batch_stride: if ba == 1 { 0 } else { m * k },
            b: &*b,
            b_offset: rhs.offset,
            b_batch_stride: if bb == 1 { 0 } else { k * n },
            output: &*o,
            output_offset: out.offset,
        };
        let own = |x: &RawArray<B>| x.offset..x.offset + x.len();
        check_extents(
            (batch, m, n, k),
            [
                (
                    "a",
                    lhs.offset,
                    args.a_batch_stride,
                    m.checked_mul(k),
                    own(lhs),
                ),
                (
                    "b",
                    rhs.offset,
                    args.b_batch_stride,
                    k.checked_mul(n),
                    own(rhs),
                ),
                ("the output", out.offset, m * n, m.checked_mul(n), own(&out)),
            ],
        )?;
        let _span = crate::profiling::kernel("matmul", self.dtype);
        crate::graph::dispatch::matmul(&self.backend, &args)?;
        drop((a, b, o));
        Ok(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Matrix product (see [`RawArray::matmul`]).
    pub fn matmul(&self, rhs: &Array<T, B>) -> Result<Array<T, B>> {
        Ok(Array::from_raw(self.raw.matmul(&rhs.raw)?))
    }
}

/// Elements `[lo, hi)` of its buffer that one operand of a batched product reaches: `per`
/// elements per matrix, `batch` matrices `stride` apart from `offset` (none for an empty
/// matrix or batch); `None` when that overflows `usize`.
fn reach(offset: usize, stride: usize, batch: usize, per: usize) -> Option<(usize, usize)> {
    if per == 0 || batch == 0 {
        return Some((offset, offset));
    }
    let hi = stride.checked_mul(batch - 1)?.checked_add(per)?;
    Some((offset, offset.checked_add(hi)?))
}

/// One operand of a product: its name, the offset, batch stride and matrix size (`None`:
/// overflowed) the kernel arguments give it, and the elements its array holds.
type Extent = (&'static str, usize, usize, Option<usize>, Range<usize>);

/// Fails with `InvalidArgument` ("matmul kernel") unless every element the arguments of a
/// product of `(batch, m, n, k)` describe lies inside the array it belongs to. Cheap (a few
/// multiplications), and it keeps an inconsistency in the shape rules from becoming a kernel
/// that reads another array's memory.
fn check_extents(
    (batch, m, n, k): (usize, usize, usize, usize),
    operands: [Extent; 3],
) -> Result<()> {
    for (name, offset, stride, per, own) in operands {
        let inside = per
            .and_then(|per| reach(offset, stride, batch, per))
            .is_some_and(|(lo, hi)| lo == hi || (own.start <= lo && hi <= own.end));
        if !inside {
            return Err(Error::invalid_arg(
                "matmul kernel",
                format!(
                    "{batch} products of ({m}, {k})·({k}, {n}) reach past {name}, which holds \
                     elements {}..{} of its buffer (offset {offset}, batch stride {stride}); \
                     this is a bug in gpuarrays, please report it",
                    own.start, own.end
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (batch, m, n, k) and the three operands of `[b, m, k] · [b, k, n]` in arrays of their
    /// own (offset 0), with batch sizes `ba`, `bb` for the inputs.
    fn operands(ba: usize, bb: usize, batch: usize, m: usize, n: usize, k: usize) -> [Extent; 3] {
        let stride = |b: usize, per: usize| if b == 1 { 0 } else { per };
        [
            ("a", 0, stride(ba, m * k), Some(m * k), 0..ba * m * k),
            ("b", 0, stride(bb, k * n), Some(k * n), 0..bb * k * n),
            ("the output", 0, m * n, Some(m * n), 0..batch * m * n),
        ]
    }

    #[test]
    fn extents_inside_the_operands_pass() {
        for (ba, bb, batch) in [(2, 2, 2), (1, 3, 3), (3, 1, 3), (1, 1, 1)] {
            let ops = operands(ba, bb, batch, 3, 5, 4);
            assert!(check_extents((batch, 3, 5, 4), ops).is_ok(), "{ba} {bb}");
        }
        // k = 0: the inputs are empty and nothing of them is read.
        assert!(check_extents((2, 3, 5, 0), operands(2, 2, 2, 3, 5, 0)).is_ok());
    }

    /// What the old batch rule (`max(ba, bb)`) sent for `[0, 3, 4] · [1, 4, 5]`: one product
    /// reading 12 elements of an empty `a`.
    #[test]
    fn a_product_reaching_past_an_operand_is_refused() {
        let mut ops = operands(0, 1, 1, 3, 5, 4);
        ops[2].4 = 0..15;
        let e = check_extents((1, 3, 5, 4), ops).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("reach past a"), "{e}");
        // One element short of b's last matrix; an output at an offset past its array.
        let mut ops = operands(2, 2, 2, 3, 5, 4);
        ops[1].4 = 0..39;
        assert!(check_extents((2, 3, 5, 4), ops).is_err());
        let mut ops = operands(2, 2, 2, 3, 5, 4);
        ops[2].1 = 1;
        assert!(check_extents((2, 3, 5, 4), ops).is_err());
    }

    #[test]
    fn overflowing_extents_are_refused_not_wrapped() {
        assert_eq!(reach(usize::MAX, 1, 2, 1), None);
        assert_eq!(reach(0, usize::MAX, 3, 1), None);
        assert_eq!(reach(5, 7, 0, 4), Some((5, 5)));
        let mut ops = operands(2, 2, 2, 3, 5, 4);
        ops[0].2 = usize::MAX / 2;
        assert!(check_extents((2, 3, 5, 4), ops.clone()).is_err());
        ops[0].3 = None;
        assert!(check_extents((2, 3, 5, 4), ops).is_err());
    }
}
