//! What one test case is: an operation ([`Op`]), its inputs (host data and how each is placed
//! on the device), and the seed its data came from.

use gpuarrays_core::kernel::{Distribution, ReduceOp, ScanOp};
use gpuarrays_core::{DType, Scalar};

pub use crate::case_extra::ExtraCase;
pub use crate::case_fft::{FftCase, FftForm};
pub use crate::case_index::IndexCase;
pub use crate::case_order::OrderCase;
pub use crate::case_stats::StatOp;
use crate::host::{HostArray, HostData};
pub use crate::layout::Layout;
use crate::rng::Rng;
use crate::values::{self, Profile};

/// One operation with its parameters. Inputs are [`Case::inputs`] in the order given.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `f(a)` as an expression.
    Unary(gpuarrays_core::kernel::UnaryOp),
    /// `a op b` (NumPy broadcasting).
    Binary(gpuarrays_core::kernel::BinaryOp),
    /// `a op lit` with an untyped literal (`true` for bool, `2` otherwise) typed from `a`.
    BinaryLit(gpuarrays_core::kernel::BinaryOp),
    /// `a.cast(to)`.
    Cast(DType),
    /// `cond.select(a, b)`.
    Select,
    /// `(a * 3 + b) - a`: one fused expression of three operations and a literal.
    Fused,
    /// `dst <- a + b` (bool: `a ^ b`) with `eval_into`; with `self_read`, `dst <- dst + a`.
    /// The result is the whole buffer the destination view lives in.
    EvalInto {
        self_read: bool,
    },
    /// `a.fill(value)` in place; the result is the whole buffer `a` lives in.
    Fill(Scalar),
    /// `full(dims, value)`.
    Full {
        dims: Vec<usize>,
        value: Scalar,
    },
    /// `zeros::<T>(dims)` / `ones::<T>(dims)`.
    Zeros {
        dtype: DType,
        dims: Vec<usize>,
    },
    Ones {
        dtype: DType,
        dims: Vec<usize>,
    },
    /// `arange(start, step, len)`.
    Arange {
        start: Scalar,
        step: Scalar,
        len: usize,
    },
    /// `linspace(start, stop, num, endpoint)` in the type of `start`.
    Linspace {
        start: Scalar,
        stop: Scalar,
        num: usize,
        endpoint: bool,
    },
    /// `eye(n, m, k)`, or `tri(n, m, k)` when `lower`.
    Band {
        dtype: DType,
        n: usize,
        m: usize,
        k: isize,
        lower: bool,
    },
    /// Output `which` of `meshgrid(inputs, indexing)`.
    Meshgrid {
        which: usize,
        indexing: gpuarrays_core::Indexing,
    },
    /// A deep copy.
    Copy,
    /// `concatenate(inputs, axis)`.
    Concatenate(usize),
    /// `stack(inputs, axis)`.
    Stack(usize),
    /// Piece `piece` of `array_split(sections, axis)` (a view, read back).
    ArraySplit {
        sections: usize,
        axis: usize,
        piece: usize,
    },
    /// `tile(reps)`.
    Tile(Vec<usize>),
    /// `repeat(repeats, axis)`.
    Repeat {
        repeats: usize,
        axis: Option<usize>,
    },
    /// `pad(widths, mode)`; a constant is drawn per case.
    Pad {
        widths: Vec<(usize, usize)>,
        mode: gpuarrays_core::Pad<Scalar>,
    },
    /// `dst.assign(src)` (inputs: dst, src); the result is the whole buffer of `dst`.
    Assign,
    /// `a.broadcast_to(dims)`.
    BroadcastTo(Vec<usize>),
    /// sum, prod, min, max, argmin, argmax over everything (`None`) or one axis.
    Reduce(ReduceOp, Option<usize>),
    /// The typed `any`/`all` (any element type, `x != 0`).
    AnyAll {
        all: bool,
        axis: Option<usize>,
    },
    /// The typed `mean`/`mean_axis`.
    Mean(Option<usize>),
    /// cumsum/cumprod along an axis.
    Scan(ScanOp, usize),
    Reverse(usize),
    Permute(Vec<usize>),
    Transpose,
    Sort,
    Find,
    /// The result is a one-element i64 array: the index, or -1 for none.
    FindFirst,
    /// `Expr::random(dims, dtype, dist, seed)`.
    Random {
        dist: Distribution,
        dtype: DType,
        dims: Vec<usize>,
        seed: u64,
    },
    Matmul,
    /// var, std, logsumexp, norm, dot, vdot, outer (composed in core).
    Stat(StatOp),
    /// Gathers, scatters and masks (see [`IndexCase`] for the inputs).
    Index(IndexCase),
    /// The sort family (see [`OrderCase`] for the inputs).
    Order(OrderCase),
    /// An FFT of the public API (NumPy semantics).
    Fft(FftCase),
    /// `fftshift(axes)`, or `ifftshift(axes)` when `inverse` (`None`: every axis).
    FftShift {
        inverse: bool,
        axes: Option<Vec<usize>>,
    },
    /// `repeat_counts`, `logspace`, `einsum` (see [`ExtraCase`]).
    Extra(ExtraCase),
}

