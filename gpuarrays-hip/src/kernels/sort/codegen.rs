//! C++ of the row sort for one element type: a bitonic network over order-preserving
//! unsigned keys, correct first (NaN last, `false < true`), fast enough.
//!
//! Each row is padded to a power of two `P` with the greatest key, and all rows are sorted at
//! once: the network's stages stop at `k = P`, and stage `k = P` sorts every segment
//! ascending, so segments never mix. Stages whose compare distance fits a tile run in shared
//! memory (`ga_sort_tile`, `ga_sort_merge_tile`); larger distances run one global step per
//! launch (`ga_sort_merge_global`).
//!
//! Keys: unsigned types as they are; signed ones with the sign bit flipped; floats with the
//! sign bit flipped when positive and all bits flipped when negative, and every NaN mapped
//! to the greatest key (it comes back as a positive quiet NaN). Equal keys are equal values,
//! so the network's instability is invisible. Keys are as wide as the values for 2-, 4- and
//! 8-byte types (the radix sort keeps keys in the caller's buffer between passes); the 1-byte
//! types take 32-bit keys with only the low 8 bits used (one radix pass, no key buffer). The
//! half types' keys come from their bits (an f16 or bf16 in memory is a 16-bit pattern), with
//! the NaN patterns above the infinity's.

use gpuarrays_core::DType;

use crate::kernels::cpp::element_types::mty;

/// Keys per shared-memory tile (two per thread).
pub const TILE: usize = 2048;
/// Threads per block.
pub const BLOCK: u32 = 256;
/// Threads per block of the tile kernels (one compare per thread per step).
pub const TILE_THREADS: u32 = (TILE / 2) as u32;

/// Bytes per key for `t` (2, 4 or 8).
pub fn key_bytes(t: DType) -> usize {
    match t.size() {
        8 => 8,
        2 => 2,
        _ => 4,
    }
}

/// The 16-bit float keys: `bits` of f16 (`inf` 0x7c00) or bf16 (`inf` 0x7f80), built by
/// `make` (`ga_f16_bits` / `ga_bf16_bits`). NaN is 0xffff, above +inf's 0x7c00|0x8000 or
/// 0x7f80|0x8000, and comes back as 0x7fff, a positive quiet NaN in both formats.
fn half_key(inf: u32, make: &str) -> (&'static str, String, String) {
    (
        "u16",
        format!(
            "const u32 b = (u32)x.bits; if ((b & 0x7fffu) > {inf:#x}u) return (u16)0xffffu; \
             return (u16)((b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u));"
        ),
        format!(
            "const u32 b = (u32)k; return {make}((b & 0x8000u) ? (b & 0x7fffu) : (~b & 0xffffu));"
        ),
    )
}

fn key_functions(t: DType) -> (&'static str, String, String) {
    let m = mty(t);
    match t {
        DType::Bool | DType::U8 | DType::U32 => (
            "u32",
            "return (u32)x;".into(),
            format!("return ({m})k;"),
        ),
        DType::I8 => (
            "u32",
            "return (u32)((u8)x ^ 0x80u);".into(),
            "return (i8)(u8)(k ^ 0x80u);".into(),
        ),
        DType::U16 => ("u16", "return x;".into(), "return k;".into()),
        DType::I16 => (
            "u16",
            "return (u16)((u16)x ^ 0x8000u);".into(),
            "return (i16)(u16)(k ^ 0x8000u);".into(),
        ),
        DType::F16 => half_key(0x7c00, "ga_f16_bits"),
        DType::BF16 => half_key(0x7f80, "ga_bf16_bits"),
        DType::I32 => (
            "u32",
            "return (u32)x ^ 0x80000000u;".into(),
            "return (i32)(k ^ 0x80000000u);".into(),
        ),
        DType::U64 => ("u64", "return x;".into(), "return k;".into()),
        DType::I64 => (
            "u64",
            "return (u64)x ^ 0x8000000000000000ULL;".into(),
            "return (i64)(k ^ 0x8000000000000000ULL);".into(),
        ),
        DType::F32 => (
            "u32",
            "if (x != x) return 0xffffffffu; const u32 b = __float_as_uint(x); \
             return (b & 0x80000000u) ? ~b : (b | 0x80000000u);"
                .into(),
            "return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);".into(),
        ),
        _ => (
            "u64",
            "if (x != x) return 0xffffffffffffffffULL; const u64 b = (u64)__double_as_longlong(x); \
             return (b & 0x8000000000000000ULL) ? ~b : (b | 0x8000000000000000ULL);"
                .into(),
            "return __longlong_as_double((i64)((k & 0x8000000000000000ULL) ? \
             (k & 0x7fffffffffffffffULL) : ~k));"
                .into(),
        ),
    }
}

