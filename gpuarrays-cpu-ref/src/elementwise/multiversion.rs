//! `multiversion!`: compiles a kernel twice, for the baseline x86-64 target (SSE2) and with
//! AVX2 enabled, and gives the AVX2 copy where the CPU has it. The choice is made when a
//! program is compiled (once per call), not per block.
//!
//! Why: AVX2 doubles the lanes of each vector instruction. Measured on a `max(a·y + b, 0)`
//! over 1 M f32 in cache, one thread (a stand-alone copy of the evaluator's loops): 310 µs
//! with SSE2, 180 µs with AVX2. AVX-512 measured no faster than AVX2 there, and enabling it
//! needs a newer Rust than the workspace's minimum.
//!
//! Results do not change: the same per-element operations run, only more lanes at a time
//! (IEEE arithmetic is exact per element, transcendental functions are the same library
//! calls, and Rust never contracts `a * b + c` into a fused multiply-add on its own).
//!
//! The kernel's body becomes an `#[inline(always)]` function, so everything it calls that is
//! inlined (the loops, the per-type semantics) is compiled into each copy. `kernel!` builds
//! the instructions' kernels from the loops of `kernel.rs` this way.

/// Whether this CPU runs AVX2 (cached by std after the first call). Only x86-64 has the
/// AVX2 copies; elsewhere `multiversion!` compiles the portable copy alone.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// `multiversion!(|args, out, start, len| { body })`: a [`super::kernel::Kernel`] running
/// `body`, as described in the module documentation.
macro_rules! multiversion {
    (|$args:ident, $out:ident, $start:ident, $len:ident| $body:block) => {{
        #[inline(always)]
        unsafe fn imp($args: &[$crate::elementwise::kernel::Arg; $crate::elementwise::kernel::ARGS], $out: *mut u8, $start: usize, $len: usize) $body

        unsafe fn portable(
            args: &[$crate::elementwise::kernel::Arg; $crate::elementwise::kernel::ARGS],
            out: *mut u8,
            start: usize,
            len: usize,
        ) {
            // SAFETY: the `Kernel` contract, passed on.
            unsafe { imp(args, out, start, len) }
        }

        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(
            args: &[$crate::elementwise::kernel::Arg; $crate::elementwise::kernel::ARGS],
            out: *mut u8,
            start: usize,
            len: usize,
        ) {
            // SAFETY: the `Kernel` contract, passed on.
            unsafe { imp(args, out, start, len) }
        }

        #[cfg(target_arch = "x86_64")]
        let k: $crate::elementwise::kernel::Kernel =
            if $crate::elementwise::multiversion::has_avx2() { avx2 } else { portable };
        #[cfg(not(target_arch = "x86_64"))]
        let k: $crate::elementwise::kernel::Kernel = portable;
        k
    }};
}

pub(crate) use multiversion;

/// A [`Kernel`](super::kernel::Kernel) made of an expression over its arguments, compiled
/// twice by [`multiversion!`]. Forms: `map T => R, |x| body` (one operand of type `T`),
/// `zip T, U => R, |x, y| body`, `select T`, `index R, |i| body` (from the output index),
/// `draws R, |seed, start, len| iterator` (random draws; the seed is operand 0 as a u64).
macro_rules! kernel {
    (map $T:ty => $R:ty, |$x:ident| $body:expr) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, _start, len| {
            // SAFETY: the `Kernel` contract, for operand type `$T` and result type `$R`.
            unsafe {
                $crate::elementwise::kernel::map::<$T, $R>(args[0], out, len, |$x: $T| -> $R {
                    $body
                })
            }
        })
    };
    (zip $T:ty, $U:ty => $R:ty, |$x:ident, $y:ident| $body:expr) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, _start, len| {
            // SAFETY: the `Kernel` contract, for operand types `$T`, `$U` and result `$R`.
            unsafe {
                $crate::elementwise::kernel::zip::<$T, $U, $R>(
                    args[0],
                    args[1],
                    out,
                    len,
                    |$x: $T, $y: $U| -> $R { $body },
                )
            }
        })
    };
    (select $T:ty) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, _start, len| {
            // SAFETY: the `Kernel` contract, for a bool condition and operands of `$T`.
            unsafe {
                $crate::elementwise::kernel::select::<$T>(args[0], args[1], args[2], out, len)
            }
        })
    };
    (draws $R:ty, |$seed:ident, $start:ident, $len:ident| $values:expr) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, start, len| {
            // SAFETY: the `Kernel` contract; operand 0 is the u64 seed.
            unsafe {
                let $seed = args[0].ptr.cast::<u64>().read();
                let ($start, $len) = (start, len);
                $crate::elementwise::kernel::from_iter::<$R>(out, len, $values)
            }
        })
    };
    (index $R:ty, |$i:ident, $seed:ident| $body:expr) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, start, len| {
            // SAFETY: the `Kernel` contract; operand 0, where read, is the u64 seed.
            unsafe {
                let $seed = if args[0].ptr.is_null() {
                    0u64
                } else {
                    args[0].ptr.cast::<u64>().read()
                };
                $crate::elementwise::kernel::from_index::<$R>(out, start, len, |$i: usize| -> $R {
                    $body
                })
            }
        })
    };
}

pub(crate) use kernel;
