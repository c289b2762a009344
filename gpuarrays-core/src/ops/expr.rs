//! Fused elementwise expressions: build a small tree from arrays, scalars and operations,
//! with NumPy broadcasting, then evaluate it in one kernel (one pass over memory).
//!
//! ```
//! # use gpuarrays_core::Array;
//! # let cpu = gpuarrays_cpu_ref::CpuBackend::new();
//! # let x = Array::<f32, _>::from_slice(&cpu, &[3], &[0.25, 0.75, -1.0])?;
//! # let b = Array::<f32, _>::from_slice(&cpu, &[3], &[1.0, 1.0, 1.0])?;
//! let y = (x.ex() * 2.0 + b.ex()).max(0.0);        // builds, nothing runs yet
//! let y: Array<f32, _> = y.eval()?;                 // one kernel
//! let mask = x.ex().gt(0.5).eval::<bool>()?;        // comparisons give bool
//! # assert_eq!(y.to_vec()?, [1.5, 2.5, 0.0]);
//! # assert_eq!(mask.to_vec()?, [false, true, false]);
//! # Ok::<(), gpuarrays_core::Error>(())
//! ```
//!
//! Type and shape errors are found while building and reported by `eval`, so expressions
//! read naturally without a `?` at each step.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{BinaryOp, Distribution, UnaryOp};
use crate::ops::expr_nodes::{Dims, ExprNode, Leaf, Postfix};
pub use crate::ops::literal::Literal;
use crate::scalar::Scalar;
use crate::shape;

/// A fused elementwise expression over arrays of backend `B`.
pub struct Expr<B: Backend> {
    /// The nodes in evaluation order (see `expr_nodes.rs`), or the first error found.
    pub(crate) tree: Result<Postfix<B>>,
    /// The device the expression runs on: that of its first array or leaf.
    pub(crate) backend: Option<B>,
}

/// Either an expression or a literal.
// An expression is a few hundred bytes inline (its nodes, see `expr_nodes.rs`); an `ExprArg`
// lives only until the operation it is passed to resolves it, and boxing the large variant
// would allocate once per operation, which the inline nodes exist to avoid.
#[allow(clippy::large_enum_variant)]
pub enum ExprArg<B: Backend> {
    Expr(Expr<B>),
    Lit(Literal),
}

/// Anything usable as an operand: expressions, arrays (by reference) and literals.
pub trait IntoExprArg<B: Backend> {
    fn into_arg(self) -> ExprArg<B>;
}

impl<B: Backend> IntoExprArg<B> for Expr<B> {
    fn into_arg(self) -> ExprArg<B> {
        ExprArg::Expr(self)
    }
}
impl<T: Element, B: Backend> IntoExprArg<B> for &Array<T, B> {
    fn into_arg(self) -> ExprArg<B> {
        ExprArg::Expr(self.ex())
    }
}
impl<B: Backend> IntoExprArg<B> for Scalar {
    fn into_arg(self) -> ExprArg<B> {
        ExprArg::Lit(Literal::Typed(self))
    }
}
impl<B: Backend> IntoExprArg<B> for bool {
    fn into_arg(self) -> ExprArg<B> {
        ExprArg::Lit(Literal::Bool(self))
    }
}
macro_rules! lit_arg {
    ($variant:ident, $conv:ty: $($t:ty),*) => {$(
        impl<B: Backend> IntoExprArg<B> for $t {
            fn into_arg(self) -> ExprArg<B> {
                ExprArg::Lit(Literal::$variant(self as $conv))
            }
        }
    )*};
}
lit_arg!(Float, f64: f64);
lit_arg!(Float32, f32: f32);
lit_arg!(Int, i128: u8, i32, u32, i64, u64);

fn leaf<B: Backend>(node: ExprNode<B>, dims: Dims, backend: Option<B>) -> Expr<B> {
    Expr {
        tree: Ok(Postfix::leaf(node, dims)),
        backend,
    }
}

