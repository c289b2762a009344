//! Running one benchmark: warm-up, choosing how many calls one sample times, the samples,
//! and their statistics (median and spread). The statistics and the host-time sampling loop
//! are `gpuarrays::bench_stats`, the ones every bench program of the workspace uses, so a
//! median here means what it means in `docs/results/`.

use gpuarrays::Result;
use gpuarrays::bench_stats::{self, Summary, Wait};

use super::timer::DeviceTimer;

/// How long one sample should take at least: long enough that the timer's resolution and the
/// two records' own cost (a few µs) vanish, short enough to keep the suite quick.
pub const TARGET_SAMPLE_SECONDS: f64 = 2e-3;
/// Most calls one sample may time.
pub const MAX_CALLS_PER_SAMPLE: usize = 2000;

/// How many samples and warm-up calls.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub samples: usize,
    pub warmup: usize,
}

/// Median and spread of a row's samples, in seconds per call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// 25th and 75th percentiles.
    pub q1: f64,
    pub q3: f64,
    pub samples: usize,
    pub calls_per_sample: usize,
}

impl Stats {
    /// Statistics of `per_call` seconds (at least one sample).
    pub fn of(per_call: Vec<f64>, calls_per_sample: usize) -> Stats {
        let s = Summary::of(per_call);
        Stats {
            median: s.median,
            min: s.min,
            max: s.max,
            q1: s.q1,
            q3: s.q3,
            samples: s.samples,
            calls_per_sample,
        }
    }

    /// Interquartile range relative to the median: the row's noise.
    pub fn relative_spread(&self) -> f64 {
        bench_stats::relative_spread(self.q1, self.q3, self.median)
    }
}

/// Calls per sample so that one sample lasts about [`TARGET_SAMPLE_SECONDS`], from the time
/// of one call.
pub fn calls_per_sample(one_call: f64) -> usize {
    if one_call <= 0.0 || !one_call.is_finite() {
        return MAX_CALLS_PER_SAMPLE;
    }
    ((TARGET_SAMPLE_SECONDS / one_call).ceil() as usize).clamp(1, MAX_CALLS_PER_SAMPLE)
}

/// Device time per call of `run`: warm-up calls, one timed call to size the samples, then
/// `plan.samples` samples of `k` back-to-back calls each between the timer's two marks.
pub fn device_time(
    timer: &mut dyn DeviceTimer,
    plan: Plan,
    run: &mut dyn FnMut() -> Result<()>,
) -> Result<Stats> {
    for _ in 0..plan.warmup {
        run()?;
    }
    timer.start()?;
    run()?;
    let k = calls_per_sample(timer.stop()?);
    let mut per_call = Vec::with_capacity(plan.samples);
    for _ in 0..plan.samples.max(1) {
        timer.start()?;
        for _ in 0..k {
            run()?;
        }
        per_call.push(timer.stop()? / k as f64);
    }
    Ok(Stats::of(per_call, k))
}

/// Host time per call of `run` (what the caller's thread spends enqueueing, the device not
/// waited for between calls): samples of `k` calls on the wall clock, `sync` after each.
pub fn host_time(
    plan: Plan,
    run: &mut dyn FnMut() -> Result<()>,
    sync: &mut dyn FnMut() -> Result<()>,
) -> Result<Stats> {
    const K: usize = 100;
    let sampling = bench_stats::Plan {
        warmup: plan.warmup.max(1),
        samples: plan.samples.max(1),
        calls: K,
        wait: Wait::Outside,
    };
    let per_call = bench_stats::try_sample(sampling, run, sync)?;
    Ok(Stats::of(per_call, K))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_are_order_statistics() {
        let s = Stats::of(vec![5.0, 1.0, 3.0, 2.0, 4.0], 7);
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 5.0)
        );
        assert_eq!((s.samples, s.calls_per_sample), (5, 7));
        assert!((s.relative_spread() - 2.0 / 3.0).abs() < 1e-12);
        let one = Stats::of(vec![0.25], 1);
        assert_eq!((one.min, one.median, one.max), (0.25, 0.25, 0.25));
    }

    #[test]
    fn samples_are_sized_to_the_target() {
        assert_eq!(calls_per_sample(1.0), 1);
        assert_eq!(calls_per_sample(TARGET_SAMPLE_SECONDS / 10.0), 10);
        assert_eq!(calls_per_sample(1e-12), MAX_CALLS_PER_SAMPLE);
        assert_eq!(calls_per_sample(0.0), MAX_CALLS_PER_SAMPLE);
    }
}
