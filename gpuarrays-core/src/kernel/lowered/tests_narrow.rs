//! The lowering of the 8- and 16-bit types (i8, i16, u16, f16, bf16), interpreted primitive
//! by primitive, against the CPU reference's own scalar semantics (`host::values`, which
//! shares no code with the lowering): integers wrap at their width, halves are computed in
//! f32 and rounded once, casts into halves round once from the exact value. The interpreter
//! also fails any primitive other than a conversion, select or constant that sees a half.

use super::eval::{V, eval};
use super::ir::Prim;
use super::*;
use crate::dtype::DType;
use crate::host::values;
use crate::kernel::operators::{BinaryOp, UnaryOp};
use crate::scalar::Scalar;

const NARROW: [DType; 5] = [DType::I8, DType::I16, DType::U16, DType::F16, DType::BF16];

fn args(a: &[V]) -> impl Fn(Prim) -> V + '_ {
    move |p| match p {
        Prim::Arg(k) => a[k as usize],
        other => panic!("unexpected leaf {other:?}"),
    }
}

/// A scalar as the interpreter holds it.
fn to_v(s: Scalar) -> V {
    match s {
        Scalar::Bool(b) => V::I(b as i128),
        Scalar::I8(v) => V::I(v.into()),
        Scalar::U8(v) => V::I(v.into()),
        Scalar::I16(v) => V::I(v.into()),
        Scalar::U16(v) => V::I(v.into()),
        Scalar::I32(v) => V::I(v.into()),
        Scalar::U32(v) => V::I(v.into()),
        Scalar::I64(v) => V::I(v.into()),
        Scalar::U64(v) => V::I(v.into()),
        Scalar::C32(z) => V::C(z.re as f64, z.im as f64),
        Scalar::C64(z) => V::C(z.re, z.im),
        Scalar::F16(_) | Scalar::BF16(_) | Scalar::F32(_) | Scalar::F64(_) => {
            V::F(s.to_f64_lossy())
        }
    }
}

/// Inputs of type `d`: the extremes, zeros, small values and a spread; for halves also the
/// special values, subnormals and values next to rounding ties.
fn inputs(d: DType) -> Vec<Scalar> {
    let mut f: Vec<f64> = vec![
        0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -7.0, 0.5, -0.5, 2.5, 100.0, -128.0, 127.0, 255.0,
    ];
    if d.is_half() {
        f.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-7,
            -3e-6,
            6.1e-5,
            0.1,
            0.3333,
            1.0009765625,
            65504.0,
            -60000.0,
            3.0e38,
            1e-40,
        ]);
        let mut x = 1e-3;
        while x < 3e4 {
            f.extend([x, -x * 1.37]);
            x *= 3.1;
        }
        return f.into_iter().map(|x| Scalar::F64(x).cast(d)).collect();
    }
    let (min, max) = match d {
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        _ => (0, u16::MAX as i128),
    };
    let mut v: Vec<i128> = vec![min, min + 1, max, max - 1, 0, 1, 2, 3, 5, 7, 8, 15, 16, 100];
    v.extend([-1, -2, -3, -8, -100].into_iter().filter(|&x| x >= min));
    v.into_iter()
        .map(|x| Scalar::from_int_lit(x, d).expect("in range"))
        .collect()
}

/// Units in the last place of `d` between two finite values of `d` (as f64).
fn ulps(d: DType, a: f64, b: f64) -> i128 {
    let ord = |x: f64| -> i128 {
        let bits = match Scalar::F64(x).cast(d) {
            Scalar::F16(h) => h.to_bits() & 0x7fff,
            Scalar::BF16(h) => h.to_bits() & 0x7fff,
            _ => unreachable!(),
        } as i128;
        if x.is_sign_negative() { -bits } else { bits }
    };
    (ord(a) - ord(b)).abs()
}

/// Whether the lowering's `got` matches the reference `want`: exactly (NaN for NaN, the
/// sign of zero), or for library functions (`lib`) within one unit of the half type, since
/// the f32 functions the two compute with may round differently before the final rounding.
fn same(d: DType, got: V, want: V, lib: bool) -> bool {
    match (got, want) {
        (V::F(g), V::F(w)) if g.is_nan() || w.is_nan() => g.is_nan() && w.is_nan(),
        (V::F(g), V::F(w)) if g == w => g.is_sign_negative() == w.is_sign_negative(),
        (V::F(g), V::F(w)) => lib && g.is_finite() && w.is_finite() && ulps(d, g, w) <= 1,
        (V::C(gr, gi), V::C(wr, wi)) => {
            same(d, V::F(gr), V::F(wr), lib) && same(d, V::F(gi), V::F(wi), lib)
        }
        _ => got == want,
    }
}

