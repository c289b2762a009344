//! The conformance suite's rows of the 8- and 16-bit types (i8, i16, u16, f16, bf16) on the
//! HIP backend, its generated kernels run on the CPU through the emulated platform of
//! `emulator/`, against the CPU reference: a row of each kind of kernel (unary and binary
//! arithmetic, shifts, casts in and out, fused programs, full and axis reductions, argmin,
//! scans (halves with f32 running values), sorts, gathers, scatter-adds, matrix products,
//! random draws) gives the reference's values. The real GPU runs every row
//! (`conformance_hip`);
//! the emulator compiles each kernel with `g++`, so this runs a sample. Quick shapes only;
//! skipped (with a printed reason) when `g++` is missing. `GPUARRAYS_EMULATED_ROWS` replaces
//! the sample with a comma-separated list of row filters (e.g. `sum/f16,cast:i8/`).

mod emulator;

use gpuarrays_conformance::{SuiteConfig, SuiteReport};

const TYPES: [&str; 5] = ["i8", "i16", "u16", "f16", "bf16"];

/// One row of each kernel family. A filter matches a row key `op/dtype` by containment, so
/// these are names no other operation ends with (`sort/` also takes `argsort`).
const SAMPLE: [&str; 18] = [
    "neg/",
    "sqrt/",
    "mul/",
    "div/",
    "shl/",
    "hypot/",
    "cast:f64/",
    "cast:i64/",
    "cast:f16/",
    "fused/",
    "prod_axis/",
    "argmin_axis/",
    "cumprod/",
    "sort/",
    "scatter_add/",
    "matmul/",
    "take_along_axis/",
    "random_normal/",
];

/// Runs the rows `filters` select on a fresh emulated backend and checks them.
fn check_rows(filters: impl IntoIterator<Item = String>) {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let mut report = SuiteReport::default();
    for filter in filters {
        let r = gpuarrays_conformance::run(&hip, &SuiteConfig::quick().with_filter(filter));
        report.rows.extend(r.rows);
    }
    println!("{}", report.table());
    println!("{}", report.summary());
    assert!(!report.rows.is_empty(), "the suite ran no rows");
    assert!(report.ok(), "{}", report.failure_details());
}

/// The sample's rows of one type, or nothing when `GPUARRAYS_EMULATED_ROWS` names the rows
/// (then [`listed_rows_match_cpu_reference`] runs them). One test per type, so that the test
/// harness's threads compile the kernels of several types at once (`g++` is most of the time).
fn check_sample_of(dtype: &str) {
    if std::env::var_os("GPUARRAYS_EMULATED_ROWS").is_some() {
        println!("skipped: GPUARRAYS_EMULATED_ROWS names the rows to run");
        return;
    }
    check_rows(SAMPLE.iter().map(|op| format!("{op}{dtype}")));
}

#[test]
fn i8_rows_match_cpu_reference() {
    check_sample_of(TYPES[0]);
}

#[test]
fn i16_rows_match_cpu_reference() {
    check_sample_of(TYPES[1]);
}

#[test]
fn u16_rows_match_cpu_reference() {
    check_sample_of(TYPES[2]);
}

#[test]
fn f16_rows_match_cpu_reference() {
    check_sample_of(TYPES[3]);
}

#[test]
fn bf16_rows_match_cpu_reference() {
    check_sample_of(TYPES[4]);
}

#[test]
fn listed_rows_match_cpu_reference() {
    let Ok(list) = std::env::var("GPUARRAYS_EMULATED_ROWS") else {
        println!(
            "not asked: GPUARRAYS_EMULATED_ROWS names no rows (the per-type tests run the sample)"
        );
        return;
    };
    check_rows(list.split(',').map(str::to_string).collect::<Vec<_>>());
}
