//! The combiners of the reduction and scan kernels, compiled from their generated C++ by the
//! host `g++` and run on every special value of their type (NaN of both signs and with a
//! payload, ±inf, ±0, subnormals, MAX, integer limits, complex values with one non-finite
//! part):
//!
//! - `ga_identity()` is neutral on both sides. The kernels pad partial warps, tiles and
//!   empty splits with it, so a non-neutral identity changes results: the complex product
//!   used to start from `1 + 0i`, and `(1 + 0i)·(6 + ∞i)` is `NaN + ∞i` (`0·∞`), where the
//!   CPU reference's product of the one element `6 + ∞i` is `6 + ∞i`.
//! - Scans store totals as elements and read them back (`ga_finish`, then `ga_map`): that
//!   round trip is exact.
//!
//! This runs the kernels' own algebra without a GPU; which kernels pad with the identity is
//! in `kernels/reduce/codegen.rs` and `kernels/scan/codegen.rs`. Skipped (with a printed
//! reason) when `g++` is missing.

use std::fmt::Write as _;

use gpuarrays_conformance::specials::specials;
use gpuarrays_core::kernel::{ReduceOp, ScanOp};
use gpuarrays_core::{DType, OpKind, Scalar};
use gpuarrays_hip::kernels::cpp::combine::{self, Combiner};
use gpuarrays_hip::kernels::cpp::element_types::cty;
use gpuarrays_hip::kernels::cpp::header::{Dialect, kernel_header};

#[path = "common/cpp_shim.rs"]
mod cpp_shim;
#[path = "common/host_cxx.rs"]
mod host_cxx;

/// Equality of results: bit for bit, except that every NaN equals every NaN (payloads are
/// not specified).
const SAME: &str = r#"
#include <cstdio>
static int ga_failures = 0;
static int ga_checks = 0;
inline bool ga_same(bool a, bool b) { return a == b; }
inline bool ga_same(u8 a, u8 b) { return a == b; }
inline bool ga_same(i8 a, i8 b) { return a == b; }
inline bool ga_same(i16 a, i16 b) { return a == b; }
inline bool ga_same(u16 a, u16 b) { return a == b; }
inline bool ga_same(f16 a, f16 b) { return a.bits == b.bits || ((a.bits & 0x7fff) > 0x7c00 && (b.bits & 0x7fff) > 0x7c00); }
inline bool ga_same(bf16 a, bf16 b) { return a.bits == b.bits || ((a.bits & 0x7fff) > 0x7f80 && (b.bits & 0x7fff) > 0x7f80); }
inline bool ga_same(i32 a, i32 b) { return a == b; }
inline bool ga_same(u32 a, u32 b) { return a == b; }
inline bool ga_same(i64 a, i64 b) { return a == b; }
inline bool ga_same(u64 a, u64 b) { return a == b; }
inline bool ga_same(f32 a, f32 b) { return (a != a && b != b) || __float_as_uint(a) == __float_as_uint(b); }
inline bool ga_same(f64 a, f64 b) { return (a != a && b != b) || __double_as_longlong(a) == __double_as_longlong(b); }
inline bool ga_same(c32 a, c32 b) { return ga_same(a.re, b.re) && ga_same(a.im, b.im); }
inline bool ga_same(c64 a, c64 b) { return ga_same(a.re, b.re) && ga_same(a.im, b.im); }
#define GA_EXPECT(cond, what, i)                                        \
  do {                                                                  \
    ++ga_checks;                                                        \
    if (!(cond)) {                                                      \
      ++ga_failures;                                                    \
      std::printf("%s: %s fails for special value #%d\n", name, what, i); \
    }                                                                   \
  } while (0)
"#;

/// A C++ expression of register type `cty(dtype)` with exactly the bits of `s`.
fn literal(s: Scalar) -> String {
    let f32_bits = |x: f32| format!("__uint_as_float(0x{:08x}u)", x.to_bits());
    let f64_bits = |x: f64| format!("__longlong_as_double((long long)0x{:016x}ULL)", x.to_bits());
    match s {
        Scalar::Bool(b) => b.to_string(),
        Scalar::I8(x) => format!("(i8){x}"),
        Scalar::U8(x) => format!("(u8){x}"),
        Scalar::I16(x) => format!("(i16){x}"),
        Scalar::U16(x) => format!("(u16){x}"),
        // Halves live in f32 registers.
        Scalar::F16(x) => format!("ga_f32_of(ga_f16_bits(0x{:04x}))", x.to_bits()),
        Scalar::BF16(x) => format!("ga_f32_of(ga_bf16_bits(0x{:04x}))", x.to_bits()),
        Scalar::I32(x) => format!("(i32)0x{:08x}u", x as u32),
        Scalar::U32(x) => format!("0x{x:08x}u"),
        Scalar::I64(x) => format!("(i64)0x{:016x}ULL", x as u64),
        Scalar::U64(x) => format!("0x{x:016x}ULL"),
        Scalar::F32(x) => f32_bits(x),
        Scalar::F64(x) => f64_bits(x),
        Scalar::C32(z) => format!("ga_c32({}, {})", f32_bits(z.re), f32_bits(z.im)),
        Scalar::C64(z) => format!("ga_c64({}, {})", f64_bits(z.re), f64_bits(z.im)),
    }
}

