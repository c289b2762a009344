//! Host cost of a tiny fused op (`a*x + y`, 1024 f32) on the platform test double, through
//! the user API (`Expr::eval_into`) and through `Backend::elementwise`: allocation calls and
//! wall time per call. The GPU machine's figures come from `bench-hip_kernels` (host section);
//! this program measures the same two paths where no GPU exists, with repeatable counts.
//!
//! ```text
//! cargo bench -p gpuarrays-hip --bench host_path                 # both paths: allocations, ns
//! # instructions per call (repeatable): only the measured function is counted
//! valgrind --tool=callgrind --toggle-collect='*host_path_probe::user_api_call*' \
//!     target/release/deps/host_path-<hash> eval_into 2000
//! valgrind --tool=callgrind --toggle-collect='*host_path_probe::backend_call*' \
//!     target/release/deps/host_path-<hash> elementwise 2000
//! ```
//! Divide callgrind's total `Ir` by the call count (2000 plus the one warm-up call; the
//! first call, which compiles the kernel, runs before counting starts).

#[path = "common/host_path_probe.rs"]
mod host_path_probe;

use gpuarrays_core::Backend;
use gpuarrays_core::bench_stats::{Plan, Wait, median, sample};
use host_path_probe::*;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const BATCH: usize = 1000;
const BATCHES: usize = 60;

/// Median over batches of (time of `BATCH` calls) / `BATCH`, in ns; the device is
/// synchronised between batches.
fn ns_per_call(backend: &impl Backend, f: impl FnMut()) -> f64 {
    let plan = Plan {
        warmup: 0,
        samples: BATCHES,
        calls: BATCH,
        wait: Wait::Outside,
    };
    median(sample(plan, f, || backend.synchronize().expect("sync"))) * 1e9
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut s = Setup::new();
    let program = axpy_program();
    // The kernel-level path has buffers of its own, as a backend caller would.
    let buffers = s.kernel_buffers();
    let [xb, yb, zb] = &buffers;
    let kernel_operands = axpy_args(SMALL, [xb, yb, zb], 1.5);
    let kernel_args = kernel_operands.args();
    let (x, y, z) = (&s.x, &s.y, &mut s.z);
    // Callgrind mode: one path, `calls` times, nothing else after the warm-up.
    if let [path, calls] = args.as_slice() {
        let calls: usize = calls.parse().expect("a call count");
        backend_call(&s.backend, &program, &kernel_args);
        user_api_call(x, y, z);
        s.backend.synchronize().expect("sync");
        for _ in 0..calls {
            match path.as_str() {
                "eval_into" => user_api_call(x, y, z),
                "elementwise" => backend_call(&s.backend, &program, &kernel_args),
                other => panic!("unknown path {other}: eval_into or elementwise"),
            }
        }
        s.release(buffers);
        return;
    }
    let user_allocs = allocations_per_call(10_000, || user_api_call(x, y, z));
    let kernel_allocs =
        allocations_per_call(10_000, || backend_call(&s.backend, &program, &kernel_args));
    // Alternate the two paths in rounds so machine load hits both alike.
    let (mut user_ns, mut kernel_ns) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        user_ns.push(ns_per_call(&s.backend, || user_api_call(x, y, z)));
        kernel_ns.push(ns_per_call(&s.backend, || {
            backend_call(&s.backend, &program, &kernel_args)
        }));
    }
    println!("host path of a tiny fused op (a*x+y, {SMALL} f32) on the platform test double:");
    println!(
        "  Expr::eval_into (user API)   {user_allocs:>6.2} allocations/call  {:>7.0} ns/call",
        median(user_ns)
    );
    println!(
        "  Backend::elementwise         {kernel_allocs:>6.2} allocations/call  {:>7.0} ns/call",
        median(kernel_ns)
    );
    s.release(buffers);
}
