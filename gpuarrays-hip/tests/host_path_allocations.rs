//! Pins the heap allocations of the small-op host path: one `Expr::eval_into` of
//! `x * 1.5 + y` on 1024 f32, and one `Backend::elementwise` of the same program, on the
//! platform test double, counted by a counting global allocator (this thread's calls only).
//!
//! Measured 2026-12-01 (docs/results/hip-host-path.md): 43 and 3 allocation calls
//! per call before the host path was reworked; 1 and 0 after. The one left in the user API then was
//! the `Vec` of operands of `ElementwiseArgs`; the description is borrowed now (its operand
//! list is on the caller's stack), so both paths measure 0. Limits: half an allocation per
//! call, so one new allocation per call fails, and a change that needs it must say so here.

#[path = "../benches/common/host_path_probe.rs"]
mod host_path_probe;

use host_path_probe::*;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Allocation calls per `Expr::eval_into` of the tiny op (measured: 0).
const USER_API_LIMIT: f64 = 0.5;
/// Allocation calls per `Backend::elementwise` of the tiny op (measured: 0).
const BACKEND_LIMIT: f64 = 0.5;
const CALLS: u64 = 1000;

#[test]
fn the_small_op_host_path_allocates_at_most_its_pinned_count() {
    // The counter counts: one boxed value is one allocation call on this thread.
    let before = allocations();
    let boxed = std::hint::black_box(Box::new(7u64));
    assert_eq!(allocations() - before, 1, "the counting allocator counts");
    drop(boxed);

    let mut s = Setup::new();
    let program = axpy_program();
    let buffers = s.kernel_buffers();
    let [xb, yb, zb] = &buffers;
    let operands = axpy_args(SMALL, [xb, yb, zb], 1.5);
    let args = operands.args();
    let kernel = allocations_per_call(CALLS, || backend_call(&s.backend, &program, &args));
    let (x, y, z) = (&s.x, &s.y, &mut s.z);
    let user = allocations_per_call(CALLS, || user_api_call(x, y, z));
    s.release(buffers);
    println!("allocation calls per call: Expr::eval_into {user}, Backend::elementwise {kernel}");
    assert!(
        user <= USER_API_LIMIT,
        "Expr::eval_into of a tiny op made {user} allocation calls per call (limit {USER_API_LIMIT})"
    );
    assert!(
        kernel <= BACKEND_LIMIT,
        "Backend::elementwise of a tiny op made {kernel} allocation calls per call (limit {BACKEND_LIMIT})"
    );
}
