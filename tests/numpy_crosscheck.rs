//! The CPU reference backend checked against an independent implementation: NumPy.
//!
//! Each test generates seeded inputs (special values included: NaN of both signs, ±inf,
//! -0.0, subnormals, float values at the integer-cast limits, integer MIN/MAX), runs every
//! operation on `CpuBackend` for every element type, and writes inputs and results to a
//! temporary directory (`data.bin` + `manifest.json`, see `numpy_crosscheck/recorder.rs`).
//! `tests/numpy_crosscheck.py` then recomputes every case with NumPy, emulating the exact
//! semantics documented in gpuarrays-core where NumPy's differ, and reports mismatches as
//! JSON. The Python side also decides which element types each operation must accept
//! (from the documentation, not from our code) and checks that the others were rejected
//! with the right error, and it mutates every result once to prove its comparison can fail.
//!
//! Without NumPy the tests print why and pass, unless `GPUARRAYS_REQUIRE_NUMPY=1` (as in CI).
//! `GPUARRAYS_CROSSCHECK_SEED` replays another seed; `GPUARRAYS_PYTHON` picks the interpreter;
//! `GPUARRAYS_CROSSCHECK_KEEP=1` keeps the temporary directory.

// `view` takes one range per dimension, so views of 1-D arrays are one-element arrays.
#![allow(clippy::single_range_in_vec_init)]

#[path = "numpy_crosscheck/fft.rs"]
mod fft;
#[path = "numpy_crosscheck/recorder.rs"]
mod recorder;
#[path = "numpy_crosscheck/values.rs"]
mod values;

use std::path::PathBuf;
use std::process::Command;

use gpuarrays_core::kernel::{BinaryOp, ReduceOp, ScanOp, UnaryOp};
use gpuarrays_core::{Array, DType, Element, Expr, RawArray, Result, Scalar, dispatch_dtype};
use gpuarrays_cpu_ref::CpuBackend;
use serde_json::{Value, json};

use recorder::{B, In, Out, Recorder};
use values::{Kind, Rng, pairs, specials, values};

const DEFAULT_SEED: u64 = 0x6770_7561_7272_6179;

fn seed() -> u64 {
    std::env::var("GPUARRAYS_CROSSCHECK_SEED")
        .ok()
        .map(|s| s.parse().expect("GPUARRAYS_CROSSCHECK_SEED must be a u64"))
        .unwrap_or(DEFAULT_SEED)
}

