//! Seeded random arrays, identical on every backend (see [`crate::kernel::random`]).

use crate::array::Array;
use crate::backend::Backend;
use crate::element::Element;
use crate::error::Result;
use crate::kernel::Distribution;
use crate::ops::expr::Expr;

impl<T: Element, B: Backend> Array<T, B> {
    /// Uniform numbers in [0, 1) (f32 or f64).
    pub fn random_uniform(backend: &B, dims: &[usize], seed: u64) -> Result<Self> {
        Expr::random(backend, dims, T::DTYPE, Distribution::Uniform, seed).eval()
    }

    /// Standard normal numbers (f32 or f64).
    pub fn random_normal(backend: &B, dims: &[usize], seed: u64) -> Result<Self> {
        Expr::random(backend, dims, T::DTYPE, Distribution::Normal, seed).eval()
    }
}
