//! `gpuarrays validate`: runs the conformance suite on each selected backend and prints a
//! table (or one JSON object with `--json`) and a summary line.

use clap::Args;
use gpuarrays::backends::{self, BackendEntry, Role};
use gpuarrays::conformance::{SuiteConfig, SuiteReport};
use serde_json::{Value, json};

use super::Status;
use super::progress::stderr_progress;

/// Set to 1 to make an unavailable GPU backend a failure under `--backend all`.
const REQUIRE_GPU: &str = "GPUARRAYS_REQUIRE_GPU";

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Backend to validate ("all": every compiled-in backend, skipping unavailable ones).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// Print exactly one JSON object on stdout (progress stays on stderr).
    #[arg(long)]
    json: bool,
    /// Small shapes only (no 2^20-element arrays).
    #[arg(long)]
    quick: bool,
    /// Suite seed (decimal or 0x-prefixed hex); failures print the seed to replay them.
    #[arg(long, value_parser = parse_seed)]
    seed: Option<u64>,
    /// Run only rows whose "op/dtype" contains this text (e.g. "sum", "add/f32").
    #[arg(long)]
    filter: Option<String>,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|e| format!("not a seed: {e}"))
}

/// One backend's outcome.
struct Outcome {
    name: &'static str,
    available: bool,
    /// Why it was not available or could not run.
    reason: Option<String>,
    /// An unavailable backend that had to be available.
    required: bool,
    devices: Vec<String>,
    report: Option<SuiteReport>,
}

pub fn run(args: &ValidateArgs) -> Status {
    let selected: Vec<BackendEntry> = if args.backend == "all" {
        backends::compiled()
    } else {
        match backends::find(&args.backend) {
            Some(e) => vec![e],
            None => {
                eprintln!(
                    "error: unknown backend '{}'; compiled into this build: {} (or 'all')",
                    args.backend,
                    backends::names().join(", ")
                );
                return Status::Unavailable;
            }
        }
    };
    let mut cfg = SuiteConfig {
        quick: args.quick,
        filter: args.filter.clone(),
        progress: Some(stderr_progress()),
        ..SuiteConfig::default()
    };
    if let Some(seed) = args.seed {
        cfg.seed = seed;
    }
    let require_gpu = std::env::var(REQUIRE_GPU).is_ok_and(|v| v == "1");
    let explicit = args.backend != "all";
    let outcomes: Vec<Outcome> = selected
        .iter()
        .map(|e| validate_one(e, &cfg, explicit || (require_gpu && e.role == Role::Gpu)))
        .collect();
    let mut all = SuiteReport::default();
    for o in &outcomes {
        if let Some(r) = &o.report {
            all.extend(r.clone());
        }
    }
    let unavailable = outcomes.iter().any(|o| o.required && !o.available);
    let failed_to_run = outcomes.iter().any(|o| o.available && o.report.is_none());
    let ok = all.ok() && !unavailable && !failed_to_run && !all.rows.is_empty();
    if args.json {
        println!("{}", to_json(&outcomes, &all, ok));
    } else {
        print_text(&outcomes, &all);
    }
    if unavailable {
        Status::Unavailable
    } else if ok {
        Status::Ok
    } else {
        Status::Mismatch
    }
}

fn validate_one(entry: &BackendEntry, cfg: &SuiteConfig, required: bool) -> Outcome {
    let mut o = Outcome {
        name: entry.name,
        available: false,
        reason: None,
        required,
        devices: Vec::new(),
        report: None,
    };
    match (entry.probe)() {
        Err(e) => {
            let why = format!("backend '{}' is not available: {e}", entry.name);
            if required {
                eprintln!("error: {why}");
            } else {
                eprintln!("skipping: {why}");
            }
            o.reason = Some(e.to_string());
        }
        Ok(info) => {
            o.available = true;
            o.devices = info.devices.iter().map(|d| d.to_string()).collect();
            let against = match entry.role {
                Role::Reference => "the scalar oracle",
                Role::Gpu => "the CPU reference",
            };
            eprintln!(
                "validating {} ({}) against {against}",
                entry.name,
                o.devices.join(", ")
            );
            match (entry.run_suite)(cfg) {
                Ok(report) => o.report = Some(report),
                Err(e) => {
                    eprintln!(
                        "error: backend '{}' could not run the suite: {e}",
                        entry.name
                    );
                    o.reason = Some(e.to_string());
                }
            }
        }
    }
    o
}

fn print_text(outcomes: &[Outcome], all: &SuiteReport) {
    print!("{}", all.table());
    let details = all.failure_details();
    if !details.is_empty() {
        println!("\nfailures:\n{details}");
    }
    for o in outcomes.iter().filter(|o| o.reason.is_some()) {
        let what = if o.available {
            "failed to run"
        } else {
            "unavailable"
        };
        println!(
            "{}: {what}: {}",
            o.name,
            o.reason.as_deref().unwrap_or_default()
        );
    }
    println!("{}", all.summary());
}

fn to_json(outcomes: &[Outcome], all: &SuiteReport, ok: bool) -> Value {
    let backends: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({
                "name": o.name,
                "available": o.available,
                "devices": o.devices,
                "reason": o.reason,
                "ok": o.report.as_ref().map(|r| r.ok()),
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
