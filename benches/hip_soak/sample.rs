//! The soak's samples: process RSS, device memory (free on the device; in use and cached
//! in the memory pool) and the pooled streams (alive, idle, created), one CSV row per
//! sample, and a summary of how much each grew after the warm-up.

use gpuarrays::hip::HipBackend;
use std::io::Write;
use std::time::Instant;

/// Columns of the CSV.
const HEADER: &str = "threads,seconds,rss_bytes,device_free_bytes,pool_in_use_bytes,pool_cached_bytes,streams_alive,streams_idle,streams_created";

/// One sample.
#[derive(Clone, Copy, Debug)]
struct Row {
    threads: usize,
    rss: u64,
    device_free: u64,
    in_use: u64,
    cached: u64,
    alive: usize,
    idle: usize,
    created: usize,
}

pub struct Csv {
    file: std::io::BufWriter<std::fs::File>,
    rows: Vec<Row>,
}

impl Csv {
    pub fn create(path: &str) -> Result<Csv, String> {
        let f = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
        let mut file = std::io::BufWriter::new(f);
        writeln!(file, "{HEADER}").map_err(|e| format!("{path}: {e}"))?;
        Ok(Csv {
            file,
            rows: Vec::new(),
        })
    }

    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Sample now, after `threads` threads finished.
    pub fn row(&mut self, b: &HipBackend, threads: usize, start: Instant) -> Result<(), String> {
        let state = b.device_state();
        let mem = state
            .platform()
            .mem_info(state.id())
            .map_err(|e| format!("device memory: {e}"))?;
        let pool = state.memory().stats();
        let (mut alive, mut idle, mut created) = (0, 0, 0);
        for p in state.pools() {
            let s = p.stats();
            alive += s.alive;
            idle += s.idle;
            created += s.created;
        }
        let r = Row {
            threads,
            rss: rss_bytes(),
            device_free: mem.free as u64,
            in_use: pool.in_use_bytes as u64,
            cached: pool.cached_bytes as u64,
            alive,
            idle,
            created,
        };
        writeln!(
            self.file,
            "{},{:.3},{},{},{},{},{},{},{}",
            r.threads,
            start.elapsed().as_secs_f64(),
            r.rss,
            r.device_free,
            r.in_use,
            r.cached,
            r.alive,
            r.idle,
            r.created
        )
        .and_then(|()| self.file.flush())
        .map_err(|e| format!("writing the CSV: {e}"))?;
        self.rows.push(r);
        Ok(())
    }

    /// Growth from the sample at 10% of the run (after the warm-up) to the last one.
    pub fn summary(&self) -> String {
        let (Some(first), Some(last)) = (self.rows.get(self.rows.len() / 10), self.rows.last())
        else {
            return "no samples".into();
        };
        let peak_alive = self.rows.iter().map(|r| r.alive).max().unwrap_or(0);
        format!(
            "growth from {} to {} threads: rss {:+} KiB, device free {:+} KiB, pool in use {:+} KiB, \
             pool cached {:+} KiB, streams alive {} -> {} (peak {peak_alive}), streams created {} -> {}",
            first.threads,
            last.threads,
            (last.rss as i64 - first.rss as i64) / 1024,
            (last.device_free as i64 - first.device_free as i64) / 1024,
            (last.in_use as i64 - first.in_use as i64) / 1024,
            (last.cached as i64 - first.cached as i64) / 1024,
            first.alive,
            last.alive,
            first.created,
            last.created
        )
    }
}

/// Resident set size from `/proc/self/statm` (0 where there is none).
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
