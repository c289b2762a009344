//! The generic array operations. Each validates shapes, types and capabilities, then lowers
//! to one of the kernel descriptions in [`crate::kernel`].

mod argsort;
pub(crate) mod copy;
mod creation;
mod einsum;
mod einsum_parse;
pub(crate) mod eval;
mod eval_scratch;
pub mod expr;
mod expr_fns;
mod expr_nodes;
mod expr_ops;
pub mod fft;
mod fft_axes;
mod fft_helpers;
mod fft_lowering;
mod fft_norm;
mod index_space;
mod join;
mod linalg;
mod literal;
mod masks;
mod matmul;
mod pad;
mod pad_mirror;
mod put;
mod random;
mod reduce;
mod region;
mod repeat_counts;
mod scan;
mod sort;
mod sort_keys;
pub(crate) mod statistics;
mod strided_output;
mod take;
mod topk;
mod unique;

pub use creation::Indexing;
pub use expr::{Expr, ExprArg, IntoExprArg, Literal};
pub use fft::{FftElement, FftNorm};
pub use linalg::NormOrd;
pub use pad::Pad;
pub use sort_keys::SortOrder;
pub use statistics::moment_dtype;
pub use unique::{Side, Unique};
