//! `validate --json`: one object with the backends, every row, the verdict and the summary.

use gpuarrays::conformance::SuiteReport;
use serde_json::{Value, json};

use super::Outcome;

pub fn to_json(outcomes: &[Outcome], all: &SuiteReport, ok: bool) -> Value {
    let backends: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "name": o.kind.name(),
                "available": o.available(),
                "devices": o.devices(),
                "reason": o.error.as_ref().map(|e| e.to_string()),
                "ok": o.available().then(|| o.all_rows().ok()),
            })
        })
        .collect();
    let results: Vec<Value> = all
        .rows
        .iter()
        .map(|r| {
            json!({
                "backend": r.backend,
                "op": r.op,
                "dtype": r.dtype.name(),
                "cases": r.cases,
                "max_err": r.max_err,
                "ok": r.ok,
                "status": r.status,
                "failures": r.failures,
                "refusals": r.refusals,
            })
        })
        .collect();
    json!({
        "backends": backends,
        "results": results,
        "ok": ok,
        "summary": all.summary(),
    })
}
