//! What the HIP backend itself cannot run: today nothing. Every element type is stored,
//! computed elementwise (casts and random numbers included), reduced, scanned, sorted,
//! gathered, scattered and multiplied as matrices on both platforms (halves are scanned with
//! an f32 running value, `Backend::scans_halves`).
//!
//! This table states only the backend's own limits. Type rules that hold for every backend
//! (complex numbers have no order to sort by, bool is not multiplied or accumulated, find
//! reads a bool mask, no FFT in half precision) are core's: core rejects them before dispatch
//! with the same error on every backend, so they are not repeated here and `gpuarrays info`
//! shows the same answer for the same rule on every backend. A future limit of one platform
//! (say, a type an AMD compiler cannot handle) is answered here with
//! `Support::no(reason, alternative)`, naming what to do instead.

use gpuarrays_core::{DType, OpKind, Support};

/// The answer for `dtype` and `op`.
pub fn supports(_dtype: DType, _op: OpKind) -> Support {
    Support::Yes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_type_rule_of_core_is_repeated_here() {
        for d in DType::ALL {
            for op in OpKind::ALL {
                assert!(supports(d, op).is_yes(), "{d} {op}: {:?}", supports(d, op));
            }
        }
    }
}
