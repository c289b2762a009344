//! Lowering an expression to a [`crate::kernel::Program`] and running it on the backend.
//!
//! The host path of a small operation is mostly this file and the backend's enqueue, so it
//! allocates as little as it can: the program and the argument vectors are reused per thread
//! ([`eval_scratch`](super::eval_scratch)), the inputs are borrowed from the expression,
//! strides are computed inline. Measured on the platform test double (`cargo bench -p
//! gpuarrays-hip --bench host_path`, docs/results/hip-host-path.md).

use smallvec::SmallVec;

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, simplify_layout_into};
use crate::ops::eval_scratch::{Scratch, strides_for, with_scratch};
use crate::ops::expr::Expr;
use crate::ops::expr_nodes::{ExprNode, Leaf, Postfix};
use crate::scalar::Scalar;
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// The distinct arrays a program reads, in input-slot order (borrowed from the expression).
type Inputs<'t, Buf> = SmallVec<[&'t Leaf<Buf>; 4]>;

fn shape_error(what: &str, dims: &[usize], out: &[usize]) -> Error {
    Error::invalid_arg(
        "eval",
        format!(
            "{what} leaves are drawn for shape {dims:?} but the expression has shape {out:?}; \
             evaluate the leaf to an array first to broadcast it"
        ),
    )
}

fn scalar_slot(s: &mut Scratch, value: Scalar) -> u32 {
    s.program.scalars.push(value.dtype());
    s.scalars.push(value);
    (s.scalars.len() - 1) as u32
}

/// Lowers `tree` into `s.program` and `s.scalars`; returns the arrays it reads. The nodes are
/// already in instruction order: operands are the values on a stack.
fn lower<'t, B: Backend>(tree: &'t Postfix<B>, s: &mut Scratch) -> Result<Inputs<'t, B::Buffer>> {
    let malformed = || Error::invalid_arg("eval", "an operation without its operands");
    let mut inputs: Inputs<'t, B::Buffer> = SmallVec::new();
    let mut stack: SmallVec<[u32; 16]> = SmallVec::new();
    for node in &tree.nodes {
        let mut pop = || stack.pop().ok_or_else(malformed);
        let lowered = match node {
            ExprNode::Array(leaf) => {
                // The same buffer, offset, shape and type read twice is one input slot.
                // Expressions have a handful of inputs: a linear scan beats hashing
                // (measured: hashing was most of the host-side cost of a tiny expression).
                let slot = match inputs.iter().position(|l| l.same_input(leaf)) {
                    Some(slot) => slot,
                    None => {
                        inputs.push(leaf);
                        s.program.inputs.push(leaf.dtype);
                        inputs.len() - 1
                    }
                };
                Node::Input(slot as u32)
            }
            ExprNode::Scalar(v) => Node::Scalar(scalar_slot(s, *v)),
            ExprNode::Index(dims) => {
                if *dims != tree.dims {
                    return Err(shape_error("index", dims, &tree.dims));
                }
                Node::Index
            }
            ExprNode::Random(dist, seed, _, dims) => {
                if *dims != tree.dims {
                    return Err(shape_error("random", dims, &tree.dims));
                }
                Node::Random(*dist, scalar_slot(s, Scalar::U64(*seed)))
            }
            ExprNode::Unary(op, _) => Node::Unary(*op, pop()?),
            ExprNode::Binary(op, _) => {
                let b = pop()?;
                Node::Binary(*op, pop()?, b)
            }
            ExprNode::BinaryReversed(op, _) => {
                let a = pop()?;
                Node::Binary(*op, a, pop()?)
            }
            ExprNode::Cast(to) => Node::Cast(*to, pop()?),
            ExprNode::Select(_) => {
                let b = pop()?;
                let a = pop()?;
                Node::Select(pop()?, a, b)
            }
        };
        s.program.instrs.push(Instr {
            node: lowered,
            dtype: node.dtype(),
        });
        stack.push((s.program.instrs.len() - 1) as u32);
    }
    if stack.len() != 1 {
        return Err(malformed());
    }
    Ok(inputs)
}

impl<B: Backend> Expr<B> {
    /// The backend and the well-formed expression, or the first error found building it
    /// (taken out: the expression is consumed by its caller). Borrowed, not moved: an
    /// expression is a few hundred bytes inline, and every move is a copy.
    fn parts(&mut self) -> Result<(&B, &Postfix<B>)> {
        let tree = match &mut self.tree {
            Ok(t) => &*t,
            Err(e) => return Err(std::mem::replace(e, Error::invalid_arg("eval", "reported"))),
        };
        let backend = self.backend.as_ref().ok_or_else(|| {
            Error::invalid_arg(
                "eval",
                "the expression reads no array, so it has no device; use Array::full",
            )
        })?;
        shape::check_rank(tree.dims.len())?;
        Ok((backend, tree))
    }

