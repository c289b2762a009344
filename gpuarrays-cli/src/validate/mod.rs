//! `gpuarrays validate`: runs the conformance suite on each selected backend (every device of
//! it) and prints, by default, a compact view that fits a screen ([`text`]): one summary line
//! per backend, a matrix of operations × element types, then every failure in full.
//! `--verbose` prints every row instead of the matrix; `--json` prints one JSON object.

mod json;
mod matrix;
mod text;

use clap::Args;
use gpuarrays::conformance::{SuiteConfig, SuiteReport};
use gpuarrays::{Backend, BackendChoiceError, BackendKind};

use crate::Status;
use crate::backends::{self, Role};
use crate::progress::stderr_progress;

/// Set to 1 to make an unavailable GPU backend a failure under `--backend all`.
const REQUIRE_GPU: &str = "GPUARRAYS_REQUIRE_GPU";

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Backend to validate ("all": every compiled-in backend, skipping unavailable ones).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// Print exactly one JSON object on stdout (progress stays on stderr).
    #[arg(long, conflicts_with = "verbose")]
    json: bool,
    /// Print every row (backend, operation, dtype, cases, max error, status) instead of the
    /// matrix, and the full causes of an unavailable backend.
    #[arg(long, short)]
    verbose: bool,
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
pub struct Outcome {
    pub kind: BackendKind,
    /// Why it is not available here.
    pub error: Option<BackendChoiceError>,
    /// An unavailable backend that had to be available.
    pub required: bool,
    /// One report per device, in ordinal order.
    pub reports: Vec<DeviceReport>,
}

/// The suite's rows on one device.
pub struct DeviceReport {
    /// "backend:ordinal 'name'".
    pub device: String,
    pub report: SuiteReport,
}

impl Outcome {
    pub fn available(&self) -> bool {
        self.error.is_none()
    }

    pub fn role(&self) -> Role {
        Role::of(self.kind)
    }

    /// Every device's rows together.
    pub fn all_rows(&self) -> SuiteReport {
        let mut all = SuiteReport::default();
        for r in &self.reports {
            all.extend(r.report.clone());
        }
        all
    }

    pub fn devices(&self) -> Vec<String> {
        self.reports.iter().map(|r| r.device.clone()).collect()
    }
}

pub fn run(args: &ValidateArgs) -> Status {
    let selected: Vec<BackendKind> = if args.backend == "all" {
        BackendKind::compiled().collect()
    } else {
        match args.backend.parse::<BackendKind>() {
            Ok(kind) => vec![kind],
            Err(e) => {
                eprintln!("error: {e} (or 'all')");
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
        .map(|&kind| {
            let required = explicit || (require_gpu && Role::of(kind) == Role::Gpu);
            validate_one(kind, &cfg, required)
        })
        .collect();
    let mut all = SuiteReport::default();
    for o in &outcomes {
        all.extend(o.all_rows());
    }
    let unavailable = outcomes.iter().any(|o| o.required && !o.available());
    let ok = all.ok() && !unavailable && !all.rows.is_empty();
    if args.json {
        println!("{}", json::to_json(&outcomes, &all, ok));
    } else if args.verbose {
        print!("{}", text::verbose(&outcomes, &all));
    } else {
        print!("{}", text::compact(&outcomes, &all));
    }
    if unavailable {
        Status::Unavailable
    } else if ok {
        Status::Ok
    } else {
        Status::Mismatch
    }
}

fn validate_one(kind: BackendKind, cfg: &SuiteConfig, required: bool) -> Outcome {
    let mut outcome = Outcome {
        kind,
        error: None,
        required,
        reports: Vec::new(),
    };
    match backends::probe(kind) {
        Err(e) => {
            let what = if required { "error" } else { "skipping" };
            eprintln!("{what}: {e}");
            outcome.error = Some(e);
        }
        Ok(devices) => {
            for device in devices {
                let info = device.device();
                let name = format!("{}:{} '{}'", info.backend, info.ordinal, info.name);
                eprintln!("validating {name} against {}", outcome.role().reference());
                let report = backends::run_suite(&device, cfg);
                outcome.reports.push(DeviceReport {
                    device: name,
                    report,
                });
            }
        }
    }
    outcome
}
