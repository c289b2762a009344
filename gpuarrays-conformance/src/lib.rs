//! gpuarrays-conformance: the conformance suite every gpuarrays backend runs.
//!
//! ```
//! use gpuarrays_conformance::{SuiteConfig, run};
//! # let my_backend = gpuarrays_cpu_ref::CpuBackend::new();
//! // `with_filter` selects rows ("op/dtype", as `--filter` in the CLI); without it, every row.
//! let report = run(&my_backend, &SuiteConfig::quick().with_filter("sum/f32"));
//! println!("{report}");
//! assert!(report.ok());
//! # assert!(!report.rows.is_empty());
//! ```
//!
//! Every operation (each unary and binary operation, all 100 casts, select, a fused
//! expression, `eval_into`, fill, full, zeros, ones, arange, copy, assign, broadcast_to,
//! sum/prod/min/max/argmin/argmax/any/all/mean over everything and per axis, cumsum and
//! cumprod, reverse, permute, transpose, sort, find, find_first, random uniform/normal and
//! matmul) runs on every element type, over 0-d, empty, one-element, odd, non-multiple-of-
//! block, 2-D to 4-D and (unless `quick`) 2^20+3-element shapes, broadcast pairs, and
//! derived operands (slices, row views and reinterprets with offsets into larger buffers).
//!
//! Inputs mix ordinary values with the [`specials`] of their type: NaN of both signs and
//! with a payload, ±inf, ±0, subnormals, the smallest normal, MAX, values whose square or
//! `exp` overflows, float values at the integer-cast limits, integer MIN/MAX, complex
//! values with one non-finite, subnormal or huge part. Every row also runs on all of them in
//! order: unary operations and casts on each, binary operations (and a fused expression,
//! `eval_into`, a matrix product of inner size 1) on every pair, reductions and scans on
//! every pair along an axis of two and on each alone along an axis of one, sorts and finds
//! on all. Where a result may depend on the order of evaluation (float sums and products),
//! the special values are those whose effect does not ([`values::Profile`]).
//!
//! - [`run`] compares a backend with the CPU reference (`gpuarrays_cpu_ref::CpuBackend`).
//! - [`run_cpu_against_oracle`] compares the CPU reference with the scalar [`oracle`]: plain
//!   sequential loops with wide accumulators, sharing no code with any backend, so the CPU
//!   reference is never checked against itself. [`run_against_oracle`] does the same for
//!   any backend.
//!
//! Element types for which the core type rules reject an operation must produce the same
//! error as the reference (`InvalidDType`, `DTypeMismatch`, ...); rows made only of such
//! cases read "rejected (...)". Types the backend says it does not support
//! ([`gpuarrays_core::Backend::supports`]) must produce `Error::Unsupported` naming the
//! type, the backend and its device; such rows read "unsupported (reported)". [`Restricted`]
//! is a backend refusing 64-bit types, used to check exactly that.
//!
//! Each case's inputs come from a seed derived from [`SuiteConfig::seed`], the row
//! ("op/dtype") and the case's index; a failure prints the case seed and how to replay it
//! (`--seed S --filter op/dtype` in the CLI, the same fields in [`SuiteConfig`]).
//!
//! # Tolerances
//!
//! Bool and integer results are exact (integers wrap). A float or complex element passes
//! when `|got − expected| ≤ units · ε · scale`, where ε is the machine epsilon of the real
//! type (2^-10 for f16, 2^-7 for bf16, 2^-23 for f32 and c32, 2^-52 for f64 and c64) and
//! `scale` is floored at the smallest normal number. Complex errors are the modulus of the difference. Special values
//! ([`criterion`]): NaN matches NaN (any sign or payload); infinities match exactly, part by
//! part; the sign of a zero must match except where the documentation leaves it open (sums,
//! means, matmul, min/max, sort order, complex products); a complex product of three or more
//! factors with a non-finite part must have a non-finite part (which parts, depends on the
//! order of multiplication). Magnitudes that scales are made of count NaN and infinities as
//! 0.
//!
//! | operation | units | scale |
//! |---|---|---|
//! | casts, copies, fill, select, reverse, permute, sort, broadcast, min/max, comparisons, neg, abs (real), argmin/argmax, find, random uniform | exact | — |
//! | add, sub; mul, div (real); `eval_into` | 2 | \|expected\| |
//! | mul, div (complex); abs (complex) | 8; 4 | \|expected\| |
//! | sqrt | 2 | \|expected\| |
//! | exp, log, tanh | 8 | \|expected\| |
//! | sin, cos | 8 | max(\|expected\|, 1) |
//! | pow | 16 | \|expected\| |
//! | fused `(a·3 + b) − a` | 4 | 4\|a\| + \|b\| |
//! | arange | 4 | i·\|step\| + \|start\| |
//! | sum, cumsum (n terms) | min(n + 2, 4√n + 16) | Σ\|x\| of the terms (the prefix, for cumsum) |
//! | mean (n terms) | min(n + 2, 4√n + 16) + 2 | Σ\|x\| / n |
//! | prod, cumprod (n terms) | min(n + 2, 4√n + 16) | \|expected\| |
//! | matmul (inner size k) | min(k + 2, 4√k + 16) | Σ_k \|a_ik\|·\|b_kj\| |
//! | random normal | 64 | max(\|expected\|, 1) |
//! | FFTs (N points per transform, after crop/pad) | 4·(log₂N + 2) | Σ\|x\| of the transform's (cropped/padded) input × the norm's factor; ×2 for irfft (the half spectrum stands for both halves) |
//!
//! FFTs: the error of a Cooley–Tukey or Bluestein transform grows like ε·log N relative to
//! the input's norm; measured against Σ|x| (a bound on every |X_k|) the allowance
//! 4·(log₂N + 2) is loose for a correct transform (the CPU reference stays within 3.1
//! units on every FFT row) and still orders of magnitude tighter than what a wrong twiddle, bin or index produces (about
//! Σ|x|/√N). The oracle of FFTs is the direct O(N²) DFT in f64, applied axis by axis.
//!
//! Accumulations: n·ε·Σ|x| bounds the error of a sum in *any* order; rounding errors of
//! random data grow like √n, so the suite uses the tighter min(n + 2, 4√n + 16).
//!
//! `max_err` of a row is the largest element error over its cases: for float and complex
//! results in ε-units, `|got − expected| / (ε · scale)` (with scale |expected| this is the
//! relative error in ULP-like units); for bool and integer results the absolute
//! difference (0 when the row passes).
//!
//! The suite and its oracle are safe Rust (`#![forbid(unsafe_code)]`): a checker that could
//! corrupt memory could report a pass it never computed.

