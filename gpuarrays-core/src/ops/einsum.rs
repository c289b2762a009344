//! `einsum` (NumPy's Einstein summation) for one and two operands, lowered to views
//! (`diagonal`, `permute`, `expand_dims`), one sum reduction per operand, and either an
//! elementwise product or one batched `matmul`: a contraction runs at matrix-product speed
//! on every backend, with no kernel of its own.
//!
//! Lowering of `A, B -> out` (subscripts parsed in `einsum_parse.rs`):
//! 1. a letter repeated within one operand takes the diagonal of those axes (a view);
//! 2. letters of only one operand and not in the output are summed away in that operand;
//! 3. the remaining letters are batch (both operands and the output), left (A only), right
//!    (B only) and contracted (both operands, not the output);
//! 4. with contracted letters, A is arranged `[batch, left, contracted]` and B
//!    `[batch, contracted, right]`, each flattened to 3-D, and multiplied with `matmul`;
//!    without, the two are broadcast against each other and multiplied elementwise;
//! 5. the result's axes `[batch, left, right]` are permuted into the output order and copied.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::ReduceOp;
use crate::ops::einsum_parse::parse;
use crate::ops::expr::Expr;
use crate::support::{OpKind, ensure_type_rule};

const OP: &str = "einsum";

fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

/// An array with one subscript letter per axis; `fresh` when it is a new array (not a view
/// of an operand).
struct Labeled<B: Backend> {
    a: RawArray<B>,
    letters: Vec<u8>,
    fresh: bool,
}

impl<B: Backend> Labeled<B> {
    fn has(&self, l: u8) -> bool {
        self.letters.contains(&l)
    }

    fn position(&self, l: u8) -> Result<usize> {
        self.letters
            .iter()
            .position(|&x| x == l)
            .ok_or_else(|| Error::invalid_arg(OP, "internal error: a subscript was lost"))
    }

    /// The product of the lengths of the axes of `letters`.
    fn len_of(&self, letters: &[u8]) -> Result<usize> {
        letters
            .iter()
            .map(|&l| self.position(l).map(|k| self.a.dims[k]))
            .product()
    }

    /// Repeated letters taken as diagonals (views) until each letter names one axis.
    fn diagonals(mut self) -> Result<Self> {
        loop {
            let n = self.letters.len();
            let pair = (0..n).find_map(|q| {
                (0..q)
                    .find(|&p| self.letters[p] == self.letters[q])
                    .map(|p| (p, q))
            });
            let Some((p, q)) = pair else {
                return Ok(self);
            };
            // The diagonal becomes the last axis; the others keep their order.
            self.a = self.a.diagonal(0, p, q)?;
            let l = self.letters[p];
            self.letters.remove(q);
            self.letters.remove(p);
            self.letters.push(l);
        }
    }

    /// The axes whose letters `keep` rejects summed away, in one reduction over them
    /// moved last and flattened.
    fn sum_out(self, keep: impl Fn(u8) -> bool) -> Result<Self> {
        let (kept, summed): (Vec<usize>, Vec<usize>) =
            (0..self.letters.len()).partition(|&k| keep(self.letters[k]));
        if summed.is_empty() {
            return Ok(self);
        }
        let perm: Vec<usize> = kept.iter().chain(&summed).copied().collect();
        let mut dims: Vec<usize> = kept.iter().map(|&k| self.a.dims[k]).collect();
        dims.push(summed.iter().map(|&k| self.a.dims[k]).product());
        let lanes = self
            .a
            .permute(&perm)?
            .contiguous()?
            .reshape(&signed(&dims))?;
        Ok(Labeled {
            a: lanes.reduce(ReduceOp::Sum, Some(kept.len()))?,
            letters: kept.iter().map(|&k| self.letters[k]).collect(),
            fresh: true,
        })
    }

    /// A view with the axes in the order of `order` (each of the array's letters once).
    fn arranged(&self, order: &[u8]) -> Result<RawArray<B>> {
        let perm = order
            .iter()
            .map(|&l| self.position(l))
            .collect::<Result<Vec<_>>>()?;
        self.a.permute(&perm)
    }

    /// The array arranged as `order`, always a new array.
    fn into_output(self, order: &[u8]) -> Result<RawArray<B>> {
        let v = self.arranged(order)?;
        if self.fresh { v.contiguous() } else { v.copy() }
    }
}

