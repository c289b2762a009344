//! Batched matrix products, in one of two kernels ([`Kernel`]): tiles of outputs staged in
//! workgroup memory ([`tiled`]) for matrices of at least 16 rows and columns, one thread per
//! output ([`per_output`]) for thinner ones (vectors, batches of small matrices), whose
//! tiles would be mostly empty. Each output accumulates its products in order of `k` from
//! zero, as the CPU reference does, in both (integers wrap; complex multiplies as complex).
//! bool/u8 results go through a word-per-element temporary.
//!
//! **Ranges of k.** One dispatch adds at most [`MAX_K_PER_DISPATCH`] terms; a range after
//! the first starts each sum from the value the previous range stored, so the order of
//! accumulation is the same however `k` is split. The bound is lavapipe's: llvmpipe ends a
//! shader invocation's loops after 65,535 iterations, counted over all its loops together,
//! without an error (measured: one loop of 100,000 steps stops at 65,535; two such loops in
//! a row do 65,536 steps together; a nest of 10,000 × 16 steps, the inner count read at run
//! time, stops at 58,255). The tiled kernel's loops take 18 iterations per 16 terms, so
//! when it ran all of `k` in one dispatch, `ones(1, k)·ones(k, 1)` came out as 58,255 for
//! every k > 58,255 (f32, i32, u32, u8 and c32; f64 kept every term, its inner loop
//! compiling differently). 16,384 terms take at most about 18,400 iterations in either
//! kernel, and a GPU runs the extra dispatches in microseconds.
//!
//! **Large operands.** When an operand exceeds one binding, products that each fit one run
//! in blocks of as many consecutive batches as fit (70,000 f32 (2, 3)·(3, 2) products with
//! 16 KiB bindings: 106 dispatches, not 70,000); larger ones run one batch at a time in
//! blocks of rows (of `a` and the output) and ranges of `k` (rows of `b`), as above. A row
//! of `b` (or of the output) larger than half a binding is a typed
//! [`WgpuError::LimitExceeded`].
//!
//! **Bounds.** Every element the arguments describe must lie inside the bytes its buffer was
//! allocated with (a pooled buffer's capacity may hold another array's old data); anything
//! else is refused before a kernel is recorded.
//!
//! Parameters: 0 rows in the dispatch, 1 n, 2 k (a's row stride), 3 k0, 4 k1, 5 a offset,
//! 6 a batch stride, 7 b offset, 8 b batch stride, 9 output offset, 10 output batch stride
//! (units; offsets relative to their windows, wrapping), 11 row tiles, 12 column tiles,
//! 13 batches, 14 start from the sums the output holds (a range of k after the first).

mod per_output;
mod tiled;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::MatmulArgs;

use super::temp::{from_temp, pack, temp_dtype};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::kernels::windows::{capacity, rel};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::WORKGROUP;
use crate::wgsl::types::{self, Class, unit_bytes, units};

/// Words of the parameter block.
const PARAMS: usize = 15;

/// Which kernel computes a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Tiles of `16·T × 16·T` outputs per workgroup ([`tiled`]).
    Tiled,
    /// One thread per output ([`per_output`]).
    PerOutput,
}

impl Kernel {
    /// Both kernels (for the shader validation tests).
    #[cfg(test)]
    pub(crate) const ALL: [Kernel; 2] = [Kernel::Tiled, Kernel::PerOutput];

    /// The kernel for products of `m × n` outputs: per output when either side is under 16
    /// (a tile's rows or columns would be at most a quarter used).
    fn for_shape(m: usize, n: usize) -> Kernel {
        if m < 16 || n < 16 {
            Kernel::PerOutput
        } else {
            Kernel::Tiled
        }
    }
}

/// The WGSL of `kernel` for element type `d`, with `a`, `b` and the output (or its
/// temporary) at bindings `ba`, `bb`, `bo` of `storage`.
pub(crate) fn source(
    kernel: Kernel,
    d: DType,
    storage: &[(Class, Access)],
    ba: usize,
    bb: usize,
    bo: usize,
) -> Result<String> {
    match kernel {
        Kernel::Tiled => tiled::source(d, storage, ba, bb, bo),
        Kernel::PerOutput => per_output::source(d, storage, ba, bb, bo),
    }
}

