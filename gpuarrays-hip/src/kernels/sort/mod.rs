//! Sorting rows in place, ascending, NaN last: bitonic networks for short rows (keys in
//! registers, [`register_codegen`] launched by [`register`]; or in a shared-memory tile,
//! [`codegen`]) and an LSD radix sort beyond ([`radix_codegen`], launched by [`radix`]).
//!
//! Every path sorts the same order-preserving keys and returns the sorted key sequence, so
//! they agree bit for bit; which one runs is a matter of speed only:
//!
//! | row length | algorithm (default, [`SortAlgorithm::Auto`]) |
//! |---|---|
//! | padded to a power of two ≤ [`register::AUTO_MAX`] (2048) | bitonic network with the keys in registers, several rows per block (one launch, in place) |
//! | ≤ [`radix_codegen::rows_max`] (8192; 4096 for 8-byte types) | one block per row, radix passes in shared memory |
//! | longer | onesweep radix sort (histogram, then one pass per 8-bit digit with decoupled look-back) |
//!
//! The kernel policy's [`KernelPolicy::sort`](crate::runtime::KernelPolicy::sort)
//! (`GPUARRAYS_SORT=register|bitonic|radix|rows|onesweep` when the runtime reads the
//! environment) overrides the choice, so the sorts can be compared in one run and the older
//! ones stay available as fallbacks: `bitonic` sorts every row in a shared-memory tile (four
//! launches per tile), `register` applies to rows of up to [`register::MAX_LEN`] (2048)
//! elements, longer ones take the automatic choice.

pub mod codegen;
pub mod radix;
pub mod radix_codegen;
pub mod register;
pub mod register_codegen;

use gpuarrays_core::DType;

use self::codegen::{BLOCK, TILE, TILE_THREADS, key_bytes};
use super::KernelSource;
use super::args::KernelArgs;
use super::cache::Module;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::stream::Stream;

pub use crate::runtime::policy::{SORT_ENV, SortAlgorithm};

/// The module body for sorting `dtype` (not complex): the bitonic kernels, then the radix
/// and register kernels, which use the bitonic part's key functions.
pub fn body(dtype: DType) -> String {
    let mut body = codegen::body(dtype);
    body.push_str(&radix_codegen::body(dtype));
    body.push_str(&register_codegen::body(dtype));
    body
}

/// Every kernel of a sort module.
pub fn kernels() -> Vec<&'static str> {
    let mut kernels = codegen::KERNELS.to_vec();
    kernels.extend(radix_codegen::KERNELS);
    kernels.extend(register_codegen::KERNELS);
    kernels
}

/// The module source for sorting `dtype`.
pub fn source(dev: &DeviceKernels, dtype: DType) -> Result<KernelSource> {
    if !dtype.is_ordered() {
        return Err(HipError::InvalidArgument(format!(
            "{dtype} has no order to sort by"
        )));
    }
    Ok(dev.source(
        format!("ga_sort[{}]", dtype.name()),
        &body(dtype),
        kernels(),
    ))
}

fn blocks(items: usize, block: u32) -> u32 {
    items.div_ceil(block as usize).clamp(1, i32::MAX as usize) as u32
}

/// One sort: `rows` rows of `len` elements at `data` (offset applied), and the low bits the
/// caller promises to increase along every row
/// ([`SortArgs::ordered_low_bits`](gpuarrays_core::kernel::SortArgs)).
#[derive(Debug, Clone, Copy)]
pub struct SortJob {
    pub dtype: DType,
    pub data: DevicePtr,
    pub rows: usize,
    pub len: usize,
    pub ordered_low_bits: u32,
    /// Where the onesweep sort writes the low 32 bits of the sorted u64 words as i64, instead
    /// of the words (see [`positions_fused`]); `None` sorts in place.
    pub positions: Option<DevicePtr>,
}

/// Whether [`run`] with `positions` set writes the positions in its last pass: u64 words
/// whose low 32 bits increase along each row, in rows long enough for the onesweep sort
/// under the device's policy. (Then the i64 positions cost no pass of their own: 16 bytes
/// per element of argsort's traffic.)
pub fn positions_fused(dev: &DeviceKernels, job: &SortJob) -> bool {
    positions_fused_with(dev.policy().sort, job)
}

fn positions_fused_with(algorithm: SortAlgorithm, job: &SortJob) -> bool {
    path(algorithm, job.dtype, job.len) == Path::Onesweep
        && job.dtype == DType::U64
        && job.ordered_low_bits == 32
        && job.rows > 0
        && job.len > 1
}

