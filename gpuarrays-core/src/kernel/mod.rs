//! What backends receive: descriptions of kernels and their arguments.
//!
//! Generic array operations in core validate shapes and types, then lower to one of these
//! descriptions; a backend implements each as a kernel. The exact semantics (wrapping
//! integers, NaN rules, cast rules, the random-number recipe) are documented on the types,
//! and [`lowered`] expands them into primitive operations once, for the code generators.
//!
//! # Special values
//!
//! Every backend computes the same results on NaN, ±inf, ±0, subnormals and extremes; the
//! conformance suite feeds all of them to every operation and element type.
//!
//! - **Subnormals** are numbers: never flushed to zero, in inputs or results.
//! - **The sign of a zero** follows IEEE arithmetic, the C library and Rust's `as`
//!   (`-(0.0)` is `-0.0`, `-0.0 · 3` is `-0.0`, `sqrt(-0.0)` is `-0.0`, a cast keeps it),
//!   except where it is **unspecified**: results of sums in any order (`Sum`, cumulative
//!   sums, means, matmul), of `Min`/`Max` (elementwise and reductions), the relative order of
//!   `-0.0` and `0.0` in a sort, and complex products of two or more factors.
//! - **NaN**: which NaN (its sign and payload) is unspecified everywhere; where a NaN is
//!   produced is specified (the IEEE rules, and the NaN rules of each operation).
//! - **Products** ([`ReduceOp::Prod`], [`ScanOp::Prod`]) multiply the elements themselves,
//!   starting from the first: the product of one element is that element, and
//!   the identity 1 is only the value of an empty product. (No complex value is neutral
//!   under the textbook formula: `(1 + 0i)·(6 + ∞i)` is `NaN + ∞i` because `0·∞` is NaN, so a
//!   kernel must not pad with `1 + 0i`.) Products of two or more factors may be grouped in
//!   any order, so: real products overflow, underflow and give NaN from `0·∞` as the order
//!   they were computed in does (their NaN and infinities do not depend on the order when
//!   nothing overflows or underflows); a complex product of three or more factors with an
//!   infinite factor, or that overflows, has some NaN or infinite part, but which of its
//!   parts are NaN or infinite depends on the order.
//! - **Means** are the sum (in the element type) divided by the number of elements with
//!   [`BinaryOp::Div`]; for complex values that is the division by `n + 0i`, so an infinite
//!   part of the sum makes the other part NaN.

pub mod axis_ops;
pub mod elementwise;
pub mod fft;
pub mod indexing;
pub mod lowered;
mod map_buffers;
pub mod operators;
pub mod random;

pub use axis_ops::{
    FindArgs, MatmulArgs, ReduceArgs, ReduceOp, ScanArgs, ScanOp, SearchArgs, Side, SortArgs,
};
pub use elementwise::{
    Access, ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout, simplify_layout_into,
};
pub use fft::{FftArgs, FftDirection, FftKind, FftLayout, FftPlanKey, MAX_FFT_RANK};
pub use indexing::{GatherArgs, IndexMode, IndexSpace, ScatterArgs, ScatterOp, Strided3};
pub use operators::{BinaryOp, UnaryOp};
pub use random::Distribution;
