//! `gpuarrays bench`: named benchmarks of the array operations on each selected backend,
//! timed on the device (events on HIP), with warm-up, the median and spread of many samples,
//! throughput (GB/s or GFLOP/s) and its fraction of the copy bandwidth measured in the same
//! run (or of the device's peak), a progress bar on stderr, a JSON result file (`--json`),
//! and ratios against an earlier one (`--compare`, regressions flagged). A row a backend
//! refuses with `Error::Unsupported` (FFTs on wgpu, 64-bit types on a baseline adapter) is
//! reported as such and does not fail the run; any other error does (exit status 1).
//!
//! The PyTorch/CuPy side of the same workloads is `benches/suite_torch.py`, which reads the
//! JSON file (each row says what it ran) and writes the side-by-side table and plots.

mod cases;
mod compare;
mod measure;
mod results;
mod table;
mod timer;

use std::io::{IsTerminal, Write};

use clap::{Args, ValueEnum};
use gpuarrays::{AnyBackend, Backend, BackendKind, ErrorKind};
use serde_json::{Value, json};

use crate::Status;
use crate::backends;
use cases::{COPY_ROWS, Case, Sizes, Timing};
use measure::Plan;
use results::Row;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SizeArg {
    /// The suite's small arrays (512 × 1000 f32) and the launch and stream rows.
    Small,
    /// The 1 GiB arrays and the large products.
    Large,
    /// Both.
    All,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Backend to measure ("all": every compiled-in backend that is available here).
    #[arg(long, default_value = "all", value_name = "NAME|all")]
    backend: String,
    /// Run only rows whose name contains one of these comma-separated texts
    /// (e.g. "gemm/,array/copy").
    #[arg(long, value_name = "PATTERN")]
    filter: Option<String>,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<std::path::PathBuf>,
    /// Compare with an earlier result file: speed ratios, regressions flagged (exit status 1
    /// when there is one).
    #[arg(long, value_name = "FILE")]
    compare: Option<std::path::PathBuf>,
    /// Which sizes to run.
    #[arg(long, value_enum, default_value = "all")]
    sizes: SizeArg,
    /// Timed samples per row (each of enough calls to last about 2 ms).
    #[arg(long, default_value_t = 10)]
    samples: usize,
    /// Print the rows that would run (name and parameters) and run nothing.
    #[arg(long)]
    list: bool,
}

impl BenchArgs {
    fn sizes(&self) -> Sizes {
        match self.sizes {
            SizeArg::Small => Sizes::Small,
            SizeArg::Large => Sizes::Large,
            SizeArg::All => Sizes::All,
        }
    }

    fn selected(&self, name: &str) -> bool {
        match &self.filter {
            None => true,
            Some(f) => f.split(',').any(|p| !p.is_empty() && name.contains(p)),
        }
    }
}

/// The rows to run: the selected ones, plus the copy row the bandwidth fractions refer to
/// (run as a baseline when the filter left it out).
fn plan_cases(args: &BenchArgs) -> Vec<(Case, bool)> {
    let all = cases::all(args.sizes());
    let baseline = COPY_ROWS
        .iter()
        .find(|c| all.iter().any(|k| k.name == **c))
        .copied();
    let mut chosen = Vec::new();
    for case in all {
        let selected = args.selected(&case.name);
        let is_baseline = Some(case.name.as_str()) == baseline;
        if selected || is_baseline {
            chosen.push((case, !selected));
        }
    }
    // Measure the copy baseline first, so every later row can be put against it.
    chosen.sort_by_key(|(c, _)| Some(c.name.as_str()) != baseline);
    chosen
}