/// `a, b -> out` with each letter naming one axis of its operand.
fn pair<B: Backend>(a: Labeled<B>, b: Labeled<B>, out: &[u8]) -> Result<Labeled<B>> {
    let a = a.sum_out(|l| out.contains(&l) || b.has(l))?;
    let b = b.sum_out(|l| out.contains(&l) || a.has(l))?;
    let batch: Vec<u8> = out
        .iter()
        .copied()
        .filter(|&l| a.has(l) && b.has(l))
        .collect();
    let left: Vec<u8> = a.letters.iter().copied().filter(|&l| !b.has(l)).collect();
    let right: Vec<u8> = b.letters.iter().copied().filter(|&l| !a.has(l)).collect();
    let contracted: Vec<u8> = (a.letters.iter().copied())
        .filter(|&l| b.has(l) && !out.contains(&l))
        .collect();
    let letters = [&batch[..], &left, &right].concat();
    let product = if contracted.is_empty() {
        // Broadcast [batch, left, 1..] against [batch, 1.., right].
        let mut x = a.arranged(&[&batch[..], &left].concat())?;
        for _ in &right {
            x = x.expand_dims(x.ndim())?;
        }
        let mut y = b.arranged(&[&batch[..], &right].concat())?;
        for _ in &left {
            y = y.expand_dims(batch.len())?;
        }
        (Expr::array(&x) * Expr::array(&y)).eval_raw()?
    } else {
        let (nb, m) = (a.len_of(&batch)?, a.len_of(&left)?);
        let (k, n) = (a.len_of(&contracted)?, b.len_of(&right)?);
        let x = a.arranged(&[&batch[..], &left, &contracted].concat())?;
        let y = b.arranged(&[&batch[..], &contracted, &right].concat())?;
        let x = x.contiguous()?.reshape(&signed(&[nb, m, k]))?;
        let y = y.contiguous()?.reshape(&signed(&[nb, k, n]))?;
        let dims = (batch.iter().chain(&left).map(|&l| (&a, l)))
            .chain(right.iter().map(|&l| (&b, l)))
            .map(|(t, l)| t.position(l).map(|p| t.a.dims[p]))
            .collect::<Result<Vec<_>>>()?;
        x.matmul(&y)?.reshape(&signed(&dims))?
    };
    Ok(Labeled {
        a: product,
        letters,
        fresh: true,
    })
}

impl<B: Backend> RawArray<B> {
    /// Einstein summation over one or two operands (NumPy `einsum`, without `...`): each
    /// operand's subscripts name its axes with letters (`a-z`, `A-Z`; spaces ignored); the
    /// output holds, for every combination of the output letters, the sum over every other
    /// letter of the product of the operands' elements. A letter repeated within one operand
    /// reads its diagonal (`"ii->i"`, trace `"ii"`); without `->` the output is the letters
    /// that appear once, in ASCII order (`"ij,jk"` is `"ij,jk->ik"`). Examples: `"ij->ji"`
    /// transpose, `"ij->"` sum, `"i,i->"` dot, `"i,j->ij"` outer, `"ij,ij->ij"` Hadamard,
    /// `"bij,bjk->bik"` batched matrix product.
    ///
    /// The operands have one type, numeric (bool is an `InvalidDType` error, as for
    /// `matmul`); the result has that type (integers wrap, as NumPy's `einsum` in that type
    /// does) and is always a new array, 0-d when the output has no letters. Errors: a bad
    /// subscript string, an ellipsis (`...`, not supported), an output letter repeated or not
    /// in an input, or not one or two operands (`InvalidArgument`); subscripts not matching
    /// an operand's rank (`RankMismatch`); one letter with two lengths (`ShapeMismatch`:
    /// size-1 axes do not broadcast); two types (`DTypeMismatch`).
    ///
    /// A contraction (a letter in both operands and not in the output) runs as one batched
    /// [`matmul`](Self::matmul); other letters of one operand are summed with one
    /// reduction; floats are therefore summed in an order that may differ from NumPy's.
    pub fn einsum(subscripts: &str, operands: &[&RawArray<B>]) -> Result<RawArray<B>> {
        let _span = crate::profiling::operation("einsum");
        let Some((first, rest)) = operands.split_first().filter(|_| operands.len() <= 2) else {
            return Err(Error::invalid_arg(
                OP,
                format!(
                    "{} operands given; one or two are supported",
                    operands.len()
                ),
            ));
        };
        for b in rest {
            first.same_device(OP, b)?;
            if b.dtype != first.dtype {
                return Err(Error::DTypeMismatch {
                    op: OP.into(),
                    lhs: first.dtype,
                    rhs: b.dtype,
                });
            }
        }
        ensure_type_rule(OP, first.dtype, OpKind::Matmul)?;
        let dims: Vec<&[usize]> = operands.iter().map(|a| a.dims()).collect();
        let s = parse(subscripts, &dims)?;
        let mut labeled = operands.iter().zip(&s.inputs).map(|(a, l)| {
            Labeled {
                a: (*a).clone(),
                letters: l.clone(),
                fresh: false,
            }
            .diagonals()
        });
        let out = &s.output;
        let a = labeled
            .next()
            .ok_or_else(|| Error::invalid_arg(OP, "no operand"))??;
        let result = match labeled.next() {
            None => a.sum_out(|l| out.contains(&l))?,
            Some(b) => pair(a, b?, out)?,
        };
        result.into_output(out)
    }
}

impl<T: Element, B: Backend> Array<T, B> {
    /// [`RawArray::einsum`]: Einstein summation over one or two operands of one type.
    ///
    /// ```
    /// # use gpuarrays_core::Array;
    /// # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
    /// let a = Array::<f64, _>::from_slice(&cpu, &[2, 2], &[1.0, 2.0, 3.0, 4.0])?;
    /// let b = Array::<f64, _>::from_slice(&cpu, &[2, 2], &[5.0, 6.0, 7.0, 8.0])?;
    /// let p = Array::einsum("ij,jk->ik", &[&a, &b])?;
    /// assert_eq!(p.to_vec()?, [19.0, 22.0, 43.0, 50.0]);
    /// assert_eq!(Array::einsum("ii", &[&a])?.item()?, 5.0);
    /// # Ok::<(), gpuarrays_core::Error>(())
    /// ```
    pub fn einsum(subscripts: &str, operands: &[&Array<T, B>]) -> Result<Self> {
        let raws: Vec<&RawArray<B>> = operands.iter().map(|a| &a.raw).collect();
        Ok(Array::from_raw(RawArray::einsum(subscripts, &raws)?))
    }
}
