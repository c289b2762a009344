//! C++ building blocks for kernels that combine values: warp-shuffle reductions and scans and
//! their block-wide forms, over an accumulator type `GaA` with `ga_combine`, `ga_identity`
//! and `ga_shfl_down`/`ga_shfl_up` defined before this text (see [`Combiner`]).
//!
//! Every tree has a fixed shape for a given block size and warp size, so results are the same
//! on every run (a reduction of floats is deterministic, if not in the CPU's order).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, ReduceOp, ScanOp};

use super::element_types::{cty, greatest, least, one, reg_size, store, zero};
use super::primitives;
use crate::error::Result;

/// Warp and block reduce / exclusive scan over `GaA`.
pub const LIBRARY: &str = r#"
GA_INLINE GaA ga_warp_reduce(GaA v) {
#pragma unroll
  for (int d = GA_WARP / 2; d > 0; d >>= 1) v = ga_combine(v, ga_shfl_down(v, d));
  return v;
}
// Called by every thread of the block; the result is valid in thread 0.
__device__ GaA ga_block_reduce(GaA v) {
  __shared__ GaA ga_red_smem[GA_MAX_WARPS];
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const int nw = (blockDim.x + GA_WARP - 1) / GA_WARP;
  v = ga_warp_reduce(v);
  if (lane == 0) ga_red_smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nw ? ga_red_smem[lane] : ga_identity();
    v = ga_warp_reduce(v);
  }
  __syncthreads();
  return v;
}
GA_INLINE GaA ga_warp_inclusive_scan(GaA x, int lane) {
#pragma unroll
  for (int d = 1; d < GA_WARP; d <<= 1) {
    const GaA y = ga_shfl_up(x, d);
    if (lane >= d) x = ga_combine(y, x);
  }
  return x;
}
// Called by every thread of the block: the combination of the values of the threads before
// this one (identity for thread 0); `*total` receives the whole block's combination.
__device__ GaA ga_block_exclusive_scan(GaA v, GaA* total) {
  __shared__ GaA ga_scan_smem[GA_MAX_WARPS];
  const int lane = threadIdx.x % GA_WARP, warp = threadIdx.x / GA_WARP;
  const int nw = (blockDim.x + GA_WARP - 1) / GA_WARP;
  const GaA x = ga_warp_inclusive_scan(v, lane);
  if (lane == GA_WARP - 1) ga_scan_smem[warp] = x;
  __syncthreads();
  if (warp == 0) {
    GaA w = lane < nw ? ga_scan_smem[lane] : ga_identity();
    w = ga_warp_inclusive_scan(w, lane);
    if (lane < nw) ga_scan_smem[lane] = w;
  }
  __syncthreads();
  GaA excl = ga_shfl_up(x, 1);
  if (lane == 0) excl = ga_identity();
  if (warp > 0) excl = lane == 0 ? ga_scan_smem[warp - 1] : ga_combine(ga_scan_smem[warp - 1], excl);
  *total = ga_scan_smem[nw - 1];
  __syncthreads();
  return excl;
}
"#;

/// The C++ definitions of one way of combining values of an element type: the accumulator
/// `GaA`, `ga_map` (element and its index along the axis → accumulator), `ga_combine`,
/// `ga_identity`, `ga_finish` (accumulator → stored output), and shuffles of `GaA`.
///
/// `ga_identity()` must be neutral for every value, special ones included
/// (`ga_combine(ga_identity(), a) == a`): the kernels pad partial warps, tiles and empty
/// splits with it. Scans also store accumulators of non-empty ranges as elements
/// (`ga_finish`) and read them back with `ga_map`, so for scans that round trip must be exact.
#[derive(Debug, Clone)]
pub struct Combiner {
    /// C++ text defining the above, to be followed by [`LIBRARY`].
    pub definitions: String,
    /// Bytes of one `GaA` in device memory (for scratch partials).
    pub acc_bytes: usize,
    /// The stored output's element type.
    pub out_dtype: DType,
}

