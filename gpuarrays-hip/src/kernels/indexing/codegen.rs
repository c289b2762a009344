//! The C++ of the gather and scatter kernels (semantics: `gpuarrays_core::kernel::indexing`).
//!
//! One module per element type holds `ga_gather`, `ga_scatter` (assign) and, for every type
//! but bool, `ga_scatter_add`. Each thread takes points of the `(outer, count, inner)` index
//! space (a grid-stride loop, so any launch covers the space), splits its linear number into
//! `(o, j, k)`, reads the i64 index, turns it into a position with the mode's arithmetic and
//! moves or adds one element. The mode is a parameter, not part of the source: the branch on
//! it is the same in every thread, and three modes would triple the modules to compile.
//!
//! Why the pieces look as they do:
//! - *Positions.* `ga_position` is `IndexMode::position` step for step, including its final
//!   clamp: whatever an index holds (i64 min and max too), the address stays inside the
//!   operand. No step overflows: `r + n` only for `r < 0 < n`, and `r % n` with `n ≥ 1`.
//! - *Splitting.* A 64-bit division is a long instruction sequence on GPUs (a 32-bit one is
//!   a few instructions), and a point moves a few tens of bytes, so spaces of fewer than
//!   2^32 points (all but the largest) divide in 32 bits, and `inner == 1` (along the last
//!   axis) and `outer == 1` (a 1-D take) skip their division altogether. This is reasoned,
//!   not yet measured: `tests/indexing_gpu.rs` prints device times of typical shapes.
//! - *Moves.* Gathers and assigning scatters move an element as one unsigned word of its
//!   width (a 16-byte pair for c64), never field by field: a c32 is one 8-byte store, so two
//!   updates of one element by an assigning scatter never leave one's real part beside the
//!   other's imaginary part. (A c64 pair is one 16-byte vector access where the hardware has
//!   one; the memory models promise single-copy atomicity only per 8-byte word.)
//! - *Adds.* Hardware atomics: `atomicAdd` on u32 (i32 as its bits: two's-complement sums
//!   wrap identically), unsigned long long (i64, u64), f32 and f64; complex types add their
//!   two parts with two atomics (the parts are independent sums, so once the kernel has run
//!   nobody can tell). u8 has no atomic add: a compare-and-swap loop on the aligned 32-bit
//!   word holding the byte changes only its lane (the sum wraps within the byte); the
//!   other bytes are written back as they were read, and a change to any of them makes the
//!   swap fail and retry.
//! - *Subnormals.* NVIDIA's f32 atomic add on global memory flushes subnormal inputs and
//!   results to zero (PTX `atom.add.f32` and `red.add.f32`; f64 keeps them), so f32 and c32
//!   sums that pass through subnormals differ there from the reference, which keeps them.
//!   A compare-and-swap loop would keep them, at the cost of retries under contention.
//!
//! The launcher replaces these general kernels by leaner variants for whole rows along a
//! contiguous inner axis and for adds into a few bins ([`super::variants`] says why).
//!
//! Only functions CUDA and HIP both declare are used (`atomicAdd` for the four types above,
//! `atomicCAS` on unsigned int), so one text compiles under NVRTC and hiprtc.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{IndexMode, ScatterOp};

use super::super::cpp::element_types::mty;
pub use super::moves::{BLOCK, move_type};
use crate::error::{HipError, Result};

/// The gather kernel.
pub const GATHER: &str = "ga_gather";
/// The assigning scatter kernel.
pub const SCATTER: &str = "ga_scatter";
/// The adding scatter kernel (every type but bool).
pub const SCATTER_ADD: &str = "ga_scatter_add";

/// The kernels of the module of `dtype`.
pub fn kernels(dtype: DType) -> Vec<&'static str> {
    let mut k = vec![GATHER, SCATTER];
    if dtype.is_numeric() {
        k.push(SCATTER_ADD);
    }
    k.extend(super::variants::kernels(dtype));
    k
}

/// The scatter kernel for `op` on `dtype`: bool is not added (core's type rules exclude it
/// before dispatch; this is the backend's own guard).
pub fn scatter_kernel(op: ScatterOp, dtype: DType) -> Result<&'static str> {
    match op {
        ScatterOp::Assign => Ok(SCATTER),
        ScatterOp::Add if dtype.is_numeric() => Ok(SCATTER_ADD),
        ScatterOp::Add => Err(HipError::InvalidArgument(format!(
            "scatter_add of {dtype}: {dtype} is not added"
        ))),
    }
}

