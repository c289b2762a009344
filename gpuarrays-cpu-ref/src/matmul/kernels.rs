//! One output tile of a matrix product, per element type: `matrixmultiply`'s packed,
//! register-blocked kernels for f32, f64, c32 and c64 (runtime-detected AVX2/FMA or AVX-512
//! paths), and a cache-blocked wrapping kernel for the integers.
//!
//! Why matrixmultiply: the previous row-streaming loop (`host::matmul_row`) took 228–244 ms
//! for 1024² f32 on the 2-core development machine, where NumPy (OpenBLAS) took 48 ms; the
//! packed kernels take 15–24 ms (`docs/results/cpu-matmul.md`). Every element of a tile is
//! accumulated over k in the same order however the output is split into tiles (each lane of
//! the microkernel owns one output element and walks k in order, block after block of k), so
//! results never depend on the tiling, and the tiling never on the thread count.

use gpuarrays_core::host::semantics::Arith;
use num_complex::{Complex32, Complex64};

/// The shape and strides of one tile: `c[i·ldc + j] = Σ_p a[i·lda + p] · b[p·ldb + j]` for
/// `i < m`, `j < n`, `p < k` (columns contiguous in all three). `k ≥ 1`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tile {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

impl Tile {
    /// Elements of `a` (from its first) and of `b` the tile reads.
    pub fn a_len(&self) -> usize {
        (self.m - 1) * self.lda + self.k
    }
    pub fn b_len(&self) -> usize {
        (self.k - 1) * self.ldb + self.n
    }
}

/// An element type's tile kernel.
pub(super) trait TileKernel: Arith {
    /// Computes the tile `t` into `c`, overwriting it (never reading it).
    ///
    /// # Safety
    /// `a` and `b` hold at least `t.a_len()` and `t.b_len()` elements; `c` is valid for
    /// writes at `i·ldc + j` for every `i < t.m`, `j < t.n`, and no one else reads or writes
    /// those elements during the call.
    unsafe fn tile(t: Tile, a: &[Self], b: &[Self], c: *mut Self);
}

macro_rules! real_gemm {
    ($t:ty, $f:ident) => {
        impl TileKernel for $t {
            unsafe fn tile(t: Tile, a: &[Self], b: &[Self], c: *mut Self) {
                // SAFETY: `a` and `b` cover the elements the strides reach and `c` is valid for the writes and
                // exclusive to this call; beta = 0, so C is written, never read.
                unsafe {
                    matrixmultiply::$f(
                        t.m,
                        t.k,
                        t.n,
                        1.0,
                        a.as_ptr(),
                        t.lda as isize,
                        1,
                        b.as_ptr(),
                        t.ldb as isize,
                        1,
                        0.0,
                        c,
                        t.ldc as isize,
                        1,
                    )
                }
            }
        }
    };
}
real_gemm!(f32, sgemm);
real_gemm!(f64, dgemm);

macro_rules! complex_gemm {
    ($t:ty, $f:ident, $parts:ty) => {
        impl TileKernel for $t {
            unsafe fn tile(t: Tile, a: &[Self], b: &[Self], c: *mut Self) {
                let std = matrixmultiply::CGemmOption::Standard;
                // SAFETY: num-complex's `Complex<T>` is `repr(C)` { re, im }, the layout of
                // matrixmultiply's `[T; 2]`; extents and exclusivity as for the real kernels
                // (the caller's contract); beta = 0, so C is written, never read.
                unsafe {
                    matrixmultiply::$f(
                        std,
                        std,
                        t.m,
                        t.k,
                        t.n,
                        [1.0, 0.0],
                        a.as_ptr().cast::<$parts>(),
                        t.lda as isize,
                        1,
                        b.as_ptr().cast::<$parts>(),
                        t.ldb as isize,
                        1,
                        [0.0, 0.0],
                        c.cast::<$parts>(),
                        t.ldc as isize,
                        1,
                    )
                }
            }
        }
    };
}
complex_gemm!(Complex32, cgemm, [f32; 2]);
complex_gemm!(Complex64, zgemm, [f64; 2]);

