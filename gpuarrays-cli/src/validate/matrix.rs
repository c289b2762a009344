//! The operations × element types matrix of `validate`'s compact view.
//!
//! Operations in the suite's order (an operation name the suite uses twice, like the
//! elementwise `min` and the reduction `min`, appears twice), one column per element type,
//! and in each cell one symbol per backend; consecutive operations with the same cells share
//! a line (the float functions, the FFTs, ...), so the 1,700-row table fits a screen.

use std::collections::HashMap;
use std::fmt::Write;

use gpuarrays::DType;
use gpuarrays::conformance::Row;
use gpuarrays::conformance::report::STATUS_UNSUPPORTED;

/// A row's verdict, ordered from best to worst (devices of one backend combine to the worst).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cell {
    /// Computed and matched the reference (possibly with some cases rejected as documented).
    Ok,
    /// Every case rejected by core's type rules, with the same error as the reference.
    Rejected,
    /// The backend reported the type unsupported, as it must.
    Unsupported,
    /// Some cases refused at dispatch with the backend's typed `Unsupported` (e.g. FFT
    /// lengths a kernel does not take); listed with `--verbose`.
    Refused,
    /// A mismatch: listed in full below the matrix.
    Failed,
}

impl Cell {
    pub fn of(row: &Row) -> Cell {
        if !row.ok {
            Cell::Failed
        } else if !row.refusals.is_empty() {
            Cell::Refused
        } else if row.status.starts_with(STATUS_UNSUPPORTED) {
            Cell::Unsupported
        } else if row.status.starts_with("rejected") {
            Cell::Rejected
        } else {
            Cell::Ok
        }
    }

    pub fn symbol(self) -> char {
        match self {
            Cell::Ok => '.',
            Cell::Rejected => 'r',
            Cell::Unsupported => 'u',
            Cell::Refused => 'p',
            Cell::Failed => 'X',
        }
    }
}

/// What the symbols mean, three lines.
pub fn legend(backends: &[&str]) -> String {
    format!(
        "cells: one symbol per backend ({}):  . ok   r rejected as documented (core's type rules)\n\
         \x20      u unsupported (reported by the backend, as it must)   X FAILED (below)   blank: not run\n\
         \x20      p some cases refused at dispatch (reported by the backend; the JSON lists them)\n",
        backends.join(", ")
    )
}

/// The verdicts of several backends' rows.
#[derive(Debug, Default)]
pub struct Matrix {
    backends: Vec<String>,
    /// (operation, occurrence of that name), in first-seen order.
    lines: Vec<(String, usize)>,
    index: HashMap<(String, usize), usize>,
    /// (line, dtype, backend) → cell.
    cells: HashMap<(usize, DType, usize), Cell>,
}

