//! Order statistics and the sampling loops shared by every timing program of the workspace:
//! the facade's benches (`benches/`), `gpuarrays-hip`'s and `gpuarrays-wgpu`'s benches, and
//! `gpuarrays bench` (`gpuarrays-cli/src/bench/`). Not part of the library's API (hidden
//! from the documentation, may change at any time).
//!
//! Why here: the programs that time things belong to four packages, and the one package all
//! of them already depend on is this one (the facade re-exports it as
//! `gpuarrays::bench_stats`). A file included by `#[path]` from the root's `benches/common/`
//! would lie outside the package of a backend crate and of the CLI, so their published
//! packages (`cargo package` copies only the package's own files) would not build; and a
//! benches-only helper crate could not serve the CLI's `bench` command, whose statistics
//! must be the same as the benches'. The module is small, safe and dependency-free, so it
//! costs the library nothing.
//!
//! Why one implementation: the recorded figures in `docs/results/` are medians from several
//! programs, and comparing them is only honest if "median" means the same thing in each. It
//! is the **upper median** (for an even count, the larger of the two middle values), i.e.
//! the nearest-rank quantile at index `round((n - 1) · p)`: an observed sample, never an
//! average of two.

use std::time::Instant;

/// The `p` quantile (0 ≤ `p` ≤ 1) of `sorted`, which must be in ascending order: the sample
/// at index `round((len - 1) · p)`, rounding halves up. NaN when `sorted` is empty.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p.clamp(0.0, 1.0)).round() as usize;
    sorted[i]
}

/// Sorts `samples` ascending in `f64::total_cmp`'s order (a NaN with the sign bit set first,
/// any other NaN last).
pub fn sort(samples: &mut [f64]) {
    samples.sort_by(f64::total_cmp);
}

/// The median of `samples` (the upper one of an even count); NaN when empty.
pub fn median(mut samples: Vec<f64>) -> f64 {
    sort(&mut samples);
    quantile(&samples, 0.5)
}

/// Median, spread and extremes of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// 25th percentile.
    pub q1: f64,
    /// 75th percentile.
    pub q3: f64,
    /// 90th percentile.
    pub p90: f64,
    /// Number of samples.
    pub samples: usize,
}

impl Summary {
    /// The statistics of `samples`; every figure is NaN when there are none.
    pub fn of(mut samples: Vec<f64>) -> Summary {
        sort(&mut samples);
        Summary {
            median: quantile(&samples, 0.5),
            min: quantile(&samples, 0.0),
            max: quantile(&samples, 1.0),
            q1: quantile(&samples, 0.25),
            q3: quantile(&samples, 0.75),
            p90: quantile(&samples, 0.9),
            samples: samples.len(),
        }
    }

    /// [`relative_spread`] of this sample.
    pub fn relative_spread(&self) -> f64 {
        relative_spread(self.q1, self.q3, self.median)
    }
}

/// Interquartile range `q3 - q1` relative to the median (0 when the median is not
/// positive): how noisy a sample is.
pub fn relative_spread(q1: f64, q3: f64, median: f64) -> f64 {
    if median > 0.0 {
        (q3 - q1) / median
    } else {
        0.0
    }
}

/// Where the wait for the device falls in one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Inside the timed interval: `calls` calls, then the wait, then the clock stops. What
    /// the work costs end to end (throughput); the method PyTorch's and CuPy's scripts in
    /// `benches/` use too.
    Inside,
    /// After the clock stops: what the calling thread spends enqueueing `calls` calls; the
    /// wait only keeps the device's queue from filling up between samples.
    Outside,
}

/// How one measurement is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Untimed calls first (compiling kernels, creating plans, filling pools), then a wait.
    pub warmup: usize,
    /// Samples (repetitions).
    pub samples: usize,
    /// Back-to-back calls per sample; each sample is its time divided by this.
    pub calls: usize,
    pub wait: Wait,
}

/// Seconds per call of `run`, one entry per sample of `plan`, timed on the wall clock;
/// `wait` waits for the device (a no-op for work that is synchronous). Stops at the first
/// error.
pub fn try_sample<E>(
    plan: Plan,
    mut run: impl FnMut() -> Result<(), E>,
    mut wait: impl FnMut() -> Result<(), E>,
) -> Result<Vec<f64>, E> {
    let calls = plan.calls.max(1);
    for _ in 0..plan.warmup {
        run()?;
    }
    wait()?;
    let mut per_call = Vec::with_capacity(plan.samples);
    for _ in 0..plan.samples {
        let t0 = Instant::now();
        for _ in 0..calls {
            run()?;
        }
        if plan.wait == Wait::Inside {
            wait()?;
        }
        per_call.push(t0.elapsed().as_secs_f64() / calls as f64);
        if plan.wait == Wait::Outside {
            wait()?;
        }
    }
    Ok(per_call)
}

