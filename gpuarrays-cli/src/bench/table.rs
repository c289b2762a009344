//! The text output of a run: per device a header, then one line per row (median, spread,
//! throughput, fraction of copy bandwidth or peak), the errors, and the comparison.

use serde_json::Value;

use super::compare::Comparison;
use super::results::Row;

/// Seconds in the unit that suits them.
pub fn duration(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.2} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

pub fn print(devices: &[Value], rows: &[Row], errors: &[Value]) {
    for d in devices {
        let label = d["device"].as_str().unwrap_or("");
        println!();
        let copy = d["copy_gbps"]
            .as_f64()
            .map_or("not measured".into(), |g| format!("{g:.0} GB/s"));
        println!(
            "{label} (timer: {}; copy bandwidth {copy})",
            d["timer"].as_str().unwrap_or("")
        );
        println!("| benchmark | median | spread (IQR) | throughput | of copy / peak |");
        println!("|---|---|---|---|---|");
        for r in rows.iter().filter(|r| r.device == label) {
            let tp = match (r.gbps(), r.gflops()) {
                (Some(g), _) => format!("{g:.1} GB/s"),
                (_, Some(f)) if f >= 1e3 => format!("{:.2} TFLOP/s", f / 1e3),
                (_, Some(f)) => format!("{f:.2} GFLOP/s"),
                _ => String::new(),
            };
            let frac = r
                .fraction
                .map_or(String::new(), |(f, of)| format!("{:.0} % {of}", f * 100.0));
            let note = if r.baseline { " (baseline)" } else { "" };
            println!(
                "| {}{note} | {} | ±{:.1} % | {tp} | {frac} |",
                r.name,
                duration(r.stats.median),
                r.stats.relative_spread() * 50.0
            );
        }
    }
    for e in errors {
        let what = if e["kind"] == "Unsupported" {
            "UNSUPPORTED"
        } else {
            "FAILED"
        };
        println!(
            "{what} {} on {}: {}",
            e["name"].as_str().unwrap_or(""),
            e["backend"].as_str().unwrap_or(""),
            e["error"].as_str().unwrap_or("")
        );
    }
}

/// Prints the comparison; returns whether any row regressed.
pub fn print_comparison(c: &[Comparison]) -> bool {
    println!();
    println!("| benchmark | backend | before | now | speed now / before | |");
    println!("|---|---|---|---|---|---|");
    let mut regressed = 0;
    for r in c {
        let flag = if r.regression {
            regressed += 1;
            format!("REGRESSION (> {:.0} % slower)", r.threshold * 100.0)
        } else {
            String::new()
        };
        println!(
            "| {} | {} | {} | {} | {:.3}× | {flag} |",
            r.name,
            r.backend,
            duration(r.old_median),
            duration(r.new_median),
            r.speedup
        );
    }
    println!("{} rows compared, {regressed} regression(s)", c.len());
    regressed > 0
}
