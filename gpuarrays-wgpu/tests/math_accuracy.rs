//! The software math of the wgpu backend (`exp`, `log`, `tanh`, `sin`, `cos`, `pow` of f32
//! and f64) against the C library (Rust's `std`, what the CPU reference uses), over inputs
//! far denser and wider than the conformance suite's: every binade of the type, arguments
//! next to multiples of π/2 (where argument reduction cancels most), large `y·ln x`, and
//! the special values. Each function must stay within the conformance suite's documented
//! tolerance; the largest errors are printed (in ulps of the result) to document accuracy.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`. On the WebGPU baseline
//! profile only f32 runs (f64 needs SHADER_F64).
//!
//! On a device that declares it flushes subnormals to zero (`DeviceInfo::flushes_subnormals`,
//! measured when the device opens; `GPUARRAYS_WGPU_ASSUME_FTZ=1` forces it), inputs and
//! expected results in the subnormal range of a flushed precision are skipped, and the
//! count skipped is printed; everything else is checked as strictly as elsewhere.

mod common;

use gpuarrays_core::{Array, Backend, Element, Expr, Result};
use gpuarrays_wgpu::{Profile, WgpuBackend, WgpuOptions};

fn open() -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions {
        adapter: None,
        profile: Profile::Adapter,
        binding_limit: None,
        ..WgpuOptions::default()
    })
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// `±m·2^k`, `m` in [1, 2), `k` uniform in `lo..=hi`.
    fn binade(&mut self, lo: i32, hi: i32) -> f64 {
        let k = lo + (self.next() % (hi - lo + 1) as u64) as i32;
        let sign = if self.next() & 1 == 0 { 1.0 } else { -1.0 };
        sign * (1.0 + self.unit()) * 2f64.powi(k)
    }
}

/// The element types checked, with what the test needs of each.
trait Float: Element + Copy + PartialOrd + std::fmt::Debug {
    const EPS: f64;
    const MIN_NORMAL: f64;
    const MAX_EXP: i32;
    fn of(x: f64) -> Self;
    fn f(self) -> f64;
    /// The C library's value of `op` (computed in the type, as the CPU reference does).
    fn reference(op: &str, x: Self, y: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $max_exp:expr) => {
        impl Float for $t {
            const EPS: f64 = <$t>::EPSILON as f64;
            const MIN_NORMAL: f64 = <$t>::MIN_POSITIVE as f64;
            const MAX_EXP: i32 = $max_exp;
            fn of(x: f64) -> Self {
                x as $t
            }
            fn f(self) -> f64 {
                self as f64
            }
            fn reference(op: &str, x: Self, y: Self) -> Self {
                match op {
                    "exp" => x.exp(),
                    "log" => x.ln(),
                    "tanh" => x.tanh(),
                    "sin" => x.sin(),
                    "cos" => x.cos(),
                    _ => x.powf(y),
                }
            }
        }
    };
}
float!(f32, 127);
float!(f64, 1023);

/// Error of `got` against `want` in ε·scale units (the conformance suite's measure), with
/// NaN matching NaN and infinities matching exactly.
fn error(want: f64, got: f64, scale: f64, eps: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want == got {
        return 0.0;
    }
    if want.is_infinite() || got.is_infinite() {
        return f64::INFINITY;
    }
    (got - want).abs() / (eps * scale)
}

struct Outcome {
    /// Largest error in the tolerance's units.
    worst: f64,
    /// Largest error relative to |expected| in ε (ulps, roughly), over normal results.
    worst_relative: f64,
    first_failure: Option<String>,
    /// Elements skipped because the device flushes subnormals of this type and an input or
    /// the expected result is subnormal.
    skipped: usize,
}

/// Whether `v` is a (nonzero) subnormal of a type whose smallest normal is `min_normal`.
fn subnormal(v: f64, min_normal: f64) -> bool {
    v != 0.0 && v.abs() < min_normal
}