/// The WGSL expressions both kernels share, in terms of the batch `bt`, row `r`, column `c`
/// and inner index `q`: the loads of `a[bt][r][q]` and `b[bt][q][c]`, the position of
/// output `[bt][r][c]`, and its stored value (`prev`).
struct Operands {
    la: String,
    lb: String,
    out_at: String,
    prev: String,
}

impl Operands {
    fn new(d: DType, ba: usize, bb: usize, bo: usize) -> Operands {
        let u = units(d);
        let od = temp_dtype(d);
        let la = types::load(
            d,
            &format!("b{}", ba + 1),
            &format!("(prm(5u) + bt * prm(6u) + (r * prm(2u) + q) * {u}u)"),
        );
        let lb = types::load(
            d,
            &format!("b{}", bb + 1),
            &format!("(prm(7u) + bt * prm(8u) + (q * prm(1u) + c) * {u}u)"),
        );
        let out_at = format!("prm(9u) + bt * prm(10u) + (r * prm(1u) + c) * {u}u");
        let prev = from_temp(
            d,
            &types::load(od, &format!("b{}", bo + 1), &format!("({out_at})")),
        );
        Operands {
            la,
            lb,
            out_at,
            prev,
        }
    }
}

/// The most of `k` one dispatch accumulates (see the module documentation: lavapipe's loop
/// budget). 16,384 takes about 18,400 of the 65,535 loop iterations an invocation may run.
pub(crate) const MAX_K_PER_DISPATCH: usize = 16_384;

/// The type products of `d` multiply and sum in. Halves (held in f32) are multiplied and
/// summed in f32, and rounded once when the temporary is packed, as every backend does:
/// rounding each step (the half `Mul` and `Add` of core's lowering) would overflow where the
/// f32 sum does not.
fn compute_dtype(d: DType) -> DType {
    if d.is_half() { DType::F32 } else { d }
}

/// Batches `b0..b1`, rows `m0..m1` of `a` and the output, `k0..k1` of the inner axis.
#[derive(Clone, Copy)]
struct Block {
    b: (usize, usize),
    m: (usize, usize),
    k: (usize, usize),
}

/// Fails unless elements `offset..end` of `dtype` lie inside the bytes `buffer` was
/// allocated with (its pooled capacity may be larger and hold another array's old data).
fn check_inside(what: &str, buffer: &WgpuBuffer, offset: usize, end: u64, size: u64) -> Result<()> {
    if end > offset as u64 && end * size > buffer.len() as u64 {
        return Err(invalid(format!(
            "matmul reads {what} up to byte {} of a {}-byte buffer",
            end * size,
            buffer.len()
        )));
    }
    Ok(())
}

