//! `gpuarrays info`: the compiled-in backends, the devices each finds, and its capability
//! table (element type × operation kind).

use clap::Args;
use gpuarrays::backends::{self, BackendInfo, Capability};
use gpuarrays::{DType, OpKind, Support};

use super::Status;

#[derive(Debug, Args)]
pub struct InfoArgs {}

pub fn run(_args: &InfoArgs) -> Status {
    println!("gpuarrays {}", env!("CARGO_PKG_VERSION"));
    println!("backends compiled in: {}", backends::names().join(", "));
    for entry in backends::compiled() {
        println!();
        println!("{} — {}", entry.name, entry.description);
        match (entry.probe)() {
            Ok(info) => print_info(&info),
            Err(e) => println!("  unavailable: {e}"),
        }
    }
    Status::Ok
}

fn print_info(info: &BackendInfo) {
    for d in &info.devices {
        println!("  device {}: {} (id {})", d.ordinal, d.name, d.id);
    }
    print!("  {:<6}", "dtype");
    for op in OpKind::ALL {
        print!(" {:>11}", op.name());
    }
    println!();
    let mut reasons: Vec<String> = Vec::new();
    for dtype in DType::ALL {
        print!("  {:<6}", dtype.name());
        for op in OpKind::ALL {
            let cap = info
                .capabilities
                .iter()
                .find(|c: &&Capability| c.dtype == dtype && c.op == op);
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
