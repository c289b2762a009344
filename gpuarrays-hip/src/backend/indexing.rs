//! Gathers and scatters through the device kernels ([`crate::kernels::indexing`]): the
//! operands are checked against their buffers, the module compiled, and one launch enqueued
//! under the ordering protocol — the index and the gathered source (or the scatter's values)
//! as reads, the output (or the target) as a write, so the launch waits for the last writes
//! of what it reads and for every use of what it writes, and no operand's memory is freed or
//! reused before the kernel ran.
//!
//! Every address a kernel can form is checked here: a position is clamped into
//! `0..extent` whatever the index holds, so an operand's reach is its span over
//! `[outer, extent, inner]` (the indexed one) or over the index space (the others).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{GatherArgs, IndexSpace, ScatterArgs, Strided3};

use super::checks::{check_run, check_strided};
use super::{HipBackend, HipBuffer};
use crate::kernels::indexing::{self, IndexingLaunch, SpaceLaunch, Strided3Ptr};

/// Checks that `s` stays in its buffer over `dims`, and gives its address and strides.
fn operand(
    s: &Strided3<'_, HipBuffer>,
    dtype: DType,
    dims: [usize; 3],
    what: &str,
) -> crate::Result<Strided3Ptr> {
    check_strided(s.buffer, dtype, s.offset, &dims, &s.strides, what)?;
    Ok(Strided3Ptr {
        ptr: s.buffer.at(s.offset, dtype.size()),
        strides: s.strides.map(|x| x as i64),
    })
}

/// The index space's launch description, its index operand checked; `None` for an empty
/// space (nothing to do, nothing to check).
fn space(s: &IndexSpace<'_, HipBuffer>, what: &str) -> crate::Result<Option<SpaceLaunch>> {
    if s.dims.contains(&0) {
        return Ok(None);
    }
    Ok(Some(SpaceLaunch {
        dims: s.dims,
        extent: s.extent,
        mode: s.mode,
        index: operand(&s.index, DType::I64, s.dims, what)?,
    }))
}

impl HipBackend {
    pub(super) fn gather_inner(&self, a: &GatherArgs<'_, HipBuffer>) -> crate::Result<()> {
        let Some(space) = space(&a.space, "gather index")? else {
            return Ok(());
        };
        let [outer, _, inner] = a.space.dims;
        let table = [outer, a.space.extent.max(1), inner];
        if let Some(report) = a.out_of_range {
            check_run(report, DType::U32, 0, 1, "gather report")?;
        }
        let launch = IndexingLaunch::Gather {
            dtype: a.dtype,
            space,
            source: operand(&a.source, a.dtype, table, "gather source")?,
            output: a.output.at(a.output_offset, a.dtype.size()),
            report: a.out_of_range.map(|r| r.at(0, 4)),
        };
        check_run(
            a.output,
            a.dtype,
            a.output_offset,
            indexing::points(a.space.dims)?,
            "gather output",
        )?;
        let dev = self.kernels();
        indexing::prepare(dev, &launch)?;
        let reads = [a.space.index.buffer, a.source.buffer];
        let (one, two);
        let writes: &[&HipBuffer] = match a.out_of_range {
            Some(report) => {
                two = [a.output, report];
                &two
            }
            None => {
                one = [a.output];
                &one
            }
        };
        self.enqueue(&reads, writes, |s| indexing::run(dev, s, &launch))
    }

    pub(super) fn scatter_inner(&self, a: &ScatterArgs<'_, HipBuffer>) -> crate::Result<()> {
        let Some(space) = space(&a.space, "scatter index")? else {
            return Ok(());
        };
        let [outer, _, inner] = a.space.dims;
        let table = [outer, a.space.extent.max(1), inner];
        let launch = IndexingLaunch::Scatter {
            op: a.op,
            dtype: a.dtype,
            space,
            target: operand(&a.target, a.dtype, table, "scatter target")?,
            values: operand(&a.values, a.dtype, a.space.dims, "scatter values")?,
        };
        let dev = self.kernels();
        indexing::prepare(dev, &launch)?;
        self.enqueue(
            &[a.space.index.buffer, a.values.buffer],
            &[a.target.buffer],
            |s| indexing::run(dev, s, &launch),
        )
    }
}
