//! What the HIP backend can run: every element type for every operation kind, on both
//! platforms (64-bit integers and floats, and complex types, are native in HIP C++), except
//! where an operation has no meaning for a type — answered "no" with the reason, so a caller
//! gets the structured error instead of a wrong result.

use gpuarrays_core::{DType, OpKind, Support};

/// The answer for `dtype` and `op`.
pub fn supports(dtype: DType, op: OpKind) -> Support {
    match op {
        OpKind::Sort if dtype.is_complex() => Support::no(
            "complex numbers have no order to sort by",
            Some("sort abs() or the real parts"),
        ),
        OpKind::Matmul | OpKind::Scan if dtype == DType::Bool => Support::no(
            "the HIP kernels multiply and accumulate numbers, not bool",
            Some("cast bool to an integer type first"),
        ),
        OpKind::Find if !matches!(dtype, DType::Bool | DType::I64) => Support::no(
            "find reads a bool mask and returns i64 positions",
            Some("compare first, e.g. `x.ex().ne(0)`"),
        ),
        _ => Support::Yes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_core_dispatches_is_supported() {
        for d in DType::ALL {
            for op in [OpKind::Storage, OpKind::Elementwise, OpKind::Reduce] {
                assert!(supports(d, op).is_yes(), "{d} {op}");
            }
            assert_eq!(supports(d, OpKind::Sort).is_yes(), d.is_ordered());
            assert_eq!(supports(d, OpKind::Matmul).is_yes(), d.is_numeric());
        }
        assert!(supports(DType::Bool, OpKind::Find).is_yes());
        assert!(supports(DType::I64, OpKind::Find).is_yes());
    }
}
