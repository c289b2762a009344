//! Elementwise programs through shared-memory tiles: when the output is contiguous and the
//! strided inputs are all contiguous along one other axis `a` than the output's last axis `L`
//! (a `permute`/`transpose` that moves the innermost axis, `a * x.t() + y`), the generic
//! kernel reads them with a large stride. This kernel instead moves tiles of the (a, L) plane:
//! consecutive threads read consecutive elements of each strided input along `a` into shared
//! memory, the block synchronises, and consecutive threads then evaluate the program for
//! consecutive output elements along `L`, taking the strided inputs from the tiles and the
//! contiguous and broadcast ones from memory as the generic kernel does. The other axes index
//! the tiles' batch; their offsets come from the strides like the generic kernel's. A plain
//! copy is the program of one input.
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
//! Kernel parameters: one pointer per input, the strides (`GaDims`, one per output axis) of
//! each strided input, the output pointer, the shape (`GaDims`), `a`, log2 of the tile's side
//! along `L`, tiles along `L`, tiles along `a`, total tiles, `grid3` (the grid is tiles along
//! `L` × tiles along `a` × batch, see [`grid`]), then one parameter per scalar.

use std::fmt::Write;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Program;

use super::layout::{Class, EwLayout, EwOperand};
use crate::kernels::cpp::element_types::{cty, load, mty, store};

/// Elements per tile.
const TILE_ELEMS: usize = 1024;
/// Threads per block (each moves `TILE_ELEMS / BLOCK` elements of a tile).
pub const BLOCK: u32 = 256;
/// The shortest side of a tile, and the shortest axis the tiled kernel takes: shorter,
/// and the generic kernel is as good.
const MIN_SIDE: usize = 8;
/// A tile's side along an axis at least this long is 32 (and the tile square).
const SQUARE_SIDE: usize = 32;

/// Bytes of shared memory the tiles of one block may take (the static limit of a block on
/// both platforms).
const SHARED_BYTES: usize = 48 << 10;

/// Elements of one tile in shared memory: `TILE_ELEMS` plus one padding element per row
/// (at most `TILE_ELEMS / MIN_SIDE` rows).
const TILE_SLOTS: usize = TILE_ELEMS + TILE_ELEMS / MIN_SIDE;

