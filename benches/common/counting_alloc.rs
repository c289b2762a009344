//! A global allocator that counts this thread's allocation calls, for tests that pin how
//! many allocations a host path makes per call: the HIP backend's small-op path
//! (`gpuarrays-hip/tests/host_path_allocations.rs`, through `host_path_probe.rs`) and
//! `AnyBackend`'s dispatch (`tests/any_backend_allocations.rs`). Counting per thread keeps
//! other threads (a pool's workers, the test harness) out of the figure.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Allocation calls (alloc, alloc_zeroed, realloc) made by this thread.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting this thread's allocation calls.
pub struct CountingAlloc;

fn count_one() {
    // `try_with`: the counter may be gone while the thread exits; a const-initialised Cell
    // has no destructor and never allocates, so this cannot recurse.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: every method forwards to `System` with the same arguments, so its contract holds;
// the counter is a thread-local Cell that neither allocates nor unwinds.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded from the caller.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// This thread's allocation calls so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// Allocation calls per call of `f`, over `calls` calls (after one warm-up call).
pub fn allocations_per_call(calls: u64, mut f: impl FnMut()) -> f64 {
    f();
    let before = allocations();
    for _ in 0..calls {
        f();
    }
    (allocations() - before) as f64 / calls as f64
}
