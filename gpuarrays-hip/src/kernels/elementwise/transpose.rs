//! Permuting copies through shared memory: when an elementwise program is a plain copy whose
//! output is contiguous and whose input is contiguous along some other axis `a` than the
//! output's last axis `L` (every `permute`/`transpose` that moves the innermost axis), the
//! generic kernel reads or writes with a large stride. This kernel instead moves tiles of
//! the (a, L) plane through shared memory: consecutive threads read consecutive input
//! elements along `a`, the block transposes the tile and consecutive threads write
//! consecutive output elements along `L`. The other axes index the tiles' batch; their
//! offsets come from the strides like the generic kernel's.
//!
//! **Banks.** The tile's rows are padded by one element. With 4-byte elements a warp's
//! shared-memory accesses then hit 32 distinct banks in both phases of a 32 × 32 tile;
//! oblong tiles keep 2-way conflicts in one phase, 4-way when `a` is the short side with 8
//! elements (computed from the index formulas, not measured).
//!
//! **Tile shape.** A tile holds 1024 elements, 32 × 32 when both sides are long. When one
//! side is short (8 to 31), the tile takes that side rounded up to a power of two and is
//! longer along the other (8 × 128, 16 × 64), so every thread still moves an element: the
//! suite's `permutedims/4d` row (output `[40, 25, 64, 8]`, `L` of 8) used a quarter of each
//! 32 × 32 tile and ran at 324 GB/s where the 3-D row ran at 722 GB/s (H200, 2026-12-02).
//!
//! Kernel parameters: input pointer, its strides (`GaDims`, one per output axis), output
//! pointer, the shape (`GaDims`), `a`, log2 of the tile's side along `L`, tiles along `L`,
//! tiles along `a`, total tiles.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{Node, Program};

use super::layout::{Class, EwLayout, EwOperand};
use crate::kernels::cpp::element_types::mty;

/// Elements per tile.
const TILE_ELEMS: usize = 1024;
/// Threads per block (each moves `TILE_ELEMS / BLOCK` elements of a tile).
pub const BLOCK: u32 = 256;
/// The shortest side of a tile, and the shortest axis the tiled kernel takes: shorter,
/// and the generic kernel is as good.
const MIN_SIDE: usize = 8;
/// A tile's side along an axis at least this long is 32 (and the tile square).
const SQUARE_SIDE: usize = 32;

/// The output axis along which the input is contiguous, when the tiled kernel applies to this
/// launch (`layout` as planned for the generic kernel).
pub fn contiguous_axis(
    program: &Program,
    shape: &[usize],
    inputs: &[EwOperand<'_>],
    output: &EwOperand<'_>,
    layout: &EwLayout,
) -> Option<usize> {
    let copy = matches!(program.instrs.as_slice(), [i] if i.node == Node::Input(0))
        && program.inputs.len() == 1
        && program.scalars.is_empty()
        && inputs.len() == 1
        && inputs[0].dtype == output.dtype;
    if !copy || layout.output != Class::Contiguous || layout.inputs[0] != Class::Strided {
        return None;
    }
    let nd = shape.len();
    if nd < 2 {
        return None;
    }
    let st = inputs[0].strides;
    let last = nd - 1;
    if st[last] == 1 || st[last] == 0 || shape[last] < MIN_SIDE {
        return None;
    }
    (0..last).find(|&d| st[d] == 1 && shape[d] >= MIN_SIDE)
}

/// The tiles of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiles {
    /// log2 of a tile's side along the last axis (its side along `a` is 1024 over that).
    pub side_l_log2: u32,
    /// Tiles along the last axis.
    pub along_l: usize,
    /// Tiles along `a`.
    pub along_a: usize,
    /// Tiles in total (the batch of the other axes included).
    pub total: usize,
}

/// A tile's side along the last axis: the square's side when both axes are long; else
/// the short one's length rounded up to a power of two (at least [`MIN_SIDE`]) on its side,
/// the rest of the tile's elements on the other.
fn side_along_l(na: usize, nl: usize) -> usize {
    let short = |n: usize| n.next_power_of_two().clamp(MIN_SIDE, SQUARE_SIDE);
    if nl < SQUARE_SIDE {
        short(nl)
    } else if na < SQUARE_SIDE {
        TILE_ELEMS / short(na)
    } else {
        SQUARE_SIDE
    }
}

/// The tiles of a launch over `shape` with the input contiguous along `a`.
pub fn tiles(shape: &[usize], a: usize) -> Tiles {
    let last = shape.len() - 1;
    let side_l = side_along_l(shape[a], shape[last]);
    let tl = shape[last].div_ceil(side_l);
    let ta = shape[a].div_ceil(TILE_ELEMS / side_l);
    let batch: usize = shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != a && d != last)
        .map(|(_, &n)| n)
        .product();
    Tiles {
        side_l_log2: side_l.trailing_zeros(),
        along_l: tl,
        along_a: ta,
        total: tl * ta * batch,
    }
}

