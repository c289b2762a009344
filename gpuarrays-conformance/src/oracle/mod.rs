//! The scalar oracle: every operation's documented semantics as plain sequential loops over
//! host vectors, with wide accumulators (i128, compensated f64, complex f64). It is what the
//! CPU reference backend is checked against, so it shares no code with any backend: it
//! reads only the documentation of `gpuarrays_core` (and calls core's Philox block
//! function, which known-answer tests pin).

mod axis;
mod construct;
mod elementwise;
mod extras;
mod fft;
mod gather;
mod half_format;
mod index;
mod join;
mod magnitudes;
mod matmul;
mod order;
mod random;
mod reduce;
pub mod rules;
mod stats;
pub mod value;

use gpuarrays_core::kernel::BinaryOp;
use gpuarrays_core::{DType, Scalar};

pub use extras::einsum_with_bounds;
pub use fft::fft_tolerance;
pub use magnitudes::{lane_magnitudes, magnitude, matmul_magnitudes, prefix_magnitudes, scale_map};
pub use rules::Expected;

pub(crate) use axis::order;

use crate::case::{Case, ExtraCase, Input, Op};
use crate::host::{HostArray, HostData};
use elementwise::{binary_value, broadcast_map, unary_value};
use rules::{DTYPE_MISMATCH, INVALID_DTYPE, SCALAR_OUT_OF_RANGE, WRONG_SHAPE};
use value::{cast, from_int, from_real};

/// The expected result of `case`, or the error variant it must produce.
pub fn evaluate(case: &Case) -> Result<HostArray, Expected> {
    let ins: Vec<&HostArray> = case.inputs.iter().map(|i| &i.array).collect();
    let a = || ins.first().copied().ok_or(rules::INVALID_ARGUMENT);
    let b = || ins.get(1).copied().ok_or(rules::INVALID_ARGUMENT);
    let first = || case.inputs.first().ok_or(rules::INVALID_ARGUMENT);
    match &case.op {
        Op::Unary(op) => {
            let a = a()?;
            let t = rules::unary(*op, a.dtype())?;
            broadcast_map(&[a], t, |v| unary_value(*op, v[0], t))
        }
        Op::Binary(op) => binary(*op, a()?, b()?),
        Op::BinaryLit(op) => {
            let a = a()?;
            let lit = if a.dtype() == DType::Bool {
                Scalar::Bool(true)
            } else {
                from_int(2, a.dtype())
            };
            let lit = HostArray::new(
                vec![],
                HostData::from_scalars(a.dtype(), [lit]).map_err(|_| INVALID_DTYPE)?,
            );
            binary(*op, a, &lit)
        }
        Op::Cast(to) => broadcast_map(&[a()?], *to, |v| cast(v[0], *to)),
        Op::Select => {
            let (c, x, y) = (
                a()?,
                b()?,
                ins.get(2).copied().ok_or(rules::INVALID_ARGUMENT)?,
            );
            if c.dtype() != DType::Bool {
                return Err(INVALID_DTYPE);
            }
            if x.dtype() != y.dtype() {
                return Err(DTYPE_MISMATCH);
            }
            elementwise::select(c, x, y)
        }
        Op::Fused => fused(a()?, b()?),
        Op::EvalInto { self_read } => {
            let dst = first()?;
            let t = dst.array.dtype();
            let join = if t == DType::Bool {
                BinaryOp::Xor
            } else {
                BinaryOp::Add
            };
            let r = if *self_read {
                binary(join, &dst.array, b()?)?
            } else {
                binary(
                    join,
                    b()?,
                    ins.get(2).copied().ok_or(rules::INVALID_ARGUMENT)?,
                )?
            };
            if r.dims != dst.array.dims {
                return Err(WRONG_SHAPE);
            }
            Ok(in_place(dst, &r.data))
        }
        Op::Fill(v) => {
            let dst = first()?;
            let data = HostData::from_scalars(dst.array.dtype(), vec![*v; dst.array.len()])
                .map_err(|_| DTYPE_MISMATCH)?;
            Ok(in_place(dst, &data))
        }
        Op::Full { dims, value } => full(dims, *value),
        Op::Zeros { dtype, dims } => full(dims, from_int(0, *dtype)),
        Op::Ones { dtype, dims } => full(dims, from_int(1, *dtype)),
        Op::Arange { start, step, len } => arange(*start, *step, *len),
        Op::Linspace {
            start,
            stop,
            num,
            endpoint,
        } => construct::linspace(*start, *stop, *num, *endpoint),
        Op::Band {
            dtype,
            n,
            m,
            k,
            lower,
        } => Ok(construct::band(*dtype, *n, *m, *k, *lower)),
        Op::Meshgrid { which, indexing } => construct::meshgrid(&ins, *which, *indexing),
        Op::Concatenate(axis) => join::concatenate(&ins, *axis),
        Op::Stack(axis) => join::stack(&ins, *axis),
        Op::ArraySplit {
            sections,
            axis,
            piece,
        } => join::array_split(a()?, *sections, *axis, *piece),
        Op::Tile(reps) => join::tile(a()?, reps),
        Op::Repeat { repeats, axis } => join::repeat(a()?, *repeats, *axis),
        Op::Pad { widths, mode } => join::pad(a()?, widths, *mode),
        Op::Copy => Ok(a()?.clone()),
        Op::Assign => {
            let (dst, src) = (first()?, b()?);
            if dst.array.dims != src.dims {
                return Err(WRONG_SHAPE);
            }
            Ok(in_place(dst, &src.data))
        }
        Op::BroadcastTo(dims) => axis::broadcast_to(dims, a()?),
        Op::Reduce(op, ax) => reduce::reduce(*op, *ax, a()?),
        Op::AnyAll { all, axis } => reduce::any_all(*all, *axis, a()?),
        Op::Mean(ax) => reduce::mean(*ax, a()?),
        Op::Scan(op, ax) => axis::scan(*op, *ax, a()?),
        Op::Reverse(ax) => axis::reverse(*ax, a()?),
        Op::Permute(axes) => axis::permute(axes, a()?),
        Op::Transpose => axis::transpose(a()?),
        Op::Sort => axis::sort(a()?),
        Op::Find => axis::find(a()?),
        Op::FindFirst => axis::find_first(a()?),
        Op::Random {
            dist,
            dtype,
            dims,
            seed,
        } => random::random(*dist, *dtype, dims, *seed),
        Op::Matmul => matmul::matmul(a()?, b()?),
        Op::Stat(s) => stats::evaluate(*s, a()?, ins.get(1).copied()),
        Op::Fft(f) => fft::fft(f, a()?),
        Op::FftShift { inverse, axes } => axis::fftshift(*inverse, axes.as_deref(), a()?),
        Op::Index(c) => gather::evaluate(*c, &case.inputs.iter().collect::<Vec<_>>()),
        Op::Order(c) => order::evaluate(*c, &ins),
        Op::Extra(ExtraCase::RepeatCounts(axis)) => extras::repeat_counts(a()?, b()?, *axis),
        Op::Extra(ExtraCase::Logspace {
            start,
            stop,
            num,
            endpoint,
            base,
        }) => extras::logspace(*start, *stop, *num, *endpoint, *base),
        Op::Extra(ExtraCase::Einsum(spec)) => extras::einsum(spec, &ins),
    }
}

