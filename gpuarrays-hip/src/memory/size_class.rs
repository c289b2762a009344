//! Size classes of the caching pool: four classes per power of two (at most 25% waste), and
//! 512 bytes at least. Requests over 2^63 bytes have no class (rounding them up would pass
//! `usize::MAX`): no device holds them, and the pool answers them with out-of-memory.

/// Smallest block handed out.
pub const MIN_BLOCK: usize = 512;

/// The block size that serves a request of `bytes`, or `None` when no block size can (over
/// 2^63 bytes). Never panics.
pub fn class_size(bytes: usize) -> Option<usize> {
    if bytes <= MIN_BLOCK {
        return Some(MIN_BLOCK);
    }
    let pow = bytes.checked_next_power_of_two()?;
    let step = pow / 8;
    bytes.div_ceil(step).checked_mul(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_requests_with_bounded_waste() {
        for bytes in [
            1usize,
            511,
            512,
            513,
            600,
            1000,
            1024,
            1025,
            3000,
            1 << 20,
            (1 << 30) + 1,
            (1 << 62) + 1,
            (1 << 63) - 1,
            1 << 63,
        ] {
            let c = class_size(bytes).unwrap_or_else(|| panic!("{bytes} has a class"));
            assert!(c >= bytes, "{bytes} -> {c}");
            assert!(c <= MIN_BLOCK.max(bytes + bytes / 4 + 1), "{bytes} -> {c}");
            assert_eq!(class_size(c), Some(c), "a class is its own class");
        }
    }

    #[test]
    fn requests_over_2_pow_63_have_no_class() {
        for bytes in [
            (1usize << 63) + 1,
            (1 << 63) + (1 << 62),
            usize::MAX - 1,
            usize::MAX,
        ] {
            assert_eq!(class_size(bytes), None, "{bytes}");
        }
    }
}
