//! Running a case on any backend through the public gpuarrays API (generic over `Backend`).
//! The same code runs the backend under test and the CPU reference.

mod extra;
mod index;
mod order;
mod place;

pub use place::{Placed, download, download_base, input, internal, place, upload};

use gpuarrays_core::kernel::BinaryOp;
use gpuarrays_core::{Array, Backend, DType, Element, Expr, RawArray, Result, dispatch_dtype};

use crate::case::{Case, FftCase, FftForm, Op, StatOp};
use crate::host::{HostArray, HostData};

/// Runs `case` on `backend` and downloads the result.
pub fn execute<B: Backend>(backend: &B, case: &Case) -> Result<HostArray> {
    let placed = case
        .inputs
        .iter()
        .map(|i| place(backend, i))
        .collect::<Result<Vec<_>>>()?;
    let arg = |k: usize| input(&placed, k);
    let ex = |k: usize| -> Result<Expr<B>> { Ok(Expr::array(arg(k)?)) };
    let dtype = case
        .inputs
        .first()
        .map(|i| i.array.dtype())
        .unwrap_or(DType::Bool);
    let out: RawArray<B> = match &case.op {
        Op::Unary(op) => ex(0)?.unary(*op).eval_raw()?,
        Op::Binary(op) => ex(0)?.binary(*op, ex(1)?).eval_raw()?,
        Op::BinaryLit(op) if dtype == DType::Bool => ex(0)?.binary(*op, true).eval_raw()?,
        Op::BinaryLit(op) => ex(0)?.binary(*op, 2i64).eval_raw()?,
        Op::Cast(to) => ex(0)?.cast(*to).eval_raw()?,
        Op::Select => ex(0)?.select(ex(1)?, ex(2)?).eval_raw()?,
        Op::Fused => ((ex(0)? * 3i64 + ex(1)?) - ex(0)?).eval_raw()?,
        Op::Fill(value) => {
            arg(0)?.fill(*value)?;
            return download_base(&placed[0].base, dtype);
        }
        Op::Full { dims, value } => RawArray::full(backend, dims, *value)?,
        Op::Copy => arg(0)?.copy()?,
        Op::Reduce(op, axis) => arg(0)?.reduce(*op, *axis)?,
        Op::Scan(op, axis) => arg(0)?.scan(*op, *axis)?,
        Op::Reverse(axis) => arg(0)?.reverse(*axis)?,
        Op::Permute(axes) => arg(0)?.permute(axes)?,
        Op::Sort => arg(0)?.sort()?,
        Op::Find => arg(0)?.find()?,
        Op::Random {
            dist,
            dtype,
            dims,
            seed,
        } => Expr::random(backend, dims, *dtype, *dist, *seed).eval_raw()?,
        Op::Matmul => arg(0)?.matmul(arg(1)?)?,
        Op::Stat(s) => stat(*s, arg(0)?, arg(1).ok())?,
        Op::Fft(f) => fft(arg(0)?, f)?,
        Op::Index(c) => return index::execute(*c, &placed),
        Op::Order(c) => return order::execute(*c, &placed),
        Op::Extra(c) => extra::execute(backend, *c, &placed)?,
        Op::FftShift {
            inverse: false,
            axes,
        } => arg(0)?.fftshift(axes.as_deref())?,
        Op::FftShift {
            inverse: true,
            axes,
        } => arg(0)?.ifftshift(axes.as_deref())?,
        Op::Zeros { dtype, dims } => {
            dispatch_dtype!(dtype, T => Array::<T, B>::zeros(backend, dims)?.into_raw())
        }
        Op::Ones { dtype, dims } => {
            dispatch_dtype!(dtype, T => Array::<T, B>::ones(backend, dims)?.into_raw())
        }
        Op::Arange { start, step, len } => dispatch_dtype!(start.dtype(), T => {
            let (s, d) = (scalar::<T>(*start)?, scalar::<T>(*step)?);
            Array::<T, B>::arange(backend, s, d, *len)?.into_raw()
        }),
        Op::Linspace {
            start,
            stop,
            num,
            endpoint,
        } => dispatch_dtype!(start.dtype(), T => {
            let (a, b) = (scalar::<T>(*start)?, scalar::<T>(*stop)?);
            Array::<T, B>::linspace(backend, a, b, *num, *endpoint)?.into_raw()
        }),
        Op::Band {
            dtype,
            n,
            m,
            k,
            lower,
        } => dispatch_dtype!(dtype, T => {
            let band = if *lower { Array::<T, B>::tri } else { Array::<T, B>::eye };
            band(backend, *n, *m, *k)?.into_raw()
        }),
        typed_op => {
            return dispatch_dtype!(dtype, T => execute_typed::<T, B>(typed_op, &placed));
        }
    };
    if computes_bools(&case.op) {
        check_canonical_bools(&out)?;
    }
    download(&out)
}

