//! The lowering, interpreted primitive by primitive, against the Rust definitions of the
//! rules (`kernel::random`, Rust's own wrapping and `as` semantics).

use super::eval::{V, eval};
use super::ir::Prim;
use super::*;
use crate::dtype::DType;
use crate::kernel::elementwise::{Instr, Node, Program};
use crate::kernel::operators::{BinaryOp, UnaryOp};
use crate::kernel::random::{self as rnd, Distribution};

fn args(a: &[V]) -> impl Fn(Prim) -> V + '_ {
    move |p| match p {
        Prim::Arg(k) => a[k as usize],
        other => panic!("unexpected leaf {other:?}"),
    }
}

fn words(w: &[u32]) -> Vec<V> {
    w.iter().map(|&x| V::I(x as i128)).collect()
}

#[test]
fn the_philox_block_is_the_cpus_philox() {
    let b = random::philox();
    for (c, k) in [
        ([0u32, 0], [0u32, 0]),
        ([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
        ([0x243f6a88, 0x85a308d3], [0xa4093822, 0x299f31d0]),
        ([7, 1], [42, 0]),
    ] {
        let got = eval(&b, &args(&words(&[c[0], c[1], k[0], k[1]])));
        let want = rnd::philox4x32_10([c[0], c[1], 0, 0], k);
        assert_eq!(got, words(&want));
    }
}

#[test]
fn draws_and_elements_follow_the_recipe() {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * (1.0 + b.abs());
    for seed in [0u64, 9, 0x1234_5678_9abc_def0] {
        for start in [0u64, 1, 5, (1 << 32) - 3, (1 << 33) + 1] {
            let ew = |d, t, i: u64| {
                let b = random::element(d, t);
                let a = words(&[i as u32, (i >> 32) as u32, seed as u32, (seed >> 32) as u32]);
                eval(&b, &args(&a))[0].f()
            };
            let n = 6;
            let uf: Vec<f32> =
                rnd::elements(seed, 1, start, n, |r| [rnd::uniform_f32(r)]).collect();
            let ud: Vec<f64> =
                rnd::elements(seed, 2, start, n, |r| [rnd::uniform_f64(r)]).collect();
            let nf: Vec<f32> = rnd::elements(seed, 2, start, n, rnd::normal_f32).collect();
            let nd: Vec<f64> = rnd::elements(seed, 4, start, n, rnd::normal_f64).collect();
            for k in 0..n {
                let i = start + k as u64;
                assert_eq!(ew(Distribution::Uniform, DType::F32, i), uf[k] as f64);
                assert_eq!(ew(Distribution::Uniform, DType::F64, i), ud[k]);
                assert!(close(ew(Distribution::Normal, DType::F32, i), nf[k] as f64));
                assert!(close(ew(Distribution::Normal, DType::F64, i), nd[k]));
            }
        }
    }
    let r = [0xdead_beef, 0x0123_4567, 0x89ab_cdef, 0xffff_ffff];
    let z = eval(
        &random::draw(Distribution::Normal, DType::F64),
        &args(&words(&r)),
    );
    let want = rnd::normal_f64(r);
    assert!(close(z[0].f(), want[0]) && close(z[1].f(), want[1]));
}

fn bin(op: BinaryOp, d: DType, x: V, y: V) -> V {
    eval(&binary(op, d).unwrap(), &args(&[x, y]))[0]
}

#[test]
fn integer_division_is_total() {
    let i = |x: i128| V::I(x);
    for (d, min) in [
        (DType::I32, i32::MIN as i128),
        (DType::I64, i64::MIN as i128),
    ] {
        assert_eq!(bin(BinaryOp::Div, d, i(min), i(-1)), i(min));
        assert_eq!(bin(BinaryOp::Div, d, i(7), i(0)), i(0));
        assert_eq!(bin(BinaryOp::Div, d, i(-7), i(2)), i(-3));
        assert_eq!(bin(BinaryOp::Div, d, i(7), i(-1)), i(-7));
    }
    assert_eq!(bin(BinaryOp::Div, DType::U8, i(200), i(0)), i(0));
    assert_eq!(
        bin(BinaryOp::Div, DType::U64, i(u64::MAX as i128), i(2)),
        i(u64::MAX as i128 / 2)
    );
    assert_eq!(bin(BinaryOp::Add, DType::U8, i(200), i(100)), i(44));
    let abs = unary(UnaryOp::Abs, DType::I32).unwrap();
    assert_eq!(
        eval(&abs, &args(&[i(i32::MIN as i128)]))[0],
        i(i32::MIN as i128)
    );
}

#[test]
fn float_to_integer_casts_saturate() {
    let specials = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -0.99,
        -1.0,
        1.5,
        -2.5,
        255.9,
        256.0,
        2147483647.0,
        2147483648.0,
        -2147483648.9,
        -2147483649.0,
        4294967295.5,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e300,
        f64::MIN_POSITIVE,
    ];
    for from in [DType::F32, DType::F64] {
        for to in [DType::U8, DType::I32, DType::U32, DType::I64, DType::U64] {
            let b = cast(from, to);
            for &x in &specials {
                let x = if from == DType::F32 {
                    x as f32 as f64
                } else {
                    x
                };
                let want: i128 = match to {
                    DType::U8 => x as u8 as i128,
                    DType::I32 => x as i32 as i128,
                    DType::U32 => x as u32 as i128,
                    DType::I64 => x as i64 as i128,
                    _ => x as u64 as i128,
                };
                assert_eq!(
                    eval(&b, &args(&[V::F(x)]))[0],
                    V::I(want),
                    "{x} {from}->{to}"
                );
            }
        }
    }
    let to_bool = cast(DType::C64, DType::Bool);
    assert_eq!(eval(&to_bool, &args(&[V::C(0.0, f64::NAN)]))[0], V::I(1));
    assert_eq!(eval(&to_bool, &args(&[V::C(-0.0, 0.0)]))[0], V::I(0));
    let from_bool = cast(DType::Bool, DType::C32);
    assert_eq!(eval(&from_bool, &args(&[V::I(1)]))[0], V::C(1.0, 0.0));
}

#[test]
fn min_and_max_propagate_nan_and_keep_ties() {
    let f = V::F;
    let nan = f64::NAN;
    for op in [BinaryOp::Min, BinaryOp::Max] {
        assert!(bin(op, DType::F64, f(nan), f(1.0)).f().is_nan());
        assert!(bin(op, DType::F32, f(1.0), f(nan)).f().is_nan());
        assert_eq!(
            bin(op, DType::F64, f(0.0), f(-0.0)).f().to_bits(),
            0.0f64.to_bits()
        );
    }
    assert_eq!(bin(BinaryOp::Min, DType::F64, f(3.0), f(-2.0)), f(-2.0));
    assert_eq!(bin(BinaryOp::Max, DType::I32, V::I(3), V::I(-2)), V::I(3));
}

#[test]
fn complex_products_have_no_recovery_of_infinities() {
    let z = |re, im| V::C(re, im);
    let p = bin(
        BinaryOp::Mul,
        DType::C64,
        z(1.0, 0.0),
        z(6.0, f64::INFINITY),
    );
    let V::C(re, im) = p else {
        panic!("a complex product is complex: {p:?}")
    };
    assert!(re.is_nan() && im == f64::INFINITY);
    let q = bin(BinaryOp::Div, DType::C64, z(1.0, 2.0), z(3.0, 4.0));
    assert_eq!(q, z((3.0 + 8.0) / 25.0, (6.0 - 4.0) / 25.0));
    let nan = f64::NAN;
    assert_eq!(
        bin(BinaryOp::Ne, DType::C32, z(1.0, nan), z(1.0, nan)),
        V::I(1)
    );
}

#[test]
fn complex_moduli_follow_c_hypot() {
    let abs =
        |d, re: f64, im: f64| eval(&unary(UnaryOp::Abs, d).unwrap(), &args(&[V::C(re, im)]))[0].f();
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    for d in [DType::C32, DType::C64] {
        assert_eq!(abs(d, nan, -inf), inf);
        assert_eq!(abs(d, -inf, nan), inf);
        assert!(abs(d, nan, 1.0).is_nan() && abs(d, 1.0, nan).is_nan());
        assert_eq!(abs(d, 0.0, -0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(abs(d, -3.0, 4.0), 5.0);
    }
    let big = abs(DType::C64, f64::MAX, 1e-300);
    assert_eq!(big, f64::MAX);
    assert_eq!(abs(DType::C32, f32::MAX as f64, 1.0), f32::MAX as f64);
}

#[test]
fn exactly_the_valid_operations_lower() {
    for d in DType::ALL {
        for op in UnaryOp::ALL {
            assert_eq!(op.result_dtype(d).is_ok(), unary(op, d).is_ok(), "{op} {d}");
        }
        for op in BinaryOp::ALL {
            assert_eq!(
                op.result_dtype(d, d).is_ok(),
                binary(op, d).is_ok(),
                "{op} {d}"
            );
        }
        for to in DType::ALL {
            let b = cast(d, to);
            assert_eq!(b.ty(b.results[0]), to);
        }
    }
}

#[test]
fn a_program_lowers_with_its_leaves() {
    let ins = |node, dtype| Instr { node, dtype };
    let p = Program {
        inputs: vec![DType::I32],
        scalars: vec![DType::I32, DType::U64],
        instrs: vec![
            ins(Node::Input(0), DType::I32),
            ins(Node::Scalar(0), DType::I32),
            ins(Node::Binary(BinaryOp::Div, 0, 1), DType::I32),
            ins(Node::Random(Distribution::Uniform, 1), DType::F32),
            ins(Node::Cast(DType::F32, 2), DType::F32),
            ins(Node::Binary(BinaryOp::Add, 4, 3), DType::F32),
        ],
    };
    let l = lower(&p).unwrap();
    let leaf = |p: Prim| match p {
        Prim::Input(0) => V::I(-9),
        Prim::Scalar(0) => V::I(2),
        Prim::Random(..) => V::F(0.25),
        other => panic!("{other:?}"),
    };
    assert_eq!(eval(&l.block, &leaf), vec![V::F(-3.75)]);
    assert!(matches!(
        l.block.instrs[l.values[3] as usize].op,
        Prim::Random(..)
    ));
    let mut bad = p.clone();
    bad.instrs[2] = ins(Node::Binary(BinaryOp::Div, 0, 7), DType::I32);
    assert!(lower(&bad).is_err());
    bad.instrs[2] = ins(Node::Binary(BinaryOp::Pow, 0, 1), DType::I32);
    assert!(lower(&bad).is_err());
}
