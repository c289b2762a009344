//! The FFT functions of the public API as the suite names and calls them.

/// The FFT functions of the public API; each is a row of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FftForm {
    Fft,
    Ifft,
    Rfft,
    Irfft,
    Fft2,
    Ifft2,
    Fftn,
    Ifftn,
    Rfftn,
    Irfftn,
}

impl FftForm {
    pub const ALL: [FftForm; 10] = [
        FftForm::Fft,
        FftForm::Ifft,
        FftForm::Rfft,
        FftForm::Irfft,
        FftForm::Fft2,
        FftForm::Ifft2,
        FftForm::Fftn,
        FftForm::Ifftn,
        FftForm::Rfftn,
        FftForm::Irfftn,
    ];

    /// The function's name, e.g. "rfftn".
    pub const fn name(self) -> &'static str {
        match self {
            FftForm::Fft => "fft",
            FftForm::Ifft => "ifft",
            FftForm::Rfft => "rfft",
            FftForm::Irfft => "irfft",
            FftForm::Fft2 => "fft2",
            FftForm::Ifft2 => "ifft2",
            FftForm::Fftn => "fftn",
            FftForm::Ifftn => "ifftn",
            FftForm::Rfftn => "rfftn",
            FftForm::Irfftn => "irfftn",
        }
    }

    /// Whether the function takes one `n` and one axis (`fft`, `ifft`, `rfft`, `irfft`).
    pub const fn one_axis(self) -> bool {
        matches!(
            self,
            FftForm::Fft | FftForm::Ifft | FftForm::Rfft | FftForm::Irfft
        )
    }

    /// Whether the axes default to the last two (`fft2`, `ifft2`).
    pub const fn two_axes(self) -> bool {
        matches!(self, FftForm::Fft2 | FftForm::Ifft2)
    }

    pub const fn inverse(self) -> bool {
        matches!(
            self,
            FftForm::Ifft | FftForm::Irfft | FftForm::Ifft2 | FftForm::Ifftn | FftForm::Irfftn
        )
    }

    /// Real input (`rfft`, `rfftn`).
    pub const fn real_input(self) -> bool {
        matches!(self, FftForm::Rfft | FftForm::Rfftn)
    }

    /// Real output (`irfft`, `irfftn`).
    pub const fn real_output(self) -> bool {
        matches!(self, FftForm::Irfft | FftForm::Irfftn)
    }
}

/// One FFT call: the function, its lengths (`n` as the only element for the 1-D forms), its
/// axes (exactly one for the 1-D forms) and the normalisation.
#[derive(Debug, Clone, PartialEq)]
pub struct FftCase {
    pub form: FftForm,
    pub s: Option<Vec<usize>>,
    pub axes: Option<Vec<usize>>,
    pub norm: gpuarrays_core::FftNorm,
}