/// Runs a (batched) matrix product.
pub fn run(ctx: &Context, a: &MatmulArgs<'_, WgpuBuffer>) -> Result<()> {
    let d = a.dtype;
    let outputs = a
        .batch
        .checked_mul(a.m)
        .and_then(|x| x.checked_mul(a.n))
        .ok_or_else(|| invalid(format!("{} products of {} × {}", a.batch, a.m, a.n)))?;
    if outputs == 0 {
        return Ok(());
    }
    let size = d.size() as u64;
    // One past the last element an operand of `rows × cols` matrices reaches (saturating:
    // anything near u64::MAX is refused below).
    let last = |off: usize, stride: usize, rows: usize, cols: usize| {
        let batches = (stride as u64).saturating_mul(a.batch as u64 - 1);
        (off as u64)
            .saturating_add(batches)
            .saturating_add((rows as u64).saturating_mul(cols as u64))
    };
    let (end_a, end_b) = (
        last(a.a_offset, a.a_batch_stride, a.m, a.k),
        last(a.b_offset, a.b_batch_stride, a.k, a.n),
    );
    if outputs as u64 >= u32::MAX as u64 / 2
        || end_a >= u32::MAX as u64 / 2
        || end_b >= u32::MAX as u64 / 2
    {
        return Err(WgpuError::LimitExceeded {
            what: format!("a matrix product of {outputs} outputs"),
            requested: outputs as u64,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "multiply in batches",
        });
    }
    check_inside("a", a.a, a.a_offset, end_a, size)?;
    check_inside("b", a.b, a.b_offset, end_b, size)?;
    let end_out = (a.output_offset as u64).saturating_add(outputs as u64);
    check_inside("the output", a.output, a.output_offset, end_out, size)?;
    let od = temp_dtype(d);
    let osize = od.size() as u64;
    let cap = capacity(ctx);
    let span_a = (end_a - a.a_offset as u64) * size;
    let span_b = (end_b - a.b_offset as u64) * size;
    let whole = span_a <= cap && span_b <= cap && outputs as u64 * osize <= cap;
    if !whole && a.n as u64 * size.max(osize) > cap / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("a matrix product with rows of {} elements", a.n),
            requested: a.n as u64 * size.max(osize),
            limit: cap / 2,
            limit_name: "max_storage_buffer_binding_size (half of it, for one row)",
            adapter: ctx.adapter_name.clone(),
            hint: "multiply blocks of columns separately",
        });
    }
    let temp = if od != d {
        Some(ctx.alloc(outputs * 4)?)
    } else {
        None
    };
    let r = (|| {
        let (ob, oo) = match &temp {
            Some(t) => (t, 0usize),
            None => (a.output, a.output_offset),
        };
        let mut spec: Option<ShaderSpec> = None;
        let kernel = Kernel::for_shape(a.m, a.n);
        if whole {
            for k in k_ranges(a.k, MAX_K_PER_DISPATCH) {
                let blk = Block {
                    b: (0, a.batch),
                    m: (0, a.m),
                    k,
                };
                dispatch_block(ctx, a, (ob, oo), blk, kernel, &mut spec)?;
            }
        } else if let Some(bc) = batches_per_block(a, cap, osize) {
            for b0 in (0..a.batch).step_by(bc) {
                for k in k_ranges(a.k, MAX_K_PER_DISPATCH) {
                    let blk = Block {
                        b: (b0, (b0 + bc).min(a.batch)),
                        m: (0, a.m),
                        k,
                    };
                    dispatch_block(ctx, a, (ob, oo), blk, kernel, &mut spec)?;
                }
            }
        } else {
            let elems = cap / size;
            let most = (elems as usize).clamp(1, MAX_K_PER_DISPATCH);
            let kc = if (a.k * a.n) as u64 <= elems {
                a.k
            } else {
                (elems / a.n as u64) as usize
            }
            .clamp(1, most);
            let rows_a = if a.k as u64 <= elems {
                ((elems - kc as u64) / a.k.max(1) as u64) as usize + 1
            } else {
                1
            };
            let mc = rows_a.min((cap / (a.n as u64 * osize)) as usize).max(1);
            for bt in 0..a.batch {
                for m0 in (0..a.m).step_by(mc) {
                    for k in k_ranges(a.k, kc) {
                        let blk = Block {
                            b: (bt, bt + 1),
                            m: (m0, (m0 + mc).min(a.m)),
                            k,
                        };
                        dispatch_block(ctx, a, (ob, oo), blk, kernel, &mut spec)?;
                    }
                }
            }
        }
        if let Some(t) = &temp {
            pack(ctx, t, d, a.output, a.output_offset, outputs)?;
        }
        Ok(())
    })();
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}

/// How many whole products (all rows, all of `k`) one block can take when the operands
/// exceed a binding but each product fits: the most consecutive batches whose windows of
/// `a`, `b` and the output (elements of `osize` bytes) each span at most `cap` bytes.
/// `None` when one product alone does not fit (then blocks of rows and ranges of `k`).
fn batches_per_block(a: &MatmulArgs<'_, WgpuBuffer>, cap: u64, osize: u64) -> Option<usize> {
    let size = a.dtype.size() as u64;
    // The most batches of `per` elements, `stride` apart, spanning `cap / unit` elements.
    let most = |per: u64, stride: u64, unit: u64| -> Option<u64> {
        let room = (cap / unit).checked_sub(per)?;
        Some(room.checked_div(stride).map_or(u64::MAX, |r| r + 1))
    };
    let (m, n, k) = (a.m as u64, a.n as u64, a.k as u64);
    let fit = [
        most(m * k, a.a_batch_stride as u64, size)?,
        most(k * n, a.b_batch_stride as u64, size)?,
        most(m * n, m * n, osize)?,
    ];
    let bc = fit.into_iter().min()?.min(a.batch as u64);
    Some(bc.max(1) as usize)
}

