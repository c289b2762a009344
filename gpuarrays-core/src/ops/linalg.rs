//! Vector and matrix helpers with NumPy's semantics: `norm`, `dot`, `vdot`, `outer`.
//! Composed of the matrix product, elementwise expressions and reductions, so every backend
//! has them without kernels of its own.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::ReduceOp;
use crate::ops::expr::Expr;
use crate::ops::statistics::{moment_dtype, real_item};

/// Which vector norm [`RawArray::norm`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NormOrd {
    /// `sqrt(Σ|x|²)` over every element, any rank: the 2-norm of a vector, the Frobenius
    /// norm of a matrix (NumPy `norm(x)`).
    Two,
    /// `Σ|x|` of a 1-D array (NumPy `norm(x, 1)`).
    One,
    /// `max |x|` of a 1-D array (NumPy `norm(x, inf)`); an error for an empty array.
    Inf,
}

impl NormOrd {
    pub const ALL: [NormOrd; 3] = [NormOrd::Two, NormOrd::One, NormOrd::Inf];

    pub const fn name(self) -> &'static str {
        match self {
            NormOrd::Two => "norm",
            NormOrd::One => "norm_1",
            NormOrd::Inf => "norm_inf",
        }
    }
}

fn as_isize(d: &[usize]) -> Vec<isize> {
    d.iter().map(|&x| x as isize).collect()
}

impl<B: Backend> RawArray<B> {
    /// The vector norm `ord` as a 0-d array: f32 for f32 and c32 input, f64 for f64, c64
    /// and integers (converted to f64 first, as NumPy), f16 and bf16 for themselves
    /// (computed in f32, rounded once); bool is refused. `One` and `Inf`
    /// need a 1-D array (NumPy's matrix norms of those orders are not provided).
    pub fn norm(&self, ord: NormOrd) -> Result<RawArray<B>> {
        moment_dtype(ord.name(), self.dtype)?;
        if self.dtype.is_half() {
            return self.via_f32_if_half(|x| x.norm(ord));
        }
        if ord != NormOrd::Two && self.ndim() != 1 {
            return Err(Error::RankMismatch {
                op: ord.name().into(),
                expected: "1 dimension (norm 1 and inf are vector norms)".into(),
                got: self.ndim(),
            });
        }
        let x = if self.dtype.is_integer() {
            Expr::array(self).cast(DType::F64).eval_raw()?
        } else {
            self.clone()
        };
        let abs = || Expr::array(&x).abs();
        match ord {
            NormOrd::Two => {
                let ss = (abs() * abs()).eval_raw()?.reduce(ReduceOp::Sum, None)?;
                Expr::array(&ss).sqrt().eval_raw()
            }
            NormOrd::One => abs().eval_raw()?.reduce(ReduceOp::Sum, None),
            NormOrd::Inf => abs().eval_raw()?.reduce(ReduceOp::Max, None),
        }
    }

    /// NumPy's `dot` for 1-D and 2-D operands, through the matrix product: vector · vector
    /// (a 0-d result), matrix · vector, vector · matrix and matrix · matrix. Other ranks are
    /// a `RankMismatch` error; the contracted lengths must agree (`ShapeMismatch`).
    pub fn dot(&self, rhs: &RawArray<B>) -> Result<RawArray<B>> {
        for a in [self, rhs] {
            if !(1..=2).contains(&a.ndim()) {
                return Err(Error::RankMismatch {
                    op: "dot".into(),
                    expected: "1 or 2 dimensions".into(),
                    got: a.ndim(),
                });
            }
        }
        let k = self.dims[self.ndim() - 1];
        if k != rhs.dims[0] {
            return Err(Error::ShapeMismatch {
                op: "dot".into(),
                lhs: self.dims.clone(),
                rhs: rhs.dims.clone(),
            });
        }
        let lhs = if self.ndim() == 1 {
            self.reshape(&[1, k as isize])?
        } else {
            self.clone()
        };
        let r = if rhs.ndim() == 1 {
            rhs.reshape(&[k as isize, 1])?
        } else {
            rhs.clone()
        };
        let p = lhs.matmul(&r)?;
        let mut dims = Vec::new();
        if self.ndim() == 2 {
            dims.push(self.dims[0]);
        }
        if rhs.ndim() == 2 {
            dims.push(rhs.dims[1]);
        }
        p.reshape(&as_isize(&dims))
    }