/// The bytes of one accumulator `GaA` of `op` over `t` (what host code sizes partials by;
/// each combiner's C++ asserts it).
pub fn acc_bytes(op: ReduceOp, t: DType) -> usize {
    match op {
        ReduceOp::ArgMin | ReduceOp::ArgMax => 16,
        // A complex value and a flag, padded to the alignment of its parts.
        ReduceOp::Prod if t.is_complex() => t.size() + t.real().size(),
        _ => reg_size(t),
    }
}

/// `static_assert` that `GaA` has the size the host allocates for it.
fn size_check(bytes: usize) -> String {
    format!(
        "static_assert(sizeof(GaA) == {bytes}, \"accumulator size differs from the host's\");\n"
    )
}

fn simple(t: DType, combine: String, identity: &str) -> Combiner {
    let c = cty(t);
    let definitions = format!(
        "typedef {c} GaA;\n\
         {check}\
         GA_INLINE GaA ga_map(const {c} x, const i64 k) {{ (void)k; return x; }}\n\
         GA_INLINE GaA ga_combine(const GaA a, const GaA b) {{ return {combine}; }}\n\
         GA_INLINE GaA ga_identity() {{ return {identity}; }}\n\
         GA_INLINE {m} ga_finish(const GaA a) {{ return {fin}; }}\n",
        m = super::element_types::mty(t),
        fin = store(t, "a"),
        check = size_check(reg_size(t)),
    );
    Combiner {
        definitions,
        acc_bytes: reg_size(t),
        out_dtype: t,
    }
}

/// A product of complex values that starts from its first factor. No complex value is
/// neutral under the textbook product: `(1 + 0i)·z` turns an infinite part of `z` into NaN
/// in the other part (`0·∞`), so padding with `1 + 0i` would change products of special
/// values (the CPU reference's product of the one element `6 + ∞i` is `6 + ∞i`, not
/// `NaN + ∞i`). The accumulator carries a flag "holds a factor"; the identity is the empty
/// accumulator, which `ga_combine` skips, so every kernel computes exactly the product of
/// the elements (`gpuarrays_core::kernel::ReduceOp`).
fn complex_product(t: DType) -> Result<Combiner> {
    let c = cty(t);
    let mul = primitives::binary(BinaryOp::Mul, t, "a.v", "b.v")?;
    let bytes = acc_bytes(ReduceOp::Prod, t);
    let definitions = format!(
        "struct GaA {{ {c} v; bool some; }};\n\
         {check}\
         GA_INLINE GaA ga_acc(const {c} v, const bool some) {{ GaA r; r.v = v; r.some = some; return r; }}\n\
         GA_INLINE GaA ga_map(const {c} x, const i64 k) {{ (void)k; return ga_acc(x, true); }}\n\
         GA_INLINE GaA ga_combine(const GaA a, const GaA b) {{\n\
           if (!a.some) return b;\n\
           if (!b.some) return a;\n\
           return ga_acc({mul}, true);\n\
         }}\n\
         GA_INLINE GaA ga_identity() {{ return ga_acc({one}, false); }}\n\
         GA_INLINE {c} ga_finish(const GaA a) {{ return a.v; }}\n\
         GA_INLINE GaA ga_shfl_down(const GaA a, int d) {{ return ga_acc(::ga_shfl_down(a.v, d), ::ga_shfl_down(a.some, d)); }}\n\
         GA_INLINE GaA ga_shfl_up(const GaA a, int d) {{ return ga_acc(::ga_shfl_up(a.v, d), ::ga_shfl_up(a.some, d)); }}\n\
         GA_INLINE GaA ga_shfl_idx(const GaA a, int l) {{ return ga_acc(::ga_shfl_idx(a.v, l), ::ga_shfl_idx(a.some, l)); }}\n",
        one = one(t),
        check = size_check(bytes),
    );
    Ok(Combiner {
        definitions,
        acc_bytes: bytes,
        out_dtype: t,
    })
}

