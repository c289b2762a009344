//! Rows of the FFT functions (`fft`, `ifft`, `rfft`, `irfft`, `fft2`, `ifft2`, `fftn`,
//! `ifftn`, `rfftn`, `irfftn`) on every element type: powers of two, primes and awkward
//! lengths, length 1, empty batches, crop and pad, each norm, the first, middle and last
//! axis (the three ways core lowers an axis), runs of axes, derived inputs, and each error.
//! Non-float types are rejected rows (`InvalidDType`). Then `fftshift` and `ifftshift` on
//! every element type: every length up to 9, axes of length 1 to 3 last, first and in the
//! middle (copies of single elements), empty and 0-d arrays, derived inputs, a bad axis.

use gpuarrays_core::{DType, FftNorm};

use super::{ODD, RowSpec, Sizes, inp, reinterpret_or_slice};
use crate::case::{CaseSpec, FftCase, FftForm, Layout, Op};
use crate::values::Profile;

pub fn rows(s: &Sizes, rows: &mut Vec<RowSpec>) {
    for form in FftForm::ALL {
        for d in DType::ALL {
            rows.push(RowSpec::new(form.name(), d, cases(s, form, d)));
        }
    }
    for (name, inverse) in [("fftshift", false), ("ifftshift", true)] {
        for d in DType::ALL {
            rows.push(RowSpec::new(name, d, shift_cases(d, inverse)));
        }
    }
}

/// `fftshift` (`inverse`: `ifftshift`) cases.
fn shift_cases(d: DType, inverse: bool) -> Vec<CaseSpec> {
    let mut specs: Vec<(Vec<usize>, Option<Vec<usize>>, Layout)> =
        (0..=9).map(|n| (vec![n], None, Layout::Plain)).collect();
    for last in 1..=3 {
        for (dims, axes) in [
            (vec![2, last], None),
            (vec![2, last], Some(vec![1])),
            (vec![3, last], Some(vec![0])),
            (vec![last, 4], Some(vec![0])),
            (vec![2, last, 3], Some(vec![1])),
            (vec![3, 2, last], Some(vec![0, 2])),
            (vec![2, 3, last], None),
        ] {
            specs.push((dims, axes, Layout::Plain));
        }
    }
    specs.extend([
        (vec![4, 5], Some(vec![1, 0]), Layout::Plain),
        (vec![0, 3], None, Layout::Plain),
        (vec![3, 0], Some(vec![0]), Layout::Plain),
        (vec![], None, Layout::Plain),
        (vec![4, 5], Some(vec![]), Layout::Plain),
        (vec![ODD], None, Layout::Slice),
        (vec![5, 3], Some(vec![1]), Layout::RowView),
        (vec![6, 2], None, reinterpret_or_slice(d)),
        // An axis listed twice rolls twice (NumPy's `roll` sums the shifts of an axis).
        (vec![5], Some(vec![0, 0]), Layout::Plain),
        (vec![3, 7], Some(vec![1, 0, 1]), Layout::Plain),
        // Error: an axis past the last.
        (vec![3, 5], Some(vec![2]), Layout::Plain),
    ]);
    specs
        .into_iter()
        .map(|(dims, axes, l)| {
            let op = Op::FftShift { inverse, axes };
            CaseSpec::new(op, vec![inp(d, &dims).layout(l)])
        })
        .collect()
}

/// One case: input `dims` placed by `layout`, and the call's lengths, axes and norm.
struct Spec {
    dims: Vec<usize>,
    layout: Layout,
    s: Option<Vec<usize>>,
    axes: Option<Vec<usize>>,
    norm: FftNorm,
}

fn spec(dims: &[usize], s: Option<&[usize]>, axes: Option<&[usize]>) -> Spec {
    Spec {
        dims: dims.to_vec(),
        layout: Layout::Plain,
        s: s.map(<[usize]>::to_vec),
        axes: axes.map(<[usize]>::to_vec),
        norm: FftNorm::Backward,
    }
}

impl Spec {
    fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }
    fn norm(mut self, norm: FftNorm) -> Self {
        self.norm = norm;
        self
    }
}

