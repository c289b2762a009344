//! Batched matrix products: the output of each matrix is cut into tiles of whole rows (or,
//! for matrices of few rows, of column ranges), the tiles run in parallel, and each tile is
//! one call of its type's kernel (`kernels.rs`: matrixmultiply for floats and complex, a
//! cache-blocked wrapping loop for integers).
//!
//! Results never depend on the thread count: the tiles depend only on the shapes, every tile
//! sums the whole of k itself, and no tile's k sum is ever split (see `kernels.rs` for why
//! the tiling does not change results either).

mod kernels;

use gpuarrays_core::kernel::MatmulArgs;
use rayon::prelude::*;

use gpuarrays_core::host::semantics::Accumulate;
use gpuarrays_core::{DType, bf16, dispatch_dtype, f16};

use crate::buffer::{CpuBuffer, Stored, distinct};
use crate::error::{CpuError, invalid_dtype};
use kernels::{Tile, TileKernel};

/// The fewest rows of a tile. matrixmultiply repacks the whole of B for every call, so a
/// tile of few rows pays for B's packing with little work (1024² f32 in 64-row tiles would
/// pack B's 4 MiB sixteen times, once per 134 MFLOP of work).
const MIN_ROWS: usize = 128;
/// At most this many row tiles per matrix (more only repack B more often): enough for the
/// pool of a few cores to balance.
const MAX_ROW_TILES: usize = 8;
/// Matrices with fewer rows than this are cut into column ranges instead, of at least
/// `MIN_COLS` columns (a product with one row, `x · B`, would else run on one thread).
const MIN_COLS: usize = 256;

/// The output pointer, shared by the tiles that write disjoint parts of it.
#[derive(Clone, Copy)]
struct Out<T>(*mut T);
// SAFETY: the tiles of one call write disjoint elements through it (see `tiles`), and the
// call holds the output buffer exclusively until every tile has finished.
unsafe impl<T: Send> Send for Out<T> {}
// SAFETY: as above: no element is written by two tiles, none is read.
unsafe impl<T: Send> Sync for Out<T> {}

impl<T> Out<T> {
    /// The pointer (a method, so that closures capture the `Sync` wrapper, not the field).
    fn ptr(self) -> *mut T {
        self.0
    }
}

/// The tiles of one `m × n` matrix: (first row, rows, first column, columns). Whole rows
/// when there are enough rows; column ranges when there are few.
fn tiles(m: usize, n: usize) -> Vec<(usize, usize, usize, usize)> {
    if m >= 2 * MIN_ROWS || n < 2 * MIN_COLS {
        let rows = m.div_ceil(MAX_ROW_TILES).max(MIN_ROWS).min(m);
        (0..m)
            .step_by(rows)
            .map(|i| (i, rows.min(m - i), 0, n))
            .collect()
    } else {
        let cols = n.div_ceil(MAX_ROW_TILES).max(MIN_COLS);
        (0..n)
            .step_by(cols)
            .map(|j| (0, m, j, cols.min(n - j)))
            .collect()
    }
}

fn matmul<T: TileKernel + bytemuck::Pod>(a: &MatmulArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    let (lhs, rhs) = operands::<T>(a)?;
    // SAFETY: the output is a distinct buffer (checked by `operands`) only this call writes.
    let out: &mut [T] = unsafe { a.output.slice_mut(a.output_offset, a.batch * a.m * a.n)? };
    compute(a, lhs, rhs, out);
    Ok(())
}

/// The operands of `a` as slices of `T`, checked distinct from the output.
fn operands<'a, T: bytemuck::Pod>(
    a: &'a MatmulArgs<'_, CpuBuffer>,
) -> Result<(&'a [T], &'a [T]), CpuError> {
    distinct(a.a, a.output)?;
    distinct(a.b, a.output)?;
    let (m, n, k) = (a.m, a.n, a.k);
    let span = |stride: usize, per: usize| (a.batch - 1) * stride + per;
    // SAFETY: inputs are only read; the output is a distinct buffer only this call writes.
    let lhs: &[T] = unsafe { a.a.slice(a.a_offset, span(a.a_batch_stride, m * k))? };
    // SAFETY: as above.
    let rhs: &[T] = unsafe { a.b.slice(a.b_offset, span(a.b_batch_stride, k * n))? };
    Ok((lhs, rhs))
}

