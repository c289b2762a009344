//! The description of one fused elementwise kernel, as a backend receives it.
//!
//! A [`Program`] is a list of instructions in evaluation order; each instruction names its
//! operands by their position in the list, and the last instruction is the output. The
//! program holds element *types* only — scalar values are kernel arguments — so a backend
//! can key its compiled-kernel cache on the program alone (it is `Hash + Eq`).

use smallvec::SmallVec;

use crate::dtype::DType;
use crate::kernel::operators::{BinaryOp, UnaryOp};
use crate::kernel::random::Distribution;
use crate::scalar::Scalar;

/// One instruction. Operand fields are indices of earlier instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    /// The element of input operand `slot` at this position.
    Input(u32),
    /// Scalar argument `slot`.
    Scalar(u32),
    /// The output element's linear (row-major) index, as i64.
    Index,
    Unary(UnaryOp, u32),
    Binary(BinaryOp, u32, u32),
    /// Conversion with the rules of [`crate::scalar`].
    Cast(DType, u32),
    /// `cond ? a : b`; `cond` is bool, `a` and `b` have the result type.
    Select(u32, u32, u32),
    /// A random draw for this element (see [`crate::kernel::random`]); the seed is scalar
    /// argument `seed_slot` (a u64). Result type f32 or f64.
    Random(Distribution, u32),
}

/// An instruction and the type of the value it produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instr {
    pub node: Node,
    pub dtype: DType,
}

/// A fused elementwise kernel: types of the inputs and scalars, and the instructions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Program {
    pub inputs: Vec<DType>,
    pub scalars: Vec<DType>,
    pub instrs: Vec<Instr>,
}

impl Program {
    /// The output type (that of the last instruction).
    #[inline]
    pub fn output_dtype(&self) -> DType {
        self.instrs.last().map(|i| i.dtype).unwrap_or(DType::Bool)
    }

    /// Every element type the kernel computes with (for capability checks), deduplicated.
    /// A random draw's u64 seed is not counted: it is 64 bits of key material, which a
    /// backend without 64-bit integers can pass as two u32 words.
    pub fn dtypes(&self) -> Vec<DType> {
        self.computed_dtypes().collect()
    }

    /// The types of [`dtypes`](Self::dtypes) (each once, in [`DType::ALL`]'s order),
    /// without allocating: the dispatch path checks each against the backend. Found in one
    /// pass over the instructions into a bit set; the chained iterators this replaced, and
    /// deduplicating their repeats, were ~400 host instructions per dispatch of `a*x + y`
    /// (`host_path` bench).
    #[inline]
    pub fn computed_dtypes(&self) -> impl Iterator<Item = DType> + 'static {
        let bit = |d: DType| 1u32 << d as u32;
        let mut set = 0u32;
        let mut seeds: SmallVec<[u32; 4]> = SmallVec::new();
        for i in &self.instrs {
            set |= bit(i.dtype);
            match i.node {
                Node::Random(_, seed) => seeds.push(seed),
                Node::Index => set |= bit(DType::I64),
                _ => {}
            }
        }
        for &d in &self.inputs {
            set |= bit(d);
        }
        for (slot, &d) in self.scalars.iter().enumerate() {
            if !seeds.contains(&(slot as u32)) {
                set |= bit(d);
            }
        }
        DType::ALL.into_iter().filter(move |&d| set & bit(d) != 0)
    }

    /// Whether the program draws random numbers (has a [`Node::Random`]): a backend plans
    /// such kernels differently (the counter-based generator's work per thread).
    #[inline]
    pub fn draws_random(&self) -> bool {
        self.instrs
            .iter()
            .any(|i| matches!(i.node, Node::Random(..)))
    }

    /// Whether a value depends on where an element sits in the output's index space (a
    /// [`Node::Index`] or a random draw, which is keyed by the index): such a program cannot
    /// be run as pieces of its index space in another order.
    #[inline]
    pub fn reads_output_index(&self) -> bool {
        self.instrs
            .iter()
            .any(|i| matches!(i.node, Node::Index | Node::Random(..)))
    }

    /// A short human-readable form, for logs and kernel names.
    pub fn describe(&self) -> String {
        self.instrs
            .iter()
            .enumerate()
            .map(|(i, ins)| format!("%{i}:{}={:?}", ins.dtype, ins.node))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How one operand (input or output) is laid out over the output index space.
///
/// The element of this operand at output multi-index `(i0, .., in)` is at element position
/// `offset + Σ ik · strides[k]` of its buffer (positions in units of the operand's element
/// type; strides may be 0 for broadcast dimensions and negative for reversed axes).
///
/// Every field is borrowed or plain data, so an operand is `Copy` whatever the buffer type:
/// the caller keeps the strides wherever it computed them (core keeps them per thread, so a
/// dispatch allocates nothing), and a backend that wraps another re-types an operand without
/// copying vectors.
#[derive(Debug)]
pub struct Operand<'a, Buf> {
    pub buffer: &'a Buf,
    pub dtype: DType,
    /// Offset of the first element, in elements.
    pub offset: usize,
    /// One stride per dimension of [`ElementwiseArgs::shape`], in elements.
    pub strides: &'a [isize],
}

// Written out rather than derived: a derive would require `Buf: Clone`, and the operand holds
// only a reference to the buffer.
impl<Buf> Clone for Operand<'_, Buf> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Buf> Copy for Operand<'_, Buf> {}

/// How a kernel reads an operand; part of a compiled kernel's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Consecutive elements: a one-dimensional shape with stride 1.
    Contiguous,
    /// The same element everywhere (all strides 0).
    Broadcast,
    /// General strided access over `ndim` dimensions.
    Strided(usize),
}