/// The value of the kernels' `mode` parameter.
pub fn mode_code(mode: IndexMode) -> i32 {
    match mode {
        IndexMode::Raise => 0,
        IndexMode::Wrap => 1,
        IndexMode::Clip => 2,
    }
}

/// `ga_add_at(p, v)`: `*p += v` atomically, for a numeric `dtype` (`p` and `v` in its
/// memory type).
fn add_at(dtype: DType) -> String {
    let t = mty(dtype);
    let body = match dtype {
        DType::I8 | DType::U8 => return lane_add_at(t, "0xffu", "cur + (u32)v"),
        DType::I16 | DType::U16 => return lane_add_at(t, "0xffffu", "cur + (u32)v"),
        DType::F16 => {
            return lane_add_at(
                t,
                "0xffffu",
                "(u32)ga_to_f16(ga_f32_of(ga_f16_bits(cur)) + ga_f32_of(v)).bits",
            );
        }
        DType::BF16 => {
            return lane_add_at(
                t,
                "0xffffu",
                "(u32)ga_to_bf16(ga_f32_of(ga_bf16_bits(cur)) + ga_f32_of(v)).bits",
            );
        }
        DType::I32 => "atomicAdd(reinterpret_cast<u32*>(p), (u32)v);".to_string(),
        DType::I64 => "atomicAdd(reinterpret_cast<u64*>(p), (u64)v);".to_string(),
        DType::C32 | DType::C64 => "atomicAdd(&p->re, v.re); atomicAdd(&p->im, v.im);".into(),
        _ => "atomicAdd(p, v);".to_string(),
    };
    format!("GA_INLINE void ga_add_at({t}* p, const {t} v) {{ {body} }}\n")
}

/// `ga_add_at` for a type narrower than the 32-bit atomics: a compare-and-swap loop on the
/// aligned word that holds the element, replacing only its lane (`mask` wide) with `sum`
/// (an expression of the lane's current bits `cur` and the addend `v`, cut to the lane).
/// Integers wrap; a half sum is computed in f32 and rounded once, as one half addition.
fn lane_add_at(t: &str, mask: &str, sum: &str) -> String {
    format!(
        r#"GA_INLINE void ga_add_at({t}* p, const {t} v) {{
  u32* word = reinterpret_cast<u32*>(reinterpret_cast<u64>(p) & ~3ULL);
  const u32 shift = (u32)(reinterpret_cast<u64>(p) & 3ULL) * 8u;
  u32 old = *reinterpret_cast<volatile u32*>(word);
  for (;;) {{
    const u32 cur = (old >> shift) & {mask};
    const u32 lane = ({sum}) & {mask};
    const u32 seen = atomicCAS(word, old, (old & ~({mask} << shift)) | (lane << shift));
    if (seen == old) return;
    old = seen;
  }}
}}
"#
    )
}

