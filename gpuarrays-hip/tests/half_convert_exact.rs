//! `cpp::half_convert` (the kernels' f16 and bf16 conversions, written with integer
//! operations) checked bit for bit against the CPU reference's conversions: every f16 and
//! bf16 value widened to f32; about two million f32 values (a stride through all of them,
//! and every f16 and bf16 rounding tie with its two neighbours) narrowed to both; f64 values,
//! i64 and u64 integers that a rounding through f32 or f64 to nearest would round twice.
//! The exact C++ text the kernels use, compiled by the host's `g++`. Skipped (with the reason
//! printed) without `g++`.

use gpuarrays_core::{DType, Scalar, bf16, f16};
use gpuarrays_hip::kernels::cpp::half_convert::HALF_TYPES;

#[path = "common/host_cxx.rs"]
mod host_cxx;

const PROGRAM: &str = r#"
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>
typedef signed char i8; typedef unsigned char u8; typedef short i16; typedef unsigned short u16;
typedef int i32; typedef unsigned int u32; typedef long long i64; typedef unsigned long long u64;
typedef float f32; typedef double f64;
#define GA_INLINE static inline
static inline u32 __float_as_uint(float f) { u32 u; std::memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(u32 u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline f64 __longlong_as_double(i64 u) { f64 f; std::memcpy(&f, &u, 8); return f; }
static inline int __clzll(i64 x) { return x == 0 ? 64 : __builtin_clzll((u64)x); }
HALF_TYPES
template <class T> static std::vector<T> read(const char* path) {
  std::vector<T> v;
  FILE* f = std::fopen(path, "rb");
  if (!f) return v;
  T x;
  while (std::fread(&x, sizeof x, 1, f) == 1) v.push_back(x);
  std::fclose(f);
  return v;
}
int main(int argc, char** argv) {
  (void)argc;
  FILE* out = std::fopen(argv[2], "wb");
  for (u32 b = 0; b < 65536u; ++b) {
    u32 w[2] = {__float_as_uint(ga_f32_of(ga_f16_bits(b))), __float_as_uint(ga_f32_of(ga_bf16_bits(b)))};
    std::fwrite(w, 4, 2, out);
  }
  std::string dir = argv[1];
  for (u32 x : read<u32>((dir + "/f32").c_str())) {
    u16 h[2] = {ga_to_f16(__uint_as_float(x)).bits, ga_to_bf16(__uint_as_float(x)).bits};
    std::fwrite(h, 2, 2, out);
  }
  for (f64 x : read<f64>((dir + "/f64").c_str())) {
    u32 w[2] = {__float_as_uint(ga_round_f16(x)), __float_as_uint(ga_round_bf16(x))};
    std::fwrite(w, 4, 2, out);
  }
  for (i64 x : read<i64>((dir + "/i64").c_str())) {
    u32 w[2] = {__float_as_uint(ga_round_f16(x)), __float_as_uint(ga_round_bf16(x))};
    std::fwrite(w, 4, 2, out);
  }
  for (u64 x : read<u64>((dir + "/u64").c_str())) {
    u32 w[2] = {__float_as_uint(ga_round_f16(x)), __float_as_uint(ga_round_bf16(x))};
    std::fwrite(w, 4, 2, out);
  }
  std::fclose(out);
  return 0;
}
"#;

/// SplitMix64, for spread-out test values.
fn mix(k: u64) -> u64 {
    let mut z = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// f32 inputs: a stride through every bit pattern, and each tie between neighbouring f16
/// and bf16 values (as f32) with the f32 values on either side.
fn f32_inputs() -> Vec<u32> {
    let mut v: Vec<u32> = (0..(1u64 << 32)).step_by(4099).map(|x| x as u32).collect();
    for h in 0..0x7c00u16 {
        let (lo, hi) = (f16::from_bits(h).to_f32(), f16::from_bits(h + 1).to_f32());
        let tie = ((lo as f64 + hi as f64) / 2.0) as f32;
        for t in [tie, -tie] {
            v.extend([t.to_bits() - 1, t.to_bits(), t.to_bits() + 1]);
        }
    }
    for h in 0..0x7f80u16 {
        let tie = (u32::from(h) << 16) | 0x8000;
        for t in [tie, tie | 0x8000_0000] {
            v.extend([t - 1, t, t + 1]);
        }
    }
    v
}

fn f64_inputs() -> Vec<f64> {
    let mut v: Vec<f64> = (0..20_000)
        .map(|k| f64::from_bits(mix(k)))
        .filter(|x| !x.is_nan())
        .collect();
    // Magnitudes where both half types have values, finely spread.
    v.extend((0..20_000).map(|k| (mix(k + 7) as f64 / u64::MAX as f64 - 0.5) * 1e5));
    for e in [-24, -14, -11, -8, 0, 5, 15, 16, 100, 127] {
        let p = 2f64.powi(e);
        for d in [11, 8] {
            // Just above and below a tie (the double-rounding traps), and the tie itself.
            let tie = p * (1.0 + 2f64.powi(-d));
            v.extend([
                tie,
                tie + p * 2f64.powi(-40),
                tie - p * 2f64.powi(-40),
                -tie,
            ]);
        }
    }
    v.extend([
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        65519.99,
        65520.0,
        3.4e38,
    ]);
    v
}

fn i64_inputs() -> Vec<i64> {
    let mut v: Vec<i64> = (0..20_000)
        .map(|k| mix(k + 99) as i64 >> (k % 60))
        .collect();
    v.extend([
        0,
        1,
        -1,
        i64::MIN,
        i64::MAX,
        (1 << 60) + (1 << 52) + 1,
        -((1 << 60) + (1 << 52) + 1),
        65520,
        65519,
        -70000,
        (1 << 24) + 1,
    ]);
    v
}

fn u64_inputs() -> Vec<u64> {
    let mut v: Vec<u64> = (0..20_000).map(|k| mix(k + 5) >> (k % 63)).collect();
    v.extend([0, 1, u64::MAX, (1 << 63) + (1 << 55) + 1, 65520]);
    v
}

fn words<T: Copy, const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|c| f(c.try_into().expect("chunk")))
        .collect()
}

/// The bits a half value held as f32 should have, from the CPU reference's cast of `x`.
fn want(x: Scalar, to: DType) -> u32 {
    match x.cast(to) {
        Scalar::F16(h) => h.to_f32().to_bits(),
        Scalar::BF16(h) => h.to_f32().to_bits(),
        other => panic!("{other:?}"),
    }
}

fn same(got: u32, want: u32) -> bool {
    let (g, w) = (f32::from_bits(got), f32::from_bits(want));
    got == want || (g.is_nan() && w.is_nan())
}

#[test]
fn half_conversions_match_the_cpu_reference_bit_for_bit() {
    if !host_cxx::gxx_or_skip("the half conversions") {
        return;
    }
    let dir = host_cxx::scratch("half-convert");
    let (f32s, f64s, i64s, u64s) = (f32_inputs(), f64_inputs(), i64_inputs(), u64_inputs());
    let bytes = |v: Vec<[u8; 8]>| v.concat();
    std::fs::write(
        dir.join("f32"),
        f32s.iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect::<Vec<u8>>(),
    )
    .expect("write");
    std::fs::write(
        dir.join("f64"),
        bytes(f64s.iter().map(|x| x.to_ne_bytes()).collect()),
    )
    .expect("write");
    std::fs::write(
        dir.join("i64"),
        bytes(i64s.iter().map(|x| x.to_ne_bytes()).collect()),
    )
    .expect("write");
    std::fs::write(
        dir.join("u64"),
        bytes(u64s.iter().map(|x| x.to_ne_bytes()).collect()),
    )
    .expect("write");
    let (src, out) = (dir.join("check.cpp"), dir.join("out"));
    std::fs::write(&src, PROGRAM.replace("HALF_TYPES", HALF_TYPES)).expect("write source");
    let exe = host_cxx::build(&src, "-O2", None);
    let run = host_cxx::run(&exe, &[&dir, &out]);
    assert!(run.status.success(), "check failed");
    let result = std::fs::read(&out).expect("read results");
    let _ = std::fs::remove_dir_all(&dir);

    let (widened, rest) = result.split_at(65536 * 8);
    let widened = words(widened, u32::from_ne_bytes);
    for b in 0..=u16::MAX {
        let (h, g) = (
            f16::from_bits(b).to_f32().to_bits(),
            widened[2 * b as usize],
        );
        assert!(
            same(g, h),
            "f16 {b:#06x} widened to {g:#010x}, want {h:#010x}"
        );
        let (h, g) = (
            bf16::from_bits(b).to_f32().to_bits(),
            widened[2 * b as usize + 1],
        );
        assert!(
            same(g, h),
            "bf16 {b:#06x} widened to {g:#010x}, want {h:#010x}"
        );
    }
    let (narrowed, rest) = rest.split_at(f32s.len() * 4);
    let narrowed = words(narrowed, u16::from_ne_bytes);
    for (k, &x) in f32s.iter().enumerate() {
        let v = f32::from_bits(x);
        let (g16, gb) = (narrowed[2 * k], narrowed[2 * k + 1]);
        let (w16, wb) = (f16::from_f32(v), bf16::from_f32(v));
        assert!(
            g16 == w16.to_bits() || (v.is_nan() && f16::from_bits(g16).is_nan()),
            "f32 {x:#010x} ({v:e}) to f16: {g16:#06x}, want {:#06x}",
            w16.to_bits()
        );
        assert!(
            gb == wb.to_bits() || (v.is_nan() && bf16::from_bits(gb).is_nan()),
            "f32 {x:#010x} ({v:e}) to bf16: {gb:#06x}, want {:#06x}",
            wb.to_bits()
        );
    }
    let rounded = words(rest, u32::from_ne_bytes);
    let scalars = f64s
        .iter()
        .map(|&x| Scalar::F64(x))
        .chain(i64s.iter().map(|&x| Scalar::I64(x)))
        .chain(u64s.iter().map(|&x| Scalar::U64(x)));
    let mut n = 0;
    for (k, x) in scalars.enumerate() {
        for (j, to) in [DType::F16, DType::BF16].into_iter().enumerate() {
            let (g, w) = (rounded[2 * k + j], want(x, to));
            assert!(same(g, w), "{x:?} to {to}: {g:#010x}, want {w:#010x}");
        }
        n += 1;
    }
    assert_eq!(n * 2, rounded.len(), "every rounded value was checked");
    println!(
        "checked 65536 widenings of each half type, {} f32 narrowings, {n} single roundings",
        f32s.len()
    );
}
