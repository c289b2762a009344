//! How an FFT of the public API (`ops/fft.rs`) becomes backend calls ([`FftArgs`]).
//!
//! 1. Check the element type, the axes and the lengths (in that order, so every backend
//!    reports the same error for the same mistake).
//! 2. Crop/zero-pad and promote: one copy into a working array when the lengths or the
//!    element type change (and always for `irfft`, whose C2R step overwrites its input).
//! 3. Split the chosen axes into *runs* of consecutive axes, at most [`MAX_FFT_RANK`] long.
//!    A run over axes `a..a+k` of a row-major array of shape `(outer, run, inner)` is one
//!    strided batch when `inner == 1` (batch `outer`, stride 1) or `outer == 1` (batch
//!    `inner`, stride `inner`, distance 1); otherwise it is `min(outer, inner)` calls, each a
//!    strided batch over the other count. C2C runs after the first work in place.
//! 4. Multiply by the normalisation factor in one in-place pass when it is not 1.

use crate::array::RawArray;
use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::fft::{complex_of, half_len};
use crate::kernel::{
    BinaryOp, ElementwiseArgs, FftArgs, FftDirection, FftKind, FftLayout, Instr, MAX_FFT_RANK,
    Node, Operand, Program, simplify_layout,
};
use crate::ops::copy::copy_raw;
pub(crate) use crate::ops::fft_axes::Transform;
use crate::ops::fft_axes::{resolve_axes, resolve_lengths, runs};
use crate::ops::fft_norm::FftNorm;
use crate::ops::region::copy_box;
use crate::scalar::Scalar;
use crate::shape::numel;
use crate::support::{OpKind, ensure_fft_lengths_supported, ensure_supported, ensure_type_rule};

