//! Re-typing elementwise arguments without allocating on every call.
//!
//! `AnyBackend` receives `ElementwiseArgs<'_, AnyBuffer>` and must hand the wrapped backend
//! the same description over its own buffer type. Core's `try_map_buffers` does that by
//! cloning the shape, the scalars and every operand's strides: five to six small
//! allocations, about 170 ns per call on the 2-core development machine, which would show in
//! the host-enqueue figure of a tiny op (about 1 µs on the CPU backend, 5 µs on HIP). Here
//! those vectors come from a small per-thread stock and go back to it after the call. The
//! operand list borrows the call's buffers, so its allocation is kept empty, as a list of a
//! lifetime-free operand type of the same layout, and re-typed each call (as core's
//! `eval_scratch` does): a call through `AnyBackend` allocates nothing. The other kernel
//! descriptions hold no vectors and are re-typed by `try_map_buffers` at no cost.

use std::cell::RefCell;

use gpuarrays_core::Result;
use gpuarrays_core::Scalar;
use gpuarrays_core::kernel::{ElementwiseArgs, Operand};

/// Vectors of each kind kept per thread between calls (an elementwise call needs one shape,
/// one scalar list and one stride list per operand).
const KEEP: usize = 16;

struct Stock {
    shapes: Vec<Vec<usize>>,
    strides: Vec<Vec<isize>>,
    scalars: Vec<Vec<Scalar>>,
    /// Operand lists' allocations, empty (see [`recycle`]).
    operands: Vec<Vec<Operand<'static, ()>>>,
}

thread_local! {
    static STOCK: RefCell<Stock> = const {
        RefCell::new(Stock {
            shapes: Vec::new(),
            strides: Vec::new(),
            scalars: Vec::new(),
            operands: Vec::new(),
        })
    };
}

/// A copy of `src` in a vector from `stock` (a new one when the stock is empty).
fn copy_of<T: Copy>(stock: &mut Vec<Vec<T>>, src: &[T]) -> Vec<T> {
    let mut v = stock.pop().unwrap_or_default();
    v.clear();
    v.extend_from_slice(src);
    v
}

/// An empty vector of `U` in `v`'s allocation, for operand lists that differ only in a
/// borrowed lifetime or buffer type (same size and alignment: a reference to a sized
/// buffer). std's in-place `collect` keeps the allocation when the layouts match, and
/// allocates otherwise (never unsound); nothing is converted, `v` is emptied first. The
/// same three lines as core's `eval::recycle`, which is private to core.
fn recycle<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().filter_map(|_| None).collect()
}

fn give_back<T>(stock: &mut Vec<Vec<T>>, v: Vec<T>) {
    if stock.len() < KEEP {
        stock.push(v);
    }
}

/// Runs `run` on `args` with every buffer mapped by `own` (inputs in order, then the
/// output), exactly as `args.try_map_buffers(own)` would build them.
pub(crate) fn with_retyped<'a, A: 'a, B: 'a, R>(
    args: &ElementwiseArgs<'a, A>,
    mut own: impl FnMut(&'a A) -> Result<&'a B>,
    run: impl FnOnce(&ElementwiseArgs<'a, B>) -> Result<R>,
) -> Result<R> {
    let retyped = STOCK.with_borrow_mut(|stock| -> Result<ElementwiseArgs<'a, B>> {
        let mut operand = |o: &Operand<'a, A>| -> Result<Operand<'a, B>> {
            Ok(Operand {
                buffer: own(o.buffer)?,
                dtype: o.dtype,
                offset: o.offset,
                strides: copy_of(&mut stock.strides, &o.strides),
            })
        };
        let mut inputs: Vec<Operand<'a, B>> = recycle(stock.operands.pop().unwrap_or_default());
        inputs.reserve(args.inputs.len());
        for input in &args.inputs {
            inputs.push(operand(input)?);
        }
        let output = operand(&args.output)?;
        Ok(ElementwiseArgs {
            shape: copy_of(&mut stock.shapes, &args.shape),
            inputs,
            scalars: copy_of(&mut stock.scalars, &args.scalars),
            output,
        })
    })?;
    let result = run(&retyped);
    STOCK.with_borrow_mut(|stock| {
        let ElementwiseArgs {
            shape,
            mut inputs,
            scalars,
            output,
        } = retyped;
        give_back(&mut stock.shapes, shape);
        give_back(&mut stock.scalars, scalars);
        for o in inputs.drain(..).chain([output]) {
            give_back(&mut stock.strides, o.strides);
        }
        give_back(&mut stock.operands, recycle(inputs));
    });
    result
}

#[cfg(test)]
mod tests {
    use gpuarrays_core::DType;

    use super::*;

    fn operand(buffer: &u32, offset: usize, strides: Vec<isize>) -> Operand<'_, u32> {
        Operand {
            buffer,
            dtype: DType::I64,
            offset,
            strides,
        }
    }

    #[test]
    fn builds_what_try_map_buffers_builds_and_reuses_its_vectors() {
        let (x, y, z) = (1u32, 2u32, 3u32);
        let args = ElementwiseArgs {
            shape: vec![4, 5],
            inputs: vec![operand(&x, 1, vec![5, 1]), operand(&y, 2, vec![0, 1])],
            scalars: vec![Scalar::I64(-3), Scalar::F32(0.5)],
            output: operand(&z, 3, vec![5, 1]),
        };
        let own = |b: &u32| -> Result<&u64> {
            Ok(match *b {
                1 => &10,
                2 => &20,
                _ => &30,
            })
        };
        let expected = args.try_map_buffers(own).unwrap();
        let same = |a: &ElementwiseArgs<'_, u64>| {
            assert_eq!(a.shape, expected.shape);
            assert_eq!(a.scalars, expected.scalars);
            for (m, e) in a
                .inputs
                .iter()
                .chain([&a.output])
                .zip(expected.inputs.iter().chain([&expected.output]))
            {
                assert_eq!(
                    (*m.buffer, m.dtype, m.offset, &m.strides),
                    (*e.buffer, e.dtype, e.offset, &e.strides)
                );
            }
        };
        // The first call fills the stock; later calls (with other contents) reuse it. (Equal
        // addresses alone could also come from the allocator handing a freed block back;
        // `tests/any_backend_allocations.rs` counts the allocation calls themselves.)
        let vectors = |a: &ElementwiseArgs<'_, u64>| {
            same(a);
            Ok((a.shape.as_ptr() as usize, a.inputs.as_ptr() as usize))
        };
        let first = with_retyped(&args, own, vectors).unwrap();
        let again = with_retyped(&args, own, vectors).unwrap();
        assert_eq!(first.0, again.0, "the shape vector was not reused");
        assert_eq!(first.1, again.1, "the operand list was not reused");
        // A refused buffer is the error; the run does not happen.
        let refused = with_retyped(
            &args,
            |_| -> Result<&u64> { Err(gpuarrays_core::Error::Freed) },
            |_| -> Result<()> { panic!("ran with a refused buffer") },
        );
        assert!(matches!(refused, Err(gpuarrays_core::Error::Freed)));
    }
}
