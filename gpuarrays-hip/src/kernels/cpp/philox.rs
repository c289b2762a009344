//! The random draws in C++: the Philox block function, each draw and each element are
//! printed from core's lowering (`gpuarrays_core::kernel::lowered::random`, which records
//! the same Philox rounds the CPU runs), so the recipe of `gpuarrays_core::kernel::random` is
//! written nowhere here. What stays is how this backend spends the work: the elementwise
//! kernel's vector loop evaluates each Philox call of its vector once (`ga_philox` into
//! `rq[c]`), gives each draw its words (`ga_vec_words`, a constant call and offset per
//! unrolled `k`), evaluates each draw once (`ga_draw_*` writes its `e` elements into
//! `rv[k·e ..]`) and stores the vector with one 16-byte store: a float4 of four normals from
//! one call. The scalar tail computes element `i` alone (`ga_at_*`: its call, words, draw and
//! branch, all inline). (Left to common-subexpression elimination, the host compiler kept one
//! Philox evaluation per element.) The f32 normal's `ln` and `sincos` are [`super::unit_math`]'s,
//! which must be emitted before this text.

use std::fmt::Write;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;
use gpuarrays_core::kernel::lowered::{Prim, random};

use super::primitives::statements;

/// The hand-written part: the word vector, the one-instruction widening multiply, the word
/// selection of the vector loop and the sine–cosine pairs.
const SUPPORT: &str = r#"
struct GaWords { u32 r0; u32 r1; u32 r2; u32 r3; };
// The full 64-bit product of two 32-bit words. NVRTC turned `(u64)a * (u64)b` into a wide
// multiply plus an add of a zero high word (SASS of the normal kernel, H200: 20 extra IADD3
// per Philox call), so on NVIDIA devices it is PTX's `mul.wide.u32`, one instruction.
GA_INLINE u64 ga_mul_wide(const u32 a, const u32 b) {
#if defined(__CUDA_ARCH__)
  u64 p;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
  return p;
#else
  return (u64)a * (u64)b;
#endif
}
GA_INLINE u32 ga_pick(const GaWords r, const u32 o) {
  return o == 0u ? r.r0 : (o == 1u ? r.r1 : (o == 2u ? r.r2 : r.r3));
}
// Draw k of a vector whose W-word draws start at a stream word `off` (mod 4) of call q[0]:
// with NC > 1 calls the vector starts on a call boundary (off = 0) and k's call is constant.
template <int W, int NC>
GA_INLINE GaWords ga_vec_words(const GaWords* q, const int k, const u32 off) {
  const u32 word = (u32)(k * W) + (NC == 1 ? off : 0u);
  const GaWords r = q[NC == 1 ? 0 : (k * W) >> 2];
  if (W == 4) return r;
  const u32 o = word & 3u;
  GaWords w; w.r0 = ga_pick(r, o); w.r1 = ga_pick(r, (o + 1u) & 3u); w.r2 = 0u; w.r3 = 0u;
  return w;
}
GA_INLINE c32 ga_cis_turn(const f32 t) { f32 s, c; ga_sincos_turn(t, &s, &c); return ga_c32(c, s); }
GA_INLINE c64 ga_cis(const f64 t) { f64 s, c; sincos(t, &s, &c); return ga_c64(c, s); }
"#;

/// The C++ name part of draws of `dist` in `dtype` (`uniform_f32`, ..., `normal_bf16`): the
/// functions are `ga_draw_{name}` (one draw into an array) and `ga_at_{name}` (one element).
pub fn draw_name(dist: Distribution, dtype: DType) -> Option<&'static str> {
    Some(match (dist, dtype) {
        (Distribution::Uniform, DType::F32) => "uniform_f32",
        (Distribution::Uniform, DType::F64) => "uniform_f64",
        (Distribution::Normal, DType::F32) => "normal_f32",
        (Distribution::Normal, DType::F64) => "normal_f64",
        (Distribution::Uniform, DType::F16) => "uniform_f16",
        (Distribution::Uniform, DType::BF16) => "uniform_bf16",
        (Distribution::Normal, DType::F16) => "normal_f16",
        (Distribution::Normal, DType::BF16) => "normal_bf16",
        _ => return None,
    })
}

