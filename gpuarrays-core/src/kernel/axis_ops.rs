//! Descriptions of the non-elementwise kernels: reductions, scans, sorts, find, search,
//! matmul.
//!
//! Every buffer position is in elements of the named type, offsets included; every operand
//! is contiguous row-major. Core validates shapes and types and never dispatches a kernel
//! with zero elements of output, so backends need not handle those cases.

use std::fmt;

use crate::dtype::DType;
use crate::error::{Error, Result};

/// Reductions.
///
/// | op | input | output | semantics |
/// |---|---|---|---|
/// | `Sum` | numeric | same | integers wrap; floats in any order (tolerance) |
/// | `Prod` | numeric | same | integers wrap; floats in any order (tolerance), starting from the first element, never from 1 (see the [module docs](super#special-values)) |
/// | `Min`, `Max` | ordered | same | a NaN anywhere gives NaN |
/// | `ArgMin`, `ArgMax` | ordered | i64 | index along the axis of the first extreme; the first NaN wins if any |
/// | `Any`, `All` | bool | bool | logical or / and |
///
/// Core never asks for `Min`..`ArgMax` over zero elements (an error), and fills the
/// identity itself for `Sum`, `Prod`, `Any`, `All` over zero elements.
///
/// Unspecified (backends may differ; comparisons treat `-0.0 == 0.0`): the sign of a zero
/// produced by `Sum`, `Min` or `Max` (or by a complex `Prod`); `ArgMin`/`ArgMax` pick the
/// first of equal values by index, and `-0.0` equals `0.0`. The pattern of NaN and infinite
/// parts of a complex `Prod` of three or more factors with a non-finite part is unspecified
/// too (see the [module docs](super#special-values)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    ArgMin,
    ArgMax,
    Any,
    All,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 8] = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::ArgMin,
        ReduceOp::ArgMax,
        ReduceOp::Any,
        ReduceOp::All,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::ArgMin => "argmin",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::Any => "any",
            ReduceOp::All => "all",
        }
    }

    /// Whether the reduction has an identity (and so a value over zero elements).
    pub const fn has_identity(self) -> bool {
        matches!(
            self,
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Any | ReduceOp::All
        )
    }

    /// Output type for input type `t`, or why `t` is invalid.
    pub fn result_dtype(self, t: DType) -> Result<DType> {
        let (ok, out, hint) = match self {
            ReduceOp::Sum | ReduceOp::Prod => (
                t.is_numeric(),
                t,
                "it applies to numbers; cast bool to an integer type to count",
            ),
            ReduceOp::Min | ReduceOp::Max => (t.is_ordered(), t, "complex numbers have no order"),
            ReduceOp::ArgMin | ReduceOp::ArgMax => {
                (t.is_ordered(), DType::I64, "complex numbers have no order")
            }
            ReduceOp::Any | ReduceOp::All => (
                t.is_bool(),
                DType::Bool,
                "it applies to bool; compare first, e.g. `x.ex().ne(0)`",
            ),
        };
        if ok {
            Ok(out)
        } else {
            Err(Error::invalid_dtype(self.name(), t, hint))
        }
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A reduction over the middle axis of an (outer, len, inner) view:
/// `output[o·inner + i] = reduce_k input[offset + o·len·inner + k·inner + i]`.
/// `len ≥ 1` and `outer·inner ≥ 1`.
#[derive(Debug, Clone)]
pub struct ReduceArgs<'a, Buf> {
    pub op: ReduceOp,
    /// The input type; the output type is `op.result_dtype(dtype)`.
    pub dtype: DType,
    pub input: &'a Buf,
    pub input_offset: usize,
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
    pub output: &'a Buf,
    pub output_offset: usize,
}

/// Inclusive scans. Element `k` along the axis combines elements `0..=k`, so element 0 is
/// the first element itself (for `Prod` too: see the [module docs](super#special-values)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScanOp {
    /// Cumulative sum (integers wrap).
    Sum,
    /// Cumulative product (integers wrap), starting from the first element.
    Prod,
    /// Running maximum (NumPy `maximum.accumulate`): ordered types only; once a NaN is
    /// reached every later element is NaN.
    Max,
    /// Running minimum (NumPy `minimum.accumulate`), like `Max`.
    Min,
}

impl ScanOp {
    pub const ALL: [ScanOp; 4] = [ScanOp::Sum, ScanOp::Prod, ScanOp::Max, ScanOp::Min];

