//! `cpp::unit_math` (the f32 normal draw's `ln` and `sincos`) checked for every argument the
//! draw can give it, against double precision: the exact C++ text the kernels use, compiled
//! by the host's `g++` without contraction, as the kernels are. The bounds are the accuracy
//! CUDA documents for the library functions they replace (logf 1 ulp, sinf/cosf 2 ulp); the
//! measured figures are in the module docs. Skipped (with the reason printed) without `g++`.

use gpuarrays_hip::kernels::cpp::unit_math::UNIT_MATH;

#[path = "common/host_cxx.rs"]
mod host_cxx;

const PROGRAM: &str = r#"
#include <cmath>
#include <cstdio>
#include <cstring>
typedef unsigned int u32; typedef float f32;
#define GA_INLINE static inline
static inline u32 __float_as_uint(float f) { u32 u; std::memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(u32 u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline float __int_as_float(int u) { float f; std::memcpy(&f, &u, 4); return f; }
UNIT_MATH
static double ulps(float got, double want) {
  if (want == 0.0) return got == 0.0f ? 0.0 : 1e30;
  return std::fabs((double)got - want) / std::ldexp(1.0, std::ilogb(want) - 23);
}
int main() {
  double ln = 0, sn = 0, cs = 0;
  for (long k = 0; k < (1L << 24); ++k) {
    // u1 = m * 2^-24, m = 1 .. 2^24; theta = fl(2 pi * k * 2^-24), k = 0 .. 2^24 - 1.
    const float u = (float)(k + 1) * 0x1p-24f;
    ln = std::fmax(ln, ulps(ga_unit_ln(u), std::log((double)u)));
    const float th = 6.28318530717958647692f * ((float)k * 0x1p-24f);
    float s, c;
    ga_sincos_turn(th, &s, &c);
    sn = std::fmax(sn, ulps(s, std::sin((double)th)));
    cs = std::fmax(cs, ulps(c, std::cos((double)th)));
    if (k == 0 && (std::signbit(s) || c != 1.0f)) { std::printf("theta=0 gave (%g, %g)\n", s, c); return 1; }
  }
  std::printf("%.6f %.6f %.6f\n", ln, sn, cs);
  return 0;
}
"#;

#[test]
fn ln_and_sincos_within_the_library_bounds_for_every_argument() {
    if !host_cxx::gxx_or_skip("unit_math") {
        return;
    }
    let dir = host_cxx::scratch("unit-math");
    let src = dir.join("check.cpp");
    std::fs::write(&src, PROGRAM.replace("UNIT_MATH", UNIT_MATH)).expect("write source");
    let exe = host_cxx::build(&src, "-O2", None);
    let run = host_cxx::run(&exe, &[]);
    let out = String::from_utf8_lossy(&run.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run.status.success(), "check failed: {out}");
    let v: Vec<f64> = out
        .split_whitespace()
        .map(|w| w.parse().expect("number"))
        .collect();
    println!("max ulps: ln {}, sin {}, cos {}", v[0], v[1], v[2]);
    assert!(v[0] <= 1.0, "ln: {} ulp", v[0]);
    assert!(v[1] <= 2.0, "sin: {} ulp", v[1]);
    assert!(v[2] <= 2.0, "cos: {} ulp", v[2]);
}