/// The Python interpreter that has NumPy, or `None` after printing why the test is skipped.
fn python_with_numpy() -> Option<String> {
    let candidates: Vec<String> = match std::env::var("GPUARRAYS_PYTHON") {
        Ok(p) => vec![p],
        Err(_) => vec!["python3".into(), "/usr/bin/python3".into()],
    };
    let mut tried = Vec::new();
    for py in &candidates {
        match Command::new(py).args(["-c", "import numpy"]).output() {
            Ok(out) if out.status.success() => return Some(py.clone()),
            Ok(out) => tried.push(format!(
                "{py}: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )),
            Err(e) => tried.push(format!("{py}: {e}")),
        }
    }
    let reason = format!("NumPy is not available ({})", tried.join("; "));
    if std::env::var("GPUARRAYS_REQUIRE_NUMPY").as_deref() == Ok("1") {
        panic!("{reason}, and GPUARRAYS_REQUIRE_NUMPY=1");
    }
    eprintln!("SKIPPED numpy cross-check: {reason}; install numpy (pip install numpy) to run it");
    None
}

/// Generates cases with `build`, runs them through NumPy and asserts agreement.
fn crosscheck(name: &str, build: impl FnOnce(&mut Recorder, &mut Rng)) {
    let Some(python) = python_with_numpy() else {
        return;
    };
    let seed = seed();
    let mut rec = Recorder::new(CpuBackend::new());
    let mut rng = Rng::new(seed ^ fxhash(name));
    build(&mut rec, &mut rng);

    let dir = std::env::temp_dir().join(format!(
        "gpuarrays-numpy-{name}-{}-{}",
        std::process::id(),
        seed
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    rec.write(&dir, seed).expect("write cases");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/numpy_crosscheck.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("run the NumPy checker");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{} failed ({}), cases in {}:\n{stderr}",
        script.display(),
        out.status,
        dir.display()
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "checker output is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let failures = report["failures"].as_array().expect("failures list");
    let checked = report["cases"].as_u64().expect("case count");
    eprintln!(
        "numpy cross-check '{name}' (seed {seed}): {checked} cases, {} results compared, \
         {} rejections as documented, {} mutations detected, {} failures",
        report["compared"],
        report["rejected"],
        report["mutations_detected"],
        failures.len()
    );
    let keep = std::env::var("GPUARRAYS_CROSSCHECK_KEEP").as_deref() == Ok("1");
    if failures.is_empty() && !keep {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let shown: Vec<String> = failures
        .iter()
        .take(25)
        .map(|f| serde_json::to_string(f).unwrap_or_default())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {checked} cases disagree with NumPy (seed {seed}; cases kept in {}):\n{}",
        failures.len(),
        dir.display(),
        shown.join("\n")
    );
    assert_eq!(
        checked,
        rec.case_count() as u64,
        "the checker saw a different number of cases"
    );
}

/// A stable hash of a test name, so each test draws its own inputs from one seed.
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn out(r: Result<RawArray<B>>) -> Result<Out> {
    r.and_then(|r| Out::raw(&r))
}

fn ex(i: &In) -> Expr<B> {
    Expr::array(&i.raw)
}

#[test]
fn ffts_agree_with_numpy() {
    crosscheck("fft", fft::build);
}

#[test]
fn elementwise_ops_agree_with_numpy() {
    crosscheck("elementwise", |rec, rng| {
        for dtype in DType::ALL {
            let a = values(rng, dtype, 700, Kind::Mixed);
            let a = rec.array(dtype, &[a.len()], &a);
            for op in UnaryOp::ALL {
                let r = out(ex(&a).unary(op).eval_raw());
                let id = format!("unary/{op}/{dtype}");
                rec.case(id, json!({"op": "unary", "fn": op.name()}), dtype, &[&a], r);
            }

            let (pa, pb) = pairs(rng, dtype, 400);
            let n = pa.len();
            let (a, b) = (rec.array(dtype, &[n], &pa), rec.array(dtype, &[n], &pb));
            for op in BinaryOp::ALL {
                let r = out(ex(&a).binary(op, ex(&b)).eval_raw());
                let id = format!("binary/{op}/{dtype}");
                rec.case(
                    id,
                    json!({"op": "binary", "fn": op.name()}),
                    dtype,
                    &[&a, &b],
                    r,
                );
                // The same with a scalar right-hand side (a kernel scalar argument).
                let s = rng.pick(&specials(dtype));
                let si = rec.scalar(s);
                let r = out(ex(&a).binary(op, s).eval_raw());
                let id = format!("binary_scalar/{op}/{dtype}/{s}");
                rec.case(
                    id,
                    json!({"op": "binary", "fn": op.name()}),
                    dtype,
                    &[&a, &si],
                    r,
                );
            }

            // Operands that are views with offsets into larger buffers, 2-D.
            let base = values(rng, dtype, 9 * 50, Kind::Mixed);
            let base = rec.array(dtype, &[9, 50], &base);
            let (va, vb) = (base.view(&[2..6, 0..50]), base.view(&[5..9, 0..50]));
            for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Eq, BinaryOp::Max] {
                let r = out(ex(&va).binary(op, ex(&vb)).eval_raw());
                let id = format!("binary_views/{op}/{dtype}");
                let j = json!({"op": "binary", "fn": op.name(), "coverage": false});
                rec.case(id, j, dtype, &[&va, &vb], r);
            }

            // select(cond, a, b) with three-way broadcasting.
            let c = values(rng, DType::Bool, 20, Kind::Density(0.5));
            let c = rec.array(DType::Bool, &[4, 1, 5], &c);
            let sa = values(rng, dtype, 3, Kind::Mixed);
            let sa = rec.array(dtype, &[3, 1], &sa);
            let sb = values(rng, dtype, 5, Kind::Mixed);
            let sb = rec.array(dtype, &[5], &sb);
            let r = out(ex(&c).select(ex(&sa), ex(&sb)).eval_raw());
            rec.case(
                format!("select/{dtype}"),
                json!({"op": "select"}),
                dtype,
                &[&c, &sa, &sb],
                r,
            );

            // broadcast_to, full, copy of a view.
            let r = dispatch_dtype!(dtype, T => sa.raw.clone().into_typed::<T>()
                .and_then(|x| x.broadcast_to(&[2, 3, 4]))
                .and_then(|x| Out::typed(&x)));
            let j = json!({"op": "broadcast_to", "shape": [2, 3, 4]});
            rec.case(format!("broadcast_to/{dtype}"), j, dtype, &[&sa], r);
            let s = rng.pick(&specials(dtype));
            let si = rec.scalar(s);
            let r = out(RawArray::full(&rec.backend, &[3, 5], s));
            let j = json!({"op": "full", "shape": [3, 5]});
            rec.case(format!("full/{dtype}/{s}"), j, dtype, &[&si], r);
            let r = out(va.raw.copy());
            rec.case(
                format!("copy/{dtype}"),
                json!({"op": "copy"}),
                dtype,
                &[&va],
                r,
            );
        }

        // NumPy broadcasting between differently shaped operands.
        let shapes: [(&[usize], &[usize]); 6] = [
            (&[3, 1, 5], &[4, 1]),
            (&[2, 3], &[3]),
            (&[], &[2, 3]),
            (&[5, 1], &[1, 7]),
            (&[1], &[6]),
            (&[4, 1, 1, 3], &[2, 1]),
        ];
        for dtype in [DType::F32, DType::I32, DType::U8, DType::C64, DType::Bool] {
            let ops: &[BinaryOp] = match dtype {
                DType::Bool => &[BinaryOp::Xor, BinaryOp::Eq],
                DType::C64 => &[BinaryOp::Add, BinaryOp::Ne],
                _ => &[BinaryOp::Add, BinaryOp::Mul, BinaryOp::Lt, BinaryOp::Max],
            };
            for (sa, sb) in shapes {
                let a = values(rng, dtype, sa.iter().product(), Kind::Mixed);
                let b = values(rng, dtype, sb.iter().product(), Kind::Mixed);
                let (a, b) = (rec.array(dtype, sa, &a), rec.array(dtype, sb, &b));
                for &op in ops {
                    let r = out(ex(&a).binary(op, ex(&b)).eval_raw());
                    let id = format!("broadcast/{op}/{dtype}/{sa:?}x{sb:?}");
                    let j = json!({"op": "binary", "fn": op.name(), "coverage": false});
                    rec.case(id, j, dtype, &[&a, &b], r);
                }
            }
        }

        // Fused multi-operation expressions, evaluated in one kernel.
        for dtype in [DType::F32, DType::F64] {
            let (pa, pb) = pairs(rng, dtype, 300);
            let (a, b) = (
                rec.array(dtype, &[pa.len()], &pa),
                rec.array(dtype, &[pb.len()], &pb),
            );
            let exprs: [(&str, Expr<B>); 5] = [
                ("axpy_relu", (ex(&a) * 2.5 + ex(&b)).max(0.0)),
                (
                    "select_sqrt",
                    ex(&a)
                        .lt(ex(&b))
                        .select(ex(&a).sqrt(), ex(&b) * ex(&b) - 1.0),
                ),
                (
                    "bool_logic",
                    (ex(&a).gt(0.0) & ex(&b).le(0.0)) | !ex(&a).eq(ex(&b)),
                ),
                ("lit_sub", 2.0 - ex(&a)),
                ("lit_div", 1.0 / ex(&b)),
            ];
            for (name, e) in exprs {
                let j = json!({"op": "expr", "name": name, "coverage": false});
                rec.case(
                    format!("expr/{name}/{dtype}"),
                    j,
                    dtype,
                    &[&a, &b],
                    out(e.eval_raw()),
                );
            }
        }
        let (pa, pb) = pairs(rng, DType::I32, 300);
        let (a, b) = (
            rec.array(DType::I32, &[pa.len()], &pa),
            rec.array(DType::I32, &[pb.len()], &pb),
        );
        let e = (ex(&a).cast(DType::F64) * 0.5 + ex(&b).cast(DType::F64)).cast(DType::I32);
        let j = json!({"op": "expr", "name": "int_mix", "coverage": false});
        rec.case(
            "expr/int_mix/i32",
            j,
            DType::I32,
            &[&a, &b],
            out(e.eval_raw()),
        );

        // Large enough to be split across threads and chunks.
        for dtype in [DType::F32, DType::I64] {
            let n = 300_001;
            let (a, b) = (
                values(rng, dtype, n, Kind::Mixed),
                values(rng, dtype, n, Kind::Mixed),
            );
            let (a, b) = (rec.array(dtype, &[n], &a), rec.array(dtype, &[n], &b));
            let r = out(ex(&a).binary(BinaryOp::Add, ex(&b)).eval_raw());
            let j = json!({"op": "binary", "fn": "add", "coverage": false});
            rec.case(format!("large/add/{dtype}"), j, dtype, &[&a, &b], r);
            let r = out(ex(&a).cast(DType::I32).eval_raw());
            let j = json!({"op": "cast", "to": "i32", "coverage": false});
            rec.case(format!("large/cast/{dtype}"), j, dtype, &[&a], r);
        }
    });
}

#[test]
fn casts_between_all_types_agree_with_numpy() {
    crosscheck("casts", |rec, rng| {
        for from in DType::ALL {
            let a = values(rng, from, 600, Kind::Mixed);
            let a = rec.array(from, &[a.len()], &a);
            for to in DType::ALL {
                let r = out(ex(&a).cast(to).eval_raw());
                let j = json!({"op": "cast", "to": to.name()});
                rec.case(format!("cast/{from}->{to}"), j, from, &[&a], r);
            }
        }
        // Reinterpreted and offset inputs: the bytes NumPy's `view(dtype)` sees.
        let f = values(rng, DType::F32, 48, Kind::Mixed);
        let f = rec.array(DType::F32, &[8, 6], &f);
        let bits = f.view(&[2..6, 0..6]).reinterpret(DType::U32);
        let r = out(ex(&bits).unary(UnaryOp::Not).eval_raw());
        let j = json!({"op": "unary", "fn": "not", "coverage": false});
        rec.case("reinterpret/f32->u32/not", j, DType::U32, &[&bits], r);
        let c = values(rng, DType::C64, 10, Kind::Mixed);
        let c = rec.array(DType::C64, &[10], &c);
        let parts = c.reinterpret(DType::F64);
        let r = out(ex(&parts).unary(UnaryOp::Neg).eval_raw());
        let j = json!({"op": "unary", "fn": "neg", "coverage": false});
        rec.case("reinterpret/c64->f64/neg", j, DType::F64, &[&parts], r);
        let u = values(rng, DType::U8, 40, Kind::Mixed);
        let u = rec.array(DType::U8, &[40], &u);
        let words = u.view(&[8..40]).reinterpret(DType::I32).reshape(&[2, -1]);
        let r = out(ex(&words).cast(DType::F64).eval_raw());
        let j = json!({"op": "cast", "to": "f64", "coverage": false});
        rec.case(
            "reinterpret/u8->i32/reshape/cast",
            j,
            DType::I32,
            &[&words],
            r,
        );
    });
}

/// Input kinds for axis-wise operations, and which operations each is meant for.
const REDUCTION_KINDS: [(Kind, &str); 9] = [
    (Kind::Exact, "exact"),
    (Kind::Wide, "wide"),
    (Kind::Dups, "dups"),
    (Kind::Mixed, "mixed"),
    (Kind::ProdExact, "prod_exact"),
    (Kind::NearOne, "near_one"),
    (Kind::Density(0.02), "sparse"),
    (Kind::Density(1.0), "dense"),
    (Kind::Density(0.0), "zero"),
];

/// The shapes axis-wise operations run on. The 2-D input is a view into a larger buffer
/// and the 3-D one a reshaped slice, so offsets are exercised everywhere.
fn shaped_input(rng: &mut Rng, rec: &mut Recorder, dtype: DType, dims: &[usize], kind: Kind) -> In {
    let n: usize = dims.iter().product();
    match dims {
        [37, 53] => {
            let v = values(rng, dtype, 40 * 53, kind);
            rec.array(dtype, &[40, 53], &v).view(&[2..39, 0..53])
        }
        [4, 6, 9] => {
            let v = values(rng, dtype, 230, kind);
            rec.array(dtype, &[230], &v)
                .view(&[7..223])
                .reshape(&[4, 6, 9])
        }
        _ => {
            let v = values(rng, dtype, n, kind);
            rec.array(dtype, dims, &v)
        }
    }
}

const AXIS_SHAPES: [&[usize]; 9] = [
    &[1],
    &[1001],
    &[37, 53],
    &[5, 1, 7],
    &[4, 6, 9],
    &[0],
    &[3, 0],
    &[0, 4],
    &[0, 0],
];

fn reduce_ops_for(kind: &str) -> &'static [&'static str] {
    match kind {
        "exact" | "wide" => &["sum", "mean"],
        "dups" => &[
            "sum", "mean", "min", "max", "argmin", "argmax", "any", "all",
        ],
        "mixed" => &["min", "max", "argmin", "argmax", "any", "all"],
        "prod_exact" | "near_one" => &["prod"],
        _ => &["any", "all"],
    }
}

fn run_reduce(a: &In, f: &str, axis: Option<usize>) -> Result<Out> {
    let op = match f {
        "sum" => ReduceOp::Sum,
        "prod" => ReduceOp::Prod,
        "min" => ReduceOp::Min,
        "max" => ReduceOp::Max,
        "argmin" => ReduceOp::ArgMin,
        "argmax" => ReduceOp::ArgMax,
        _ => {
            // any, all and mean are typed operations (any/all accept every type).
            return dispatch_dtype!(a.dtype(), T => {
                let t = a.raw.clone().into_typed::<T>()?;
                match (f, axis) {
                    ("any", None) => Ok(Out::scalar(Scalar::Bool(t.any()?))),
                    ("all", None) => Ok(Out::scalar(Scalar::Bool(t.all()?))),
                    ("mean", None) => Ok(Out::scalar(t.mean()?.to_scalar())),
                    ("any", Some(ax)) => Out::typed(&t.any_axis(ax)?),
                    ("all", Some(ax)) => Out::typed(&t.all_axis(ax)?),
                    ("mean", Some(ax)) => Out::typed(&t.mean_axis(ax)?),
                    _ => unreachable!("reduction {f}"),
                }
            });
        }
    };
    // Full reductions go through the typed scalar API, axis reductions through RawArray.
    match axis {
        None => a.raw.reduce_all(op).map(Out::scalar),
        Some(ax) => out(a.raw.reduce(op, Some(ax))),
    }
}

#[test]
fn reductions_agree_with_numpy() {
    crosscheck("reductions", |rec, rng| {
        for dtype in DType::ALL {
            for dims in AXIS_SHAPES {
                for (kind, kname) in REDUCTION_KINDS {
                    let a = shaped_input(rng, rec, dtype, dims, kind);
                    let axes = std::iter::once(None).chain((0..dims.len()).map(Some));
                    for axis in axes {
                        for &f in reduce_ops_for(kname) {
                            let r = run_reduce(&a, f, axis);
                            let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kname});
                            let id = format!("reduce/{f}/{dtype}/{dims:?}/{axis:?}/{kname}");
                            rec.case(id, j, dtype, &[&a], r);
                        }
                    }
                }
            }
            // Products over short axes of values that include NaN, ±inf and ±0 (no
            // overflow, so the result class does not depend on the order); complex values
            // with infinite and NaN parts too.
            for (kind, with_inf) in [("tame", false), ("tame_special", true)] {
                let tame = tame_values(rng, dtype, 5 * 7, with_inf);
                let a = rec.array(dtype, &[5, 7], &tame);
                for axis in [None, Some(1)] {
                    let j = json!({"op": "reduce", "fn": "prod", "axis": axis, "kind": kind});
                    let id = format!("reduce/prod/{dtype}/{kind}/{axis:?}");
                    rec.case(id, j, dtype, &[&a], run_reduce(&a, "prod", axis));
                }
            }
            // Every pair of special values combined once (a lane of two along axis 0), and
            // each alone (lanes of one along axis 1): one operation, no order.
            let (pairs, alone) = special_lanes(rec, dtype);
            for f in ["sum", "prod", "mean", "min", "max", "argmin", "argmax"] {
                for (a, axis, kind) in [(&pairs, 0, "pairs"), (&alone, 1, "alone")] {
                    let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kind});
                    let id = format!("reduce/{f}/{dtype}/{kind}");
                    rec.case(id, j, dtype, &[a], run_reduce(a, f, Some(axis)));
                }
            }
        }
        // Large inputs, split across threads.
        for dtype in [DType::F32, DType::F64, DType::I64, DType::U8, DType::Bool] {
            for (kind, kname) in [(Kind::Wide, "wide"), (Kind::Dups, "dups")] {
                let v = values(rng, dtype, 300_001, kind);
                let a = rec.array(dtype, &[300_001], &v);
                for &f in reduce_ops_for(kname) {
                    let j = json!({"op": "reduce", "fn": f, "axis": null, "kind": kname});
                    rec.case(
                        format!("large/reduce/{f}/{dtype}/{kname}"),
                        j,
                        dtype,
                        &[&a],
                        run_reduce(&a, f, None),
                    );
                }
                let a2 = a.view(&[1..300_001]).reshape(&[1000, 300]);
                for &f in reduce_ops_for(kname) {
                    for axis in [0, 1] {
                        let j = json!({"op": "reduce", "fn": f, "axis": axis, "kind": kname});
                        let id = format!("large/reduce/{f}/{dtype}/{kname}/axis{axis}");
                        rec.case(id, j, dtype, &[&a2], run_reduce(&a2, f, Some(axis)));
                    }
                }
            }
        }
    });
}

