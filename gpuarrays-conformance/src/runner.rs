//! Running the cases: each case on the backend under test and on the reference (the CPU
//! backend or the scalar oracle), then comparing, row by row.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::{Backend, Error};
use gpuarrays_cpu_ref::CpuBackend;

use crate::case::Case;
use crate::cases::{self, RowSpec};
use crate::compare::compare;
use crate::config::{Progress, SuiteConfig};
use crate::criterion::criterion;
use crate::exec::execute;
use crate::host::HostArray;
use crate::oracle;
use crate::report::{Row, STATUS_UNSUPPORTED, SuiteReport};
use crate::requirements::{Needs, needs};
use crate::rng::case_seed;

/// What a backend's results are compared with.
pub enum Reference<'a> {
    /// Another backend (the CPU reference) running the same case.
    Backend(&'a CpuBackend),
    /// The scalar oracle.
    Oracle,
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Computed and within tolerance.
    Pass { max_err: f64 },
    /// Both sides returned this error (a type or shape rule).
    Rejected(String),
    /// The backend refused a type it says it does not support, with the right error.
    Unsupported,
    /// The backend supports the types but refused this case at dispatch with its typed
    /// `Error::Unsupported` (naming itself and its device); the message.
    Refused(String),
    /// Anything else.
    Fail { message: String, max_err: f64 },
}

/// Runs every selected row on `backend` against `reference`.
pub fn run_against<B: Backend>(
    backend: &B,
    reference: &Reference<'_>,
    cfg: &SuiteConfig,
) -> SuiteReport {
    let rows: Vec<RowSpec> = cases::rows(cfg.quick)
        .into_iter()
        .filter(|r| cfg.selects(&r.key()))
        .collect();
    let total = rows.len();
    // Rows are independent: run them on worker threads (each with its own stream on a GPU
    // backend), so run-time kernel compilation and the scalar oracle use every core.
    // Results keep the catalogue's order; each row's verdict does not depend on scheduling.
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 16)
        .min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; total]);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(spec) = rows.get(i) else { break };
                    let row = run_row(backend, reference, cfg, spec);
                    if let Some(p) = &cfg.progress {
                        p(&Progress {
                            backend: backend.name(),
                            done: done.fetch_add(1, Ordering::Relaxed) + 1,
                            total,
                            op: &row.op,
                            dtype: row.dtype,
                            ok: row.ok,
                        });
                    }
                    slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(row);
                }
            });
        }
    });
    let rows = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    SuiteReport {
        rows: rows.into_iter().flatten().collect(),
    }
}

fn run_row<B: Backend>(
    backend: &B,
    reference: &Reference<'_>,
    cfg: &SuiteConfig,
    spec: &RowSpec,
) -> Row {
    let key = spec.key();
    let (mut max_err, mut passed, mut unsupported) = (0.0f64, 0, 0);
    let mut rejected: Vec<String> = Vec::new();
    let mut failures = Vec::new();
    let mut refusals = Vec::new();
    for (i, case_spec) in spec.cases.iter().enumerate() {
        let seed = case_seed(cfg.seed, &key, i);
        let mut case = case_spec.materialize(seed);
        crate::ftz::flush_case(&mut case, backend.device().flushes_subnormals);
        match check_case(backend, reference, &case) {
            Verdict::Pass { max_err: e } => {
                passed += 1;
                max_err = max_err.max(e);
            }
            Verdict::Rejected(kind) => rejected.push(kind),
            Verdict::Unsupported => unsupported += 1,
            Verdict::Refused(message) => refusals.push(format!(
                "case {i} {} (case seed {seed:#x}): {message} [replay: --seed {} --filter {key}]",
                case.label, cfg.seed
            )),
            Verdict::Fail {
                message,
                max_err: e,
            } => {
                max_err = max_err.max(e);
                failures.push(format!(
                    "case {i} {} (case seed {seed:#x}): {message} [replay: --seed {} --filter {key}]",
                    case.label, cfg.seed
                ));
            }
        }
    }
    let cases = spec.cases.len();
    rejected.sort();
    let rejected_count = rejected.len();
    rejected.dedup();
    let flushed = crate::ftz::affects(backend.device().flushes_subnormals, spec.dtype, &spec.op);
    let status = if !failures.is_empty() {
        "FAIL".to_string()
    } else if passed == 0 && rejected_count == 0 && unsupported == 0 && !refusals.is_empty() {
        format!("refused at dispatch ({} cases)", refusals.len())
    } else if passed == 0 && unsupported > 0 && rejected_count == 0 {
        STATUS_UNSUPPORTED.to_string()
    } else if passed == 0 && unsupported > 0 {
        format!("{STATUS_UNSUPPORTED}; {rejected_count} rejected")
    } else if passed == 0 && rejected_count > 0 {
        format!("rejected ({})", rejected.join(", "))
    } else {
        let mut notes = Vec::new();
        if rejected_count > 0 {
            notes.push(format!("{rejected_count} rejected"));
        }
        if unsupported > 0 {
            notes.push(format!("{unsupported} unsupported"));
        }
        if !refusals.is_empty() {
            notes.push(format!("{} refused at dispatch", refusals.len()));
        }
        if notes.is_empty() {
            "ok".to_string()
        } else {
            format!("ok ({})", notes.join(", "))
        }
    };
    // A flushing device's deviation is never silent: the row says it was compared so.
    let status = if flushed {
        format!("{status} [{}]", crate::ftz::FTZ_NOTE)
    } else {
        status
    };
    Row {
        backend: backend.name().to_string(),
        op: spec.op.clone(),
        dtype: spec.dtype,
        cases,
        max_err,
        ok: failures.is_empty(),
        status,
        failures,
        refusals,
    }
}

