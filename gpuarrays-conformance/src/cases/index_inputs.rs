//! Inputs of the gathers', scatters' and masks' rows: the case wrapper and index arrays
//! (drawn from a range, or distinct along what one update lane reaches).

use gpuarrays_core::DType;

use super::inp;
use crate::case::{CaseSpec, IndexCase, InputSpec, Op};
use crate::values::Profile;

pub(super) fn case(op: IndexCase, inputs: Vec<InputSpec>) -> CaseSpec {
    CaseSpec::new(Op::Index(op), inputs)
}

/// Indices of type `t` and shape `dims` drawn from `lo..hi`.
pub(super) fn idx(t: DType, dims: &[usize], lo: i64, hi: i64) -> InputSpec {
    inp(t, dims).profile(Profile::Indices(lo, hi))
}

/// Indices with distinct positions of `0..extent` in each run of `lane`.
pub(super) fn distinct(t: DType, dims: &[usize], extent: usize, lane: usize) -> InputSpec {
    inp(t, dims).profile(Profile::Distinct { extent, lane })
}
