//! The sort family of core (`ops/argsort.rs`, `ops/unique.rs`) as one family of
//! [`crate::case::Op`]: `argsort`, `sort_along`, `topk`, `partition`, `argpartition`,
//! `unique_all` and `searchsorted` (inputs: the sorted array, then the values).

/// One sort-family operation with its parameters (`descending` is
/// `SortOrder::Descending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderCase {
    /// `a.argsort(axis, order)`.
    Argsort { axis: usize, descending: bool },
    /// `a.sort_along(axis, order)`.
    SortAlong { axis: usize, descending: bool },
    /// Output `which` (0: values, 1: indices) of `a.topk(k, axis, order)`.
    Topk {
        k: usize,
        axis: usize,
        descending: bool,
        which: usize,
    },
    /// `a.partition(kth, axis)`.
    Partition { kth: isize, axis: usize },
    /// `a.argpartition(kth, axis)`.
    Argpartition { kth: isize, axis: usize },
    /// Output `which` (0: values, 1: first indices, 2: inverse, 3: counts) of
    /// `a.unique_all()`; 4: `a.unique()`.
    Unique(usize),
    /// `a.searchsorted(values, side)`, `Side::Right` when `right`.
    Searchsorted { right: bool },
}

impl OrderCase {
    /// The row name.
    pub fn name(self) -> &'static str {
        match self {
            OrderCase::Argsort { .. } => "argsort",
            OrderCase::SortAlong { .. } => "sort_along",
            OrderCase::Topk { .. } => "topk",
            OrderCase::Partition { .. } => "partition",
            OrderCase::Argpartition { .. } => "argpartition",
            OrderCase::Unique(_) => "unique",
            OrderCase::Searchsorted { .. } => "searchsorted",
        }
    }

    /// Whether the result holds the input's values in sorted order, where elements that
    /// compare equal (`-0.0` and `0.0`) may come in either order.
    pub fn sorts_values(self) -> bool {
        matches!(
            self,
            OrderCase::SortAlong { .. } | OrderCase::Partition { .. }
        )
    }
}
