//! The C++ text of the kernels: the pieces every generated source is assembled from. Each
//! function here returns HIP-dialect C++ (a header, an expression, a library of device
//! functions) and runs nothing; the kernel families around this folder put the pieces
//! together, compile them and launch them.
//!
//! | piece | file |
//! |---|---|
//! | the header every source starts with (types, NaN tests, warp shuffles with the device's warp size) and the compiler [`Dialect`] | [`header`] |
//! | element types: register and memory types, loads, stores, literals | [`element_types`] |
//! | f16 and bf16: the bit structs and the conversions, rounded once | [`half_convert`] |
//! | the primitives of core's lowered IR as C++: statements, or one operation as one expression for the combining kernels | [`primitives`] |
//! | warp- and block-wide reduce and scan over an accumulator ([`combine::Combiner`]) | [`combine`] |
//! | the random draws printed from core's lowering, and the vector loop's word selection | [`philox`] |
//! | `ln` and `sincos` for the f32 normal draw's arguments only (short, no special cases) | [`unit_math`] |

pub mod combine;
pub mod element_types;
pub mod half_convert;
pub mod header;
pub mod philox;
pub mod primitives;
pub mod unit_math;

pub use header::Dialect;
