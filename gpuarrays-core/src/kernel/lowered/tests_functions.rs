//! The compositions of `functions`, interpreted primitive by primitive, against Rust's own
//! functions (the C library's) in the element type: special values exactly, everything else
//! within a bound in units in the last place.

use super::eval::{V, eval};
use super::ir::Prim;
use super::*;
use crate::dtype::DType;
use crate::kernel::operators::{BinaryOp, UnaryOp};

fn args(a: &[V]) -> impl Fn(Prim) -> V + '_ {
    move |p| match p {
        Prim::Arg(k) => a[k as usize],
        other => panic!("unexpected leaf {other:?}"),
    }
}

fn un(op: UnaryOp, d: DType, x: f64) -> V {
    eval(&unary(op, d).unwrap(), &args(&[V::F(x)]))[0]
}

fn bin(op: BinaryOp, d: DType, x: V, y: V) -> V {
    eval(&binary(op, d).unwrap(), &args(&[x, y]))[0]
}

/// Ordered position of a float of type `d` among all floats (for ulp distances).
fn ordinal(d: DType, x: f64) -> i128 {
    let (bits, neg) = if d == DType::F32 {
        let f = x as f32;
        ((f.abs().to_bits()) as i128, f.is_sign_negative())
    } else {
        (x.abs().to_bits() as i128, x.is_sign_negative())
    };
    if neg { -bits } else { bits }
}

/// Whether `got` is `want` (NaN for NaN, infinities and zero signs exactly) or within
/// `ulps` of it.
fn close(d: DType, got: f64, want: f64, ulps: i128) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || want == 0.0 || got == 0.0 {
        return got == want && got.is_sign_negative() == want.is_sign_negative()
            || (want != 0.0 && (ordinal(d, got) - ordinal(d, want)).abs() <= ulps);
    }
    (ordinal(d, got) - ordinal(d, want)).abs() <= ulps
}

/// Inputs: special values and a spread of magnitudes of both signs.
fn inputs(d: DType) -> Vec<f64> {
    let mut v = vec![
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        1e-30,
        -1e-30,
        1e-7,
        0.66,
        0.67,
        2.41,
        2.42,
        88.5,
        89.3,
        -89.3,
        709.5,
        -710.0,
        1e30,
        -1e30,
        1e300,
    ];
    let mut x = 1e-6f64;
    while x < 1e4 {
        v.extend([x, -x, x * 1.37, -x * 0.71]);
        x *= 1.9;
    }
    let tiny = if d == DType::F32 {
        f32::from_bits(3) as f64
    } else {
        f64::from_bits(3)
    };
    v.push(tiny);
    v.push(-tiny);
    v.into_iter()
        .map(|x| if d == DType::F32 { x as f32 as f64 } else { x })
        .collect()
}

/// Rust's function of `op` in the type `d`.
fn reference(op: UnaryOp, d: DType, x: f64) -> f64 {
    macro_rules! in_type {
        ($T:ty) => {{
            let x = x as $T;
            (match op {
                UnaryOp::Log1p => x.ln_1p(),
                UnaryOp::Expm1 => x.exp_m1(),
                UnaryOp::Tan => x.tan(),
                UnaryOp::Atan => x.atan(),
                UnaryOp::Asin => x.asin(),
                UnaryOp::Acos => x.acos(),
                UnaryOp::Sinh => x.sinh(),
                UnaryOp::Cosh => x.cosh(),
                // The stable form (the naive one flushes the subnormal results to 0).
                UnaryOp::Sigmoid if x < 0.0 => x.exp() / (1.0 + x.exp()),
                UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Floor => x.floor(),
                UnaryOp::Ceil => x.ceil(),
                UnaryOp::Round => x.round_ties_even(),
                UnaryOp::Trunc => x.trunc(),
                UnaryOp::Angle => (0.0 as $T).atan2(x),
                other => panic!("no reference for {other}"),
            }) as f64
        }};
    }
    if d == DType::F32 {
        in_type!(f32)
    } else {
        in_type!(f64)
    }
}