impl<Buf> Operand<'_, Buf> {
    /// The access class of this operand.
    pub fn access(&self) -> Access {
        if self.strides.iter().all(|&s| s == 0) {
            Access::Broadcast
        } else if self.strides.len() == 1 && self.strides[0] == 1 {
            Access::Contiguous
        } else {
            Access::Strided(self.strides.len())
        }
    }
}

/// Everything a backend needs to run a [`Program`] once.
///
/// The shape has already been simplified by core (dimensions merged wherever every operand
/// allows), so the common case of same-shape contiguous arrays arrives one-dimensional with
/// every operand [`Access::Contiguous`]. The output is row-major contiguous over the shape,
/// unless the backend answers [`Backend::writes_strided_outputs`](crate::Backend::writes_strided_outputs)
/// with `true` for its type: then it may have any strides (negative too; never 0 along a dimension longer
/// than 1, so no two output elements share an address). The output never aliases an input in
/// a way that changes results: an input in the output's buffer is either read element for
/// element where it is written, or does not overlap it. The shape is never empty of
/// elements: core does not dispatch zero-element kernels.
///
/// The description is borrowed throughout (slices, not vectors): whoever builds it keeps the
/// storage, so building one allocates nothing and re-typing one (see
/// [`with_mapped_buffers`](Self::with_mapped_buffers)) copies no vectors.
#[derive(Debug)]
pub struct ElementwiseArgs<'a, Buf> {
    pub shape: &'a [usize],
    pub inputs: &'a [Operand<'a, Buf>],
    pub scalars: &'a [Scalar],
    pub output: Operand<'a, Buf>,
}

impl<Buf> Clone for ElementwiseArgs<'_, Buf> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Buf> Copy for ElementwiseArgs<'_, Buf> {}

impl<Buf> ElementwiseArgs<'_, Buf> {
    /// Number of output elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The access class of every input, in order (with the program, a compiled-kernel key).
    pub fn access_pattern(&self) -> Vec<Access> {
        self.inputs.iter().map(Operand::access).collect()
    }
}

/// Merges adjacent dimensions wherever every operand's strides allow, and drops dimensions
/// of size 1. Returns the new shape and each operand's new strides (same order as given).
pub fn simplify_layout(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut out_shape = Vec::new();
    let mut out_strides = vec![Vec::new(); strides.len()];
    simplify_layout_into(shape, strides, &mut out_shape, &mut out_strides);
    (out_shape, out_strides)
}

/// [`simplify_layout`] into vectors the caller provides (cleared first; `out_strides` has one
/// per operand), so a dispatch can reuse their capacity instead of allocating.
pub fn simplify_layout_into<S: AsRef<[isize]>>(
    shape: &[usize],
    strides: &[S],
    out_shape: &mut Vec<usize>,
    out_strides: &mut [Vec<isize>],
) {
    debug_assert_eq!(strides.len(), out_strides.len());
    out_shape.clear();
    out_strides.iter_mut().for_each(Vec::clear);
    for d in (0..shape.len()).filter(|&d| shape[d] != 1) {
        let mergeable = !out_shape.is_empty()
            && strides.iter().zip(out_strides.iter()).all(|(s, o)| {
                let prev = *o.last().unwrap_or(&0);
                prev == s.as_ref()[d] * shape[d] as isize
            });
        if mergeable {
            let last = out_shape.len() - 1;
            out_shape[last] *= shape[d];
            for (s, o) in strides.iter().zip(out_strides.iter_mut()) {
                let l = o.len() - 1;
                o[l] = s.as_ref()[d];
            }
        } else {
            out_shape.push(shape[d]);
            for (s, o) in strides.iter().zip(out_strides.iter_mut()) {
                o.push(s.as_ref()[d]);
            }
        }
    }
    if out_shape.is_empty() {
        out_shape.push(1);
        for s in out_strides.iter_mut() {
            s.push(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplify_merges_contiguous_and_keeps_broadcast() {
        let (s, st) = simplify_layout(&[2, 3, 4], &[vec![12, 4, 1], vec![12, 4, 1]]);
        assert_eq!(s, vec![24]);
        assert_eq!(st, vec![vec![1], vec![1]]);
        // Second operand broadcast along the middle axis.
        let (s, st) = simplify_layout(&[2, 3, 4], &[vec![12, 4, 1], vec![4, 0, 1]]);
        assert_eq!(s, vec![2, 3, 4]);
        assert_eq!(st[1], vec![4, 0, 1]);
        // A scalar operand everywhere.
        let (s, st) = simplify_layout(&[5, 7], &[vec![7, 1], vec![0, 0]]);
        assert_eq!(s, vec![35]);
        assert_eq!(st, vec![vec![1], vec![0]]);
        // Size-1 dims vanish; 0-d becomes [1].
        let (s, st) = simplify_layout(&[1, 1], &[vec![1, 1]]);
        assert_eq!(s, vec![1]);
        assert_eq!(st, vec![vec![1]]);
        // Reversed axis stays strided.
        let (s, st) = simplify_layout(&[4], &[vec![1], vec![-1]]);
        assert_eq!(s, vec![4]);
        assert_eq!(st[1], vec![-1]);
    }

    #[test]
    fn draws_random_finds_a_random_leaf_anywhere() {
        let ins = |node, dtype| Instr { node, dtype };
        let mut p = Program {
            inputs: vec![DType::F32],
            scalars: vec![DType::U64],
            instrs: vec![ins(Node::Input(0), DType::F32)],
        };
        assert!(!p.draws_random());
        p.instrs
            .push(ins(Node::Random(Distribution::Normal, 0), DType::F32));
        p.instrs
            .push(ins(Node::Binary(BinaryOp::Add, 0, 1), DType::F32));
        assert!(
            p.draws_random(),
            "a draw before the last instruction counts"
        );
    }
}
