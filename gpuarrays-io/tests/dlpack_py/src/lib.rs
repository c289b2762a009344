//! A C library over `gpuarrays_io::dlpack`, for tests only: `tests/dlpack_numpy.py` loads it
//! with ctypes and exchanges tensors with NumPy (and, with `--torch-cuda` and the `hip`
//! feature, with PyTorch on a GPU).
//!
//! Exports (`ga_export_*`) return a managed tensor (null on failure) whose deleter is
//! wrapped to count its calls ([`ga_deleter_calls`]); imports (`ga_import_*`) take a
//! managed tensor's ownership and return a status: [`GA_OK`], or a code naming the refusal
//! (its message from [`ga_last_error`]). Nothing unwinds across the C boundary: every entry
//! point catches panics ([`GA_PANIC`]).
//!
//! Element kinds are indices into [`KINDS`] (bool, u8, i32, u32, i64, u64, f32, f64,
//! complex64, complex128): the script uses the same list.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use gpuarrays_core::{Array, Backend, Complex32, Complex64, DType, RawArray, Scalar};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::dlpack::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use gpuarrays_io::dlpack::{from_dlpack, from_dlpack_legacy, to_dlpack, to_dlpack_legacy};

mod counted;
#[cfg(feature = "hip")]
mod hip;

pub use counted::{ga_deleter_calls, ga_exports};

/// Success.
pub const GA_OK: i32 = 0;
/// A gpuarrays error other than those below.
pub const GA_ERROR: i32 = 1;
/// A panic, caught at the boundary.
pub const GA_PANIC: i32 = 2;
/// `Error::UnsupportedDType`: the tensor's element type has no gpuarrays equivalent.
pub const GA_UNSUPPORTED_DTYPE: i32 = 3;
/// `Error::DeviceMismatch`: the tensor lives on another device.
pub const GA_DEVICE_MISMATCH: i32 = 4;
/// `Error::ReadOnly`: the tensor is flagged read-only.
pub const GA_READ_ONLY: i32 = 5;
/// A null pointer or an unknown kind.
pub const GA_BAD_ARGUMENT: i32 = 6;

/// The element kinds, in the order of the script's list.
pub const KINDS: [DType; 10] = [
    DType::Bool,
    DType::U8,
    DType::I32,
    DType::U32,
    DType::I64,
    DType::U64,
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
];

/// Why a call failed: its status code and message.
pub(crate) struct Fail(i32, String);

impl From<gpuarrays_io::Error> for Fail {
    fn from(e: gpuarrays_io::Error) -> Fail {
        use gpuarrays_io::Error as E;
        let code = match &e {
            E::UnsupportedDType { .. } => GA_UNSUPPORTED_DTYPE,
            E::DeviceMismatch { .. } => GA_DEVICE_MISMATCH,
            E::ReadOnly { .. } => GA_READ_ONLY,
            _ => GA_ERROR,
        };
        Fail(code, e.to_string())
    }
}

impl From<gpuarrays_core::Error> for Fail {
    fn from(e: gpuarrays_core::Error) -> Fail {
        Fail(GA_ERROR, e.to_string())
    }
}

pub(crate) fn bad_argument(what: impl Display) -> Fail {
    Fail(GA_BAD_ARGUMENT, what.to_string())
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: String) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs `f` with panics caught; a failure's message goes to [`ga_last_error`].
pub(crate) fn status(f: impl FnOnce() -> Result<(), Fail>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => GA_OK,
        Ok(Err(Fail(code, message))) => {
            set_error(message);
            code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(format!("panic: {what}"));
            GA_PANIC
        }
    }
}

/// Runs `f` as [`status`] does, returning its pointer or null.
pub(crate) fn pointer<T>(f: impl FnOnce() -> Result<*mut T, Fail>) -> *mut T {
    let mut out = std::ptr::null_mut();
    status(|| {
        out = f()?;
        Ok(())
    });
    out
}

/// The message of this thread's last failure (empty if none), valid until its next one.
#[unsafe(no_mangle)]
pub extern "C" fn ga_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

pub(crate) fn kind(kind: i32) -> Result<DType, Fail> {
    usize::try_from(kind)
        .ok()
        .and_then(|k| KINDS.get(k).copied())
        .ok_or_else(|| bad_argument(format!("unknown kind {kind}")))
}

/// `[d0]`, `[d0, d1]`, or 0-d when `d0 < 0` (a negative `d1`: one dimension).
fn dims(d0: i64, d1: i64) -> Vec<usize> {
    [d0, d1]
        .iter()
        .map_while(|&d| usize::try_from(d).ok())
        .collect()
}

