//! The test double's BLAS: handles with their device, and products computed on the host from
//! the double's memory, in column-major order exactly as cuBLAS/rocBLAS define them, so the
//! row-major mapping above the platform layer is tested for real where no GPU exists.
//!
//! Each output accumulates `A[i, l]·B[l, j]` for `l = 0, 1, …` from zero in the element type,
//! or, for the half types, in `f32` with the output rounded once (the mixed-precision entry
//! points' contract).
//! The product is computed when enqueued; the work then takes `FakeConfig::kernel_time` on
//! its stream like a kernel, and the race detector sees the factors read and the product
//! written.

use super::state::{FakeBlas, FakeOp, State};
use super::{FakePlatform, api};
use crate::error::{HipError, Result};
use crate::platform::{
    BlasHandle, BlasType, DeviceId, DevicePtr, GemmStridedBatched, StreamHandle, codes,
};
use gpuarrays_core::{Complex32, Complex64, bf16, f16};

/// An element the double multiplies: read little-endian into its accumulator type, and
/// written back from it, as the device holds it.
trait Num {
    const SIZE: usize;
    type Acc: Copy + std::ops::Add<Output = Self::Acc> + std::ops::Mul<Output = Self::Acc>;
    fn zero() -> Self::Acc;
    fn read(b: &[u8]) -> Self::Acc;
    fn write(acc: Self::Acc, b: &mut [u8]);
}

fn u16_at(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

/// The half types: two bytes each, accumulated in f32 and rounded once when written.
macro_rules! half_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            const SIZE: usize = 2;
            type Acc = f32;
            fn zero() -> f32 {
                0.0
            }
            fn read(b: &[u8]) -> f32 {
                <$t>::from_bits(u16_at(b)).to_f32()
            }
            fn write(acc: f32, b: &mut [u8]) {
                b[..2].copy_from_slice(&<$t>::from_f32(acc).to_bits().to_le_bytes());
            }
        }
    )*};
}
half_num!(f16, bf16);

