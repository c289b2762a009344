//! Inclusive scans along the middle axis of `(outer, len, inner)` on the host, and the
//! in-order run the CPU reference backend's parallel scans are built from.

use bytemuck::Pod;

use super::storage::HostStorage;
use crate::error::{Error, Result};
use crate::host::io::{read_vec, write_slice};
use crate::host::semantics::{Arith, Ordered, Stored};
use crate::kernel::{ScanArgs, ScanOp};

/// Scans `xs` into `ys` in order, starting from `carry` (the combination of everything
/// before `xs`) when there is one. Never pads with an identity: for complex products no
/// value is neutral for every operand.
#[inline(always)]
pub fn scan_run<T: Copy>(xs: &[T], ys: &mut [T], carry: Option<T>, combine: impl Fn(T, T) -> T) {
    let mut acc = carry;
    for (y, &x) in ys.iter_mut().zip(xs) {
        let v = match acc {
            Some(a) => combine(a, x),
            None => x,
        };
        *y = v;
        acc = Some(v);
    }
}

fn scan_typed<T: Pod + Arith, B: HostStorage>(
    backend: &B,
    a: &ScanArgs<'_, B::Buffer>,
) -> Result<()> {
    match a.op {
        ScanOp::Sum => scan_with(backend, a, |p: T, q: T| p.add(q)),
        ScanOp::Prod => scan_with(backend, a, |p: T, q: T| p.mul(q)),
        // `scan` sends these to `scan_ordered` (for ordered types only).
        ScanOp::Max | ScanOp::Min => Err(Error::invalid_dtype(
            a.op.name(),
            a.dtype,
            "complex numbers have no order; core's type rules exclude it",
        )),
    }
}

fn scan_ordered<T: Pod + Arith + Ordered, B: HostStorage>(
    backend: &B,
    a: &ScanArgs<'_, B::Buffer>,
) -> Result<()> {
    match a.op {
        ScanOp::Max => scan_with(backend, a, |p: T, q: T| p.max_(q)),
        ScanOp::Min => scan_with(backend, a, |p: T, q: T| p.min_(q)),
        ScanOp::Sum | ScanOp::Prod => scan_typed::<T, B>(backend, a),
    }
}

fn scan_with<T: Pod + Arith, B: HostStorage>(
    backend: &B,
    a: &ScanArgs<'_, B::Buffer>,
    combine: impl Fn(T, T) -> T + Copy,
) -> Result<()> {
    let (outer, len, inner) = (a.outer, a.len, a.inner);
    let x: Vec<T> = read_vec(backend, a.input, a.input_offset, outer * len * inner)?;
    let mut y = vec![T::ZERO; x.len()];
    if inner == 1 {
        for (xs, ys) in x.chunks(len).zip(y.chunks_mut(len)) {
            scan_run(xs, ys, None, combine);
        }
    } else {
        for o in 0..outer {
            let base = o * len * inner;
            y[base..base + inner].copy_from_slice(&x[base..base + inner]);
            for k in 1..len {
                for i in 0..inner {
                    let at = base + k * inner + i;
                    y[at] = combine(y[at - inner], x[at]);
                }
            }
        }
    }
    write_slice(backend, a.output, a.output_offset, &y)
}

/// Runs an inclusive scan on the host: reads the input, scans, writes the output.
pub fn scan<B: HostStorage>(backend: &B, a: &ScanArgs<'_, B::Buffer>) -> Result<()> {
    if matches!(a.op, ScanOp::Max | ScanOp::Min) {
        return crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64],
        T => scan_ordered::<Stored<T>, B>(backend, a),
        else other => Err(Error::invalid_dtype(
            a.op.name(),
            other,
            "complex numbers have no order; core's type rules exclude it",
        )));
    }
    crate::dispatch_dtype!(a.dtype, [I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
    T => scan_typed::<Stored<T>, B>(backend, a),
    else other => Err(Error::invalid_dtype(
        "scan",
        other,
        "the host scan has no kernel for this type; core's type rules exclude it",
    )))
}