/// The special values of `dtype` as `[2, S²]` (column `j` holds specials `j / S` and
/// `j mod S`) and as `[S, 1]`.
fn special_lanes(rec: &mut Recorder, dtype: DType) -> (In, In) {
    let sp = specials(dtype);
    let k = sp.len();
    let pairs: Vec<Scalar> = (0..2 * k * k)
        .map(|i| {
            if i < k * k {
                sp[i / k]
            } else {
                sp[(i - k * k) % k]
            }
        })
        .collect();
    (
        rec.array(dtype, &[2, k * k], &pairs),
        rec.array(dtype, &[k, 1], &sp),
    )
}

/// Few, tame values: floats from {NaN, ±inf, ±0, ±1, 2, -0.5}, complex parts from
/// {0, ±1, 2} (with `with_inf`, also ±inf and NaN), integers in [-3, 3].
fn tame_values(rng: &mut Rng, dtype: DType, n: usize, with_inf: bool) -> Vec<Scalar> {
    let floats = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        -0.5,
    ];
    (0..n)
        .map(|_| {
            if dtype.is_complex() {
                let parts: &[f64] = if with_inf {
                    &[
                        0.0,
                        1.0,
                        -1.0,
                        2.0,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                    ]
                } else {
                    &[0.0, 1.0, -1.0, 2.0]
                };
                values::complex(dtype, rng.pick(parts), rng.pick(parts))
            } else if dtype.is_float() {
                Scalar::F64(rng.pick(&floats)).cast(dtype)
            } else {
                Scalar::I64(rng.int(-3, 3)).cast(dtype)
            }
        })
        .collect()
}

