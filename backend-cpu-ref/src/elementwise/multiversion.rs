//! `multiversion!`: compiles a kernel function twice, for the baseline x86-64 target (SSE2)
//! and with AVX2 enabled, and picks the AVX2 copy at run time where the CPU has it.
//!
//! Why: an evaluator that runs one instruction at a time over a column loads and stores
//! every intermediate value, so it executes several times the vector instructions of a
//! hand-fused loop. Measured on a `max(a·y + b, 0)` over 1 M f32 in cache, one thread
//! (a stand-alone copy of the evaluator's loops): 310 µs with SSE2, 180 µs with AVX2 (twice
//! the lanes per instruction), against 72 µs for the hand-fused loop. AVX-512 measured no
//! faster than AVX2 there, and enabling it needs a newer Rust than the workspace's minimum.
//!
//! Results do not change: the same per-element operations run, only more lanes at a time
//! (IEEE arithmetic is exact per element, transcendental functions are the same library
//! calls, and Rust never contracts `a * b + c` into a fused multiply-add on its own).
//!
//! The function's body becomes an `#[inline(always)]` inner function, so everything it
//! calls that is inlined (the loops, iterator adapters, per-type semantics) is compiled
//! into each copy.

/// Whether this CPU runs AVX2 (cached by std after the first call). Only x86-64 has the
/// AVX2 copies; elsewhere `multiversion!` compiles the portable copy alone.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Wraps `fn name(args) -> ret { body }` as described in the module documentation.
macro_rules! multiversion {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[inline(always)]
            fn imp($($arg: $ty),*) -> $ret $body

            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                unsafe fn avx2($($arg: $ty),*) -> $ret {
                    imp($($arg),*)
                }
                if $crate::elementwise::multiversion::has_avx2() {
                    // SAFETY: the only requirement of `avx2` is a CPU with AVX2, checked above.
                    return unsafe { avx2($($arg),*) };
                }
            }
            imp($($arg),*)
        }
    };
}

pub(crate) use multiversion;