impl<B: Backend> Expr<B> {
    /// An expression reading an array (the array's buffer is shared, not copied).
    pub fn array(a: &RawArray<B>) -> Self {
        let leaf_of_a = Leaf {
            data: a.data.clone(),
            offset: a.offset,
            dtype: a.dtype,
            dims: Dims::from_slice(&a.dims),
            strides: crate::shape::InlineStrides::from_slice(&a.strides),
        };
        leaf(
            ExprNode::Array(leaf_of_a),
            Dims::from_slice(&a.dims),
            Some(a.backend.clone()),
        )
    }

    /// A scalar constant (0-d; broadcasts to any shape).
    pub fn scalar(value: Scalar) -> Self {
        leaf(ExprNode::Scalar(value), Dims::new(), None)
    }

    /// The linear (row-major) index of each element of an array of shape `dims`, as i64.
    pub fn index(backend: &B, dims: &[usize]) -> Self {
        leaf(
            ExprNode::Index(Dims::from_slice(dims)),
            Dims::from_slice(dims),
            Some(backend.clone()),
        )
    }

    /// Counter-based random numbers of type `dtype` (f32 or f64) for shape `dims`; the same
    /// seed gives the same numbers on every backend (see [`crate::kernel::random`]).
    pub fn random(
        backend: &B,
        dims: &[usize],
        dtype: DType,
        dist: Distribution,
        seed: u64,
    ) -> Self {
        if !dtype.is_float() {
            let err = Error::invalid_dtype(
                dist.name(),
                dtype,
                "random numbers are drawn as f32 or f64; cast afterwards",
            );
            return Expr {
                tree: Err(err),
                backend: Some(backend.clone()),
            };
        }
        leaf(
            ExprNode::Random(dist, seed, dtype, Dims::from_slice(dims)),
            Dims::from_slice(dims),
            Some(backend.clone()),
        )
    }

    /// The element type of the expression's result (None if it is an error).
    pub fn dtype(&self) -> Option<DType> {
        self.tree.as_ref().ok().map(|t| t.dtype)
    }

    /// The shape of the expression's result (None if it is an error).
    pub fn dims(&self) -> Option<&[usize]> {
        self.tree.as_ref().ok().map(|t| t.dims.as_slice())
    }

    fn resolve(arg: ExprArg<B>, dtype: Option<DType>) -> Expr<B> {
        match arg {
            ExprArg::Expr(e) => e,
            ExprArg::Lit(l) => match dtype {
                Some(d) => match l.to_scalar(d) {
                    Ok(s) => Expr::scalar(s),
                    Err(e) => Expr {
                        tree: Err(e),
                        backend: None,
                    },
                },
                None => Expr::scalar(l.natural()),
            },
        }
    }

    fn join_backend(op: &str, a: Option<B>, b: Option<B>) -> Result<Option<B>> {
        match (a, b) {
            (Some(x), Some(y)) if x.device().id != y.device().id => Err(Error::DeviceMismatch {
                op: op.to_string(),
                a: x.device().to_string(),
                b: y.device().to_string(),
            }),
            (Some(x), _) => Ok(Some(x)),
            (None, y) => Ok(y),
        }
    }

    /// Applies a unary operation.
    pub fn unary(mut self, op: UnaryOp) -> Self {
        // In place: an expression is a few hundred bytes inline, and every move is a copy.
        if let Ok(t) = &mut self.tree {
            match op.result_dtype(t.dtype) {
                Ok(dtype) => t.push(ExprNode::Unary(op, dtype)),
                Err(e) => self.tree = Err(e),
            }
        }
        self
    }

    /// Applies a binary operation; a literal operand takes the other operand's type.
    pub fn binary(mut self, op: BinaryOp, rhs: impl IntoExprArg<B>) -> Self {
        match rhs.into_arg() {
            ExprArg::Expr(rhs) => Self::combine(op, self, rhs),
            ExprArg::Lit(lit) => {
                self.literal_operand(op, lit, false);
                self
            }
        }
    }