/// Element `i` is `i` in the array's type (bool: odd `i`; complex: `i - i·j`).
pub(crate) fn arange<B: Backend>(
    backend: &B,
    dtype: DType,
    dims: &[usize],
) -> gpuarrays_core::Result<RawArray<B>> {
    let n: usize = dims.iter().product();
    macro_rules! typed {
        ($t:ty, $f:expr) => {{
            let values: Vec<$t> = (0..n).map($f).collect();
            Array::<$t, B>::from_slice(backend, dims, &values)?.into_raw()
        }};
    }
    Ok(match dtype {
        DType::Bool => typed!(bool, |i| i % 2 == 1),
        DType::I8 => typed!(i8, |i| i as i8),
        DType::U8 => typed!(u8, |i| i as u8),
        DType::I16 => typed!(i16, |i| i as i16),
        DType::U16 => typed!(u16, |i| i as u16),
        DType::F16 => typed!(gpuarrays_core::f16, |i| gpuarrays_core::f16::from_f32(
            i as f32
        )),
        DType::BF16 => typed!(gpuarrays_core::bf16, |i| gpuarrays_core::bf16::from_f32(
            i as f32
        )),
        DType::I32 => typed!(i32, |i| i as i32),
        DType::U32 => typed!(u32, |i| i as u32),
        DType::I64 => typed!(i64, |i| i as i64),
        DType::U64 => typed!(u64, |i| i as u64),
        DType::F32 => typed!(f32, |i| i as f32),
        DType::F64 => typed!(f64, |i| i as f64),
        DType::C32 => typed!(Complex32, |i| Complex32::new(i as f32, -(i as f32))),
        DType::C64 => typed!(Complex64, |i| Complex64::new(i as f64, -(i as f64))),
    })
}

/// The sum of an array's elements as `[re, im]` (computed by gpuarrays in f64/complex128).
pub(crate) fn sum<B: Backend>(a: &RawArray<B>) -> gpuarrays_core::Result<[f64; 2]> {
    macro_rules! real {
        ($t:ty) => {
            [a.clone().into_typed::<$t>()?.cast::<f64>()?.sum()?, 0.0]
        };
    }
    Ok(match a.dtype() {
        DType::Bool => real!(bool),
        DType::I8 => real!(i8),
        DType::U8 => real!(u8),
        DType::I16 => real!(i16),
        DType::U16 => real!(u16),
        DType::F16 => real!(gpuarrays_core::f16),
        DType::BF16 => real!(gpuarrays_core::bf16),
        DType::I32 => real!(i32),
        DType::U32 => real!(u32),
        DType::I64 => real!(i64),
        DType::U64 => real!(u64),
        DType::F32 => real!(f32),
        DType::F64 => real!(f64),
        DType::C32 | DType::C64 => {
            let s = a.cast_dyn_c64()?.sum()?;
            [s.re, s.im]
        }
    })
}

trait CastC64<B: Backend> {
    fn cast_dyn_c64(&self) -> gpuarrays_core::Result<Array<Complex64, B>>;
}

impl<B: Backend> CastC64<B> for RawArray<B> {
    fn cast_dyn_c64(&self) -> gpuarrays_core::Result<Array<Complex64, B>> {
        match self.dtype() {
            DType::C32 => self.clone().into_typed::<Complex32>()?.cast::<Complex64>(),
            _ => self.clone().into_typed::<Complex64>(),
        }
    }
}

/// Writes `value` (converted to the array's type) to every element.
pub(crate) fn fill<B: Backend>(a: &RawArray<B>, value: f64) -> gpuarrays_core::Result<()> {
    a.fill(Scalar::F64(value).cast(a.dtype()))
}

/// Writes `[re, im]` to `out` (when not null).
///
/// # Safety
/// `out` is null or valid for writing two `f64`.
pub(crate) unsafe fn write_pair(out: *mut f64, value: [f64; 2]) {
    if !out.is_null() {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), out, 2) };
    }
}

fn cpu() -> &'static CpuBackend {
    static CPU: std::sync::OnceLock<CpuBackend> = std::sync::OnceLock::new();
    CPU.get_or_init(CpuBackend::new)
}

/// Exports `0..d0*d1` of element kind `kind` (see [`dims`] for the shape) as a DLPack 1.x
/// tensor in host memory; null on failure.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_cpu(kind_: i32, d0: i64, d1: i64) -> *mut DLManagedTensorVersioned {
    pointer(|| {
        let a = arange(cpu(), kind(kind_)?, &dims(d0, d1))?;
        Ok(counted::versioned(to_dlpack(&a)?))
    })
}

/// [`ga_export_cpu`] as an unversioned (legacy) `DLManagedTensor`.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_cpu_legacy(kind_: i32, d0: i64, d1: i64) -> *mut DLManagedTensor {
    pointer(|| {
        let a = arange(cpu(), kind(kind_)?, &dims(d0, d1))?;
        Ok(counted::legacy(to_dlpack_legacy(&a, None)?))
    })
}

/// `0..n` as f32, a DLPack 1.x tensor in host memory.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_f32_cpu(n: usize) -> *mut DLManagedTensorVersioned {
    ga_export_cpu(6, i64::try_from(n).unwrap_or(-1), -1)
}

