//! [`FftPlanKey`]: what makes two [`FftArgs`] the same plan, for every backend.
//!
//! A plan (cuFFT's or rocFFT's handle, the wgpu backend's list of kernel steps) is made for
//! a transform and a layout, not for buffers: it runs on any input and output laid out
//! alike, with the operands' offsets applied when it executes. So the key is the whole
//! description except the buffers and the offsets: kind, direction, precision, lengths,
//! batch, each side's stride and distance, and whether the transform is in place (the one
//! property of the buffers a library plans differently for). The embeds and element types
//! follow from the kind, the precision and the lengths, so they are methods, not fields.

use super::{FftArgs, FftDirection, FftKind, FftLayout, side_dtype, side_embed};
use crate::dtype::DType;

/// Everything that decides an FFT plan: two descriptions with equal keys are computed by
/// one plan (see the module documentation). Made by [`FftPlanKey::from_args`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FftPlanKey {
    pub kind: FftKind,
    /// Forward or inverse (R2C is always forward, C2R inverse).
    pub direction: FftDirection,
    /// Double precision (f64/c64) rather than single (f32/c32).
    pub double: bool,
    /// Logical lengths, slowest axis first (1 to [`super::MAX_FFT_RANK`]).
    pub lengths: Vec<usize>,
    /// Number of transforms.
    pub batch: usize,
    /// The input's [`FftLayout::stride`].
    pub input_stride: usize,
    /// The input's [`FftLayout::dist`].
    pub input_dist: usize,
    /// The output's [`FftLayout::stride`].
    pub output_stride: usize,
    /// The output's [`FftLayout::dist`].
    pub output_dist: usize,
    /// Input and output are the same elements ([`FftArgs::in_place`]).
    pub in_place: bool,
}

impl FftPlanKey {
    /// The plan key of `args`: everything but the buffers and the offsets.
    pub fn from_args<Buf>(args: &FftArgs<'_, Buf>) -> FftPlanKey {
        FftPlanKey {
            kind: args.kind,
            direction: args.direction,
            double: args.real == DType::F64,
            lengths: args.lengths.clone(),
            batch: args.batch,
            input_stride: args.input_layout.stride,
            input_dist: args.input_layout.dist,
            output_stride: args.output_layout.stride,
            output_dist: args.output_layout.dist,
            in_place: args.in_place(),
        }
    }

    /// The real type of the precision: `F64` or `F32`.
    pub fn real(&self) -> DType {
        if self.double { DType::F64 } else { DType::F32 }
    }

    /// The input's element type.
    pub fn input_dtype(&self) -> DType {
        side_dtype(self.kind, self.real(), true)
    }

    /// The output's element type.
    pub fn output_dtype(&self) -> DType {
        side_dtype(self.kind, self.real(), false)
    }

    /// Bytes of one input element.
    pub fn input_element_bytes(&self) -> usize {
        self.input_dtype().size()
    }

    /// Bytes of one output element.
    pub fn output_element_bytes(&self) -> usize {
        self.output_dtype().size()
    }

    /// The physical shape of one input transform (the half spectrum for C2R).
    pub fn input_embed(&self) -> Vec<usize> {
        side_embed(self.kind, &self.lengths, true)
    }

    /// The physical shape of one output transform (the half spectrum for R2C).
    pub fn output_embed(&self) -> Vec<usize> {
        side_embed(self.kind, &self.lengths, false)
    }

    /// The input's layout at element offset 0 (a plan's view of its input).
    pub fn input_layout(&self) -> FftLayout {
        FftLayout {
            offset: 0,
            stride: self.input_stride,
            dist: self.input_dist,
        }
    }

