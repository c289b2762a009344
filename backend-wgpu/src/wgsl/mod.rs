//! WGSL generation shared by every kernel: how element types are stored and loaded
//! ([`types`]), the operations' semantics ([`ops`], [`math`]), helper functions emitted on
//! demand ([`helpers`]), the parameter block and the dispatch grid ([`header`]), and the
//! Philox generator ([`philox`]).

pub mod header;
pub mod helpers;
pub mod math;
pub mod ops;
pub mod philox;
pub mod types;
