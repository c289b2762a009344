//! Sorting rows in place, ascending, NaN last (see [`codegen`]).

pub mod codegen;

use gpuarrays_core::DType;

use self::codegen::{BLOCK, KERNELS, TILE, TILE_THREADS, key_bytes};
use super::KernelSource;
use super::args::KernelArgs;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::stream::Stream;

/// The module source for sorting `dtype`.
pub fn source(dev: &DeviceKernels, dtype: DType) -> Result<KernelSource> {
    if !dtype.is_ordered() {
        return Err(HipError::InvalidArgument(format!(
            "{dtype} has no order to sort by"
        )));
    }
    Ok(dev.source(
        format!("ga_sort[{}]", dtype.name()),
        &codegen::body(dtype),
        KERNELS.to_vec(),
    ))
}

fn blocks(items: usize, block: u32) -> u32 {
    items.div_ceil(block as usize).clamp(1, i32::MAX as usize) as u32
}

/// Sorts `rows` rows of `len` elements at `data` (offset applied) on `stream`.
pub fn run(
    dev: &DeviceKernels,
    stream: &Stream,
    dtype: DType,
    data: DevicePtr,
    rows: usize,
    len: usize,
) -> Result<()> {
    run_on(dev, Some(stream), dtype, data, rows, len)
}

/// Compiles (or finds) the kernels [`run`] launches, without launching: the ordering protocol calls it before it locks the operands (a compilation must not
/// hold them). With no stream, nothing can be enqueued.
pub fn prepare(dev: &DeviceKernels, dtype: DType, rows: usize, len: usize) -> Result<()> {
    run_on(dev, None, dtype, DevicePtr(0), rows, len)
}

/// [`run`] on `stream`, or [`prepare`] when there is none: everything up to the launch.
fn run_on(
    dev: &DeviceKernels,
    stream: Option<&Stream>,
    dtype: DType,
    data: DevicePtr,
    rows: usize,
    len: usize,
) -> Result<()> {
    if rows == 0 || len <= 1 {
        return Ok(());
    }
    let module = dev.sort.get(&dtype, dev.modules(), || source(dev, dtype))?;
    let Some(stream) = stream else {
        return Ok(());
    };
    let p = len.next_power_of_two();
    let total = (rows * p).next_multiple_of(TILE);
    let keys = dev.scratch(total * key_bytes(dtype), stream)?;
    let launch = |name: &str, grid: u32, block: u32, args: &mut KernelArgs| -> Result<()> {
        let f = module.function(name)?;
        // SAFETY: each call passes the named kernel's parameters in codegen's order; `data`
        // holds rows·len elements (caller's contract) and `keys` `total` keys, a multiple of
        // the tile, so every block of the tile kernels and every pair of the global steps
        // stays inside it; both live until the kernels ran (stream order).
        unsafe { dev.launch(f, [grid, 1, 1], [block, 1, 1], 0, stream, args) }
    };
    let (rows_i, len_i, p_i, total_i) = (rows as i64, len as i64, p as i64, total as i64);
    let mut a = KernelArgs::with_capacity(6);
    a.ptr(data)
        .ptr(keys.ptr())
        .i64(rows_i)
        .i64(len_i)
        .i64(p_i)
        .i64(total_i);
    launch("ga_sort_keys", blocks(total, BLOCK), BLOCK, &mut a)?;
    let tiles = (total / TILE) as u32;
    let mut a = KernelArgs::with_capacity(3);
    a.ptr(keys.ptr()).i64(p.min(TILE) as i64).i64(p_i);
    launch("ga_sort_tile", tiles, TILE_THREADS, &mut a)?;
    let mut k = 2 * TILE;
    while k <= p {
        let mut j = k / 2;
        while j >= TILE {
            let mut a = KernelArgs::with_capacity(5);
            a.ptr(keys.ptr())
                .i64(total_i)
                .i64(k as i64)
                .i64(j as i64)
                .i64(p_i);
            launch(
                "ga_sort_merge_global",
                blocks(total / 2, BLOCK),
                BLOCK,
                &mut a,
            )?;
            j /= 2;
        }
        let mut a = KernelArgs::with_capacity(3);
        a.ptr(keys.ptr()).i64(k as i64).i64(p_i);
        launch("ga_sort_merge_tile", tiles, TILE_THREADS, &mut a)?;
        k *= 2;
    }
    let mut a = KernelArgs::with_capacity(5);
    a.ptr(keys.ptr()).ptr(data).i64(rows_i).i64(len_i).i64(p_i);
    launch("ga_sort_values", blocks(rows * len, BLOCK), BLOCK, &mut a)
}
