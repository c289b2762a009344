//! The form an expression is built in: its nodes in evaluation (postfix) order, inline.
//!
//! Each operation appends its own node after its operands' nodes, so joining two expressions
//! is one copy of the right one's nodes, and the list is already the instruction order of
//! the lowered [`crate::kernel::Program`] (operands are found with a stack when lowering).
//! Nodes live inline up to [`INLINE_NODES`], shapes up to [`INLINE_DIMS`] dimensions, and an
//! array leaf holds its buffer reference without the array's backend handle or shape `Vec`:
//! building `x * a + y` allocates nothing. Measured on the platform test double
//! (`cargo bench -p gpuarrays-hip --bench host_path`): the boxed tree this replaced made 15
//! of the 43 heap allocations of one `Expr::eval_into` of `x * a + y`, and the allocator
//! was ~45 % of the user API's host instructions.

use smallvec::SmallVec;

use crate::backend::Backend;
use crate::data_ref::DataRef;
use crate::dtype::DType;
use crate::kernel::{BinaryOp, Distribution, UnaryOp};
use crate::scalar::Scalar;

/// Nodes kept inline (an expression of up to 4 operations on up to 4 leaves).
pub(crate) const INLINE_NODES: usize = 8;
/// Dimensions kept inline; higher ranks (up to `MAX_DIMS`) spill to the heap.
pub(crate) const INLINE_DIMS: usize = 4;

/// A shape, inline up to [`INLINE_DIMS`] dimensions.
pub(crate) type Dims = SmallVec<[usize; INLINE_DIMS]>;

/// An array read by an expression: the shared buffer and where the array lies in it.
pub(crate) struct Leaf<Buf> {
    pub(crate) data: DataRef<Buf>,
    pub(crate) offset: usize,
    pub(crate) dtype: DType,
    pub(crate) dims: Dims,
    /// The array's own strides (one per dimension of `dims`), in elements.
    pub(crate) strides: crate::shape::InlineStrides,
}

impl<Buf> Leaf<Buf> {
    /// Whether both read the same elements the same way (one input slot of the kernel).
    pub(crate) fn same_input(&self, other: &Leaf<Buf>) -> bool {
        DataRef::same_buffer(&self.data, &other.data)
            && self.offset == other.offset
            && self.dtype == other.dtype
            && self.dims == other.dims
            && self.strides == other.strides
    }

    /// Whether the leaf is one row-major run.
    pub(crate) fn is_contiguous(&self) -> bool {
        crate::shape::is_contiguous(&self.dims, &self.strides)
    }
}

/// One node; operands are the values of the nodes before it (a stack machine).
pub(crate) enum ExprNode<B: Backend> {
    Array(Leaf<B::Buffer>),
    Scalar(Scalar),
    /// Linear index of the output element, for shape `dims` (which must be the output's).
    Index(Dims),
    /// A random draw of `dtype` with a seed, for shape `dims` (which must be the output's).
    Random(Distribution, u64, DType, Dims),
    /// One operand; the result type.
    Unary(UnaryOp, DType),
    /// Two operands (left first); the result type.
    Binary(BinaryOp, DType),
    /// Two operands, the *right* one first; the result type. `lit op expr` appends its
    /// literal after the expression's nodes with this node, instead of inserting the literal
    /// before all of them: a chain like `1.0 + (1.0 + (...))` then builds in linear time
    /// (inserting at the front made 40,000 steps take seconds).
    BinaryReversed(BinaryOp, DType),
    /// One operand, converted to the type.
    Cast(DType),
    /// Condition, then-value, else-value; the result type.
    Select(DType),
}

impl<B: Backend> ExprNode<B> {
    /// The type of the value this node produces.
    pub(crate) fn dtype(&self) -> DType {
        match self {
            ExprNode::Array(l) => l.dtype,
            ExprNode::Scalar(v) => v.dtype(),
            ExprNode::Index(_) => DType::I64,
            ExprNode::Random(_, _, d, _)
            | ExprNode::Unary(_, d)
            | ExprNode::Binary(_, d)
            | ExprNode::BinaryReversed(_, d)
            | ExprNode::Cast(d)
            | ExprNode::Select(d) => *d,
        }
    }
}

/// A well-formed expression: its nodes, and the type and (broadcast) shape of its result.
pub(crate) struct Postfix<B: Backend> {
    pub(crate) nodes: SmallVec<[ExprNode<B>; INLINE_NODES]>,
    pub(crate) dtype: DType,
    pub(crate) dims: Dims,
}

impl<B: Backend> Postfix<B> {
    /// A one-node expression.
    pub(crate) fn leaf(node: ExprNode<B>, dims: Dims) -> Self {
        let dtype = node.dtype();
        let mut nodes = SmallVec::new();
        nodes.push(node);
        Postfix { nodes, dtype, dims }
    }

    /// Appends `node`, which takes the operands on the stack; the shape stays (callers of
    /// broadcasting operations set it).
    pub(crate) fn push(&mut self, node: ExprNode<B>) {
        self.dtype = node.dtype();
        self.nodes.push(node);
    }

    /// Moves the nodes of `other` after this one's (its value then follows this one's on the
    /// stack), leaving `other` empty.
    pub(crate) fn append(&mut self, other: &mut Postfix<B>) {
        self.nodes.extend(other.nodes.drain(..));
    }
}
