//! Chains of two and three links over every operator, fused and not, and which of them
//! fuse.

use gpuarrays_core::kernel::{BinaryOp, Node, Program};

use super::{Case, Float, OPS, Place, Rng, instr};

/// `x` through `ops` in turn: link `k` is `ops[k](acc, p_k)`, or `ops[k](p_k, acc)` when
/// `right[k]`, with `p_k` an input column or (`uni[k]`) a scalar; `x` is input 0, the
/// output's own buffer when `in_place`.
fn chain_case<T: Float>(
    ops: &[BinaryOp],
    uni: &[bool],
    right: &[bool],
    n: usize,
    in_place: bool,
) -> Case<T> {
    let d = T::DTYPE;
    let mut rng = Rng(n as u64 * 31 + ops.len() as u64);
    let mut instrs = vec![instr(Node::Input(0), d)];
    let (mut inputs, mut scalars) = (1u32, 0u32);
    let mut acc = 0u32;
    for ((&op, &u), &r) in ops.iter().zip(uni).zip(right) {
        instrs.push(instr(
            if u {
                scalars += 1;
                Node::Scalar(scalars - 1)
            } else {
                inputs += 1;
                Node::Input(inputs - 1)
            },
            d,
        ));
        let p = instrs.len() as u32 - 1;
        let (a, b) = if r { (p, acc) } else { (acc, p) };
        instrs.push(instr(Node::Binary(op, a, b), d));
        acc = instrs.len() as u32 - 1;
    }
    Case {
        program: Program {
            inputs: vec![d; inputs as usize],
            scalars: vec![d; scalars as usize],
            instrs,
        },
        inputs: (0..inputs)
            .map(|_| (Place::Contiguous, (0..n).map(|_| rng.value()).collect()))
            .collect(),
        scalars: (0..scalars).map(|_| rng.value()).collect(),
        n,
        in_place,
    }
}

const KINDS: [[bool; 2]; 4] = [[false, false], [false, true], [true, false], [true, true]];

fn every_pair<T: Float>() {
    for op1 in OPS {
        for op2 in OPS {
            for uni in KINDS {
                for right in [[false, false], [false, true], [true, false], [true, true]] {
                    chain_case::<T>(&[op1, op2], &uni, &right, 517, false).check();
                }
            }
        }
    }
}

#[test]
fn every_pair_f32() {
    every_pair::<f32>();
}

#[test]
fn every_pair_f64() {
    every_pair::<f64>();
}

/// Three links: the compiled `a·x + b` then min or max, and others that fuse two links
/// and leave one; in place and into a new buffer; lengths around the tile and block sizes.
fn triples<T: Float>() {
    use BinaryOp::*;
    let triples = [
        [Mul, Add, Max],
        [Mul, Add, Min],
        [Mul, Sub, Max],
        [Add, Mul, Max],
        [Sub, Div, Min],
        [Max, Min, Mul],
    ];
    for ops in triples {
        for uni in KINDS {
            for last in [true, false] {
                for (n, in_place) in [
                    (1, false),
                    (31, true),
                    (33, false),
                    (513, true),
                    (40_007, true),
                    (40_007, false),
                ] {
                    let uni = [uni[0], uni[1], last];
                    let right = [false, n == 33, false];
                    chain_case::<T>(&ops, &uni, &right, n, in_place).check();
                }
            }
        }
    }
}

#[test]
fn triples_f32() {
    triples::<f32>();
}

#[test]
fn triples_f64() {
    triples::<f64>();
}

/// The benchmark's expressions and other common chains run as one step per block.
#[test]
fn common_chains_fuse_into_one_step() {
    use BinaryOp::*;
    let one_step: [(&[BinaryOp], &[bool]); 6] = [
        (&[Mul, Add, Max], &[true, false, true]),
        (&[Mul, Add, Max], &[true, true, true]),
        (&[Mul, Add, Min], &[false, true, true]),
        (&[Mul, Add], &[true, true]),
        (&[Sub, Mul], &[true, true]),
        (&[Max, Min], &[true, true]),
    ];
    for (ops, uni) in one_step {
        for in_place in [false, true] {
            let right = vec![false; ops.len()];
            let case = chain_case::<f32>(ops, uni, &right, 100, in_place);
            assert_eq!(case.fused_steps(), 1, "{ops:?} {uni:?} in place {in_place}");
            let case = chain_case::<f64>(ops, uni, &right, 100, in_place);
            assert_eq!(case.fused_steps(), 1, "{ops:?} {uni:?} in place {in_place}");
        }
    }
    // Not in the table: one step per instruction.
    let case = chain_case::<f32>(&[Div, Div], &[true, true], &[false, false], 100, false);
    assert_eq!(case.fused_steps(), 2);
    // A value read twice is not a chain.
    let mut case = chain_case::<f32>(&[Mul, Add], &[true, true], &[false, false], 100, false);
    case.program.instrs[4].node = Node::Binary(Add, 2, 2);
    assert_eq!(case.fused_steps(), 2);
    case.check();
}
