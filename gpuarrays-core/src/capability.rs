//! The vocabulary of capability questions: the kinds of operation a backend is asked about
//! ([`OpKind`]), a backend's answer ([`Support`]), and the type rules core enforces for every
//! backend alike ([`TypeRule`], [`OpKind::type_rule`]).
//!
//! This module is a leaf: it depends on nothing in the crate but [`crate::dtype`], so that
//! the error type (which names an `OpKind`) and the `Backend` trait (which answers with a
//! `Support`) can both use it without depending on each other. The check that turns a "no"
//! into an error needs the trait and lives one layer up, in [`crate::support`].
//!
//! Two different reasons make an (element type, operation) pair impossible, and they are
//! kept apart on purpose:
//! - a **type rule** (this module): the operation has no meaning for the type, on any
//!   backend (complex numbers have no order to sort by; bool is not multiplied). Core
//!   rejects such pairs with [`crate::Error::InvalidDType`] before asking any backend, so a
//!   backend's [`Support`] answer never restates them;
//! - a **capability** ([`Support::No`]): this device cannot run the type, e.g. an adapter
//!   without 64-bit floats. Core reports it as [`crate::Error::Unsupported`].

use std::fmt;

use crate::dtype::DType;

/// The kinds of operation a backend is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// Allocation and host/device/device copies.
    Storage,
    /// Fused elementwise expressions (including fill, casts, views materialised by copy,
    /// random numbers).
    Elementwise,
    /// Reductions (sum, prod, min, max, argmin, argmax, any, all).
    Reduce,
    /// Cumulative sums and products.
    Scan,
    /// Sorting.
    Sort,
    /// Finding indices where a mask is true.
    Find,
    /// Gathers: reading elements at positions held in an i64 index array (`take`,
    /// `take_along_axis`, `index_select`, boolean-mask selection). Asked with the element
    /// type read; the index is always i64.
    Gather,
    /// Scatters: storing or adding elements at positions held in an i64 index array (`put`,
    /// `put_along_axis`, `scatter_add`, masked assignment, `bincount`). Asked with the
    /// element type written; the index is always i64.
    Scatter,
    /// Matrix multiplication.
    Matmul,
    /// Fast Fourier transforms (asked with the real type of the transform's precision, `F32`
    /// or `F64`, and with its complex type, `C32` or `C64`).
    Fft,
}