/// [`try_sample`] for calls that cannot fail (benchmark programs that panic instead).
pub fn sample(plan: Plan, mut run: impl FnMut(), mut wait: impl FnMut()) -> Vec<f64> {
    let ok: Result<_, std::convert::Infallible> = try_sample(
        plan,
        || {
            run();
            Ok(())
        },
        || {
            wait();
            Ok(())
        },
    );
    match ok {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// How several paths are timed in turns by [`interleaved`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rounds {
    /// Rounds in all; in each, every path runs `calls` times.
    pub rounds: usize,
    /// The first rounds, which are not recorded (compiling kernels, filling caches).
    pub warm_rounds: usize,
    /// Back-to-back calls of one path per round.
    pub calls: usize,
}

/// The samples of one path of [`interleaved`], in seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathSamples {
    /// Each recorded call, timed on its own (includes the clock's own cost).
    pub per_call: Vec<f64>,
    /// Each recorded round: the time of its `calls` calls divided by `calls`.
    pub per_batch: Vec<f64>,
}

/// Times `paths` in turns: in each round every path runs `calls` times back to back, each
/// call timed on its own and the batch as a whole, then `wait` runs (outside the timings)
/// so the device's queue never fills. Each round starts with the next path, so none always
/// runs first, and a change of machine load hits every path alike. Host-time measurements
/// of small operations use this: their paths differ by fractions of a microsecond, less
/// than the drift between two separate measurements.
pub fn interleaved(
    plan: Rounds,
    wait: &mut dyn FnMut(),
    paths: &mut [&mut dyn FnMut()],
) -> Vec<PathSamples> {
    let n = paths.len();
    let mut out = vec![PathSamples::default(); n];
    for round in 0..plan.rounds {
        let record = round >= plan.warm_rounds;
        for p in (0..n).map(|i| (i + round) % n) {
            let path = &mut paths[p];
            let t_batch = Instant::now();
            for _ in 0..plan.calls {
                let t0 = Instant::now();
                path();
                if record {
                    out[p].per_call.push(t0.elapsed().as_secs_f64());
                }
            }
            if record {
                let batch = t_batch.elapsed().as_secs_f64() / plan.calls.max(1) as f64;
                out[p].per_batch.push(batch);
            }
            wait();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_upper_middle_sample() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(vec![0.25]), 0.25);
        assert!(median(Vec::new()).is_nan());
    }

    #[test]
    fn summary_is_order_statistics() {
        let s = Summary::of(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 5.0)
        );
        assert_eq!(s.p90, 5.0);
        assert_eq!(s.samples, 5);
        assert!((s.relative_spread() - 2.0 / 3.0).abs() < 1e-12);
        assert!(Summary::of(Vec::new()).median.is_nan());
    }

    #[test]
    fn sampling_counts_calls_and_waits() {
        let (mut calls, mut waits) = (0, 0);
        let plan = Plan {
            warmup: 2,
            samples: 3,
            calls: 4,
            wait: Wait::Inside,
        };
        let per_call = sample(plan, || calls += 1, || waits += 1);
        assert_eq!((per_call.len(), calls, waits), (3, 2 + 3 * 4, 1 + 3));
        let err: Result<Vec<f64>, &str> = try_sample(plan, || Err("boom"), || Ok(()));
        assert_eq!(err, Err("boom"));
    }

    #[test]
    fn interleaved_rounds_record_after_the_warm_up() {
        let (mut a, mut b, mut waits) = (0, 0, 0);
        let plan = Rounds {
            rounds: 5,
            warm_rounds: 2,
            calls: 3,
        };
        let s = interleaved(
            plan,
            &mut || waits += 1,
            &mut [&mut || a += 1, &mut || b += 1],
        );
        assert_eq!((a, b, waits), (15, 15, 10));
        assert_eq!((s[0].per_call.len(), s[0].per_batch.len()), (9, 3));
        assert_eq!((s[1].per_call.len(), s[1].per_batch.len()), (9, 3));
    }
}
