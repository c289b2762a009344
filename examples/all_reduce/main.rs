//! All-reduce of arrays across GPUs, two ways: every device of this process as one group
//! (one thread, one `group`), or one process per rank started by this program itself, which
//! share the group id over TCP (`GPUARRAYS_BOOTSTRAP`), as a launcher such as torchrun would
//! start them. See README.md.

use gpuarrays::hip::HipBackend;
use gpuarrays::hip::collectives::{Communicator, ReduceOp, group};
use gpuarrays::{Array, Result};
use std::process::{Command, ExitCode};

/// Elements per rank.
const LEN: usize = 1 << 20;

/// Rank `r`'s gradient: `r + 1` everywhere, so the sum over `n` ranks is `n(n+1)/2`.
fn gradient(d: &HipBackend, r: usize) -> Result<Array<f32, HipBackend>> {
    Array::full(d, &[LEN], (r + 1) as f32)
}

fn check(sum: &Array<f32, HipBackend>, n: usize, who: &str) -> Result<bool> {
    let want = (n * (n + 1) / 2) as f32;
    let ok = sum.to_vec()?.iter().all(|&v| v == want);
    println!("{who}: sum of {n} ranks = {want} in every element: {ok}");
    Ok(ok)
}

/// Every device of this process is a rank.
fn in_process() -> Result<bool> {
    let devices = HipBackend::all()?;
    let n = devices.len();
    println!(
        "{}; {n} device(s) in this process",
        Communicator::library_version(&devices[0])?
    );
    let comms = Communicator::for_devices(&devices)?;
    let grads = (0..n)
        .map(|r| gradient(&devices[r], r))
        .collect::<Result<Vec<_>>>()?;
    let sums = group(&devices[0], || {
        comms
            .iter()
            .zip(&grads)
            .map(|(c, g)| c.all_reduce(g, ReduceOp::Sum))
            .collect::<Result<Vec<_>>>()
    })?;
    let mut ok = true;
    for (r, s) in sums.iter().enumerate() {
        ok &= check(s, n, &format!("rank {r}"))?;
    }
    Ok(ok)
}

/// This process is one rank of a group a launcher started (`--spawn` below, or torchrun).
fn as_rank() -> Result<bool> {
    let c = Communicator::from_env()?;
    let g = gradient(c.backend(), c.rank())?;
    let s = c.all_reduce(&g, ReduceOp::Sum)?;
    check(&s, c.ranks(), &format!("process of rank {}", c.rank()))
}

/// Start `n` processes of this program, one rank each, sharing the id over TCP.
fn spawn(n: usize, port: u16) -> std::io::Result<bool> {
    let exe = std::env::current_exe()?;
    let children = (0..n)
        .map(|r| {
            Command::new(&exe)
                .arg("--rank")
                .env("GPUARRAYS_RANK", r.to_string())
                .env("GPUARRAYS_RANKS", n.to_string())
                .env("GPUARRAYS_LOCAL_RANK", r.to_string())
                .env("GPUARRAYS_BOOTSTRAP", format!("tcp:127.0.0.1:{port}"))
                .spawn()
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut ok = true;
    for mut c in children {
        ok &= c.wait()?.success();
    }
    Ok(ok)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.get(1).map(String::as_str) {
        Some("--rank") => as_rank().map_err(|e| e.to_string()),
        Some("--spawn") => {
            let n = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(2);
            let port = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(29_517);
            spawn(n, port).map_err(|e| e.to_string())
        }
        _ => in_process().map_err(|e| e.to_string()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("all_reduce: {e}");
            ExitCode::from(2)
        }
    }
}