/// Runs `op` over `xs` (and `ys` for pow) and compares with the C library.
fn check<T: Float>(
    b: &WgpuBackend,
    op: &str,
    xs: &[T],
    ys: &[T],
    units: f64,
    or_one: bool,
    flushed: bool,
) -> Result<Outcome> {
    let n = xs.len();
    let x = Array::<T, _>::from_slice(b, &[n], xs)?;
    let e: Expr<_> = match op {
        "exp" => x.ex().exp(),
        "log" => x.ex().log(),
        "tanh" => x.ex().tanh(),
        "sin" => x.ex().sin(),
        "cos" => x.ex().cos(),
        _ => {
            let y = Array::<T, _>::from_slice(b, &[n], ys)?;
            x.ex().pow(&y)
        }
    };
    let got = e.eval::<T>()?.to_vec()?;
    let mut out = Outcome {
        worst: 0.0,
        worst_relative: 0.0,
        first_failure: None,
        skipped: 0,
    };
    for i in 0..n {
        let y = ys.get(i).copied().unwrap_or(T::of(0.0));
        let want = T::reference(op, xs[i], y).f();
        let has_y = op == "pow";
        if flushed
            && (subnormal(xs[i].f(), T::MIN_NORMAL)
                || (has_y && subnormal(y.f(), T::MIN_NORMAL))
                || subnormal(want, T::MIN_NORMAL))
        {
            out.skipped += 1;
            continue;
        }
        let g = got[i].f();
        let mut scale = want.abs().max(T::MIN_NORMAL);
        if or_one {
            scale = scale.max(1.0);
        }
        let err = error(want, g, scale, T::EPS);
        if err > out.worst {
            out.worst = err;
        }
        if want.abs() >= T::MIN_NORMAL && want.is_finite() {
            out.worst_relative = out.worst_relative.max(error(want, g, want.abs(), T::EPS));
        }
        if err > units && out.first_failure.is_none() {
            out.first_failure = Some(format!(
                "{op}({:?}{}) = {g:e}, expected {want:e} (error {err:.2} ε > {units})",
                xs[i],
                if op == "pow" {
                    format!(", {y:?}")
                } else {
                    String::new()
                }
            ));
        }
    }
    Ok(out)
}

fn specials<T: Float>() -> Vec<T> {
    let big = 2f64.powi(T::MAX_EXP);
    [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        T::MIN_NORMAL,
        T::MIN_NORMAL / 8.0,
        big,
        -big,
        big * 1.9999,
    ]
    .into_iter()
    .map(T::of)
    .collect()
}

/// Inputs of each function: wide binade sweeps, dense ranges where the function is
/// interesting, and special values.
fn inputs<T: Float>(op: &str, rng: &mut Rng, n: usize) -> (Vec<T>, Vec<T>) {
    let mut xs: Vec<T> = specials();
    let mut ys: Vec<T> = Vec::new();
    let m = T::MAX_EXP;
    match op {
        "exp" => {
            let lim = if T::EPS < 1e-10 { 745.0 } else { 104.0 };
            xs.extend((0..n).map(|_| T::of(rng.range(-lim, lim))));
            xs.extend((0..n / 4).map(|_| T::of(rng.binade(-60, 3))));
        }
        "log" => {
            xs.extend((0..n).map(|_| T::of(rng.binade(-m - 20, m).abs())));
            xs.extend((0..n / 4).map(|_| T::of(rng.range(0.5, 2.0))));
        }
        "tanh" => {
            xs.extend((0..n).map(|_| T::of(rng.range(-25.0, 25.0))));
            xs.extend((0..n / 4).map(|_| T::of(rng.binade(-40, 2))));
        }
        "sin" | "cos" => {
            xs.extend((0..n / 2).map(|_| T::of(rng.range(-20.0, 20.0))));
            xs.extend((0..n / 4).map(|_| T::of(rng.binade(-30, m))));
            // Floats nearest to multiples of π/2 (the worst cancellation in the reduction).
            xs.extend((1..n / 4).map(|k| {
                let q = (k as f64) * if k % 2 == 0 { 1.0 } else { 977.0 };
                T::of(q * std::f64::consts::FRAC_PI_2)
            }));
        }
        _ => {
            // pow: moderate bases and exponents; integer exponents of negative bases; huge
            // and tiny results; bases near 1 with large exponents.
            let sp = std::mem::take(&mut xs);
            for &x in &sp {
                for &y in &sp {
                    xs.push(x);
                    ys.push(y);
                }
            }
            for i in 0..n {
                let (x, y) = match i % 4 {
                    0 => (rng.range(0.0, 10.0), rng.range(-30.0, 30.0)),
                    1 => (rng.range(-10.0, 10.0), (rng.range(-40.0, 40.0)).round()),
                    2 => (rng.binade(-m, m).abs(), rng.range(-1.5, 1.5)),
                    _ => {
                        let x = 1.0 + rng.range(-0.3, 0.3);
                        let lim = if T::EPS < 1e-10 { 700.0 } else { 85.0 };
                        (x, rng.range(-lim, lim) / x.ln().abs().max(1e-3))
                    }
                };
                xs.push(T::of(x));
                ys.push(T::of(y));
            }
        }
    }
    (xs, ys)
}

