//! NumPy's `norm` argument of the FFT functions (the normalisation rules are in
//! `ops/fft.rs`'s module documentation).

/// NumPy's `norm` argument: which direction carries the `1/n` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FftNorm {
    /// Forward unscaled, inverse scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions scaled by `1/√n`.
    Ortho,
    /// Forward scaled by `1/n`, inverse unscaled.
    Forward,
}

impl FftNorm {
    pub const ALL: [FftNorm; 3] = [FftNorm::Backward, FftNorm::Ortho, FftNorm::Forward];

    /// NumPy's name: "backward", "ortho", "forward".
    pub const fn name(self) -> &'static str {
        match self {
            FftNorm::Backward => "backward",
            FftNorm::Ortho => "ortho",
            FftNorm::Forward => "forward",
        }
    }

    /// The factor a transform of `n` points in total is multiplied by.
    pub fn scale(self, n: usize, inverse: bool) -> f64 {
        let n = n as f64;
        match (self, inverse) {
            (FftNorm::Ortho, _) => 1.0 / n.sqrt(),
            (FftNorm::Backward, true) | (FftNorm::Forward, false) => 1.0 / n,
            (FftNorm::Backward, false) | (FftNorm::Forward, true) => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norms_scale_as_numpy() {
        assert_eq!(FftNorm::Backward.scale(8, false), 1.0);
        assert_eq!(FftNorm::Backward.scale(8, true), 0.125);
        assert_eq!(FftNorm::Forward.scale(8, false), 0.125);
        assert_eq!(FftNorm::Forward.scale(8, true), 1.0);
        assert_eq!(FftNorm::Ortho.scale(4, true), 0.5);
    }
}
