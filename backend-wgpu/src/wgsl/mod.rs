//! WGSL generation shared by every kernel: how element types are stored and loaded
//! ([`types`]), the operations' semantics ([`ops`], [`math`], [`trig`], [`pow`] on top of
//! [`extended`] and [`two_over_pi`]), helper functions emitted on
//! demand ([`helpers`]), the parameter block and the dispatch grid ([`header`]), and the
//! Philox generator ([`philox`]).

pub mod extended;
pub mod header;
pub mod helpers;
pub mod math;
pub mod ops;
pub mod philox;
pub mod pow;
pub mod trig;
pub mod two_over_pi;
pub mod types;