/// k elements of a row of A per pass over a block of B: with `NC` columns the block of B is
/// `KC·NC` elements (512 KiB of i64), which stays in a core's L2 (1 MiB on the AMD CI machine, 2 MiB on the Intel one)
/// while every row of the tile streams over it.
const KC: usize = 128;
const NC: usize = 512;

/// Rows of the output as sums of rows of B scaled by elements of A (`c[i,:] += a[i,p]·b[p,:]`
/// for p in order), blocked over k and n so that each block of B is read from cache by every
/// row of the tile. The integer kernel (wrapping addition is associative and commutative, so
/// the result is exact whatever the blocking), and the kernel of every type for a product of
/// one row (`x · B`), which streams B once: matrixmultiply packs all of B first (1 × 1024 ·
/// 1024² f32: 0.30 ms through matrixmultiply, 0.20 ms here).
///
/// # Safety
/// As [`TileKernel::tile`].
pub(super) unsafe fn axpy_tile<T: Arith>(t: Tile, a: &[T], b: &[T], c: *mut T) {
    for j0 in (0..t.n).step_by(NC) {
        let nc = NC.min(t.n - j0);
        let row = |i: usize| {
            // SAFETY: columns `j0..j0 + nc` of row `i < m` of the tile, valid and exclusive
            // to this call (the caller's contract); one such slice lives at a time.
            unsafe { std::slice::from_raw_parts_mut(c.add(i * t.ldc + j0), nc) }
        };
        for i in 0..t.m {
            row(i).fill(T::ZERO);
        }
        for p0 in (0..t.k).step_by(KC) {
            let kc = KC.min(t.k - p0);
            for i in 0..t.m {
                let out = row(i);
                for (p, &x) in a[i * t.lda + p0..][..kc].iter().enumerate() {
                    let brow = &b[(p0 + p) * t.ldb + j0..][..nc];
                    for (o, &y) in out.iter_mut().zip(brow) {
                        *o = o.add(x.mul(y));
                    }
                }
            }
        }
    }
}

macro_rules! int_kernel {
    ($($t:ty),*) => {$(
        impl TileKernel for $t {
            unsafe fn tile(t: Tile, a: &[Self], b: &[Self], c: *mut Self) {
                // SAFETY: the caller's contract is `axpy_tile`'s.
                unsafe { axpy_tile(t, a, b, c) }
            }
        }
    )*};
}
int_kernel!(i8, u8, i16, u16, i32, u32, i64, u64);

/// Independent partial sums of a dot product: two AVX registers of f32, which the compiler
/// keeps in registers and vectorises. Lane `l` sums the products at `l, l + LANES, …`; the
/// lanes and then the tail are added in a fixed order, so a row's sum never depends on the
/// tiling.
const LANES: usize = 16;

fn dot<T: Arith>(x: &[T], y: &[T]) -> T {
    let mut acc = [T::ZERO; LANES];
    let (xs, ys) = (x.chunks_exact(LANES), y.chunks_exact(LANES));
    let (xt, yt) = (xs.remainder(), ys.remainder());
    for (xc, yc) in xs.zip(ys) {
        for l in 0..LANES {
            acc[l] = acc[l].add(xc[l].mul(yc[l]));
        }
    }
    let mut sum = acc.iter().fold(T::ZERO, |s, &v| s.add(v));
    for (&p, &q) in xt.iter().zip(yt) {
        sum = sum.add(p.mul(q));
    }
    sum
}

/// A matrix times a vector (`n == 1`, so B is one contiguous column): each output is a dot
/// product of a row of A with B. matrixmultiply packs A first, an extra pass over the
/// largest operand (1024² · 1024 f32: 0.30 ms against 0.04 ms for NumPy).
///
/// # Safety
/// As [`TileKernel::tile`], with `t.n == 1` and `t.ldb == 1`.
pub(super) unsafe fn matvec_tile<T: Arith>(t: Tile, a: &[T], b: &[T], c: *mut T) {
    let x = &b[..t.k];
    for i in 0..t.m {
        let v = dot(&a[i * t.lda..][..t.k], x);
        // SAFETY: element (i, 0) of the tile, valid and exclusive (the caller's contract).
        unsafe { c.add(i * t.ldc).write(v) };
    }
}