impl SortJob {
    /// The radix passes that may be skipped: the whole digits below the ordered bits, for
    /// unsigned integers (whose keys are their values) only.
    fn skipped_passes(&self) -> u32 {
        match self.dtype {
            DType::U32 | DType::U64 => (self.ordered_low_bits / radix_codegen::RADIX_BITS)
                .min(radix_codegen::passes(self.dtype)),
            _ => 0,
        }
    }
}

/// Runs `job` on `stream`, with the algorithm the device's kernel policy chooses for its
/// row length.
pub fn run(dev: &DeviceKernels, stream: &Stream, job: &SortJob) -> Result<()> {
    run_with(dev, stream, job, dev.policy().sort)
}

/// As [`run`], with the algorithm given.
pub fn run_with(
    dev: &DeviceKernels,
    stream: &Stream,
    job: &SortJob,
    algorithm: SortAlgorithm,
) -> Result<()> {
    run_on(dev, Some(stream), job, algorithm)
}

/// Compiles (or finds) the kernels [`run`] launches, without launching: the ordering
/// protocol calls it before it locks the operands (a compilation must not hold them). Every
/// algorithm launches kernels of the one sort module of `dtype`, so the choice of algorithm
/// does not matter here.
pub fn prepare(dev: &DeviceKernels, dtype: DType, rows: usize, len: usize) -> Result<()> {
    let job = SortJob {
        dtype,
        data: DevicePtr(0),
        rows,
        len,
        ordered_low_bits: 0,
        positions: None,
    };
    run_on(dev, None, &job, SortAlgorithm::Auto)
}

/// The kernels a sort runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Register,
    Bitonic,
    Rows,
    Onesweep,
}

/// What `algorithm` runs for rows of `len` elements of `dtype`.
fn path(algorithm: SortAlgorithm, dtype: DType, len: usize) -> Path {
    let fits_row_block = len <= radix_codegen::rows_max(dtype);
    let registers = register::applies(len);
    match algorithm {
        SortAlgorithm::Auto | SortAlgorithm::Register if registers => Path::Register,
        SortAlgorithm::Bitonic => Path::Bitonic,
        SortAlgorithm::Auto | SortAlgorithm::Register | SortAlgorithm::Rows if fits_row_block => {
            Path::Rows
        }
        _ => Path::Onesweep,
    }
}

/// [`run_with`] on `stream`, or [`prepare`] when there is none: everything up to the launch.
fn run_on(
    dev: &DeviceKernels,
    stream: Option<&Stream>,
    job: &SortJob,
    algorithm: SortAlgorithm,
) -> Result<()> {
    let SortJob {
        dtype,
        data,
        rows,
        len,
        ..
    } = *job;
    if job.positions.is_some() && !positions_fused_with(algorithm, job) {
        return Err(HipError::InvalidArgument(format!(
            "sort into positions: {rows} rows of {len} {dtype} run a sort that writes none"
        )));
    }
    if rows == 0 || len <= 1 {
        return Ok(());
    }
    let module = dev.sort.get(&dtype, dev.modules(), || source(dev, dtype))?;
    let Some(stream) = stream else {
        return Ok(());
    };
    if job.skipped_passes() >= radix_codegen::passes(dtype) {
        // Every digit is promised in order: the rows are sorted already.
        return Ok(());
    }
    match path(algorithm, dtype, len) {
        Path::Register => register::rows(dev, stream, &module, data, rows, len),
        Path::Bitonic => bitonic(dev, stream, &module, dtype, data, rows, len),
        Path::Rows => radix::rows(dev, stream, &module, data, rows, len, job.skipped_passes()),
        Path::Onesweep => radix::onesweep(dev, stream, &module, job, job.skipped_passes()),
    }
}

/// The bitonic network: rows padded to a power of two `p` with the greatest key.
fn bitonic(
    dev: &DeviceKernels,
    stream: &Stream,
    module: &Module,
    dtype: DType,
    data: DevicePtr,
    rows: usize,
    len: usize,
) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names_parse() {
        assert_eq!(SortAlgorithm::parse("Radix"), Some(SortAlgorithm::Auto));
        assert_eq!(
            SortAlgorithm::parse(" bitonic "),
            Some(SortAlgorithm::Bitonic)
        );
        assert_eq!(SortAlgorithm::parse("rows"), Some(SortAlgorithm::Rows));
        assert_eq!(
            SortAlgorithm::parse("onesweep"),
            Some(SortAlgorithm::Onesweep)
        );
        assert_eq!(
            SortAlgorithm::parse("REGISTER"),
            Some(SortAlgorithm::Register)
        );
        assert_eq!(SortAlgorithm::parse("quick"), None);
    }
}
