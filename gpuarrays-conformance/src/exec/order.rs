//! Running the sort family ([`OrderCase`]) through core's public API.

use gpuarrays_core::{Backend, Result, Side, SortOrder};

use super::{Placed, download, input};
use crate::case::OrderCase;
use crate::host::HostArray;

fn order(descending: bool) -> SortOrder {
    if descending {
        SortOrder::Descending
    } else {
        SortOrder::Ascending
    }
}

/// Runs `op` on the placed inputs and downloads the result.
pub fn execute<B: Backend>(op: OrderCase, placed: &[Placed<B>]) -> Result<HostArray> {
    let arg = |k: usize| input(placed, k);
    let a = arg(0)?;
    let out = match op {
        OrderCase::Argsort { axis, descending } => a.argsort(axis, order(descending))?,
        OrderCase::SortAlong { axis, descending } => a.sort_along(axis, order(descending))?,
        OrderCase::Topk {
            k,
            axis,
            descending,
            which,
        } => {
            let (values, indices) = a.topk(k, axis, order(descending))?;
            if which == 0 { values } else { indices }
        }
        OrderCase::Partition { kth, axis } => a.partition(kth, axis)?,
        OrderCase::Argpartition { kth, axis } => a.argpartition(kth, axis)?,
        OrderCase::Unique(4) => a.unique()?,
        OrderCase::Unique(which) => {
            let u = a.unique_all()?;
            match which {
                0 => u.values,
                1 => u.indices,
                2 => u.inverse,
                _ => u.counts,
            }
        }
        OrderCase::Searchsorted { right } => {
            let side = if right { Side::Right } else { Side::Left };
            a.searchsorted(arg(1)?, side)?
        }
    };
    download(&out)
}
