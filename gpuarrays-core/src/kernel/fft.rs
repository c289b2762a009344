//! The description of one batched FFT, as a backend receives it ([`FftArgs`]).
//!
//! Core keeps every piece of shape logic (axes, NumPy's `n`/`s` crop and zero-pad, real
//! input promoted to complex, normalisation, transforms over axes that are not one strided
//! batch) and hands a backend only what one call of a GPU FFT library does: 1 to 3
//! transform lengths, a batch count, and for each operand an offset, a stride and a distance
//! in the form of cuFFT's and rocFFT's advanced data layout. So a backend maps an `FftArgs`
//! to one plan and one execution, with no decisions of its own; [`FftPlanKey`] is that plan's
//! identity (everything but the buffers and offsets), for a backend that keeps plans.
//!
//! # Semantics
//!
//! With `N = lengths` (rank `r`, slowest axis first) and the multi-index `x` of a transform:
//!
//! - forward: `out[k] = Σ_x in[x] · exp(−2πi Σ_d k_d·x_d / N_d)`;
//! - inverse: the same with `+2πi`. **No scaling**: core multiplies by the normalisation
//!   factor afterwards (see `ops/fft.rs`).
//! - `R2C` (always forward) reads `N` real values and writes the non-redundant half of the
//!   Hermitian spectrum: the last axis holds `N_{r−1}/2 + 1` complex values.
//! - `C2R` (always inverse) reads such a half spectrum and writes `N` real values. Core only
//!   sends rank-1 `C2R`, with the imaginary parts of the zero-frequency bin (and of the
//!   Nyquist bin when `N` is even) already zero, so every library computes the same thing;
//!   and its input is a scratch copy the backend **may overwrite** (cuFFT and rocFFT do).
//!
//! # Layout
//!
//! Each operand has a *physical* shape per transform, its `embed` ([`FftArgs::input_embed`],
//! [`FftArgs::output_embed`]): `N` for complex data of a C2C transform and for the real side
//! of R2C/C2R, `N` with the last length replaced by `N_{r−1}/2 + 1` for the complex side.
//! Element `x` (row-major over the embed) of batch `b` is at element position
//! `offset + b·dist + stride·linear(x)` of the operand's buffer, in units of the operand's
//! element type (real or complex). This is exactly cuFFT's `cufftPlanMany` / rocFFT's
//! `rocfft_plan_description_set_data_layout` with `inembed`/`onembed` equal to the embeds.
//!
//! Input and output are either the same buffer with the same offset and layout (in place;
//! C2C only) or do not overlap. `batch ≥ 1` and every length `≥ 1`: core never dispatches
//! an empty transform. [`FftArgs::validate`] checks all of this; core calls it once before
//! every dispatch, so a backend need not (one may still, as a defensive check).

use std::fmt;

use crate::dtype::DType;
use crate::error::{Error, Result};

mod plan_key;

pub use plan_key::FftPlanKey;

/// The most transform dimensions of one backend call (cuFFT's and rocFFT's limit).
pub const MAX_FFT_RANK: usize = 3;

/// Which data types a transform maps between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FftKind {
    /// Complex to complex, forward or inverse.
    C2C,
    /// Real to the half complex spectrum (forward).
    R2C,
    /// Half complex spectrum to real (inverse).
    C2R,
}

impl FftKind {
    pub const fn name(self) -> &'static str {
        match self {
            FftKind::C2C => "c2c",
            FftKind::R2C => "r2c",
            FftKind::C2R => "c2r",
        }
    }
}

