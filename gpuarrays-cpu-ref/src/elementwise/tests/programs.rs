//! Random programs: chains and shared values over contiguous, broadcast and strided inputs
//! and scalars, in place or not, fused and not; and buffers written in part.

use gpuarrays_core::kernel::{ElementwiseArgs, Node, Operand, Program};

use super::{Case, Float, Fusion, OPS, Place, Rng, instr, run_with};
use crate::buffer::CpuBuffer;

fn random_case<T: Float>(rng: &mut Rng) -> Case<T> {
    let d = T::DTYPE;
    let lengths = [1, 2, 31, 32, 33, 511, 512, 513, 1000, 16_384 + 7, 50_001];
    let n = lengths[rng.below(lengths.len())];
    let places = [Place::Contiguous, Place::Broadcast, Place::Strided];
    let n_inputs = 1 + rng.below(3);
    let inputs: Vec<(Place, Vec<T>)> = (0..n_inputs)
        .map(|k| {
            let place = if k == 0 {
                Place::Contiguous
            } else {
                places[rng.below(3)]
            };
            let len = match place {
                Place::Contiguous => n,
                Place::Broadcast => 1,
                Place::Strided => 2 * n,
            };
            (place, (0..len).map(|_| rng.value()).collect())
        })
        .collect();
    let scalars: Vec<T> = (0..rng.below(3)).map(|_| rng.value()).collect();
    let mut instrs = Vec::new();
    for s in 0..n_inputs {
        instrs.push(instr(Node::Input(s as u32), d));
    }
    for s in 0..scalars.len() {
        instrs.push(instr(Node::Scalar(s as u32), d));
    }
    for _ in 0..2 + rng.below(4) {
        let last = instrs.len() as u32 - 1;
        let any = |rng: &mut Rng, len: usize| rng.below(len) as u32;
        // Mostly a chain through the last value; sometimes any two earlier values.
        let a = if rng.below(4) > 0 {
            last
        } else {
            any(rng, instrs.len())
        };
        let b = any(rng, instrs.len());
        let (a, b) = if rng.below(3) == 0 { (b, a) } else { (a, b) };
        let op = OPS[rng.below(OPS.len())];
        instrs.push(instr(Node::Binary(op, a, b), d));
    }
    Case {
        program: Program {
            inputs: vec![d; n_inputs],
            scalars: vec![d; scalars.len()],
            instrs,
        },
        inputs,
        scalars,
        n,
        in_place: rng.below(2) == 0,
    }
}

#[test]
fn random_programs_f32() {
    let mut rng = Rng(1);
    for _ in 0..400 {
        random_case::<f32>(&mut rng).check();
    }
}

#[test]
fn random_programs_f64() {
    let mut rng = Rng(2);
    for _ in 0..400 {
        random_case::<f64>(&mut rng).check();
    }
}

/// An output that does not cover its buffer: the rest reads as zeros (the buffer is zeroed
/// before the evaluator writes it), the written part as computed.
#[test]
fn partly_written_buffers_read_zeros_elsewhere() {
    let n = 1000;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 - 500.0).collect();
    let x = CpuBuffer::new(n * 4).unwrap();
    x.write_bytes(0, bytemuck::cast_slice(&xs)).unwrap();
    let out = CpuBuffer::new((n + 3) * 4).unwrap();
    let program = Program {
        inputs: vec![gpuarrays_core::DType::F32],
        scalars: vec![gpuarrays_core::DType::F32],
        instrs: vec![
            instr(Node::Input(0), gpuarrays_core::DType::F32),
            instr(Node::Scalar(0), gpuarrays_core::DType::F32),
            instr(
                Node::Binary(gpuarrays_core::kernel::BinaryOp::Mul, 0, 1),
                gpuarrays_core::DType::F32,
            ),
        ],
    };
    let args = ElementwiseArgs {
        shape: &[n],
        inputs: &[Operand {
            buffer: &x,
            dtype: gpuarrays_core::DType::F32,
            offset: 0,
            strides: &[1],
        }],
        scalars: &[gpuarrays_core::Scalar::F32(2.0)],
        output: Operand {
            buffer: &out,
            dtype: gpuarrays_core::DType::F32,
            offset: 2,
            strides: &[1],
        },
    };
    run_with(&program, &args, Fusion::Chains).unwrap();
    let mut bytes = vec![0u8; (n + 3) * 4];
    out.read_bytes(0, &mut bytes).unwrap();
    let got: Vec<f32> = bytemuck::pod_collect_to_vec(&bytes);
    let mut want = vec![0.0f32; n + 3];
    for (w, &x) in want[2..].iter_mut().zip(&xs) {
        *w = x * 2.0;
    }
    assert_eq!(got, want);
    // Never written: zeros.
    let fresh = CpuBuffer::new(4096).unwrap();
    let mut bytes = vec![1u8; 4096];
    fresh.read_bytes(0, &mut bytes).unwrap();
    assert!(bytes.iter().all(|&b| b == 0));
}

/// An evaluation that overwrites a fresh output whole, while another thread reads that
/// output for the first time (zeroing it): the output must end with the results, however
/// the two interleave (`run_with` runs again when the zeroing came during its write).
#[test]
fn a_racing_first_access_never_loses_an_overwriting_eval() {
    let n = 1 << 18;
    let f = gpuarrays_core::DType::F32;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 + 1.0).collect();
    let x = CpuBuffer::new(n * 4).unwrap();
    x.write_bytes(0, bytemuck::cast_slice(&xs)).unwrap();
    let program = Program {
        inputs: vec![f],
        scalars: vec![f],
        instrs: vec![
            instr(Node::Input(0), f),
            instr(Node::Scalar(0), f),
            instr(Node::Binary(gpuarrays_core::kernel::BinaryOp::Mul, 0, 1), f),
        ],
    };
    let want: Vec<f32> = xs.iter().map(|v| v * 3.0).collect();
    for round in 0..100 {
        let out = CpuBuffer::new(n * 4).unwrap();
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                let args = ElementwiseArgs {
                    shape: &[n],
                    inputs: &[Operand {
                        buffer: &x,
                        dtype: f,
                        offset: 0,
                        strides: &[1],
                    }],
                    scalars: &[gpuarrays_core::Scalar::F32(3.0)],
                    output: Operand {
                        buffer: &out,
                        dtype: f,
                        offset: 0,
                        strides: &[1],
                    },
                };
                barrier.wait();
                run_with(&program, &args, Fusion::Chains).unwrap();
            });
            s.spawn(|| {
                barrier.wait();
                let mut first = [0u8; 16];
                out.read_bytes(n * 4 - 16, &mut first).unwrap();
            });
        });
        let mut bytes = vec![0u8; n * 4];
        out.read_bytes(0, &mut bytes).unwrap();
        let got: Vec<f32> = bytemuck::pod_collect_to_vec(&bytes);
        let lost = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        assert_eq!(lost, 0, "round {round}: {lost} of {n} results lost");
    }
}
