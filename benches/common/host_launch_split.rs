//! Where the host time of a tiny fused op goes on the HIP backend: the same `a*x + y` on
//! 1024 f32 timed at three depths in the same rounds (`host_enqueue::measure`):
//!
//! | path | what runs per call |
//! |---|---|
//! | driver: empty kernel, no arguments | `cuLaunchKernel` / `hipModuleLaunchKernel` of `__global__ void f() {}`, one block of one thread |
//! | driver: empty kernel, axpy's arguments | the same kernel body, declared with the axpy kernel's parameter list, and passed its values |
//! | prepared launch | the kernel's arguments packed and the driver's launch (`elementwise::run` of a launch planned once) |
//! | `Backend::elementwise` | + checks, layout planning, kernel lookup, the ordering protocol |
//! | `Expr::eval_into` | + building the expression and lowering it (the user API) |
//!
//! The first two are the driver's own floor on this machine (no kernel of ours runs, nothing
//! of ours is between the call and the driver); the third is as close to it as a real
//! operation gets. What the last two add over the third is ours, and the rest is the driver's
//! (which no host-side work of ours can remove).

use gpuarrays::{Array, Backend, DType, Scalar};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::args::KernelArgs;
use gpuarrays_hip::kernels::elementwise::{self, EwOperand};

use super::host_enqueue::{SMALL, Timing, axpy_args, axpy_program, measure};

/// The probe kernels: no body, no parameters / the parameter list of the 1-D axpy kernel
/// (n, x, y, z, alpha: an i64, three pointers and an f32 in 8-byte slots).
const PROBES: &str = r#"
__global__ void ga_probe_empty() {}
__global__ void ga_probe_axpy_args(long long n, const float* x, const float* y, float* z, float alpha) {}
"#;

/// The five depths, shallowest first. Panics (a benchmark program) if an operation fails.
pub fn split(hip: &HipBackend) -> [(&'static str, Timing); 5] {
    let x = Array::<f32, _>::random_uniform(hip, &[SMALL], 4).expect("x");
    let y = Array::<f32, _>::random_uniform(hip, &[SMALL], 5).expect("y");
    let mut z = Array::<f32, _>::zeros(hip, &[SMALL]).expect("z");
    let program = axpy_program();
    let (xb, yb, zb) = (
        x.raw().buffer().expect("x"),
        y.raw().buffer().expect("y"),
        z.raw().buffer().expect("z"),
    );
    let operands = axpy_args(SMALL, [&*xb, &*yb, &*zb], 1.5);
    let args = operands.args();
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
    let probes = dev
        .modules()
        .load(&dev.source(
            "ga_probe".into(),
            PROBES,
            vec!["ga_probe_empty", "ga_probe_axpy_args"],
        ))
        .expect("probe kernels");
    let empty = probes.function("ga_probe_empty").expect("empty kernel");
    let with_args = probes
        .function("ga_probe_axpy_args")
        .expect("empty kernel with arguments");
    let mut no_args = KernelArgs::with_capacity(0);
    let mut probe_args = KernelArgs::with_capacity(5);
    probe_args
        .i64(SMALL as i64)
        .ptr(xb.ptr())
        .ptr(yb.ptr())
        .ptr(zb.ptr())
        .scalar(&Scalar::F32(1.5));
    let one = [1u32, 1, 1];
    let kernel = measure(
        &sync,
        &mut [
            &mut || {
                // SAFETY: no arguments for a kernel without parameters that touches no memory.
                unsafe { dev.launch(empty, one, one, 0, &stream, &mut no_args) }
                    .expect("empty launch")
            },
            &mut || {
                // SAFETY: the five values match the probe's parameter list in order and type;
                // its body is empty, so the pointers are never read.
                unsafe { dev.launch(with_args, one, one, 0, &stream, &mut probe_args) }
                    .expect("empty launch with arguments")
            },
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
        ("driver: empty kernel, no arguments", kernel[0]),
        ("driver: empty kernel, axpy's arguments", kernel[1]),
        ("prepared launch (argument packing + driver)", kernel[2]),
        ("Backend::elementwise", kernel[3]),
        ("Expr::eval_into (the user API)", user[0]),
    ]
}

/// Prints the depths and what each adds over the one before.
pub fn print(rows: &[(&str, Timing); 5]) {
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
