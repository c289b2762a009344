//! The ordering kernels behind `impl Backend`: sorts (in place, or writing a sorting
//! permutation's positions), `find` and `search_sorted`. Each checks its operands against
//! their buffers, compiles (or finds) its module with no lock held, then enqueues under the
//! ordering protocol ([`HipBackend::enqueue`]).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{FindArgs, SearchArgs, SortArgs};

use super::checks::check_run;
use super::{HipBackend, HipBuffer};
use crate::kernels::{find, search, sort};
use crate::platform::DevicePtr;

/// The kernels' description of a sort, writing positions to `positions` if given.
fn sort_job(a: &SortArgs<'_, HipBuffer>, positions: Option<DevicePtr>) -> sort::SortJob {
    sort::SortJob {
        dtype: a.dtype,
        data: a.buffer.at(a.offset, a.dtype.size()),
        rows: a.rows,
        len: a.len,
        ordered_low_bits: a.ordered_low_bits,
        positions,
    }
}

impl HipBackend {
    /// [`Backend::sort`](gpuarrays_core::Backend::sort): one sort of the rows in place.
    pub(super) fn sort_inner(&self, a: &SortArgs<'_, HipBuffer>) -> crate::Result<()> {
        check_run(a.buffer, a.dtype, a.offset, a.rows * a.len, "sort")?;
        sort::prepare(self.kernels(), a.dtype, a.rows, a.len)?;
        let job = sort_job(a, None);
        self.enqueue(&[], &[a.buffer], |stream| {
            sort::run(self.kernels(), stream, &job)
        })
    }

    /// [`Backend::sort_into_positions`](gpuarrays_core::Backend::sort_into_positions): the
    /// onesweep sort writing the permutation's positions in its last pass, when it is the
    /// sort these rows get; `false` (nothing enqueued) otherwise.
    pub(super) fn sort_into_positions_inner(
        &self,
        a: &SortArgs<'_, HipBuffer>,
        positions: &HipBuffer,
        positions_offset: usize,
    ) -> crate::Result<bool> {
        let n = a.rows * a.len;
        let job = sort_job(a, Some(positions.at(positions_offset, 8)));
        if !sort::positions_fused(self.kernels(), &job) {
            return Ok(false);
        }
        check_run(a.buffer, a.dtype, a.offset, n, "sort")?;
        check_run(positions, DType::I64, positions_offset, n, "sort positions")?;
        sort::prepare(self.kernels(), a.dtype, a.rows, a.len)?;
        self.enqueue(&[], &[a.buffer, positions], |stream| {
            sort::run(self.kernels(), stream, &job)
        })?;
        Ok(true)
    }

    /// [`Backend::find`](gpuarrays_core::Backend::find): count, scan, scatter; blocks until
    /// the count is known.
    pub(super) fn find_inner(
        &self,
        a: &FindArgs<'_, HipBuffer>,
    ) -> crate::Result<(HipBuffer, usize)> {
        check_run(a.input, DType::Bool, a.offset, a.len, "find")?;
        find::prepare(self.kernels())?;
        let mask = a.input.at(a.offset, 1);
        let (buf, count) = self.enqueue(&[a.input], &[], |stream| {
            find::run(self.kernels(), stream, mask, a.len)
        })?;
        Ok((HipBuffer::new(buf), count))
    }

    /// [`Backend::search_sorted`](gpuarrays_core::Backend::search_sorted): the binary search
    /// of `kernels/search.rs`.
    pub(super) fn search_inner(&self, a: &SearchArgs<'_, HipBuffer>) -> crate::Result<()> {
        check_run(
            a.table,
            a.dtype,
            a.table_offset,
            a.table_len,
            "searchsorted",
        )?;
        check_run(a.values, a.dtype, a.values_offset, a.len, "searchsorted")?;
        check_run(a.output, DType::I64, a.output_offset, a.len, "searchsorted")?;
        search::prepare(self.kernels(), a.dtype)?;
        let job = search::SearchJob {
            dtype: a.dtype,
            side: a.side,
            table: a.table.at(a.table_offset, a.dtype.size()),
            table_len: a.table_len,
            values: a.values.at(a.values_offset, a.dtype.size()),
            out: a.output.at(a.output_offset, 8),
            len: a.len,
        };
        self.enqueue(&[a.table, a.values], &[a.output], |stream| {
            search::run(self.kernels(), stream, &job)
        })
    }
}
