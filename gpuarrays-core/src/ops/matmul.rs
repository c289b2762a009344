//! Matrix products: 2-D, and batched 3-D (a batch of 1 on either side repeats that matrix).

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
        let batch = ba.max(bb);
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
        let (a, b, o) = (self.buffer()?, rhs.buffer()?, out.buffer()?);
        self.backend.matmul(&MatmulArgs {
            dtype: self.dtype,
            batch,
            m,
            n,
            k,
            a: &a,
            a_offset: self.offset,
            a_batch_stride: if ba == 1 { 0 } else { m * k },
            b: &b,
            b_offset: rhs.offset,
            b_batch_stride: if bb == 1 { 0 } else { k * n },
            output: &o,
            output_offset: out.offset,
        })?;
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