fn arg(t: DType, want_min: bool) -> Combiner {
    let c = cty(t);
    let nan = |v: &str| {
        if t.is_float() {
            format!("ga_isnan({v})")
        } else {
            "false".to_string()
        }
    };
    let (extreme, wanted) = if want_min {
        (greatest(t), "true")
    } else {
        (least(t), "false")
    };
    // The CPU reference's `better`: NaN beats numbers, then the extreme value, then the
    // lower index. Symmetric, so any tree gives the first extreme (the first NaN if any).
    let definitions = format!(
        "struct GaA {{ {c} v; i64 i; }};\n\
         {check}\
         GA_INLINE GaA ga_arg(const {c} v, const i64 i) {{ GaA r; r.v = v; r.i = i; return r; }}\n\
         GA_INLINE GaA ga_map(const {c} x, const i64 k) {{ return ga_arg(x, k); }}\n\
         GA_INLINE GaA ga_combine(const GaA a, const GaA b) {{\n\
           const GaA lower = a.i <= b.i ? a : b;\n\
           const bool an = {an}, bn = {bn};\n\
           if (an && bn) return lower;\n\
           if (an) return a;\n\
           if (bn) return b;\n\
           if (a.v == b.v) return lower;\n\
           return ((b.v < a.v) == {wanted}) ? b : a;\n\
         }}\n\
         GA_INLINE GaA ga_identity() {{ return ga_arg({extreme}, 9223372036854775807LL); }}\n\
         GA_INLINE i64 ga_finish(const GaA a) {{ return a.i; }}\n\
         GA_INLINE GaA ga_shfl_down(const GaA a, int d) {{ return ga_arg(::ga_shfl_down(a.v, d), ::ga_shfl_down(a.i, d)); }}\n\
         GA_INLINE GaA ga_shfl_up(const GaA a, int d) {{ return ga_arg(::ga_shfl_up(a.v, d), ::ga_shfl_up(a.i, d)); }}\n\
         GA_INLINE GaA ga_shfl_idx(const GaA a, int l) {{ return ga_arg(::ga_shfl_idx(a.v, l), ::ga_shfl_idx(a.i, l)); }}\n",
        an = nan("a.v"),
        bn = nan("b.v"),
        check = size_check(acc_bytes(ReduceOp::ArgMin, t)),
    );
    Combiner {
        definitions,
        acc_bytes: acc_bytes(ReduceOp::ArgMin, t),
        out_dtype: DType::I64,
    }
}

/// The combiner of a reduction of `t`.
pub fn reduction(op: ReduceOp, t: DType) -> Result<Combiner> {
    // Sums and products of halves accumulate in f32 (their registers) and round once at the
    // end, as the CPU reference does; min and max keep the half rule (exact either way).
    let acc = if t.is_half() && matches!(op, ReduceOp::Sum | ReduceOp::Prod) {
        DType::F32
    } else {
        t
    };
    let bin = |o: BinaryOp| primitives::binary(o, acc, "a", "b");
    Ok(match op {
        ReduceOp::Sum => simple(t, bin(BinaryOp::Add)?, zero(t)),
        ReduceOp::Prod if t.is_complex() => complex_product(t)?,
        ReduceOp::Prod => simple(t, bin(BinaryOp::Mul)?, one(t)),
        ReduceOp::Min => simple(t, bin(BinaryOp::Min)?, greatest(t)),
        ReduceOp::Max => simple(t, bin(BinaryOp::Max)?, least(t)),
        ReduceOp::Any => simple(t, bin(BinaryOp::Or)?, "false"),
        ReduceOp::All => simple(t, bin(BinaryOp::And)?, "true"),
        ReduceOp::ArgMin => {
            primitives::binary(BinaryOp::Lt, t, "a", "b")?;
            arg(t, true)
        }
        ReduceOp::ArgMax => {
            primitives::binary(BinaryOp::Gt, t, "a", "b")?;
            arg(t, false)
        }
    })
}

/// The combiner of a scan of `t`.
pub fn scan(op: ScanOp, t: DType) -> Result<Combiner> {
    reduction(op.reduction(), t)
}
