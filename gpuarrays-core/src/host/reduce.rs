//! Reductions of the middle axis of `(outer, len, inner)` on the host, and the fold pieces
//! the CPU reference backend's parallel reductions are built from.
//!
//! A row of the last axis (`inner == 1`) is folded by [`fold_run`], which is what the CPU
//! reference does for a row of up to 16 Ki elements, so the two agree bit for bit there;
//! other columns are folded in order of the index along the axis.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::host::io::{read_vec, write_slice};
use crate::host::semantics::{Accumulate, Arith, Bits, Ordered, Stored};
use crate::kernel::{ReduceArgs, ReduceOp};

/// Independent accumulators of [`fold_run`], so the compiler can vectorise.
const LANES: usize = 8;

/// Reduces `x` (non-empty) with `map`/`combine`, lane-parallel, in a fixed order: lane `j`
/// folds elements `j, j + 8, j + 16, ...`, then the lanes are folded left to right. `k0` is
/// the index along the axis of `x[0]` (what `map` receives with each element).
///
/// The lanes are a plain array, so the inner loop is eight independent `combine`s the
/// compiler turns into vector operations.
#[inline(always)]
pub fn fold_run<T: Copy, A: Copy>(
    x: &[T],
    k0: usize,
    map: &impl Fn(T, usize) -> A,
    combine: &impl Fn(A, A) -> A,
) -> A {
    if x.len() < LANES {
        let mut acc = map(x[0], k0);
        for (j, &v) in x.iter().enumerate().skip(1) {
            acc = combine(acc, map(v, k0 + j));
        }
        return acc;
    }
    let (head, rest) = x.split_at(LANES);
    let mut acc: [A; LANES] = std::array::from_fn(|j| map(head[j], k0 + j));
    let mut chunks = rest.chunks_exact(LANES);
    let mut k = k0 + LANES;
    for chunk in &mut chunks {
        for j in 0..LANES {
            acc[j] = combine(acc[j], map(chunk[j], k + j));
        }
        k += LANES;
    }
    for (j, &v) in chunks.remainder().iter().enumerate() {
        acc[j] = combine(acc[j], map(v, k + j));
    }
    acc[1..].iter().fold(acc[0], |a, &b| combine(a, b))
}

/// A stored bool as read: byte 0 is false (0), any other byte true (1). A bool array's
/// bytes can be written through a u8 view, and reductions compare and combine the bytes
/// (byte 2 is true, but `2 & 1` is 0 and `2 > 1`), so they read every byte through this.
pub fn bool_byte(b: u8) -> u8 {
    (b != 0) as u8
}

/// The better of two (value, index) candidates of an argmin (`want_min`) or argmax: NaN
/// beats numbers, then the smaller (or larger) value, then the lower index. Symmetric, so
/// any combination order agrees.
pub fn better<T: Ordered>(a: (T, i64), b: (T, i64), want_min: bool) -> (T, i64) {
    let lower = if a.1 <= b.1 { a } else { b };
    match (a.0.is_nan(), b.0.is_nan()) {
        (true, true) => lower,
        (true, false) => a,
        (false, true) => b,
        _ if a.0 == b.0 => lower,
        _ if (b.0 < a.0) == want_min => b,
        _ => a,
    }
}

/// The generic driver: `output[o·inner + i] = finish(fold_k map(x[o, k, i], k))`.
fn fold<T: Pod, A: Copy, O: Pod, B: HostStorage>(
    backend: &B,
    args: &ReduceArgs<'_, B::Buffer>,
    map: impl Fn(T, usize) -> A,
    combine: impl Fn(A, A) -> A,
    finish: impl Fn(A) -> O,
) -> Result<()> {
    let (outer, len, inner) = (args.outer, args.len, args.inner);
    let x: Vec<T> = read_vec(backend, args.input, args.input_offset, outer * len * inner)?;
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        let block = &x[o * len * inner..][..len * inner];
        if inner == 1 {
            out.push(finish(fold_run(block, 0, &map, &combine)));
            continue;
        }
        for i in 0..inner {
            let mut acc = map(block[i], 0);
            for k in 1..len {
                acc = combine(acc, map(block[k * inner + i], k));
            }
            out.push(finish(acc));
        }
    }
    write_slice(backend, args.output, args.output_offset, &out)
}

/// A value as read: itself.
fn same<T>(x: T) -> T {
    x
}

fn bad_type(op: &str, dtype: DType) -> Result<()> {
    Err(Error::invalid_dtype(
        op,
        dtype,
        "the host reduction has no kernel for this type; core's type rules exclude it",
    ))
}

/// Runs a reduction on the host: reads the input, reduces, writes the output.
pub fn reduce<B: HostStorage>(backend: &B, a: &ReduceArgs<'_, B::Buffer>) -> Result<()> {
    let b = backend;
    let name = a.op.name();
    macro_rules! ordered {
        ($load:expr, $T:ty) => {
            match a.op {
                ReduceOp::Min => {
                    fold::<$T, _, $T, B>(b, a, |x, _| $load(x), |p, q| p.min_(q), same)
                }
                ReduceOp::Max => {
                    fold::<$T, _, $T, B>(b, a, |x, _| $load(x), |p, q| p.max_(q), same)
                }
                ReduceOp::ArgMin => fold::<$T, _, i64, B>(
                    b,
                    a,
                    |x, k| ($load(x), k as i64),
                    |p, q| better(p, q, true),
                    |p| p.1,
                ),
                _ => fold::<$T, _, i64, B>(
                    b,
                    a,
                    |x, k| ($load(x), k as i64),
                    |p, q| better(p, q, false),
                    |p| p.1,
                ),
            }
        };
    }
    match a.op {
        ReduceOp::Sum => {
            crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => fold::<Stored<T>, _, Stored<T>, B>(b, a, |x, _| x.to_acc(), |p, q| p.add(q), Accumulate::from_acc),
            else other => bad_type(name, other))
        }
        ReduceOp::Prod => {
            crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
            T => fold::<Stored<T>, _, Stored<T>, B>(b, a, |x, _| x.to_acc(), |p, q| p.mul(q), Accumulate::from_acc),
            else other => bad_type(name, other))
        }
        ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax => {
            if a.dtype == DType::Bool {
                ordered!(bool_byte, u8)
            } else {
                crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
                    T => ordered!(|x: T| x, T), else other => bad_type(name, other))
            }
        }
        ReduceOp::Any if a.dtype == DType::Bool => {
            fold::<u8, _, u8, B>(b, a, |x, _| bool_byte(x), |p, q| p.or(q), same)
        }
        ReduceOp::All if a.dtype == DType::Bool => {
            fold::<u8, _, u8, B>(b, a, |x, _| bool_byte(x), |p, q| p.and(q), same)
        }
        ReduceOp::Any | ReduceOp::All => bad_type(name, a.dtype),
    }
}
