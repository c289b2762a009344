//! The `gpuarrays` command: `info` (backends, devices, capabilities) and `validate` (the
//! conformance suite on each available backend).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