    /// `lit op rhs` with the literal typed from `rhs`.
    pub(crate) fn binary_lit_lhs(op: BinaryOp, lhs: Literal, mut rhs: Self) -> Self {
        rhs.literal_operand(op, lhs, true);
        rhs
    }

    /// `self op lit` (or `lit op self` when `lit_first`), in place: the literal is typed from
    /// this expression and is 0-d, so the shape and the device stay. The same nodes and
    /// errors as combining with `Expr::scalar` of the literal, without building a second
    /// expression (a few hundred bytes inline) and joining it.
    fn literal_operand(&mut self, op: BinaryOp, lit: Literal, lit_first: bool) {
        let Ok(t) = &mut self.tree else { return };
        let typed = lit.to_scalar(t.dtype).and_then(|s| {
            let (l, r) = if lit_first {
                (s.dtype(), t.dtype)
            } else {
                (t.dtype, s.dtype())
            };
            Ok((s, op.result_dtype(l, r)?))
        });
        match typed {
            Ok((value, dtype)) => {
                // Appended in both cases: the literal of `lit op self` goes after this
                // expression's nodes, with a node that takes its operands in reverse order
                // (inserting it in front would move every node, quadratic in chains).
                t.nodes.push(ExprNode::Scalar(value));
                t.push(if lit_first {
                    ExprNode::BinaryReversed(op, dtype)
                } else {
                    ExprNode::Binary(op, dtype)
                });
            }
            Err(e) => self.tree = Err(e),
        }
    }

    fn combine(op: BinaryOp, mut lhs: Self, mut rhs: Self) -> Self {
        match Self::join_backend(op.name(), lhs.backend.take(), rhs.backend.take()) {
            Ok(b) => lhs.backend = b,
            Err(e) => {
                return Expr {
                    tree: Err(e),
                    backend: None,
                };
            }
        }
        // In place, into `lhs` (see `unary`); the first error wins, the left one first.
        let Ok(l) = &mut lhs.tree else { return lhs };
        if rhs.tree.is_err() {
            lhs.tree = rhs.tree;
            return lhs;
        }
        let Ok(r) = &mut rhs.tree else { return lhs };
        let typed = op
            .result_dtype(l.dtype, r.dtype)
            .and_then(|d| Ok((d, broadcast(op.name(), &l.dims, &r.dims)?)));
        match typed {
            Ok((dtype, dims)) => {
                l.append(r);
                l.push(ExprNode::Binary(op, dtype));
                l.dims = dims;
            }
            Err(e) => lhs.tree = Err(e),
        }
        lhs
    }

    /// Converts to `to` with the cast rules of [`crate::scalar`].
    pub fn cast(mut self, to: DType) -> Self {
        if let Ok(t) = &mut self.tree {
            t.push(ExprNode::Cast(to));
        }
        self
    }

    /// `self ? a : b` elementwise; `self` must be bool; literals take the other branch's type.
    pub fn select(self, a: impl IntoExprArg<B>, b: impl IntoExprArg<B>) -> Self {
        let (a, b) = (a.into_arg(), b.into_arg());
        let hint = match (&a, &b) {
            (ExprArg::Expr(e), _) | (_, ExprArg::Expr(e)) => e.dtype(),
            _ => None,
        };
        let (a, b) = (Self::resolve(a, hint), Self::resolve(b, hint));
        let backend = Self::join_backend("select", self.backend, a.backend)
            .and_then(|x| Self::join_backend("select", x, b.backend));
        let backend = match backend {
            Ok(x) => x,
            Err(e) => {
                return Expr {
                    tree: Err(e),
                    backend: None,
                };
            }
        };
        let tree = self.tree.and_then(|mut c| {
            let (mut a, mut b) = (a.tree?, b.tree?);
            if c.dtype != DType::Bool {
                return Err(Error::invalid_dtype(
                    "select",
                    c.dtype,
                    "the condition must be bool; compare first",
                ));
            }
            if a.dtype != b.dtype {
                return Err(Error::DTypeMismatch {
                    op: "select".into(),
                    lhs: a.dtype,
                    rhs: b.dtype,
                });
            }
            let dims = broadcast("select", &c.dims, &a.dims)?;
            let dims = broadcast("select", &dims, &b.dims)?;
            let dtype = a.dtype;
            c.append(&mut a);
            c.append(&mut b);
            c.push(ExprNode::Select(dtype));
            c.dims = dims;
            Ok(c)
        });
        Expr { tree, backend }
    }