/// The output axis along which every strided input is contiguous, when the tiled kernel
/// applies to this launch (`layout` as planned for the generic kernel): a program without
/// random draws, a contiguous output, inputs that are contiguous, broadcast or strided, at
/// least one strided, the strided ones with a non-unit stride along the last axis and a unit
/// stride along one common axis `a`, both axes at least `MIN_SIDE` long, and their tiles
/// within `SHARED_BYTES` (48 KiB).
pub fn contiguous_axis(
    program: &Program,
    shape: &[usize],
    inputs: &[EwOperand<'_>],
    layout: &EwLayout,
) -> Option<usize> {
    let nd = shape.len();
    if program.draws_random() || layout.output != Class::Contiguous || nd < 2 {
        return None;
    }
    let last = nd - 1;
    if shape[last] < MIN_SIDE || layout.inputs.contains(&Class::Rows) {
        return None;
    }
    let strided = || {
        inputs
            .iter()
            .zip(&layout.inputs)
            .filter(|(_, c)| **c == Class::Strided)
            .map(|(o, _)| o)
    };
    let first = strided().next()?.strides;
    if first[last] == 1 || first[last] == 0 {
        return None;
    }
    let a = (0..last).find(|&d| first[d] == 1 && shape[d] >= MIN_SIDE)?;
    let shared: usize = strided().map(|o| TILE_SLOTS * o.dtype.size()).sum();
    let all_along_a = strided().all(|o| o.strides[a] == 1 && o.strides[last] != 0);
    (all_along_a && shared <= SHARED_BYTES).then_some(a)
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

/// The grid of a launch and whether it is three-dimensional (tiles along `L`, tiles along
/// `a`, the batch: each block finds its tile without dividing) — where the hardware limits
/// allow (65,535 blocks along y and z) — else one dimension over every tile, each block
/// finding its tile by division in a grid-stride loop.
pub fn grid(t: &Tiles) -> ([u32; 3], bool) {
    let batch = t.total / (t.along_l * t.along_a).max(1);
    if t.along_l <= i32::MAX as usize && t.along_a <= 65_535 && batch <= 65_535 {
        (
            [t.along_l as u32, t.along_a as u32, batch.max(1) as u32],
            true,
        )
    } else {
        ([t.total.clamp(1, i32::MAX as usize) as u32, 1, 1], false)
    }
}

/// The body of the tiled kernel of `program` (its `ga_eval` function is `eval`) over
/// `layout.ndim` axes, producing `out_dtype`.
pub fn body(program: &Program, layout: &EwLayout, out_dtype: DType, eval: &str) -> String {
    let ndim = layout.ndim;
    // The tile's coordinates in 32-bit arithmetic when the shape has fewer than 2^32
    // elements: a 64-bit division is a long software sequence, and every thread repeats the
    // four of each tile.
    let ti = if layout.idx32 { "u32" } else { "i64" };
    let elems_log2 = TILE_ELEMS.trailing_zeros();
    let classes = || program.inputs.iter().zip(&layout.inputs).enumerate();
    let tiled = || classes().filter(|(_, (_, c))| **c == Class::Strided);
    let mut params: Vec<String> = program
        .inputs
        .iter()
        .enumerate()
        .map(|(k, &d)| format!("const {}* __restrict__ p{k}", mty(d)))
        .collect();
    params.extend(tiled().map(|(k, _)| format!("const GaDims st{k}")));
    params.push(format!("{}* out", mty(out_dtype)));
    params.push("const GaDims shape, const int a, const int side_l_log2".into());
    params.push("const i64 tiles_l, const i64 tiles_a, const i64 total, const int grid3".into());
    params.extend(
        program
            .scalars
            .iter()
            .enumerate()
            .map(|(k, &d)| format!("const {} s{k}", mty(d))),
    );
    let (mut decls, mut offsets) = (String::new(), String::new());
    let (mut regs, mut loads, mut keeps) = (String::new(), String::new(), String::new());
    let mut starts = String::new();
    for (k, (&d, _)) in tiled() {
        let m = mty(d);
        let _ = writeln!(decls, "  __shared__ {m} tile{k}[{TILE_SLOTS}];");
        let _ = write!(offsets, "i64 in_off{k} = 0; ");
        let _ = write!(regs, "{m} r{k}[GA_PER]; ");
        // The thread's first element of the tile and the step to its next one (rows of ldy).
        let _ = write!(
            starts,
            "const {m}* q{k} = p{k} + (in_off{k} + (a0 + lx) * st{k}.v[a] + (l0 + ly0) * st{k}.v[L]); \
             const i64 qs{k} = (i64)ldy * st{k}.v[L]; "
        );
        let _ = write!(loads, "r{k}[i] = q{k}[i * qs{k}]; ");
        let _ = write!(keeps, "tile{k}[lt + i * ldy] = r{k}[i]; ");
    }
    let batch_offsets: String = tiled()
        .map(|(k, _)| format!("in_off{k} += c * st{k}.v[d]; "))
        .collect();
    for (k, (&d, c)) in classes() {
        if *c == Class::Broadcast {
            let _ = writeln!(
                decls,
                "  const {} b{k} = {};",
                cty(d),
                load(d, &format!("p{k}[0]"))
            );
        }
    }
    let mut args = vec!["idx".to_string()];
    args.extend(classes().map(|(k, (&d, c))| match c {
        Class::Broadcast => format!("b{k}"),
        Class::Strided => load(d, &format!("tile{k}[st_at + i * st_step]")),
        _ => load(d, &format!("p{k}[idx]")),
    }));
    args.extend((0..program.scalars.len()).map(|k| format!("s{k}")));
    let value = store(out_dtype, &format!("ga_eval({})", args.join(", ")));
    let params = params.join(", ");
    format!(
        r#"struct GaDims {{ i64 v[{ndim}]; }};
#define GA_TE {TILE_ELEMS}
#define GA_PER ({TILE_ELEMS} / {BLOCK})
{eval}
__global__ void __launch_bounds__({BLOCK}) ga_ew({params}) {{
  // A tile is side_a x side_l elements, stored as side_a rows of side_l + 1; side_l >= {MIN_SIDE},
  // so side_a <= GA_TE / {MIN_SIDE}.
{decls}  const int L = {ndim} - 1;
  const int side_a_log2 = {elems_log2} - side_l_log2;
  const int side_l = 1 << side_l_log2, side_a = 1 << side_a_log2;
  const i64 na = shape.v[a], nl = shape.v[L];
  // Both sides are powers of two at most {BLOCK}, so a thread's elements share one
  // coordinate and step by a constant along the other: element i of a thread is at
  // (lx, ly0 + i * ldy) when reading and (sx0 + i * sdx, sy) when writing. Addresses are
  // computed once per tile and advanced by a constant, not from the coordinates each time:
  // the kernel was bound by instructions (80 % of the SM's issue rate at 58 % of the copy
  // bandwidth on the H100, Nsight Compute).
  const int lx = threadIdx.x & (side_a - 1), ly0 = threadIdx.x >> side_a_log2, ldy = {BLOCK} >> side_a_log2;
  const int sy = threadIdx.x & (side_l - 1), sx0 = threadIdx.x >> side_l_log2, sdx = {BLOCK} >> side_l_log2;
  const int lt = lx * (side_l + 1) + ly0;
  const int st_at = sx0 * (side_l + 1) + sy, st_step = sdx * (side_l + 1);
  // With grid3 the grid is (tiles along L, tiles along a, batch): no division finds the tile.
  const {ti} tiles = grid3 ? ({ti})1 : ({ti})total;
  for ({ti} blk = grid3 ? 0 : blockIdx.x; blk < tiles; blk += gridDim.x) {{
    {ti} tl, ta, batch;
    if (grid3) {{
      tl = blockIdx.x; ta = blockIdx.y; batch = blockIdx.z;
    }} else {{
      tl = blk % ({ti})tiles_l;
      const {ti} rest = blk / ({ti})tiles_l;
      ta = rest % ({ti})tiles_a;
      batch = rest / ({ti})tiles_a;
    }}
    // Offsets of the batch index over the other axes (row-major, last axis fastest).
    {offsets}i64 out_off = 0, out_stride_a = 0;
    {{
      i64 ostride = nl;
#pragma unroll
      for (int d = L - 1; d >= 0; --d) {{
        if (d == a) {{
          out_stride_a = ostride;
        }} else {{
          const i64 c = batch % ({ti})shape.v[d];
          batch /= ({ti})shape.v[d];
          {batch_offsets}out_off += c * ostride;
        }}
        ostride *= shape.v[d];
      }}
    }}
    const i64 a0 = (i64)ta * side_a, l0 = (i64)tl * side_l;
    // Read: consecutive threads take consecutive elements along a (contiguous in the inputs),
    // every load of a thread issued before the first is kept in the tile.
    {regs}
    {starts}
    const bool a_in = a0 + lx < na;
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (a_in && l0 + ly0 + i * ldy < nl) {{ {loads}}}
    }}
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (a_in && l0 + ly0 + i * ldy < nl) {{ {keeps}}}
    }}
    __syncthreads();
    // Evaluate and write: consecutive threads take consecutive elements along L (contiguous
    // in the output and in the contiguous inputs).
    const i64 out_at = out_off + (a0 + sx0) * out_stride_a + l0 + sy;
    const i64 out_step = (i64)sdx * out_stride_a;
    const bool l_in = l0 + sy < nl;
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (l_in && a0 + sx0 + i * sdx < na) {{
        const i64 idx = out_at + i * out_step;
        out[idx] = {value};
      }}
    }}
    __syncthreads();
  }}
}}
"#
    )
}

#[cfg(test)]
#[path = "transpose_tests.rs"]
mod tests;