/// f16 and bf16: the operands widened to f32 (exact), multiplied and summed in f32, each
/// result rounded once, as cuBLAS's and rocBLAS's half products with f32 accumulation do.
fn matmul_half<H: Accumulate<Acc = f32> + bytemuck::Pod>(
    a: &MatmulArgs<'_, CpuBuffer>,
) -> Result<(), CpuError> {
    let (lhs, rhs) = operands::<H>(a)?;
    let widen = |x: &[H]| -> Vec<f32> { x.par_iter().map(|&v| v.to_acc()).collect() };
    let (lhs, rhs) = (widen(lhs), widen(rhs));
    let mut wide = vec![0f32; a.batch * a.m * a.n];
    compute(a, &lhs, &rhs, &mut wide);
    // SAFETY: the output is a distinct buffer (checked by `operands`) only this call writes.
    let out: &mut [H] = unsafe { a.output.slice_mut(a.output_offset, wide.len())? };
    out.par_iter_mut()
        .zip(&wide)
        .with_min_len(crate::parallel::min_len())
        .for_each(|(o, &w)| *o = H::from_acc(w));
    Ok(())
}

/// `out = lhs · rhs` for the dimensions of `a`, in parallel over tiles.
fn compute<T: TileKernel>(a: &MatmulArgs<'_, CpuBuffer>, lhs: &[T], rhs: &[T], out: &mut [T]) {
    let (m, n, k) = (a.m, a.n, a.k);
    if k == 0 {
        out.fill(T::ZERO);
        return;
    }
    let per_matrix = tiles(m, n);
    let jobs: Vec<(usize, (usize, usize, usize, usize))> = (0..a.batch)
        .flat_map(|b| per_matrix.iter().map(move |&t| (b, t)))
        .collect();
    // One kernel per call, by shape (see each kernel's note for why).
    let kernel: unsafe fn(Tile, &[T], &[T], *mut T) = if n == 1 {
        kernels::matvec_tile
    } else if m == 1 {
        kernels::axpy_tile
    } else {
        T::tile
    };
    let base = Out(out.as_mut_ptr());
    jobs.into_par_iter()
        .with_min_len(crate::parallel::min_len())
        .for_each(|(b, (i0, rows, j0, cols))| {
            let tile = Tile {
                m: rows,
                n: cols,
                k,
                lda: k,
                ldb: n,
                ldc: n,
            };
            let at = &lhs[b * a.a_batch_stride + i0 * k..][..tile.a_len()];
            let bt = &rhs[b * a.b_batch_stride + j0..][..tile.b_len()];
            let c = base.ptr();
            // SAFETY: `out` holds `batch·m·n` elements, so the tile's rows `i0..i0 + rows`,
            // columns `j0..j0 + cols` of matrix `b` lie inside it; the tiles of `tiles` are
            // disjoint and each (matrix, tile) pair is one job, so no element is written
            // twice; `at` and `bt` hold exactly the elements of A and B the tile reads; with
            // `n == 1` (the matrix-vector kernel) `ldb` is 1.
            unsafe { kernel(tile, at, bt, c.add(b * m * n + i0 * n + j0)) };
        });
}

pub(crate) fn run(a: &MatmulArgs<'_, CpuBuffer>) -> Result<(), CpuError> {
    match a.dtype {
        DType::F16 => matmul_half::<f16>(a),
        DType::BF16 => matmul_half::<bf16>(a),
        _ => dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, C32, C64],
            T => matmul::<Stored<T>>(a), else other => invalid_dtype("matmul", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::tiles;

    /// Every element of the output in exactly one tile, for shapes on both sides of the
    /// row/column switch.
    #[test]
    fn tiles_cover_the_output_once() {
        for (m, n) in [
            (1, 1),
            (1, 1000),
            (3, 700),
            (255, 513),
            (256, 3),
            (1024, 1024),
            (1000, 1),
        ] {
            let mut seen = vec![0u8; m * n];
            for (i0, r, j0, c) in tiles(m, n) {
                for i in i0..i0 + r {
                    for j in j0..j0 + c {
                        seen[i * n + j] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{m}x{n}");
        }
    }
}