/// One namespace: the combiner's definitions and a function checking its laws on every
/// special value of `dtype`.
fn check_source(ns: usize, name: &str, dtype: DType, c: &Combiner, scan: bool) -> String {
    let values: Vec<String> = specials(dtype).into_iter().map(literal).collect();
    let mut s = String::new();
    let _ = write!(
        s,
        "namespace t{ns} {{\n{defs}\nvoid check() {{\n  const char* name = \"{name}\";\n  \
         const {c} values[] = {{ {vals} }};\n  \
         for (int i = 0; i < (int)(sizeof(values) / sizeof(values[0])); ++i) {{\n    \
         const GaA a = ga_map(values[i], 0);\n    \
         GA_EXPECT(ga_same(ga_finish(ga_combine(ga_identity(), a)), ga_finish(a)), \"identity then x\", i);\n    \
         GA_EXPECT(ga_same(ga_finish(ga_combine(a, ga_identity())), ga_finish(a)), \"x then identity\", i);\n",
        defs = c.definitions,
        c = cty(dtype),
        vals = values.join(", "),
    );
    if scan {
        s.push_str(
            "    GA_EXPECT(ga_same(ga_finish(ga_map(ga_finish(a), 1)), ga_finish(a)), \"store and reload\", i);\n",
        );
    }
    s.push_str("  }\n}\n}\n");
    s
}

#[test]
fn identities_are_neutral_and_totals_round_trip_on_special_values() {
    if !host_cxx::gxx_or_skip("the combiners' algebra") {
        return;
    }
    let mut namespaces = Vec::new();
    // Only the types the backend generates reductions and scans for.
    let generated = DType::ALL
        .into_iter()
        .filter(|&d| gpuarrays_hip::backend::supports(d, OpKind::Reduce).is_yes());
    for d in generated {
        for op in ReduceOp::ALL {
            if op.result_dtype(d).is_ok() {
                let c = combine::reduction(op, d).expect("combiner");
                namespaces.push((format!("reduce {op} {d}"), d, c, false));
            }
        }
        if d.is_numeric() {
            for op in ScanOp::ALL {
                // Halves are scanned by core as f32: no half scan kernel is generated.
                let scans = gpuarrays_hip::backend::supports(d, OpKind::Scan).is_yes();
                if op.check_dtype(d).is_err() || !scans || d.is_half() {
                    continue;
                }
                let c = combine::scan(op, d).expect("combiner");
                namespaces.push((format!("scan {} {d}", op.name()), d, c, true));
            }
        }
    }
    let mut src = kernel_header(Dialect::Nvidia, 32);
    src.push_str(SAME);
    for (i, (name, d, c, scan)) in namespaces.iter().enumerate() {
        src.push_str(&check_source(i, name, *d, c, *scan));
    }
    src.push_str("int main() {\n");
    for i in 0..namespaces.len() {
        let _ = writeln!(src, "  t{i}::check();");
    }
    src.push_str(
        "  std::printf(\"%d checks, %d failures\\n\", ga_checks, ga_failures);\n  \
         return ga_failures == 0 ? 0 : 1;\n}\n",
    );

    let dir = host_cxx::scratch("combiners");
    let (shim, cpp) = (dir.join("shim.h"), dir.join("combiners.cpp"));
    std::fs::write(&shim, cpp_shim::SHIM).expect("write shim");
    std::fs::write(&cpp, &src).expect("write source");
    // -O0 and no fast-math flags: IEEE arithmetic as the GPUs do it without contraction.
    let exe = host_cxx::build(&cpp, "-O0", Some(&shim));
    let run = host_cxx::run(&exe, &[]);
    let report = String::from_utf8_lossy(&run.stdout);
    eprintln!("{}", report.lines().last().unwrap_or(""));
    assert!(
        run.status.success(),
        "combiner laws fail on special values (source kept at {}):\n{report}",
        cpp.display()
    );
    assert!(
        report.contains(" 0 failures") && !report.starts_with("0 checks"),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