/// The module body for sorting `t` (not complex).
pub fn body(t: DType) -> String {
    let m = mty(t);
    let (key, to_key, from_key) = key_functions(t);
    format!(
        r#"
typedef {key} GaKey;
#define GA_KEY_MAX ((GaKey)(~(GaKey)0))
#define GA_SORT_TILE {TILE}
GA_INLINE GaKey ga_to_key(const {m} x) {{ {to_key} }}
GA_INLINE {m} ga_from_key(const GaKey k) {{ {from_key} }}
// Compare-exchange of positions i < l, ascending unless the stage's bitonic direction says
// otherwise (every stage k >= p sorts ascending: segments of p never mix).
GA_INLINE void ga_cswap(GaKey* keys, const i64 i, const i64 l, const i64 gi, const i64 k, const i64 p) {{
  const bool asc = k >= p || (gi & k) == 0;
  const GaKey a = keys[i], b = keys[l];
  if ((a > b) == asc) {{ keys[i] = b; keys[l] = a; }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_sort_keys(const {m}* __restrict__ x, GaKey* keys, const i64 rows, const i64 len, const i64 p, const i64 total) {{
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += (i64)gridDim.x * blockDim.x) {{
    const i64 r = idx / p, j = idx % p;
    keys[idx] = (r < rows && j < len) ? ga_to_key(x[r * len + j]) : GA_KEY_MAX;
  }}
}}

__global__ void __launch_bounds__({BLOCK}) ga_sort_values(const GaKey* __restrict__ keys, {m}* x, const i64 rows, const i64 len, const i64 p) {{
  for (i64 idx = (i64)blockIdx.x * blockDim.x + threadIdx.x; idx < rows * len; idx += (i64)gridDim.x * blockDim.x) {{
    x[idx] = ga_from_key(keys[(idx / len) * p + idx % len]);
  }}
}}

// All stages k = 2..kmax of each tile (kmax <= GA_SORT_TILE).
__global__ void __launch_bounds__({TILE_THREADS}) ga_sort_tile(GaKey* keys, const i64 kmax, const i64 p) {{
  __shared__ GaKey s[GA_SORT_TILE];
  const i64 base = (i64)blockIdx.x * GA_SORT_TILE;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + GA_SORT_TILE / 2] = keys[base + threadIdx.x + GA_SORT_TILE / 2];
  __syncthreads();
  for (i64 k = 2; k <= kmax; k <<= 1) {{
    for (i64 j = k >> 1; j > 0; j >>= 1) {{
      const i64 i = (threadIdx.x / j) * 2 * j + threadIdx.x % j;
      ga_cswap(s, i, i + j, base + i, k, p);
      __syncthreads();
    }}
  }}
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + GA_SORT_TILE / 2] = s[threadIdx.x + GA_SORT_TILE / 2];
}}

// The steps j < GA_SORT_TILE of stage k (> GA_SORT_TILE).
__global__ void __launch_bounds__({TILE_THREADS}) ga_sort_merge_tile(GaKey* keys, const i64 k, const i64 p) {{
  __shared__ GaKey s[GA_SORT_TILE];
  const i64 base = (i64)blockIdx.x * GA_SORT_TILE;
  s[threadIdx.x] = keys[base + threadIdx.x];
  s[threadIdx.x + GA_SORT_TILE / 2] = keys[base + threadIdx.x + GA_SORT_TILE / 2];
  __syncthreads();
  for (i64 j = GA_SORT_TILE / 2; j > 0; j >>= 1) {{
    const i64 i = (threadIdx.x / j) * 2 * j + threadIdx.x % j;
    ga_cswap(s, i, i + j, base + i, k, p);
    __syncthreads();
  }}
  keys[base + threadIdx.x] = s[threadIdx.x];
  keys[base + threadIdx.x + GA_SORT_TILE / 2] = s[threadIdx.x + GA_SORT_TILE / 2];
}}

// One step (k, j >= GA_SORT_TILE) over all keys: one compare per thread.
__global__ void __launch_bounds__({BLOCK}) ga_sort_merge_global(GaKey* keys, const i64 total, const i64 k, const i64 j, const i64 p) {{
  for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < total / 2; t += (i64)gridDim.x * blockDim.x) {{
    const i64 i = (t / j) * 2 * j + t % j;
    ga_cswap(keys, i, i + j, i, k, p);
  }}
}}
"#
    )
}

/// The kernels of a sort module.
pub const KERNELS: [&str; 5] = [
    "ga_sort_keys",
    "ga_sort_values",
    "ga_sort_tile",
    "ga_sort_merge_tile",
    "ga_sort_merge_global",
];
