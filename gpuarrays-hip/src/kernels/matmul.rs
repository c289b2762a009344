//! Batched matrix products with a tiled shared-memory kernel, for every numeric type.
//!
//! Each 16×16 block computes a 16×16 tile of the output, staging 16×16 tiles of both operands
//! in shared memory. Every output accumulates `a[i,k]·b[k,j]` for k = 0, 1, … in order, from
//! zero, with the element type's own (wrapping, or num-complex) add and multiply and with
//! contraction off — the CPU reference's exact sequence of operations, so results agree bit
//! for bit (f16 and bf16: products and sums in f32, rounded once, as the reference does). Padding lanes beyond k are never added (adding `0·x` would turn an infinite `x`
//! into NaN and flip the sign of zero sums).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::BinaryOp;

use super::KernelSource;
use super::args::KernelArgs;
use super::cpp::element_types::{cty, load, mty, store, zero};
use super::cpp::primitives;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::stream::Stream;

const T: u32 = 16;

/// The module body (everything after the kernel header) for `dtype`.
pub fn body(dtype: DType) -> Result<String> {
    if !dtype.is_numeric() {
        return Err(HipError::InvalidArgument(format!(
            "matmul of {dtype}: cast bool to a number first"
        )));
    }
    let (c, m) = (cty(dtype), mty(dtype));
    // Halves multiply and accumulate in f32 (their register type) and round once at the end,
    // as the CPU reference's matrix product of halves does.
    let acc = if dtype.is_half() { DType::F32 } else { dtype };
    let add = primitives::binary(BinaryOp::Add, acc, "acc", "p")?;
    let mul = primitives::binary(BinaryOp::Mul, acc, "as[ty][kk]", "bs[kk][tx]")?;
    let (a_at, b_at) = (
        load(dtype, "az[row * k + k0 + tx]"),
        load(dtype, "bz[(k0 + ty) * n + col]"),
    );
    let out = store(dtype, "acc");
    // The CPU reference starts from 0 (+0.0), not from -0.0: follow it.
    let start = if dtype.is_float() || dtype.is_complex() {
        zero(dtype).replace("-0.0", "0.0")
    } else {
        zero(dtype).to_string()
    };
    Ok(format!(
        r#"
__global__ void __launch_bounds__({T} * {T}) ga_matmul(const {m}* __restrict__ a, const {m}* __restrict__ b, {m}* out,
    const i64 batch, const i64 m, const i64 n, const i64 k, const i64 a_bs, const i64 b_bs) {{
  __shared__ {c} as[{T}][{T} + 1];
  __shared__ {c} bs[{T}][{T} + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 tiles_m = (m + {T} - 1) / {T}, tiles_n = (n + {T} - 1) / {T};
  for (i64 z = blockIdx.z; z < batch; z += gridDim.z) {{
    const {m}* az = a + z * a_bs;
    const {m}* bz = b + z * b_bs;
    {m}* oz = out + z * m * n;
    for (i64 by = blockIdx.y; by < tiles_m; by += gridDim.y) {{
      for (i64 bx = blockIdx.x; bx < tiles_n; bx += gridDim.x) {{
        const i64 row = by * {T} + ty, col = bx * {T} + tx;
        {c} acc = {start};
        for (i64 k0 = 0; k0 < k; k0 += {T}) {{
          as[ty][tx] = (row < m && k0 + tx < k) ? {a_at} : {start};
          bs[ty][tx] = (k0 + ty < k && col < n) ? {b_at} : {start};
          __syncthreads();
          const int kmax = k - k0 < {T} ? (int)(k - k0) : {T};
          for (int kk = 0; kk < kmax; ++kk) {{
            const {c} p = {mul};
            acc = {add};
          }}
          __syncthreads();
        }}
        if (row < m && col < n) oz[row * n + col] = {out};
      }}
    }}
  }}
}}
"#
    ))
}

/// The module source for `dtype`.
pub fn source(dev: &DeviceKernels, dtype: DType) -> Result<KernelSource> {
    Ok(dev.source(
        format!("ga_matmul[{}]", dtype.name()),
        &body(dtype)?,
        vec!["ga_matmul"],
    ))
}

/// One batched product; pointers have their offsets applied.
#[derive(Debug, Clone, Copy)]
pub struct MatmulLaunch {
    pub dtype: DType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: DevicePtr,
    pub a_batch_stride: usize,
    pub b: DevicePtr,
    pub b_batch_stride: usize,
    pub output: DevicePtr,
}

/// Runs one batched product on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, l: &MatmulLaunch) -> Result<()> {
    run_on(dev, Some(stream), l)
}

/// Compiles (or finds) the kernel [`run`] launches, without launching: the ordering protocol calls it before it locks the operands (a compilation must not
/// hold them). With no stream, nothing can be enqueued.
pub fn prepare(dev: &DeviceKernels, l: &MatmulLaunch) -> Result<()> {
    run_on(dev, None, l)
}

/// [`run`] on `stream`, or [`prepare`] when there is none: everything up to the launch.
fn run_on(dev: &DeviceKernels, stream: Option<&Stream>, l: &MatmulLaunch) -> Result<()> {
    if l.batch * l.m * l.n == 0 {
        return Ok(());
    }
    let module = dev
        .matmul
        .get(&l.dtype, dev.modules(), || source(dev, l.dtype))?;
    let Some(stream) = stream else {
        return Ok(());
    };
    let f = module.function("ga_matmul")?;
    let mut a = KernelArgs::with_capacity(9);
    a.ptr(l.a).ptr(l.b).ptr(l.output);
    a.i64(l.batch as i64)
        .i64(l.m as i64)
        .i64(l.n as i64)
        .i64(l.k as i64);
    a.i64(l.a_batch_stride as i64).i64(l.b_batch_stride as i64);
    let gx = l.n.div_ceil(T as usize).clamp(1, i32::MAX as usize) as u32;
    let gy = l.m.div_ceil(T as usize).clamp(1, 65_535) as u32;
    let gz = l.batch.clamp(1, 65_535) as u32;
    // SAFETY: the parameter list matches ga_matmul; the caller guarantees a, b and output
    // cover their batches (strides included) and live until the kernel ran.
    unsafe { dev.launch(f, [gx, gy, gz], [T, T, 1], 0, stream, &mut a) }
}
