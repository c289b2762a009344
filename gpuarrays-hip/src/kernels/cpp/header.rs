//! The C++ header every generated kernel source starts with: it makes one HIP-dialect C++
//! source compile under NVRTC (NVIDIA), hiprtc (AMD) and, for the syntax test, a host `g++`
//! with a shim. It also holds the compiler [`Dialect`] that selects the header's
//! platform-specific parts. (The header's first line still reads `// gpuarrays kernel
//! prelude`: the text is part of every cache key, and keeping it keeps cached binaries valid.)
//!
//! No standard header is included (NVRTC ships none by default): fixed-width integer names,
//! the complex types, the half types and their conversions ([`super::half_convert`]), NaN
//! tests, infinities and warp shuffles are defined here. The warp size
//! is never hard-coded: [`kernel_header`] writes the device's value into `GA_WARP`.
//!
//! Shuffles: `ga_shfl_up/down/idx(v, ·)` for every element type, and `ga_shfl_xor(v, m)` (the
//! value of lane `lane ^ m`, for the integer and real scalar types) over the whole warp: 32 lanes
//! under NVRTC (`__shfl_*_sync` with a full mask), the whole 64-lane wavefront under hiprtc
//! (`__shfl_*`, no mask). Kernels keep their lane arithmetic below `GA_WARP`.

use super::half_convert::HALF_TYPES;
use crate::platform::PlatformKind;

/// Which compiler dialect a source is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// NVRTC: `__shfl_*_sync` with a full mask.
    Nvidia,
    /// hiprtc: `__shfl_*` (whole wavefront), no masks.
    Amd,
}

impl Dialect {
    /// The dialect of a platform (the test double generates NVIDIA-flavoured sources).
    pub fn of(kind: PlatformKind) -> Dialect {
        match kind {
            PlatformKind::Amd => Dialect::Amd,
            PlatformKind::Nvidia | PlatformKind::TestDouble => Dialect::Nvidia,
        }
    }

    /// Compiler options. Contraction is off so that `a*b+c` rounds twice, exactly like the CPU
    /// reference (Rust never fuses): elementwise arithmetic and matmul match it bit for bit.
    /// The kernels are memory-bound, so the lost FMA throughput costs nothing measurable.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Dialect::Nvidia => &["-std=c++17", "--fmad=false"],
            Dialect::Amd => &["-std=c++17", "-O3", "-ffp-contract=off"],
        }
    }
}

const COMMON: &str = r#"
#define GA_INLINE __device__ __forceinline__
typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;
struct c32 { f32 re; f32 im; };
struct c64 { f64 re; f64 im; };
#define GA_MAX_WARPS (1024 / GA_WARP)

GA_INLINE c32 ga_c32(f32 re, f32 im) { c32 r; r.re = re; r.im = im; return r; }
GA_INLINE c64 ga_c64(f64 re, f64 im) { c64 r; r.re = re; r.im = im; return r; }
GA_INLINE bool ga_isnan(f32 x) { return x != x; }
GA_INLINE bool ga_isnan(f64 x) { return x != x; }
GA_INLINE f32 ga_inf_f32() { return __int_as_float(0x7f800000); }
GA_INLINE f64 ga_inf_f64() { return __longlong_as_double(0x7ff0000000000000LL); }
"#;

const SHFL_NVIDIA: &str = r#"
#define GA_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define GA_SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define GA_SHFL_IDX(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define GA_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))
#define GA_BALLOT(p) ((u64)__ballot_sync(0xffffffffu, (p)))
#define GA_SYNCWARP() __syncwarp()
"#;

const SHFL_AMD: &str = r#"
#define GA_SHFL_DOWN(v, d) __shfl_down((v), (d))
#define GA_SHFL_UP(v, d) __shfl_up((v), (d))
#define GA_SHFL_IDX(v, l) __shfl((v), (l))
#define GA_SHFL_XOR(v, m) __shfl_xor((v), (m))
#define GA_BALLOT(p) ((u64)__ballot(p))
#define GA_SYNCWARP() __builtin_amdgcn_wave_barrier()
"#;

