//! The report of a suite run: one row per (backend, operation, element type).

use std::fmt;

use gpuarrays_core::DType;
use serde::{Serialize, Serializer};

/// Status of a row whose computing cases were all refused with `Error::Unsupported`, as
/// they must be (other cases of the row may have been rejected by type or shape rules:
/// "unsupported (reported); 2 rejected").
pub const STATUS_UNSUPPORTED: &str = "unsupported (reported)";

/// One operation on one element type.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The backend under test.
    pub backend: String,
    /// The operation, e.g. "add", "sum_axis", "cast:f32".
    pub op: String,
    #[serde(serialize_with = "dtype_name")]
    pub dtype: DType,
    /// Cases run.
    pub cases: usize,
    /// Largest error over the row's cases: ε-units for float and complex results
    /// (`|Δ| / (ε·scale)`), absolute difference for bool and integer results.
    pub max_err: f64,
    pub ok: bool,
    /// "ok", "ok (n rejected, m unsupported, k refused at dispatch)", "rejected (InvalidDType)",
    /// "unsupported (reported)" (possibly with "; n rejected"), "FAIL"; followed by
    /// " [FTZ: device flushes subnormals]" where the device flushes the row's precision.
    pub status: String,
    /// One line per failing case: what differed, the case's shapes, its seed, and how to
    /// replay it.
    pub failures: Vec<String>,
    /// One line per case the backend refused at dispatch with its typed
    /// `Error::Unsupported` although it supports the row's types (e.g. an FFT length its
    /// kernel does not take): reported, never a wrong result, and never silent.
    pub refusals: Vec<String>,
}

fn dtype_name<S: Serializer>(d: &DType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.name())
}

impl Row {
    /// The row's key, "op/dtype", which [`crate::SuiteConfig::filter`] matches.
    pub fn key(&self) -> String {
        format!("{}/{}", self.op, self.dtype)
    }
}

/// All rows of one or more suite runs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SuiteReport {
    pub rows: Vec<Row>,
}

impl SuiteReport {
    /// Whether every row passed.
    pub fn ok(&self) -> bool {
        self.rows.iter().all(|r| r.ok)
    }

    /// The rows that failed.
    pub fn failed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| !r.ok)
    }

    /// Total number of cases.
    pub fn cases(&self) -> usize {
        self.rows.iter().map(|r| r.cases).sum()
    }

    /// Appends another report's rows.
    pub fn extend(&mut self, other: SuiteReport) {
        self.rows.extend(other.rows);
    }

    /// A fixed-width table: backend, operation, dtype, cases, max error, status.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<10} {:<18} {:<6} {:>6} {:>12}  {}\n",
            "backend", "operation", "dtype", "cases", "max error", "status"
        );
        for r in &self.rows {
            out.push_str(&format!(
                "{:<10} {:<18} {:<6} {:>6} {:>12}  {}\n",
                r.backend,
                r.op,
                r.dtype.name(),
                r.cases,
                format_err(r.max_err),
                r.status
            ));
        }
        out
    }

    /// One line: rows and cases passed, failed, unsupported.
    pub fn summary(&self) -> String {
        let failed = self.failed().count();
        let unsupported = self
            .rows
            .iter()
            .filter(|r| r.status.starts_with(STATUS_UNSUPPORTED))
            .count();
        let ftz = self
            .rows
            .iter()
            .filter(|r| r.status.contains(crate::ftz::FTZ_NOTE))
            .count();
        let ftz_note = if ftz > 0 {
            format!(
                "; {ftz} rows on a device that flushes subnormals to zero: no subnormal \
                 inputs, subnormal results compared as zero"
            )
        } else {
            String::new()
        };
        format!(
            "{}: {} rows ({} cases): {} passed, {} failed, {} unsupported (reported){ftz_note}",
            if failed == 0 { "PASS" } else { "FAIL" },
            self.rows.len(),
            self.cases(),
            self.rows.len() - failed,
            failed,
            unsupported
        )
    }

    /// The failure lines of every failed row.
    pub fn failure_details(&self) -> String {
        let mut out = String::new();
        for r in self.failed() {
            for f in &r.failures {
                out.push_str(&format!("{} {}: {f}\n", r.backend, r.key()));
            }
        }
        out
    }
}

fn format_err(e: f64) -> String {
    if e == 0.0 {
        "0".into()
    } else if e.is_finite() && (0.01..1e6).contains(&e) {
        format!("{e:.2}")
    } else {
        format!("{e:.2e}")
    }
}

impl fmt::Display for SuiteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.table())?;
        f.write_str(&self.failure_details())?;
        writeln!(f, "{}", self.summary())
    }
}
