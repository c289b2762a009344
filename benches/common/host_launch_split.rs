//! Where the host time of a tiny fused op goes on the HIP backend: the same `a*x + y` on
//! 1024 f32 timed at three depths in the same rounds (`host_enqueue::measure`):
//!
//! | path | what runs per call |
//! |---|---|
//! | prepared launch | the kernel's arguments packed and the driver's launch (`elementwise::run` of a launch planned once) |
//! | `Backend::elementwise` | + checks, layout planning, kernel lookup, the ordering protocol |
//! | `Expr::eval_into` | + building the expression and lowering it (the user API) |
//!
//! The first is as close to the driver's own launch cost as the backend gets: what the
//! other two add over it is ours, and the rest is the driver's (which no host-side work of
//! ours can remove).

use gpuarrays::{Array, Backend, DType, Scalar};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::elementwise::{self, EwOperand};

use super::host_enqueue::{SMALL, Timing, axpy_args, axpy_program, measure};

/// The three depths, shallowest first. Panics (a benchmark program) if an operation fails.
pub fn split(hip: &HipBackend) -> [(&'static str, Timing); 3] {
    let x = Array::<f32, _>::random_uniform(hip, &[SMALL], 4).expect("x");
    let y = Array::<f32, _>::random_uniform(hip, &[SMALL], 5).expect("y");
    let mut z = Array::<f32, _>::zeros(hip, &[SMALL]).expect("z");
    let program = axpy_program();
    let (xb, yb, zb) = (
        x.raw().buffer().expect("x"),
        y.raw().buffer().expect("y"),
        z.raw().buffer().expect("z"),
    );
    let args = axpy_args(SMALL, [&*xb, &*yb, &*zb], 1.5);
    let unit = [1isize];
    let ew = |ptr| EwOperand {
        ptr,
        dtype: DType::F32,
        strides: &unit,
    };
    let inputs = [ew(xb.ptr()), ew(yb.ptr())];
    let shape = [SMALL];
    let scalars = [Scalar::F32(1.5)];
    let dev = hip.kernels();
    let prepared = elementwise::prepare(dev, &program, &shape, &inputs, &scalars, ew(zb.ptr()))
        .expect("prepare")
        .expect("a launch");
    let stream = hip.device_state().thread_stream().expect("stream");
    let sync = || hip.synchronize().expect("sync");
    let kernel = measure(
        &sync,
        &mut [
            // Outside the ordering protocol: fine here, every call is on this thread's
            // stream and writes only z, which nothing else uses while it runs.
            &mut || elementwise::run(dev, &stream, &prepared).expect("prepared launch"),
            &mut || hip.elementwise(&program, &args).expect("elementwise"),
        ],
    );
    drop((xb, yb, zb));
    let user = measure(
        &sync,
        &mut [&mut || (&x * 1.5f32 + &y).eval_into(&mut z).expect("eval_into")],
    );
    [
        ("prepared launch (argument packing + driver)", kernel[0]),
        ("Backend::elementwise", kernel[1]),
        ("Expr::eval_into (the user API)", user[0]),
    ]
}

/// Prints the depths and what each adds over the one before.
pub fn print(rows: &[(&str, Timing); 3]) {
    println!(
        "host time of a tiny fused op by depth (a*x+y, {SMALL} f32), median per call / per 100-call batch:"
    );
    let mut before: Option<Timing> = None;
    for (name, t) in rows {
        let added = before.map_or(String::new(), |b| {
            format!(
                "  (+{:.3} / +{:.3} µs)",
                (t.per_call - b.per_call) * 1e6,
                (t.per_batch - b.per_batch) * 1e6
            )
        });
        println!(
            "  {name:<46} {:>7.3} / {:>7.3} µs{added}",
            t.per_call * 1e6,
            t.per_batch * 1e6
        );
        before = Some(*t);
    }
}