/// The 1-D forms: `n` and one axis.
fn one_axis(s: &Sizes, d: DType) -> Vec<Spec> {
    let one = |dims: &[usize], n: Option<usize>, axis: usize| {
        spec(dims, n.map(|n| vec![n]).as_deref(), Some(&[axis]))
    };
    let mut v = vec![
        one(&[8], None, 0),
        one(&[1], None, 0),
        one(&[2], None, 0),
        one(&[7], None, 0),
        one(&[17], None, 0),
        one(&[ODD], None, 0),
        one(&[3, 5], None, 1),
        one(&[3, 5], None, 0),
        one(&[4, 6, 5], None, 1),
        one(&[4, 9, 2], None, 1),
        one(&[0, 6], None, 1),
        one(&[12], Some(5), 0),
        one(&[5], Some(12), 0),
        one(&[3, 4], Some(7), 0),
        // Zero-padding an axis of one point: the last (copies of single elements), the
        // only one, the middle one.
        one(&[3, 1], Some(4), 1),
        one(&[3, 1], Some(2), 1),
        one(&[1], Some(4), 0),
        one(&[2, 1, 3], Some(5), 1),
        one(&[10], None, 0).norm(FftNorm::Ortho),
        one(&[2, 9], None, 1).norm(FftNorm::Forward),
        one(&[ODD], None, 0).layout(Layout::Slice),
        one(&[4, 6], None, 1).layout(Layout::RowView),
        one(&[4, 6], None, 0).layout(Layout::RowView),
        one(&[4, 6], None, 1).layout(Layout::Strided),
        one(&[4, 6], None, 0).layout(Layout::Transposed),
        one(&[3, 5], Some(8), 1).layout(Layout::Reversed),
        one(&[16], None, 0).layout(reinterpret_or_slice(d)),
        // Errors: axis out of range; n = 0; a 0-d array; no points without n.
        one(&[3, 5], None, 2),
        one(&[4], Some(0), 0),
        one(&[], None, 0),
        one(&[0], None, 0),
    ];
    if !s.quick {
        v.extend([
            one(&[16384], None, 0),
            one(&[12289], None, 0),
            one(&[64, 1024], None, 0),
            one(&[3, 2048], None, 1),
        ]);
    }
    v
}

/// `irfft` also needs an input of one point along the axis (`n` would be 0) and odd `n`.
fn irfft_extra() -> Vec<Spec> {
    vec![
        spec(&[6], Some(&[11]), Some(&[0])),
        spec(&[6], Some(&[10]), Some(&[0])),
        spec(&[1], None, Some(&[0])),
        spec(&[3, 1], Some(&[1]), Some(&[1])),
    ]
}

/// The n-dimensional forms.
fn many_axes(s: &Sizes, form: FftForm, d: DType) -> Vec<Spec> {
    let mut v = vec![
        spec(&[4, 6], None, None),
        spec(&[3, 5, 7], None, None),
        spec(&[3, 5, 7], None, Some(&[0, 2])),
        spec(&[3, 5, 7], None, Some(&[2, 0])),
        spec(&[3, 5, 7], Some(&[4, 6]), Some(&[1, 2])),
        spec(&[2, 3, 4, 5], None, Some(&[0, 1, 2, 3])),
        spec(&[2, 3, 4, 5], None, Some(&[1, 2])),
        spec(&[4, 6], Some(&[3, 8]), None).norm(FftNorm::Ortho),
        spec(&[4, 6], None, Some(&[0])).norm(FftNorm::Forward),
        spec(&[0, 4, 6], None, Some(&[1, 2])),
        spec(&[1, 1], None, None),
        spec(&[2, 1], Some(&[3, 4]), None),
        spec(&[3, 4, 5], None, Some(&[1, 2])).layout(Layout::RowView),
        spec(&[4, 5], None, None).layout(Layout::Slice),
        spec(&[6, 4], None, None).layout(reinterpret_or_slice(d)),
        // Errors: an axis out of range; an axis twice; lengths and axes of different
        // counts; a zero length.
        spec(&[3, 5], None, Some(&[0, 2])),
        spec(&[3, 5], None, Some(&[1, 1])),
        spec(&[3, 5], Some(&[3]), Some(&[0, 1])),
        spec(&[3, 5], Some(&[3, 0]), None),
    ];
    if form.two_axes() {
        // fft2 of a 1-D array without axes.
        v.push(spec(&[8], None, None));
    } else {
        // More lengths than dimensions; the default is the last s.len() axes.
        v.push(spec(&[8], Some(&[8, 8]), None));
        v.push(spec(&[3, 5, 7], Some(&[6]), None));
        // No axes at all (a copy for complex transforms, an error for real ones).
        v.push(spec(&[3, 5], None, Some(&[])));
    }
    if !s.quick {
        v.extend([
            spec(&[256, 384], None, None),
            spec(&[16, 32, 64], None, None),
            spec(&[32, 48, 40], None, Some(&[1])),
        ]);
    }
    v
}

fn cases(s: &Sizes, form: FftForm, d: DType) -> Vec<CaseSpec> {
    let mut specs = if form.one_axis() {
        one_axis(s, d)
    } else {
        many_axes(s, form, d)
    };
    if form == FftForm::Irfft {
        specs.extend(irfft_extra());
    }
    specs
        .into_iter()
        .map(|p| {
            let op = Op::Fft(FftCase {
                form,
                s: p.s,
                axes: p.axes,
                norm: p.norm,
            });
            let x = inp(d, &p.dims).layout(p.layout).profile(Profile::Finite);
            CaseSpec::new(op, vec![x])
        })
        .collect()
}
