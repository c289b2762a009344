//! Elementwise kernels over every operand layout, run for real on the CPU through the
//! emulated platform of `emulator/` and compared with the CPU reference backend bit for bit:
//! the launch plan recalled across changing layouts, strided outputs, rows of strided
//! operands taken a vector at a time, and programs evaluated from shared-memory tiles.
//! Skipped (with a printed reason) when `g++` is missing.

mod emulator;
mod kernel_checks;

use gpuarrays_core::{Array, Backend, DType, Expr};
use gpuarrays_cpu_ref::CpuBackend;

/// One program (`x * 2 + y`) on this thread back to back over operands that differ in what
/// the launch plan depends on: shape, the broadcast and strided classes (the same shape with
/// another class too), an unaligned start, and back. The backend keeps the last launch's plan per thread (`launch_memo.rs`): a plan
/// recalled for operands it was not made for would read the wrong elements here.
#[test]
fn one_program_over_changing_layouts_matches_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let cpu = CpuBackend::new();
    let values = kernel_checks::f32_values(1200, 11);
    fn layouts<B: Backend>(b: &B, v: &[f32]) -> Vec<Vec<f32>> {
        let all = Array::from_slice(b, &[v.len()], v).expect("upload");
        let x = |r: std::ops::Range<usize>| all.slice(r).expect("slice");
        let run = |x: &Array<f32, B>, y: &Array<f32, B>| {
            (x.ex() * 2.0f32 + y.ex())
                .eval::<f32>()
                .expect("eval")
                .to_vec()
                .expect("download")
        };
        let rows = |r: std::ops::Range<usize>, d: &[isize]| x(r).reshape(d).expect("reshape");
        vec![
            run(&x(0..1000), &x(100..1100)),
            run(&x(0..1000), &x(100..101)),
            run(&x(1..1001), &x(100..1100)),
            run(&x(0..1000), &x(100..1100)),
            run(&rows(0..1000, &[40, 25]), &x(1000..1025)),
            run(&rows(0..1000, &[40, 25]), &rows(1000..1040, &[40, 1])),
            run(&rows(0..1000, &[40, 25]), &rows(100..1100, &[40, 25])),
            run(&x(3..1003), &x(100..1100)),
            run(&x(0..1000), &x(100..1100)),
        ]
    }
    let (got, want) = (layouts(&hip, &values), layouts(&cpu, &values));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        kernel_checks::assert_same_bits(g, w, &format!("x*2+y, layout {i}"));
    }
}

/// Writes into strided views (a column, a reversed axis, every other element of a 2-D
/// block, a transposed destination) through the generated kernels' strided output, against
/// the CPU reference, for a 4-byte, a 1-byte and a 16-byte type.
#[test]
fn strided_outputs_match_cpu() {
    use gpuarrays_core::s;
    let Some(hip) = emulator::backend() else {
        return;
    };
    fn run<B: Backend>(b: &B, dtype: DType) -> Vec<u8> {
        let n = 6 * 8;
        let base = Expr::index(b, &[6, 8]).cast(dtype).eval_raw().unwrap();
        let src = Expr::index(b, &[6, 4]).cast(dtype).eval_raw().unwrap();
        let writes: [(&[gpuarrays_core::SliceArg], bool); 4] = [
            (&s![.., 3], false),
            (&s![..;-1, 1..5], true),
            (&s![1..;2, ..;2], true),
            (&s![-1, ..;-3], false),
        ];
        for (sel, from_src) in writes {
            let dst = base.at(sel).unwrap();
            let value = if from_src {
                Expr::array(&src.at(&s![..dst.dims()[0], ..dst.dims()[1]]).unwrap())
            } else {
                Expr::index(b, dst.dims()).cast(dtype)
            };
            value.eval_into_raw(&dst).unwrap();
        }
        // A transposed destination reading a reversed source of the same buffer.
        let t = base.at(&s![..4, ..4]).unwrap().permute(&[1, 0]).unwrap();
        let r = base.at(&s![2.., 4..0;-1]).unwrap();
        Expr::array(&r).eval_into_raw(&t).unwrap();
        let bytes = base.to_bytes().unwrap();
        assert_eq!(bytes.len(), n * dtype.size());
        bytes
    }
    let cpu = CpuBackend::new();
    for dtype in [DType::F32, DType::U8, DType::C64] {
        assert_eq!(run(&hip, dtype), run(&cpu, dtype), "{dtype}");
    }
}