/// The body of the tiled copy of `dtype` over `ndim` axes.
pub fn body(dtype: DType, ndim: u32) -> String {
    let m = mty(dtype);
    let elems_log2 = TILE_ELEMS.trailing_zeros();
    format!(
        r#"struct GaDims {{ i64 v[{ndim}]; }};
#define GA_TE {TILE_ELEMS}
__global__ void __launch_bounds__({BLOCK}) ga_ew(const {m}* __restrict__ p0, const GaDims st0, {m}* __restrict__ out, const GaDims shape, const int a, const int side_l_log2, const i64 tiles_l, const i64 tiles_a, const i64 total) {{
  // A tile is side_a x side_l elements, stored as side_a rows of side_l + 1; side_l >= {MIN_SIDE},
  // so side_a <= GA_TE / {MIN_SIDE}.
  __shared__ {m} tile[GA_TE + GA_TE / {MIN_SIDE}];
  const int L = {ndim} - 1;
  const int side_a_log2 = {elems_log2} - side_l_log2;
  const int side_l = 1 << side_l_log2, side_a = 1 << side_a_log2;
  const i64 na = shape.v[a], nl = shape.v[L];
  const i64 sa = st0.v[a], sl = st0.v[L];
  for (i64 blk = blockIdx.x; blk < total; blk += gridDim.x) {{
    const i64 tl = blk % tiles_l;
    const i64 rest = blk / tiles_l;
    const i64 ta = rest % tiles_a;
    i64 batch = rest / tiles_a;
    // Offsets of the batch index over the other axes (row-major, last axis fastest).
    i64 in_off = 0, out_off = 0, out_stride_a = 0;
    {{
      i64 ostride = nl;
#pragma unroll
      for (int d = L - 1; d >= 0; --d) {{
        if (d == a) {{
          out_stride_a = ostride;
        }} else {{
          const i64 c = batch % shape.v[d];
          batch /= shape.v[d];
          in_off += c * st0.v[d];
          out_off += c * ostride;
        }}
        ostride *= shape.v[d];
      }}
    }}
    const i64 a0 = ta * side_a, l0 = tl * side_l;
    // Read: consecutive threads take consecutive elements along a (contiguous in the input).
    for (int e = threadIdx.x; e < GA_TE; e += blockDim.x) {{
      const int x = e & (side_a - 1), y = e >> side_a_log2;
      const i64 aa = a0 + x, ll = l0 + y;
      if (aa < na && ll < nl) tile[x * (side_l + 1) + y] = p0[in_off + aa * sa + ll * sl];
    }}
    __syncthreads();
    // Write: consecutive threads take consecutive elements along L (contiguous in the output).
    for (int e = threadIdx.x; e < GA_TE; e += blockDim.x) {{
      const int y = e & (side_l - 1), x = e >> side_l_log2;
      const i64 aa = a0 + x, ll = l0 + y;
      if (aa < na && ll < nl) out[out_off + aa * out_stride_a + ll] = tile[x * (side_l + 1) + y];
    }}
    __syncthreads();
  }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::DevicePtr;
    use gpuarrays_core::kernel::Instr;

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
            transpose: false,
            one_step: false,
            per_thread: 1,
        }
    }

    #[test]
    fn applies_to_permutes_that_move_the_innermost_axis() {
        let op = |strides| EwOperand {
            ptr: DevicePtr(0),
            dtype: DType::F32,
            strides,
        };
        let out_st = [512 * 256isize, 256, 1];
        let out = op(&out_st);
        // (2, 1, 0) of 256×512×512: output [512, 512, 256], input strides [1, 512, 512·512].
        let st = [1isize, 512, 512 * 512];
        let shape = [512, 512, 256];
        let a = contiguous_axis(&copy(DType::F32), &shape, &[op(&st)], &out, &layout(3));
        assert_eq!(a, Some(0));
        let t = tiles(&shape, 0);
        assert_eq!((t.side_l_log2, t.along_l, t.along_a), (5, 8, 16));
        assert_eq!(t.total, 8 * 16 * 512);
        // The innermost axis stays innermost: the generic kernel is coalesced already.
        let st = [512isize, 512 * 512, 1];
        assert_eq!(
            contiguous_axis(&copy(DType::F32), &shape, &[op(&st)], &out, &layout(3)),
            None
        );
        // Not a copy.
        let mut p = copy(DType::F32);
        p.instrs.push(Instr {
            node: Node::Cast(DType::F64, 0),
            dtype: DType::F64,
        });
        let st = [1isize, 512, 512 * 512];
        assert_eq!(
            contiguous_axis(&p, &shape, &[op(&st)], &out, &layout(3)),
            None
        );
    }

    #[test]
    fn short_sides_take_oblong_tiles_of_1024_elements() {
        let t = |shape: &[usize], a| {
            let t = tiles(shape, a);
            (1usize << t.side_l_log2, t.along_l, t.along_a, t.total)
        };
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
}
