//! WGSL generation shared by every kernel: how element types are stored and loaded
//! ([`types`]), the primitives of core's lowered IR ([`primitives`]) and the random draws
//! printed from them ([`random`]), the library math ([`math`], [`trig`], [`pow`], [`fmod`]
//! on top of [`extended`] and [`two_over_pi`]), f16 and bf16 conversions ([`half`]), helper functions emitted on demand
//! ([`helpers`]), and the parameter block and the dispatch grid ([`header`]). The semantic rules, the random
//! recipe included, are core's (`gpuarrays_core::kernel::lowered`).

pub mod extended;
pub mod fmod;
pub mod half;
pub mod header;
pub mod helpers;
pub mod math;
pub mod pow;
pub mod primitives;
pub mod random;
pub mod trig;
pub mod two_over_pi;
pub mod types;
