//! The kernels: each turns one of core's kernel descriptions into WGSL and dispatches it.

pub mod copy_bytes;
pub mod elementwise;
pub mod fft;
pub mod find;
pub mod indexing;
pub mod matmul;
pub mod reduce;
pub mod scan;
pub mod search;
pub mod sort;
pub mod temp;
mod windows;

#[cfg(test)]
mod naga_validation;