/// The shared part of every module: parameter structs, positions, splitting.
const COMMON: &str = r#"
// The index space and one operand's element strides along (outer, middle, inner).
struct GaSpace3 { i64 outer; i64 count; i64 inner; i64 extent; i64 total; };
struct GaStrides3 { i64 s0; i64 s1; i64 s2; };
struct alignas(16) GaPair64 { u64 lo; u64 hi; };
// IndexMode::position: raise adds n to a negative r, wrap takes r's non-negative remainder,
// clip keeps r; then every mode clamps into 0..n.
GA_INLINE i64 ga_position(const i64 r, const i64 n, const int mode) {
  i64 p = r;
  if (mode == GA_MODE_WRAP) {
    p = r % n;
    if (p < 0) p += n;
  } else if (mode == GA_MODE_RAISE && r < 0) {
    p = r + n;
  }
  return p < 0 ? 0 : (p >= n ? n - 1 : p);
}
// (o, j, k) of point i, row-major, divided in U.
template <class U>
GA_INLINE void ga_split(const U i, const U count, const U inner, const bool one_outer, i64* o, i64* j, i64* k) {
  const U t = inner == (U)1 ? i : i / inner;
  const U q = one_outer ? (U)0 : t / count;
  *k = (i64)(i - t * inner);
  *j = (i64)(t - q * count);
  *o = (i64)q;
}
// A Raise gather's report (bad is null unless asked): notes an index outside -n..n. Every
// thread that sees one stores the same 1, so the plain store needs no atomic.
GA_INLINE void ga_note_range(const i64 r, const i64 n, u32* bad) {
  if (bad != nullptr && (r < -n || r >= n)) *bad = 1u;
}
// Point i of the space: (o, j, k) and the position its index selects (noted in bad).
GA_INLINE i64 ga_point(const i64 i, const GaSpace3& sp, const i64* __restrict__ index, const GaStrides3& is, const int mode, u32* bad, i64* o, i64* j, i64* k) {
  if (sp.total <= 0xffffffffLL) {
    ga_split<u32>((u32)i, (u32)sp.count, (u32)sp.inner, sp.outer == 1, o, j, k);
  } else {
    ga_split<u64>((u64)i, (u64)sp.count, (u64)sp.inner, sp.outer == 1, o, j, k);
  }
  const i64 r = index[*o * is.s0 + *j * is.s1 + *k * is.s2];
  ga_note_range(r, sp.extent, bad);
  return ga_position(r, sp.extent, mode);
}
"#;

/// The module body for `dtype` (everything after the kernel header).
pub fn body(dtype: DType) -> String {
    let (m, _) = move_type(dtype);
    let mut s = format!(
        "#define GA_MODE_RAISE {}\n#define GA_MODE_WRAP {}\n{COMMON}",
        mode_code(IndexMode::Raise),
        mode_code(IndexMode::Wrap)
    );
    let points = "for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < sp.total; i += (i64)gridDim.x * blockDim.x)";
    let head = "const i64* __restrict__ index, const GaStrides3 is";
    s.push_str(&format!(
        r#"__global__ void __launch_bounds__({BLOCK}) {GATHER}({head}, const {m}* __restrict__ source, const GaStrides3 ss, {m}* __restrict__ out, const GaSpace3 sp, const int mode, u32* bad) {{
  {points} {{
    i64 o, j, k;
    const i64 p = ga_point(i, sp, index, is, mode, bad, &o, &j, &k);
    out[i] = source[o * ss.s0 + p * ss.s1 + k * ss.s2];
  }}
}}
"#
    ));
    let scatter = |name: &str, t: &str, update: &str| {
        format!(
            r#"__global__ void __launch_bounds__({BLOCK}) {name}({head}, const {t}* __restrict__ values, const GaStrides3 vs, {t}* __restrict__ target, const GaStrides3 ts, const GaSpace3 sp, const int mode) {{
  {points} {{
    i64 o, j, k;
    const i64 p = ga_point(i, sp, index, is, mode, nullptr, &o, &j, &k);
    {t}* at = target + (o * ts.s0 + p * ts.s1 + k * ts.s2);
    const {t} v = values[o * vs.s0 + j * vs.s1 + k * vs.s2];
    {update};
  }}
}}
"#
        )
    };
    s.push_str(&scatter(SCATTER, m, "*at = v"));
    if dtype.is_numeric() {
        s.push_str(&add_at(dtype));
        s.push_str(&scatter(SCATTER_ADD, mty(dtype), "ga_add_at(at, v)"));
    }
    s.push_str(&super::variants::body(dtype));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_kernel_is_defined_and_bool_has_no_add() {
        for d in DType::ALL {
            let b = body(d);
            for k in kernels(d) {
                assert!(b.contains(&format!(" {k}(")), "{d}: {k} missing");
            }
            assert_eq!(b.contains(SCATTER_ADD), d.is_numeric(), "{d}");
        }
        assert!(scatter_kernel(ScatterOp::Add, DType::Bool).is_err());
        assert_eq!(
            scatter_kernel(ScatterOp::Add, DType::U8).ok(),
            Some(SCATTER_ADD)
        );
    }

    #[test]
    fn modes_have_distinct_codes() {
        let codes: Vec<i32> = IndexMode::ALL.iter().map(|&m| mode_code(m)).collect();
        assert_eq!(codes, [0, 1, 2]);
    }
}