/// Whether the operation computes its bool results (rather than moving stored bytes, as
/// copies, sorts and reorderings do): those must be written as byte 0 or 1.
fn computes_bools(op: &Op) -> bool {
    matches!(
        op,
        Op::Unary(_)
            | Op::Binary(_)
            | Op::BinaryLit(_)
            | Op::Cast(_)
            | Op::Select
            | Op::Fused
            | Op::Reduce(..)
            | Op::AnyAll { .. }
    )
}

/// Fails unless every byte of a computed bool array is 0 or 1 (any nonzero byte reads as
/// true, so a value check alone would not see a backend writing, say, 2 for true).
fn check_canonical_bools<B: Backend>(out: &RawArray<B>) -> Result<()> {
    if out.dtype() != DType::Bool {
        return Ok(());
    }
    let bytes = out.to_bytes()?;
    match bytes.iter().position(|&b| b > 1) {
        None => Ok(()),
        Some(k) => Err(gpuarrays_core::Error::InvalidArgument {
            op: "computed bool".into(),
            reason: format!(
                "element {k} holds byte {}: operations that compute bools must write 0 or 1",
                bytes[k]
            ),
        }),
    }
}

/// The operations of the typed API (`Array<T, B>` methods).
fn execute_typed<T: Element, B: Backend>(op: &Op, placed: &[Placed<B>]) -> Result<HostArray> {
    let typed = |k: usize| -> Result<Array<T, B>> { input(placed, k)?.clone().into_typed::<T>() };
    let a = typed(0)?;
    let out: RawArray<B> = match op {
        Op::EvalInto { self_read } => {
            let mut dst = a;
            let join = if T::DTYPE == DType::Bool {
                BinaryOp::Xor
            } else {
                BinaryOp::Add
            };
            let expr = if *self_read {
                dst.ex().binary(join, &typed(1)?)
            } else {
                typed(1)?.ex().binary(join, &typed(2)?)
            };
            expr.eval_into(&mut dst)?;
            return download_base(&placed[0].base, T::DTYPE);
        }
        Op::Assign => {
            let mut dst = a;
            dst.assign(&typed(1)?)?;
            return download_base(&placed[0].base, T::DTYPE);
        }
        Op::BroadcastTo(dims) => a.broadcast_to(dims)?.into_raw(),
        Op::Concatenate(axis) => {
            let raws: Vec<&RawArray<B>> = placed.iter().map(|p| &p.array).collect();
            RawArray::concatenate(&raws, *axis)?
        }
        Op::Stack(axis) => {
            let raws: Vec<&RawArray<B>> = placed.iter().map(|p| &p.array).collect();
            RawArray::stack(&raws, *axis)?
        }
        Op::ArraySplit {
            sections,
            axis,
            piece,
        } => a
            .array_split(*sections, *axis)?
            .into_iter()
            .nth(*piece)
            .ok_or_else(|| internal("array_split returned fewer pieces than sections"))?
            .into_raw(),
        Op::Tile(reps) => a.tile(reps)?.into_raw(),
        Op::Repeat { repeats, axis } => a.repeat(*repeats, *axis)?.into_raw(),
        Op::Pad { widths, mode } => a.raw().pad(widths, *mode)?,
        Op::Meshgrid { which, indexing } => {
            let arrays = (0..placed.len()).map(typed).collect::<Result<Vec<_>>>()?;
            let refs: Vec<&Array<T, B>> = arrays.iter().collect();
            Array::meshgrid(&refs, *indexing)?
                .into_iter()
                .nth(*which)
                .ok_or_else(|| internal("meshgrid returned fewer outputs than inputs"))?
                .into_raw()
        }
        Op::Transpose => a.transpose()?.into_raw(),
        Op::AnyAll { all, axis: None } => {
            let v = if *all { a.all()? } else { a.any()? };
            return Ok(HostArray::new(vec![], HostData::Bool(vec![v])));
        }
        Op::AnyAll {
            all,
            axis: Some(ax),
        } => {
            let out = if *all {
                a.all_axis(*ax)?.into_raw()
            } else {
                a.any_axis(*ax)?.into_raw()
            };
            check_canonical_bools(&out)?;
            out
        }
        Op::Mean(None) => {
            let m = a.mean()?;
            return Ok(HostArray::new(
                vec![],
                HostData::from_scalars(T::DTYPE, [m.to_scalar()])?,
            ));
        }
        Op::Mean(Some(ax)) => a.mean_axis(*ax)?.into_raw(),
        Op::FindFirst => {
            let i = a.find_first()?.map_or(-1, |i| i as i64);
            return Ok(HostArray::new(vec![1], HostData::I64(vec![i])));
        }
        other => return Err(internal(&format!("no executor for {other:?}"))),
    };
    download(&out)
}