#[test]
fn unary_functions_match_the_c_library() {
    use UnaryOp::*;
    for d in [DType::F32, DType::F64] {
        for (op, ulps) in [
            (Floor, 0),
            (Ceil, 0),
            (Round, 0),
            (Trunc, 0),
            (Log1p, 3),
            (Expm1, 3),
            (Tan, 3),
            (Atan, 2),
            (Asin, 3),
            (Acos, 3),
            (Sinh, 4),
            (Cosh, 3),
            (Sigmoid, 3),
            (Angle, 0),
        ] {
            for x in inputs(d) {
                let got = un(op, d, x).f();
                let want = reference(op, d, x);
                assert!(
                    close(d, got, want, ulps),
                    "{op}({x:e}) {d}: {got:e}, want {want:e}"
                );
            }
        }
        // Across [−1, 1] finely, where asin/acos/atan are most delicate.
        for k in -1000..=1000 {
            let x = k as f64 / 1000.0;
            let x = if d == DType::F32 { x as f32 as f64 } else { x };
            for (op, ulps) in [(Asin, 3), (Acos, 3), (Atan, 2), (Tan, 3), (Log1p, 3)] {
                let got = un(op, d, x).f();
                let want = reference(op, d, x);
                assert!(
                    close(d, got, want, ulps),
                    "{op}({x:e}) {d}: {got:e}, want {want:e}"
                );
            }
        }
    }
}

#[test]
fn sign_classification_and_parts() {
    let f = |x: f64| V::F(x);
    for d in [DType::F32, DType::F64] {
        assert_eq!(un(UnaryOp::Sign, d, -3.0), f(-1.0));
        assert_eq!(un(UnaryOp::Sign, d, 1e-30), f(1.0));
        let z = un(UnaryOp::Sign, d, -0.0).f();
        assert!(z == 0.0 && z.is_sign_positive());
        assert!(un(UnaryOp::Sign, d, f64::NAN).f().is_nan());
        for (x, nan, inf, fin) in [
            (f64::NAN, 1, 0, 0),
            (f64::INFINITY, 0, 1, 0),
            (f64::NEG_INFINITY, 0, 1, 0),
            (f64::MAX.min(3e38), 0, 0, 1),
        ] {
            assert_eq!(un(UnaryOp::IsNan, d, x), V::I(nan));
            assert_eq!(un(UnaryOp::IsInf, d, x), V::I(inf));
            assert_eq!(un(UnaryOp::IsFinite, d, x), V::I(fin));
        }
        assert_eq!(
            un(UnaryOp::Angle, d, -0.0),
            f(reference(UnaryOp::Angle, d, -1.0))
        );
        assert_eq!(un(UnaryOp::Imag, d, 5.0), f(0.0));
    }
    let c = |re: f64, im: f64| V::C(re, im);
    let z = eval(
        &unary(UnaryOp::Conj, DType::C64).unwrap(),
        &args(&[c(1.0, 2.0)]),
    );
    assert_eq!(z[0], c(1.0, -2.0));
    let z = eval(
        &unary(UnaryOp::IsInf, DType::C32).unwrap(),
        &args(&[c(f64::NAN, f64::INFINITY)]),
    );
    assert_eq!(z[0], V::I(1));
    let i = |x: i128| V::I(x);
    let s = |d, x| eval(&unary(UnaryOp::Sign, d).unwrap(), &args(&[i(x)]))[0];
    assert_eq!(s(DType::I32, i32::MIN as i128), i(-1));
    assert_eq!(s(DType::U8, 200), i(1));
    assert_eq!(s(DType::I64, 0), i(0));
}

#[test]
fn atan2_and_hypot_have_the_c_special_values() {
    let vals = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.5,
        -1e-300,
        1e300,
    ];
    for d in [DType::F32, DType::F64] {
        for &y in &vals {
            for &x in &vals {
                let (yt, xt) = if d == DType::F32 {
                    (y as f32 as f64, x as f32 as f64)
                } else {
                    (y, x)
                };
                let (want_a, want_h) = if d == DType::F32 {
                    let (y, x) = (yt as f32, xt as f32);
                    (y.atan2(x) as f64, y.hypot(x) as f64)
                } else {
                    (yt.atan2(xt), yt.hypot(xt))
                };
                let got = bin(BinaryOp::Atan2, d, V::F(yt), V::F(xt)).f();
                assert!(
                    close(d, got, want_a, 2),
                    "atan2({yt}, {xt}) {d}: {got}, want {want_a}"
                );
                let got = bin(BinaryOp::Hypot, d, V::F(yt), V::F(xt)).f();
                assert!(
                    close(d, got, want_h, 2),
                    "hypot({yt}, {xt}) {d}: {got}, want {want_h}"
                );
            }
        }
    }
}

/// NumPy's `remainder`, restated: `x − floor(x / y)·y` in exact integers.
fn floor_rem(x: i128, y: i128) -> i128 {
    if y == 0 {
        return 0;
    }
    let q = if y > 0 {
        x.div_euclid(y)
    } else {
        (-x).div_euclid(-y)
    };
    x - q * y
}

