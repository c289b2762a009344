//! `--compare FILE`: this run against an earlier result file, row by row (same name, backend
//! and device name), as speed ratios, flagging regressions.
//!
//! A row regresses when it got slower by more than its threshold: 25 % for rows under
//! 100 µs (launch-bound, noisy), 10 % up to 10 ms, 5 % above (bandwidth- or compute-bound
//! rows are stable). A row whose own samples spread widely (interquartile range over median,
//! in either run) gets that spread as its threshold instead, if larger: a median that moved
//! by less than the row's own interquartile range is noise, not a regression.

use serde_json::Value;

/// One row present in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub name: String,
    pub backend: String,
    pub old_median: f64,
    pub new_median: f64,
    /// old / new: above 1 is faster now.
    pub speedup: f64,
    /// The slowdown tolerated before flagging, as a fraction.
    pub threshold: f64,
    pub regression: bool,
}

/// The threshold tier of a row taking `median` seconds.
pub fn tier(median: f64) -> f64 {
    if median < 100e-6 {
        0.25
    } else if median < 10e-3 {
        0.10
    } else {
        0.05
    }
}

fn spread(row: &Value) -> f64 {
    let (q1, q3, m) = (
        row["q1_s"].as_f64().unwrap_or(0.0),
        row["q3_s"].as_f64().unwrap_or(0.0),
        row["median_s"].as_f64().unwrap_or(0.0),
    );
    if m > 0.0 { (q3 - q1).max(0.0) / m } else { 0.0 }
}

/// The rows of a result document, checked to be one.
pub fn rows(doc: &Value) -> Result<&Vec<Value>, String> {
    if doc["schema"].as_str() != Some(super::results::SCHEMA) {
        return Err(format!(
            "not a gpuarrays bench result (schema {} expected, found {})",
            super::results::SCHEMA,
            doc["schema"]
        ));
    }
    doc["rows"]
        .as_array()
        .ok_or_else(|| "the result file has no \"rows\" array".to_string())
}

/// The device name inside "backend:ordinal 'name'", so that a device's rows match across
/// runs whatever its ordinal.
fn device_name(row: &Value) -> &str {
    let d = row["device"].as_str().unwrap_or("");
    d.split_once(' ').map_or(d, |(_, name)| name)
}

/// Every row of `new` that `old` also has, in `new`'s order.
pub fn compare(old: &Value, new: &Value) -> Result<Vec<Comparison>, String> {
    let (old_rows, new_rows) = (rows(old)?, rows(new)?);
    let mut out = Vec::new();
    for n in new_rows {
        let key = |r: &Value| (r["name"].clone(), r["backend"].clone());
        let Some(o) = old_rows
            .iter()
            .find(|o| key(o) == key(n) && device_name(o) == device_name(n))
        else {
            continue;
        };
        let (Some(om), Some(nm)) = (o["median_s"].as_f64(), n["median_s"].as_f64()) else {
            continue;
        };
        if om <= 0.0 || nm <= 0.0 {
            continue;
        }
        let threshold = tier(om).max(spread(o).max(spread(n)));
        out.push(Comparison {
            name: n["name"].as_str().unwrap_or("").to_string(),
            backend: n["backend"].as_str().unwrap_or("").to_string(),
            old_median: om,
            new_median: nm,
            speedup: om / nm,
            threshold,
            regression: nm > om * (1.0 + threshold),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(rows: &[(&str, f64, f64, f64)]) -> Value {
        json!({
            "schema": super::super::results::SCHEMA,
            "rows": rows.iter().map(|&(name, q1, m, q3)| json!({
                "name": name, "backend": "hip", "device": "hip:0 'GPU'",
                "q1_s": q1, "median_s": m, "q3_s": q3,
            })).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn thresholds_are_tighter_for_long_rows() {
        assert_eq!(tier(5e-6), 0.25);
        assert_eq!(tier(1e-3), 0.10);
        assert_eq!(tier(0.2), 0.05);
    }

    #[test]
    fn a_slowdown_beyond_the_threshold_is_a_regression() {
        let old = doc(&[
            ("big", 0.1, 0.1, 0.1),
            ("tiny", 4e-6, 4e-6, 4e-6),
            ("gone", 1.0, 1.0, 1.0),
        ]);
        let new = doc(&[
            ("big", 0.107, 0.107, 0.107),
            ("tiny", 4.8e-6, 4.8e-6, 4.8e-6),
            ("new", 1.0, 1.0, 1.0),
        ]);
        let c = compare(&old, &new).expect("valid");
        assert_eq!(c.len(), 2, "only rows in both runs");
        let big = &c[0];
        assert_eq!(big.name, "big");
        assert!(big.regression, "7 % slower at 100 ms is over 5 %");
        assert!((big.speedup - 0.1 / 0.107).abs() < 1e-12);
        let tiny = &c[1];
        assert!(!tiny.regression, "20 % slower at 4 µs is within 25 %");
    }

    #[test]
    fn noisy_rows_get_a_wider_threshold_and_faster_rows_never_regress() {
        let old = doc(&[("noisy", 0.08, 0.1, 0.12), ("faster", 0.1, 0.1, 0.1)]);
        let new = doc(&[("noisy", 0.09, 0.11, 0.13), ("faster", 0.05, 0.05, 0.05)]);
        let c = compare(&old, &new).expect("valid");
        assert!((c[0].threshold - 0.4).abs() < 1e-9, "{}", c[0].threshold);
        assert!(!c[0].regression);
        assert!(!c[1].regression);
        assert!((c[1].speedup - 2.0).abs() < 1e-12);
    }

    #[test]
    fn other_files_are_refused() {
        let e = compare(&json!({"rows": []}), &doc(&[])).expect_err("no schema");
        assert!(e.contains("not a gpuarrays bench result"), "{e}");
    }
}
