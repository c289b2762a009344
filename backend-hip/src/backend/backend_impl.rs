//! `impl Backend for HipBackend`: storage, copies and the kernel entry points.

use gpuarrays_core::kernel::{
    ElementwiseArgs, FindArgs, MatmulArgs, Program, ReduceArgs, ScanArgs, SortArgs,
};
use gpuarrays_core::{Backend, DType, DeviceInfo, OpKind, Result, Support};

use super::{HipBackend, HipBuffer};
use crate::blas::{MatmulRoute, RowMajorProduct, blas_type};
use crate::error::HipError;
use crate::kernels::elementwise::{self, EwOperand};
use crate::kernels::matmul::{self, MatmulLaunch};
use crate::kernels::reduce::{self, ReduceLaunch};
use crate::kernels::scan::{self, ScanLaunch};
use crate::kernels::{find, sort};
use crate::stream::Stream;
use smallvec::SmallVec;

fn out_of_range(what: &str, detail: String) -> HipError {
    HipError::InvalidArgument(format!("{what}: {detail}"))
}

/// Checks that `count` elements of `dtype` from element `offset` fit in `buf`.
fn check_run(
    buf: &HipBuffer,
    dtype: DType,
    offset: usize,
    count: usize,
    what: &str,
) -> crate::Result<()> {
    let end = (offset as u128 + count as u128) * dtype.size() as u128;
    if end > buf.len() as u128 {
        return Err(out_of_range(
            what,
            format!(
                "elements {offset}..{} of {dtype} exceed a buffer of {} bytes",
                offset + count,
                buf.len()
            ),
        ));
    }
    Ok(())
}

/// Checks that every element a strided operand reaches over `shape` lies in its buffer.
fn check_strided(
    buf: &HipBuffer,
    dtype: DType,
    offset: usize,
    shape: &[usize],
    strides: &[isize],
) -> crate::Result<()> {
    if strides.len() != shape.len() {
        return Err(out_of_range(
            "elementwise",
            format!("{} strides for {} dimensions", strides.len(), shape.len()),
        ));
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&n, &s) in shape.iter().zip(strides) {
        let span = (n as i128 - 1) * s as i128;
        if span < 0 {
            lo += span;
        } else {
            hi += span;
        }
    }
    if lo < 0 || (hi + 1) * dtype.size() as i128 > buf.len() as i128 {
        return Err(out_of_range(
            "elementwise",
            format!(
                "strides {strides:?} from offset {offset} over {shape:?} leave a buffer of {} bytes",
                buf.len()
            ),
        ));
    }
    Ok(())
}

impl HipBackend {
    /// The calling thread's stream, with every buffer in `bufs` ordered before work on it.
    fn stream_for(&self, bufs: &[&HipBuffer]) -> crate::Result<Stream> {
        let stream = self.device_state().thread_stream()?;
        for b in bufs {
            b.use_on(&stream)?;
        }
        Ok(stream)
    }

