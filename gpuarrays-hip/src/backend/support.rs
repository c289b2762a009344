//! What the HIP backend itself cannot run. Every element type is stored, computed
//! elementwise (casts and random numbers included), reduced, gathered, scattered, sorted and
//! multiplied as matrices on both platforms; the half types (f16, bf16) are not scanned (see
//! [`supports`]).
//!
//! This table states only the backend's own limits. Type rules that hold for every backend
//! (complex numbers have no order to sort by, bool is not multiplied or accumulated, find
//! reads a bool mask, no FFT in half precision) are core's: core rejects them before dispatch
//! with the same error on every backend, so they are not repeated here and `gpuarrays info`
//! shows the same answer for the same rule on every backend. A future limit of one platform
//! (say, a type an AMD compiler cannot handle) is answered here with
//! `Support::no(reason, alternative)`.

use gpuarrays_core::{DType, OpKind, Support};

/// The answer for `dtype` and `op`.
pub fn supports(dtype: DType, op: OpKind) -> Support {
    if !is_narrow(dtype) {
        return Support::Yes;
    }
    let missing = match op {
        OpKind::Storage
        | OpKind::Elementwise
        | OpKind::Reduce
        | OpKind::Gather
        | OpKind::Scatter
        | OpKind::Matmul
        | OpKind::Find
        | OpKind::Sort
        | OpKind::Fft => return Support::Yes,
        // Integer scans wrap, so any grouping gives the sequential result; a scan of halves
        // rounds after every step in order (the CPU reference's and NumPy's rule), which a
        // parallel scan would have to reproduce step by step.
        OpKind::Scan if !dtype.is_half() => return Support::Yes,
        OpKind::Scan => "no scan that rounds each step in order",
    };
    Support::no(
        format!("the HIP backend does not handle {op} of {dtype} yet ({missing})"),
        Some(
            "cast to a 32-bit type (i32 or f32) for this operation, or compute it on the CPU backend (`to_backend`)",
        ),
    )
}

/// The 8- and 16-bit types, the only ones with a limit (see [`supports`]).
fn is_narrow(dtype: DType) -> bool {
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
        for d in DType::ALL.into_iter().filter(|&d| !is_narrow(d)) {
            for op in OpKind::ALL {
                assert!(supports(d, op).is_yes(), "{d} {op}: {:?}", supports(d, op));
            }
        }
    }

    #[test]
    fn the_narrow_types_are_refused_only_where_no_kernel_exists() {
        for d in DType::ALL.into_iter().filter(|&d| is_narrow(d)) {
            for op in [
                OpKind::Storage,
                OpKind::Elementwise,
                OpKind::Reduce,
                OpKind::Gather,
                OpKind::Scatter,
                OpKind::Matmul,
                OpKind::Sort,
            ] {
                assert!(supports(d, op).is_yes(), "{d} {op}");
            }
            assert_eq!(supports(d, OpKind::Scan).is_yes(), !d.is_half(), "{d} scan");
        }
    }
}
