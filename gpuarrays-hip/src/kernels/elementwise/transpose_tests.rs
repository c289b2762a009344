//! Unit tests of the tiled kernel's planning: when it applies, tile shapes, grids.

use super::*;
use crate::platform::DevicePtr;
use gpuarrays_core::kernel::random::Distribution;
use gpuarrays_core::kernel::{BinaryOp, Instr, Node};

fn copy(d: DType) -> Program {
    Program {
        inputs: vec![d],
        scalars: vec![],
        instrs: vec![Instr {
            node: Node::Input(0),
            dtype: d,
        }],
    }
}

fn layout(ndim: u32) -> EwLayout {
    EwLayout {
        inputs: [Class::Strided].into_iter().collect(),
        output: Class::Contiguous,
        vec: 1,
        ndim,
        idx32: true,
        transpose: None,
        one_step: false,
        per_thread: 1,
    }
}

/// The axis `a` of the tiling planned, if any.
fn contiguous_axis(
    program: &Program,
    shape: &[usize],
    inputs: &[EwOperand<'_>],
    layout: &EwLayout,
) -> Option<usize> {
    plan(program, shape, inputs, layout).map(|t| t.a as usize)
}

/// The tiles of `shape` for one f32 input contiguous along `a`: (side along L, tiles along
/// L, tiles along a, tiles in all).
fn tiles_f32(shape: &[usize], a: usize) -> (usize, usize, usize, usize) {
    let t = tiling(shape, a, 4);
    let n = tiles(shape, &t);
    (1 << t.side_l_log2, n.along_l, n.along_a, n.total)
}

fn op(dtype: DType, strides: &[isize]) -> EwOperand<'_> {
    EwOperand {
        ptr: DevicePtr(0),
        dtype,
        strides,
    }
}

#[test]
fn applies_to_permutes_that_move_the_innermost_axis() {
    // (2, 1, 0) of 256×512×512: output [512, 512, 256], input strides [1, 512, 512·512].
    let st = [1isize, 512, 512 * 512];
    let shape = [512, 512, 256];
    let input = [op(DType::F32, &st)];
    let a = contiguous_axis(&copy(DType::F32), &shape, &input, &layout(3));
    assert_eq!(a, Some(0));
    // 2^26 elements: tiles of 64 × 64.
    assert_eq!(tiles_f32(&shape, 0), (64, 4, 8, 4 * 8 * 512));
    // The innermost axis stays innermost: the generic kernel is coalesced already.
    let st = [512isize, 512 * 512, 1];
    let input = [op(DType::F32, &st)];
    assert_eq!(
        contiguous_axis(&copy(DType::F32), &shape, &input, &layout(3)),
        None
    );
}

/// `x.t() * 2 + y` (a program of two inputs) takes the tiles; random draws, rows of the
/// vector loop, strided inputs along different axes and tiles beyond the shared memory
/// do not.
#[test]
fn applies_to_programs_whose_strided_inputs_share_an_axis() {
    let d = DType::F32;
    let mut p = copy(d);
    p.inputs.push(d);
    p.scalars.push(d);
    p.instrs.push(Instr {
        node: Node::Input(1),
        dtype: d,
    });
    p.instrs.push(Instr {
        node: Node::Scalar(0),
        dtype: d,
    });
    p.instrs.push(Instr {
        node: Node::Binary(BinaryOp::Mul, 0, 2),
        dtype: d,
    });
    p.instrs.push(Instr {
        node: Node::Binary(BinaryOp::Add, 3, 1),
        dtype: d,
    });
    let shape = [300, 200];
    let (t, c, other) = ([1isize, 300], [200isize, 1], [1isize, 600]);
    let mut l = layout(2);
    l.inputs.push(Class::Contiguous);
    let ops = [op(d, &t), op(d, &c)];
    assert_eq!(contiguous_axis(&p, &shape, &ops, &l), Some(0));
    // Both inputs transposed, along the same axis: both tiled.
    let mut both = l.copied();
    both.inputs[1] = Class::Strided;
    let ops = [op(d, &t), op(d, &other)];
    assert_eq!(contiguous_axis(&p, &shape, &ops, &both), Some(0));
    // A strided input contiguous along no axis.
    let ops = [op(d, &t), op(d, &[2, 400])];
    assert_eq!(contiguous_axis(&p, &shape, &ops, &both), None);
    // Rows in the generic kernel's vector loop.
    let mut rows = l.copied();
    rows.inputs[1] = Class::Rows;
    assert_eq!(
        contiguous_axis(&p, &shape, &[op(d, &t), op(d, &c)], &rows),
        None
    );
    // Two 16-byte tiles fit in 48 KiB, three do not.
    let c64 = |k: usize| {
        let mut q = copy(DType::C64);
        q.inputs = vec![DType::C64; k];
        let mut l = layout(2);
        l.inputs = vec![Class::Strided; k].into_iter().collect();
        let ops = vec![op(DType::C64, &t); k];
        contiguous_axis(&q, &shape, &ops, &l)
    };
    assert_eq!((c64(2), c64(3)), (Some(0), None));
    // Random draws.
    let mut r = p.clone();
    r.instrs.push(Instr {
        node: Node::Random(Distribution::Uniform, 0),
        dtype: d,
    });
    assert_eq!(
        contiguous_axis(&r, &shape, &[op(d, &t), op(d, &c)], &l),
        None
    );
}