pub fn run(args: &BenchArgs) -> Status {
    let chosen = plan_cases(args);
    if args.list {
        for (c, baseline) in &chosen {
            let note = if *baseline { "  (copy baseline)" } else { "" };
            println!("{}  {}{note}", c.name, c.params);
        }
        return Status::Ok;
    }
    let Some(devices) = open_devices(&args.backend) else {
        return Status::Unavailable;
    };
    let plan = Plan {
        samples: args.samples.max(1),
        warmup: 2,
    };
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut device_info = Vec::new();
    let mut copy_gbps = Vec::new();
    for device in &devices {
        let label = device_label(device);
        let timer_kind = match timer::timer_for(device) {
            Ok(t) => t.kind(),
            Err(e) => {
                eprintln!("{label}: no timer: {e}");
                continue;
            }
        };
        let progress = Progress::new(device.name(), chosen.len());
        for (i, (case, baseline)) in chosen.iter().enumerate() {
            progress.show(i, &case.name);
            match measure_case(device, case, plan) {
                Ok((stats, timer)) => {
                    let row = Row {
                        name: case.name.clone(),
                        backend: device.name().to_string(),
                        device: label.clone(),
                        timer: timer.to_string(),
                        params: case.params.clone(),
                        work: case.work,
                        stats,
                        baseline: *baseline,
                        fraction: None,
                    };
                    if COPY_ROWS.contains(&row.name.as_str())
                        && !copy_gbps.iter().any(|(d, _): &(String, f64)| *d == label)
                        && let Some(g) = row.gbps()
                    {
                        copy_gbps.push((label.clone(), g));
                    }
                    rows.push(row);
                }
                Err(e) => {
                    errors.push(json!({"name": case.name, "backend": device.name(),
                                       "kind": e.kind().name(), "error": e.to_string()}));
                }
            }
        }
        progress.done();
        device_info.push(json!({
            "backend": device.name(), "device": label, "timer": timer_kind,
            "copy_gbps": copy_gbps.iter().find(|(d, _)| *d == label).map(|(_, g)| *g),
        }));
    }
    results::set_fractions(&mut rows, &copy_gbps);
    let doc = results::document(&device_info, &rows, &errors);
    table::print(&device_info, &rows, &errors);
    // A row the backend reports as unsupported (`Error::Unsupported`, e.g. FFTs on wgpu; or
    // `NotCapturable`, should a backend refuse a capture) is listed but is no
    // failure of the run.
    let failed = errors.iter().any(|e| {
        e["kind"] != ErrorKind::Unsupported.name() && e["kind"] != ErrorKind::NotCapturable.name()
    });
    let mut status = if !failed {
        Status::Ok
    } else {
        Status::Mismatch
    };
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("could not write {}: {e}", path.display());
            status = Status::Unavailable;
        }
    }
    if let Some(path) = &args.compare {
        match read_json(path).and_then(|old| compare::compare(&old, &doc)) {
            Ok(c) => {
                if table::print_comparison(&c) {
                    status = Status::Mismatch;
                }
            }
            Err(e) => {
                eprintln!("--compare {}: {e}", path.display());
                status = Status::Unavailable;
            }
        }
    }
    status
}

fn read_json(path: &std::path::Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
}

/// "hip:0 'NVIDIA H200'".
fn device_label(d: &AnyBackend) -> String {
    let info = d.device();
    format!("{}:{} '{}'", d.name(), info.ordinal, info.name)
}

/// The devices of the named backend (or of every available backend): `None` after printing
/// why when a named backend is unavailable or unknown.
fn open_devices(name: &str) -> Option<Vec<AnyBackend>> {
    if name == "all" {
        let mut out = Vec::new();
        for kind in BackendKind::compiled() {
            match backends::probe(kind) {
                Ok(d) => out.extend(d.into_iter().filter(|d| !d.is_software_device())),
                Err(e) => eprintln!("{kind}: skipped: {e}"),
            }
        }
        return Some(out);
    }
    let Some(kind) = BackendKind::from_name(name) else {
        eprintln!(
            "unknown backend {name:?}; compiled in: {}",
            BackendKind::compiled_names()
        );
        return None;
    };
    match backends::probe(kind) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("{kind}: {e}");
            None
        }
    }
}

/// Prepares `case` on `device` and measures it with the clock its timing asks for.
fn measure_case(
    device: &AnyBackend,
    case: &Case,
    plan: Plan,
) -> gpuarrays::Result<(measure::Stats, &'static str)> {
    let mut runner = (case.prepare)(device)?;
    device.synchronize()?;
    let result = match case.timing {
        Timing::Device => {
            let mut t = timer::timer_for(device)?;
            let kind = t.kind();
            measure::device_time(t.as_mut(), plan, &mut runner).map(|s| (s, kind))
        }
        Timing::Host => {
            let d = device.clone();
            measure::host_time(plan, &mut runner, &mut || d.synchronize()).map(|s| (s, "host"))
        }
        Timing::Wall => {
            let mut t = timer::WallClockTimer::new(device.clone());
            let few = Plan {
                samples: plan.samples.min(5),
                warmup: 1,
            };
            measure::device_time(&mut t, few, &mut runner).map(|s| (s, "wall-clock"))
        }
    };
    drop(runner);
    device.synchronize()?;
    result
}

/// The progress line on stderr: rewritten in place on a terminal, a line per tenth otherwise.
struct Progress {
    backend: String,
    total: usize,
    tty: bool,
}

impl Progress {
    fn new(backend: &str, total: usize) -> Progress {
        Progress {
            backend: backend.to_string(),
            total,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn show(&self, done: usize, name: &str) {
        let mut err = std::io::stderr().lock();
        let width = 24;
        let filled = (done * width).checked_div(self.total).unwrap_or(width);
        let bar = format!("{}{}", "#".repeat(filled), "-".repeat(width - filled));
        let line = format!("[{}] [{bar}] {done}/{} {name}", self.backend, self.total);
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else if done % (self.total / 10).max(1) == 0 {
            let _ = writeln!(err, "{line}");
        }
    }

    fn done(&self) {
        let mut err = std::io::stderr().lock();
        let line = format!("[{}] {}/{} done", self.backend, self.total, self.total);
        if self.tty {
            let _ = writeln!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
    }
}
