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
//! Large launches (both sides at least 64, at least [`LARGE_MIN_TILES`] tiles) take tiles of
//! 64 × 64, sixteen elements per thread: with four, a thread's fixed work (finding its tile,
//! its addresses, the bounds) was most of its instructions — ~70 per element, the kernel
//! bound by instruction issue at 68 % of the copy bandwidth (H100, Nsight Compute) — and
//! each thread had only four loads in flight.
//!
//! **Specialised.** The kernel is compiled for its [`Tiling`] (the axis `a`, the tile's
//! shape, the grid's form), which is part of its layout: the batch decomposition, the shifts
//! and masks are constants.
//!
//! Kernel parameters: one pointer per input, the strides (`GaDims`, one per output axis) of
//! each strided input, the output pointer, the shape (`GaDims`), tiles along `L`, tiles along
//! `a`, total tiles, then one parameter per scalar.

use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Program;

use super::layout::{Class, EwLayout, EwOperand, Tiling};
use crate::kernels::cpp::element_types::{cty, load, mty, store};

/// Elements per tile, and per tile of a large launch.
const TILE_ELEMS: usize = 1024;
const LARGE_TILE_ELEMS: usize = 4096;
/// Threads per block (each moves a tile's elements over `BLOCK`).
pub const BLOCK: u32 = 256;
/// The shortest side of a tile, and the shortest axis the tiled kernel takes: shorter,
/// and the generic kernel is as good.
const MIN_SIDE: usize = 8;
/// A tile's side along an axis at least this long is 32 (and the tile square).
const SQUARE_SIDE: usize = 32;
/// The side of a large tile (both axes at least this long).
const LARGE_SIDE: usize = 64;
/// Large tiles only when there are at least this many (about four per multiprocessor on the
/// largest parts): below that, fewer, larger blocks would leave multiprocessors idle.
pub const LARGE_MIN_TILES: usize = 512;

static LARGE_MIN: AtomicUsize = AtomicUsize::new(LARGE_MIN_TILES);

/// Sets the number of large tiles from which later launches in this process take them
/// (`None`: [`LARGE_MIN_TILES`]). Results do not depend on it; for tests of large tiles on
/// small inputs.
pub fn set_large_tile_min(tiles: Option<usize>) {
    LARGE_MIN.store(tiles.unwrap_or(LARGE_MIN_TILES), Ordering::Relaxed);
}

/// Bytes of shared memory the tiles of one block may take (the static limit of a block on
/// both platforms).
const SHARED_BYTES: usize = 48 << 10;

/// Elements of one tile in shared memory: its elements plus one padding element per row
/// (a tile of 1024 has at most `1024 / MIN_SIDE` rows; a large one has 64).
const fn slots(elems: usize) -> usize {
    if elems == LARGE_TILE_ELEMS {
        elems + LARGE_SIDE
    } else {
        elems + elems / MIN_SIDE
    }
}

