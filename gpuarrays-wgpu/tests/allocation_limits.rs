//! Allocations of any size on wgpu: a size the device cannot hold is core's
//! `Error::OutOfMemory` with the numbers that matter (bytes requested, the buffer that
//! would be needed, `max_buffer_size`, free memory where the driver reports it), never a
//! panic (sizes above 2^63 divided by zero in the size classes) and never a backend error
//! whose message claims a request below the limit was above it.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;

use gpuarrays_core::{Array, Backend, Error, ErrorKind};
use gpuarrays_wgpu::{WgpuBackend, WgpuOptions};

fn open() -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions::default())
}

/// The request of `e`, which must be an out-of-memory error for `bytes`.
fn expect_oom(bytes: usize, r: gpuarrays_core::Result<impl std::fmt::Debug>) -> Error {
    let e = match r {
        Err(e) => e,
        Ok(b) => panic!("{bytes} bytes: granted {b:?}"),
    };
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{bytes} bytes: {e}");
    match &e {
        Error::OutOfMemory { requested, .. } => assert_eq!(*requested, Some(bytes), "{e}"),
        other => panic!("{bytes} bytes: {other}"),
    }
    e
}

/// Sizes no device holds, up to `usize::MAX`: out of memory, naming the request and the
/// limit, and saying the buffer it needs is larger than that limit.
#[test]
fn sizes_past_the_buffer_limit_are_out_of_memory() {
    let Some(g) = open() else { return };
    let max = g.limits().max_buffer_size;
    let sizes = [
        max as usize + 1,
        (max as usize).saturating_add(256),
        1usize << 40,
        (1usize << 63) - 1,
        1usize << 63,
        (1usize << 63) + 1,
        usize::MAX - 256,
        usize::MAX - 255,
        usize::MAX - 1,
        usize::MAX,
    ];
    for bytes in sizes {
        let e = expect_oom(bytes, g.alloc(bytes));
        let text = e.to_string();
        assert!(text.contains(&format!("requested {bytes} bytes")), "{text}");
        assert!(
            text.contains(&format!("at most {max} bytes")) && text.contains("max_buffer_size"),
            "{text}"
        );
    }
}

/// Near the limit the buffer is the request rounded up to 256 bytes: a request whose size
/// class would exceed `max_buffer_size` but which itself fits is granted (or fails for lack
/// of memory, not for the limit); one that does not fit names a buffer above the limit.
#[test]
fn requests_near_the_limit_are_judged_by_their_own_size() {
    let Some(g) = open() else { return };
    let max = g.limits().max_buffer_size;
    let top = (max / 256 * 256) as usize;
    match g.alloc(top) {
        Ok(b) => {
            assert!(b.capacity() >= top as u64 && b.capacity() <= max);
            g.release(b);
        }
        Err(e) => {
            let text = expect_oom(top, Err::<(), _>(e)).to_string();
            assert!(!text.contains("max_buffer_size"), "{top} bytes fit: {text}");
        }
    }
    if top < max as usize {
        let bytes = top + 1;
        let text = expect_oom(bytes, g.alloc(bytes)).to_string();
        let needed = top + 256;
        assert!(
            text.contains(&format!("needs a buffer of {needed} bytes")),
            "{text}"
        );
    }
}

/// Through the array API: an output of 2^63 + 1 u8 elements (a reduction over an empty
/// axis of a `[0, 2^63 + 1]` array) is out of memory.
#[test]
fn an_array_of_more_than_two_to_the_63_bytes_is_out_of_memory() {
    let Some(g) = open() else { return };
    let n = (1usize << 63) + 1;
    let x = Array::<u8, _>::zeros(&g, &[0, n]).expect("an empty array");
    expect_oom(n, x.sum_axis(0).map(|_| ()));
}

/// The free memory in the error is the driver's figure where it reports one (NVIDIA's
/// Vulkan driver does, through VK_EXT_memory_budget) or, on a CPU adapter (lavapipe), the
/// host's available memory: not zero on a working device. Elsewhere it is `None`, and the
/// message says it is not known.
#[test]
fn out_of_memory_reports_free_memory_where_known() {
    let Some(g) = open() else { return };
    let bytes = usize::MAX;
    let e = expect_oom(bytes, g.alloc(bytes));
    let Error::OutOfMemory { free, .. } = &e else {
        unreachable!()
    };
    match free {
        Some(f) => assert!(*f > 0, "{e}"),
        None => {
            assert!(
                g.adapter().device_type != "Cpu" || !cfg!(target_os = "linux"),
                "a CPU adapter on Linux reports the host's memory: {e}"
            );
            assert!(e.to_string().contains("free memory not known"), "{e}");
            eprintln!("this driver reports no free memory: {e}");
        }
    }
}
