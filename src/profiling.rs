//! gpuarrays' operations as ranges in the vendors' profilers: Nsight Systems / Compute
//! (NVTX) and rocprof (roctx).
//!
//! Core opens a `tracing` span around every kernel-family call (`sort u64`, `gather f32`,
//! ...) and around the operations it composes of several kernels (`argsort`, `unique`,
//! `einsum`, ...). [`RangeLayer`](crate::profiling::RangeLayer) is a `tracing-subscriber` layer that pushes a profiler
//! range when such a span is entered and pops it when it is exited, so the timeline shows
//! `argsort` holding its `elementwise u64`, `sort u64` and `gather i64` calls:
//!
//! ```
//! use tracing_subscriber::layer::SubscriberExt;
//! let subscriber = tracing_subscriber::registry().with(gpuarrays::profiling::RangeLayer::new());
//! tracing::subscriber::set_global_default(subscriber).ok();
//! // ... then run under `nsys profile` (or `ncu --nvtx`, `rocprof --roctx-trace`).
//! ```
//!
//! Ranges mark when the host issued the work, as NVTX ranges always do: GPU work is
//! asynchronous, and Nsight draws the kernels it launched under the range.

use std::ffi::CString;

pub use gpuarrays_core::profiling::RangeSink;
use tracing::span::{Attributes, Id};
use tracing::{Subscriber, field};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// A `tracing-subscriber` layer that turns gpuarrays' spans (or every span, with
/// [`all_spans`](Self::all_spans)) into ranges of its sinks.
pub struct RangeLayer {
    sinks: Vec<Box<dyn RangeSink>>,
    all_spans: bool,
}

impl std::fmt::Debug for RangeLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.sinks.iter().map(|s| s.name()).collect();
        f.debug_struct("RangeLayer")
            .field("sinks", &names)
            .field("all_spans", &self.all_spans)
            .finish()
    }
}

impl Default for RangeLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl RangeLayer {
    /// Ranges for the profilers available here: NVTX (a no-op unless Nsight is attached)
    /// and, under rocprof, roctx. Without the HIP backend compiled in: no sinks.
    pub fn new() -> Self {
        #[cfg(feature = "hip")]
        let sinks = gpuarrays_hip::platform::ranges::profiler_sinks();
        #[cfg(not(feature = "hip"))]
        let sinks = Vec::new();
        Self::with_sinks(sinks)
    }

    /// Ranges for the given sinks (another profiler, or a recorder in a test).
    pub fn with_sinks(sinks: Vec<Box<dyn RangeSink>>) -> Self {
        RangeLayer {
            sinks,
            all_spans: false,
        }
    }

    /// Also the program's own spans (by default only gpuarrays' are ranges).
    pub fn all_spans(mut self) -> Self {
        self.all_spans = true;
        self
    }

    /// The sinks' names ("nvtx", "roctx").
    pub fn sink_names(&self) -> Vec<&'static str> {
        self.sinks.iter().map(|s| s.name()).collect()
    }
}

/// A span's range label, kept in the span's extensions.
struct Label(CString);

/// Collects a span's field values into its label: gpuarrays' spans are labelled by their
/// values alone (`argsort`, `sort u64`), others by their name and values.
struct Values(String);

impl field::Visit for Values {
    fn record_str(&mut self, _: &field::Field, value: &str) {
        self.push(value);
    }
    fn record_debug(&mut self, _: &field::Field, value: &dyn std::fmt::Debug) {
        self.push(&format!("{value:?}"));
    }
}

impl Values {
    fn push(&mut self, v: &str) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(v);
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for RangeLayer {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        let ours = meta.target().starts_with("gpuarrays");
        if self.sinks.is_empty() || !(ours || self.all_spans) {
            return;
        }
        let mut values = Values(if ours {
            String::new()
        } else {
            meta.name().into()
        });
        attrs.record(&mut values);
        // A NUL inside a value would end the C string early: drop it.
        let label = CString::new(values.0.replace('\0', "")).unwrap_or_default();
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(Label(label));
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(Label(label)) = span.extensions().get::<Label>()
        {
            for s in &self.sinks {
                s.push(label);
            }
        }
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && span.extensions().get::<Label>().is_some()
        {
            for s in self.sinks.iter().rev() {
                s.pop();
            }
        }
    }
}