fn binary(op: BinaryOp, a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    let t = rules::binary(op, a.dtype(), b.dtype())?;
    broadcast_map(&[a, b], t, |v| binary_value(op, v[0], v[1], t))
}

/// `(a * 3 + b) - a`, one rounding per operation.
fn fused(a: &HostArray, b: &HostArray) -> Result<HostArray, Expected> {
    let t = a.dtype();
    if t == DType::Bool {
        // The literal 3 is not a bool.
        return Err(SCALAR_OUT_OF_RANGE);
    }
    rules::binary(BinaryOp::Add, t, b.dtype())?;
    let three = from_int(3, t);
    broadcast_map(&[a, b], t, |v| {
        let p = binary_value(BinaryOp::Mul, v[0], three, t);
        let s = binary_value(BinaryOp::Add, p, v[1], t);
        binary_value(BinaryOp::Sub, s, v[0], t)
    })
}

/// The buffer of `dst` after its own elements were replaced by `data`.
fn in_place(dst: &Input, data: &HostData) -> HostArray {
    let all = dst.base_with(data);
    HostArray::new(vec![all.len()], all)
}

fn full(dims: &[usize], value: Scalar) -> Result<HostArray, Expected> {
    let n = index::numel(dims);
    let data = HostData::from_scalars(value.dtype(), vec![value; n]).map_err(|_| INVALID_DTYPE)?;
    Ok(HostArray::new(dims.to_vec(), data))
}

/// `start + i·step` computed as `(i as T) * step + start` (integers wrap).
fn arange(start: Scalar, step: Scalar, len: usize) -> Result<HostArray, Expected> {
    let t = start.dtype();
    if t == DType::Bool {
        return Err(INVALID_DTYPE);
    }
    let mut out = HostData::with_capacity(t, len);
    for i in 0..len {
        let idx = if t.is_integer() {
            from_int(i as i128, t)
        } else {
            from_real(i as f64, t)
        };
        let p = binary_value(BinaryOp::Mul, idx, step, t);
        out.push(binary_value(BinaryOp::Add, p, start, t));
    }
    Ok(HostArray::new(vec![len], out))
}
