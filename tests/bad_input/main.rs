//! Every error path of the public API returns its typed error (never a panic), and the
//! message says what was wrong and, where there is a remedy, what to do.

use std::fmt::Debug;

use gpuarrays::conformance::Restricted;
use gpuarrays::kernel::Distribution;
use gpuarrays::prelude::*;
use gpuarrays::{ErrorKind, OpKind, Scalar};

/// Asserts that `r` failed with the variant `kind` and a message containing every needle.
#[track_caller]
fn fails<T: Debug>(r: Result<T>, kind: ErrorKind, needles: &[&str]) -> Error {
    let e = match r {
        Ok(v) => panic!("expected {kind}, got Ok({v:?})"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), kind, "wrong variant: {e:?}");
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} lacks {n:?}");
    }
    e
}

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

fn iota(b: &CpuBackend, dims: &[usize]) -> Array<f32, CpuBackend> {
    let n: usize = dims.iter().product();
    Array::from_slice(b, dims, &(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap()
}

mod axes;
mod devices_and_arguments;
mod freed;
mod shapes;
mod types;
