//! `impl Backend for AnyBackend`: each method matches once on the variant and forwards to
//! the wrapped backend, re-typing buffers on the way (a buffer of another variant is
//! `Error::DeviceMismatch`).

use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, Error, MemoryTracker, OpKind, Result, Support};

use super::variant::BufferSlot as BackendVariant;
use super::{AnyBackend, AnyBuffer, match_variant};

/// `to` as a handle of `b`'s own backend type, if it wraps one.
fn same_variant<'a, V: BackendVariant>(_b: &V, to: &'a AnyBackend) -> Option<&'a V> {
    match_variant!(to, t => (t as &dyn std::any::Any).downcast_ref::<V>())
}

/// `buffer` as backend `b`'s own buffer, or the mismatch error naming both sides.
fn own<'a, V: BackendVariant>(b: &V, op: &str, buffer: &'a AnyBuffer) -> Result<&'a V::Buffer> {
    V::unwrap_buffer(buffer).ok_or_else(|| Error::DeviceMismatch {
        op: op.to_string(),
        a: b.device().to_string(),
        b: format!("a buffer of the {} backend", buffer.kind()),
    })
}

fn elementwise<V: BackendVariant>(
    b: &V,
    program: &Program,
    args: &ElementwiseArgs<'_, AnyBuffer>,
) -> Result<()> {
    args.with_mapped_buffers(
        |x| own(b, "elementwise", x),
        |args| b.elementwise(program, args),
    )
}

fn find<V: BackendVariant>(b: &V, args: &FindArgs<'_, AnyBuffer>) -> Result<(AnyBuffer, usize)> {
    let args = args.try_map_buffers(|x| own(b, "find", x))?;
    let (positions, count) = b.find(&args)?;
    Ok((V::wrap_buffer(positions), count))
}

fn alloc<V: BackendVariant>(b: &V, bytes: usize) -> Result<AnyBuffer> {
    b.alloc(bytes).map(V::wrap_buffer)
}

fn release<V: BackendVariant>(b: &V, buffer: AnyBuffer) {
    match V::take_buffer(buffer) {
        Ok(own) => b.release(own),
        Err(other) => tracing::error!(
            device = %b.device(),
            buffer = ?other,
            "release of a buffer of another backend; dropping it instead (a bug in the caller)"
        ),
    }
}

impl Backend for AnyBackend {
    type Buffer = AnyBuffer;

    fn name(&self) -> &'static str {
        match_variant!(self, b => b.name())
    }

    fn device(&self) -> &DeviceInfo {
        match_variant!(self, b => b.device())
    }

    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        match_variant!(self, b => b.supports(dtype, op))
    }

    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support {
        match_variant!(self, b => b.supports_fft_lengths(real, lengths))
    }

    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        match_variant!(self, b => b.writes_strided_outputs(dtype))
    }

    fn reports_gather_range(&self) -> bool {
        match_variant!(self, b => b.reports_gather_range())
    }

    fn scans_halves(&self) -> bool {
        match_variant!(self, b => b.scans_halves())
    }

    fn alloc(&self, bytes: usize) -> Result<AnyBuffer> {
        match_variant!(self, b => alloc(b, bytes))
    }

    fn release(&self, buffer: AnyBuffer) {
        match_variant!(self, b => release(b, buffer))
    }

    fn write(&self, dst: &AnyBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        match_variant!(self, b => b.write(own(b, "write", dst)?, byte_offset, src))
    }

    fn read(&self, src: &AnyBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        match_variant!(self, b => b.read(own(b, "read", src)?, byte_offset, dst))
    }

    fn copy(
        &self,
        src: &AnyBuffer,
        src_byte_offset: usize,
        dst: &AnyBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        match_variant!(self, b => b.copy(
            own(b, "copy", src)?,
            src_byte_offset,
            own(b, "copy", dst)?,
            dst_byte_offset,
            bytes,
        ))
    }

    /// The wrapped backend's own copy between its devices when `to` wraps the same backend
    /// (HIP: a peer copy); through the host between two backends.
    fn copy_to_device(
        &self,
        src: &AnyBuffer,
        src_byte_offset: usize,
        to: &AnyBackend,
        dst: &AnyBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        match_variant!(self, b => match same_variant(b, to) {
            Some(t) => b.copy_to_device(
                own(b, "copy_to_device", src)?,
                src_byte_offset,
                t,
                own(t, "copy_to_device", dst)?,
                dst_byte_offset,
                bytes,
            ),
            None => gpuarrays_core::host::copy_across(
                self,
                src,
                src_byte_offset,
                to,
                dst,
                dst_byte_offset,
                bytes,
            ),
        })
    }

    fn synchronize(&self) -> Result<()> {
        match_variant!(self, b => b.synchronize())
    }

    fn records_graphs(&self) -> bool {
        match_variant!(self, b => b.records_graphs())
    }

    fn capture_graph(
        &self,
        record: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Box<dyn gpuarrays_core::GraphReplay>> {
        match_variant!(self, b => b.capture_graph(record))
    }

    fn memory_tracker(&self) -> Option<&MemoryTracker> {
        match_variant!(self, b => b.memory_tracker())
    }

    fn cached_bytes(&self) -> usize {
        match_variant!(self, b => b.cached_bytes())
    }

    fn empty_cache(&self) -> Result<()> {
        match_variant!(self, b => b.empty_cache())
    }

    fn elementwise(&self, program: &Program, args: &ElementwiseArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => elementwise(b, program, args))
    }

    fn reduce(&self, args: &ReduceArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.reduce(&args.try_map_buffers(|x| own(b, "reduce", x))?))
    }

    fn scan(&self, args: &ScanArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.scan(&args.try_map_buffers(|x| own(b, "scan", x))?))
    }

    fn sort(&self, args: &SortArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.sort(&args.try_map_buffers(|x| own(b, "sort", x))?))
    }

    fn sort_into_positions(
        &self,
        args: &SortArgs<'_, AnyBuffer>,
        positions: &AnyBuffer,
        positions_offset: usize,
    ) -> Result<bool> {
        match_variant!(self, b => b.sort_into_positions(
            &args.try_map_buffers(|x| own(b, "sort", x))?,
            own(b, "sort", positions)?,
            positions_offset,
        ))
    }

    fn find(&self, args: &FindArgs<'_, AnyBuffer>) -> Result<(AnyBuffer, usize)> {
        match_variant!(self, b => find(b, args))
    }

    fn search_sorted(&self, args: &SearchArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.search_sorted(&args.try_map_buffers(|x| own(b, "searchsorted", x))?))
    }

    fn gather(&self, args: &GatherArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.gather(&args.try_map_buffers(|x| own(b, "gather", x))?))
    }

    fn scatter(&self, args: &ScatterArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.scatter(&args.try_map_buffers(|x| own(b, "scatter", x))?))
    }

    fn matmul(&self, args: &MatmulArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.matmul(&args.try_map_buffers(|x| own(b, "matmul", x))?))
    }

    fn fft(&self, args: &FftArgs<'_, AnyBuffer>) -> Result<()> {
        match_variant!(self, b => b.fft(&args.try_map_buffers(|x| own(b, "fft", x))?))
    }
}