/// NumPy's `np.arange(12.).reshape(3, 4).T[::-1]`: shape (4, 3), strides (-1, 4) elements,
/// byte offset 24 (element (0, 0) is element 3 of the buffer).
fn view() -> Result<RawArray<CpuBackend>, Fail> {
    let a = arange(cpu(), DType::F64, &[3, 4])?;
    Ok(a.permute(&[1, 0])?.reverse(0)?)
}

/// The strided, reversed view of [`view`] as a DLPack 1.x tensor.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_view_cpu() -> *mut DLManagedTensorVersioned {
    pointer(|| Ok(counted::versioned(to_dlpack(&view()?)?)))
}

/// [`ga_export_view_cpu`] as a legacy tensor.
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_view_cpu_legacy() -> *mut DLManagedTensor {
    pointer(|| Ok(counted::legacy(to_dlpack_legacy(&view()?, None)?)))
}

/// The array of the last [`ga_export_shared_cpu`], kept here too: what Python writes
/// through NumPy shows in it, and the other way round.
static SHARED: Mutex<Option<RawArray<CpuBackend>>> = Mutex::new(None);

fn with_shared<T>(f: impl FnOnce(&RawArray<CpuBackend>) -> Result<T, Fail>) -> Result<T, Fail> {
    let shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    let a = shared
        .as_ref()
        .ok_or_else(|| bad_argument("no shared array"))?;
    f(a)
}

/// `0..n` as f64, exported (DLPack 1.x) and kept for [`ga_shared_sum`] and
/// [`ga_shared_fill`] until [`ga_shared_release`].
#[unsafe(no_mangle)]
pub extern "C" fn ga_export_shared_cpu(n: usize) -> *mut DLManagedTensorVersioned {
    pointer(|| {
        let a = arange(cpu(), DType::F64, &[n])?;
        let t = to_dlpack(&a)?;
        *SHARED.lock().unwrap_or_else(|e| e.into_inner()) = Some(a);
        Ok(counted::versioned(t))
    })
}

/// The kept array's sum, computed by gpuarrays, into `out[0]`.
///
/// # Safety
/// `out` is null or valid for writing two `f64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_shared_sum(out: *mut f64) -> i32 {
    status(|| {
        let s = with_shared(|a| Ok(sum(a)?))?;
        // SAFETY: the caller's contract.
        unsafe { write_pair(out, s) };
        Ok(())
    })
}

/// Fills the kept array with `value` through gpuarrays.
#[unsafe(no_mangle)]
pub extern "C" fn ga_shared_fill(value: f64) -> i32 {
    status(|| with_shared(|a| Ok(fill(a, value)?)))
}

/// Drops the kept array.
#[unsafe(no_mangle)]
pub extern "C" fn ga_shared_release() -> i32 {
    status(|| {
        SHARED.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(())
    })
}

/// Imports a DLPack 1.x host tensor (zero-copy), writes its sum (`[re, im]`, by gpuarrays)
/// to `out`, and drops it (the producer's deleter runs, also on failure).
///
/// # Safety
/// `managed` is null or a live `DLManagedTensorVersioned` whose ownership passes to this
/// call; `out` is null or valid for writing two `f64`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_sum(
    managed: *mut DLManagedTensorVersioned,
    out: *mut f64,
) -> i32 {
    status(|| {
        // SAFETY: the caller's contract.
        let a = unsafe { from_dlpack(cpu(), managed) }?;
        // SAFETY: the caller's contract.
        unsafe { write_pair(out, sum(&a)?) };
        Ok(())
    })
}

/// [`ga_import_sum`] for a legacy `DLManagedTensor`.
///
/// # Safety
/// As for [`ga_import_sum`], with a `DLManagedTensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_sum_legacy(managed: *mut DLManagedTensor, out: *mut f64) -> i32 {
    status(|| {
        // SAFETY: the caller's contract.
        let a = unsafe { from_dlpack_legacy(cpu(), managed) }?;
        // SAFETY: the caller's contract.
        unsafe { write_pair(out, sum(&a)?) };
        Ok(())
    })
}

/// Imports a DLPack 1.x host tensor (zero-copy), fills it with `value` through gpuarrays
/// (the producer sees the write), and drops it.
///
/// # Safety
/// `managed` is null or a live, writable `DLManagedTensorVersioned` whose ownership passes
/// to this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_fill(managed: *mut DLManagedTensorVersioned, value: f64) -> i32 {
    status(|| {
        // SAFETY: the caller's contract.
        let a = unsafe { from_dlpack(cpu(), managed) }?;
        Ok(fill(&a, value)?)
    })
}

/// [`ga_import_fill`] for a legacy `DLManagedTensor`.
///
/// # Safety
/// As for [`ga_import_fill`], with a `DLManagedTensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ga_import_fill_legacy(managed: *mut DLManagedTensor, value: f64) -> i32 {
    status(|| {
        // SAFETY: the caller's contract.
        let a = unsafe { from_dlpack_legacy(cpu(), managed) }?;
        Ok(fill(&a, value)?)
    })
}
