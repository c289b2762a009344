//! Backends from outside the project in [`AnyBackend`]: [`AnyBackend::custom`] wraps any
//! `Backend` behind [`DynBackend`], an object-safe form of the trait whose buffers are
//! type-erased ([`CustomBuffer`]).
//!
//! Why: the enum of `AnyBackend` lists the backends this crate depends on, and a crate
//! that depends on `gpuarrays` cannot add a variant to it. A trait object can, at the cost
//! of one more indirection and a second re-typing of each kernel description; the built-in
//! backends keep the direct `match` (`registry.rs`).

use std::any::Any;
use std::sync::Arc;

use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays_core::{
    Backend, DType, DeviceInfo, Error, GraphReplay, MemoryTracker, OpKind, Result, Support,
};

use super::variant::{BackendVariant, BufferSlot, SourceError};
use super::{AnyBackend, AnyBuffer, BackendKind};

/// A buffer of a custom backend: the backend's own buffer, type-erased, and its length.
pub struct CustomBuffer {
    inner: Box<dyn Any + Send + Sync>,
    len: usize,
}

impl CustomBuffer {
    fn new<T: Send + Sync + 'static>(buffer: T, len: usize) -> Self {
        CustomBuffer {
            inner: Box::new(buffer),
            len,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The object-safe form of [`Backend`] that [`CustomBackend`] holds; implemented for every
/// `Backend`, so nothing implements it by hand.
pub trait DynBackend: Send + Sync + 'static {
    fn name(&self) -> &'static str;
    fn device(&self) -> &DeviceInfo;
    fn supports(&self, dtype: DType, op: OpKind) -> Support;
    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support;
    fn writes_strided_outputs(&self, dtype: DType) -> bool;
    fn reports_gather_range(&self) -> bool;
    fn scans_halves(&self) -> bool;
    fn alloc(&self, bytes: usize) -> Result<CustomBuffer>;
    fn release(&self, buffer: CustomBuffer);
    fn write(&self, dst: &CustomBuffer, byte_offset: usize, src: &[u8]) -> Result<()>;
    fn read(&self, src: &CustomBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()>;
    fn copy(
        &self,
        src: &CustomBuffer,
        so: usize,
        dst: &CustomBuffer,
        d: usize,
        n: usize,
    ) -> Result<()>;
    fn synchronize(&self) -> Result<()>;
    fn records_graphs(&self) -> bool;
    fn capture_graph(&self, record: &mut dyn FnMut() -> Result<()>)
    -> Result<Box<dyn GraphReplay>>;
    fn memory_tracker(&self) -> Option<&MemoryTracker>;
    fn cached_bytes(&self) -> usize;
    fn empty_cache(&self) -> Result<()>;
    fn elementwise(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, CustomBuffer>,
    ) -> Result<()>;
    fn reduce(&self, args: &ReduceArgs<'_, CustomBuffer>) -> Result<()>;
    fn scan(&self, args: &ScanArgs<'_, CustomBuffer>) -> Result<()>;
    fn sort(&self, args: &SortArgs<'_, CustomBuffer>) -> Result<()>;
    fn sort_into_positions(
        &self,
        args: &SortArgs<'_, CustomBuffer>,
        positions: &CustomBuffer,
        positions_offset: usize,
    ) -> Result<bool>;
    fn find(&self, args: &FindArgs<'_, CustomBuffer>) -> Result<(CustomBuffer, usize)>;
    fn search_sorted(&self, args: &SearchArgs<'_, CustomBuffer>) -> Result<()>;
    fn gather(&self, args: &GatherArgs<'_, CustomBuffer>) -> Result<()>;
    fn scatter(&self, args: &ScatterArgs<'_, CustomBuffer>) -> Result<()>;
    fn matmul(&self, args: &MatmulArgs<'_, CustomBuffer>) -> Result<()>;
    fn fft(&self, args: &FftArgs<'_, CustomBuffer>) -> Result<()>;
}

/// `buffer` as `B`'s own buffer, or the mismatch error naming both sides.
fn own<'a, B: Backend>(b: &B, op: &str, buffer: &'a CustomBuffer) -> Result<&'a B::Buffer> {
    buffer
        .inner
        .downcast_ref::<B::Buffer>()
        .ok_or_else(|| Error::DeviceMismatch {
            op: op.to_string(),
            a: b.device().to_string(),
            b: "a buffer of another custom backend".into(),
        })
}

impl<B: Backend> DynBackend for B {
    fn name(&self) -> &'static str {
        Backend::name(self)
    }
    fn device(&self) -> &DeviceInfo {
        Backend::device(self)
    }
    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        Backend::supports(self, dtype, op)
    }
    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support {
        Backend::supports_fft_lengths(self, real, lengths)
    }
    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        Backend::writes_strided_outputs(self, dtype)
    }
    fn reports_gather_range(&self) -> bool {
        Backend::reports_gather_range(self)
    }
    fn scans_halves(&self) -> bool {
        Backend::scans_halves(self)
    }
    fn alloc(&self, bytes: usize) -> Result<CustomBuffer> {
        Backend::alloc(self, bytes).map(|b| CustomBuffer::new(b, bytes))
    }
    fn release(&self, buffer: CustomBuffer) {
        match buffer.inner.downcast::<B::Buffer>() {
            Ok(own) => Backend::release(self, *own),
            Err(_) => tracing::error!(
                device = %Backend::device(self),
                "release of a buffer of another custom backend; dropping it instead (a bug in the caller)"
            ),
        }
    }
    fn write(&self, dst: &CustomBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        Backend::write(self, own(self, "write", dst)?, byte_offset, src)
    }
    fn read(&self, src: &CustomBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        Backend::read(self, own(self, "read", src)?, byte_offset, dst)
    }
    fn copy(
        &self,
        src: &CustomBuffer,
        so: usize,
        dst: &CustomBuffer,
        d: usize,
        n: usize,
    ) -> Result<()> {
        let (s, t) = (own(self, "copy", src)?, own(self, "copy", dst)?);
        Backend::copy(self, s, so, t, d, n)
    }
    fn synchronize(&self) -> Result<()> {
        Backend::synchronize(self)
    }
    fn records_graphs(&self) -> bool {
        Backend::records_graphs(self)
    }
    fn capture_graph(
        &self,
        record: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Box<dyn GraphReplay>> {
        Backend::capture_graph(self, record)
    }
    fn memory_tracker(&self) -> Option<&MemoryTracker> {
        Backend::memory_tracker(self)
    }
    fn cached_bytes(&self) -> usize {
        Backend::cached_bytes(self)
    }
    fn empty_cache(&self) -> Result<()> {
        Backend::empty_cache(self)
    }
    fn elementwise(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, CustomBuffer>,
    ) -> Result<()> {
        args.with_mapped_buffers(
            |x| own(self, "elementwise", x),
            |a| Backend::elementwise(self, program, a),
        )
    }
    fn reduce(&self, args: &ReduceArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::reduce(self, &args.try_map_buffers(|x| own(self, "reduce", x))?)
    }
    fn scan(&self, args: &ScanArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::scan(self, &args.try_map_buffers(|x| own(self, "scan", x))?)
    }
    fn sort(&self, args: &SortArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::sort(self, &args.try_map_buffers(|x| own(self, "sort", x))?)
    }
    fn sort_into_positions(
        &self,
        args: &SortArgs<'_, CustomBuffer>,
        positions: &CustomBuffer,
        positions_offset: usize,
    ) -> Result<bool> {
        Backend::sort_into_positions(
            self,
            &args.try_map_buffers(|x| own(self, "sort", x))?,
            own(self, "sort", positions)?,
            positions_offset,
        )
    }
    fn find(&self, args: &FindArgs<'_, CustomBuffer>) -> Result<(CustomBuffer, usize)> {
        let args = args.try_map_buffers(|x| own(self, "find", x))?;
        let (positions, count) = Backend::find(self, &args)?;
        Ok((CustomBuffer::new(positions, count * 8), count))
    }
    fn search_sorted(&self, args: &SearchArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::search_sorted(
            self,
            &args.try_map_buffers(|x| own(self, "searchsorted", x))?,
        )
    }
    fn gather(&self, args: &GatherArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::gather(self, &args.try_map_buffers(|x| own(self, "gather", x))?)
    }
    fn scatter(&self, args: &ScatterArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::scatter(self, &args.try_map_buffers(|x| own(self, "scatter", x))?)
    }
    fn matmul(&self, args: &MatmulArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::matmul(self, &args.try_map_buffers(|x| own(self, "matmul", x))?)
    }
    fn fft(&self, args: &FftArgs<'_, CustomBuffer>) -> Result<()> {
        Backend::fft(self, &args.try_map_buffers(|x| own(self, "fft", x))?)
    }
}

/// A backend from outside the project, as [`AnyBackend::Custom`] holds it.
#[derive(Clone)]
pub struct CustomBackend(Arc<dyn DynBackend>);

impl AnyBackend {
    /// Wraps a backend from outside the project (any [`Backend`]), so that code written for
    /// `AnyBackend` runs on it. Its kind is [`BackendKind::Custom`]; it is never opened by
    /// name.
    pub fn custom<B: Backend>(backend: B) -> AnyBackend {
        AnyBackend::Custom(CustomBackend(Arc::new(backend)))
    }
}

impl Backend for CustomBackend {
    type Buffer = CustomBuffer;

    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn device(&self) -> &DeviceInfo {
        self.0.device()
    }
    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        self.0.supports(dtype, op)
    }
    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support {
        self.0.supports_fft_lengths(real, lengths)
    }
    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        self.0.writes_strided_outputs(dtype)
    }
    fn reports_gather_range(&self) -> bool {
        self.0.reports_gather_range()
    }
    fn scans_halves(&self) -> bool {
        self.0.scans_halves()
    }
    fn alloc(&self, bytes: usize) -> Result<CustomBuffer> {
        self.0.alloc(bytes)
    }
    fn release(&self, buffer: CustomBuffer) {
        self.0.release(buffer)
    }
    fn write(&self, dst: &CustomBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        self.0.write(dst, byte_offset, src)
    }
    fn read(&self, src: &CustomBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.0.read(src, byte_offset, dst)
    }
    fn copy(
        &self,
        src: &CustomBuffer,
        so: usize,
        dst: &CustomBuffer,
        d: usize,
        n: usize,
    ) -> Result<()> {
        self.0.copy(src, so, dst, d, n)
    }
    fn synchronize(&self) -> Result<()> {
        self.0.synchronize()
    }
    fn records_graphs(&self) -> bool {
        self.0.records_graphs()
    }
    fn capture_graph(
        &self,
        record: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Box<dyn GraphReplay>> {
        self.0.capture_graph(record)
    }
    fn memory_tracker(&self) -> Option<&MemoryTracker> {
        self.0.memory_tracker()
    }
    fn cached_bytes(&self) -> usize {
        self.0.cached_bytes()
    }
    fn empty_cache(&self) -> Result<()> {
        self.0.empty_cache()
    }
    fn elementwise(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, CustomBuffer>,
    ) -> Result<()> {
        self.0.elementwise(program, args)
    }
    fn reduce(&self, args: &ReduceArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.reduce(args)
    }
    fn scan(&self, args: &ScanArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.scan(args)
    }
    fn sort(&self, args: &SortArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.sort(args)
    }
    fn sort_into_positions(
        &self,
        args: &SortArgs<'_, CustomBuffer>,
        positions: &CustomBuffer,
        positions_offset: usize,
    ) -> Result<bool> {
        self.0
            .sort_into_positions(args, positions, positions_offset)
    }
    fn find(&self, args: &FindArgs<'_, CustomBuffer>) -> Result<(CustomBuffer, usize)> {
        self.0.find(args)
    }
    fn search_sorted(&self, args: &SearchArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.search_sorted(args)
    }
    fn gather(&self, args: &GatherArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.gather(args)
    }
    fn scatter(&self, args: &ScatterArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.scatter(args)
    }
    fn matmul(&self, args: &MatmulArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.matmul(args)
    }
    fn fft(&self, args: &FftArgs<'_, CustomBuffer>) -> Result<()> {
        self.0.fft(args)
    }
}

impl From<CustomBackend> for AnyBackend {
    fn from(b: CustomBackend) -> Self {
        AnyBackend::Custom(b)
    }
}

impl BufferSlot for CustomBackend {
    const KIND: BackendKind = BackendKind::Custom;

    fn unwrap_buffer(buffer: &AnyBuffer) -> Option<&CustomBuffer> {
        match buffer {
            AnyBuffer::Custom(b) => Some(b),
            _ => None,
        }
    }

    fn take_buffer(buffer: AnyBuffer) -> std::result::Result<CustomBuffer, AnyBuffer> {
        match buffer {
            AnyBuffer::Custom(b) => Ok(b),
            other => Err(other),
        }
    }

    fn wrap_buffer(buffer: CustomBuffer) -> AnyBuffer {
        AnyBuffer::Custom(buffer)
    }
}

/// Why a custom backend cannot be opened by kind.
fn not_by_name() -> SourceError {
    SourceError::from(
        "a custom backend is opened by its own crate; wrap it with AnyBackend::custom",
    )
}

impl BackendVariant for CustomBackend {
    fn device_count() -> std::result::Result<usize, SourceError> {
        Err(not_by_name())
    }

    fn open_device(_ordinal: usize) -> std::result::Result<Self, SourceError> {
        Err(not_by_name())
    }
}