/// The tiling of this launch, when the tiled kernel applies to it (`layout` as planned for
/// the generic kernel): a program without random draws, a contiguous output, inputs that are
/// contiguous, broadcast or strided, at least one strided, the strided ones with a non-unit
/// stride along the last axis and a unit stride along one common axis `a`, both axes at
/// least `MIN_SIDE` long, and their tiles within `SHARED_BYTES` (48 KiB).
pub fn plan(
    program: &Program,
    shape: &[usize],
    inputs: &[EwOperand<'_>],
    layout: &EwLayout,
) -> Option<Tiling> {
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
    let tile_bytes: usize = strided().map(|o| o.dtype.size()).sum();
    let all_along_a = strided().all(|o| o.strides[a] == 1 && o.strides[last] != 0);
    if !all_along_a || slots(TILE_ELEMS) * tile_bytes > SHARED_BYTES {
        return None;
    }
    Some(tiling(shape, a, tile_bytes))
}

/// The tiling of `shape` with the strided inputs contiguous along `a`, their elements
/// `tile_bytes` bytes together.
pub fn tiling(shape: &[usize], a: usize, tile_bytes: usize) -> Tiling {
    let last = shape.len() - 1;
    let (na, nl) = (shape[a], shape[last]);
    let large = na >= LARGE_SIDE
        && nl >= LARGE_SIDE
        && slots(LARGE_TILE_ELEMS) * tile_bytes <= SHARED_BYTES
        && shape.iter().product::<usize>() / LARGE_TILE_ELEMS >= LARGE_MIN.load(Ordering::Relaxed);
    let (elems, side_l) = if large {
        (LARGE_TILE_ELEMS, LARGE_SIDE)
    } else {
        (TILE_ELEMS, side_along_l(na, nl))
    };
    let mut t = Tiling {
        a: a as u32,
        elems_log2: elems.trailing_zeros(),
        side_l_log2: side_l.trailing_zeros(),
        grid3: false,
    };
    t.grid3 = grid(&tiles(shape, &t)).1;
    t
}

/// The tiles of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiles {
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

/// The tiles of a launch over `shape` tiled by `t`.
pub fn tiles(shape: &[usize], t: &Tiling) -> Tiles {
    let (a, last) = (t.a as usize, shape.len() - 1);
    let side_l = 1usize << t.side_l_log2;
    let side_a = 1usize << (t.elems_log2 - t.side_l_log2);
    let tl = shape[last].div_ceil(side_l);
    let ta = shape[a].div_ceil(side_a);
    let batch: usize = shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != a && d != last)
        .map(|(_, &n)| n)
        .product();
    Tiles {
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
/// `layout.ndim` axes tiled by `t`, producing `out_dtype`.
pub fn body(
    program: &Program,
    layout: &EwLayout,
    t: &Tiling,
    out_dtype: DType,
    eval: &str,
) -> String {
    let ndim = layout.ndim;
    // The tile's coordinates in 32-bit arithmetic when the shape has fewer than 2^32
    // elements: a 64-bit division is a long software sequence.
    let ti = if layout.idx32 { "u32" } else { "i64" };
    let (elems, side_l_log2, a) = (1usize << t.elems_log2, t.side_l_log2, t.a);
    let slots = slots(elems);
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
    params.push("const GaDims shape".into());
    params.push("const i64 tiles_l, const i64 tiles_a, const i64 total".into());
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
        let _ = writeln!(decls, "  __shared__ {m} tile{k}[{slots}];");
        let _ = write!(offsets, "i64 in_off{k} = 0; ");
        let _ = write!(regs, "{m} r{k}[GA_PER]; ");
        // The thread's first element of the tile and the step to its next one (rows of
        // GA_LDY); the unit stride along a is known.
        let _ = write!(
            starts,
            "const {m}* q{k} = p{k} + (in_off{k} + a0 + GA_LX + (l0 + GA_LY0) * st{k}.v[GA_L]); \
             const i64 qs{k} = (i64)GA_LDY * st{k}.v[GA_L]; "
        );
        let _ = write!(loads, "r{k}[i] = q{k}[i * qs{k}]; ");
        let _ = write!(keeps, "tile{k}[GA_LT + i * GA_LDY] = r{k}[i]; ");
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
        Class::Strided => load(d, &format!("tile{k}[GA_ST + i * GA_STEP]")),
        _ => load(d, &format!("p{k}[idx]")),
    }));
    args.extend((0..program.scalars.len()).map(|k| format!("s{k}")));
    let value = store(out_dtype, &format!("ga_eval({})", args.join(", ")));
    let params = params.join(", ");
    // With grid3 the grid is (tiles along L, tiles along a, batch): no division finds the
    // tile; else a grid-stride loop over every tile, found by division.
    let (tile_loop, find_tile) = if t.grid3 {
        (
            format!("for ({ti} blk = 0; blk < 1; ++blk)"),
            format!("const {ti} tl = blockIdx.x, ta = blockIdx.y; {ti} batch = blockIdx.z;"),
        )
    } else {
        (
            format!("for ({ti} blk = blockIdx.x; blk < ({ti})total; blk += gridDim.x)"),
            format!(
                "const {ti} tl = blk % ({ti})tiles_l; const {ti} rest = blk / ({ti})tiles_l; \
                 const {ti} ta = rest % ({ti})tiles_a; {ti} batch = rest / ({ti})tiles_a;"
            ),
        )
    };
    format!(
        r#"struct GaDims {{ i64 v[{ndim}]; }};
// A tile is GA_SA x GA_SL elements (a x L), stored as GA_SA rows of GA_SL + 1.
#define GA_L ({ndim} - 1)
#define GA_A {a}
#define GA_SL_LOG2 {side_l_log2}
#define GA_SA_LOG2 ({el} - GA_SL_LOG2)
#define GA_SL (1 << GA_SL_LOG2)
#define GA_SA (1 << GA_SA_LOG2)
#define GA_PER ({elems} / {BLOCK})
// Both sides are powers of two at most {BLOCK}, so a thread's elements share one
// coordinate and step by a constant along the other: element i of a thread is at
// (GA_LX, GA_LY0 + i * GA_LDY) when reading and (GA_SX0 + i * GA_SDX, GA_SY) when writing.
#define GA_LX (threadIdx.x & (GA_SA - 1))
#define GA_LY0 (threadIdx.x >> GA_SA_LOG2)
#define GA_LDY ({BLOCK} >> GA_SA_LOG2)
#define GA_SY (threadIdx.x & (GA_SL - 1))
#define GA_SX0 (threadIdx.x >> GA_SL_LOG2)
#define GA_SDX ({BLOCK} >> GA_SL_LOG2)
#define GA_LT (GA_LX * (GA_SL + 1) + GA_LY0)
#define GA_ST (GA_SX0 * (GA_SL + 1) + GA_SY)
#define GA_STEP (GA_SDX * (GA_SL + 1))
{eval}
__global__ void __launch_bounds__({BLOCK}) ga_ew({params}) {{
{decls}  const i64 na = shape.v[GA_A], nl = shape.v[GA_L];
  {tile_loop} {{
    {find_tile}
    // Offsets of the batch index over the other axes (row-major, last axis fastest).
    {offsets}i64 out_off = 0, out_stride_a = 0;
    {{
      i64 ostride = nl;
#pragma unroll
      for (int d = GA_L - 1; d >= 0; --d) {{
        if (d == GA_A) {{
          out_stride_a = ostride;
        }} else {{
          const i64 c = batch % ({ti})shape.v[d];
          batch /= ({ti})shape.v[d];
          {batch_offsets}out_off += c * ostride;
        }}
        ostride *= shape.v[d];
      }}
    }}
    const i64 a0 = (i64)ta * GA_SA, l0 = (i64)tl * GA_SL;
    // Read: consecutive threads take consecutive elements along a (contiguous in the inputs),
    // every load of a thread issued before the first is kept in the tile. Elements left
    // along each side, from the thread's first one:
    const i64 a_left = na - a0 - GA_LX, l_left = nl - l0 - GA_LY0;
    {regs}
    {starts}
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (a_left > 0 && i * GA_LDY < l_left) {{ {loads}}}
    }}
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (a_left > 0 && i * GA_LDY < l_left) {{ {keeps}}}
    }}
    __syncthreads();
    // Evaluate and write: consecutive threads take consecutive elements along L (contiguous
    // in the output and in the contiguous inputs).
    const i64 out_at = out_off + (a0 + GA_SX0) * out_stride_a + l0 + GA_SY;
    const i64 out_step = (i64)GA_SDX * out_stride_a;
    const i64 wa_left = na - a0 - GA_SX0, wl_left = nl - l0 - GA_SY;
#pragma unroll
    for (int i = 0; i < GA_PER; ++i) {{
      if (wl_left > 0 && i * GA_SDX < wa_left) {{
        const i64 idx = out_at + i * out_step;
        out[idx] = {value};
      }}
    }}
    __syncthreads();
  }}
}}
"#,
        el = t.elems_log2,
    )
}

#[cfg(test)]
#[path = "transpose_tests.rs"]
mod tests;
