//! How a suite run is configured: seed, size, filter and progress reporting.

use std::fmt;
use std::sync::Arc;

use gpuarrays_core::DType;

/// Progress of a run, reported after each row (operation × element type).
#[derive(Debug, Clone)]
pub struct Progress<'a> {
    /// The backend under test.
    pub backend: &'a str,
    /// Rows finished so far, and in all.
    pub done: usize,
    pub total: usize,
    /// The row just finished.
    pub op: &'a str,
    pub dtype: DType,
    /// Whether it passed.
    pub ok: bool,
}

/// A callback receiving [`Progress`].
pub type ProgressFn = Arc<dyn Fn(&Progress<'_>) + Send + Sync>;

/// Configuration of a suite run.
#[derive(Clone)]
pub struct SuiteConfig {
    /// Every case's inputs derive from this seed, the case's row and its index in the row,
    /// so a failing case replays with the same seed and a `filter` naming its row.
    pub seed: u64,
    /// Small shapes only (no 2^20-element arrays): for CI and debug builds.
    pub quick: bool,
    /// Runs only rows whose "op/dtype" key contains this text (e.g. "sum", "add/f32").
    pub filter: Option<String>,
    /// Called after each row.
    pub progress: Option<ProgressFn>,
}

impl SuiteConfig {
    /// The default seed.
    pub const DEFAULT_SEED: u64 = 0x6770_7561_7272_6179;

    /// Quick mode with the default seed.
    pub fn quick() -> Self {
        SuiteConfig {
            quick: true,
            ..Self::default()
        }
    }

    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    pub fn with_filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }

    pub fn with_progress(mut self, f: impl Fn(&Progress<'_>) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// Whether the row "op/dtype" is selected by the filter.
    pub fn selects(&self, key: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| key.contains(f))
    }
}

impl Default for SuiteConfig {
    fn default() -> Self {
        SuiteConfig {
            seed: Self::DEFAULT_SEED,
            quick: false,
            filter: None,
            progress: None,
        }
    }
}

impl fmt::Debug for SuiteConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SuiteConfig")
            .field("seed", &format_args!("{:#x}", self.seed))
            .field("quick", &self.quick)
            .field("filter", &self.filter)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}