/// `0..k` in consecutive ranges of at most `step` (one empty range for `k = 0`: the
/// dispatch that writes the zero products).
fn k_ranges(k: usize, step: usize) -> impl Iterator<Item = (usize, usize)> {
    let step = step.max(1);
    (0..k.div_ceil(step).max(1)).map(move |i| (i * step, ((i + 1) * step).min(k)))
}

/// Records the dispatch of `kernel` for block `blk`, into `out` at `out_offset` (the output
/// or its temporary); `spec` is the kernel compiled for the first block, kept for the rest.
fn dispatch_block(
    ctx: &Context,
    a: &MatmulArgs<'_, WgpuBuffer>,
    (out, out_offset): (&WgpuBuffer, usize),
    blk: Block,
    kernel: Kernel,
    spec: &mut Option<ShaderSpec>,
) -> Result<()> {
    let d = a.dtype;
    let od = temp_dtype(d);
    let (size, osize) = (d.size() as u64, od.size() as u64);
    let (ub, oub) = (unit_bytes(d), unit_bytes(od));
    let u = units(d);
    let ((b0, b1), (m0, m1), (k0, k1)) = (blk.b, blk.m, blk.k);
    let a_first = (a.a_offset + b0 * a.a_batch_stride + m0 * a.k) as u64;
    let a_lo = a_first + k0 as u64;
    let a_hi = (a.a_offset + (b1 - 1) * a.a_batch_stride + (m1 - 1) * a.k + k1) as u64;
    let b_first = (a.b_offset + b0 * a.b_batch_stride) as u64;
    let b_lo = b_first + (k0 * a.n) as u64;
    let b_hi = (a.b_offset + (b1 - 1) * a.b_batch_stride + k1 * a.n) as u64;
    let mn = a.m * a.n;
    let c_first = (out_offset + b0 * mn + m0 * a.n) as u64;
    let c_hi = (out_offset + (b1 - 1) * mn + m1 * a.n) as u64;
    let mut plan = BindingPlan::default();
    let cls = Class::of(d);
    // Exact ranges (empty for k = 0): the plan binds at least one element, which the
    // kernel then does not read.
    let ba = plan.add(a.a, cls, Access::Read, a_lo * size, a_hi * size);
    let bb = plan.add(a.b, cls, Access::Read, b_lo * size, b_hi * size);
    let bo = plan.add(
        out,
        Class::of(od),
        Access::ReadWrite,
        c_first * osize,
        c_hi * osize,
    );
    let w = plan.windows(ctx)?;
    if spec.is_none() {
        let layout = plan.layout();
        *spec = Some(ShaderSpec {
            label: format!("matmul_{kernel:?}[{d}]"),
            source: source(kernel, d, &layout, ba, bb, bo)?,
            storage: layout.iter().map(|x| x.1).collect(),
        });
    }
    let bm = 16 * tiled::per_thread(d);
    let rows = m1 - m0;
    let (tiles_m, tiles_n) = (rows.div_ceil(bm), a.n.div_ceil(bm));
    let params = [
        rows as u32,
        a.n as u32,
        a.k as u32,
        k0 as u32,
        k1 as u32,
        rel(a_first * size, w[ba].start, ub),
        (a.a_batch_stride as u32) * u,
        rel(b_first * size, w[bb].start, ub),
        (a.b_batch_stride as u32) * u,
        rel(c_first * osize, w[bo].start, oub),
        (mn as u32) * units(od),
        tiles_m as u32,
        tiles_n as u32,
        (b1 - b0) as u32,
        u32::from(k0 > 0),
    ];
    let Some(spec) = spec.as_ref() else {
        return Err(invalid("no kernel"));
    };
    let groups = match kernel {
        Kernel::Tiled => ((b1 - b0) * tiles_m * tiles_n) as u64,
        Kernel::PerOutput => (((b1 - b0) * rows * a.n) as u64).div_ceil(WORKGROUP as u64),
    };
    dispatch::launch(ctx, spec, &params, &plan, &w, false, groups)
}