/// Operations computed exactly (one rounding of an exact result), not by a library function.
fn exact_unary(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(
        op,
        Neg | Abs
            | Not
            | Sqrt
            | Floor
            | Ceil
            | Round
            | Trunc
            | Sign
            | IsNan
            | IsInf
            | IsFinite
            | Real
            | Imag
            | Conj
    )
}

#[test]
fn unary_operations_of_narrow_types_follow_the_cpu_reference() {
    for d in NARROW {
        for op in UnaryOp::ALL {
            if op.result_dtype(d).is_err() {
                continue;
            }
            let block = unary(op, d).unwrap();
            for x in inputs(d) {
                let want = to_v(values::unary(op, x).unwrap());
                let got = eval(&block, &args(&[to_v(x)]))[0];
                assert!(
                    same(d, got, want, !exact_unary(op)),
                    "{op} {d} of {x:?}: got {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn binary_operations_of_narrow_types_follow_the_cpu_reference() {
    use BinaryOp::*;
    for d in NARROW {
        let xs = inputs(d);
        for op in BinaryOp::ALL {
            if op.result_dtype(d, d).is_err() {
                continue;
            }
            let block = binary(op, d).unwrap();
            let lib = matches!(op, Pow | Atan2 | Hypot);
            for &x in &xs {
                for &y in &xs {
                    // Shift amounts the rule defines are those below the width; the others
                    // are clamped the same way on both sides, so every pair is compared.
                    let want = to_v(values::binary(op, x, y).unwrap());
                    let got = eval(&block, &args(&[to_v(x), to_v(y)]))[0];
                    assert!(
                        same(d, got, want, lib),
                        "{x:?} {op} {y:?} ({d}): got {got:?}, want {want:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn casts_to_and_from_narrow_types_round_once() {
    let mut sources: Vec<Scalar> = NARROW.iter().flat_map(|&d| inputs(d)).collect();
    // Values whose rounding to a half through f32 (or an f64 for integers) to nearest would
    // round twice: 1 + 2^-11 + 2^-40 is just above the f16 tie, 2^60 + 2^52 + 1 the bf16 one.
    sources.extend([
        Scalar::F64(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
        Scalar::F64(-(1.0 + 2f64.powi(-8) + 2f64.powi(-40))),
        Scalar::I64((1 << 60) + (1 << 52) + 1),
        Scalar::U64(u64::MAX),
        Scalar::I64(i64::MIN),
        Scalar::I32(-70000),
        Scalar::U32(65520),
        Scalar::F32(65519.99),
        Scalar::F32(f32::MAX),
        Scalar::Bool(true),
        Scalar::C64(num_complex::Complex64::new(-3.5, 2.0)),
    ]);
    for x in sources {
        for to in DType::ALL {
            if !(NARROW.contains(&to) || NARROW.contains(&x.dtype())) {
                continue;
            }
            let want = to_v(x.cast(to));
            let got = eval(&cast(x.dtype(), to), &args(&[to_v(x)]))[0];
            assert!(
                same(to, got, want, false),
                "{x:?} as {to}: got {got:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn half_random_draws_are_the_cpu_recipe() {
    use crate::kernel::random::{self as r, Distribution};
    for d in [DType::F16, DType::BF16] {
        for dist in [Distribution::Uniform, Distribution::Normal] {
            let block = random::draw(dist, d);
            for seed in [1u64, 77, 1 << 40] {
                let words = r::draw_words(seed, 5, r::words_per_draw(dist, d));
                let got = eval(&block, &args(&words.map(|w| V::I(w as i128))));
                let want: Vec<f64> = match dist {
                    Distribution::Uniform => {
                        vec![r::uniform_half(words, if d == DType::F16 { 11 } else { 8 }) as f64]
                    }
                    Distribution::Normal => r::normal_f32(words)
                        .iter()
                        .map(|&z| Scalar::F32(z).cast(d).to_f64_lossy())
                        .collect(),
                };
                // The normal pair goes through the f32 library functions (ln, sin, cos)
                // written as primitives: within one unit of the half type of Rust's.
                for (g, w) in got.iter().zip(&want) {
                    assert!(
                        same(d, *g, V::F(*w), dist == Distribution::Normal),
                        "{dist:?} {d}: got {g:?}, want {w}"
                    );
                }
            }
        }
    }
}