/// The axes argument of the public functions.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Axes<'a> {
    /// One axis (the 1-D forms).
    Given(&'a [usize]),
    /// `fft2`: these, or the last two (`RankMismatch` below two dimensions).
    LastTwo(Option<&'a [usize]>),
    /// `fftn`: these, or the last `s.len()`, or all.
    AllOr(Option<&'a [usize]>),
}

/// The transform `t` of `a` over `axes` with lengths `s` (NumPy's arguments, resolved as the
/// module documentation of `ops/fft.rs` says).
pub(crate) fn transform<B: Backend>(
    a: &RawArray<B>,
    t: Transform,
    s: Option<&[usize]>,
    axes: Axes<'_>,
    norm: FftNorm,
) -> Result<RawArray<B>> {
    let op = t.name();
    ensure_type_rule(op, a.dtype, OpKind::Fft)?;
    if t == Transform::Rfft && a.dtype.is_complex() {
        return Err(Error::invalid_dtype(
            op,
            a.dtype,
            "it takes real input; use fft for complex data",
        ));
    }
    let real = a.dtype.real();
    let complex = complex_of(real)
        .ok_or_else(|| Error::invalid_dtype(op, a.dtype, "FFTs need f32 or f64 data"))?;
    let last_two: Vec<usize>;
    let axes = match axes {
        Axes::Given(axes) | Axes::LastTwo(Some(axes)) | Axes::AllOr(Some(axes)) => Some(axes),
        Axes::LastTwo(None) if a.ndim() >= 2 => {
            last_two = vec![a.ndim() - 2, a.ndim() - 1];
            Some(&last_two[..])
        }
        Axes::LastTwo(None) => {
            return Err(Error::RankMismatch {
                op: format!("{op}2"),
                expected: "at least 2 dimensions (or explicit axes)".into(),
                got: a.ndim(),
            });
        }
        Axes::AllOr(None) => None,
    };
    let axes = resolve_axes(op, a.ndim(), s, axes)?;
    if matches!(t, Transform::Rfft | Transform::Irfft) && axes.is_empty() {
        return Err(Error::invalid_arg(op, "needs at least one axis"));
    }
    let lengths = resolve_lengths(op, t, &a.dims, &axes, s)?;
    ensure_supported(&a.backend, real, OpKind::Fft)?;
    ensure_supported(&a.backend, complex, OpKind::Fft)?;
    ensure_fft_lengths_supported(&a.backend, real, complex, &lengths)?;

    // Shapes: `work` is the input after crop/pad (for irfft: the half spectrum), `out` the
    // result.
    let mut work = a.dims.clone();
    for (&ax, &n) in axes.iter().zip(&lengths) {
        work[ax] = n;
    }
    let mut out_dims = work.clone();
    if let (Some(&last), Some(&n)) = (axes.last(), lengths.last()) {
        match t {
            Transform::Rfft => out_dims[last] = half_len(n),
            Transform::Irfft => work[last] = half_len(n),
            Transform::Fft | Transform::Ifft => {}
        }
    }
    let out_dtype = if t == Transform::Irfft { real } else { complex };
    if numel(&out_dims) == 0 || a.is_empty() {
        // No element of the input is read (a zero-padded transform of nothing still has
        // outputs), but a freed input is an error, not an empty or zero result.
        a.ensure_alive()?;
    }
    if numel(&out_dims) == 0 {
        return RawArray::alloc(&a.backend, out_dtype, &out_dims);
    }
    let out = match t {
        Transform::Fft => c2c(a, complex, &work, &axes, FftDirection::Forward)?,
        Transform::Ifft => c2c(a, complex, &work, &axes, FftDirection::Inverse)?,
        Transform::Rfft => r2c(a, &work, &out_dims, &axes)?,
        Transform::Irfft => c2r(a, complex, &work, &out_dims, &axes)?,
    };
    let scale = norm.scale(lengths.iter().product(), t.inverse());
    if scale != 1.0 {
        scale_in_place(&out, scale)?;
    }
    Ok(out)
}

/// `a` as `dtype` with shape `dims` (same rank): cropped or zero-padded at the end of each
/// axis. `a` itself (shared) when nothing changes, unless `force_copy` (or `a` is a strided
/// view: the FFT kernels read contiguous arrays).
fn resized<B: Backend>(
    a: &RawArray<B>,
    dtype: DType,
    dims: &[usize],
    force_copy: bool,
) -> Result<(RawArray<B>, bool)> {
    if !force_copy && a.dtype == dtype && a.dims == dims && a.is_contiguous() {
        return Ok((a.clone(), false));
    }
    let out = RawArray::alloc(&a.backend, dtype, dims)?;
    if dims.iter().zip(&a.dims).any(|(n, m)| n > m) {
        out.fill(Scalar::F64(0.0).cast(dtype))?;
    }
    let extent: Vec<usize> = dims.iter().zip(&a.dims).map(|(&n, &m)| n.min(m)).collect();
    let origin = vec![0; dims.len()];
    copy_box(a, &origin, &out, &origin, &extent)?;
    Ok((out, true))
}

fn c2c<B: Backend>(
    a: &RawArray<B>,
    complex: DType,
    work: &[usize],
    axes: &[usize],
    direction: FftDirection,
) -> Result<RawArray<B>> {
    let (src, copied) = resized(a, complex, work, false)?;
    let out = if copied {
        src.clone()
    } else {
        RawArray::alloc(&a.backend, complex, work)?
    };
    let groups = runs(axes);
    if groups.is_empty() && !copied {
        copy_raw(&src, &out)?;
    }
    for (i, &(first, count)) in groups.iter().enumerate() {
        let input = if i == 0 { &src } else { &out };
        dispatch(FftKind::C2C, direction, input, &out, first, count)?;
    }
    Ok(out)
}

fn r2c<B: Backend>(
    a: &RawArray<B>,
    work: &[usize],
    out_dims: &[usize],
    axes: &[usize],
) -> Result<RawArray<B>> {
    let real = a.dtype;
    let complex = complex_of(real).unwrap_or(DType::C64);
    let (src, _) = resized(a, real, work, false)?;
    let out = RawArray::alloc(&a.backend, complex, out_dims)?;
    // The real axis is the last listed; its run is the chosen axes just before it.
    let last = axes.last().copied().unwrap_or(0);
    let mut first = last;
    while first > 0 && axes.contains(&(first - 1)) && last + 1 - first < MAX_FFT_RANK {
        first -= 1;
    }
    dispatch(
        FftKind::R2C,
        FftDirection::Forward,
        &src,
        &out,
        first,
        last + 1 - first,
    )?;
    let rest: Vec<usize> = axes
        .iter()
        .copied()
        .filter(|ax| !(first..=last).contains(ax))
        .collect();
    for (first, count) in runs(&rest) {
        dispatch(
            FftKind::C2C,
            FftDirection::Forward,
            &out,
            &out,
            first,
            count,
        )?;
    }
    Ok(out)
}

fn c2r<B: Backend>(
    a: &RawArray<B>,
    complex: DType,
    work: &[usize],
    out_dims: &[usize],
    axes: &[usize],
) -> Result<RawArray<B>> {
    let (scratch, _) = resized(a, complex, work, true)?;
    let (rest, last) = axes.split_at(axes.len().saturating_sub(1));
    let last = last.first().copied().unwrap_or(0);
    for (first, count) in runs(rest) {
        dispatch(
            FftKind::C2C,
            FftDirection::Inverse,
            &scratch,
            &scratch,
            first,
            count,
        )?;
    }
    let n = out_dims[last];
    if n % 2 == 0 {
        make_real(&scratch, last, &[0, n / 2])?;
    } else {
        make_real(&scratch, last, &[0])?;
    }
    let out = RawArray::alloc(&a.backend, complex.real(), out_dims)?;
    dispatch(FftKind::C2R, FftDirection::Inverse, &scratch, &out, last, 1)?;
    Ok(out)
}

/// Sets the imaginary parts of `bins` along `axis` of the complex, contiguous `a` to zero,
/// in place. One pass over `a` as real pairs, selecting zero where a broadcast mask says
/// so: elementwise outputs are contiguous by contract (the wgpu backend relies on it), so
/// the bins are not written as a strided output of their own.
fn make_real<B: Backend>(a: &RawArray<B>, axis: usize, bins: &[usize]) -> Result<()> {
    let real = a.dtype.real();
    ensure_supported(&a.backend, real, OpKind::Elementwise)?;
    ensure_supported(&a.backend, DType::Bool, OpKind::Elementwise)?;
    let (outer, len, inner) = (
        numel(&a.dims[..axis]),
        a.dims[axis],
        numel(&a.dims[axis + 1..]),
    );
    let row = len * inner * 2;
    let mut keep = vec![1u8; row];
    for &b in bins {
        for i in 0..inner {
            keep[(b * inner + i) * 2 + 1] = 0;
        }
    }
    let mask = RawArray::alloc(&a.backend, DType::Bool, &[row])?;
    {
        let mb = mask.buffer()?;
        crate::graph::dispatch::write(&a.backend, &mb, mask.byte_offset(), &keep)?;
    }
    let ins = |node, dtype| Instr { node, dtype };
    let program = Program {
        inputs: vec![real, DType::Bool],
        scalars: vec![real],
        instrs: vec![
            ins(Node::Input(0), real),
            ins(Node::Input(1), DType::Bool),
            ins(Node::Scalar(0), real),
            ins(Node::Select(1, 0, 2), real),
        ],
    };
    let (dims, st) = simplify_layout(&[outer, row], &[vec![row as isize, 1], vec![0, 1]]);
    let (buf, mb) = (a.buffer()?, mask.buffer()?);
    let data = || Operand {
        buffer: &*buf,
        dtype: real,
        offset: a.offset * 2,
        strides: &st[0],
    };
    let _span = crate::profiling::kernel("elementwise", a.dtype);
    crate::graph::dispatch::elementwise(
        &a.backend,
        &program,
        &ElementwiseArgs {
            shape: &dims,
            inputs: &[
                data(),
                Operand {
                    buffer: &*mb,
                    dtype: DType::Bool,
                    offset: mask.offset,
                    strides: &st[1],
                },
            ],
            scalars: &[Scalar::F64(0.0).cast(real)],
            output: data(),
        },
    )
}

/// One run of `count` axes from `first`: one backend call, or a loop of them (see the
/// module documentation). `input` and `output` have the same rank; their dimensions differ
/// at most on the run's last axis (the half spectrum).
fn dispatch<B: Backend>(
    kind: FftKind,
    direction: FftDirection,
    input: &RawArray<B>,
    output: &RawArray<B>,
    first: usize,
    count: usize,
) -> Result<()> {
    let (id, od) = (&input.dims, &output.dims);
    let run = first..first + count;
    let lengths = if kind == FftKind::C2R { od } else { id }[run.clone()].to_vec();
    let (outer, inner) = (numel(&id[..first]), numel(&id[first + count..]));
    let (per_in, per_out) = (numel(&id[run.clone()]), numel(&od[run]));
    let (ib, ob) = (input.buffer()?, output.buffer()?);
    let real = match kind {
        FftKind::R2C => input.dtype,
        FftKind::C2C | FftKind::C2R => input.dtype.real(),
    };
    // Every description is validated here, once, before any backend sees it.
    let call = |batch: usize, input_layout: FftLayout, output_layout: FftLayout| {
        let args = FftArgs {
            kind,
            direction,
            real,
            lengths: lengths.clone(),
            batch,
            input: &*ib,
            input_layout,
            output: &*ob,
            output_layout,
        };
        args.validate()?;
        let _span = crate::profiling::kernel("fft", input.dtype);
        crate::graph::dispatch::fft(&input.backend, &args)
    };
    let strided = |offset: usize, dist: usize| FftLayout {
        offset,
        stride: inner,
        dist,
    };
    let (io, oo) = (input.offset, output.offset);
    if inner == 1 {
        call(
            outer,
            FftLayout::contiguous(io, per_in),
            FftLayout::contiguous(oo, per_out),
        )
    } else if outer == 1 {
        call(inner, strided(io, 1), strided(oo, 1))
    } else if outer <= inner {
        (0..outer).try_for_each(|o| {
            call(
                inner,
                strided(io + o * per_in * inner, 1),
                strided(oo + o * per_out * inner, 1),
            )
        })
    } else {
        (0..inner).try_for_each(|i| {
            call(
                outer,
                strided(io + i, per_in * inner),
                strided(oo + i, per_out * inner),
            )
        })
    }
}

/// `a *= scale` in place (complex arrays as pairs of reals, so infinities stay put).
fn scale_in_place<B: Backend>(a: &RawArray<B>, scale: f64) -> Result<()> {
    let (dtype, len, offset) = if a.dtype.is_complex() {
        (a.dtype.real(), a.len() * 2, a.offset * 2)
    } else {
        (a.dtype, a.len(), a.offset)
    };
    ensure_supported(&a.backend, dtype, OpKind::Elementwise)?;
    let program = Program {
        inputs: vec![dtype],
        scalars: vec![dtype],
        instrs: vec![
            Instr {
                node: Node::Input(0),
                dtype,
            },
            Instr {
                node: Node::Scalar(0),
                dtype,
            },
            Instr {
                node: Node::Binary(BinaryOp::Mul, 0, 1),
                dtype,
            },
        ],
    };
    let buf = a.buffer()?;
    let operand = || Operand {
        buffer: &*buf,
        dtype,
        offset,
        strides: &[1],
    };
    let _span = crate::profiling::kernel("elementwise", a.dtype);
    crate::graph::dispatch::elementwise(
        &a.backend,
        &program,
        &ElementwiseArgs {
            shape: &[len],
            inputs: &[operand()],
            scalars: &[Scalar::F64(scale).cast(dtype)],
            output: operand(),
        },
    )
}
