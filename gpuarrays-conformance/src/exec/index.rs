//! Running the gathers, scatters and masks ([`IndexCase`]) through core's public API.

use gpuarrays_core::{Backend, DType, Result};

use super::{Placed, download, download_base, input, internal};
use crate::case::IndexCase;
use crate::host::HostArray;

/// Runs `op` on the placed inputs and downloads the result (the first input's whole
/// buffer for the in-place operations).
pub fn execute<B: Backend>(op: IndexCase, placed: &[Placed<B>]) -> Result<HostArray> {
    let arg = |k: usize| input(placed, k);
    let a = arg(0)?;
    let out = match op {
        IndexCase::Take { axis, mode } => a.take(arg(1)?, axis, mode)?,
        IndexCase::TakeAlongAxis(axis) => a.take_along_axis(arg(1)?, axis)?,
        IndexCase::MaskedSelect => a.masked_select(arg(1)?)?,
        IndexCase::Nonzero(which) => a
            .nonzero()?
            .into_iter()
            .nth(which)
            .ok_or_else(|| internal("nonzero returned fewer arrays than dimensions"))?,
        IndexCase::Argwhere => a.argwhere()?,
        IndexCase::Bincount(minlength) => a.bincount(arg(1).ok(), minlength)?,
        in_place => {
            match in_place {
                IndexCase::Put(mode) => a.put(arg(1)?, arg(2)?, mode)?,
                IndexCase::PutAlongAxis(axis) => a.put_along_axis(arg(1)?, arg(2)?, axis)?,
                IndexCase::ScatterAdd(axis) => a.scatter_add(arg(1)?, arg(2)?, axis)?,
                IndexCase::IndexCopy(axis) => a.index_copy(axis, arg(1)?, arg(2)?)?,
                IndexCase::IndexAdd(axis) => a.index_add(axis, arg(1)?, arg(2)?)?,
                IndexCase::MaskedAssign => a.masked_assign(arg(1)?, arg(2)?)?,
                other => return Err(internal(&format!("no executor for {other:?}"))),
            }
            let dtype = placed.first().map_or(DType::Bool, |p| p.array.dtype());
            return download_base(&placed[0].base, dtype);
        }
    };
    download(&out)
}
