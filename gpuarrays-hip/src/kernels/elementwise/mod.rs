//! Fused elementwise kernels: a [`Program`] lowered to C++ ([`codegen`]), specialised on the
//! access class of each operand ([`layout`]), compiled once per (program, layout) and
//! launched with the scalars as parameters.
//!
//! The kernel steps over vectors of `vec` elements (16-byte loads of the widest contiguous
//! operand), launched with enough blocks to cover the array in one step: on the H200 one
//! `float4` per thread reached 4331 GB/s on an f32 axpy, against 4080–4137 GB/s for a
//! grid-stride loop over 132×k blocks (docs/architecture.md, measured facts). Since that is always
//! possible below the grid limit, the kernel is then written without a loop
//! ([`layout::plan_steps`]); programs that draw random numbers take two vectors per thread,
//! 256 apart. On the H200 (2^28 f32 outputs, `benches/h200/ew_variants.py`, bit-identical
//! results; Philox products by `mul.wide.u32`) normals took 618 µs in the loop form, 571 µs
//! in one step and 547 µs with two vectors per thread; uniforms 368, 311 and 265 µs. Arrays
//! beyond one grid keep the grid-stride loop.

pub mod codegen;
mod launch_memo;
pub mod layout;
pub mod transpose;

use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::Scalar;
use gpuarrays_core::kernel::Program;

use self::codegen::EW_BLOCK;
pub use self::layout::EwOperand;
use self::layout::{Class, EwKey, EwLayout};
use super::KernelSource;
use super::args::KernelArgs;
use super::cpp::header::Dialect;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::FunctionHandle;
use crate::stream::Stream;

/// The source of the kernel for `key`.
pub fn source(dev: &DeviceKernels, key: &EwKey) -> Result<KernelSource> {
    let out = key.program.output_dtype();
    let body = codegen::body(&key.program, &key.layout, out)?;
    Ok(dev.source(
        format!("ga_ew[{}]", key.program.describe()),
        &body,
        vec!["ga_ew"],
    ))
}

fn mismatch(msg: String) -> HipError {
    HipError::InvalidArgument(format!("elementwise launch: {msg}"))
}

/// The kernel of `program` in `layout`: the one this thread launched last when it matches
/// (by value, so it is never stale; a loop of one expression skips the program clone, the hash
/// and the lock of the [`super::cache::KernelSet`]), else from the cache or compiled.
fn kernel(
    dev: &DeviceKernels,
    program: &Program,
    layout: EwLayout,
) -> Result<(FunctionHandle, EwLayout)> {
    if let Some(f) = launch_memo::recall_kernel(dev, program, &layout) {
        return Ok((f, layout));
    }
    let key = EwKey {
        program: program.clone(),
        layout,
    };
    let module = dev
        .elementwise
        .get(&key, dev.modules(), || source(dev, &key))?;
    let function = module.function("ga_ew")?;
    let layout = key.layout.clone();
    launch_memo::remember_kernel(dev, key, function, module);
    Ok((function, layout))
}

/// Grid limit of one elementwise launch, in blocks of [`EW_BLOCK`] threads: 2^31 − 1 blocks on
/// NVIDIA devices; on AMD devices a grid may hold fewer than 2^32 threads in all. Tests lower
/// it with [`set_grid_limit`] to run the grid-stride form on small inputs.
fn max_blocks(dev: &DeviceKernels) -> usize {
    let platform = match dev.modules().dialect() {
        Dialect::Nvidia => i32::MAX as usize,
        Dialect::Amd => (u32::MAX / EW_BLOCK) as usize,
    };
    match GRID_LIMIT.load(Ordering::Relaxed) {
        0 => platform,
        l => platform.min(l),
    }
}

static GRID_LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Caps the blocks of every later elementwise launch in this process at `blocks` (`None`: the
/// platform's limit). Larger arrays then take the kernel's grid-stride form; results do not
/// depend on it. For tests of that form.
pub fn set_grid_limit(blocks: Option<usize>) {
    GRID_LIMIT.store(blocks.map_or(0, |b| b.max(1)), Ordering::Relaxed);
}

/// The tiled kernel of [`transpose`], tiled by `tiling`.
fn run_transpose(
    dev: &DeviceKernels,
    stream: &Stream,
    function: FunctionHandle,
    prepared: &Prepared<'_>,
    tiling: &layout::Tiling,
) -> Result<()> {
    let Prepared {
        layout: ref l,
        shape,
        inputs,
        scalars,
        ref output,
        ..
    } = *prepared;
    let tiles = transpose::tiles(shape, tiling);
    let mut args = KernelArgs::with_capacity(8 + 2 * inputs.len() + scalars.len());
    for op in inputs {
        args.ptr(op.ptr);
    }
    for (op, c) in inputs.iter().zip(&l.inputs) {
        if *c == Class::Strided {
            args.dims(op.strides.iter().map(|&s| s as i64));
        }
    }
    args.ptr(output.ptr)
        .dims(shape.iter().map(|&n| n as i64))
        .i64(tiles.along_l as i64)
        .i64(tiles.along_a as i64)
        .i64(tiles.total as i64);
    // The kernel was compiled for this form of the grid (the tiling, like the rest of the
    // plan that chose the kernel, is a function of the shape and the operands).
    let (grid, grid3) = transpose::grid(&tiles);
    if grid3 != tiling.grid3 {
        return Err(mismatch(format!(
            "a kernel tiled for {tiling:?} launched over {shape:?}"
        )));
    }
    for s in scalars {
        args.scalar(s);
    }
    // SAFETY: the parameters follow transpose::body's list and types; the caller guarantees
    // every input's strides stay inside its allocation over `shape` and that the output holds
    // the shape's elements contiguously, all alive until the kernel ran (stream order).
    unsafe {
        dev.launch(
            function,
            grid,
            [transpose::BLOCK, 1, 1],
            0,
            stream,
            &mut args,
        )
    }
}

/// One launch, checked and with its kernel found (or compiled) before the operands are
/// locked: the operands and the layout the kernel was built for, kept together so that
/// [`run`] launches exactly what was planned.
pub struct Prepared<'a> {
    function: FunctionHandle,
    layout: EwLayout,
    shape: &'a [usize],
    inputs: &'a [EwOperand<'a>],
    scalars: &'a [Scalar],
    output: EwOperand<'a>,
}

