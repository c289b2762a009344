//! `validate`'s text output: the compact view (default) and the full table (`--verbose`).
//! Both end with the overall summary line ("PASS: ..." / "FAIL: ...").

use std::fmt::Write;

use gpuarrays::conformance::SuiteReport;

use super::Outcome;
use super::matrix::{Cell, Matrix};
use crate::error_chain::verbose_lines;

/// One summary line per backend, the matrix, every failure in full, the summary.
pub fn compact(outcomes: &[Outcome], all: &SuiteReport) -> String {
    let mut out = backend_lines(outcomes, false);
    let mut matrix = Matrix::default();
    for o in outcomes {
        for d in &o.reports {
            matrix.add(o.kind.name(), &d.report.rows);
        }
    }
    if !matrix.is_empty() {
        out.push('\n');
        out.push_str(&matrix.render());
    }
    out.push_str(&failures(outcomes));
    out.push_str(&all.summary());
    out.push('\n');
    out
}

/// One summary line per backend (with the causes of an unavailable one), every row, every
/// failure in full, the summary.
pub fn verbose(outcomes: &[Outcome], all: &SuiteReport) -> String {
    let mut out = backend_lines(outcomes, true);
    out.push('\n');
    out.push_str(&all.table());
    out.push_str(&failures(outcomes));
    out.push_str(&all.summary());
    out.push('\n');
    out
}

/// "cpu: PASS, 750 rows: 605 ok, 145 rejected, 0 unsupported, 0 FAILED (cpu:0 '...' against
/// the scalar oracle)", or the one line saying why the backend is not available.
fn backend_lines(outcomes: &[Outcome], with_causes: bool) -> String {
    let mut out = String::new();
    for o in outcomes {
        match &o.error {
            Some(e) => {
                let _ = writeln!(out, "{e}");
                if with_causes {
                    for line in verbose_lines(e) {
                        let _ = writeln!(out, "    {line}");
                    }
                }
            }
            None => {
                let rows = o.all_rows();
                let count = |cell: Cell| rows.rows.iter().filter(|r| Cell::of(r) == cell).count();
                let failed = count(Cell::Failed);
                let _ = writeln!(
                    out,
                    "{}: {}, {} rows: {} ok, {} rejected, {} unsupported, {failed} FAILED ({} against {})",
                    o.kind.name(),
                    if failed == 0 { "PASS" } else { "FAIL" },
                    rows.rows.len(),
                    count(Cell::Ok),
                    count(Cell::Rejected),
                    count(Cell::Unsupported),
                    o.devices().join(", "),
                    o.role().reference(),
                );
            }
        }
    }
    out
}

/// Every failed row: backend, device, row, status, then each failing case's line (what
/// differed, the case's shapes, its seed and how to replay it).
fn failures(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        for d in &o.reports {
            for r in d.report.failed() {
                if out.is_empty() {
                    out.push_str("\nFAILED rows:\n");
                }
                let _ = writeln!(
                    out,
                    "{} {} on {}: {}, {} cases, max error {}",
                    r.backend,
                    r.key(),
                    d.device,
                    r.status,
                    r.cases,
                    r.max_err
                );
                for line in &r.failures {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use gpuarrays::conformance::Row;
    use gpuarrays::{BackendKind, DType};

    use super::super::DeviceReport;
    use super::*;

    fn outcome(rows: Vec<Row>) -> Outcome {
        Outcome {
            kind: BackendKind::Cpu,
            error: None,
            required: false,
            reports: vec![DeviceReport {
                device: "cpu:0 'test'".into(),
                report: SuiteReport { rows },
            }],
        }
    }

    fn row(op: &str, dtype: DType, ok: bool, failures: Vec<String>) -> Row {
        Row {
            backend: "cpu".into(),
            op: op.into(),
            dtype,
            cases: 4,
            max_err: if ok { 0.0 } else { 3.0 },
            ok,
            status: if ok { "ok".into() } else { "FAIL".into() },
            failures,
            refusals: Vec::new(),
        }
    }

    #[test]
    fn a_failed_row_is_marked_in_the_matrix_and_printed_in_full() {
        let why = "case 2 (shape [5]): element 3 is 7, expected 8; seed 0x1f; replay with --seed 0x1f --filter add/i32".to_string();
        let rows = vec![
            row("add", DType::F32, true, vec![]),
            row("add", DType::I32, false, vec![why.clone()]),
        ];
        let o = outcome(rows.clone());
        let text = compact(&[o], &SuiteReport { rows });
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("cpu: FAIL, 2 rows: 1 ok, 0 rejected, 0 unsupported, 1 FAILED"),
            "{text}"
        );
        let header = lines.iter().find(|l| l.starts_with("operation")).unwrap();
        let add = lines.iter().find(|l| l.starts_with("add ")).unwrap();
        let col = |name: &str| header.find(name).unwrap();
        assert_eq!(add.get(col("i32")..col("i32") + 1), Some("X"), "{text}");
        assert_eq!(add.get(col("f32")..col("f32") + 1), Some("."), "{text}");
        assert!(
            text.contains(
                "FAILED rows:\ncpu add/i32 on cpu:0 'test': FAIL, 4 cases, max error 3\n"
            ),
            "{text}"
        );
        assert!(text.contains(&format!("    {why}\n")), "{text}");
        assert!(lines.last().unwrap().starts_with("FAIL:"), "{text}");
    }
}
