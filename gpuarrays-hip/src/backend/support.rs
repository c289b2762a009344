//! What the HIP backend itself cannot run: the 8- and 16-bit integer types and the half
//! types (i8, i16, u16, f16, bf16), storage included, until the generated kernels handle
//! them.
//! Every other element type runs every operation kind on both platforms (64-bit integers
//! and floats, and complex types, are native in HIP C++).
//!
//! This table states only the backend's own limits. Type rules that hold for every backend
//! (complex numbers have no order to sort by, bool is not multiplied or accumulated, find
//! reads a bool mask) are core's: core rejects them before dispatch with the same error on
//! every backend, so they are not repeated here and `gpuarrays info` shows the same answer
//! for the same rule on every backend. A future limit of one platform (say, a type an AMD
//! compiler cannot handle) is answered here with `Support::no(reason, alternative)`.

use gpuarrays_core::{DType, OpKind, Support};

/// The answer for `dtype` and `op`.
pub fn supports(dtype: DType, op: OpKind) -> Support {
    // Storage too: operations that need no kernel (a view, an empty result) would
    // otherwise succeed for a type whose other operations are refused.
    if is_new_narrow_type(dtype) {
        return Support::no(
            format!("the HIP backend does not handle {dtype} yet (no {op} kernels)"),
            Some("compute on the CPU backend (`to_backend`), or hold the data as i32 or f32"),
        );
    }
    Support::Yes
}

/// The types the HIP backend does not handle yet (its kernels are not generated for them).
fn is_new_narrow_type(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::I8 | DType::I16 | DType::U16 | DType::F16 | DType::BF16
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_type_rule_of_core_is_repeated_here() {
        for d in DType::ALL.into_iter().filter(|&d| !is_new_narrow_type(d)) {
            for op in OpKind::ALL {
                assert!(supports(d, op).is_yes(), "{d} {op}: {:?}", supports(d, op));
            }
        }
    }
}