#[test]
fn remainders_take_the_sign_of_the_divisor() {
    let i = |x: i128| V::I(x);
    for d in [DType::I32, DType::I64, DType::U8, DType::U64] {
        let (lo, hi): (i128, i128) = match d {
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, 255),
            _ => (0, u64::MAX as i128),
        };
        let vals = [lo, lo + 1, -7, -1, 0, 1, 3, 7, 100, hi - 1, hi];
        for &x in vals.iter().filter(|v| (lo..=hi).contains(*v)) {
            for &y in vals.iter().filter(|v| (lo..=hi).contains(*v)) {
                let want = floor_rem(x, y);
                assert_eq!(bin(BinaryOp::Rem, d, i(x), i(y)), i(want), "{x} % {y} {d}");
            }
        }
    }
    let f = |x: f64| V::F(x);
    for (x, y, want) in [
        (-1.0, 3.0, 2.0),
        (1.0, -3.0, -2.0),
        (5.5, 2.0, 1.5),
        (-0.0, 2.0, 0.0),
        (0.0, -2.0, -0.0),
        (4.0, -2.0, -0.0),
        (1.0, f64::NEG_INFINITY, f64::NEG_INFINITY),
        (-1.0, f64::INFINITY, f64::INFINITY),
        (1.0, f64::INFINITY, 1.0),
        (f64::INFINITY, 2.0, f64::NAN),
        (1.0, 0.0, f64::NAN),
        (1e300, 3.0, 1e300 % 3.0),
    ] {
        for d in [DType::F32, DType::F64] {
            let (x, y) = if d == DType::F32 {
                (x as f32 as f64, y as f32 as f64)
            } else {
                (x, y)
            };
            let got = bin(BinaryOp::Rem, d, f(x), f(y)).f();
            let want = if d == DType::F32 {
                let (x, y) = (x as f32, y as f32);
                let m = x % y;
                if m != 0.0 && (m < 0.0) != (y < 0.0) {
                    (m + y) as f64
                } else if m == 0.0 {
                    (0.0f32).copysign(y) as f64
                } else {
                    m as f64
                }
            } else {
                want
            };
            assert!(
                close(d, got, want, 0),
                "rem({x}, {y}) {d}: {got}, want {want}"
            );
        }
    }
}

#[test]
fn shifts_follow_numpy_out_of_range() {
    let i = |x: i128| V::I(x);
    let sh = |op, d, x, y| bin(op, d, i(x), i(y));
    assert_eq!(sh(BinaryOp::Shl, DType::I32, 1, 31), i(i32::MIN as i128));
    assert_eq!(sh(BinaryOp::Shl, DType::I32, 1, 32), i(0));
    assert_eq!(sh(BinaryOp::Shl, DType::I32, 1, -1), i(0));
    assert_eq!(sh(BinaryOp::Shr, DType::I32, -8, 40), i(-1));
    assert_eq!(sh(BinaryOp::Shr, DType::I32, -8, -1), i(-1));
    assert_eq!(sh(BinaryOp::Shr, DType::I64, -8, 1), i(-4));
    assert_eq!(sh(BinaryOp::Shr, DType::I64, 8, 64), i(0));
    assert_eq!(sh(BinaryOp::Shl, DType::U8, 200, 1), i(144));
    assert_eq!(sh(BinaryOp::Shl, DType::U8, 1, 8), i(0));
    assert_eq!(sh(BinaryOp::Shr, DType::U64, u64::MAX as i128, 63), i(1));
    assert_eq!(sh(BinaryOp::Shl, DType::U32, 3, 31), i(1 << 31));
}

#[test]
fn fmin_and_fmax_ignore_nan() {
    let f = |x: f64| V::F(x);
    for d in [DType::F32, DType::F64] {
        assert_eq!(bin(BinaryOp::Fmax, d, f(f64::NAN), f(1.0)), f(1.0));
        assert_eq!(bin(BinaryOp::Fmin, d, f(2.0), f(f64::NAN)), f(2.0));
        assert!(
            bin(BinaryOp::Fmin, d, f(f64::NAN), f(f64::NAN))
                .f()
                .is_nan()
        );
        assert_eq!(bin(BinaryOp::Fmax, d, f(-1.0), f(3.0)), f(3.0));
        assert_eq!(bin(BinaryOp::Fmin, d, f(-1.0), f(3.0)), f(-1.0));
    }
}
