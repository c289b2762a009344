//! Pins what choosing the backend at run time costs in heap allocations: a tiny op
//! (`x * 1.5 + y` on 1024 f32) through `AnyBackend` makes no more allocation calls than the
//! same op on the backend it wraps, through the user API (`Expr::eval_into`) and through
//! `Backend::elementwise`. Counted on this thread by a counting global allocator.
//!
//! `AnyBackend` re-types each elementwise description to the wrapped backend's buffer type
//! (`src/any_backend/retype.rs`). Until 2026-12-02 that made one allocation per call (the
//! operand list); its allocation is now kept per thread like the other vectors, so the
//! difference is 0. Limit: half an allocation per call, so one new allocation per call
//! through the enum fails here.

#[path = "../benches/common/axpy_program.rs"]
mod axpy_program;
#[path = "../benches/common/counting_alloc.rs"]
mod counting_alloc;

use axpy_program::{axpy_args, axpy_program};
use counting_alloc::{CountingAlloc, allocations, allocations_per_call};
use gpuarrays::prelude::*;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const N: usize = 1024;
const CALLS: u64 = 1000;
/// Allocation calls per call that the enum may add (measured: 0).
const ENUM_LIMIT: f64 = 0.5;

/// Allocation calls per call of the tiny op on `backend`: (user API, `Backend::elementwise`).
fn per_call<B: Backend>(backend: &B) -> (f64, f64) {
    let x = Array::<f32, _>::random_uniform(backend, &[N], 4).expect("x");
    let y = Array::<f32, _>::random_uniform(backend, &[N], 5).expect("y");
    let mut z = Array::<f32, _>::zeros(backend, &[N]).expect("z");
    let user = allocations_per_call(CALLS, || {
        (&x * 1.5f32 + &y).eval_into(&mut z).expect("eval_into");
    });
    let program = axpy_program();
    let (xb, yb, zb) = (
        x.raw().buffer().expect("x"),
        y.raw().buffer().expect("y"),
        z.raw().buffer().expect("z"),
    );
    let operands = axpy_args(N, [&*xb, &*yb, &*zb], 1.5);
    let args = operands.args();
    let kernel = allocations_per_call(CALLS, || {
        backend.elementwise(&program, &args).expect("elementwise");
    });
    (user, kernel)
}

#[test]
fn any_backend_adds_no_allocation_to_a_tiny_op() {
    // The counter counts: one boxed value is one allocation call on this thread.
    let before = allocations();
    let boxed = std::hint::black_box(Box::new(7u64));
    assert_eq!(allocations() - before, 1, "the counting allocator counts");
    drop(boxed);

    // One worker thread: the op runs on this thread, so every allocation it makes is
    // counted (and the same ones on both paths).
    let cpu = CpuBackend::with_threads(1).expect("a one-thread CPU backend");
    let any = AnyBackend::from(cpu.clone());
    let (direct_user, direct_kernel) = per_call(&cpu);
    let (any_user, any_kernel) = per_call(&any);
    println!(
        "allocation calls per call: Expr::eval_into {direct_user} direct, {any_user} AnyBackend; \
         Backend::elementwise {direct_kernel} direct, {any_kernel} AnyBackend"
    );
    assert!(
        any_kernel - direct_kernel <= ENUM_LIMIT,
        "Backend::elementwise through AnyBackend made {any_kernel} allocation calls per call, \
         the CPU backend itself {direct_kernel} (limit: +{ENUM_LIMIT})"
    );
    assert!(
        any_user - direct_user <= ENUM_LIMIT,
        "Expr::eval_into through AnyBackend made {any_user} allocation calls per call, the \
         CPU backend itself {direct_user} (limit: +{ENUM_LIMIT})"
    );
}
