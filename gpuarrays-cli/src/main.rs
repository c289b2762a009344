//! The `gpuarrays` command: `info` (the backends compiled in, the devices each finds, their
//! capabilities), `validate` (the conformance suite on each available backend), `bench`
//! (timed benchmarks of the operations, side by side with PyTorch through
//! `benches/suite_torch.py`) and `collective-id` (a group id for multi-process collectives).
//!
//! Exit codes: 0 success, 1 a mismatch (validate found a backend computing wrong results;
//! bench: a row failed or `--compare` found a regression), 2 a usage error or an unavailable
//! backend that was asked for.

#![forbid(unsafe_code)]

mod backends;
mod bench;
mod collective_id;
mod error_chain;
mod info;
mod progress;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// GPU array programming in Rust: inspect and validate the compiled-in backends.
#[derive(Debug, Parser)]
#[command(name = "gpuarrays", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Backends compiled in, the default backend, devices found, and capabilities (element
    /// type × operation).
    Info(info::InfoArgs),
    /// Run the conformance suite: GPU backends against the CPU reference, the CPU
    /// reference against the scalar oracle.
    Validate(validate::ValidateArgs),
    /// Benchmarks of the array operations, timed on the device, with JSON output and
    /// comparison against an earlier run.
    Bench(bench::BenchArgs),
    /// Print a fresh collective group id (NCCL/RCCL), for launchers that hand one id to
    /// every rank (`GPUARRAYS_BOOTSTRAP=env:VAR`).
    CollectiveId(collective_id::CollectiveIdArgs),
}

/// Exit status of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Mismatch,
    Unavailable,
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        match s {
            Status::Ok => ExitCode::SUCCESS,
            Status::Mismatch => ExitCode::from(1),
            Status::Unavailable => ExitCode::from(2),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::CollectiveId(args) => collective_id::run(&args),
    }
    .into()
}
