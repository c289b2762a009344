//! Printing arrays as NumPy prints them: nested brackets, one column width for every
//! element, a common precision for floats, and large arrays summarised.
//!
//! `{}` prints the values NumPy's `str` way (elements separated by spaces) followed by the
//! element type, shape and device; `{:?}` prints them NumPy's `repr` way
//! (`array([...], dtype=f32, shape=[2, 3], device=...)`); `{:#?}` prints the array's
//! internals (buffer, offset) for debugging the library itself.
//!
//! An array of more than [`THRESHOLD`] elements is summarised: every axis longer than
//! `2 × EDGE` shows its first and last [`EDGE`] entries around `...`, and only the shown
//! elements are read from the device (one read per contiguous run), so printing a 10 GB
//! array costs a few small reads, not a 10 GB download. Reading can fail (a freed buffer, a
//! lost device); the error is printed in place of the values, since `fmt` cannot return it.

use std::fmt::{self, Write as _};

use crate::array::Array;
use crate::backend::Backend;
use crate::element::Element;
use crate::error::Result;
use crate::scalar_format::format_column;

/// Arrays with more elements than this are summarised (NumPy's default threshold).
pub const THRESHOLD: usize = 1000;
/// Entries shown at each end of a summarised axis (NumPy's default).
pub const EDGE: usize = 3;
/// Lines of the innermost axis wrap before this many characters (NumPy's default).
const LINE_WIDTH: usize = 75;

/// The entries of one axis that are printed, and where the `...` goes.
struct AxisShown {
    positions: Vec<usize>,
    /// Index into `positions` before which `...` is printed.
    gap: Option<usize>,
}

fn shown_positions(dims: &[usize], summarise: bool) -> Vec<AxisShown> {
    dims.iter()
        .map(|&n| {
            if summarise && n > 2 * EDGE {
                AxisShown {
                    positions: (0..EDGE).chain(n - EDGE..n).collect(),
                    gap: Some(EDGE),
                }
            } else {
                AxisShown {
                    positions: (0..n).collect(),
                    gap: None,
                }
            }
        })
        .collect()
}

/// Reads the shown elements in row-major order of the shown positions.
fn read_shown<T: Element, B: Backend>(a: &Array<T, B>, axes: &[AxisShown]) -> Result<Vec<T>> {
    let shown: usize = axes.iter().map(|ax| ax.positions.len()).product();
    if shown == a.len() {
        return a.to_vec();
    }
    let raw = a.raw();
    let size = T::DTYPE.size();
    let (last, outer) = axes
        .split_last()
        .map_or((None, &[][..]), |(l, o)| (Some(l), o));
    // Runs of consecutive positions along a unit-stride last axis: one device read each
    // (single elements along another stride).
    let strides = raw.strides();
    let last_stride = strides.last().copied().unwrap_or(1);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in last.map_or(&[][..], |l| &l.positions[..]) {
        match runs.last_mut() {
            Some((start, len)) if last_stride == 1 && *start + *len == p => *len += 1,
            _ => runs.push((p, 1)),
        }
    }
    let mut bytes = Vec::with_capacity(shown * size);
    let buf = raw.buffer()?;
    let mut index = vec![0usize; outer.len()];
    loop {
        // Buffer position of the row start for the current outer indices.
        let mut row = raw.offset() as isize;
        for (k, ax) in outer.iter().enumerate() {
            row += ax.positions[index[k]] as isize * strides[k];
        }
        for &(start, len) in &runs {
            let at = bytes.len();
            bytes.resize(at + len * size, 0);
            let byte_offset = (row + start as isize * last_stride) as usize * size;
            crate::graph::dispatch::read(raw.backend(), &buf, byte_offset, &mut bytes[at..])?;
        }
        // Next outer index, odometer-style; done after the last.
        let mut k = outer.len();
        loop {
            if k == 0 {
                drop(buf);
                return T::from_bytes(&bytes);
            }
            k -= 1;
            index[k] += 1;
            if index[k] < outer[k].positions.len() {
                break;
            }
            index[k] = 0;
        }
    }
}