    pub const fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
            ScanOp::Max => "cummax",
            ScanOp::Min => "cummin",
        }
    }

    /// The reduction whose combining function this scan applies (and whose identity, where
    /// a kernel pads with one).
    pub const fn reduction(self) -> ReduceOp {
        match self {
            ScanOp::Sum => ReduceOp::Sum,
            ScanOp::Prod => ReduceOp::Prod,
            ScanOp::Max => ReduceOp::Max,
            ScanOp::Min => ReduceOp::Min,
        }
    }

    /// Whether the scan applies to `t` beyond the kind's rule
    /// ([`crate::OpKind::type_rule`] for [`crate::OpKind::Scan`], which excludes bool):
    /// `Max` and `Min` need an order, so complex is refused here.
    pub fn check_dtype(self, t: DType) -> Result<()> {
        match self {
            ScanOp::Max | ScanOp::Min if !t.is_ordered() => Err(Error::invalid_dtype(
                self.name(),
                t,
                "complex numbers have no order; scan abs() or the real parts",
            )),
            _ => Ok(()),
        }
    }
}

/// An inclusive scan along the middle axis of an (outer, len, inner) view; input and output
/// have one type and the same layout, in different buffers or disjoint ranges. Never of f16
/// or bf16: core scans halves as f32 (`ops::scan`).
#[derive(Debug, Clone)]
pub struct ScanArgs<'a, Buf> {
    pub op: ScanOp,
    pub dtype: DType,
    pub input: &'a Buf,
    pub input_offset: usize,
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
    pub output: &'a Buf,
    pub output_offset: usize,
}

/// Sorts `rows` consecutive rows of `len` elements each, in place, ascending. NaNs go last;
/// `false < true`; complex is rejected by core. `rows·len ≥ 1`. `-0.0` and `0.0` compare
/// equal, so their relative order in the result is unspecified.
///
/// `ordered_low_bits` is 0 or, for unsigned integer rows only, the caller's promise that
/// the low `ordered_low_bits` bits of the elements strictly increase along every row (core's
/// sorting permutations pack a key above each element's position). The full sort then
/// equals a *stable* sort by the bits above them alone, and a backend may do that (a radix
/// sort skips the digits below: half the passes for a 32-bit key packed with a 32-bit
/// position); a backend that ignores the promise sorts correctly all the same.
#[derive(Debug, Clone)]
pub struct SortArgs<'a, Buf> {
    pub dtype: DType,
    pub buffer: &'a Buf,
    pub offset: usize,
    pub rows: usize,
    pub len: usize,
    pub ordered_low_bits: u32,
}

/// Finds the positions `p` in `0..len` where the bool `input[offset + p]` is true; the
/// backend returns a new buffer holding them as ascending i64 values, and their count.
/// `len ≥ 1`.
#[derive(Debug, Clone)]
pub struct FindArgs<'a, Buf> {
    pub input: &'a Buf,
    pub offset: usize,
    pub len: usize,
}

/// Which position a search of a sorted table returns among equal elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Side {
    /// The first position where the value could be inserted keeping the order (NumPy
    /// `side="left"`): the number of elements smaller than it.
    #[default]
    Left,
    /// The last such position (NumPy `side="right"`): the number of elements not larger.
    Right,
}

/// For each of the `len` unsigned keys `values[values_offset + j]`, its insertion point in
/// the ascending keys `table[table_offset ..][.. table_len]`, written as i64 to
/// `output[output_offset + j]`: the number of table keys smaller than the value
/// ([`Side::Left`]) or not larger ([`Side::Right`]). `dtype` (the type of the table and the
/// values) is `U32` or `U64`; `table_len ≥ 1`, `len ≥ 1`; the output does not overlap
/// either input.
///
/// A backend finds the point by binary search. When the table is not ascending, the answer
/// is unspecified (backends may differ) but is always a position in `0..=table_len`; no
/// error, nothing read outside the table.
#[derive(Debug, Clone)]
pub struct SearchArgs<'a, Buf> {
    pub dtype: DType,
    pub side: Side,
    pub table: &'a Buf,
    pub table_offset: usize,
    pub table_len: usize,
    pub values: &'a Buf,
    pub values_offset: usize,
    pub len: usize,
    pub output: &'a Buf,
    pub output_offset: usize,
}

/// Batched row-major matrix products `out[b] = a[b] · rhs[b]` with `a[b]` of shape (m, k),
/// `rhs[b]` of (k, n) and `out[b]` of (m, n). A batch stride of 0 repeats one matrix across
/// the batch. Integers wrap; floats accumulate in the element type. `batch·m·n ≥ 1`; `k` may
/// be 0 (the product is then zero).
#[derive(Debug, Clone)]
pub struct MatmulArgs<'a, Buf> {
    pub dtype: DType,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: &'a Buf,
    pub a_offset: usize,
    pub a_batch_stride: usize,
    pub b: &'a Buf,
    pub b_offset: usize,
    pub b_batch_stride: usize,
    pub output: &'a Buf,
    pub output_offset: usize,
}