/// (function, tolerance in ε, scale max(|expected|, 1) instead of |expected|) as the
/// conformance suite documents them.
const FUNCTIONS: [(&str, f64, bool); 6] = [
    ("exp", 8.0, false),
    ("log", 8.0, false),
    ("tanh", 8.0, false),
    ("sin", 8.0, true),
    ("cos", 8.0, true),
    ("pow", 16.0, false),
];

fn run_type<T: Float>(b: &WgpuBackend, name: &str) -> Vec<String> {
    let mut rng = Rng(0x5EED_0F0A_7B00);
    let mut failures = Vec::new();
    let flushed = b.device().flushes_subnormals.applies_to(T::DTYPE);
    if flushed {
        println!(
            "{name}: the device flushes subnormals to zero; inputs and results in the \
             subnormal range are skipped"
        );
    }
    for (op, units, or_one) in FUNCTIONS {
        let (xs, ys) = inputs::<T>(op, &mut rng, 1 << 16);
        match check(b, op, &xs, &ys, units, or_one, flushed) {
            Ok(o) => {
                if o.skipped > 0 {
                    println!(
                        "{op:>5} {name}: {} of {} inputs skipped (subnormal input or result, \
                         flushed by the device)",
                        o.skipped,
                        xs.len()
                    );
                }
                println!(
                    "{op:>5} {name}: {:>7} inputs, worst {:.2} ε (tolerance {units}), worst relative {:.2} ulp",
                    xs.len(),
                    o.worst,
                    o.worst_relative
                );
                failures.extend(o.first_failure);
            }
            Err(e) => failures.push(format!("{op} {name}: {e}")),
        }
    }
    failures
}

#[test]
fn software_math_is_within_the_documented_tolerances() {
    let Some(b) = open() else {
        return;
    };
    println!("{}", b.adapter());
    println!(
        "flushes subnormals to zero: {}",
        b.device().flushes_subnormals
    );
    let mut failures = run_type::<f32>(&b, "f32");
    if b.features().f64 {
        failures.extend(run_type::<f64>(&b, "f64"));
    } else {
        println!("f64 not checked: the adapter lacks SHADER_F64");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The subnormal probe runs on the adapter; its verdict is what the device declares unless
/// `GPUARRAYS_WGPU_ASSUME_FTZ` forces flushing; lavapipe (llvmpipe) keeps subnormals.
#[test]
fn subnormal_probe_runs_and_matches_the_declaration() {
    let Some(b) = open() else {
        return;
    };
    let measured = match b.probe_subnormals() {
        Ok(m) => m,
        Err(e) => panic!("the subnormal probe failed: {e}"),
    };
    println!("{}: probe says flushes {measured}", b.adapter());
    if !gpuarrays_wgpu::subnormals::assume_ftz_from_env() {
        assert_eq!(b.device().flushes_subnormals, measured);
    }
    if b.adapter().name.contains("llvmpipe") {
        assert!(
            !measured.any(),
            "lavapipe keeps subnormals, the probe says {measured}"
        );
    }
}
