//! What every indexing kernel shares on the host side: the block size and the word an
//! element moves as (the general kernels: `codegen`; the variants: `variants`).

use gpuarrays_core::DType;

/// Threads per block.
pub const BLOCK: u32 = 256;

/// The type an element of `dtype` moves as (`codegen`'s docs say why), and the bytes its address
/// must be a multiple of.
pub fn move_type(dtype: DType) -> (&'static str, usize) {
    match dtype.size() {
        1 => ("u8", 1),
        2 => ("u16", 2),
        4 => ("u32", 4),
        8 => ("u64", 8),
        _ => ("GaPair64", 16),
    }
}