    /// The output's layout at element offset 0.
    pub fn output_layout(&self) -> FftLayout {
        FftLayout {
            offset: 0,
            stride: self.output_stride,
            dist: self.output_dist,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strided R2C description over `input` and `output` at the given offsets.
    fn args<'a>(
        input: &'a u8,
        input_offset: usize,
        output: &'a u8,
        output_offset: usize,
    ) -> FftArgs<'a, u8> {
        FftArgs {
            kind: FftKind::R2C,
            direction: FftDirection::Forward,
            real: DType::F32,
            lengths: vec![4, 6],
            batch: 3,
            input,
            input_layout: FftLayout {
                offset: input_offset,
                stride: 2,
                dist: 50,
            },
            output,
            output_layout: FftLayout {
                offset: output_offset,
                stride: 1,
                dist: 16,
            },
        }
    }

    fn key(args: &FftArgs<'_, u8>) -> FftPlanKey {
        FftPlanKey::from_args(args)
    }

    #[test]
    fn equal_descriptions_have_equal_keys() {
        let (a, b) = (0u8, 1u8);
        assert_eq!(key(&args(&a, 0, &b, 0)), key(&args(&a, 0, &b, 0)));
    }

    #[test]
    fn buffers_and_offsets_do_not_matter() {
        let (a, b, c, d) = (0u8, 1u8, 2u8, 3u8);
        let k = key(&args(&a, 0, &b, 0));
        assert_eq!(key(&args(&c, 7, &d, 3)), k);
        assert_eq!(key(&args(&b, 0, &a, 9)), k);
        assert!(!k.in_place);
    }

    #[test]
    fn every_field_changes_the_key() {
        let (a, b) = (0u8, 1u8);
        let base = args(&a, 0, &b, 0);
        let k = key(&base);
        type Change = fn(&mut FftArgs<'_, u8>);
        let changes: [(&str, Change); 10] = [
            ("kind", |x| x.kind = FftKind::C2C),
            ("direction", |x| x.direction = FftDirection::Inverse),
            ("precision", |x| x.real = DType::F64),
            ("a length", |x| x.lengths[1] = 8),
            ("the rank", |x| x.lengths = vec![4, 6, 1]),
            ("batch", |x| x.batch = 4),
            ("input stride", |x| x.input_layout.stride = 3),
            ("input distance", |x| x.input_layout.dist = 51),
            ("output stride", |x| x.output_layout.stride = 2),
            ("output distance", |x| x.output_layout.dist = 17),
        ];
        for (what, change) in changes {
            let mut x = base.clone();
            change(&mut x);
            assert_ne!(key(&x), k, "{what}");
        }
    }

    #[test]
    fn in_place_is_part_of_the_key() {
        let (a, b) = (0u8, 1u8);
        let c2c = |input, output, offset| FftArgs {
            kind: FftKind::C2C,
            output_layout: FftLayout::contiguous(offset, 6),
            ..args(input, 0, output, 0)
        };
        let mut same = c2c(&a, &a, 0);
        same.input_layout = same.output_layout;
        let mut other = c2c(&a, &b, 0);
        other.input_layout = other.output_layout;
        assert!(key(&same).in_place);
        assert!(!key(&other).in_place);
        assert_ne!(key(&same), key(&other));
        let mut shifted = c2c(&a, &a, 4);
        shifted.input_layout = FftLayout::contiguous(4, 6);
        assert_eq!(key(&shifted), key(&same), "the same offset on both sides");
    }

    #[test]
    fn derived_shapes_match_the_description() {
        let (a, b) = (0u8, 1u8);
        for kind in [FftKind::C2C, FftKind::R2C, FftKind::C2R] {
            let mut x = args(&a, 0, &b, 0);
            x.kind = kind;
            x.real = DType::F64;
            let k = key(&x);
            assert_eq!(k.input_embed(), x.input_embed(), "{kind}");
            assert_eq!(k.output_embed(), x.output_embed(), "{kind}");
            assert_eq!(k.input_element_bytes(), x.input_dtype().size(), "{kind}");
            assert_eq!(k.output_element_bytes(), x.output_dtype().size(), "{kind}");
            assert!(k.double);
            assert_eq!(k.real(), DType::F64);
            assert_eq!(k.input_layout().stride, 2);
            assert_eq!(k.output_layout().dist, 16);
        }
    }
}
