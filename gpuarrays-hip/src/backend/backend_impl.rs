//! `impl Backend for HipBackend`: storage, copies and the kernel entry points.
//!
//! Every operation follows the ordering protocol ([`HipBackend::enqueue`], which is
//! [`crate::DeviceState::enqueue`] on the calling thread's stream): first everything slow —
//! validate, look up or compile the kernels (`<family>::prepare`) — with no lock held; then
//! one `enqueue` with the operands' roles whose closure only enqueues. A copy the host waits
//! for is synchronised after `enqueue` returns.

use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support};

use super::{HipBackend, HipBuffer};
use crate::device::Access;
use crate::error::HipError;
use crate::kernels::elementwise::{self, EwOperand};
use crate::kernels::matmul::MatmulLaunch;
use crate::kernels::reduce::{self, ReduceLaunch};
use crate::kernels::scan::{self, ScanLaunch};
use crate::stream::Stream;
use smallvec::SmallVec;

use super::checks::{check_run, check_strided};

impl HipBackend {
    /// The ordering protocol on the calling thread's stream: orders the work after what
    /// `reads` (only read) and `writes` (possibly written) require, runs `launch` to enqueue
    /// it, and records the uses, in one step no other thread can slip into (see
    /// [`crate::DeviceState::enqueue`]). A buffer in both lists is a write.
    ///
    /// `launch` must only enqueue on the stream it is given: look up or compile kernels,
    /// create library plans and allocate results before calling this.
    pub fn enqueue<R>(
        &self,
        reads: &[&HipBuffer],
        writes: &[&HipBuffer],
        launch: impl FnOnce(&Stream) -> crate::Result<R>,
    ) -> crate::Result<R> {
        let stream = self.device_state().thread_stream()?;
        self.enqueue_on(&stream, reads, writes, &[], launch)
    }

