//! The catalogue of cases: one row per (operation, element type), each with cases over
//! 0-d, empty, one-element, odd, non-multiple-of-block, multi-dimensional and (unless quick)
//! large shapes, broadcast pairs, derived operands with offsets, and error cases.

mod axis;
mod construct;
mod elementwise;
mod extras;
mod fft;
mod index_inputs;
mod indexing;
mod join;
mod order;
mod reduce;
mod scatter;
mod stats;

use gpuarrays_core::DType;

use crate::case::{CaseSpec, InputSpec, Layout};
use crate::values::Profile;

/// The cases of one operation on one element type.
#[derive(Debug, Clone)]
pub struct RowSpec {
    pub op: String,
    pub dtype: DType,
    pub cases: Vec<CaseSpec>,
}

impl RowSpec {
    pub fn new(op: impl Into<String>, dtype: DType, cases: Vec<CaseSpec>) -> Self {
        RowSpec {
            op: op.into(),
            dtype,
            cases,
        }
    }

    /// "op/dtype": what [`crate::SuiteConfig::filter`] matches.
    pub fn key(&self) -> String {
        format!("{}/{}", self.op, self.dtype)
    }
}

/// Every row, in a fixed order.
pub fn rows(quick: bool) -> Vec<RowSpec> {
    let s = Sizes { quick };
    let mut rows = Vec::new();
    elementwise::rows(&s, &mut rows);
    construct::rows(&s, &mut rows);
    reduce::rows(&s, &mut rows);
    axis::rows(&s, &mut rows);
    stats::rows(&s, &mut rows);
    fft::rows(&s, &mut rows);
    join::rows(&s, &mut rows);
    extras::rows(&s, &mut rows);
    indexing::rows(&s, &mut rows);
    order::rows(&s, &mut rows);
    rows
}

/// A large length that is not a multiple of any block size.
pub const LARGE: usize = (1 << 20) + 3;
/// A length just past a typical block size.
pub const ODD: usize = 1000 + 7;

/// Shape sets, by mode.
pub struct Sizes {
    pub quick: bool,
}

impl Sizes {
    /// Shapes of elementwise operands: 0-d, empty, one, odd, non-multiple-of-block, 2-D to
    /// 4-D (with size-1 axes), empty 2-D; plus large ones unless quick.
    pub fn elementwise(&self) -> Vec<Vec<usize>> {
        let mut v = vec![
            vec![],
            vec![0],
            vec![1],
            vec![7],
            vec![ODD],
            vec![3, 5],
            vec![2, 3, 4],
            vec![2, 1, 3, 2],
            vec![0, 3],
        ];
        if !self.quick {
            v.push(vec![LARGE]);
            v.push(vec![517, 1031]);
        }
        v
    }

    /// Adds `big` unless quick.
    pub fn with_large<T>(&self, mut v: Vec<T>, big: Vec<T>) -> Vec<T> {
        if !self.quick {
            v.extend(big);
        }
        v
    }
}

/// Derived-operand placements: (shape, layout) pairs with offsets into larger buffers.
pub fn derived(dtype: DType) -> Vec<(Vec<usize>, Layout)> {
    vec![
        (vec![ODD], Layout::Slice),
        (vec![2, 3, 4], Layout::RowView),
        (vec![7], reinterpret_or_slice(dtype)),
        (vec![3, 5], Layout::Slice),
        (vec![3, 5], Layout::Strided),
        (vec![2, 3, 4], Layout::Reversed),
        (vec![4, 6], Layout::Transposed),
    ]
}

/// `Reinterpret`, except for bool: `BoolBytes` (true written as bytes other than 1).
pub fn reinterpret_or_slice(dtype: DType) -> Layout {
    if dtype == DType::Bool {
        Layout::BoolBytes
    } else {
        Layout::Reinterpret
    }
}

/// One input of each elementwise shape, then each derived placement.
pub fn single_inputs(s: &Sizes, dtype: DType, profile: Profile) -> Vec<InputSpec> {
    let plain = s
        .elementwise()
        .into_iter()
        .map(|d| InputSpec::new(dtype, &d).profile(profile));
    let derived = derived(dtype)
        .into_iter()
        .map(|(d, l)| InputSpec::new(dtype, &d).layout(l).profile(profile));
    plain.chain(derived).collect()
}

/// A type other than `dtype` (for type-mismatch cases).
pub fn other_dtype(dtype: DType) -> DType {
    if dtype == DType::F32 {
        DType::F64
    } else {
        DType::F32
    }
}

/// How many special values `dtype` has ([`crate::specials::specials`]).
pub fn special_count(dtype: DType) -> usize {
    crate::specials::specials(dtype).len()
}

/// An input of shape `dims` holding the special values of `dtype` in order.
pub fn all_specials(dtype: DType, dims: &[usize]) -> InputSpec {
    InputSpec::new(dtype, dims).profile(Profile::AllSpecials)
}

/// Shorthand for an input of shape `dims`.
pub fn inp(dtype: DType, dims: &[usize]) -> InputSpec {
    InputSpec::new(dtype, dims)
}