    pub fn abs(self) -> Self {
        self.unary(UnaryOp::Abs)
    }
    pub fn sqrt(self) -> Self {
        self.unary(UnaryOp::Sqrt)
    }
    pub fn exp(self) -> Self {
        self.unary(UnaryOp::Exp)
    }
    pub fn log(self) -> Self {
        self.unary(UnaryOp::Log)
    }
    pub fn sin(self) -> Self {
        self.unary(UnaryOp::Sin)
    }
    pub fn cos(self) -> Self {
        self.unary(UnaryOp::Cos)
    }
    pub fn tanh(self) -> Self {
        self.unary(UnaryOp::Tanh)
    }
    pub fn pow(self, e: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Pow, e)
    }
    /// Elementwise minimum (NaN if either is NaN).
    pub fn min(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Min, o)
    }
    /// Elementwise maximum (NaN if either is NaN).
    pub fn max(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Max, o)
    }
    pub fn eq(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Eq, o)
    }
    pub fn ne(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Ne, o)
    }
    pub fn lt(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Lt, o)
    }
    pub fn le(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Le, o)
    }
    pub fn gt(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Gt, o)
    }
    pub fn ge(self, o: impl IntoExprArg<B>) -> Self {
        self.binary(BinaryOp::Ge, o)
    }
}

/// The NumPy broadcast of two shapes (see [`shape::broadcast_shapes`]), inline: no
/// allocation up to `INLINE_DIMS` dimensions (a `Vec` here was one allocation per operation
/// with a literal, whose shape is 0-d). Errors are `broadcast_shapes`' own.
fn broadcast(op: &str, a: &[usize], b: &[usize]) -> Result<Dims> {
    if a == b {
        // The common case (same-shape operands) without the per-dimension walk.
        shape::check_rank(a.len())?;
        return Ok(Dims::from_slice(a));
    }
    let n = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i < n - s.len() {
            1
        } else {
            s[i - (n - s.len())]
        }
    };
    let mut out = Dims::with_capacity(n);
    for i in 0..n {
        out.push(match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return shape::broadcast_shapes(op, a, b).map(Dims::from_vec),
        });
    }
    shape::check_rank(n)?;
    Ok(out)
}

impl<T: Element, B: Backend> Array<T, B> {
    /// Starts an elementwise expression reading this array.
    pub fn ex(&self) -> Expr<B> {
        Expr::array(&self.raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::expr_nodes::ExprNode;

    /// `lit op e` appends two nodes and moves none of `e`'s: a chain of N such steps builds
    /// in O(N). (It used to insert the literal at the front, moving every node each step.)
    #[test]
    fn a_literal_on_the_left_is_appended_not_inserted() {
        let cpu = crate::test_backend::NoDevice::new();
        let x = Expr::index(&cpu, &[3]).cast(DType::F64);
        let before = x.tree.as_ref().map(|t| t.nodes.len()).unwrap_or(0);
        let y: Expr<crate::test_backend::NoDevice> = 1.0 - x;
        let t = y.tree.as_ref().expect("well-formed");
        assert_eq!(t.nodes.len(), before + 2);
        assert!(
            matches!(t.nodes[0], ExprNode::Index(_)),
            "the first node stays first"
        );
        assert!(matches!(t.nodes[before], ExprNode::Scalar(Scalar::F64(v)) if v == 1.0));
        assert!(matches!(
            t.nodes[before + 1],
            ExprNode::BinaryReversed(BinaryOp::Sub, DType::F64)
        ));
    }
}