/// Argument `k` named by `names` (the blocks' leaves are only arguments).
fn args<'a>(names: &'a [&'a str]) -> impl Fn(u32, Prim) -> String + 'a {
    move |_, p| match p {
        Prim::Arg(k) => names[k as usize].to_string(),
        other => format!("/* unbound {other:?} */"),
    }
}

/// The device functions of the draws `draws` (each once): the support text, `ga_philox`, and
/// `ga_draw_{name}` and `ga_at_{name}` of each.
pub fn library(draws: &[(Distribution, DType)]) -> String {
    let mut s = String::from(SUPPORT);
    let split = [
        "(u32)index",
        "(u32)(index >> 32)",
        "(u32)seed",
        "(u32)(seed >> 32)",
    ];
    let p = random::philox();
    let r: Vec<String> = p.results.iter().map(|v| format!("t{v}")).collect();
    let _ = writeln!(
        s,
        "GA_INLINE GaWords ga_philox(const u64 index, const u64 seed) {{\n{}  GaWords w; w.r0 = {}; w.r1 = {}; w.r2 = {}; w.r3 = {};\n  return w;\n}}",
        statements(&p, "t", &args(&split)),
        r[0],
        r[1],
        r[2],
        r[3]
    );
    let mut done: Vec<&str> = Vec::new();
    for &(dist, dtype) in draws {
        let Some(name) = draw_name(dist, dtype).filter(|n| !done.contains(n)) else {
            continue;
        };
        done.push(name);
        // Register values (a half draw is held as the f32 of its value).
        let t = super::element_types::cty(dtype);
        let d = random::draw(dist, dtype);
        let stores: String = d
            .results
            .iter()
            .enumerate()
            .map(|(k, v)| format!(" z[{k}] = t{v};"))
            .collect();
        let w = ["w.r0", "w.r1", "w.r2", "w.r3"];
        let _ = writeln!(
            s,
            "GA_INLINE void ga_draw_{name}(const GaWords w, {t}* z) {{\n{}{stores}\n}}",
            statements(&d, "t", &args(&w))
        );
        let e = random::element(dist, dtype);
        let _ = writeln!(
            s,
            "GA_INLINE {t} ga_at_{name}(const u64 index, const u64 seed) {{\n{}  return t{};\n}}",
            statements(&e, "t", &args(&split)),
            e.results[0]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each draw's functions are defined once. (`tests/philox_text.rs` writes the text of
    /// every draw for `benches/h200/normal_math_probe.py`.)
    #[test]
    fn the_library_defines_each_draw_once() {
        let all = [
            (Distribution::Uniform, DType::F32),
            (Distribution::Uniform, DType::F64),
            (Distribution::Normal, DType::F32),
            (Distribution::Normal, DType::F64),
            (Distribution::Normal, DType::F32),
        ];
        let s = library(&all);
        for (d, t) in all {
            let name = draw_name(d, t).expect("a float draw");
            for f in ["ga_draw_", "ga_at_"] {
                let def = format!(" {f}{name}(const ");
                assert_eq!(s.matches(&def).count(), 1, "{def}");
            }
        }
        assert_eq!(s.matches("GaWords ga_philox(").count(), 1);
        // The shape the f32 normal kernel was tuned to: one PTX wide multiply per product,
        // the short restricted-argument ln and sincos, one sincos for both elements.
        let normal = library(&[(Distribution::Normal, DType::F32)]);
        for f in ["ga_mul_wide(", "ga_unit_ln(", "ga_cis_turn("] {
            assert!(normal.contains(f), "{f}");
        }
        for f in ["logf(", "sincosf(", "sinf(", "cosf("] {
            assert!(!normal.contains(f), "{f}");
        }
        let philox = &normal[normal.find("ga_philox(").unwrap_or(0)..];
        let philox = &philox[..philox.find("\n}").unwrap_or(0)];
        assert_eq!(philox.matches("ga_mul_wide(").count(), 20, "{philox}");
        assert!(draw_name(Distribution::Normal, DType::I32).is_none());
    }
}
