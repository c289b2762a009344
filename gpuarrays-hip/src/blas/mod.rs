//! Matrix products through the vendor BLAS: cuBLAS on NVIDIA, rocBLAS on AMD.
//!
//! **Why a library.** A hand-written tiled kernel reaches a tenth of what cuBLAS does on an
//! H200 (25 ms against 2.7 ms for f32 4096²): the vendors' kernels are tuned per
//! architecture (tensor-core pipelines, split-K, autotuned tiles) in a way one generic kernel
//! cannot be. So f32, f64, the complex types and the half types go to the library; integer
//! products, which the libraries lack, stay on the backend's own kernel
//! (`crate::kernels::matmul`), and the one `matmul` entry of the backend chooses
//! ([`MatmulRoute`]).
//!
//! **Handles.** A BLAS handle is a library object bound to the device that was current when
//! it was created, with device memory of its own (a workspace). Creating one costs
//! milliseconds and destroying one synchronises the device, so handles are cached
//! ([`BlasHandleCache`], core's `HandleCache`), one cache per device ([`DeviceBlas`]):
//! - **leased per thread**: a thread takes a handle at its first product on a device and keeps
//!   it until it exits ([`thread_leases`]), so threads multiplying at the same time never share
//!   a handle, and a thread's products never wait on another thread's;
//! - **stream set per call**: every product sets the handle's stream to the calling thread's
//!   stream; because the handle's workspace is shared by everything run with it, the product
//!   is first ordered after the handle's previous product when that ran on another stream
//!   (the generation rule of buffer uses, [`crate::stream::Use`]; [`OwnedBlasHandle::use_on`]);
//! - **destroyed under their device**: an idle handle is destroyed by its own `Drop`, which
//!   binds the device it was created on (it carries device and platform by value, never
//!   "the current device" at destruction time), after its last product completed;
//! - **evicted first when memory runs out**: the device's memory pool calls a release hook
//!   that destroys every idle handle before it retries an allocation (the hook reports the
//!   memory each handle took when it was created, measured: the libraries do not say);
//! - **created again after releasing memory**: a creation that runs out of device memory
//!   (the handle's workspace) runs the pool's whole release (hooks, cached blocks) and is
//!   retried once, as FFT plans are; then [`crate::HipError::LibraryOutOfMemory`].
//!
//! **Layout.** The libraries are column-major; gpuarrays arrays are row-major. A row-major
//! `m × n` matrix is the column-major `n × m` matrix of its transpose, so `C = A·B` is
//! computed as `Cᵀ = Bᵀ·Aᵀ` with no data moved ([`RowMajorProduct::column_major`]). Batched
//! and broadcast products are one strided-batched call (batch stride 0 repeats a matrix).
//!
//! **Precision.** Products are exact IEEE single/double precision unless reduced precision
//! is asked for explicitly: [`DeviceBlas::set_reduced_precision`] or
//! `GPUARRAYS_ALLOW_TF32=1` (TF32 tensor cores on NVIDIA, xf32 on AMD matrix cores), never
//! by default. f16 and bf16 products take the mixed-precision entry points (half inputs and
//! output, f32 compute type): every product is exact in f32 and every sum, split-K partial
//! sums included, is an f32 sum, so each output is rounded to its half type once — the rule
//! of the CPU reference and of the own kernel, in another summation order.

mod device_blas;
mod handle;
mod policy;
mod row_major;
pub mod thread_leases;

pub use device_blas::DeviceBlas;
pub use handle::{BlasHandleCache, OwnedBlasHandle};
pub use policy::{ALLOW_TF32_ENV, MATMUL_ENV, MatmulRoute, blas_type};
pub use row_major::RowMajorProduct;