/// The composed operation `op` of core's public API.
fn stat<B: Backend>(op: StatOp, a: &RawArray<B>, b: Option<&RawArray<B>>) -> Result<RawArray<B>> {
    let b = || b.ok_or_else(|| internal("missing input"));
    match op {
        StatOp::Var {
            axis,
            ddof,
            std: false,
        } => a.var(axis, ddof),
        StatOp::Var {
            axis,
            ddof,
            std: true,
        } => a.std(axis, ddof),
        StatOp::LogSumExp(axis) => a.logsumexp(axis),
        StatOp::Norm(ord) => a.norm(ord),
        StatOp::Dot => a.dot(b()?),
        StatOp::Vdot => a.vdot(b()?),
        StatOp::Outer => a.outer(b()?),
    }
}

pub(crate) fn scalar<T: Element>(s: gpuarrays_core::Scalar) -> Result<T> {
    T::from_scalar(s).ok_or_else(|| internal("parameter of the wrong type"))
}

/// The public FFT function of `f.form` on `a`.
fn fft<B: Backend>(a: &RawArray<B>, f: &FftCase) -> Result<RawArray<B>> {
    let (s, axes, norm) = (f.s.as_deref(), f.axes.as_deref(), f.norm);
    let n = s.and_then(|s| s.first().copied());
    let axis = axes.and_then(|a| a.first().copied()).unwrap_or(0);
    match f.form {
        FftForm::Fft => a.fft(n, axis, norm),
        FftForm::Ifft => a.ifft(n, axis, norm),
        FftForm::Rfft => a.rfft(n, axis, norm),
        FftForm::Irfft => a.irfft(n, axis, norm),
        FftForm::Fft2 => a.fft2(s, axes, norm),
        FftForm::Ifft2 => a.ifft2(s, axes, norm),
        FftForm::Fftn => a.fftn(s, axes, norm),
        FftForm::Ifftn => a.ifftn(s, axes, norm),
        FftForm::Rfftn => a.rfftn(s, axes, norm),
        FftForm::Irfftn => a.irfftn(s, axes, norm),
    }
}