impl fmt::Display for FftKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The sign of the exponent: forward `−2πi`, inverse `+2πi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FftDirection {
    Forward,
    Inverse,
}

/// Where one operand's elements are (see the module documentation): positions in
/// elements of the operand's own type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FftLayout {
    /// Element position of the first element of the first transform.
    pub offset: usize,
    /// Distance between consecutive elements of the innermost transform axis.
    pub stride: usize,
    /// Distance between the first elements of consecutive transforms of the batch.
    pub dist: usize,
}

impl FftLayout {
    /// Consecutive transforms of `per` contiguous elements each.
    pub const fn contiguous(offset: usize, per: usize) -> Self {
        FftLayout {
            offset,
            stride: 1,
            dist: per,
        }
    }
}

/// One batched FFT. See the module documentation for the exact semantics and layout.
#[derive(Debug, Clone)]
pub struct FftArgs<'a, Buf> {
    pub kind: FftKind,
    /// `Forward` for R2C and `Inverse` for C2R (checked by [`validate`](Self::validate)).
    pub direction: FftDirection,
    /// The precision: `F32` (single) or `F64` (double).
    pub real: DType,
    /// Logical transform lengths, slowest axis first; 1 to [`MAX_FFT_RANK`] entries.
    pub lengths: Vec<usize>,
    /// Number of transforms.
    pub batch: usize,
    pub input: &'a Buf,
    pub input_layout: FftLayout,
    pub output: &'a Buf,
    pub output_layout: FftLayout,
}

/// The complex type of a precision (`F32` → `C32`, `F64` → `C64`).
pub fn complex_of(real: DType) -> Option<DType> {
    match real {
        DType::F32 => Some(DType::C32),
        DType::F64 => Some(DType::C64),
        _ => None,
    }
}

/// The half spectrum's last length for a real length `n`: `n/2 + 1`.
pub const fn half_len(n: usize) -> usize {
    n / 2 + 1
}

/// The element type of the input (`input`) or output side of a `kind` transform.
fn side_dtype(kind: FftKind, real: DType, input: bool) -> DType {
    let real_side = if input { FftKind::R2C } else { FftKind::C2R };
    if kind == real_side {
        real
    } else {
        complex_of(real).unwrap_or(DType::C64)
    }
}

/// The physical shape of one input (`input`) or output transform of `kind` over `lengths`:
/// the lengths, with the last replaced by its half-spectrum length on a complex side of
/// R2C/C2R.
fn side_embed(kind: FftKind, lengths: &[usize], input: bool) -> Vec<usize> {
    let half_side = if input { FftKind::C2R } else { FftKind::R2C };
    let mut e = lengths.to_vec();
    if let (true, Some(last)) = (kind == half_side, e.last_mut()) {
        *last = half_len(*last);
    }
    e
}

impl<Buf> FftArgs<'_, Buf> {
    /// The complex type of this precision.
    pub fn complex(&self) -> DType {
        complex_of(self.real).unwrap_or(DType::C64)
    }

    /// The input's element type.
    pub fn input_dtype(&self) -> DType {
        side_dtype(self.kind, self.real, true)
    }

    /// The output's element type.
    pub fn output_dtype(&self) -> DType {
        side_dtype(self.kind, self.real, false)
    }

    /// The physical shape of one input transform.
    pub fn input_embed(&self) -> Vec<usize> {
        side_embed(self.kind, &self.lengths, true)
    }

    /// The physical shape of one output transform.
    pub fn output_embed(&self) -> Vec<usize> {
        side_embed(self.kind, &self.lengths, false)
    }

    /// Elements per transform of the input and output embeds.
    pub fn elements_per_transform(&self) -> (usize, usize) {
        (
            self.input_embed().iter().product(),
            self.output_embed().iter().product(),
        )
    }

    /// One past the last element position the input (`input == true`) or output reaches.
    pub fn extent(&self, input: bool) -> usize {
        let (layout, per) = if input {
            (self.input_layout, self.elements_per_transform().0)
        } else {
            (self.output_layout, self.elements_per_transform().1)
        };
        layout.offset
            + self.batch.saturating_sub(1) * layout.dist
            + layout.stride * per.saturating_sub(1)
            + 1
    }

    /// Whether input and output are the same elements (an in-place transform).
    pub fn in_place(&self) -> bool {
        std::ptr::eq(self.input, self.output)
            && self.input_layout.offset * self.input_dtype().size()
                == self.output_layout.offset * self.output_dtype().size()
    }

    /// Checks what the module documentation promises; core calls it before every dispatch.
    /// Buffer lengths are the backend's to check (core does not know them).
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: String| Err(Error::invalid_arg("fft kernel", reason));
        if complex_of(self.real).is_none() {
            return bad(format!("precision {} is not f32 or f64", self.real));
        }
        if self.lengths.is_empty() || self.lengths.len() > MAX_FFT_RANK {
            return bad(format!(
                "{} transform dimensions (1 to {MAX_FFT_RANK})",
                self.lengths.len()
            ));
        }
        if self.lengths.contains(&0) || self.batch == 0 {
            return bad(format!(
                "empty transform: lengths {:?}, batch {}",
                self.lengths, self.batch
            ));
        }
        let expected = match self.kind {
            FftKind::R2C => Some(FftDirection::Forward),
            FftKind::C2R => Some(FftDirection::Inverse),
            FftKind::C2C => None,
        };
        if expected.is_some_and(|d| d != self.direction) {
            return bad(format!("{} with direction {:?}", self.kind, self.direction));
        }
        for l in [self.input_layout, self.output_layout] {
            if l.stride == 0 || (self.batch > 1 && l.dist == 0) {
                return bad(format!("layout {l:?} has a zero stride or distance"));
            }
        }
        // One buffer for both sides is only the exact in-place C2C case: anything else
        // (another kind, layout or offset) could overlap, which no library defines.
        if std::ptr::eq(self.input, self.output)
            && (self.kind != FftKind::C2C || self.input_layout != self.output_layout)
        {
            return bad(format!(
                "{} with input and output in one buffer, layouts {:?} and {:?} (only C2C with \
                 one layout is in place; give the output its own buffer)",
                self.kind, self.input_layout, self.output_layout
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args<'a>(kind: FftKind, buf: &'a u8, out: &'a u8) -> FftArgs<'a, u8> {
        FftArgs {
            kind,
            direction: if kind == FftKind::C2R {
                FftDirection::Inverse
            } else {
                FftDirection::Forward
            },
            real: DType::F32,
            lengths: vec![4, 6],
            batch: 3,
            input: buf,
            input_layout: FftLayout::contiguous(2, 24),
            output: out,
            output_layout: FftLayout::contiguous(0, 24),
        }
    }

    #[test]
    fn embeds_and_extents_follow_the_kind() {
        let (a, b) = (0u8, 1u8);
        let r2c = args(FftKind::R2C, &a, &b);
        assert_eq!(r2c.input_embed(), vec![4, 6]);
        assert_eq!(r2c.output_embed(), vec![4, 4]);
        assert_eq!(
            (r2c.input_dtype(), r2c.output_dtype()),
            (DType::F32, DType::C32)
        );
        assert_eq!(r2c.extent(true), 2 + 2 * 24 + 23 + 1);
        let c2r = args(FftKind::C2R, &a, &b);
        assert_eq!(c2r.input_embed(), vec![4, 4]);
        assert_eq!(c2r.output_dtype(), DType::F32);
        assert!(c2r.validate().is_ok());
    }

    #[test]
    fn validate_rejects_what_backends_must_not_see() {
        let (a, b) = (0u8, 1u8);
        let mut x = args(FftKind::C2C, &a, &b);
        assert!(x.validate().is_ok());
        x.lengths = vec![];
        assert!(x.validate().is_err());
        x.lengths = vec![2, 2, 2, 2];
        assert!(x.validate().is_err());
        x.lengths = vec![3, 0];
        assert!(x.validate().is_err());
        let mut x = args(FftKind::R2C, &a, &a);
        x.output_layout = x.input_layout;
        assert!(x.validate().is_err(), "R2C in place");
        let mut x = args(FftKind::C2R, &a, &b);
        x.direction = FftDirection::Forward;
        assert!(x.validate().is_err());
        let mut x = args(FftKind::C2C, &a, &b);
        x.real = DType::C32;
        assert!(x.validate().is_err());
    }
}