#[test]
fn scans_sorts_finds_agree_with_numpy() {
    crosscheck("axis_ops", |rec, rng| {
        for dtype in DType::ALL {
            for dims in AXIS_SHAPES {
                let scan_kinds = [
                    (Kind::Exact, "exact", ScanOp::Sum),
                    (Kind::Wide, "wide", ScanOp::Sum),
                    (Kind::Dups, "dups", ScanOp::Sum),
                    (Kind::ProdExact, "prod_exact", ScanOp::Prod),
                    (Kind::NearOne, "near_one", ScanOp::Prod),
                ];
                for (kind, kname, op) in scan_kinds {
                    let a = shaped_input(rng, rec, dtype, dims, kind);
                    for axis in 0..dims.len() {
                        let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>().and_then(|t| {
                            match op {
                                ScanOp::Sum => t.cumsum(axis),
                                ScanOp::Prod => t.cumprod(axis),
                            }
                        }).and_then(|x| Out::typed(&x)));
                        let j = json!({"op": "scan", "fn": op.name(), "axis": axis, "kind": kname});
                        let id = format!("scan/{}/{dtype}/{dims:?}/{axis}/{kname}", op.name());
                        rec.case(id, j, dtype, &[&a], r);
                    }
                }
                for (kind, kname) in [(Kind::Dups, "dups"), (Kind::Mixed, "mixed")] {
                    let a = shaped_input(rng, rec, dtype, dims, kind);
                    let r = out(a.raw.sort());
                    rec.case(
                        format!("sort/{dtype}/{dims:?}/{kname}"),
                        json!({"op": "sort"}),
                        dtype,
                        &[&a],
                        r,
                    );
                }
                for (kind, kname) in [
                    (Kind::Dups, "dups"),
                    (Kind::Mixed, "mixed"),
                    (Kind::Density(0.02), "sparse"),
                    (Kind::Density(0.0), "zero"),
                ] {
                    let a = shaped_input(rng, rec, dtype, dims, kind);
                    let r = out(a.raw.find());
                    rec.case(
                        format!("find/{dtype}/{dims:?}/{kname}"),
                        json!({"op": "find"}),
                        dtype,
                        &[&a],
                        r,
                    );
                    let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                    .and_then(|t| t.find_first())
                    .map(|first| Out {
                        dtype: DType::I64,
                        dims: vec![first.is_some() as usize],
                        bytes: first.map(|i| (i as i64).to_le_bytes().to_vec()).unwrap_or_default(),
                    }));
                    let id = format!("find_first/{dtype}/{dims:?}/{kname}");
                    rec.case(id, json!({"op": "find_first"}), dtype, &[&a], r);
                }
            }
            // Products over short axes with NaN, ±inf, ±0 (complex: also in one part).
            for (kind, with_inf) in [("tame", false), ("tame_special", true)] {
                let tame = tame_values(rng, dtype, 5 * 7, with_inf);
                let a = rec.array(dtype, &[5, 7], &tame);
                let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                    .and_then(|t| t.cumprod(1)).and_then(|x| Out::typed(&x)));
                let j = json!({"op": "scan", "fn": "cumprod", "axis": 1, "kind": kind});
                rec.case(format!("scan/cumprod/{dtype}/{kind}"), j, dtype, &[&a], r);
            }
            // Every pair of special values, and each alone: the second element of a scan
            // along an axis of two is one operation.
            let (pairs, alone) = special_lanes(rec, dtype);
            for op in [ScanOp::Sum, ScanOp::Prod] {
                for (a, axis, kind) in [(&pairs, 0, "pairs"), (&alone, 1, "alone")] {
                    let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>().and_then(|t| {
                        match op {
                            ScanOp::Sum => t.cumsum(axis),
                            ScanOp::Prod => t.cumprod(axis),
                        }
                    }).and_then(|x| Out::typed(&x)));
                    let j = json!({"op": "scan", "fn": op.name(), "axis": axis, "kind": kind});
                    let id = format!("scan/{}/{dtype}/{kind}", op.name());
                    rec.case(id, j, dtype, &[a], r);
                }
            }

            // reverse (np.flip) and permute (np.transpose).
            let a = shaped_input(rng, rec, dtype, &[4, 6, 9], Kind::Mixed);
            for axis in 0..3 {
                let j = json!({"op": "reverse", "axis": axis});
                rec.case(
                    format!("reverse/{dtype}/{axis}"),
                    j,
                    dtype,
                    &[&a],
                    out(a.raw.reverse(axis)),
                );
            }
            let v = shaped_input(rng, rec, dtype, &[1001], Kind::Mixed);
            rec.case(
                format!("reverse/{dtype}/1-D"),
                json!({"op": "reverse", "axis": 0}),
                dtype,
                &[&v],
                out(v.raw.reverse(0)),
            );
            let perms: [&[usize]; 6] = [
                &[0, 1, 2],
                &[0, 2, 1],
                &[1, 0, 2],
                &[1, 2, 0],
                &[2, 0, 1],
                &[2, 1, 0],
            ];
            for p in perms {
                let j = json!({"op": "permute", "axes": p});
                rec.case(
                    format!("permute/{dtype}/{p:?}"),
                    j,
                    dtype,
                    &[&a],
                    out(a.raw.permute(p)),
                );
            }
            let v = values(rng, dtype, 30, Kind::Mixed);
            let a4 = rec.array(dtype, &[2, 3, 1, 5], &v);
            let j = json!({"op": "permute", "axes": [3, 1, 0, 2]});
            rec.case(
                format!("permute/{dtype}/4-D"),
                j,
                dtype,
                &[&a4],
                out(a4.raw.permute(&[3, 1, 0, 2])),
            );
            let m = shaped_input(rng, rec, dtype, &[37, 53], Kind::Mixed);
            let r = dispatch_dtype!(dtype, T => m.raw.clone().into_typed::<T>()
                .and_then(|t| t.transpose()).and_then(|x| Out::typed(&x)));
            let j = json!({"op": "permute", "axes": [1, 0]});
            rec.case(format!("transpose/{dtype}"), j, dtype, &[&m], r);
        }
        // Large inputs, split across threads.
        for dtype in [DType::F32, DType::I32, DType::U64, DType::Bool] {
            let v = values(rng, dtype, 300_001, Kind::Dups);
            let a = rec.array(dtype, &[300_001], &v);
            rec.case(
                format!("large/sort/{dtype}"),
                json!({"op": "sort"}),
                dtype,
                &[&a],
                out(a.raw.sort()),
            );
            rec.case(
                format!("large/find/{dtype}"),
                json!({"op": "find"}),
                dtype,
                &[&a],
                out(a.raw.find()),
            );
            if dtype != DType::Bool {
                let r = dispatch_dtype!(dtype, T => a.raw.clone().into_typed::<T>()
                    .and_then(|t| t.cumsum(0)).and_then(|x| Out::typed(&x)));
                let j = json!({"op": "scan", "fn": "cumsum", "axis": 0, "kind": "dups"});
                rec.case(format!("large/cumsum/{dtype}"), j, dtype, &[&a], r);
            }
        }
    });
}