    /// [`HipBackend::enqueue`] on `stream` (the calling thread's, taken before to prepare
    /// per-stream resources), with `own` — operands of the runtime's own such as an FFT work
    /// area — ordered and recorded beside the caller's.
    pub(crate) fn enqueue_on<R>(
        &self,
        stream: &Stream,
        reads: &[&HipBuffer],
        writes: &[&HipBuffer],
        own: &[Access<'_>],
        launch: impl FnOnce(&Stream) -> crate::Result<R>,
    ) -> crate::Result<R> {
        let accesses: SmallVec<[Access<'_>; 8]> = reads
            .iter()
            .map(|b| Access::read(b.device_buffer()))
            .chain(writes.iter().map(|b| Access::write(b.device_buffer())))
            .chain(own.iter().copied())
            .collect();
        self.device_state().enqueue(stream, &accesses, launch)
    }

    fn fft_inner(&self, a: &FftArgs<'_, HipBuffer>) -> crate::Result<()> {
        a.validate()
            .map_err(|e| HipError::InvalidArgument(e.to_string()))?;
        let (ti, to) = (a.input_dtype(), a.output_dtype());
        check_run(a.input, ti, 0, a.extent(true), "fft")?;
        check_run(a.output, to, 0, a.extent(false), "fft")?;
        let desc = crate::platform::FftPlanDesc::from_args(a);
        // Plan, work area and input copy before any operand is locked: creating a plan or
        // allocating may take milliseconds (and run the memory pool's release hooks).
        let stream = self.device_state().thread_stream()?;
        let (input, output) = (
            a.input.at(a.input_layout.offset, ti.size()),
            a.output.at(a.output_layout.offset, to.size()),
        );
        let prepared = self.fft_state().prepare(&stream, &desc, input, output)?;
        // In place, input and output are one buffer: the protocol takes it as a write.
        self.enqueue_on(
            &stream,
            &[a.input],
            &[a.output],
            &prepared.accesses(),
            |stream| {
                // SAFETY: both ranges were checked against their buffers above and `desc` is
                // their layout (`validate`); the ordering protocol orders them and the
                // prepared operands on `stream` and records the uses, so no free or reuse
                // of their memory precedes the transform.
                unsafe { prepared.enqueue(stream, &desc, input, output) }
            },
        )
    }

    fn elementwise_inner(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, HipBuffer>,
    ) -> crate::Result<()> {
        let operands = || args.inputs.iter().chain(std::iter::once(&args.output));
        for o in operands() {
            check_strided(
                o.buffer,
                o.dtype,
                o.offset,
                args.shape,
                o.strides,
                "elementwise",
            )?;
        }
        fn ew<'a>(o: &'a gpuarrays_core::kernel::Operand<'_, HipBuffer>) -> EwOperand<'a> {
            EwOperand {
                ptr: o.buffer.at(o.offset, o.dtype.size()),
                dtype: o.dtype,
                strides: o.strides,
            }
        }
        let mut inputs: SmallVec<[EwOperand<'_>; 8]> = SmallVec::new();
        for o in args.inputs {
            inputs.push(ew(o));
        }
        let output = ew(&args.output);
        let dev = self.kernels();
        let prepared =
            elementwise::prepare(dev, program, args.shape, &inputs, args.scalars, output)?;
        let Some(prepared) = prepared else {
            return Ok(());
        };
        // The operands' roles straight into the protocol's form (one list, not three).
        let mut accesses: SmallVec<[Access<'_>; 8]> = SmallVec::new();
        for o in args.inputs {
            accesses.push(Access::read(o.buffer.device_buffer()));
        }
        accesses.push(Access::write(args.output.buffer.device_buffer()));
        let stream = self.device_state().thread_stream()?;
        self.device_state().enqueue(&stream, &accesses, |stream| {
            elementwise::run(dev, stream, &prepared)
        })
    }

    fn reduce_inner(&self, a: &ReduceArgs<'_, HipBuffer>) -> crate::Result<()> {
        let out_dtype =
            a.op.result_dtype(a.dtype)
                .map_err(|e| HipError::InvalidArgument(e.to_string()))?;
        check_run(
            a.input,
            a.dtype,
            a.input_offset,
            a.outer * a.len * a.inner,
            "reduce",
        )?;
        check_run(
            a.output,
            out_dtype,
            a.output_offset,
            a.outer * a.inner,
            "reduce",
        )?;
        let launch = ReduceLaunch {
            op: a.op,
            dtype: a.dtype,
            input: a.input.at(a.input_offset, a.dtype.size()),
            output: a.output.at(a.output_offset, out_dtype.size()),
            outer: a.outer,
            len: a.len,
            inner: a.inner,
        };
        reduce::prepare(self.kernels(), &launch)?;
        self.enqueue(&[a.input], &[a.output], |stream| {
            reduce::run(self.kernels(), stream, &launch)
        })
    }

    fn scan_inner(&self, a: &ScanArgs<'_, HipBuffer>) -> crate::Result<()> {
        let n = a.outer * a.len * a.inner;
        check_run(a.input, a.dtype, a.input_offset, n, "scan")?;
        check_run(a.output, a.dtype, a.output_offset, n, "scan")?;
        let launch = ScanLaunch {
            op: a.op,
            dtype: a.dtype,
            input: a.input.at(a.input_offset, a.dtype.size()),
            output: a.output.at(a.output_offset, a.dtype.size()),
            outer: a.outer,
            len: a.len,
            inner: a.inner,
        };
        scan::prepare(self.kernels(), &launch)?;
        self.enqueue(&[a.input], &[a.output], |stream| {
            scan::run(self.kernels(), stream, &launch)
        })
    }

    fn matmul_inner(&self, a: &MatmulArgs<'_, HipBuffer>) -> crate::Result<()> {
        let span = |stride: usize, per: usize| a.batch.saturating_sub(1) * stride + per;
        check_run(
            a.a,
            a.dtype,
            a.a_offset,
            span(a.a_batch_stride, a.m * a.k),
            "matmul",
        )?;
        check_run(
            a.b,
            a.dtype,
            a.b_offset,
            span(a.b_batch_stride, a.k * a.n),
            "matmul",
        )?;
        check_run(
            a.output,
            a.dtype,
            a.output_offset,
            a.batch * a.m * a.n,
            "matmul",
        )?;
        let size = a.dtype.size();
        let launch = MatmulLaunch {
            dtype: a.dtype,
            batch: a.batch,
            m: a.m,
            n: a.n,
            k: a.k,
            a: a.a.at(a.a_offset, size),
            a_batch_stride: a.a_batch_stride,
            b: a.b.at(a.b_offset, size),
            b_batch_stride: a.b_batch_stride,
            output: a.output.at(a.output_offset, size),
        };
        let plan = self.matmul_plan(&launch)?;
        self.enqueue(&[a.a, a.b], &[a.output], |stream| {
            self.matmul_run(&plan, &launch, stream)
        })
    }
}

impl Backend for HipBackend {
    type Buffer = HipBuffer;

    fn name(&self) -> &'static str {
        "hip"
    }

    fn device(&self) -> &DeviceInfo {
        &self.inner.info
    }

    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        super::supports(dtype, op)
    }

    /// Halves are scanned with an f32 running value, each output rounded once, in one
    /// kernel pass (their tile totals kept in f32: `kernels/scan/codegen.rs`).
    fn scans_halves(&self) -> bool {
        true
    }

    /// The generated kernels index a strided output like a strided input (one store per
    /// element; bytes are stored singly, so sub-word types need no merging).
    fn writes_strided_outputs(&self, _dtype: DType) -> bool {
        true
    }

    fn memory_tracker(&self) -> Option<&gpuarrays_core::MemoryTracker> {
        Some(self.device_state().memory().tracker())
    }

    fn cached_bytes(&self) -> usize {
        self.device_state().memory().stats().cached_bytes
    }

    /// Returns the pool's cached blocks to the driver, each after the work that used it.
    fn empty_cache(&self) -> Result<()> {
        self.device_state().memory().release_cached();
        Ok(())
    }

    fn alloc(&self, bytes: usize) -> Result<HipBuffer> {
        let b = self.device_state().alloc(bytes).map_err(|e| self.err(e))?;
        Ok(HipBuffer::new(b))
    }

    fn release(&self, buffer: HipBuffer) {
        if let Err(e) = buffer.free() {
            tracing::warn!(device = %self.inner.info, error = %e, "releasing a buffer failed; its memory may leak");
        }
    }

    fn write(&self, dst: &HipBuffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        let r = (|| {
            check_run(dst, DType::U8, byte_offset, src.len(), "write")?;
            if src.is_empty() {
                return Ok(());
            }
            // Ordered after the buffer's every use, whichever thread made it; large copies
            // are staged through pinned memory (`device/staged_copy.rs`).
            let stream = self.device_state().thread_stream()?;
            dst.device_buffer()
                .copy_from_host_at(&stream, byte_offset, src)
        })();
        r.map_err(|e| self.err(e))
    }

    fn read(&self, src: &HipBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        let r = (|| {
            check_run(src, DType::U8, byte_offset, dst.len(), "read")?;
            if dst.is_empty() {
                return Ok(());
            }
            // Ordered after the buffer's last write, whichever thread made it.
            let stream = self.device_state().thread_stream()?;
            src.device_buffer()
                .copy_to_host_at(&stream, byte_offset, dst)
        })();
        r.map_err(|e| self.err(e))
    }

    fn copy(
        &self,
        src: &HipBuffer,
        src_byte_offset: usize,
        dst: &HipBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        let r = (|| {
            check_run(src, DType::U8, src_byte_offset, bytes, "copy")?;
            check_run(dst, DType::U8, dst_byte_offset, bytes, "copy")?;
            if bytes == 0 {
                return Ok(());
            }
            self.enqueue(&[src], &[dst], |s| {
                // SAFETY: both ranges were checked against their buffers' lengths, and the
                // buffers' memory is reused only after the copy ran (their frees wait for
                // every recorded use).
                unsafe {
                    self.kernels().platform().copy_dtod_async(
                        dst.ptr().offset(dst_byte_offset),
                        src.ptr().offset(src_byte_offset),
                        bytes,
                        s.handle(),
                    )
                }
            })
        })();
        r.map_err(|e| self.err(e))
    }

    /// Device to device: a peer copy where the pair reaches each other (`device_copy.rs`).
    fn copy_to_device(
        &self,
        src: &HipBuffer,
        src_byte_offset: usize,
        to: &HipBackend,
        dst: &HipBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        self.copy_to_device_inner(src, src_byte_offset, to, dst, dst_byte_offset, bytes)
    }

    fn synchronize(&self) -> Result<()> {
        self.device_state()
            .synchronize_thread()
            .map_err(|e| self.err(e))
    }

    /// Stream capture into a driver graph (`backend/graph.rs`).
    fn records_graphs(&self) -> bool {
        true
    }

    fn capture_graph(
        &self,
        record: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Box<dyn gpuarrays_core::GraphReplay>> {
        Ok(Box::new(self.capture(record)?))
    }

    fn elementwise(&self, program: &Program, args: &ElementwiseArgs<'_, HipBuffer>) -> Result<()> {
        self.elementwise_inner(program, args)
            .map_err(|e| self.err(e))
    }

    fn reduce(&self, args: &ReduceArgs<'_, HipBuffer>) -> Result<()> {
        self.reduce_inner(args).map_err(|e| self.err(e))
    }

    fn scan(&self, args: &ScanArgs<'_, HipBuffer>) -> Result<()> {
        self.scan_inner(args).map_err(|e| self.err(e))
    }

    fn sort(&self, a: &SortArgs<'_, HipBuffer>) -> Result<()> {
        self.sort_inner(a).map_err(|e| self.err(e))
    }

    /// Fused in the onesweep sort's last pass (rows long enough for it).
    fn sort_into_positions(
        &self,
        a: &SortArgs<'_, HipBuffer>,
        positions: &HipBuffer,
        positions_offset: usize,
    ) -> Result<bool> {
        self.sort_into_positions_inner(a, positions, positions_offset)
            .map_err(|e| self.err(e))
    }

    fn find(&self, a: &FindArgs<'_, HipBuffer>) -> Result<(HipBuffer, usize)> {
        self.find_inner(a).map_err(|e| self.err(e))
    }

    fn search_sorted(&self, a: &SearchArgs<'_, HipBuffer>) -> Result<()> {
        self.search_inner(a).map_err(|e| self.err(e))
    }

    fn gather(&self, args: &GatherArgs<'_, HipBuffer>) -> Result<()> {
        self.gather_inner(args).map_err(|e| self.err(e))
    }

    /// Every gather kernel notes indices outside `-extent..extent` in the report word when
    /// given one, so a `Raise` gather needs no separate pass over its indices.
    fn reports_gather_range(&self) -> bool {
        true
    }

    fn scatter(&self, args: &ScatterArgs<'_, HipBuffer>) -> Result<()> {
        self.scatter_inner(args).map_err(|e| self.err(e))
    }

    fn matmul(&self, args: &MatmulArgs<'_, HipBuffer>) -> Result<()> {
        self.matmul_inner(args).map_err(|e| self.err(e))
    }

    fn fft(&self, a: &FftArgs<'_, HipBuffer>) -> Result<()> {
        self.fft_inner(a).map_err(|e| self.err(e))
    }
}
