//! `Restricted<B>`: a backend that wraps another and refuses some element types (by default
//! every 64-bit type: f64, i64, u64, c64), as an adapter without SHADER_F64/SHADER_INT64
//! does. It is the suite's check that refused types are *reported* — `Error::Unsupported`
//! naming the type, the backend and the device — and never computed, and it doubles as a
//! minimal out-of-tree backend: everything else is delegated.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::device::next_device_id;
use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, Error, OpKind, Result, Support};

/// A backend refusing some element types and delegating everything else to `B`.
#[derive(Clone)]
pub struct Restricted<B: Backend> {
    inner: B,
    refused: Arc<Vec<DType>>,
    device: Arc<DeviceInfo>,
    violations: Arc<AtomicUsize>,
}

impl<B: Backend> Restricted<B> {
    /// Refuses the 64-bit types f64, i64, u64 and c64 for every kind of operation.
    pub fn new(inner: B) -> Self {
        Self::refusing(inner, &[DType::F64, DType::I64, DType::U64, DType::C64])
    }

    /// Refuses `types` for every kind of operation.
    pub fn refusing(inner: B, types: &[DType]) -> Self {
        let device = DeviceInfo {
            backend: "restricted",
            id: next_device_id(),
            ordinal: inner.device().ordinal,
            name: format!("{} without 64-bit types", inner.device().name),
            flushes_subnormals: inner.device().flushes_subnormals,
        };
        Restricted {
            inner,
            refused: Arc::new(types.to_vec()),
            device: Arc::new(device),
            violations: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }

    /// The refused types.
    pub fn refused(&self) -> &[DType] {
        &self.refused
    }

    /// How many kernels reached this backend with a refused type (core must have stopped
    /// them; anything but 0 is a bug in core's capability checks).
    pub fn violations(&self) -> usize {
        self.violations.load(Ordering::SeqCst)
    }

    /// Refuses a kernel touching a refused type (counting it as a violation).
    fn guard(&self, kind: OpKind, types: &[DType]) -> Result<()> {
        match types.iter().find(|d| self.refused.contains(d)) {
            None => Ok(()),
            Some(&dtype) => {
                self.violations.fetch_add(1, Ordering::SeqCst);
                Err(Error::Unsupported {
                    dtype,
                    op: kind,
                    backend: self.name().to_string(),
                    device: self.device.name.clone(),
                    reason: "a kernel was dispatched with a refused type (core skipped its capability check)"
                        .into(),
                    alternative: None,
                })
            }
        }
    }
}

impl<B: Backend> Backend for Restricted<B> {
    type Buffer = B::Buffer;

    fn name(&self) -> &'static str {
        "restricted"
    }

    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        if self.refused.contains(&dtype) {
            Support::no(
                "this device has no 64-bit element types",
                Some("use f32, i32 or u32"),
            )
        } else {
            self.inner.supports(dtype, op)
        }
    }

    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support {
        self.inner.supports_fft_lengths(real, lengths)
    }

    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        self.inner.writes_strided_outputs(dtype)
    }

    fn reports_gather_range(&self) -> bool {
        self.inner.reports_gather_range()
    }

    fn scans_halves(&self) -> bool {
        self.inner.scans_halves()
    }

    fn alloc(&self, bytes: usize) -> Result<Self::Buffer> {
        self.inner.alloc(bytes)
    }

    fn release(&self, buffer: Self::Buffer) {
        self.inner.release(buffer)
    }

    fn write(&self, dst: &Self::Buffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        self.inner.write(dst, byte_offset, src)
    }

    fn read(&self, src: &Self::Buffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.inner.read(src, byte_offset, dst)
    }

    fn copy(
        &self,
        src: &Self::Buffer,
        src_byte_offset: usize,
        dst: &Self::Buffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        self.inner
            .copy(src, src_byte_offset, dst, dst_byte_offset, bytes)
    }

    fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }

    fn memory_tracker(&self) -> Option<&gpuarrays_core::MemoryTracker> {
        self.inner.memory_tracker()
    }

    fn cached_bytes(&self) -> usize {
        self.inner.cached_bytes()
    }

    fn empty_cache(&self) -> Result<()> {
        self.inner.empty_cache()
    }

    fn elementwise(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, Self::Buffer>,
    ) -> Result<()> {
        self.guard(OpKind::Elementwise, &program.dtypes())?;
        self.inner.elementwise(program, args)
    }

    fn reduce(&self, args: &ReduceArgs<'_, Self::Buffer>) -> Result<()> {
        let out = args.op.result_dtype(args.dtype)?;
        self.guard(OpKind::Reduce, &[args.dtype, out])?;
        self.inner.reduce(args)
    }

    fn scan(&self, args: &ScanArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Scan, &[args.dtype])?;
        self.inner.scan(args)
    }

    fn sort(&self, args: &SortArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Sort, &[args.dtype])?;
        self.inner.sort(args)
    }

    fn find(&self, args: &FindArgs<'_, Self::Buffer>) -> Result<(Self::Buffer, usize)> {
        self.guard(OpKind::Find, &[DType::Bool, DType::I64])?;
        self.inner.find(args)
    }

    fn search_sorted(&self, args: &SearchArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Sort, &[args.dtype, DType::I64])?;
        self.inner.search_sorted(args)
    }

    fn gather(&self, args: &GatherArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Gather, &[args.dtype, DType::I64])?;
        self.inner.gather(args)
    }

    fn scatter(&self, args: &ScatterArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Scatter, &[args.dtype, DType::I64])?;
        self.inner.scatter(args)
    }

    fn matmul(&self, args: &MatmulArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Matmul, &[args.dtype])?;
        self.inner.matmul(args)
    }

    fn fft(&self, args: &FftArgs<'_, Self::Buffer>) -> Result<()> {
        self.guard(OpKind::Fft, &[args.input_dtype(), args.output_dtype()])?;
        self.inner.fft(args)
    }
}