/// The nested-bracket text of `cells` (row-major over the shown positions), each already
/// padded to one width. `indent` is the column of the outermost `[`.
fn write_nested(
    out: &mut String,
    cells: &[String],
    axes: &[AxisShown],
    indent: usize,
    separator: &str,
) {
    if axes.is_empty() {
        if let Some(c) = cells.first() {
            out.push_str(c.trim_start());
        }
        return;
    }
    out.push('[');
    let ax = &axes[0];
    let block = cells.len() / ax.positions.len().max(1);
    let rest = &axes[1..];
    let item_sep = separator.trim_end();
    if rest.is_empty() {
        // The innermost axis: elements on lines of at most LINE_WIDTH characters.
        let mut column = indent + 1;
        let mut started = false;
        for (i, cell) in cells.iter().enumerate() {
            let piece: &str = if ax.gap == Some(i) { "..." } else { "" };
            for text in [piece, cell.as_str()] {
                if text.is_empty() {
                    continue;
                }
                if std::mem::replace(&mut started, true) {
                    out.push_str(item_sep);
                    column += item_sep.len();
                    if column + 1 + text.len() + 1 > LINE_WIDTH {
                        out.push('\n');
                        out.extend(std::iter::repeat_n(' ', indent + 1));
                        column = indent + 1;
                    } else if separator.ends_with(' ') {
                        out.push(' ');
                        column += 1;
                    }
                }
                out.push_str(text);
                column += text.len();
            }
        }
    } else {
        let newlines = "\n".repeat(rest.len());
        for (i, chunk) in cells.chunks(block.max(1)).enumerate() {
            if i > 0 {
                out.push_str(item_sep);
                out.push_str(&newlines);
                out.extend(std::iter::repeat_n(' ', indent + 1));
            }
            if ax.gap == Some(i) {
                out.push_str("...");
                out.push_str(item_sep);
                out.push_str(&newlines);
                out.extend(std::iter::repeat_n(' ', indent + 1));
            }
            write_nested(out, chunk, rest, indent + 1, separator);
        }
    }
    out.push(']');
}

/// The values of `a` as nested brackets, or the error that kept them from being read.
fn values_text<T: Element, B: Backend>(a: &Array<T, B>, indent: usize, separator: &str) -> String {
    let axes = shown_positions(a.dims(), a.len() > THRESHOLD);
    let values = match read_shown(a, &axes) {
        Ok(v) => v,
        Err(e) => return format!("<unreadable: {e}>"),
    };
    let scalars: Vec<_> = values.iter().map(|v| v.to_scalar()).collect();
    let cells = format_column(&scalars);
    let mut out = String::new();
    if a.is_empty() {
        out.push_str(&"[".repeat(a.ndim().max(1)));
        out.push_str(&"]".repeat(a.ndim().max(1)));
    } else {
        write_nested(&mut out, &cells, &axes, indent, separator);
    }
    out
}

impl<T: Element, B: Backend> fmt::Display for Array<T, B> {
    /// NumPy's `str`: the values separated by spaces, then `(dtype, shape, device)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&values_text(self, 0, " "))?;
        write!(
            f,
            " ({}, {:?}, {})",
            T::DTYPE,
            self.dims(),
            self.backend().device()
        )
    }
}

impl<T: Element, B: Backend> fmt::Debug for Array<T, B> {
    /// NumPy's `repr`: `array([...], dtype=…, shape=[…], device=…)`. The alternate form
    /// (`{:#?}`) prints the internals instead: buffer reference, offset, shape, device.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return f
                .debug_struct("Array")
                .field("dtype", &T::DTYPE)
                .field("dims", &self.dims())
                .field("offset", &self.offset())
                .field("device", &self.backend().device().to_string())
                .field("data", self.data())
                .finish();
        }
        let mut text = String::from("array(");
        text.push_str(&values_text(self, "array(".len(), ", "));
        write!(
            text,
            ", dtype={}, shape={:?}, device={})",
            T::DTYPE,
            self.dims(),
            self.backend().device()
        )?;
        f.write_str(&text)
    }
}