impl Matrix {
    /// Adds one device's rows of `backend` (devices of one backend share its symbol: the
    /// worst verdict wins).
    pub fn add(&mut self, backend: &str, rows: &[Row]) {
        let b = match self.backends.iter().position(|x| x == backend) {
            Some(b) => b,
            None => {
                self.backends.push(backend.to_string());
                self.backends.len() - 1
            }
        };
        let mut seen: HashMap<(&str, DType), usize> = HashMap::new();
        for row in rows {
            let occurrence = seen.entry((row.op.as_str(), row.dtype)).or_insert(0);
            let key = (row.op.clone(), *occurrence);
            *occurrence += 1;
            let line = match self.index.get(&key) {
                Some(&line) => line,
                None => {
                    self.lines.push(key.clone());
                    self.index.insert(key, self.lines.len() - 1);
                    self.lines.len() - 1
                }
            };
            let cell = self.cells.entry((line, row.dtype, b)).or_insert(Cell::Ok);
            *cell = (*cell).max(Cell::of(row));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The header, the operations, and the legend. Consecutive operations whose cells are
    /// the same for every type and backend share a line, their names wrapped over as many
    /// lines as they need (`--verbose` has one line per row): the suite's 170 operations
    /// fit about 70 lines.
    pub fn render(&self) -> String {
        let width = (self.backends.len() + 1).max(5);
        let cells = |line: usize| -> String {
            let mut text = String::new();
            for d in DType::ALL {
                let cell: String = (0..self.backends.len())
                    .map(|b| self.cells.get(&(line, d, b)).map_or(' ', |c| c.symbol()))
                    .collect();
                let _ = write!(text, "{cell:<width$}");
            }
            text
        };
        // (names, cells) of each group of consecutive lines with equal cells.
        let mut groups: Vec<(Vec<&str>, String)> = Vec::new();
        for (line, (op, _)) in self.lines.iter().enumerate() {
            let c = cells(line);
            match groups.last_mut() {
                Some((names, last)) if *last == c => names.push(op),
                _ => groups.push((vec![op.as_str()], c)),
            }
        }
        let labels: Vec<Vec<String>> = groups.iter().map(|(n, _)| wrap(n, LABEL)).collect();
        let label = labels
            .iter()
            .flatten()
            .map(String::len)
            .chain([9])
            .max()
            .unwrap_or(9)
            + 1;
        let mut out = format!("{:<label$}", "operation");
        for d in DType::ALL {
            let _ = write!(out, "{:<width$}", d.name());
        }
        out = out.trim_end().to_string();
        out.push('\n');
        for ((_, c), lines) in groups.iter().zip(&labels) {
            for (k, text) in lines.iter().enumerate() {
                let row = if k == 0 {
                    format!("{text:<label$}{c}")
                } else {
                    format!("  {text}")
                };
                out.push_str(row.trim_end());
                out.push('\n');
            }
        }
        let names: Vec<&str> = self.backends.iter().map(String::as_str).collect();
        out.push_str(&legend(&names));
        out
    }
}

/// The widest label line before names wrap: with fifteen type columns of five characters,
/// a line stays within 100 columns.
const LABEL: usize = 24;

/// `names` joined by spaces in lines of at most `max` characters (a longer name alone);
/// continuation lines are indented by two, so they are two shorter.
fn wrap(names: &[&str], max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for name in names {
        let room = if lines.len() <= 1 { max } else { max - 2 };
        match lines.last_mut() {
            Some(l) if l.len() + 1 + name.len() <= room => {
                l.push(' ');
                l.push_str(name);
            }
            _ => lines.push((*name).to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(backend: &str, op: &str, dtype: DType, ok: bool, status: &str) -> Row {
        Row {
            backend: backend.into(),
            op: op.into(),
            dtype,
            cases: 3,
            max_err: 0.0,
            ok,
            status: status.into(),
            failures: Vec::new(),
            refusals: Vec::new(),
        }
    }

    #[test]
    fn statuses_map_to_cells() {
        let cell = |ok, status| Cell::of(&row("cpu", "add", DType::F32, ok, status));
        assert_eq!(cell(true, "ok"), Cell::Ok);
        assert_eq!(cell(true, "ok (2 rejected)"), Cell::Ok);
        assert_eq!(cell(true, "rejected (InvalidDType)"), Cell::Rejected);
        assert_eq!(cell(true, STATUS_UNSUPPORTED), Cell::Unsupported);
        let partly = format!("{STATUS_UNSUPPORTED}; 2 rejected");
        assert_eq!(cell(true, &partly), Cell::Unsupported);
        assert_eq!(cell(false, "FAIL"), Cell::Failed);
    }

    #[test]
    fn a_repeated_operation_name_gets_its_own_line_and_backends_share_a_cell() {
        let mut m = Matrix::default();
        m.add(
            "cpu",
            &[
                row("cpu", "min", DType::F32, true, "ok"),
                row("cpu", "min", DType::I32, true, "ok"),
                row("cpu", "min", DType::F32, true, "rejected (InvalidDType)"),
            ],
        );
        m.add("hip", &[row("hip", "min", DType::F32, false, "FAIL")]);
        // A second device of hip: the worst verdict stays.
        m.add("hip", &[row("hip", "min", DType::F32, true, "ok")]);
        let text = m.render();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("operation") && lines[0].contains("c64"));
        let min_lines: Vec<&&str> = lines.iter().filter(|l| l.starts_with("min ")).collect();
        assert_eq!(min_lines.len(), 2, "{text}");
        // The f32 column of the first `min` line: cpu ok, hip failed.
        let f32_col = lines[0].find("f32").unwrap();
        assert_eq!(&min_lines[0][f32_col..f32_col + 2], ".X", "{text}");
        assert_eq!(min_lines[1].get(f32_col..f32_col + 1), Some("r"), "{text}");
        assert_eq!(min_lines[1].trim_end().len(), f32_col + 1, "{text}");
        assert!(text.contains("(cpu, hip)"));
    }

    #[test]
    fn operations_with_equal_cells_share_a_line_and_wrap() {
        let mut m = Matrix::default();
        let mut rows = Vec::new();
        let names = [
            "sqrt", "exp", "log", "sin", "cos", "tanh", "log1p", "expm1", "tan", "atan",
        ];
        for op in names {
            rows.push(row("cpu", op, DType::F32, true, "ok"));
            rows.push(row("cpu", op, DType::I32, true, "rejected (InvalidDType)"));
        }
        rows.push(row("cpu", "add", DType::F32, true, "ok"));
        rows.push(row("cpu", "add", DType::I32, true, "ok"));
        m.add("cpu", &rows);
        let text = m.render();
        let lines: Vec<&str> = text.lines().collect();
        // Header, the float functions over three lines (cells on the first; continuation
        // lines indented), `add`, legend.
        assert!(lines[1].starts_with("sqrt exp log sin cos"), "{text}");
        assert!(lines[2].starts_with("  tanh"), "{text}");
        assert!(
            lines[3].starts_with("  ") && lines[3].contains("atan"),
            "{text}"
        );
        assert!(lines[4].starts_with("add "), "{text}");
        let i32_col = lines[0].find("i32").unwrap();
        assert_eq!(lines[1].get(i32_col..i32_col + 1), Some("r"), "{text}");
        assert_eq!(lines[4].get(i32_col..i32_col + 1), Some("."), "{text}");
        let words: Vec<&str> = lines[1..4]
            .iter()
            .flat_map(|l| l[..l.len().min(i32_col.min(LABEL + 1))].split_whitespace())
            .collect();
        assert_eq!(words, names, "{text}");
    }
}