#[test]
fn short_sides_take_oblong_tiles_of_1024_elements() {
    let t = tiles_f32;
    // The suite's permutedims/4d output: L of 8 → 8 × 128 tiles, one per (a, L) plane.
    assert_eq!(t(&[40, 25, 64, 8], 2), (8, 1, 1, 1000));
    // L of 9..=16 → 16 along L, 64 along a.
    assert_eq!(t(&[33, 16], 0), (16, 1, 1, 1));
    assert_eq!(t(&[70, 9], 0), (16, 1, 2, 2));
    // L of 17..=31 rounds up to the square.
    assert_eq!(t(&[3, 70, 17], 1), (32, 1, 3, 9));
    // A short a: 128 along L when a has 8, 64 when it has 12.
    assert_eq!(t(&[8, 150], 0), (128, 2, 1, 2));
    assert_eq!(t(&[2, 12, 40], 1), (64, 1, 1, 2));
    // Both long: 32 × 32.
    assert_eq!(t(&[45, 37], 0), (32, 2, 2, 4));
}

/// Tiles along L × tiles along a × batch where y and z stay within 65,535 blocks; one
/// dimension over every tile otherwise.
#[test]
fn grids_are_three_dimensional_within_the_limits() {
    let g = |shape: &[usize], a| grid(&tiles(shape, &tiling(shape, a, 4)));
    assert_eq!(g(&[16384, 16384], 0), ([256, 256, 1], true));
    assert_eq!(g(&[40, 25, 64, 8], 2), ([1, 1, 1000], true));
    assert_eq!(g(&[70_000, 8, 16], 1), ([70_000, 1, 1], false));
    // A long axis a: 65,537 tiles along it.
    assert_eq!(g(&[65_536 * 32 + 1, 40], 0), ([131_074, 1, 1], false));
    // A long L: any number of tiles along x.
    assert_eq!(g(&[8, 65_536 * 128 + 1], 0), ([65_537, 1, 1], true));
}

/// Tiles of 64 × 64 (16 elements per thread) when both sides are at least 64 long, there
/// are at least `LARGE_MIN_TILES` of them and they fit the shared memory; else 1024.
#[test]
fn large_launches_take_tiles_of_4096() {
    let elems = |shape: &[usize], bytes| 1usize << tiling(shape, 0, bytes).elems_log2;
    assert_eq!(elems(&[4096, 4096], 4), 4096);
    // Two f32 tiles of 64 × 65 fit in 48 KiB; one of c128 does not.
    assert_eq!(elems(&[4096, 4096], 8), 4096);
    assert_eq!(elems(&[4096, 4096], 16), 1024);
    // A side shorter than 64.
    assert_eq!(elems(&[1 << 20, 63], 4), 1024);
    assert_eq!(elems(&[63, 1 << 20], 4), 1024);
    // Too few tiles: 511 of 4096 elements.
    assert_eq!(elems(&[511 * 64, 64], 4), 1024);
    assert_eq!(elems(&[512 * 64, 64], 4), 4096);
}