    fn elementwise_inner(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, HipBuffer>,
    ) -> crate::Result<()> {
        let operands = || args.inputs.iter().chain(std::iter::once(&args.output));
        for o in operands() {
            check_strided(o.buffer, o.dtype, o.offset, &args.shape, &o.strides)?;
        }
        fn ew<'a>(o: &'a gpuarrays_core::kernel::Operand<'_, HipBuffer>) -> EwOperand<'a> {
            EwOperand {
                ptr: o.buffer.at(o.offset, o.dtype.size()),
                dtype: o.dtype,
                strides: &o.strides,
            }
        }
        let inputs: SmallVec<[EwOperand<'_>; 8]> = args.inputs.iter().map(ew).collect();
        let output = ew(&args.output);
        let stream = self.device_state().thread_stream()?;
        for o in operands() {
            o.buffer.use_on(&stream)?;
        }
        elementwise::run(
            self.kernels(),
            &stream,
            program,
            &args.shape,
            &inputs,
            &args.scalars,
            &output,
        )
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
        let stream = self.stream_for(&[a.input, a.output])?;
        reduce::run(
            self.kernels(),
            &stream,
            &ReduceLaunch {
                op: a.op,
                dtype: a.dtype,
                input: a.input.at(a.input_offset, a.dtype.size()),
                output: a.output.at(a.output_offset, out_dtype.size()),
                outer: a.outer,
                len: a.len,
                inner: a.inner,
            },
        )
    }

    fn scan_inner(&self, a: &ScanArgs<'_, HipBuffer>) -> crate::Result<()> {
        let n = a.outer * a.len * a.inner;
        check_run(a.input, a.dtype, a.input_offset, n, "scan")?;
        check_run(a.output, a.dtype, a.output_offset, n, "scan")?;
        let stream = self.stream_for(&[a.input, a.output])?;
        scan::run(
            self.kernels(),
            &stream,
            &ScanLaunch {
                op: a.op,
                dtype: a.dtype,
                input: a.input.at(a.input_offset, a.dtype.size()),
                output: a.output.at(a.output_offset, a.dtype.size()),
                outer: a.outer,
                len: a.len,
                inner: a.inner,
            },
        )
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
        let stream = self.stream_for(&[a.a, a.b, a.output])?;
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
        if self.matmul_on_blas(&stream, &launch)? {
            return Ok(());
        }
        matmul::run(self.kernels(), &stream, &launch)
    }

    /// The product through the vendor BLAS where the route and the type allow it: `true` if
    /// it was enqueued there, `false` if it goes to the kernel (integers; `GPUARRAYS_MATMUL=
    /// kernel`; sizes beyond 32 bits; `auto` without the library, reported once).
    fn matmul_on_blas(&self, stream: &Stream, l: &MatmulLaunch) -> crate::Result<bool> {
        let route = self.matmul_route();
        let Some(dtype) = blas_type(l.dtype) else {
            return Ok(false);
        };
        if route == MatmulRoute::Kernel {
            return Ok(false);
        }
        let outputs = l.batch * l.m * l.n;
        if outputs == 0 {
            return Ok(true);
        }
        if l.k == 0 {
            // An empty sum: every output is +0 (all-zero bits for floats and complex).
            // SAFETY: the output's extent was checked against its buffer by the caller, and
            // the buffer outlives the memset (its free is stream-ordered after it).
            unsafe {
                self.kernels().platform().memset_async(
                    l.output,
                    0,
                    outputs * l.dtype.size(),
                    stream.handle(),
                )?;
            }
            return Ok(true);
        }
        let product = RowMajorProduct {
            dtype,
            batch: l.batch,
            m: l.m,
            n: l.n,
            k: l.k,
            a: l.a,
            a_batch_stride: l.a_batch_stride,
            b: l.b,
            b_batch_stride: l.b_batch_stride,
            output: l.output,
        };
        if !product.fits_32_bit() {
            tracing::debug!(
                ?product,
                "matmul beyond the BLAS's 32-bit sizes: own kernel"
            );
            return Ok(false);
        }
        match self.inner.blas.gemm(stream, &product) {
            Ok(()) => Ok(true),
            Err(e @ (HipError::LibraryNotFound { .. } | HipError::MissingSymbols { .. }))
                if route == MatmulRoute::Auto =>
            {
                use std::sync::atomic::Ordering;
                if !self
                    .inner
                    .blas_fallback_reported
                    .swap(true, Ordering::Relaxed)
                {
                    tracing::warn!(device = %self.inner.info, error = %e, "matrix products run on gpuarrays' own kernel, about 10x slower than the vendor BLAS");
                }
                Ok(false)
            }
            Err(e) => Err(e),
        }
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
            let stream = self.stream_for(&[dst])?;
            // SAFETY: `src` is a live slice of `src.len()` bytes, and we synchronise the stream
            // before returning, so the copy has finished reading it; the destination range
            // was checked against the buffer's length.
            unsafe {
                self.kernels().platform().copy_htod_async(
                    dst.ptr().offset(byte_offset),
                    src.as_ptr().cast(),
                    src.len(),
                    stream.handle(),
                )?;
            }
            stream.synchronize()
        })();
        r.map_err(|e| self.err(e))
    }

    fn read(&self, src: &HipBuffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        let r = (|| {
            check_run(src, DType::U8, byte_offset, dst.len(), "read")?;
            if dst.is_empty() {
                return Ok(());
            }
            // Ordered after the buffer's last use, whichever thread made it.
            let stream = self.stream_for(&[src])?;
            // SAFETY: `dst` is a live, exclusively borrowed slice, and we synchronise before
            // returning, so the copy has finished writing it; the source range was checked.
            unsafe {
                self.kernels().platform().copy_dtoh_async(
                    dst.as_mut_ptr().cast(),
                    src.ptr().offset(byte_offset),
                    dst.len(),
                    stream.handle(),
                )?;
            }
            stream.synchronize()
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
            let stream = self.stream_for(&[src, dst])?;
            // SAFETY: both ranges were checked against their buffers' lengths, and the
            // buffers stay alive until the copy ran (their frees are stream-ordered after it).
            unsafe {
                self.kernels().platform().copy_dtod_async(
                    dst.ptr().offset(dst_byte_offset),
                    src.ptr().offset(src_byte_offset),
                    bytes,
                    stream.handle(),
                )
            }
        })();
        r.map_err(|e| self.err(e))
    }

    fn synchronize(&self) -> Result<()> {
        self.device_state()
            .thread_stream()
            .and_then(|s| s.synchronize())
            .map_err(|e| self.err(e))
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
        let r = (|| {
            check_run(a.buffer, a.dtype, a.offset, a.rows * a.len, "sort")?;
            let stream = self.stream_for(&[a.buffer])?;
            let data = a.buffer.at(a.offset, a.dtype.size());
            sort::run(self.kernels(), &stream, a.dtype, data, a.rows, a.len)
        })();
        r.map_err(|e| self.err(e))
    }

    fn find(&self, a: &FindArgs<'_, HipBuffer>) -> Result<(HipBuffer, usize)> {
        let r = (|| {
            check_run(a.input, DType::Bool, a.offset, a.len, "find")?;
            let stream = self.stream_for(&[a.input])?;
            let (buf, count) = find::run(self.kernels(), &stream, a.input.at(a.offset, 1), a.len)?;
            Ok((HipBuffer::new(buf), count))
        })();
        r.map_err(|e| self.err(e))
    }

    fn matmul(&self, args: &MatmulArgs<'_, HipBuffer>) -> Result<()> {
        self.matmul_inner(args).map_err(|e| self.err(e))
    }
}