    /// Evaluates into a new array whose element type is known at run time.
    pub fn eval_raw(mut self) -> Result<RawArray<B>> {
        let (backend, tree) = self.parts()?;
        with_scratch(|s| {
            let inputs = lower(tree, s)?;
            let out = RawArray::alloc(backend, tree.dtype, &tree.dims)?;
            run(backend, &inputs, &tree.dims, s, &out)?;
            Ok(out)
        })
    }

    /// Evaluates into a new array of `T` (which must be the expression's type).
    pub fn eval<T: Element>(self) -> Result<Array<T, B>> {
        if let Some(d) = self.dtype() {
            if d != T::DTYPE {
                return Err(Error::DTypeMismatch {
                    op: "eval".into(),
                    lhs: d,
                    rhs: T::DTYPE,
                });
            }
        }
        Ok(Array::from_raw(self.eval_raw()?))
    }

    /// Evaluates into an existing array of the expression's shape and type, which may be a
    /// strided view (a block, a column, a reversed axis). Reading the destination inside the
    /// expression is allowed; where it could change results (the destination read at other
    /// positions than it is written), the expression is evaluated into a temporary first.
    /// A destination with a stride of 0 along a dimension longer than 1 (a broadcast view:
    /// several elements at one address) is refused.
    pub fn eval_into<T: Element>(self, dst: &mut Array<T, B>) -> Result<()> {
        if let Some(d) = self.dtype() {
            if d != T::DTYPE {
                return Err(Error::DTypeMismatch {
                    op: "eval_into".into(),
                    lhs: d,
                    rhs: T::DTYPE,
                });
            }
        }
        self.eval_into_raw(&dst.raw)
    }

    /// [`eval_into`](Self::eval_into) for an array whose type is known at run time.
    pub fn eval_into_raw(mut self, dst_raw: &RawArray<B>) -> Result<()> {
        let (backend, tree) = self.parts()?;
        if backend.device().id != dst_raw.backend.device().id {
            return Err(Error::DeviceMismatch {
                op: "eval_into".into(),
                a: backend.device().to_string(),
                b: dst_raw.backend.device().to_string(),
            });
        }
        if tree.dtype != dst_raw.dtype {
            return Err(Error::DTypeMismatch {
                op: "eval_into".into(),
                lhs: tree.dtype,
                rhs: dst_raw.dtype,
            });
        }
        if tree.dims.as_slice() != dst_raw.dims.as_slice() {
            return Err(Error::WrongShape {
                op: "eval_into".into(),
                expected: tree.dims.to_vec(),
                got: dst_raw.dims.clone(),
            });
        }
        check_writable("eval_into", dst_raw)?;
        let hazard = tree.nodes.iter().any(|n| match n {
            ExprNode::Array(a) => reads_elsewhere(a, dst_raw),
            _ => false,
        });
        with_scratch(|s| {
            let inputs = lower(tree, s)?;
            // A strided destination on a backend that writes contiguous outputs only is
            // written in pieces, which a program reading the output index cannot be.
            let pieces = !dst_raw.is_contiguous()
                && !backend.writes_strided_outputs(tree.dtype)
                && s.program.reads_output_index();
            if hazard || pieces {
                let tmp = RawArray::alloc(backend, tree.dtype, &tree.dims)?;
                run(backend, &inputs, &tree.dims, s, &tmp)?;
                crate::ops::copy::copy_raw(&tmp, dst_raw)
            } else {
                run(backend, &inputs, &tree.dims, s, dst_raw)
            }
        })
    }
}

/// Fails unless `dst` can be written element by element: a stride of 0 along a dimension
/// longer than 1 (a broadcast view) puts several elements at one address.
pub(crate) fn check_writable<B: Backend>(op: &str, dst: &RawArray<B>) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    match dst
        .dims
        .iter()
        .zip(&dst.strides)
        .position(|(&d, &s)| d > 1 && s == 0)
    {
        None => Ok(()),
        Some(axis) => Err(Error::invalid_arg(
            op,
            format!(
                "the destination (shape {:?}, strides {:?}) is a broadcast view: its axis {axis} \
                 repeats one element, so writing it is ambiguous; write into a copy \
                 (`contiguous()`) instead",
                dst.dims, dst.strides
            ),
        )),
    }
}