impl Op {
    /// Whether the result is the whole buffer of the first input (in-place operations).
    pub fn writes_first_input(&self) -> bool {
        match self {
            Op::Fill(_) | Op::Assign | Op::EvalInto { .. } => true,
            Op::Index(c) => c.in_place(),
            _ => false,
        }
    }
}

/// An input, before its values are drawn.
#[derive(Debug, Clone)]
pub struct InputSpec {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub layout: Layout,
    pub profile: Profile,
    /// The drawn values sorted ascending (NaNs last) before they are placed: the sorted
    /// table of `searchsorted`.
    pub sorted: bool,
}

impl InputSpec {
    pub fn new(dtype: DType, dims: &[usize]) -> Self {
        InputSpec {
            dtype,
            dims: dims.to_vec(),
            layout: Layout::Plain,
            profile: Profile::General,
            sorted: false,
        }
    }
    pub fn layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self
    }
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }
    /// The values sorted ascending (see [`InputSpec::sorted`]).
    pub fn sorted(mut self) -> Self {
        self.sorted = true;
        self
    }
}

/// A case before its values are drawn: the operation and its inputs' specifications.
#[derive(Debug, Clone)]
pub struct CaseSpec {
    pub op: Op,
    pub inputs: Vec<InputSpec>,
    /// The profile of the operation's own drawn values (the fill value, arange's start and
    /// step); `None`: `General` for fill and full, mostly `Finite` for arange.
    pub scalars: Option<Profile>,
}

impl CaseSpec {
    pub fn new(op: Op, inputs: Vec<InputSpec>) -> Self {
        CaseSpec {
            op,
            inputs,
            scalars: None,
        }
    }

    /// Draws the operation's own values from `profile`.
    pub fn scalars(mut self, profile: Profile) -> Self {
        self.scalars = Some(profile);
        self
    }

    /// A short description: shapes and layouts of the inputs.
    pub fn label(&self) -> String {
        let ins: Vec<String> = self
            .inputs
            .iter()
            .map(|i| {
                let l = if i.layout == Layout::Plain {
                    String::new()
                } else {
                    format!(" {}", i.layout.name())
                };
                let s = if i.sorted { " sorted" } else { "" };
                format!("{}{:?}{l}{s}", i.dtype, i.dims)
            })
            .collect();
        let params = match &self.op {
            Op::Reduce(_, Some(a)) | Op::Mean(Some(a)) | Op::Scan(_, a) | Op::Reverse(a) => {
                format!(" axis {a}")
            }
            Op::AnyAll { axis: Some(a), .. } => format!(" axis {a}"),
            Op::Stat(s) => match s {
                StatOp::Var { axis, ddof, .. } => format!(" axis {axis:?} ddof {ddof}"),
                _ => s.axis().map(|a| format!(" axis {a}")).unwrap_or_default(),
            },
            Op::Permute(p) => format!(" axes {p:?}"),
            Op::FftShift { axes: Some(a), .. } => format!(" axes {a:?}"),
            Op::BroadcastTo(d) => format!(" to {d:?}"),
            Op::Full { dims, .. } | Op::Zeros { dims, .. } | Op::Ones { dims, .. } => {
                format!(" dims {dims:?}")
            }
            Op::Random { dims, .. } => format!(" dims {dims:?}"),
            Op::Arange { len, .. } => format!(" len {len}"),
            Op::Linspace { num, endpoint, .. } => {
                format!(" num {num}{}", if *endpoint { "" } else { " no endpoint" })
            }
            Op::Band { n, m, k, .. } => format!(" {n}×{m} k {k}"),
            Op::Meshgrid { which, indexing } => format!(" output {which} {indexing:?}"),
            Op::Concatenate(axis) | Op::Stack(axis) => format!(" axis {axis}"),
            Op::ArraySplit {
                sections,
                axis,
                piece,
            } => format!(" piece {piece} of {sections} along {axis}"),
            Op::Tile(reps) => format!(" reps {reps:?}"),
            Op::Index(c) => format!(" {c:?}"),
            Op::Order(c) => format!(" {c:?}"),
            Op::Extra(e) => e.label(),
            Op::Repeat { repeats, axis } => format!(" {repeats}× axis {axis:?}"),
            Op::Pad { widths, mode } => {
                let m = match mode {
                    gpuarrays_core::Pad::Constant(_) => "constant",
                    gpuarrays_core::Pad::Edge => "edge",
                    gpuarrays_core::Pad::Wrap => "wrap",
                    gpuarrays_core::Pad::Reflect => "reflect",
                    gpuarrays_core::Pad::Symmetric => "symmetric",
                };
                format!(" {m} {widths:?}")
            }
            Op::Fft(f) => {
                let mut p = String::new();
                if let Some(axes) = &f.axes {
                    p += &format!(" axes {axes:?}");
                }
                if let Some(s) = &f.s {
                    p += &format!(" s {s:?}");
                }
                if f.norm != gpuarrays_core::FftNorm::Backward {
                    p += &format!(" norm {}", f.norm.name());
                }
                p
            }
            Op::EvalInto { self_read: true } => " reading dst".into(),
            Op::BinaryLit(_) => " with a literal".into(),
            _ => String::new(),
        };
        format!("[{}]{params}", ins.join(", "))
    }

