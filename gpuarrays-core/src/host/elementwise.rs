//! Fused elementwise programs on the host: a value-at-a-time interpreter of
//! [`Program`](crate::kernel::Program).
//!
//! Each input operand's span (every position its offset and strides can reach) is read
//! once; then, for each output element in row-major order, the instructions are evaluated
//! in order into one [`Scalar`] per instruction, and the last one is stored. The output is
//! contiguous, so it is written once at the end.

use super::storage::HostStorage;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::host::values::{binary, unary};
use crate::kernel::{ElementwiseArgs, Node, Operand, Program, random};
use crate::scalar::Scalar;

/// One input's bytes: its span, and the element position the span starts at.
struct Span {
    bytes: Vec<u8>,
    first: isize,
    dtype: DType,
}

/// Reads the positions `operand` reaches over `shape`.
fn read_span<B: HostStorage>(
    backend: &B,
    shape: &[usize],
    op: &Operand<'_, B::Buffer>,
) -> Result<Span> {
    let (mut lo, mut hi) = (op.offset as isize, op.offset as isize);
    for (&d, &s) in shape.iter().zip(op.strides) {
        let reach = (d as isize - 1) * s;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let size = op.dtype.size();
    let mut bytes = vec![0u8; (hi - lo + 1) as usize * size];
    backend.read_bytes(op.buffer, lo as usize * size, &mut bytes)?;
    Ok(Span {
        bytes,
        first: lo,
        dtype: op.dtype,
    })
}

/// The element at byte `at` of `b` as a value of `dtype` (a bool byte other than 0 is true).
fn load(b: &[u8], at: usize, dtype: DType) -> Scalar {
    let bytes = &b[at..at + dtype.size()];
    // Only bool's decoding can fail, and it does not (any byte is a bool).
    crate::dispatch_dtype!(dtype, T => T::from_bytes(bytes)
        .ok()
        .and_then(|v| v.first().copied())
        .map_or(Scalar::Bool(false), T::to_scalar))
}

/// Appends `v`'s little-endian bytes (bool as 0 or 1).
fn store(v: Scalar, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Random draw of `dist` in `dtype` for output element `index` (the recipe of
/// [`crate::kernel::random`]).
fn draw(dist: random::Distribution, dtype: DType, seed: Scalar, index: u64) -> Result<Scalar> {
    let Scalar::U64(seed) = seed else {
        return Err(Error::invalid_arg(
            "random",
            format!("a {} seed; seeds are u64", seed.dtype()),
        ));
    };
    let per = random::words_per_draw(dist, dtype);
    let e = random::elements_per_draw(dist) as u64;
    let words = random::draw_words(seed, index / e, per);
    let k = (index % e) as usize;
    Ok(match (dist, dtype) {
        (random::Distribution::Uniform, DType::F32) => Scalar::F32(random::uniform_f32(words)),
        (random::Distribution::Uniform, DType::F64) => Scalar::F64(random::uniform_f64(words)),
        (random::Distribution::Normal, DType::F32) => Scalar::F32(random::normal_f32(words)[k]),
        (random::Distribution::Normal, DType::F64) => Scalar::F64(random::normal_f64(words)[k]),
        (random::Distribution::Uniform, DType::F16) => {
            Scalar::F16(half::f16::from_f32(random::uniform_half(words, 11)))
        }
        (random::Distribution::Uniform, DType::BF16) => {
            Scalar::BF16(half::bf16::from_f32(random::uniform_half(words, 8)))
        }
        (random::Distribution::Normal, DType::F16) => {
            Scalar::F16(half::f16::from_f32(random::normal_f32(words)[k]))
        }
        (random::Distribution::Normal, DType::BF16) => {
            Scalar::BF16(half::bf16::from_f32(random::normal_f32(words)[k]))
        }
        _ => {
            return Err(Error::invalid_dtype(
                "random",
                dtype,
                "random numbers are floats",
            ));
        }
    })
}

/// Runs a fused elementwise program on the host.
pub fn elementwise<B: HostStorage>(
    backend: &B,
    program: &Program,
    args: &ElementwiseArgs<'_, B::Buffer>,
) -> Result<()> {
    let shape = &args.shape;
    let spans = args
        .inputs
        .iter()
        .map(|op| read_span(backend, shape, op))
        .collect::<Result<Vec<_>>>()?;
    let len = args.len();
    let mut out = Vec::with_capacity(len * program.output_dtype().size());
    let mut values: Vec<Scalar> = Vec::with_capacity(program.instrs.len());
    let mut index = vec![0usize; shape.len()];
    for linear in 0..len {
        values.clear();
        for ins in &program.instrs {
            let v = match ins.node {
                Node::Input(slot) => {
                    let (op, span) = (&args.inputs[slot as usize], &spans[slot as usize]);
                    let mut pos = op.offset as isize;
                    for (&i, &s) in index.iter().zip(op.strides) {
                        pos += i as isize * s;
                    }
                    let at = (pos - span.first) as usize * span.dtype.size();
                    load(&span.bytes, at, span.dtype)
                }
                Node::Scalar(slot) => args.scalars[slot as usize],
                Node::Index => Scalar::I64(linear as i64),
                Node::Unary(op, a) => unary(op, values[a as usize])?,
                Node::Binary(op, a, b) => binary(op, values[a as usize], values[b as usize])?,
                Node::Cast(to, a) => values[a as usize].cast(to),
                Node::Select(c, a, b) => match values[c as usize] {
                    Scalar::Bool(true) => values[a as usize],
                    _ => values[b as usize],
                },
                Node::Random(dist, seed) => {
                    draw(dist, ins.dtype, args.scalars[seed as usize], linear as u64)?
                }
            };
            values.push(v);
        }
        if let Some(&v) = values.last() {
            store(v, &mut out);
        }
        // The next row-major multi-index.
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    let at = args.output.offset * args.output.dtype.size();
    backend.write_bytes(args.output.buffer, at, &out)
}