#[test]
fn matmul_arange_random_agree_with_numpy() {
    crosscheck("matmul_arange_random", |rec, rng| {
        let shapes: [(&[usize], &[usize]); 9] = [
            (&[3, 4], &[4, 5]),
            (&[1, 1], &[1, 1]),
            (&[17, 33], &[33, 9]),
            (&[5, 0], &[0, 3]),
            (&[2, 3, 4], &[2, 4, 5]),
            (&[2, 3, 4], &[4, 5]),
            (&[3, 4], &[2, 4, 5]),
            (&[1, 3, 4], &[3, 4, 5]),
            (&[3, 1, 64], &[3, 64, 2]),
        ];
        for dtype in DType::ALL {
            for (kind, kname) in [
                (Kind::SmallInt, "small_int"),
                (Kind::Unit, "unit"),
                (Kind::Mixed, "mixed"),
            ] {
                if kind == Kind::Mixed && (dtype.is_float() || dtype.is_complex()) {
                    continue; // overflow would make float results order-dependent
                }
                for (sa, sb) in shapes {
                    let va = values(rng, dtype, sa.iter().product(), kind);
                    let vb = values(rng, dtype, sb.iter().product(), kind);
                    let (a, b) = (rec.array(dtype, sa, &va), rec.array(dtype, sb, &vb));
                    let j = json!({"op": "matmul", "kind": kname});
                    let id = format!("matmul/{dtype}/{sa:?}x{sb:?}/{kname}");
                    rec.case(id, j, dtype, &[&a, &b], out(a.raw.matmul(&b.raw)));
                }
            }
            // An operand that is a view with an offset.
            let v = values(rng, dtype, 6 * 4, Kind::SmallInt);
            let a = rec.array(dtype, &[6, 4], &v).view(&[2..5, 0..4]);
            let v = values(rng, dtype, 4 * 3, Kind::SmallInt);
            let b = rec.array(dtype, &[4, 3], &v);
            let j = json!({"op": "matmul", "kind": "small_int"});
            rec.case(
                format!("matmul/{dtype}/view"),
                j,
                dtype,
                &[&a, &b],
                out(a.raw.matmul(&b.raw)),
            );

            // arange: start + i·step in the element type.
            let mut params: Vec<(Scalar, Scalar, usize)> = vec![
                (Scalar::I64(-5).cast(dtype), Scalar::I64(3).cast(dtype), 100),
                (
                    Scalar::F64(0.1).cast(dtype),
                    Scalar::F64(0.3).cast(dtype),
                    1000,
                ),
                (
                    Scalar::I64(250).cast(dtype),
                    Scalar::I64(1).cast(dtype),
                    300,
                ),
            ];
            let sp = specials(dtype);
            for len in [7, 64] {
                params.push((rng.pick(&sp), rng.pick(&sp), len));
            }
            for (start, step, len) in params {
                let (si, st) = (rec.scalar(start), rec.scalar(step));
                let r = dispatch_dtype!(dtype, T => {
                    let (s0, s1) = (T::from_scalar(start).unwrap(), T::from_scalar(step).unwrap());
                    Array::<T, B>::arange(&rec.backend, s0, s1, len).and_then(|x| Out::typed(&x))
                });
                let j = json!({"op": "arange", "len": len});
                rec.case(
                    format!("arange/{dtype}/{start}/{step}/{len}"),
                    j,
                    dtype,
                    &[&si, &st],
                    r,
                );
            }

            // Counter-based random numbers (the documented Philox recipe).
            for dist in ["uniform", "normal"] {
                for (seed, dims) in [
                    (0u64, vec![1000]),
                    (42, vec![7, 13]),
                    ((1 << 40) + 7, vec![257]),
                    (u64::MAX, vec![64]),
                ] {
                    let r = dispatch_dtype!(dtype, T => {
                        let a = if dist == "uniform" {
                            Array::<T, B>::random_uniform(&rec.backend, &dims, seed)
                        } else {
                            Array::<T, B>::random_normal(&rec.backend, &dims, seed)
                        };
                        a.and_then(|x| Out::typed(&x))
                    });
                    let j = json!({"op": "random", "dist": dist, "seed": seed.to_string(), "shape": dims});
                    rec.case(format!("random/{dist}/{dtype}/{seed}"), j, dtype, &[], r);
                }
            }
        }
    });
}
