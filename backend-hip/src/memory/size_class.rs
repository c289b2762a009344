//! Size classes of the caching pool: four classes per power of two (at most 25% waste), and
//! 512 bytes at least.

/// Smallest block handed out.
pub const MIN_BLOCK: usize = 512;

/// The block size that serves a request of `bytes`.
pub fn class_size(bytes: usize) -> usize {
    if bytes <= MIN_BLOCK {
        return MIN_BLOCK;
    }
    let pow = bytes.next_power_of_two();
    let step = pow / 8;
    bytes.div_ceil(step) * step
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
        ] {
            let c = class_size(bytes);
            assert!(c >= bytes, "{bytes} -> {c}");
            assert!(c <= MIN_BLOCK.max(bytes + bytes / 4 + 1), "{bytes} -> {c}");
            assert_eq!(class_size(c), c, "a class is its own class");
        }
    }
}