/// Operands that are strided but contiguous along their last axis (the elementwise kernel's
/// `Rows` class: one offset per vector, then vector loads and stores inside the row), against
/// the CPU reference: the pieces of concatenations along the last axis (rows of 8, 16 and 12
/// elements of 1-, 4-, 8- and 16-byte types), a padded interior, a row broadcast down a
/// matrix, rows read backwards by a negative row stride, and a row view whose start is not
/// aligned to a vector (which must fall back to element by element).
#[test]
fn rows_of_strided_operands_match_cpu() {
    use gpuarrays_core::s;
    let Some(hip) = emulator::backend() else {
        return;
    };
    fn run<B: Backend>(b: &B, dtype: DType) -> Vec<Vec<u8>> {
        let grid = |r: usize, c: usize, k: f64| {
            let e = Expr::index(b, &[r, c]).cast(DType::F64) * k + 1.0;
            e.cast(dtype).eval_raw().unwrap()
        };
        let (x, y, z) = (grid(33, 16, 0.5), grid(33, 8, 3.0), grid(33, 12, -1.0));
        let mut out = vec![];
        for pieces in [vec![&x, &y], vec![&y, &x, &z], vec![&z, &z]] {
            let joined = gpuarrays_core::RawArray::concatenate(&pieces, 1).unwrap();
            out.push(joined.to_bytes().unwrap());
        }
        let padded = x.pad(&[(2, 3), (4, 4)], gpuarrays_core::Pad::Edge).unwrap();
        out.push(padded.to_bytes().unwrap());
        // A row broadcast down the matrix, the rows read backwards, a block of columns
        // repeated along a new axis, and rows of 5 (too short for the contiguous operands'
        // vectors: read element by element), each beside a contiguous operand into a
        // contiguous result.
        let row = grid(1, 16, 2.0).broadcast_to(&[33, 16]).unwrap();
        let back = x.at(&s![..;-1, ..]).unwrap();
        for other in [
            &row,
            &back,
            &x.at(&s![.., 4..12])
                .unwrap()
                .broadcast_to(&[2, 33, 8])
                .unwrap(),
            &x.at(&s![.., 3..8]).unwrap(),
        ] {
            let dense = Expr::index(b, other.dims()).cast(dtype).eval_raw().unwrap();
            let sum = (Expr::array(other) + Expr::array(&dense))
                .eval_raw()
                .unwrap();
            out.push(sum.to_bytes().unwrap());
        }
        // Into rows of a larger array: an aligned block, then one starting one element in.
        let dst = grid(33, 24, 0.0);
        Expr::array(&back)
            .eval_into_raw(&dst.at(&s![.., 8..24]).unwrap())
            .unwrap();
        Expr::array(&y)
            .eval_into_raw(&dst.at(&s![.., 1..9]).unwrap())
            .unwrap();
        out.push(dst.to_bytes().unwrap());
        out
    }
    let cpu = CpuBackend::new();
    for dtype in [
        DType::U8,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C32,
        DType::I64,
    ] {
        let (got, want) = (run(&hip, dtype), run(&cpu, dtype));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{dtype}, case {i}");
        }
    }
}

/// Programs whose strided inputs are contiguous along another axis than the output's last
/// (the tiled kernel of `elementwise/transpose.rs`, which evaluates the whole program from
/// shared-memory tiles), against the CPU reference bit for bit: a transposed input beside a
/// contiguous one and a broadcast scalar, two inputs transposed alike, a batch axis, short
/// sides (8 and 12: oblong tiles), partial tiles, a cast, the index leaf, and 1-, 8- and
/// 16-byte types. Large tiles (64 × 64, taken from one tile on here) where both sides reach
/// 64 and the tiles fit the shared memory, partial ones included.
#[test]
fn tiled_programs_match_cpu() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    gpuarrays_hip::kernels::elementwise::transpose::set_large_tile_min(Some(1));
    fn run<B: Backend>(b: &B, dtype: DType) -> Vec<Vec<u8>> {
        let grid = |dims: &[usize], k: f64| {
            let e = Expr::index(b, dims).cast(DType::F64) * k + 1.0;
            e.cast(dtype).eval_raw().unwrap()
        };
        let mut out = vec![];
        let shapes = [
            (70, 45),
            (8, 150),
            (12, 40),
            (33, 16),
            (100, 9),
            (130, 70),
            (64, 64),
        ];
        for (rows, cols) in shapes {
            let xt = grid(&[cols, rows], 0.5).permute(&[1, 0]).unwrap();
            let ut = grid(&[cols, rows], -2.0).permute(&[1, 0]).unwrap();
            let y = grid(&[rows, cols], 3.0);
            let two = grid(&[1, 1], 0.0).broadcast_to(&[rows, cols]).unwrap();
            let programs = [
                Expr::array(&xt) * Expr::array(&two) + Expr::array(&y),
                Expr::array(&xt) - Expr::array(&ut),
                (Expr::array(&ut) + Expr::index(b, &[rows, cols]).cast(dtype)).cast(DType::F64),
            ];
            for e in programs {
                out.push(e.eval_raw().unwrap().to_bytes().unwrap());
            }
        }
        // A batch axis: [5, 40, 24] from [24, 5, 40] by (1, 2, 0), plus a contiguous operand;
        // [3, 80, 100] from [100, 3, 80] (large tiles).
        for (from, to) in [([24, 5, 40], [5, 40, 24]), ([100, 3, 80], [3, 80, 100])] {
            let x = grid(&from, 0.25).permute(&[1, 2, 0]).unwrap();
            let y = grid(&to, 1.5);
            out.push(
                (Expr::array(&x) + Expr::array(&y))
                    .eval_raw()
                    .unwrap()
                    .to_bytes()
                    .unwrap(),
            );
        }
        out
    }
    let cpu = CpuBackend::new();
    for dtype in [DType::F32, DType::U8, DType::F64, DType::C64] {
        let (got, want) = (run(&hip, dtype), run(&cpu, dtype));
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{dtype}, case {i}");
        }
    }
}
