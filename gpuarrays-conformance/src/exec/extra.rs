//! Runs the [`ExtraCase`] family through core's public API.

use gpuarrays_core::{Array, Backend, RawArray, Result, dispatch_dtype};

use super::{Placed, input, scalar};
use crate::case::ExtraCase;

/// The result of `c` on the placed inputs (a new array).
pub fn execute<B: Backend>(backend: &B, c: ExtraCase, placed: &[Placed<B>]) -> Result<RawArray<B>> {
    let arg = |k: usize| input(placed, k);
    match c {
        ExtraCase::RepeatCounts(axis) => arg(0)?.repeat_counts(arg(1)?, axis),
        ExtraCase::Logspace {
            start,
            stop,
            num,
            endpoint,
            base,
        } => dispatch_dtype!(start.dtype(), T => {
            let (a, b, e) = (scalar::<T>(start)?, scalar::<T>(stop)?, scalar::<T>(base)?);
            Ok(Array::<T, B>::logspace(backend, a, b, num, endpoint, e)?.into_raw())
        }),
        ExtraCase::Einsum(spec) => {
            let raws: Vec<&RawArray<B>> = placed.iter().map(|p| &p.array).collect();
            RawArray::einsum(spec, &raws)
        }
    }
}