    /// Draws the values of the inputs (and random parameters of the operation) from `seed`.
    pub fn materialize(&self, seed: u64) -> Case {
        let mut rng = Rng::new(seed);
        let inputs = self
            .inputs
            .iter()
            .map(|s| {
                let n = s.dims.iter().product();
                let mut data = values::generate(s.dtype, n, s.profile, &mut rng);
                if s.sorted {
                    data = sorted(data);
                }
                let (before, after) = s.layout.pads(&s.dims);
                Input {
                    array: HostArray::new(s.dims.clone(), data),
                    layout: s.layout,
                    pad_before: values::generate(s.dtype, before, Profile::General, &mut rng),
                    pad_after: values::generate(s.dtype, after, Profile::General, &mut rng),
                }
            })
            .collect();
        let given = self.scalars;
        let mut draw = |d: DType, p: Profile| values::value(d, 1, given.unwrap_or(p), &mut rng);
        let op = match &self.op {
            Op::Fill(v) => Op::Fill(draw(v.dtype(), Profile::General)),
            Op::Pad {
                widths,
                mode: gpuarrays_core::Pad::Constant(v),
            } => Op::Pad {
                widths: widths.clone(),
                mode: gpuarrays_core::Pad::Constant(draw(v.dtype(), Profile::General)),
            },
            Op::Full { dims, value } => Op::Full {
                dims: dims.clone(),
                value: draw(value.dtype(), Profile::General),
            },
            Op::Arange { start, len, .. } => {
                // Mostly moderate values; in one case of four, special ones too.
                let p = match given {
                    Some(p) => p,
                    None if rng.chance(0.25) => Profile::General,
                    None => Profile::Finite,
                };
                Op::Arange {
                    start: values::value(start.dtype(), 1, p, &mut rng),
                    step: values::value(start.dtype(), 1, p, &mut rng),
                    len: *len,
                }
            }
            Op::Linspace {
                start,
                num,
                endpoint,
                ..
            } => {
                let p = given.unwrap_or(Profile::Finite);
                Op::Linspace {
                    start: values::value(start.dtype(), 1, p, &mut rng),
                    stop: values::value(start.dtype(), 1, p, &mut rng),
                    num: *num,
                    endpoint: *endpoint,
                }
            }
            Op::Random {
                dist, dtype, dims, ..
            } => Op::Random {
                dist: *dist,
                dtype: *dtype,
                dims: dims.clone(),
                // The extreme seeds, or any other.
                seed: match rng.below(4) {
                    0 => rng.pick(&[0, u64::MAX, u32::MAX as u64, 1 << 32]),
                    _ => rng.next_u64(),
                },
            },
            other => other.clone(),
        };
        Case {
            op,
            inputs,
            label: self.label(),
            seed,
        }
    }
}

/// An input with its values.
#[derive(Debug, Clone)]
pub struct Input {
    pub array: HostArray,
    pub layout: Layout,
    /// The shared buffer's other elements (those not the input's own), in buffer order:
    /// `pad_before` then `pad_after` (before and after the input's own elements for the
    /// contiguous layouts; all in `pad_before` for the strided ones).
    pub pad_before: HostData,
    pub pad_after: HostData,
}

impl Input {
    /// The whole buffer the input lives in, as elements of its type.
    pub fn base(&self) -> HostData {
        self.base_with(&self.array.data)
    }

    /// The whole buffer with `data` (row-major, the input's element count) in place of the
    /// input's own elements: what an in-place operation leaves.
    pub fn base_with(&self, data: &HostData) -> HostData {
        let (len, positions) = self.layout.positions(&self.array.dims);
        let mut own = vec![None; len];
        for (k, &p) in positions.iter().enumerate() {
            own[p] = Some(k);
        }
        let filler = self.pad_before.concat(&self.pad_after);
        let mut next = 0;
        let mut out = HostData::with_capacity(data.dtype(), len);
        for slot in own {
            let value = match slot {
                Some(k) => data.get(k),
                None => {
                    next += 1;
                    filler.get(next - 1)
                }
            };
            out.push(value);
        }
        out
    }
}

/// A case with its values: what the backend and the reference both run.
#[derive(Debug, Clone)]
pub struct Case {
    pub op: Op,
    pub inputs: Vec<Input>,
    pub label: String,
    pub seed: u64,
}

/// `data` sorted ascending in the order the sort family uses (NaNs last, `-0.0 == 0.0`;
/// complex values, which have no order, keep theirs).
fn sorted(data: HostData) -> HostData {
    let mut v: Vec<Scalar> = data.scalars().collect();
    v.sort_by(crate::oracle::order);
    HostData::from_scalars(data.dtype(), v).unwrap_or(data)
}
