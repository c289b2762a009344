//! Lowering an expression tree to a [`Program`] and running it on the backend.

use crate::array::{Array, RawArray};
use crate::backend::Backend;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
use crate::ops::expr::{Expr, Tree, TreeNode};
use crate::scalar::Scalar;
use crate::shape;
use crate::support::{OpKind, ensure_supported};

/// A program with the arrays and scalar values it reads.
pub(crate) struct Lowered<B: Backend> {
    pub(crate) program: Program,
    pub(crate) inputs: Vec<RawArray<B>>,
    pub(crate) scalars: Vec<Scalar>,
    pub(crate) dims: Vec<usize>,
}

struct Lowering<B: Backend> {
    program: Program,
    inputs: Vec<RawArray<B>>,
    scalars: Vec<Scalar>,
    out_dims: Vec<usize>,
}

impl<B: Backend> Lowering<B> {
    fn push(&mut self, node: Node, dtype: DType) -> u32 {
        self.program.instrs.push(Instr { node, dtype });
        (self.program.instrs.len() - 1) as u32
    }

    fn scalar_slot(&mut self, value: Scalar) -> u32 {
        self.program.scalars.push(value.dtype());
        self.scalars.push(value);
        (self.scalars.len() - 1) as u32
    }

    fn needs_output_shape(&self, what: &str, dims: &[usize]) -> Result<()> {
        if dims == self.out_dims.as_slice() {
            Ok(())
        } else {
            Err(Error::invalid_arg(
                "eval",
                format!(
                    "{what} leaves are drawn for shape {dims:?} but the expression has shape {:?}; \
                     evaluate the leaf to an array first to broadcast it",
                    self.out_dims
                ),
            ))
        }
    }

    fn lower(&mut self, t: &Tree<B>) -> Result<u32> {
        let node = match &t.node {
            TreeNode::Array(a) => {
                // The same buffer, offset, shape and type read twice is one input slot.
                // Expressions have a handful of inputs: a linear scan beats hashing
                // (measured: hashing was most of the host-side cost of a tiny expression).
                let same = |b: &RawArray<B>| {
                    crate::DataRef::same_buffer(&a.data, &b.data)
                        && a.offset == b.offset
                        && a.dtype == b.dtype
                        && a.dims == b.dims
                };
                let slot = match self.inputs.iter().position(same) {
                    Some(s) => s as u32,
                    None => {
                        self.inputs.push(a.clone());
                        self.program.inputs.push(a.dtype);
                        (self.inputs.len() - 1) as u32
                    }
                };
                Node::Input(slot)
            }
            TreeNode::Scalar(v) => Node::Scalar(self.scalar_slot(*v)),
            TreeNode::Index => {
                self.needs_output_shape("index", &t.dims)?;
                Node::Index
            }
            TreeNode::Random(dist, seed) => {
                self.needs_output_shape("random", &t.dims)?;
                Node::Random(*dist, self.scalar_slot(Scalar::U64(*seed)))
            }
            TreeNode::Unary(op, a) => Node::Unary(*op, self.lower(a)?),
            TreeNode::Binary(op, a, b) => {
                let a = self.lower(a)?;
                Node::Binary(*op, a, self.lower(b)?)
            }
            TreeNode::Cast(to, a) => Node::Cast(*to, self.lower(a)?),
            TreeNode::Select(c, a, b) => {
                let c = self.lower(c)?;
                let a = self.lower(a)?;
                Node::Select(c, a, self.lower(b)?)
            }
        };
        Ok(self.push(node, t.dtype))
    }
}

impl<B: Backend> Expr<B> {
    pub(crate) fn lowered(self) -> Result<(B, Lowered<B>)> {
        let tree = self.tree?;
        let backend = self.backend.ok_or_else(|| {
            Error::invalid_arg(
                "eval",
                "the expression reads no array, so it has no device; use Array::full",
            )
        })?;
        shape::check_rank(tree.dims.len())?;
        let mut l = Lowering {
            program: Program {
                inputs: Vec::new(),
                scalars: Vec::new(),
                instrs: Vec::new(),
            },
            inputs: Vec::new(),
            scalars: Vec::new(),
            out_dims: tree.dims.clone(),
        };
        l.lower(&tree)?;
        Ok((
            backend,
            Lowered {
                program: l.program,
                inputs: l.inputs,
                scalars: l.scalars,
                dims: l.out_dims,
            },
        ))
    }

