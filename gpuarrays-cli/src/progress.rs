//! Progress of a suite run on stderr: a rewritten line on a terminal, a line per tenth
//! otherwise (so logs stay short).

use std::io::{IsTerminal, Write};
use std::sync::Arc;

use gpuarrays::conformance::{Progress, ProgressFn};

/// A progress callback writing to stderr.
pub fn stderr_progress() -> ProgressFn {
    let tty = std::io::stderr().is_terminal();
    Arc::new(move |p: &Progress<'_>| {
        let mut err = std::io::stderr().lock();
        let line = format!(
            "[{}] {}/{} rows, last {}/{}{}",
            p.backend,
            p.done,
            p.total,
            p.op,
            p.dtype,
            if p.ok { "" } else { " FAILED" }
        );
        if tty {
            let _ = write!(err, "\r\x1b[2K{line}");
            if p.done == p.total {
                let _ = writeln!(err);
            }
        } else {
            let step = (p.total / 10).max(1);
            if p.done % step == 0 || p.done == p.total || !p.ok {
                let _ = writeln!(err, "{line}");
            }
        }
    })
}