/// Checks the launch against `program`, plans its layout and compiles (or finds) the kernel
/// [`run`] launches, without launching: the ordering protocol calls it before it locks the
/// operands (a compilation must not hold them). `None`: there is nothing to run (no
/// elements). Planned once per call: planning and the kernel lookup were a tenth of the
/// backend's host instructions per launch when `run` repeated them (`host_path` bench).
pub fn prepare<'a>(
    dev: &DeviceKernels,
    program: &Program,
    shape: &'a [usize],
    inputs: &'a [EwOperand<'a>],
    scalars: &'a [Scalar],
    output: EwOperand<'a>,
) -> Result<Option<Prepared<'a>>> {
    if inputs.len() != program.inputs.len() || scalars.len() != program.scalars.len() {
        return Err(mismatch(format!(
            "{} inputs and {} scalars for a program of {} and {}",
            inputs.len(),
            scalars.len(),
            program.inputs.len(),
            program.scalars.len()
        )));
    }
    for (s, &d) in scalars.iter().zip(&program.scalars) {
        if s.dtype() != d {
            return Err(mismatch(format!("scalar {s} for a {d} slot")));
        }
    }
    if output.dtype != program.output_dtype() {
        return Err(mismatch(format!(
            "a {} output for a program producing {}",
            output.dtype,
            program.output_dtype()
        )));
    }
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(None);
    }
    let grid_limit = max_blocks(dev);
    let launch = launch_memo::Launch {
        program,
        shape,
        inputs,
        output: &output,
        grid_limit,
    };
    let planned = match launch_memo::recall_plan(dev, &launch) {
        Some(p) => p,
        None => {
            let p = plan_launch(dev, &launch, n)?;
            launch_memo::remember_plan(dev, &launch, &p);
            p
        }
    };
    let launch_memo::Planned { function, layout } = planned;
    Ok(Some(Prepared {
        function,
        layout,
        shape,
        inputs,
        scalars,
        output,
    }))
}

/// Plans `launch` over its `n` elements (layout, the tiled kernel or the steps) and finds or
/// compiles its kernel.
fn plan_launch(
    dev: &DeviceKernels,
    launch: &launch_memo::Launch<'_>,
    n: usize,
) -> Result<launch_memo::Planned> {
    let launch_memo::Launch {
        program,
        shape,
        inputs,
        output,
        grid_limit,
    } = *launch;
    let mut planned = layout::plan(shape, inputs, output);
    planned.transpose = transpose::plan(program, shape, inputs, &planned);
    if planned.transpose.is_some() {
        planned.vec = 1;
    } else {
        layout::plan_steps(&mut planned, n, program.draws_random(), grid_limit);
    }
    let (function, layout) = kernel(dev, program, planned)?;
    Ok(launch_memo::Planned { function, layout })
}

/// Launches the prepared kernel on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, prepared: &Prepared<'_>) -> Result<()> {
    let Prepared {
        function,
        layout: ref l,
        shape,
        inputs,
        scalars,
        ref output,
    } = *prepared;
    if let Some(t) = &l.transpose {
        return run_transpose(dev, stream, function, prepared, t);
    }
    let n: usize = shape.iter().product();
    let strides = |s: &[isize]| {
        s.iter()
            .map(|&x| x as i64)
            .collect::<smallvec::SmallVec<[i64; 8]>>()
    };
    let mut args = KernelArgs::with_capacity(4 + 2 * inputs.len() + scalars.len());
    args.i64(n as i64);
    for op in inputs {
        args.ptr(op.ptr);
    }
    for (op, c) in inputs.iter().zip(&l.inputs) {
        if c.has_strides() {
            args.dims(strides(op.strides));
        }
    }
    args.ptr(output.ptr);
    if l.output.has_strides() {
        args.dims(strides(output.strides));
    }
    if l.ndim > 0 {
        args.dims(shape.iter().map(|&x| x as i64));
    }
    for s in scalars {
        args.scalar(s);
    }
    // The grid limit fits in a u32 (max_blocks).
    let blocks = layout::blocks(l, n).min(max_blocks(dev)) as u32;
    // SAFETY: the parameter list above follows codegen's order and types for this layout
    // (n, input pointers, strided inputs' dims, output pointer, output dims, shape, scalars);
    // the caller guarantees every pointer addresses a live allocation covering the elements
    // the strides reach, and keeps the buffers alive (stream-ordered) until the kernel ends.
    unsafe {
        dev.launch(
            function,
            [blocks, 1, 1],
            [EW_BLOCK, 1, 1],
            0,
            stream,
            &mut args,
        )
    }
}