fn f32_at(b: &[u8], i: usize) -> f32 {
    f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn f64_at(b: &[u8], i: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    f64::from_le_bytes(a)
}

impl Num for f32 {
    type Acc = Self;
    const SIZE: usize = 4;
    fn zero() -> Self::Acc {
        0.0
    }
    fn read(b: &[u8]) -> Self::Acc {
        f32_at(b, 0)
    }
    fn write(acc: Self, b: &mut [u8]) {
        b[..4].copy_from_slice(&acc.to_le_bytes());
    }
}

impl Num for f64 {
    type Acc = Self;
    const SIZE: usize = 8;
    fn zero() -> Self::Acc {
        0.0
    }
    fn read(b: &[u8]) -> Self::Acc {
        f64_at(b, 0)
    }
    fn write(acc: Self, b: &mut [u8]) {
        b[..8].copy_from_slice(&acc.to_le_bytes());
    }
}

impl Num for Complex32 {
    type Acc = Self;
    const SIZE: usize = 8;
    fn zero() -> Self::Acc {
        Complex32::new(0.0, 0.0)
    }
    fn read(b: &[u8]) -> Self::Acc {
        Complex32::new(f32_at(b, 0), f32_at(b, 4))
    }
    fn write(acc: Self, b: &mut [u8]) {
        b[..4].copy_from_slice(&acc.re.to_le_bytes());
        b[4..8].copy_from_slice(&acc.im.to_le_bytes());
    }
}

impl Num for Complex64 {
    type Acc = Self;
    const SIZE: usize = 16;
    fn zero() -> Self::Acc {
        Complex64::new(0.0, 0.0)
    }
    fn read(b: &[u8]) -> Self::Acc {
        Complex64::new(f64_at(b, 0), f64_at(b, 8))
    }
    fn write(acc: Self, b: &mut [u8]) {
        b[..8].copy_from_slice(&acc.re.to_le_bytes());
        b[8..16].copy_from_slice(&acc.im.to_le_bytes());
    }
}

/// Bytes from `ptr` to one past the last element of a strided batch of `rows × cols`
/// column-major matrices with leading dimension `ld`.
fn extent(size: usize, rows: i32, cols: i32, ld: i32, stride: i64, batch: i32) -> usize {
    let last = (batch as i64 - 1) * stride + (cols as i64 - 1) * ld as i64 + rows as i64 - 1;
    (last as usize + 1) * size
}

fn invalid(why: String) -> HipError {
    api("blas_gemm", codes::INVALID_VALUE, &why)
}

/// Check the sizes as cuBLAS does (it returns CUBLAS_STATUS_INVALID_VALUE for these).
fn check_shape(g: &GemmStridedBatched) -> Result<()> {
    if g.m < 1 || g.n < 1 || g.k < 1 || g.batch < 1 {
        return Err(invalid(format!(
            "m {}, n {}, k {}, batch {} must all be ≥ 1",
            g.m, g.n, g.k, g.batch
        )));
    }
    if g.lda < g.m || g.ldb < g.k || g.ldc < g.m {
        return Err(invalid(format!(
            "leading dimensions lda {} ldb {} ldc {} below m {} k {} m {}",
            g.lda, g.ldb, g.ldc, g.m, g.k, g.m
        )));
    }
    if g.stride_a < 0 || g.stride_b < 0 || g.stride_c < g.ldc as i64 * g.n as i64 {
        return Err(invalid(format!(
            "strides a {} b {} c {} (c must not overlap: ≥ {})",
            g.stride_a,
            g.stride_b,
            g.stride_c,
            g.ldc as i64 * g.n as i64
        )));
    }
    Ok(())
}

fn product<T: Num>(g: &GemmStridedBatched, a: &[u8], b: &[u8], c: &mut [u8]) {
    let at = |buf: &[u8], i: i64| T::read(&buf[i as usize * T::SIZE..]);
    for z in 0..g.batch as i64 {
        for j in 0..g.n as i64 {
            for i in 0..g.m as i64 {
                let mut acc = T::zero();
                for l in 0..g.k as i64 {
                    let x = at(a, z * g.stride_a + l * g.lda as i64 + i);
                    let y = at(b, z * g.stride_b + j * g.ldb as i64 + l);
                    acc = acc + x * y;
                }
                let o = (z * g.stride_c + j * g.ldc as i64 + i) as usize * T::SIZE;
                T::write(acc, &mut c[o..]);
            }
        }
    }
}

impl FakePlatform {
    fn read_range(&self, st: &mut State, ptr: DevicePtr, bytes: usize) -> Result<Vec<u8>> {
        let at = self.access(st, ptr, bytes)?;
        Ok(st.bytes_mut(at, bytes).to_vec())
    }

    pub(super) fn fake_blas_create(&self, device: DeviceId) -> Result<BlasHandle> {
        self.check_device(device)?;
        if !self.config.blas_available {
            return Err(HipError::LibraryNotFound {
                platform: crate::platform::PlatformKind::TestDouble,
                library: "the test double's BLAS",
                provider: "the test double",
                tried: vec!["FakeConfig::blas_available is false".into()],
                hint: "set FakeConfig::blas_available",
            });
        }
        let mut st = self.state.lock();
        // A handle's workspace is device memory like an allocation's: creation fails with
        // out-of-memory when it does not fit (cuBLAS: CUBLAS_STATUS_ALLOC_FAILED).
        let bytes = st.blas_workspace_bytes;
        if !st.reserve(device, bytes) {
            return Err(api(
                "blas_create",
                codes::OUT_OF_MEMORY,
                "out of memory for the handle's workspace",
            ));
        }
        let h = st.handle();
        st.blas.insert(h, FakeBlas { device, bytes });
        st.blas_created += 1;
        Ok(BlasHandle(h))
    }

    pub(super) fn fake_blas_destroy(&self, device: DeviceId, handle: BlasHandle) -> Result<()> {
        let mut st = self.state.lock();
        let bound = st.bound.get(&std::thread::current().id()).copied();
        match st.blas.get(&handle.0) {
            None => Err(api(
                "blas_destroy",
                codes::INVALID_HANDLE,
                "no such BLAS handle",
            )),
            Some(b) if b.device != device || bound != Some(device) => Err(api(
                "blas_destroy",
                codes::INVALID_HANDLE,
                &format!(
                    "handle of device {} destroyed as device {device} with {bound:?} bound",
                    b.device
                ),
            )),
            Some(_) => {
                let bytes = st.blas.remove(&handle.0).map_or(0, |b| b.bytes);
                st.release(device, bytes);
                st.blas_destroyed += 1;
                Ok(())
            }
        }
    }

    pub(super) fn fake_blas_gemm(
        &self,
        handle: BlasHandle,
        stream: StreamHandle,
        g: &GemmStridedBatched,
    ) -> Result<()> {
        let mut st = self.state.lock();
        let stream_device = self.enqueue_check(&st, "blas_gemm", stream)?;
        let blas = st
            .blas
            .get(&handle.0)
            .ok_or_else(|| api("blas_gemm", codes::INVALID_HANDLE, "no such BLAS handle"))?;
        if blas.device != stream_device {
            return Err(api(
                "blas_gemm",
                codes::INVALID_HANDLE,
                &format!(
                    "handle of device {} used on a stream of device {stream_device}",
                    blas.device
                ),
            ));
        }
        check_shape(g)?;
        let size = g.dtype.size();
        let a = self.read_range(
            &mut st,
            g.a,
            extent(size, g.m, g.k, g.lda, g.stride_a, g.batch),
        )?;
        let b = self.read_range(
            &mut st,
            g.b,
            extent(size, g.k, g.n, g.ldb, g.stride_b, g.batch),
        )?;
        let c_bytes = extent(size, g.m, g.n, g.ldc, g.stride_c, g.batch);
        let mut c = self.read_range(&mut st, g.c, c_bytes)?;
        match g.dtype {
            BlasType::F32 => product::<f32>(g, &a, &b, &mut c),
            BlasType::F64 => product::<f64>(g, &a, &b, &mut c),
            BlasType::C32 => product::<Complex32>(g, &a, &b, &mut c),
            BlasType::C64 => product::<Complex64>(g, &a, &b, &mut c),
            BlasType::F16 => product::<f16>(g, &a, &b, &mut c),
            BlasType::BF16 => product::<bf16>(g, &a, &b, &mut c),
        }
        let at = self.access(&mut st, g.c, c_bytes)?;
        st.bytes_mut(at, c_bytes).copy_from_slice(&c);
        let captured = st.enqueue(
            FakeOp::Gemm {
                stream,
                handle,
                dtype: g.dtype,
                math: g.math,
            },
            self.config.kernel_time,
        );
        if !captured {
            // For the race detector: the factors are read, the product written.
            for (ptr, write) in [(g.a, false), (g.b, false), (g.c, true)] {
                if let Some(base) = Self::allocation_of(&st, ptr.0) {
                    self.note(&mut st, stream, base, write, "gemm");
                }
            }
        }
        Ok(())
    }

    /// Device memory each BLAS handle created from now on holds (its workspace; 0 by
    /// default), so that handle creation can run out of memory.
    pub fn set_blas_workspace_bytes(&self, bytes: usize) {
        self.state.lock().blas_workspace_bytes = bytes;
    }
    /// BLAS handles alive (created and not destroyed).
    pub fn blas_handles_alive(&self) -> usize {
        self.state.lock().blas.len()
    }
    /// BLAS handles (created, destroyed) so far.
    pub fn blas_handle_counts(&self) -> (usize, usize) {
        let st = self.state.lock();
        (st.blas_created, st.blas_destroyed)
    }
}
