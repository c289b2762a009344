//! `CpuBackend`: the `Backend` implementation, delegating each kernel to its module.

use std::sync::Arc;

use gpuarrays_core::device::next_device_id;
use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, ScatterOp, SearchArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, MemoryTracker, OpKind, Result, Support};

use crate::buffer::{Accesses, CpuBuffer};
use crate::error::CpuError;
use crate::fft::CpuFftPlans;
use crate::parallel;

/// The CPU reference backend. Every element type and operation is supported; results never
/// depend on the number of threads.
#[derive(Clone)]
pub struct CpuBackend {
    device: Arc<DeviceInfo>,
    pool: Option<Arc<rayon::ThreadPool>>,
    fft_plans: Arc<CpuFftPlans>,
    /// Bytes of live buffers, their peak, the limit (shared by every clone: one device).
    memory: Arc<MemoryTracker>,
}

impl CpuBackend {
    /// A backend on rayon's global thread pool. Each call creates a new device: arrays of
    /// two `CpuBackend::new()` values do not mix (as with two GPUs).
    pub fn new() -> Self {
        let threads = rayon::current_num_threads();
        CpuBackend {
            device: Self::info(format!("cpu ({threads} threads)")),
            pool: None,
            fft_plans: Arc::default(),
            memory: Arc::default(),
        }
    }

    /// A backend with its own pool of `threads` threads (0: rayon's default, one per
    /// available core; the device name gives the number the pool has).
    pub fn with_threads(threads: usize) -> Result<Self> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("gpuarrays-cpu-{i}"))
            .build()
            .map_err(|e| CpuError::ThreadPool {
                threads,
                reason: e.to_string(),
            })?;
        Ok(CpuBackend {
            device: Self::info(format!("cpu ({} threads)", pool.current_num_threads())),
            pool: Some(Arc::new(pool)),
            fft_plans: Arc::default(),
            memory: Arc::default(),
        })
    }

    fn info(name: String) -> Arc<DeviceInfo> {
        Arc::new(DeviceInfo {
            backend: "cpu",
            id: next_device_id(),
            ordinal: 0,
            name,
            flushes_subnormals: Default::default(),
        })
    }

    /// Runs the kernel `f` on this backend's pool (or, with `Here::Inline`, on this thread),
    /// holding the access locks of the buffers it uses (`buffer::access`): calls of other
    /// threads on the same buffers are ordered before or after it, never during it.
    ///
    /// On a rayon worker (a program calling gpuarrays inside `par_iter`) the locks are
    /// taken without blocking the worker and the kernel runs serially on it
    /// ([`crate::parallel`]).
    fn run<R: Send>(
        &self,
        accesses: Accesses<'_>,
        here: Here,
        f: impl FnOnce() -> Result<R, CpuError> + Send,
    ) -> Result<R> {
        let r = if parallel::on_rayon_worker() {
            let _locks = accesses.acquire_polling();
            parallel::serially(f)
        } else {
            let _locks = accesses.acquire_blocking();
            match (&self.pool, here) {
                (Some(pool), Here::Pool) => pool.install(f),
                _ => f(),
            }
        };
        r.map_err(Into::into)
    }
}

/// Where a kernel runs when the caller is not a rayon worker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Here {
    /// In the backend's pool (its own, or rayon's global one).
    Pool,
    /// On the calling thread: the kernel is small and splits no work (entering a pool
    /// would only add a hand-over to another thread).
    Inline,
}

/// The accesses of an elementwise call: its inputs read, its output written.
fn elementwise_accesses<'a>(args: &ElementwiseArgs<'a, CpuBuffer>) -> Accesses<'a> {
    args.inputs
        .iter()
        .fold(Accesses::default(), |acc, o| acc.read(o.buffer))
        .write(args.output.buffer)
}

impl Default for CpuBackend {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for CpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CpuBackend({})", self.device)
    }
}

impl Backend for CpuBackend {
    type Buffer = CpuBuffer;

