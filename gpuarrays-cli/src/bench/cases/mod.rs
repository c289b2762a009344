//! The named benchmarks. Names follow the GPU array benchmark suite our operations mirror
//! (`array/copy`, `array/reductions/reduce/Float32/dims=1`, ...), at the suite's small size
//! (a 512 × 1000 matrix of f32, and vectors of its 512,000 elements) and at 1 GiB (the
//! suite's `L` convention: `1dL`, `dims=1L`, `array/copyL`).
//!
//! Axes: the suite is written in a column-major language, so its `dims=1` reduces along
//! the contiguous axis. Our arrays are row-major; the small matrix is therefore (1000, 512)
//! here and `dims=1` is our axis 1 (contiguous), `dims=2` our axis 0.
//!
//! Every case carries `params`: the operation, element type and shapes as plain data, which
//! `benches/suite_torch.py` reads from the JSON results to run the same workload through
//! PyTorch and CuPy under the same name, so the two lists cannot drift apart.

mod array;
mod fft;
mod gemm;
mod graph;
mod half;
mod indexing;
mod inputs;
mod misc;
mod ordering;
mod views;

use gpuarrays::{AnyBackend, Result};
use serde_json::Value;

/// What one call of a case moves or computes, for throughput figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// Bytes read plus bytes written, once each.
    Bytes(f64),
    /// Floating-point operations (2·m·n·k for a real product, 8·m·n·k for a complex one).
    Flops(f64),
    /// Nothing meaningful (launch overhead, scenarios).
    None,
}

/// Which clock a case is measured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// The backend's device timer (events on HIP).
    Device,
    /// Host time per call, the device not waited for between calls (`kernel/launch`).
    Host,
    /// Wall clock around a whole multi-threaded scenario.
    Wall,
}

/// Which sizes to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizes {
    Small,
    Large,
    All,
}

impl Sizes {
    pub fn small(self) -> bool {
        self != Sizes::Large
    }
    pub fn large(self) -> bool {
        self != Sizes::Small
    }
}

/// One prepared workload: each call runs the operation once.
pub type Runner = Box<dyn FnMut() -> Result<()>>;

/// Makes a case's inputs on a backend and returns its runner.
pub type Prepare = Box<dyn Fn(&AnyBackend) -> Result<Runner>>;

/// A named benchmark.
pub struct Case {
    pub name: String,
    /// `{"op": ..., "dtype": ..., ...}` for the PyTorch/CuPy harness.
    pub params: Value,
    pub work: Work,
    pub timing: Timing,
    /// Allocates the inputs on a backend and returns the runner (setup is not timed).
    pub prepare: Prepare,
}

impl Case {
    pub fn new(
        name: impl Into<String>,
        params: Value,
        work: Work,
        prepare: impl Fn(&AnyBackend) -> Result<Runner> + 'static,
    ) -> Case {
        Case {
            name: name.into(),
            params,
            work,
            timing: Timing::Device,
            prepare: Box::new(prepare),
        }
    }

    pub fn timed_by(mut self, timing: Timing) -> Case {
        self.timing = timing;
        self
    }
}

/// Every case at `sizes`, in suite order.
pub fn all(sizes: Sizes) -> Vec<Case> {
    let mut cases = array::cases(sizes);
    cases.extend(gemm::cases(sizes));
    cases.extend(misc::cases(sizes));
    cases.extend(graph::cases(sizes));
    cases.extend(fft::cases(sizes));
    cases.extend(half::cases(sizes));
    cases
}

/// The copy row whose bandwidth the other rows' are compared with: the largest copy run.
pub const COPY_ROWS: [&str; 2] = ["array/copyL", "array/copy"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_case_says_what_to_run() {
        let cases = all(Sizes::All);
        let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate names");
        for c in &cases {
            assert!(c.params["op"].is_string(), "{} has no op", c.name);
            assert!(
                c.name.starts_with("array/")
                    || c.name.starts_with("gemm/")
                    || c.name.starts_with("kernel/")
                    || c.name.starts_with("graph/")
                    || c.name.starts_with("stream/")
                    || c.name.starts_with("fft/")
                    || c.name.starts_with("half/"),
                "{}",
                c.name
            );
        }
        for copy in COPY_ROWS {
            assert!(cases.iter().any(|c| c.name == copy), "{copy}");
        }
    }

    #[test]
    fn size_selection_splits_the_list() {
        let (small, large, every) = (all(Sizes::Small), all(Sizes::Large), all(Sizes::All));
        assert_eq!(small.len() + large.len(), every.len());
        assert!(large.iter().all(|c| c.name.ends_with('L')
            || c.name.contains("/L")
            || c.name.starts_with("gemm/")
            || c.name.starts_with("fft/")));
        assert!(small.iter().any(|c| c.name == "kernel/launch"));
        assert!(small.iter().any(|c| c.name.starts_with("fft/")));
        assert!(large.iter().filter(|c| c.name.starts_with("fft/")).count() >= 6);
    }
}
