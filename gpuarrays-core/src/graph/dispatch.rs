//! Every backend call core makes that touches buffers, in one place: recorded while the
//! calling thread captures a graph on the host for that backend ([`super::host_graph`]),
//! refused when it needs the host then, run by the backend otherwise.
//!
//! A backend that records graphs itself (HIP's stream capture) never sees a host capture:
//! for it these are plain calls.

use super::recorder::{refuse_while_recording, with_recording};
use crate::backend::Backend;
use crate::error::Result;
use crate::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};

/// Records `record` if this thread captures for `backend`, else runs `run`.
fn record_or_run<B: Backend>(
    backend: &B,
    record: impl FnOnce(&mut super::recorder::Recording<B::Buffer>) -> Result<()>,
    run: impl FnOnce() -> Result<()>,
) -> Result<()> {
    with_recording(backend, record).unwrap_or_else(run)
}

pub(crate) fn elementwise<B: Backend>(
    backend: &B,
    program: &Program,
    args: &ElementwiseArgs<'_, B::Buffer>,
) -> Result<()> {
    record_or_run(
        backend,
        |r| r.elementwise(program, args),
        || backend.elementwise(program, args),
    )
}

pub(crate) fn reduce<B: Backend>(backend: &B, args: &ReduceArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.reduce(args), || backend.reduce(args))
}

pub(crate) fn scan<B: Backend>(backend: &B, args: &ScanArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.scan(args), || backend.scan(args))
}

pub(crate) fn sort<B: Backend>(backend: &B, args: &SortArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.sort(args), || backend.sort(args))
}

/// While recording, answers "not fused" without recording anything: core then records the
/// sort and the extraction it falls back to, which replay exactly (whether the backend
/// would fuse is only known by running it).
pub(crate) fn sort_into_positions<B: Backend>(
    backend: &B,
    args: &SortArgs<'_, B::Buffer>,
    positions: &B::Buffer,
    positions_offset: usize,
) -> Result<bool> {
    match with_recording(backend, |_| ()) {
        Some(()) => Ok(false),
        None => backend.sort_into_positions(args, positions, positions_offset),
    }
}

/// Refused while recording: the number of positions found sizes the result.
pub(crate) fn find<B: Backend>(
    backend: &B,
    args: &FindArgs<'_, B::Buffer>,
) -> Result<(B::Buffer, usize)> {
    refuse_while_recording(backend, "a search whose result size depends on the data")?;
    backend.find(args)
}

pub(crate) fn search_sorted<B: Backend>(
    backend: &B,
    args: &SearchArgs<'_, B::Buffer>,
) -> Result<()> {
    record_or_run(
        backend,
        |r| r.search_sorted(args),
        || backend.search_sorted(args),
    )
}

pub(crate) fn gather<B: Backend>(backend: &B, args: &GatherArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.gather(args), || backend.gather(args))
}

pub(crate) fn scatter<B: Backend>(backend: &B, args: &ScatterArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.scatter(args), || backend.scatter(args))
}

pub(crate) fn matmul<B: Backend>(backend: &B, args: &MatmulArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.matmul(args), || backend.matmul(args))
}

pub(crate) fn fft<B: Backend>(backend: &B, args: &FftArgs<'_, B::Buffer>) -> Result<()> {
    record_or_run(backend, |r| r.fft(args), || backend.fft(args))
}

pub(crate) fn copy<B: Backend>(
    backend: &B,
    src: &B::Buffer,
    src_off: usize,
    dst: &B::Buffer,
    dst_off: usize,
    bytes: usize,
) -> Result<()> {
    record_or_run(
        backend,
        |r| r.copy(src, src_off, dst, dst_off, bytes),
        || backend.copy(src, src_off, dst, dst_off, bytes),
    )
}

/// Refused while recording: the host's bytes are read now, not at each launch.
pub(crate) fn write<B: Backend>(
    backend: &B,
    dst: &B::Buffer,
    byte_offset: usize,
    src: &[u8],
) -> Result<()> {
    refuse_while_recording(backend, "a write of host data into a buffer")?;
    backend.write(dst, byte_offset, src)
}

/// Refused while recording: nothing has run yet to read.
pub(crate) fn read<B: Backend>(
    backend: &B,
    src: &B::Buffer,
    byte_offset: usize,
    dst: &mut [u8],
) -> Result<()> {
    refuse_while_recording(backend, "a read back to the host")?;
    backend.read(src, byte_offset, dst)
}