    fn name(&self) -> &'static str {
        "cpu"
    }

    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn supports(&self, _dtype: DType, _op: OpKind) -> Support {
        Support::Yes
    }

    /// The evaluator scatters to any output layout (`elementwise/layout.rs`).
    fn writes_strided_outputs(&self, _dtype: DType) -> bool {
        true
    }

    fn alloc(&self, bytes: usize) -> Result<CpuBuffer> {
        self.memory
            .reserve(bytes)
            .map_err(|e| e.to_error(self.device.to_string()))?;
        CpuBuffer::new(bytes).map_err(|e| {
            self.memory.release(bytes);
            e.into()
        })
    }

    fn release(&self, buffer: CpuBuffer) {
        self.memory.release(buffer.len());
        drop(buffer)
    }

    fn memory_tracker(&self) -> Option<&MemoryTracker> {
        Some(&self.memory)
    }

    fn write(&self, dst: &CpuBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        let acc = Accesses::default().write(dst);
        self.run(acc, Here::Inline, || dst.write_bytes(byte_offset, src))
    }

    fn read(&self, src: &CpuBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        let acc = Accesses::default().read(src);
        self.run(acc, Here::Inline, || src.read_bytes(byte_offset, dst))
    }

    fn copy(
        &self,
        src: &CpuBuffer,
        src_off: usize,
        dst: &CpuBuffer,
        dst_off: usize,
        bytes: usize,
    ) -> Result<()> {
        let acc = Accesses::default().read(src).write(dst);
        self.run(acc, Here::Pool, || {
            src.copy_to(src_off, dst, dst_off, bytes)
        })
    }

    fn elementwise(&self, program: &Program, args: &ElementwiseArgs<'_, CpuBuffer>) -> Result<()> {
        let here = if crate::elementwise::single_task(args) {
            Here::Inline
        } else {
            Here::Pool
        };
        self.run(elementwise_accesses(args), here, || {
            crate::elementwise::run(program, args)
        })
    }

    fn reduce(&self, args: &ReduceArgs<'_, CpuBuffer>) -> Result<()> {
        let here = if crate::reduce::runs_inline(args) {
            Here::Inline
        } else {
            Here::Pool
        };
        let acc = Accesses::default().read(args.input).write(args.output);
        self.run(acc, here, || crate::reduce::run(args))
    }

    fn scan(&self, args: &ScanArgs<'_, CpuBuffer>) -> Result<()> {
        let acc = Accesses::default().read(args.input).write(args.output);
        self.run(acc, Here::Pool, || crate::scan::run(args))
    }

    fn sort(&self, args: &SortArgs<'_, CpuBuffer>) -> Result<()> {
        let acc = Accesses::default().write(args.buffer);
        self.run(acc, Here::Pool, || crate::sort::run(args))
    }

    fn find(&self, args: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize)> {
        let acc = Accesses::default().read(args.input);
        self.run(acc, Here::Pool, || crate::sort::find(args))
    }

    fn search_sorted(&self, args: &SearchArgs<'_, CpuBuffer>) -> Result<()> {
        let acc = Accesses::default()
            .read(args.table)
            .read(args.values)
            .write(args.output);
        self.run(acc, Here::Pool, || crate::sort::search_sorted(args))
    }

    fn gather(&self, args: &GatherArgs<'_, CpuBuffer>) -> Result<()> {
        let mut acc = Accesses::default()
            .read(args.space.index.buffer)
            .read(args.source.buffer)
            .write(args.output);
        if let Some(report) = args.out_of_range {
            acc = acc.write(report);
        }
        self.run(acc, Here::Pool, || crate::indexing::run_gather(args))
    }

    /// The gather notes out-of-range indices as it reads them (one comparison per element
    /// against core's separate pass: a fused comparison, a reduction and a read-back).
    fn reports_gather_range(&self) -> bool {
        true
    }

    fn scatter(&self, args: &ScatterArgs<'_, CpuBuffer>) -> Result<()> {
        if args.op == ScatterOp::Add && !args.dtype.is_numeric() {
            // The same refusal as the host kit's (core never sends this: its rules exclude it).
            return Err(gpuarrays_core::Error::InvalidDType {
                op: "scatter_add".into(),
                dtype: args.dtype,
                hint: "bool is not added; core's type rules exclude it".into(),
            });
        }
        let acc = Accesses::default()
            .read(args.space.index.buffer)
            .read(args.values.buffer)
            .write(args.target.buffer);
        self.run(acc, Here::Pool, || crate::indexing::run_scatter(args))
    }

    fn matmul(&self, args: &MatmulArgs<'_, CpuBuffer>) -> Result<()> {
        let acc = Accesses::default()
            .read(args.a)
            .read(args.b)
            .write(args.output);
        self.run(acc, Here::Pool, || crate::matmul::run(args))
    }

    fn fft(&self, args: &FftArgs<'_, CpuBuffer>) -> Result<()> {
        let acc = Accesses::default().read(args.input).write(args.output);
        self.run(acc, Here::Pool, || crate::fft::run(&self.fft_plans, args))
    }
}
