//! One test per row of `docs/bad-inputs.md`, named after the row.
//!
//! The expected error variant and message words come from the table itself (parsed at
//! compile time with `include_str!`), so the documentation cannot drift from what is
//! tested: editing a row changes its test, and `every_row_has_a_test_and_every_test_a_row`
//! fails when a row lacks a test or a test lacks a row. Each test provides only the bad
//! input; the rows' tests are in this folder's modules, one per group of rows. Many more
//! cases of the same kinds are in `tests/bad_input/`.

use std::collections::BTreeSet;
use std::fmt::Debug;

use gpuarrays::prelude::*;

mod devices_and_types;
mod environment;
mod freed;
mod operations;
mod shapes;
mod sizes_and_ffts;
mod statistics;

const TABLE: &str = include_str!("../../docs/bad-inputs.md");

/// The files whose `#[test]`s are the rows (this one holds the harness).
const SOURCES: [&str; 7] = [
    include_str!("shapes.rs"),
    include_str!("sizes_and_ffts.rs"),
    include_str!("freed.rs"),
    include_str!("devices_and_types.rs"),
    include_str!("operations.rs"),
    include_str!("environment.rs"),
    include_str!("statistics.rs"),
];

/// One row of the table.
#[derive(Debug)]
struct Row {
    test: String,
    error: String,
    needles: Vec<String>,
}

/// The backticked fragments of a cell.
fn fragments(cell: &str) -> Vec<String> {
    cell.split('`')
        .enumerate()
        .filter(|(k, _)| k % 2 == 1)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Every row of every table in the document: lines that start with "| `".
fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 4, "a row needs 4 cells: {line}");
            let test = fragments(cells[0]).remove(0);
            let error = match fragments(cells[2]).first() {
                Some(variant) if cells[2].trim().starts_with('`') => variant.clone(),
                _ => cells[2].trim().to_string(),
            };
            Row {
                test,
                error,
                needles: fragments(cells[3]),
            }
        })
        .collect()
}

fn row(test: &str) -> Row {
    rows()
        .into_iter()
        .find(|r| r.test == test)
        .unwrap_or_else(|| panic!("docs/bad-inputs.md has no row `{test}`"))
}

/// Checks an error's variant name and message against row `test`.
#[track_caller]
fn check_error(test: &str, variant: String, message: String) {
    let row = row(test);
    assert_eq!(variant, row.error, "{test}: wrong error ({message})");
    for needle in &row.needles {
        assert!(
            message.contains(needle.as_str()),
            "{test}: message {message:?} lacks {needle:?}"
        );
    }
}

/// Row `test` must be a core error: `r` fails with its variant and message words.
#[track_caller]
fn expect<T: Debug>(test: &str, r: Result<T>) {
    match r {
        Ok(v) => panic!("{test}: expected an error, got Ok({v:?})"),
        Err(e) => check_error(test, format!("Error::{}", e.kind().name()), e.to_string()),
    }
}

/// Row `test` describes accepted input ("none: ..."); its test checks the behaviour.
#[track_caller]
fn expect_handled(test: &str) {
    let row = row(test);
    assert!(
        row.error.starts_with("none:"),
        "{test}: the table gives an error ({}), the test expects none",
        row.error
    );
}

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

fn iota(b: &CpuBackend, dims: &[usize]) -> Array<f32, CpuBackend> {
    let n: usize = dims.iter().product();
    Array::from_slice(b, dims, &(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap()
}

#[test]
fn every_row_has_a_test_and_every_test_a_row() {
    let documented: BTreeSet<String> = rows().into_iter().map(|r| r.test).collect();
    assert!(documented.len() >= 40, "only {} rows", documented.len());
    // A row's test is the `fn` on the line after a `#[test]`.
    let tested: BTreeSet<String> = SOURCES
        .iter()
        .flat_map(|source| {
            let lines: Vec<&str> = source.lines().collect();
            lines
                .windows(2)
                .filter(|w| w[0] == "#[test]")
                .filter_map(|w| w[1].strip_prefix("fn ")?.split('(').next())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<_> = documented.difference(&tested).collect();
    let undocumented: Vec<_> = tested.difference(&documented).collect();
    assert!(missing.is_empty(), "rows without a test: {missing:?}");
    assert!(
        undocumented.is_empty(),
        "tests without a row: {undocumented:?}"
    );
    let all_rows = rows().len();
    assert_eq!(all_rows, documented.len(), "two rows share a test name");
}