impl OpKind {
    pub const ALL: [OpKind; 10] = [
        OpKind::Storage,
        OpKind::Elementwise,
        OpKind::Reduce,
        OpKind::Scan,
        OpKind::Sort,
        OpKind::Find,
        OpKind::Gather,
        OpKind::Scatter,
        OpKind::Matmul,
        OpKind::Fft,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            OpKind::Storage => "storage",
            OpKind::Elementwise => "elementwise",
            OpKind::Reduce => "reduce",
            OpKind::Scan => "scan",
            OpKind::Sort => "sort",
            OpKind::Find => "find",
            OpKind::Gather => "gather",
            OpKind::Scatter => "scatter",
            OpKind::Matmul => "matmul",
            OpKind::Fft => "fft",
        }
    }

    /// The core type rule that excludes `dtype` from every kernel of this kind, on every
    /// backend, or `None` when core may ask a backend about the pair.
    ///
    /// Core never asks [`crate::Backend::supports`] about a pair with a rule, and never
    /// dispatches one: sort, cumsum/cumprod and matmul reject it with
    /// [`crate::Error::InvalidDType`], and `find` casts its input to a bool mask first. A
    /// tool listing capabilities (`gpuarrays info`) shows the rule instead of asking the
    /// backend, so the same rule reads the same on every backend.
    ///
    /// Rules that depend on the exact operation within a kind (`sqrt` of an integer, `min`
    /// of a complex number, `any` of a number) are checked by core where the operation is
    /// built and are not listed here: the kind as a whole stays valid for those types.
    ///
    /// ```
    /// use gpuarrays_core::{DType, OpKind};
    /// assert!(OpKind::Sort.type_rule(DType::C64).is_some());
    /// assert!(OpKind::Sort.type_rule(DType::F64).is_none());
    /// assert!(OpKind::Storage.type_rule(DType::C64).is_none());
    /// ```
    pub const fn type_rule(self, dtype: DType) -> Option<TypeRule> {
        match self {
            OpKind::Storage
            | OpKind::Elementwise
            | OpKind::Reduce
            | OpKind::Gather
            | OpKind::Scatter => None,
            OpKind::Sort if !dtype.is_ordered() => Some(TypeRule {
                reason: "complex numbers have no order",
                alternative: "sort abs() or the real parts",
            }),
            OpKind::Scan if !dtype.is_numeric() => Some(TypeRule {
                reason: "bool is not summed or multiplied",
                alternative: "cast bool to an integer type first",
            }),
            OpKind::Matmul if !dtype.is_numeric() => Some(TypeRule {
                reason: "bool is not multiplied",
                alternative: "cast bool to an integer or float type first",
            }),
            OpKind::Find if !matches!(dtype, DType::Bool | DType::I64) => Some(TypeRule {
                reason: "find kernels read a bool mask and write i64 positions",
                alternative: "core casts other element types to a bool mask first",
            }),
            OpKind::Fft if !(dtype.is_float() || dtype.is_complex()) => Some(TypeRule {
                reason: "FFTs transform floating-point data",
                alternative: "cast to f32 or f64 (or c32/c64) first",
            }),
            OpKind::Fft if dtype.is_half() => Some(TypeRule {
                reason: "there is no complex half-precision type to hold a transform",
                alternative: "cast to f32 (c32 results) first",
            }),
            OpKind::Sort | OpKind::Scan | OpKind::Matmul | OpKind::Find | OpKind::Fft => None,
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why core excludes an element type from a kind of operation on every backend (see
/// [`OpKind::type_rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeRule {
    /// Why, e.g. "complex numbers have no order".
    pub reason: &'static str,
    /// What to do instead, e.g. "sort abs() or the real parts".
    pub alternative: &'static str,
}

impl fmt::Display for TypeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {}", self.reason, self.alternative)
    }
}

/// A backend's answer to "can you run `dtype` for `op`?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Yes,
    No {
        /// Why not, in the backend's terms, e.g. "the adapter lacks SHADER_F64".
        reason: String,
        /// What to use instead, e.g. "use f32".
        alternative: Option<String>,
    },
}

impl Support {
    pub fn no(reason: impl Into<String>, alternative: Option<&str>) -> Support {
        Support::No {
            reason: reason.into(),
            alternative: alternative.map(str::to_string),
        }
    }

    pub fn is_yes(&self) -> bool {
        matches!(self, Support::Yes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules, written out from the element types' properties rather than from the
    /// table above: sorting needs an order, scans and products need arithmetic, find
    /// kernels see only masks and positions.
    #[test]
    fn type_rules_follow_the_element_families() {
        for d in DType::ALL {
            assert_eq!(
                OpKind::Sort.type_rule(d).is_some(),
                d.is_complex(),
                "sort {d}"
            );
            assert_eq!(
                OpKind::Scan.type_rule(d).is_some(),
                d == DType::Bool,
                "scan {d}"
            );
            assert_eq!(
                OpKind::Matmul.type_rule(d).is_some(),
                d == DType::Bool,
                "matmul {d}"
            );
            let find_kernel_type = d == DType::Bool || d == DType::I64;
            assert_eq!(
                OpKind::Find.type_rule(d).is_none(),
                find_kernel_type,
                "find {d}"
            );
            assert_eq!(
                OpKind::Fft.type_rule(d).is_none(),
                matches!(d, DType::F32 | DType::F64 | DType::C32 | DType::C64),
                "fft {d}"
            );
            for k in [OpKind::Storage, OpKind::Elementwise, OpKind::Reduce] {
                assert_eq!(k.type_rule(d), None, "{k} {d}");
            }
        }
    }
}
