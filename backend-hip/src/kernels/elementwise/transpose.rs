//! Permuting copies through shared memory: when an elementwise program is a plain copy whose
//! output is contiguous and whose input is contiguous along some other axis `a` than the
//! output's last axis `L` (every `permute`/`transpose` that moves the innermost axis), the
//! generic kernel reads or writes with a large stride. This kernel instead moves 32×32 tiles
//! of the (a, L) plane: a warp reads 32 consecutive input elements along `a`, the block
//! transposes the tile in shared memory (padded by one element against bank conflicts) and a
//! warp writes 32 consecutive output elements along `L`. The other axes index the tiles'
//! batch; their offsets come from the strides like the generic kernel's.
//!
//! Kernel parameters: input pointer, its strides (`GaDims`, one per output axis), output
//! pointer, the shape (`GaDims`), `a`, tiles along `L`, tiles along `a`, total tiles.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{Node, Program};

use super::layout::{Class, EwLayout, EwOperand};
use crate::kernels::cpp::element_types::mty;

/// Tile side.
pub const TILE: usize = 32;
/// Threads per block: 32 × [`ROWS`].
pub const ROWS: u32 = 8;
/// Both tiled axes must be at least this long, or the generic kernel is as good.
const MIN_SIDE: usize = 8;

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

/// Tiles of a launch: (along the last axis, along `a`, in total).
pub fn tiles(shape: &[usize], a: usize) -> (usize, usize, usize) {
    let last = shape.len() - 1;
    let tl = shape[last].div_ceil(TILE);
    let ta = shape[a].div_ceil(TILE);
    let batch: usize = shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != a && d != last)
        .map(|(_, &n)| n)
        .product();
    (tl, ta, tl * ta * batch)
}

/// The body of the tiled copy of `dtype` over `ndim` axes.
pub fn body(dtype: DType, ndim: u32) -> String {
    let m = mty(dtype);
    let block = TILE as u32 * ROWS;
    format!(
        r#"struct GaDims {{ i64 v[{ndim}]; }};
#define GA_TT {TILE}
__global__ void __launch_bounds__({block}) ga_ew(const {m}* __restrict__ p0, const GaDims st0, {m}* __restrict__ out, const GaDims shape, const int a, const i64 tiles_l, const i64 tiles_a, const i64 total) {{
  __shared__ {m} tile[GA_TT][GA_TT + 1];
  const int L = {ndim} - 1;
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
    const i64 a0 = ta * GA_TT, l0 = tl * GA_TT;
    for (int i = threadIdx.y; i < GA_TT; i += blockDim.y) {{
      const i64 aa = a0 + threadIdx.x, ll = l0 + i;
      if (aa < na && ll < nl) tile[i][threadIdx.x] = p0[in_off + aa * sa + ll * sl];
    }}
    __syncthreads();
    for (int i = threadIdx.y; i < GA_TT; i += blockDim.y) {{
      const i64 aa = a0 + i, ll = l0 + threadIdx.x;
      if (aa < na && ll < nl) out[out_off + aa * out_stride_a + ll] = tile[threadIdx.x][i];
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
        assert_eq!(tiles(&shape, 0), (8, 16, 8 * 16 * 512));
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
}
