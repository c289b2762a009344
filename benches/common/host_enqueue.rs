//! Host enqueue time of a tiny fused op (`a*x + y` on 1024 f32), through the user API
//! (`Expr::eval_into`) and through `Backend::elementwise`, each on the backend itself and
//! through the runtime-chosen `AnyBackend` wrapping it: four paths, measured side by side.
//!
//! Method: rounds of 100 back-to-back calls per path, the paths taking turns (so a change of
//! machine load hits every path alike; each round starts with the next path, so none always
//! runs first), the device synchronised after each round (its queue never fills). Per call: the median of individually timed calls; per
//! batch: the median over rounds of (time of the 100 calls) / 100, which excludes the
//! timer's own cost. The first 5 rounds are warm-up (the kernel is compiled in the first).

use gpuarrays::bench_stats::{Rounds, interleaved, median};

#[path = "axpy_program.rs"]
mod axpy_program;
pub use axpy_program::{axpy_args, axpy_program};

use gpuarrays::{AnyBackend, Array, Backend};

/// Elements of the tiny op.
pub const SMALL: usize = 1024;
const ROUNDS: usize = 60;
const WARM_ROUNDS: usize = 5;
const CALLS_PER_ROUND: usize = 100;

/// Median seconds of one path.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub per_call: f64,
    pub per_batch: f64,
    /// Individually timed calls behind `per_call`.
    pub calls: usize,
}

/// Times each path as the module documentation says; `sync` waits for the device.
pub fn measure(sync: &dyn Fn(), paths: &mut [&mut dyn FnMut()]) -> Vec<Timing> {
    let rounds = Rounds {
        rounds: ROUNDS,
        warm_rounds: WARM_ROUNDS,
        calls: CALLS_PER_ROUND,
    };
    interleaved(rounds, &mut || sync(), paths)
        .into_iter()
        .map(|s| Timing {
            calls: s.per_call.len(),
            per_call: median(s.per_call),
            per_batch: median(s.per_batch),
        })
        .collect()
}

/// The four paths on `direct` and on `any` (which wraps the same device). Panics (this is a
/// benchmark program) if an operation fails.
pub fn tiny_axpy<B: Backend>(direct: &B, any: &AnyBackend) -> [(&'static str, Timing); 4] {
    let xd = Array::<f32, _>::random_uniform(direct, &[SMALL], 4).expect("x");
    let yd = Array::<f32, _>::random_uniform(direct, &[SMALL], 5).expect("y");
    let mut zd = Array::<f32, _>::zeros(direct, &[SMALL]).expect("z");
    let xa = Array::<f32, _>::random_uniform(any, &[SMALL], 4).expect("x");
    let ya = Array::<f32, _>::random_uniform(any, &[SMALL], 5).expect("y");
    let mut za = Array::<f32, _>::zeros(any, &[SMALL]).expect("z");
    let program = axpy_program();
    // Kernel level first, in a scope holding the buffer guards.
    let kernel = {
        let (xdb, ydb, zdb) = (
            xd.raw().buffer().expect("x"),
            yd.raw().buffer().expect("y"),
            zd.raw().buffer().expect("z"),
        );
        let direct_operands = axpy_args(SMALL, [&*xdb, &*ydb, &*zdb], 1.5);
        let direct_args = direct_operands.args();
        let (xab, yab, zab) = (
            xa.raw().buffer().expect("x"),
            ya.raw().buffer().expect("y"),
            za.raw().buffer().expect("z"),
        );
        let any_operands = axpy_args(SMALL, [&*xab, &*yab, &*zab], 1.5);
        let any_args = any_operands.args();
        measure(
            &|| {
                direct.synchronize().expect("sync");
                any.synchronize().expect("sync");
            },
            &mut [
                &mut || direct.elementwise(&program, &direct_args).expect("tiny"),
                &mut || any.elementwise(&program, &any_args).expect("tiny"),
            ],
        )
    };
    let user = measure(
        &|| {
            direct.synchronize().expect("sync");
            any.synchronize().expect("sync");
        },
        &mut [
            &mut || (&xd * 1.5f32 + &yd).eval_into(&mut zd).expect("tiny"),
            &mut || (&xa * 1.5f32 + &ya).eval_into(&mut za).expect("tiny"),
        ],
    );
    [
        ("Expr::eval_into (the user API), direct", user[0]),
        ("Expr::eval_into (the user API), AnyBackend", user[1]),
        ("Backend::elementwise, direct", kernel[0]),
        ("Backend::elementwise, AnyBackend", kernel[1]),
    ]
}

/// Prints the four paths and the enum's cost at each level.
pub fn print(rows: &[(&str, Timing); 4]) {
    println!(
        "host enqueue of a tiny fused op (a*x+y, {SMALL} f32), median over {} calls (per call / per {CALLS_PER_ROUND}-call batch):",
        rows[0].1.calls
    );
    for (name, t) in rows {
        println!(
            "  {name:<44} {:>7.3} / {:>7.3} µs",
            t.per_call * 1e6,
            t.per_batch * 1e6
        );
    }
    for (level, d, a) in [("Expr::eval_into", 0, 1), ("Backend::elementwise", 2, 3)] {
        let (d, a) = (rows[d].1, rows[a].1);
        println!(
            "  AnyBackend − direct, {level:<21} {:>+7.3} / {:>+7.3} µs ({:+.1} % / {:+.1} %)",
            (a.per_call - d.per_call) * 1e6,
            (a.per_batch - d.per_batch) * 1e6,
            (a.per_call / d.per_call - 1.0) * 100.0,
            (a.per_batch / d.per_batch - 1.0) * 100.0,
        );
    }
}