    /// NumPy's `vdot`: both operands flattened, the first conjugated, `Σ conj(a)·b` as a
    /// 0-d array. The lengths must agree (`ShapeMismatch`).
    pub fn vdot(&self, rhs: &RawArray<B>) -> Result<RawArray<B>> {
        if self.len() != rhs.len() {
            return Err(Error::ShapeMismatch {
                op: "vdot".into(),
                lhs: self.dims.clone(),
                rhs: rhs.dims.clone(),
            });
        }
        let n = self.len() as isize;
        let a = self.reshape(&[n])?;
        let a = if a.dtype.is_complex() { conj(&a)? } else { a };
        a.dot(&rhs.reshape(&[n])?)
    }

    /// NumPy's `outer`: both operands flattened, `out[i, j] = a[i]·b[j]` (no conjugation).
    pub fn outer(&self, rhs: &RawArray<B>) -> Result<RawArray<B>> {
        let a = self.reshape(&[self.len() as isize, 1])?;
        let b = rhs.reshape(&[1, rhs.len() as isize])?;
        (Expr::array(&a) * Expr::array(&b)).eval_raw()
    }
}

/// The complex conjugate of a 1-D complex array: its (re, im) pairs viewed as a real
/// `[n, 2]` array and multiplied by `[1, -1]`. Expressions have no conjugate, and building
/// one from the parts with complex arithmetic (`2·re(z) − z`) would overflow or turn
/// infinite parts into NaN; negating the imaginary part alone is exact for every value.
fn conj<B: Backend>(a: &RawArray<B>) -> Result<RawArray<B>> {
    let real = a.dtype.real();
    let n = a.len() as isize;
    let parts = a.reinterpret(real)?.reshape(&[n, 2])?;
    let signs = match real {
        DType::F32 => Array::<f32, B>::from_slice(&a.backend, &[2], &[1.0, -1.0])?.into_raw(),
        _ => Array::<f64, B>::from_slice(&a.backend, &[2], &[1.0, -1.0])?.into_raw(),
    };
    let flipped = (Expr::array(&parts) * Expr::array(&signs)).eval_raw()?;
    flipped.reinterpret(a.dtype)?.reshape(&[n])
}

impl<T: Element, B: Backend> Array<T, B> {
    /// The 2-norm of every element (Frobenius for a matrix), as f64 (see
    /// [`RawArray::norm`]; f32 and c32 arrays are summed in f32).
    pub fn norm(&self) -> Result<f64> {
        real_item(self.raw.norm(NormOrd::Two)?)
    }

    /// The vector norm `ord` of a 1-D array (any rank for `NormOrd::Two`), as f64.
    pub fn norm_ord(&self, ord: NormOrd) -> Result<f64> {
        real_item(self.raw.norm(ord)?)
    }

    /// NumPy's `dot` of 1-D and 2-D arrays (see [`RawArray::dot`]).
    pub fn dot(&self, rhs: &Array<T, B>) -> Result<Array<T, B>> {
        self.raw.dot(&rhs.raw)?.into_typed()
    }

    /// NumPy's `vdot`: `Σ conj(a)·b` over both arrays flattened.
    pub fn vdot(&self, rhs: &Array<T, B>) -> Result<T> {
        self.raw.vdot(&rhs.raw)?.into_typed::<T>()?.item()
    }

    /// NumPy's `outer`: `out[i, j] = a[i]·b[j]` over both arrays flattened.
    pub fn outer(&self, rhs: &Array<T, B>) -> Result<Array<T, B>> {
        self.raw.outer(&rhs.raw)?.into_typed()
    }
}
