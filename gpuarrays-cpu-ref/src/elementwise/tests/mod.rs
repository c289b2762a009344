//! Fused chains ([`super::chain`]) against the same programs run one instruction at a time,
//! bit for bit, and both against a plain scalar loop written here: f32 and f64, every pair
//! of arithmetic and min/max operators with columns and single values on either side, the
//! three-link chains, random programs over contiguous, broadcast and strided inputs with
//! special values (NaN, ±0, ±inf, subnormals), odd lengths, several tasks, and outputs that
//! are an input's own buffer (in place) or a new buffer written without zeroing.

use bytemuck::Pod;
use gpuarrays_core::kernel::{BinaryOp, ElementwiseArgs, Instr, Node, Operand, Program};
use gpuarrays_core::{DType, Scalar};

use super::{Fusion, fuse, plan, run_with};
use crate::buffer::CpuBuffer;

/// The float types chains are compiled for.
pub(super) trait Float:
    Pod + PartialOrd + std::fmt::Debug + std::ops::Add<Output = Self>
{
    const DTYPE: DType;
    fn of(v: f64) -> Self;
    fn scalar(self) -> Scalar;
    fn bits(self) -> u64;
    fn nan(self) -> bool;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $d:ident, $s:ident) => {
        impl Float for $t {
            const DTYPE: DType = DType::$d;
            fn of(v: f64) -> Self {
                v as $t
            }
            fn scalar(self) -> Scalar {
                Scalar::$s(self)
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
        }
    };
}
float!(f32, F32, F32);
float!(f64, F64, F64);

/// `op(a, b)` as core documents it (NaN-propagating min/max, the first NaN winning).
fn plain<T: Float>(op: BinaryOp, a: T, b: T) -> T {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a.sub(b),
        BinaryOp::Mul => a.mul(b),
        BinaryOp::Div => a.div(b),
        BinaryOp::Min | BinaryOp::Max if a.nan() => a,
        BinaryOp::Min | BinaryOp::Max if b.nan() => b,
        BinaryOp::Min => {
            if b < a {
                b
            } else {
                a
            }
        }
        BinaryOp::Max => {
            if b > a {
                b
            } else {
                a
            }
        }
        other => panic!("{other:?} is not in these tests"),
    }
}

const OPS: [BinaryOp; 6] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Min,
    BinaryOp::Max,
];

/// How an input is laid out over the `n` outputs.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Place {
    Contiguous,
    /// One value for every output (stride 0).
    Broadcast,
    /// Every other value of a buffer of `2n` (gathered).
    Strided,
}

pub(super) struct Case<T> {
    program: Program,
    inputs: Vec<(Place, Vec<T>)>,
    scalars: Vec<T>,
    n: usize,
    /// The output is input 0's buffer (which must be contiguous).
    in_place: bool,
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n
    }
    /// Mostly values in [-4, 4), sometimes a special one.
    fn value<T: Float>(&mut self) -> T {
        let specials = [f64::NAN, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 1e300];
        match self.below(24) {
            k @ 0..6 => T::of(specials[k]),
            6 => T::of(f64::from(f32::MIN_POSITIVE) / 8.0),
            _ => T::of((self.next() % 4096) as f64 / 512.0 - 4.0),
        }
    }
}

impl<T: Float> Case<T> {
    /// Calls `f` with the call's arguments and its output buffer.
    fn with_args<R>(&self, f: impl FnOnce(&ElementwiseArgs<'_, CpuBuffer>, &CpuBuffer) -> R) -> R {
        let size = std::mem::size_of::<T>();
        let buffers: Vec<CpuBuffer> = self
            .inputs
            .iter()
            .map(|(_, data)| {
                let b = CpuBuffer::new(data.len() * size).unwrap();
                b.write_bytes(0, bytemuck::cast_slice(data)).unwrap();
                b
            })
            .collect();
        let fresh = CpuBuffer::new(self.n * size).unwrap();
        let out = if self.in_place { &buffers[0] } else { &fresh };
        let strides: Vec<[isize; 1]> = (self.inputs.iter())
            .map(|(place, _)| match place {
                Place::Contiguous => [1],
                Place::Broadcast => [0],
                Place::Strided => [2],
            })
            .collect();
        let inputs: Vec<Operand<'_, CpuBuffer>> = buffers
            .iter()
            .zip(&strides)
            .map(|(buffer, strides)| Operand {
                buffer,
                dtype: T::DTYPE,
                offset: 0,
                strides,
            })
            .collect();
        let scalars: Vec<Scalar> = self.scalars.iter().map(|s| s.scalar()).collect();
        let args = ElementwiseArgs {
            shape: &[self.n],
            inputs: &inputs,
            scalars: &scalars,
            output: Operand {
                buffer: out,
                dtype: T::DTYPE,
                offset: 0,
                strides: &[1],
            },
        };
        f(&args, out)
    }

    /// Runs the case with `fusion`; returns the output values.
    fn run(&self, fusion: Fusion) -> Vec<T> {
        self.with_args(|args, out| {
            run_with(&self.program, args, fusion).unwrap();
            let mut bytes = vec![0u8; self.n * std::mem::size_of::<T>()];
            out.read_bytes(0, &mut bytes).unwrap();
            bytemuck::pod_collect_to_vec(&bytes)
        })
    }

    /// The number of steps a block runs, chains fused.
    fn fused_steps(&self) -> usize {
        self.with_args(|args, _| {
            let mut plan = plan::compile(&self.program, args).unwrap();
            fuse::fuse(&mut plan);
            plan.steps.len()
        })
    }

    /// The program evaluated element by element with [`plain`].
    fn expected(&self) -> Vec<T> {
        (0..self.n)
            .map(|e| {
                let mut vals: Vec<T> = Vec::new();
                for ins in &self.program.instrs {
                    let v = match ins.node {
                        Node::Input(s) => {
                            let (place, data) = &self.inputs[s as usize];
                            match place {
                                Place::Contiguous => data[e],
                                Place::Broadcast => data[0],
                                Place::Strided => data[2 * e],
                            }
                        }
                        Node::Scalar(s) => self.scalars[s as usize],
                        Node::Binary(op, a, b) => plain(op, vals[a as usize], vals[b as usize]),
                        other => panic!("{other:?} is not in these tests"),
                    };
                    vals.push(v);
                }
                vals[vals.len() - 1]
            })
            .collect()
    }

    /// Fused and unfused agree bit for bit, and with the plain loop up to NaN payloads
    /// (which Rust leaves unspecified: the loop here and the kernels may differ in a NaN's
    /// sign).
    fn check(&self) {
        let want = self.expected();
        let unfused = self.run(Fusion::Off);
        let fused = self.run(Fusion::Chains);
        for (i, ((w, u), f)) in want.iter().zip(&unfused).zip(&fused).enumerate() {
            assert!(
                (w.bits() == u.bits() || (w.nan() && u.nan())) && u.bits() == f.bits(),
                "{} n={} element {i}: plain {w:?} {:x}, unfused {u:?} {:x}, fused {f:?} {:x}\n{:?}",
                T::DTYPE,
                self.n,
                w.bits(),
                u.bits(),
                f.bits(),
                self.program.instrs
            );
        }
    }
}

fn instr(node: Node, dtype: DType) -> Instr {
    Instr { node, dtype }
}

mod pairs;
mod programs;