const SHFL_TYPED: &str = r#"
#define GA_SHFL_NATIVE(T)                                                              \
  GA_INLINE T ga_shfl_down(T v, int d) { return GA_SHFL_DOWN(v, d); }                   \
  GA_INLINE T ga_shfl_up(T v, int d) { return GA_SHFL_UP(v, d); }                       \
  GA_INLINE T ga_shfl_idx(T v, int l) { return GA_SHFL_IDX(v, l); }                     \
  GA_INLINE T ga_shfl_xor(T v, int m) { return GA_SHFL_XOR(v, m); }
GA_SHFL_NATIVE(i32)
GA_SHFL_NATIVE(u32)
GA_SHFL_NATIVE(i64)
GA_SHFL_NATIVE(u64)
GA_SHFL_NATIVE(f32)
GA_SHFL_NATIVE(f64)
#define GA_SHFL_NARROW(T)                                                              \
  GA_INLINE T ga_shfl_down(T v, int d) { return (T)GA_SHFL_DOWN((i32)v, d); }           \
  GA_INLINE T ga_shfl_up(T v, int d) { return (T)GA_SHFL_UP((i32)v, d); }               \
  GA_INLINE T ga_shfl_idx(T v, int l) { return (T)GA_SHFL_IDX((i32)v, l); }               \
  GA_INLINE T ga_shfl_xor(T v, int m) { return (T)GA_SHFL_XOR((i32)v, m); }
GA_SHFL_NARROW(i8)
GA_SHFL_NARROW(u8)
GA_SHFL_NARROW(i16)
GA_SHFL_NARROW(u16)
GA_INLINE bool ga_shfl_down(bool v, int d) { return GA_SHFL_DOWN((i32)v, d) != 0; }
GA_INLINE bool ga_shfl_up(bool v, int d) { return GA_SHFL_UP((i32)v, d) != 0; }
GA_INLINE bool ga_shfl_idx(bool v, int l) { return GA_SHFL_IDX((i32)v, l) != 0; }
GA_INLINE c32 ga_shfl_down(c32 v, int d) { return ga_c32(GA_SHFL_DOWN(v.re, d), GA_SHFL_DOWN(v.im, d)); }
GA_INLINE c32 ga_shfl_up(c32 v, int d) { return ga_c32(GA_SHFL_UP(v.re, d), GA_SHFL_UP(v.im, d)); }
GA_INLINE c32 ga_shfl_idx(c32 v, int l) { return ga_c32(GA_SHFL_IDX(v.re, l), GA_SHFL_IDX(v.im, l)); }
GA_INLINE c64 ga_shfl_down(c64 v, int d) { return ga_c64(GA_SHFL_DOWN(v.re, d), GA_SHFL_DOWN(v.im, d)); }
GA_INLINE c64 ga_shfl_up(c64 v, int d) { return ga_c64(GA_SHFL_UP(v.re, d), GA_SHFL_UP(v.im, d)); }
GA_INLINE c64 ga_shfl_idx(c64 v, int l) { return ga_c64(GA_SHFL_IDX(v.re, l), GA_SHFL_IDX(v.im, l)); }
"#;

/// The kernel header for `dialect` on a device whose warps have `warp_size` threads.
pub fn kernel_header(dialect: Dialect, warp_size: u32) -> String {
    let shfl = match dialect {
        Dialect::Nvidia => SHFL_NVIDIA,
        Dialect::Amd => SHFL_AMD,
    };
    format!(
        "// gpuarrays kernel prelude\n#define GA_WARP {warp_size}\n{COMMON}{HALF_TYPES}{shfl}{SHFL_TYPED}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_size_comes_from_the_argument() {
        assert!(kernel_header(Dialect::Amd, 64).contains("#define GA_WARP 64"));
        assert!(kernel_header(Dialect::Nvidia, 32).contains("#define GA_WARP 32"));
        assert!(kernel_header(Dialect::Amd, 64).contains("__shfl_down((v), (d))"));
        assert!(kernel_header(Dialect::Nvidia, 32).contains("__shfl_down_sync"));
        assert!(kernel_header(Dialect::Nvidia, 32).contains("__shfl_xor_sync(0xffffffffu"));
        assert!(kernel_header(Dialect::Amd, 64).contains("__shfl_xor((v), (m))"));
    }
}
