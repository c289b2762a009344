//! The primitive IR: a [`Program`](crate::kernel::Program) with the semantic rules of the
//! elementwise language already expanded into operations every target prints directly.
//!
//! **Why.** The rules of [`crate::kernel::operators`], [`crate::scalar`] casts and
//! [`crate::kernel::random`] — integer `x / 0 == 0` and `MIN / -1 == MIN`, saturating
//! float-to-integer casts, NaN-propagating `min`/`max`, complex products and quotients term by
//! term, the Philox stream and the Box–Muller pair — are decided here, once. A code generator
//! only prints [`Prim`]s (selects, compares, bit operations, wrapping arithmetic, a widening
//! multiply, conversions that are defined on their whole input, library math), so the GPU
//! backends cannot drift apart on a rule, and a new backend gets every edge case for free.
//! The conformance oracle deliberately does not use this module: it checks the rules from
//! their documentation, independently of the lowering.
//!
//! **Every primitive is total.** A lowering never relies on a target evaluating a select's
//! arms lazily: an integer division's divisor is made nonzero (and never `-1`) before the
//! division, a float is replaced by 0 before a conversion it would overflow. So a printer may
//! evaluate the instructions of a [`Block`] in order, one statement each, in a language where
//! division by zero or an out-of-range conversion is undefined (C++) or defined differently
//! (WGSL).
//!
//! **What stays with the printers**, because it is representation or the hardware's own
//! exact operation rather than a rule: how a type lives in registers (WGSL keeps u8 in a u32,
//! C++ wraps signed arithmetic in the unsigned type), the library functions ([`MathFn`]),
//! how a `MulWide` result is held, and target quirks such as WGSL's opaque zero. The
//! semantics each primitive must have are on [`Prim`].
//!
//! | file | what |
//! |---|---|
//! | [`ir`] | the instructions and their semantics |
//! | [`builder`] | appending instructions (constants, typed helpers) |
//! | [`semantics`] | unary and binary operations and casts |
//! | `functions`, `binary_functions` | the library functions composed from primitives (`atan`, `log1p`, ...; `rem`, shifts, `atan2`, ...) |
//! | [`random`] | the Philox block, the draws, one element of a random leaf |
//! | [`program`] | a whole `Program` |

mod binary_functions;
pub mod builder;
mod functions;
pub mod ir;
pub mod program;
pub mod random;
pub mod semantics;

#[cfg(test)]
mod eval;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_functions;
#[cfg(test)]
mod tests_narrow;

pub use builder::Builder;
pub use ir::{Block, MathFn, PBinary, PInstr, PUnary, Prim, Value};
pub use program::{Lowered, lower};
pub use semantics::{binary, cast, unary};
