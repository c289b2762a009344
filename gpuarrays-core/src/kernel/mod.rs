//! What backends receive: descriptions of kernels and their arguments.
//!
//! Generic array operations in core validate shapes and types, then lower to one of these
//! descriptions; a backend implements each as a kernel. The exact semantics (wrapping
//! integers, NaN rules, cast rules, the random-number recipe) are documented on the types.

pub mod axis_ops;
pub mod elementwise;
pub mod fft;
mod map_buffers;
pub mod operators;
pub mod random;

pub use axis_ops::{FindArgs, MatmulArgs, ReduceArgs, ReduceOp, ScanArgs, ScanOp, SortArgs};
pub use elementwise::{Access, ElementwiseArgs, Instr, Node, Operand, Program, simplify_layout};
pub use fft::{FftArgs, FftDirection, FftKind, FftLayout, MAX_FFT_RANK};
pub use operators::{BinaryOp, UnaryOp};
pub use random::Distribution;
