//! The type rules of the operations, restated from the tables in
//! `gpuarrays_core::kernel::operators` and `axis_ops`, and the error each violation must produce.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{BinaryOp, ReduceOp, UnaryOp};

/// The name of an expected error variant of `gpuarrays_core::Error`.
pub type Expected = &'static str;

pub const INVALID_DTYPE: Expected = "InvalidDType";
pub const DTYPE_MISMATCH: Expected = "DTypeMismatch";
pub const SHAPE_MISMATCH: Expected = "ShapeMismatch";
pub const WRONG_SHAPE: Expected = "WrongShape";
pub const RANK_MISMATCH: Expected = "RankMismatch";
pub const AXIS_OUT_OF_RANGE: Expected = "AxisOutOfRange";
pub const EMPTY_REDUCTION: Expected = "EmptyReduction";
pub const SCALAR_OUT_OF_RANGE: Expected = "ScalarOutOfRange";
pub const INVALID_ARGUMENT: Expected = "InvalidArgument";
pub const INDEX_OUT_OF_RANGE: Expected = "IndexOutOfRange";

fn numeric(t: DType) -> bool {
    t != DType::Bool
}
fn integer(t: DType) -> bool {
    matches!(
        t,
        DType::I8
            | DType::U8
            | DType::I16
            | DType::U16
            | DType::I32
            | DType::U32
            | DType::I64
            | DType::U64
    )
}
fn float(t: DType) -> bool {
    matches!(t, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
}
fn complex(t: DType) -> bool {
    matches!(t, DType::C32 | DType::C64)
}

/// The result type of a unary operation.
pub fn unary(op: UnaryOp, t: DType) -> Result<DType, Expected> {
    use UnaryOp::*;
    let ok = match op {
        Neg | Abs => numeric(t),
        Not => t == DType::Bool || integer(t),
        Floor | Ceil | Round | Trunc | Sign => integer(t) || float(t),
        IsNan | IsInf | IsFinite => return Ok(DType::Bool),
        Real | Imag | Conj => true,
        Angle => float(t) || complex(t),
        _ => float(t),
    };
    let to_real = matches!(op, Abs | Real | Imag | Angle);
    match (ok, t) {
        (false, _) => Err(INVALID_DTYPE),
        (true, DType::C32) if to_real => Ok(DType::F32),
        (true, DType::C64) if to_real => Ok(DType::F64),
        _ => Ok(t),
    }
}

pub fn is_comparison(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
    )
}

/// The result type of a binary operation.
pub fn binary(op: BinaryOp, l: DType, r: DType) -> Result<DType, Expected> {
    if l != r {
        return Err(DTYPE_MISMATCH);
    }
    let ok = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div => numeric(l),
        BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot => float(l),
        BinaryOp::Rem => integer(l) || float(l),
        BinaryOp::Shl | BinaryOp::Shr => integer(l),
        BinaryOp::Eq | BinaryOp::Ne => true,
        BinaryOp::Min
        | BinaryOp::Max
        | BinaryOp::Fmin
        | BinaryOp::Fmax
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge => !complex(l),
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => l == DType::Bool || integer(l),
    };
    if !ok {
        Err(INVALID_DTYPE)
    } else if is_comparison(op) {
        Ok(DType::Bool)
    } else {
        Ok(l)
    }
}

/// The result type of a reduction through the untyped API (`RawArray::reduce`).
pub fn reduce(op: ReduceOp, t: DType) -> Result<DType, Expected> {
    match op {
        ReduceOp::Sum | ReduceOp::Prod if numeric(t) => Ok(t),
        ReduceOp::Min | ReduceOp::Max if !complex(t) => Ok(t),
        ReduceOp::ArgMin | ReduceOp::ArgMax if !complex(t) => Ok(DType::I64),
        ReduceOp::Any | ReduceOp::All if t == DType::Bool => Ok(DType::Bool),
        _ => Err(INVALID_DTYPE),
    }
}

/// Means are of floats and complex numbers.
pub fn mean(t: DType) -> Result<DType, Expected> {
    if float(t) || complex(t) {
        Ok(t)
    } else {
        Err(INVALID_DTYPE)
    }
}

/// Scans, matrix products and arange are numeric; sorting needs an order.
pub fn numeric_only(t: DType) -> Result<DType, Expected> {
    if numeric(t) {
        Ok(t)
    } else {
        Err(INVALID_DTYPE)
    }
}

pub fn ordered_only(t: DType) -> Result<DType, Expected> {
    if complex(t) {
        Err(INVALID_DTYPE)
    } else {
        Ok(t)
    }
}

pub fn float_only(t: DType) -> Result<DType, Expected> {
    if float(t) { Ok(t) } else { Err(INVALID_DTYPE) }
}

/// NumPy broadcasting of two shapes.
pub fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, Expected> {
    let n = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() < n {
            1
        } else {
            s[i + s.len() - n]
        }
    };
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            _ => Err(SHAPE_MISMATCH),
        })
        .collect()
}

pub fn check_axis(axis: usize, ndim: usize) -> Result<(), Expected> {
    if axis < ndim {
        Ok(())
    } else {
        Err(AXIS_OUT_OF_RANGE)
    }
}