#![forbid(unsafe_code)]

pub mod case;
mod case_extra;
mod case_fft;
mod case_index;
mod case_order;
mod case_stats;
pub mod cases;
pub mod compare;
pub mod config;
pub mod criterion;
pub mod exec;
pub mod ftz;
pub mod host;
mod layout;
pub mod oracle;
pub mod report;
pub mod requirements;
mod restricted;
pub mod rng;
pub mod runner;
pub mod specials;
pub mod tolerance;
mod tolerance_stats;
pub mod values;

use gpuarrays_core::Backend;
use gpuarrays_cpu_ref::CpuBackend;

pub use case::{Case, CaseSpec, FftCase, FftForm, Layout, Op};
pub use config::{Progress, ProgressFn, SuiteConfig};
pub use host::{HostArray, HostData};
pub use report::{Row, SuiteReport};
pub use restricted::Restricted;
pub use runner::{Reference, Verdict, check_case, run_against};

/// Runs the suite on `backend`, comparing every case with the CPU reference backend.
pub fn run<B: Backend>(backend: &B, cfg: &SuiteConfig) -> SuiteReport {
    let reference = CpuBackend::new();
    run_against(backend, &Reference::Backend(&reference), cfg)
}

/// Runs the suite on `backend`, comparing every case with the scalar oracle.
pub fn run_against_oracle<B: Backend>(backend: &B, cfg: &SuiteConfig) -> SuiteReport {
    run_against(backend, &Reference::Oracle, cfg)
}

/// Runs the suite on the CPU reference backend against the scalar oracle (the reference is
/// never compared with itself).
pub fn run_cpu_against_oracle(cfg: &SuiteConfig) -> SuiteReport {
    run_against_oracle(&CpuBackend::new(), cfg)
}
