//! The results of a run: rows (what was measured, its statistics and throughput) and the
//! JSON file `--json` writes and `--compare` and `benches/suite_torch.py` read.
//!
//! Schema `gpuarrays-bench/1`, one object:
//! ```text
//! { "schema": "gpuarrays-bench/1", "version": "0.1.0", "unix_time": 1764460800,
//!   "devices": [{"backend": "hip", "device": "hip:0 'NVIDIA H200'", "timer": "hip-events",
//!                "copy_gbps": 3950.2}],
//!   "rows": [{"name": "array/copyL", "backend": "hip", "device": "...", "timer": "hip-events",
//!             "params": {"op": "copy", ...}, "median_s": ..., "min_s", "q1_s", "q3_s",
//!             "max_s", "samples", "calls_per_sample",
//!             "bytes"?, "gbps"?, "flops"?, "gflops"?, "fraction"?, "fraction_of"?,
//!             "baseline"?: true}],
//!   "errors": [{"name": ..., "backend": ..., "kind": "Unsupported", "error": "..."}] }
//! ```
//! `fraction` is throughput over the copy bandwidth measured in the same run on the same
//! device (`fraction_of: "copy"`), or over the device's datasheet peak for products where
//! it is known (`fraction_of: "peak"`).

use serde_json::{Value, json};

use super::cases::Work;
use super::measure::Stats;

pub const SCHEMA: &str = "gpuarrays-bench/1";

/// One measured row.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub backend: String,
    pub device: String,
    pub timer: String,
    pub params: Value,
    pub work: Work,
    pub stats: Stats,
    /// Run only as the copy baseline (filtered out by the user).
    pub baseline: bool,
    /// Throughput over the copy bandwidth or the peak, and which.
    pub fraction: Option<(f64, &'static str)>,
}

impl Row {
    /// GB/s (10⁹ bytes) of a bandwidth row.
    pub fn gbps(&self) -> Option<f64> {
        match self.work {
            Work::Bytes(b) if self.stats.median > 0.0 => Some(b / self.stats.median / 1e9),
            _ => None,
        }
    }
    /// GFLOP/s of a product row.
    pub fn gflops(&self) -> Option<f64> {
        match self.work {
            Work::Flops(f) if self.stats.median > 0.0 => Some(f / self.stats.median / 1e9),
            _ => None,
        }
    }

    pub fn to_json(&self) -> Value {
        let s = &self.stats;
        let mut v = json!({
            "name": self.name, "backend": self.backend, "device": self.device,
            "timer": self.timer, "params": self.params,
            "median_s": s.median, "min_s": s.min, "q1_s": s.q1, "q3_s": s.q3, "max_s": s.max,
            "samples": s.samples, "calls_per_sample": s.calls_per_sample,
        });
        let o = v.as_object_mut().expect("an object literal");
        match self.work {
            Work::Bytes(b) => {
                o.insert("bytes".into(), json!(b));
                o.insert("gbps".into(), json!(self.gbps()));
            }
            Work::Flops(f) => {
                o.insert("flops".into(), json!(f));
                o.insert("gflops".into(), json!(self.gflops()));
            }
            Work::None => {}
        }
        if let Some((f, of)) = self.fraction {
            o.insert("fraction".into(), json!(f));
            o.insert("fraction_of".into(), json!(of));
        }
        if self.baseline {
            o.insert("baseline".into(), json!(true));
        }
        v
    }
}

/// Dense datasheet peak (FLOP/s) of a product of `dtype` on a device named `device`, where
/// known: NVIDIA H100/H200 SXM, FP32 on CUDA cores and FP64 on tensor cores (67 TFLOP/s each;
/// what cuBLAS uses with TF32 off), and the complex types on the same units.
pub fn peak_flops(device: &str, dtype: &str) -> Option<f64> {
    let hopper = device.contains("H100") || device.contains("H200");
    match dtype {
        "f32" | "f64" | "c32" | "c64" if hopper => Some(67e12),
        _ => None,
    }
}

/// Fills in every row's fraction: bandwidth over `copy_gbps` of its device, products over the
/// peak (FFT rows count nominal operations, see `cases/fft.rs`, and get no fraction: a
/// memory-bound transform's share of the arithmetic peak says nothing).
pub fn set_fractions(rows: &mut [Row], copy_gbps: &[(String, f64)]) {
    for r in rows.iter_mut() {
        r.fraction = if let Some(g) = r.gbps() {
            copy_gbps
                .iter()
                .find(|(d, _)| *d == r.device)
                .filter(|(_, c)| *c > 0.0)
                .map(|(_, c)| (g / c, "copy"))
        } else if let Some(gf) = r.gflops().filter(|_| r.params["op"] == "matmul") {
            let dtype = r.params["dtype"].as_str().unwrap_or("");
            peak_flops(&r.device, dtype).map(|p| (gf * 1e9 / p, "peak"))
        } else {
            None
        };
    }
}

/// The whole file.
pub fn document(devices: &[Value], rows: &[Row], errors: &[Value]) -> Value {
    let unix_time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    json!({
        "schema": SCHEMA,
        "version": env!("CARGO_PKG_VERSION"),
        "unix_time": unix_time,
        "devices": devices,
        "rows": rows.iter().map(Row::to_json).collect::<Vec<_>>(),
        "errors": errors,
    })
}