/// Whether reading `a` while writing `dst` could read an element `dst` already overwrote:
/// `a` lies in `dst`'s buffer, their spans overlap, and `a` is not `dst` itself element for
/// element (same type, first element and strides, a broadcast reading each element of `dst`
/// only where it is written).
fn reads_elsewhere<B: Backend>(a: &Leaf<B::Buffer>, dst: &RawArray<B>) -> bool {
    if !crate::DataRef::same_buffer(&a.data, &dst.data) {
        return false;
    }
    let byte_span = |offset: usize, dims: &[usize], strides: &[isize], size: usize| {
        shape::span(offset, dims, strides).map(|(lo, hi)| (lo * size, (hi + 1) * size))
    };
    let (Some((alo, ahi)), Some((dlo, dhi))) = (
        byte_span(a.offset, &a.dims, &a.strides, a.dtype.size()),
        byte_span(dst.offset, &dst.dims, &dst.strides, dst.dtype.size()),
    ) else {
        return false;
    };
    if ahi <= dlo || dhi <= alo {
        return false;
    }
    // Strides of axes of length 1 never move: compare the others.
    let moving = |strides: &[isize]| -> shape::InlineStrides {
        dst.dims
            .iter()
            .zip(strides)
            .map(|(&d, &s)| if d == 1 { 0 } else { s })
            .collect()
    };
    let read = shape::broadcast_view_strides(&a.dims, &a.strides, &dst.dims);
    let same_place =
        a.dtype == dst.dtype && a.offset == dst.offset && moving(&read) == moving(&dst.strides);
    !same_place
}

/// Checks capabilities and dispatches the program in `s` over `dims`, reading `inputs` and
/// writing `out`. Every input is on `backend`'s device: building the expression checked it.
fn run<B: Backend>(
    backend: &B,
    inputs: &[&Leaf<B::Buffer>],
    dims: &[usize],
    s: &mut Scratch,
    out: &RawArray<B>,
) -> Result<()> {
    for dtype in s.program.computed_dtypes() {
        ensure_supported(backend, dtype, OpKind::Elementwise)?;
    }
    if backend.device().id != out.backend.device().id {
        return Err(Error::DeviceMismatch {
            op: "elementwise".into(),
            a: backend.device().to_string(),
            b: out.backend.device().to_string(),
        });
    }
    if shape::numel(dims) == 0 {
        // No kernel, but every array the expression reads must still be alive.
        for l in inputs {
            l.data.read()?;
        }
        return out.ensure_alive();
    }
    // Operand 0 is the output, then the inputs broadcast to `dims`.
    let strides = strides_for(&mut s.strides, inputs.len() + 1);
    let out_contiguous = out.is_contiguous();
    if out_contiguous
        && inputs
            .iter()
            .all(|l| l.dims.as_slice() == dims && l.is_contiguous())
    {
        // Every operand contiguous over the same shape: what `simplify_layout` makes of it
        // (one dimension, stride 1), without computing and merging the strides.
        s.shape.push(shape::numel(dims));
        strides.iter_mut().for_each(|v| v.push(1));
    } else {
        let out_strides = if out_contiguous {
            shape::broadcast_strides_inline(dims, dims)
        } else {
            shape::InlineStrides::from_slice(&out.strides)
        };
        let all_strides: SmallVec<[shape::InlineStrides; 5]> = std::iter::once(out_strides)
            .chain(
                inputs
                    .iter()
                    .map(|l| shape::broadcast_view_strides(&l.dims, &l.strides, dims)),
            )
            .collect();
        simplify_layout_into(dims, &all_strides, &mut s.shape, strides);
    }
    let mut guards: SmallVec<[_; 4]> = SmallVec::new();
    for l in inputs {
        guards.push(l.data.read()?);
    }
    let out_guard = out.buffer()?;
    let output = Operand {
        buffer: &*out_guard,
        dtype: out.dtype,
        offset: out.offset,
        strides: &s.strides[0],
    };
    let operands: SmallVec<[Operand<'_, B::Buffer>; 4]> = guards
        .iter()
        .zip(inputs)
        .zip(&s.strides[1..])
        .map(|((g, l), strides)| Operand {
            buffer: &**g,
            dtype: l.dtype,
            offset: l.offset,
            strides,
        })
        .collect();
    let args = ElementwiseArgs {
        shape: &s.shape,
        inputs: &operands,
        scalars: &s.scalars,
        output,
    };
    tracing::trace!(program = %s.program.describe(), shape = ?args.shape, "elementwise");
    crate::ops::strided_output::elementwise(backend, &s.program, &args)
}