    /// Evaluates into a new array whose element type is known at run time.
    pub fn eval_raw(self) -> Result<RawArray<B>> {
        let (backend, lowered) = self.lowered()?;
        let out = RawArray::alloc(&backend, lowered.program.output_dtype(), &lowered.dims)?;
        run(&backend, &lowered, &out)?;
        Ok(out)
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

    /// Evaluates into an existing array of the expression's shape and type. Reading the
    /// destination inside the expression is allowed; where it could change results (the
    /// destination read at other positions), a temporary is used.
    pub fn eval_into<T: Element>(self, dst: &mut Array<T, B>) -> Result<()> {
        let (backend, lowered) = self.lowered()?;
        let dst_raw = &dst.raw;
        if backend.device().id != dst_raw.backend.device().id {
            return Err(Error::DeviceMismatch {
                op: "eval_into".into(),
                a: backend.device().to_string(),
                b: dst_raw.backend.device().to_string(),
            });
        }
        if lowered.program.output_dtype() != T::DTYPE {
            return Err(Error::DTypeMismatch {
                op: "eval_into".into(),
                lhs: lowered.program.output_dtype(),
                rhs: T::DTYPE,
            });
        }
        if lowered.dims != dst_raw.dims {
            return Err(Error::WrongShape {
                op: "eval_into".into(),
                expected: lowered.dims,
                got: dst_raw.dims.clone(),
            });
        }
        let hazard = lowered.inputs.iter().any(|a| {
            crate::DataRef::same_buffer(&a.data, &dst_raw.data)
                && !(a.offset == dst_raw.offset
                    && a.dims == dst_raw.dims
                    && a.dtype == dst_raw.dtype)
        });
        if hazard {
            let tmp = RawArray::alloc(&backend, T::DTYPE, &lowered.dims)?;
            run(&backend, &lowered, &tmp)?;
            crate::ops::copy::copy_raw(&tmp, dst_raw)
        } else {
            run(&backend, &lowered, dst_raw)
        }
    }
}

/// Checks capabilities and dispatches a lowered program writing `out`.
pub(crate) fn run<B: Backend>(backend: &B, l: &Lowered<B>, out: &RawArray<B>) -> Result<()> {
    for dtype in l.program.dtypes() {
        ensure_supported(backend, dtype, OpKind::Elementwise)?;
    }
    for a in &l.inputs {
        a.same_device("elementwise", out)?;
    }
    if shape::numel(&l.dims) == 0 {
        return Ok(());
    }
    let mut all_strides = vec![shape::contiguous_strides(&l.dims)];
    all_strides.extend(
        l.inputs
            .iter()
            .map(|a| shape::broadcast_strides(&a.dims, &l.dims)),
    );
    let (dims, strides) = simplify_layout(&l.dims, &all_strides);
    let guards = l
        .inputs
        .iter()
        .map(|a| a.buffer())
        .collect::<Result<Vec<_>>>()?;
    let out_guard = out.buffer()?;
    let inputs = guards
        .iter()
        .zip(&l.inputs)
        .zip(&strides[1..])
        .map(|((g, a), s)| Operand {
            buffer: &**g,
            dtype: a.dtype,
            offset: a.offset,
            strides: s.clone(),
        })
        .collect();
    let args = ElementwiseArgs {
        shape: dims,
        inputs,
        scalars: l.scalars.clone(),
        output: Operand {
            buffer: &*out_guard,
            dtype: out.dtype,
            offset: out.offset,
            strides: strides[0].clone(),
        },
    };
    tracing::trace!(program = %l.program.describe(), shape = ?args.shape, "elementwise");
    backend.elementwise(&l.program, &args)
}
