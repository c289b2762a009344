//! One recorded backend call: its description, owned, with its buffers replaced by
//! positions in the graph's buffer list.
//!
//! The descriptions a backend receives borrow their buffers (`&'a Buf`). A recording keeps
//! every description except the elementwise one as the same type over [`Slot`]s, static
//! placeholders: `try_map_buffers` swaps each buffer for the next slot on the way in and
//! each slot for the graph's buffer on the way out, so no field is copied by hand and a
//! field added to a description is recorded with it. The elementwise description borrows
//! its shape, operands and strides too, so it is kept as vectors ([`Elementwise`]).

use smallvec::SmallVec;

use super::recorder::Recording;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::kernel::{
    ElementwiseArgs, FftArgs, GatherArgs, MatmulArgs, Operand, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use crate::{DType, Scalar};

/// A placeholder for the `k`-th buffer of one recorded call.
#[derive(Debug)]
pub(super) struct Slot(usize);

/// No call uses more buffers than this (a gather: index, source, output, report).
const SLOTS: usize = 6;
static SLOT: [Slot; SLOTS] = [Slot(0), Slot(1), Slot(2), Slot(3), Slot(4), Slot(5)];

/// An elementwise operand without its buffer.
struct Operand0 {
    dtype: DType,
    offset: usize,
    strides: Vec<isize>,
}

/// An elementwise call, owned.
pub(super) struct Elementwise {
    program: Program,
    shape: Vec<usize>,
    /// The inputs, then the output.
    operands: Vec<Operand0>,
    scalars: Vec<Scalar>,
}

/// A recorded call's description.
pub(super) enum Call {
    Elementwise(Box<Elementwise>),
    Reduce(ReduceArgs<'static, Slot>),
    Scan(ScanArgs<'static, Slot>),
    Sort(SortArgs<'static, Slot>),
    SearchSorted(SearchArgs<'static, Slot>),
    Gather(GatherArgs<'static, Slot>),
    Scatter(ScatterArgs<'static, Slot>),
    Matmul(MatmulArgs<'static, Slot>),
    Fft(FftArgs<'static, Slot>),
    Copy {
        src_off: usize,
        dst_off: usize,
        bytes: usize,
    },
}

/// A recorded call and the graph positions of its buffers, in the order its description
/// visits them.
pub(super) struct RecordedOp {
    call: Call,
    buffers: SmallVec<[usize; SLOTS]>,
}

impl Call {
    fn name(&self) -> &'static str {
        match self {
            Call::Elementwise(_) => "elementwise",
            Call::Reduce(_) => "reduce",
            Call::Scan(_) => "scan",
            Call::Sort(_) => "sort",
            Call::SearchSorted(_) => "searchsorted",
            Call::Gather(_) => "gather",
            Call::Scatter(_) => "scatter",
            Call::Matmul(_) => "matmul",
            Call::Fft(_) => "fft",
            Call::Copy { .. } => "copy",
        }
    }
}

impl<Buf: Send + Sync + 'static> Recording<Buf> {
    /// Records a call whose description maps its buffers with `map` (each buffer becomes the
    /// next [`Slot`]).
    fn push_slotted(
        &mut self,
        op: &str,
        map: impl FnOnce(&mut dyn FnMut(&Buf) -> Result<&'static Slot>) -> Result<Call>,
    ) -> Result<()> {
        let mut buffers = SmallVec::new();
        let call = map(&mut |b: &Buf| {
            let k = buffers.len();
            let slot = SLOT
                .get(k)
                .ok_or_else(|| Error::invalid_arg(op, "a call with more buffers than recorded"))?;
            buffers.push(self.position(b, op)?);
            Ok(slot)
        })?;
        self.ops.push(RecordedOp { call, buffers });
        Ok(())
    }

    pub(super) fn elementwise(
        &mut self,
        program: &Program,
        args: &ElementwiseArgs<'_, Buf>,
    ) -> Result<()> {
        let all = || args.inputs.iter().chain(std::iter::once(&args.output));
        let buffers = all()
            .map(|o| self.position(o.buffer, "elementwise"))
            .collect::<Result<_>>()?;
        let operands = all()
            .map(|o| Operand0 {
                dtype: o.dtype,
                offset: o.offset,
                strides: o.strides.to_vec(),
            })
            .collect();
        let call = Call::Elementwise(Box::new(Elementwise {
            program: program.clone(),
            shape: args.shape.to_vec(),
            operands,
            scalars: args.scalars.to_vec(),
        }));
        self.ops.push(RecordedOp { call, buffers });
        Ok(())
    }

    pub(super) fn reduce(&mut self, args: &ReduceArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("reduce", |f| Ok(Call::Reduce(args.try_map_buffers(f)?)))
    }

    pub(super) fn scan(&mut self, args: &ScanArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("scan", |f| Ok(Call::Scan(args.try_map_buffers(f)?)))
    }

    pub(super) fn sort(&mut self, args: &SortArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("sort", |f| Ok(Call::Sort(args.try_map_buffers(f)?)))
    }

    pub(super) fn search_sorted(&mut self, args: &SearchArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("searchsorted", |f| {
            Ok(Call::SearchSorted(args.try_map_buffers(f)?))
        })
    }

    pub(super) fn gather(&mut self, args: &GatherArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("gather", |f| Ok(Call::Gather(args.try_map_buffers(f)?)))
    }

    pub(super) fn scatter(&mut self, args: &ScatterArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("scatter", |f| Ok(Call::Scatter(args.try_map_buffers(f)?)))
    }

    pub(super) fn matmul(&mut self, args: &MatmulArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("matmul", |f| Ok(Call::Matmul(args.try_map_buffers(f)?)))
    }

    pub(super) fn fft(&mut self, args: &FftArgs<'_, Buf>) -> Result<()> {
        self.push_slotted("fft", |f| Ok(Call::Fft(args.try_map_buffers(f)?)))
    }

    pub(super) fn copy(
        &mut self,
        src: &Buf,
        src_off: usize,
        dst: &Buf,
        dst_off: usize,
        bytes: usize,
    ) -> Result<()> {
        let buffers = [self.position(src, "copy")?, self.position(dst, "copy")?];
        self.ops.push(RecordedOp {
            call: Call::Copy {
                src_off,
                dst_off,
                bytes,
            },
            buffers: SmallVec::from_slice(&buffers),
        });
        Ok(())
    }
}

impl RecordedOp {
    /// The graph positions of the buffers this call uses.
    pub(super) fn buffers(&self) -> &[usize] {
        &self.buffers
    }

    /// Moves this call's buffer positions through `renumber` (the graph keeps only the
    /// buffers its calls use).
    pub(super) fn renumber(&mut self, renumber: impl Fn(usize) -> usize) {
        for b in &mut self.buffers {
            *b = renumber(*b);
        }
    }

    /// The graph's buffer for this call's `k`-th buffer.
    fn buffer<'g, Buf>(&self, bufs: &[&'g Buf], k: usize) -> Result<&'g Buf> {
        self.buffers
            .get(k)
            .and_then(|&p| bufs.get(p).copied())
            .ok_or_else(|| Error::invalid_arg(self.call.name(), "a recorded buffer is gone"))
    }

    /// Runs the call on `backend`, on the graph's buffers `bufs` (through core's dispatch,
    /// so that a launch inside another capture is recorded there).
    pub(super) fn replay<B: Backend>(&self, backend: &B, bufs: &[&B::Buffer]) -> Result<()> {
        let buffer = |k: usize| self.buffer(bufs, k);
        let slot = |s: &'static Slot| self.buffer(bufs, s.0);
        use super::dispatch as run;
        match &self.call {
            Call::Elementwise(e) => {
                let operand = |k: usize| -> Result<Operand<'_, B::Buffer>> {
                    let o = &e.operands[k];
                    Ok(Operand {
                        buffer: buffer(k)?,
                        dtype: o.dtype,
                        offset: o.offset,
                        strides: &o.strides,
                    })
                };
                let n = e.operands.len() - 1;
                let inputs: SmallVec<[Operand<'_, B::Buffer>; 8]> =
                    (0..n).map(operand).collect::<Result<_>>()?;
                let args = ElementwiseArgs {
                    shape: &e.shape,
                    inputs: &inputs,
                    scalars: &e.scalars,
                    output: operand(n)?,
                };
                run::elementwise(backend, &e.program, &args)
            }
            Call::Reduce(a) => run::reduce(backend, &a.try_map_buffers(slot)?),
            Call::Scan(a) => run::scan(backend, &a.try_map_buffers(slot)?),
            Call::Sort(a) => run::sort(backend, &a.try_map_buffers(slot)?),
            Call::SearchSorted(a) => run::search_sorted(backend, &a.try_map_buffers(slot)?),
            Call::Gather(a) => run::gather(backend, &a.try_map_buffers(slot)?),
            Call::Scatter(a) => run::scatter(backend, &a.try_map_buffers(slot)?),
            Call::Matmul(a) => run::matmul(backend, &a.try_map_buffers(slot)?),
            Call::Fft(a) => run::fft(backend, &a.try_map_buffers(slot)?),
            Call::Copy {
                src_off,
                dst_off,
                bytes,
            } => run::copy(backend, buffer(0)?, *src_off, buffer(1)?, *dst_off, *bytes),
        }
    }
}