/// Runs `f`, turning a panic into an error message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        format!("panicked: {msg}")
    })
}

/// Checks one case.
pub fn check_case<B: Backend>(backend: &B, reference: &Reference<'_>, case: &Case) -> Verdict {
    let fail = |message: String| Verdict::Fail {
        message,
        max_err: f64::INFINITY,
    };
    let expected: Result<HostArray, String> = match reference {
        Reference::Oracle => match guarded(|| oracle::evaluate(case)) {
            Ok(r) => r.map_err(str::to_string),
            Err(p) => return fail(format!("the oracle {p}")),
        },
        Reference::Backend(cpu) => match guarded(|| execute(*cpu, case)) {
            Ok(r) => r.map_err(|e| e.kind().name().to_string()),
            Err(p) => return fail(format!("the reference {p}")),
        },
    };
    let got = match guarded(|| execute(backend, case)) {
        Ok(r) => r,
        Err(p) => return fail(p),
    };
    let n = needs(case);
    let primary = Needs::refused(backend, &n.primary);
    let auxiliary = Needs::refused(backend, &n.auxiliary);
    // A typed refusal naming this backend and its device (at dispatch, whatever the type).
    let refused_at_dispatch = |e: &Error| match e {
        Error::Unsupported {
            backend: name,
            device,
            ..
        } => name == backend.name() && *device == backend.device().name,
        _ => false,
    };
    // The same refusal for one of the types `allowed`.
    let reported = |e: &Error, allowed: &[gpuarrays_core::DType]| {
        refused_at_dispatch(e)
            && matches!(e, Error::Unsupported { dtype, .. } if allowed.contains(dtype))
    };
    if !primary.is_empty() {
        let all: Vec<_> = primary.iter().chain(&auxiliary).copied().collect();
        return match (&got, &expected) {
            (Err(e), _) if reported(e, &all) => Verdict::Unsupported,
            (Err(e), Err(kind)) if e.kind().name() == kind => Verdict::Rejected(kind.clone()),
            (Err(e), _) => fail(format!(
                "the backend does not support {all:?} and must return Error::Unsupported naming \
                 one of them, {} and its device; it returned: {e}",
                backend.name()
            )),
            (Ok(_), _) => fail(format!(
                "the backend does not support {all:?} but computed a result instead of \
                 returning Error::Unsupported"
            )),
        };
    }
    match (got, expected) {
        (Err(e), _) if !auxiliary.is_empty() && reported(&e, &auxiliary) => Verdict::Unsupported,
        (Ok(g), Ok(e)) => {
            let mut crit = criterion(case, &e);
            crit.flushed_subnormals = backend.device().flushes_subnormals.applies_to(e.dtype());
            let outcome = compare(&e, &g, &crit);
            match outcome.mismatch {
                None => Verdict::Pass {
                    max_err: outcome.max_err,
                },
                Some(m) => Verdict::Fail {
                    message: m,
                    max_err: outcome.max_err,
                },
            }
        }
        (Err(e), Err(kind)) if e.kind().name() == kind => Verdict::Rejected(kind),
        (Err(e), Err(kind)) => fail(format!("returned {e}; expected error {kind}")),
        (Err(e), Ok(_)) if refused_at_dispatch(&e) => Verdict::Refused(e.to_string()),
        (Err(e), Ok(_)) => fail(format!("returned an error: {e}")),
        (Ok(g), Err(kind)) => fail(format!(
            "computed a {} result of shape {:?}; expected error {kind}",
            g.dtype(),
            g.dims
        )),
    }
}
