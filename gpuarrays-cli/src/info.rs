//! `gpuarrays info`: the compiled-in backends, the backend `default_backend()` picks here,
//! the devices each backend finds (with the precisions each flushes subnormals to zero in,
//! and their memory statistics),
//! and its capability table (element type × operation kind).
//! A backend that is not available is one line; `--verbose` adds the causes (every library
//! file tried and why it did not load). For each HIP device, the FFT plan cache's budgets and
//! counters.

use clap::Args;
use gpuarrays::{BACKEND_ENV, Backend, BackendKind, DType, OpKind, Support};

use crate::Status;
use crate::backends::{self, Capability};
use crate::error_chain::verbose_lines;

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Also print why each unavailable backend is unavailable, in full.
    #[arg(long, short)]
    verbose: bool,
}

pub fn run(args: &InfoArgs) -> Status {
    println!("gpuarrays {}", env!("CARGO_PKG_VERSION"));
    println!("backends compiled in: {}", BackendKind::compiled_names());
    let status = print_default_backend(args.verbose);
    for kind in BackendKind::compiled() {
        println!();
        println!("{kind} — {}", kind.facts().description);
        match backends::probe(kind) {
            Ok(devices) => {
                for d in &devices {
                    let info = d.device();
                    println!("  device {}: {} (id {})", info.ordinal, info.name, info.id);
                    // Declared by the backend (wgpu measures it when the device opens).
                    println!(
                        "    flushes subnormals to zero: {}",
                        info.flushes_subnormals
                    );
                    println!("    memory: {}", d.memory_stats());
                    // What the backend says beyond the common lines (HIP: its FFT plan
                    // cache; wgpu: how it compiles shaders).
                    for line in d.info_lines() {
                        println!("    {line}");
                    }
                }
                if let Some(first) = devices.first() {
                    print_capabilities(&backends::capabilities(first));
                }
            }
            Err(e) => {
                println!("  {e}");
                if args.verbose {
                    print_causes(&e);
                }
            }
        }
    }
    status
}

/// The backend `default_backend()` picks here and why; an error (exit status 2) when
/// `GPUARRAYS_BACKEND` names one that cannot be opened.
fn print_default_backend(verbose: bool) -> Status {
    let how = match std::env::var(BACKEND_ENV) {
        Ok(v) => format!("{BACKEND_ENV}={v}"),
        Err(_) => format!("{BACKEND_ENV} unset"),
    };
    match gpuarrays::default_backend_choice() {
        Ok(choice) => {
            let why = if choice.passed_over.is_empty() {
                String::new()
            } else {
                let names: Vec<String> = choice.passed_over.iter().map(passed_over).collect();
                format!("; passed over: {}", names.join(", "))
            };
            println!("default backend: {} ({how}{why})", choice.backend.device());
            Status::Ok
        }
        Err(e) => {
            println!("default backend: error: {e}");
            if verbose {
                print_causes(&e);
            }
            Status::Unavailable
        }
    }
}

/// "hip (not available)", "wgpu (software device only)": why the automatic choice passed a
/// GPU backend over, in a word (its section below says more).
fn passed_over(e: &gpuarrays::BackendChoiceError) -> String {
    use gpuarrays::BackendChoiceError as E;
    match e {
        E::Unavailable { name, .. } | E::NoSuchDevice { name, .. } => {
            format!("{name} (not available)")
        }
        E::NoDevice { name } => format!("{name} (no device)"),
        E::SoftwareDevice { name, .. } => format!("{name} (software device only)"),
        other => other.to_string(),
    }
}

fn print_causes(e: &gpuarrays::BackendChoiceError) {
    for line in verbose_lines(e) {
        println!("    {line}");
    }
}

fn print_capabilities(capabilities: &[Capability]) {
    print!("  {:<6}", "dtype");
    for op in OpKind::ALL {
        print!(" {:>11}", op.name());
    }
    println!();
    let mut reasons: Vec<String> = Vec::new();
    for dtype in DType::ALL {
        print!("  {:<6}", dtype.name());
        for op in OpKind::ALL {
            let cap = capabilities.iter().find(|c| c.dtype == dtype && c.op == op);
            let cell = match cap.map(|c| &c.support) {
                Some(Support::Yes) => "yes",
                Some(Support::No {
                    reason,
                    alternative,
                }) => {
                    let line = match alternative {
                        Some(a) => format!("{dtype}: {reason}; {a}"),
                        None => format!("{dtype}: {reason}"),
                    };
                    if !reasons.contains(&line) {
                        reasons.push(line);
                    }
                    "no"
                }
                None => "?",
            };
            print!(" {cell:>11}");
        }
        println!();
    }
    for r in reasons {
        println!("  {r}");
    }
}
