//! Host side of the register sort of short rows ([`super::register_codegen`]): which rows it
//! takes by default, and its one launch.

use super::register_codegen::{THREADS, TILE};
use crate::error::{HipError, Result};
use crate::kernels::args::KernelArgs;
use crate::kernels::cache::Module;
use crate::kernels::device_kernels::DeviceKernels;
use crate::platform::DevicePtr;
use crate::stream::Stream;

/// The longest row (padded to a power of two) the register sort can take: one block's tile.
pub const MAX_LEN: usize = TILE;

/// The longest row (padded to a power of two) `SortAlgorithm::Auto` gives the register sort.
/// Its whole range: it replaces the bitonic tile (one launch instead of four, no scratch,
/// barriers only between warps) and, at 2048, the one-block radix sort (3.04 ms for 2^26 f32
/// keys on the H200), whose eight rank-and-scatter rounds per 32-bit key cost more than the
/// 66 register/shuffle steps here. Measured on the H200 (2^26 f32 keys, ms; register /
/// bitonic tile / one-block radix): rows of 128: 0.56 / 2.93 / 22.5; 1024: 0.83 / 4.87 / 5.80;
/// 2048: 0.95 / 5.64 / 3.05 (`docs/results/hip-scan-sort.md`).
pub const AUTO_MAX: usize = MAX_LEN;

/// Whether the register sort can take rows of `len` elements.
pub fn applies(len: usize) -> bool {
    len >= 2 && len.next_power_of_two() <= MAX_LEN
}

/// Sorts `rows` rows of `len` elements at `data` in place (`applies(len)`): rows padded to
/// `p = len.next_power_of_two()`, `TILE / p` rows per block, one launch.
pub fn rows(
    dev: &DeviceKernels,
    stream: &Stream,
    module: &Module,
    data: DevicePtr,
    rows: usize,
    len: usize,
) -> Result<()> {
    if !applies(len) {
        return Err(HipError::InvalidArgument(format!(
            "register sort of rows of {len} elements: rows of 2..={MAX_LEN} only"
        )));
    }
    let p = len.next_power_of_two();
    let blocks = rows.div_ceil(TILE / p);
    if blocks > i32::MAX as usize {
        return Err(HipError::InvalidArgument(format!(
            "register sort of {rows} rows of {len} elements: {blocks} blocks exceed one launch"
        )));
    }
    let f = module.function("ga_rsort_rows")?;
    let mut a = KernelArgs::with_capacity(4);
    a.ptr(data)
        .i64(rows as i64)
        .i64(len as i64)
        .i32(p.trailing_zeros() as i32);
    // SAFETY: the parameters are ga_rsort_rows's, in its order; `data` holds rows·len elements
    // (the caller's contract) and the kernel touches only elements of rows < `rows`, columns
    // < `len`; block b only rows of its own tile, so the in-place sort never races.
    unsafe {
        dev.launch(
            f,
            [blocks as u32, 1, 1],
            [THREADS as u32, 1, 1],
            0,
            stream,
            &mut a,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_rows_up_to_one_tile() {
        assert!(!applies(1));
        assert!(applies(2));
        assert!(applies(1025));
        assert!(applies(MAX_LEN));
        assert!(!applies(MAX_LEN + 1));
    }
}
