//! gpuarrays' operations as profiler ranges: `RangeLayer` pushes a range for each of core's
//! spans and pops it at exit. A recording sink checks names, nesting and balance for a
//! composed operation (`argsort`: keys, sort, read-back) and a plain one; the NVTX sink runs
//! the same way without a profiler attached (where its calls are no-ops).

use std::ffi::CStr;
use std::sync::{Arc, Mutex};

use gpuarrays::prelude::*;
use gpuarrays::profiling::RangeLayer;
use gpuarrays::profiling::RangeSink;
use tracing_subscriber::layer::SubscriberExt;

/// Records "+label" for a push and "-" for a pop.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<String>>>);

impl RangeSink for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn push(&self, label: &CStr) {
        self.0
            .lock()
            .unwrap()
            .push(format!("+{}", label.to_string_lossy()));
    }
    fn pop(&self) {
        self.0.lock().unwrap().push("-".into());
    }
}

fn recorded(f: impl FnOnce()) -> Vec<String> {
    let rec = Recorder::default();
    let layer = RangeLayer::with_sinks(vec![Box::new(rec.clone())]);
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, f);
    rec.0.lock().unwrap().clone()
}

/// The pushes and pops nest: the depth never goes below zero and ends at zero.
fn balanced(events: &[String]) -> bool {
    let mut depth = 0i64;
    for e in events {
        depth += if e.starts_with('+') { 1 } else { -1 };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[test]
fn argsort_is_one_range_holding_its_kernels() {
    let cpu = CpuBackend::new();
    let x = Array::<f32, _>::from_slice(&cpu, &[5], &[3.0, 1.0, 2.0, 1.0, 0.5]).unwrap();
    let events = recorded(|| {
        let p = x.argsort(0, SortOrder::Ascending).unwrap();
        assert_eq!(p.to_vec().unwrap(), [4, 1, 3, 2, 0]);
    });
    assert!(balanced(&events), "{events:?}");
    assert_eq!(
        events.first().map(String::as_str),
        Some("+argsort"),
        "{events:?}"
    );
    let inner: Vec<&str> = events.iter().map(String::as_str).collect();
    for k in ["+elementwise u64", "+sort u64", "+elementwise i64"] {
        assert!(inner.contains(&k), "{k} missing from {events:?}");
    }
    // Everything else happens inside the argsort range: it closes last.
    let close = events.iter().rposition(|e| e == "-").unwrap();
    assert_eq!(close, events.len() - 1);
    assert!(events[1..close].iter().all(|e| e != "+argsort"));
}

#[test]
fn a_reduction_is_one_kernel_range_and_other_spans_are_left_out() {
    let cpu = CpuBackend::new();
    let x = Array::<i64, _>::from_slice(&cpu, &[3], &[1, 2, 3]).unwrap();
    let events = recorded(|| {
        let _mine = tracing::info_span!("my_step").entered();
        assert_eq!(x.sum().unwrap(), 6);
    });
    assert_eq!(events, ["+reduce i64", "-"], "{events:?}");
}

#[test]
fn all_spans_includes_the_programs_own() {
    let rec = Recorder::default();
    let layer = RangeLayer::with_sinks(vec![Box::new(rec.clone())]).all_spans();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        let _mine = tracing::info_span!("my_step", epoch = 3).entered();
    });
    assert_eq!(*rec.0.lock().unwrap(), ["+my_step 3", "-"]);
}

#[test]
fn the_profilers_sinks_run_without_a_profiler() {
    let layer = RangeLayer::new();
    assert!(layer.sink_names().contains(&"nvtx"), "{layer:?}");
    let subscriber = tracing_subscriber::registry().with(layer);
    let cpu = CpuBackend::new();
    tracing::subscriber::with_default(subscriber, || {
        let x = Array::<f32, _>::from_slice(&cpu, &[4], &[4.0, 3.0, 2.0, 1.0]).unwrap();
        assert_eq!(x.unique().unwrap().to_vec().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    });
}
