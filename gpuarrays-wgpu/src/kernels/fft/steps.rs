//! The steps a plan is made of (see `plan.rs` for how an FFT becomes them): which buffer
//! each reads and writes, how lines are addressed by digits, and what each step computes.

/// Digits of line addressing a kernel takes.
pub(crate) const MAX_DIGITS: usize = 4;

/// A buffer of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Buf {
    Input,
    Output,
    /// Temporary `i`: [`Plan::temp_elems`] complex elements, contiguous.
    Temp(usize),
}

/// How a line's points are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Load {
    /// Complex values.
    Complex,
    /// Real values, promoted (imaginary part 0).
    Real,
    /// A half spectrum of `m/2 + 1` complex values, extended by Hermitian symmetry.
    Hermitian,
}

/// How a line's points are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Store {
    Complex,
    /// The real parts only.
    Real,
}

/// One digit of line addressing: `count` values, strides in elements of each side's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Digit {
    pub count: usize,
    pub src: usize,
    pub dst: usize,
    /// The digit `j` of the twiddle `W_n^{j·k}` applied to output point `k` (always last).
    pub twiddle: bool,
}

/// Where a step reads or writes: element `offset`, and the stride between a line's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    pub buf: Buf,
    pub offset: usize,
    pub stride: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// `m`-point transforms of lines in workgroup memory; outputs `k < keep` stored, each
    /// multiplied by `W_twiddle_n^{j·k}` when `twiddle_n > 0` (`j` the last digit).
    Lines {
        m: usize,
        twiddle_n: usize,
        load: Load,
        store: Store,
        keep: usize,
    },
    /// One thread per stored point, no transform: the first `keep` points of each line
    /// (`extend_n == 0`: a crop), or the `extend_n` points of the Hermitian extension of an
    /// `extend_n/2 + 1`-point half spectrum (`keep == extend_n`).
    Edge { keep: usize, extend_n: usize },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub kind: StepKind,
    /// Outermost first, at most [`MAX_DIGITS`], at least one.
    pub digits: Vec<Digit>,
    pub src: Side,
    pub dst: Side,
}

impl Step {
    /// Lines of the step.
    pub fn lines(&self) -> usize {
        self.digits.iter().map(|d| d.count).product()
    }

    /// Points read and written per line.
    pub fn reach(&self) -> (usize, usize) {
        match self.kind {
            StepKind::Lines { m, load, keep, .. } => {
                let read = if load == Load::Hermitian {
                    m / 2 + 1
                } else {
                    m
                };
                (read, keep)
            }
            StepKind::Edge { keep, extend_n } => {
                (if extend_n > 0 { extend_n / 2 + 1 } else { keep }, keep)
            }
        }
    }

    /// Whether the source is read as real values and whether the destination is real.
    pub fn real_sides(&self) -> (bool, bool) {
        match self.kind {
            StepKind::Lines { load, store, .. } => (load == Load::Real, store == Store::Real),
            StepKind::Edge { .. } => (false, false),
        }
    }

    /// The lowest and one past the highest element position read (`src`) or written.
    pub fn span(&self, src: bool) -> (usize, usize) {
        let (read, written) = self.reach();
        let (side, points) = if src {
            (self.src, read)
        } else {
            (self.dst, written)
        };
        let far: usize = self
            .digits
            .iter()
            .map(|d| (d.count - 1) * if src { d.src } else { d.dst })
            .sum();
        (
            side.offset,
            side.offset + far + (points.max(1) - 1) * side.stride + 1,
        )
    }
}

/// The steps of one FFT, in order, and the temporaries they need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Temporaries used (`Buf::Temp(0..temps)`).
    pub temps: usize,
    /// Complex elements of each temporary.
    pub temp_elems: usize,
}

impl Plan {
    /// The plan with its input and output sides moved to element `input` and `output` of
    /// their buffers: a plan is made from core's `FftPlanKey`, which has no offsets, so its
    /// operands start at 0 until placed (temporaries stay at 0).
    pub fn placed(mut self, input: usize, output: usize) -> Plan {
        for side in self.steps.iter_mut().flat_map(|s| [&mut s.src, &mut s.dst]) {
            side.offset += match side.buf {
                Buf::Input => input,
                Buf::Output => output,
                Buf::Temp(_) => 0,
            };
        }
        self
    }
}

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlanError {
    /// A length that is not a power of two.
    NotPowerOfTwo(usize),
    /// More line digits than a kernel addresses (a layout that does not simplify).
    TooManyDigits(usize),
}

/// The largest line a workgroup transforms: a power of two of complex f32 values that fits
/// `workgroup_bytes` of workgroup memory, at most 4096 (16 points per thread).
pub(crate) fn local_limit(workgroup_bytes: u32) -> usize {
    let fit = (workgroup_bytes as usize / 8).max(2);
    (1usize << fit.ilog2()).min(4096)
}
