//! The gathers, scatters and masks of core (`ops/take.rs`, `ops/put.rs`, `ops/masks.rs`) as
//! one family of [`crate::case::Op`]. Inputs, in order: the array (or the target, for the
//! in-place ones), then the indices or mask, then the values or weights.

use gpuarrays_core::kernel::IndexMode;

/// One indexing operation with its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexCase {
    /// `a.take(indices, axis, mode)`.
    Take {
        axis: Option<usize>,
        mode: IndexMode,
    },
    /// `a.take_along_axis(indices, axis)`.
    TakeAlongAxis(usize),
    /// `target.put(indices, values, mode)`.
    Put(IndexMode),
    /// `target.put_along_axis(indices, values, axis)`.
    PutAlongAxis(usize),
    /// `target.scatter_add(indices, values, axis)`.
    ScatterAdd(usize),
    /// `target.index_copy(axis, indices, values)`.
    IndexCopy(usize),
    /// `target.index_add(axis, indices, values)`.
    IndexAdd(usize),
    /// `a.masked_select(mask)`.
    MaskedSelect,
    /// `target.masked_assign(mask, values)`.
    MaskedAssign,
    /// Output `which` of `a.nonzero()`.
    Nonzero(usize),
    /// `a.argwhere()`.
    Argwhere,
    /// `x.bincount(weights, minlength)`, weighted when a second input is given.
    Bincount(usize),
}

impl IndexCase {
    /// Whether the operation writes its first input in place (the result is that input's
    /// whole buffer).
    pub fn in_place(self) -> bool {
        matches!(
            self,
            IndexCase::Put(_)
                | IndexCase::PutAlongAxis(_)
                | IndexCase::ScatterAdd(_)
                | IndexCase::IndexCopy(_)
                | IndexCase::IndexAdd(_)
                | IndexCase::MaskedAssign
        )
    }

    /// Whether several updates of one element are summed (in an order that may differ
    /// between backends, so floats compare within a sum's tolerance).
    pub fn adds(self) -> bool {
        matches!(self, IndexCase::ScatterAdd(_) | IndexCase::IndexAdd(_))
    }

    /// The row name.
    pub fn name(self) -> &'static str {
        match self {
            IndexCase::Take { .. } => "take",
            IndexCase::TakeAlongAxis(_) => "take_along_axis",
            IndexCase::Put(_) => "put",
            IndexCase::PutAlongAxis(_) => "put_along_axis",
            IndexCase::ScatterAdd(_) => "scatter_add",
            IndexCase::IndexCopy(_) => "index_copy",
            IndexCase::IndexAdd(_) => "index_add",
            IndexCase::MaskedSelect => "masked_select",
            IndexCase::MaskedAssign => "masked_assign",
            IndexCase::Nonzero(_) => "nonzero",
            IndexCase::Argwhere => "argwhere",
            IndexCase::Bincount(_) => "bincount",
        }
    }
}
