//! Collectives on arrays: each is one operation of the ordering protocol on the calling
//! thread's stream of the communicator's device — it reads its input after the work that
//! wrote it and its result is ordered before later work, like any kernel.
//!
//! Element types travel as NCCL's types; those without one travel as bytes where nothing is
//! computed (broadcast, gather, send) and are refused where something is (i16/u16 have no
//! NCCL reduction; a sum of bools is no bool; complex numbers reduce only by sum, as pairs
//! of reals). Results are new contiguous arrays of the communicator's device.

use super::Communicator;
use super::group::keep_until_group_end;
use crate::HipBackend;
use crate::device::Access;
use crate::platform::{CollectiveCall, CollectiveKind, CollectiveType, ReduceOp};
use gpuarrays_core::{Array, Backend, DType, DataRef, Element, Error, Result};
use std::sync::Arc;

/// The wire type of `dtype` and the wire elements per array element; `reduce` says whether
/// the collective computes with them.
fn wire(
    dtype: DType,
    reduce: Option<ReduceOp>,
) -> std::result::Result<(CollectiveType, usize), String> {
    use CollectiveType as W;
    let direct = match dtype {
        DType::I8 => Some(W::I8),
        DType::U8 => Some(W::U8),
        DType::I32 => Some(W::I32),
        DType::U32 => Some(W::U32),
        DType::I64 => Some(W::I64),
        DType::U64 => Some(W::U64),
        DType::F16 => Some(W::F16),
        DType::BF16 => Some(W::BF16),
        DType::F32 => Some(W::F32),
        DType::F64 => Some(W::F64),
        _ => None,
    };
    match (direct, reduce) {
        (Some(w), _) => Ok((w, 1)),
        (None, None) => Ok((W::U8, dtype.size())),
        (None, Some(op)) => match (dtype, op) {
            (DType::Bool, ReduceOp::Min | ReduceOp::Max | ReduceOp::Prod) => Ok((W::U8, 1)),
            (DType::Bool, ReduceOp::Sum) => Err(
                "a sum of bools is not a bool: use max (any) or min (all), or cast to i32 first"
                    .into(),
            ),
            (DType::C32, ReduceOp::Sum) => Ok((W::F32, 2)),
            (DType::C64, ReduceOp::Sum) => Ok((W::F64, 2)),
            (DType::C32 | DType::C64, _) => Err(format!(
                "complex numbers reduce by sum only ({op:?} has no complex meaning here)"
            )),
            _ => Err(format!(
                "{dtype} has no reduction type in NCCL/RCCL: cast to i32 or f32 first"
            )),
        },
    }
}

/// A new array of `dims` on `backend` whose every element the collective writes.
fn output<T: Element>(backend: &HipBackend, dims: &[usize]) -> Result<Array<T, HipBackend>> {
    let elems = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let bytes = elems
        .and_then(|n| n.checked_mul(T::DTYPE.size()))
        .ok_or_else(|| invalid("collective", format!("{dims:?} overflows usize")))?;
    let buffer = backend.alloc(bytes)?;
    let owner = backend.clone();
    let data = DataRef::new(buffer, move |b| owner.release(b));
    let strides = gpuarrays_core::shape::contiguous_strides(dims);
    let raw = gpuarrays_core::RawArray::from_external(
        backend,
        data,
        bytes,
        T::DTYPE,
        dims.to_vec(),
        strides,
        0,
    )?;
    raw.into_typed()
}

/// An argument the collective does not accept.
fn invalid(op: &str, reason: String) -> Error {
    Error::InvalidArgument {
        op: op.to_string(),
        reason,
    }
}

impl Communicator {
    fn check_rank(&self, what: &str, role: &str, r: usize) -> Result<()> {
        if r < self.ranks() {
            return Ok(());
        }
        Err(invalid(
            what,
            format!("{role} {r} is not a rank of this group of {}", self.ranks()),
        ))
    }

    /// Checks that `x` lives on this rank's device, and that no graph is being recorded.
    fn check_input<T: Element>(&self, what: &str, x: &Array<T, HipBackend>) -> Result<()> {
        let (mine, theirs) = (self.backend().device_state(), x.backend().device_state());
        if !Arc::ptr_eq(x.backend().runtime(), self.backend().runtime()) || mine.id() != theirs.id()
        {
            return Err(Error::DeviceMismatch {
                op: what.to_string(),
                a: self.backend().device().to_string(),
                b: x.backend().device().to_string(),
            });
        }
        gpuarrays_core::graph::refuse_while_recording(self.backend(), what)
    }

    /// Enqueue one collective of `kind` reading `input` (if any) and writing `out` (if any).
    fn enqueue<T: Element>(
        &self,
        what: &str,
        kind: CollectiveKind,
        input: Option<&Array<T, HipBackend>>,
        out: Option<&Array<T, HipBackend>>,
        elems: usize,
    ) -> Result<()> {
        let reduce = match kind {
            CollectiveKind::AllReduce(op)
            | CollectiveKind::Reduce { op, .. }
            | CollectiveKind::ReduceScatter(op) => Some(op),
            _ => None,
        };
        let (dtype, per) = wire(T::DTYPE, reduce).map_err(|why| invalid(what, why))?;
        let count = elems * per;
        if count == 0 {
            // Every rank has the same (empty) shape: none of them calls the library.
            return Ok(());
        }
        let backend = self.backend();
        let state = backend.device_state();
        let in_buf = input.map(|x| x.raw().buffer()).transpose()?;
        let out_buf = out.map(|x| x.raw().buffer()).transpose()?;
        let ptr_of =
            |a: &Array<T, HipBackend>, b: &crate::HipBuffer| b.ptr().offset(a.raw().byte_offset());
        let send = match (input, &in_buf) {
            (Some(a), Some(b)) => ptr_of(a, b),
            _ => match (out, &out_buf) {
                (Some(a), Some(b)) => ptr_of(a, b),
                _ => return Err(invalid(what, "nothing to send or receive".into())),
            },
        };
        let recv = match (out, &out_buf) {
            (Some(a), Some(b)) => ptr_of(a, b),
            _ => send,
        };
        let call = CollectiveCall {
            kind,
            send,
            recv,
            count,
            dtype,
        };
        let mut accesses = Vec::with_capacity(2);
        if let Some(b) = &in_buf {
            accesses.push(Access::read(b.device_buffer()));
        }
        if let Some(b) = &out_buf {
            accesses.push(Access::write(b.device_buffer()));
        }
        let run = || {
            let stream = state.thread_stream()?;
            // Not into a graph capture: collectives in graphs are not supported yet.
            crate::device::refuse_capture(&stream, "a collective")?;
            state.enqueue(&stream, &accesses, |s| {
                // SAFETY: `send` and `recv` point into live buffers of this device holding the
                // call's extents (inputs are contiguous arrays of `elems` elements, outputs
                // were sized for the collective's layout); the buffers are freed only after
                // every recorded use, and this use is recorded by the protocol.
                unsafe {
                    state
                        .platform()
                        .collective(self.handle(), &call, s.handle())
                }
            })
        };
        run().map_err(|e| backend.err(e))?;
        // Inside a group the work is enqueued at the group's end: keep the operands alive
        // until then (a free enqueued now would precede it).
        if let Some(x) = input {
            keep_until_group_end(x.raw().data().clone());
        }
        if let Some(x) = out {
            keep_until_group_end(x.raw().data().clone());
        }
        Ok(())
    }

    /// Every rank gets the elementwise `op` of every rank's `x` (same shape and type on
    /// every rank).
    pub fn all_reduce<T: Element>(
        &self,
        x: &Array<T, HipBackend>,
        op: ReduceOp,
    ) -> Result<Array<T, HipBackend>> {
        self.check_input("all_reduce", x)?;
        let x = x.contiguous()?;
        let out = output::<T>(self.backend(), x.dims())?;
        let kind = CollectiveKind::AllReduce(op);
        self.enqueue("all_reduce", kind, Some(&x), Some(&out), x.len())?;
        Ok(out)
    }

    /// [`Communicator::all_reduce`] into `x` itself (the library's in-place form, as
    /// `torch.distributed.all_reduce` does): no new array. `x` must be contiguous; arrays
    /// sharing its buffer see the result.
    pub fn all_reduce_in_place<T: Element>(
        &self,
        x: &mut Array<T, HipBackend>,
        op: ReduceOp,
    ) -> Result<()> {
        self.check_input("all_reduce_in_place", x)?;
        if !x.is_contiguous() {
            return Err(invalid(
                "all_reduce_in_place",
                "the array is a strided view: reduce it with all_reduce (a new array)".into(),
            ));
        }
        let x = &*x;
        let kind = CollectiveKind::AllReduce(op);
        self.enqueue("all_reduce_in_place", kind, Some(x), Some(x), x.len())
    }

    /// Rank `root` gets the elementwise `op` of every rank's `x` (`Some` on the root, `None`
    /// elsewhere).
    pub fn reduce<T: Element>(
        &self,
        x: &Array<T, HipBackend>,
        op: ReduceOp,
        root: usize,
    ) -> Result<Option<Array<T, HipBackend>>> {
        self.check_input("reduce", x)?;
        self.check_rank("reduce", "root", root)?;
        let x = x.contiguous()?;
        let kind = CollectiveKind::Reduce { op, root };
        if self.rank() != root {
            self.enqueue::<T>("reduce", kind, Some(&x), None, x.len())?;
            return Ok(None);
        }
        let out = output::<T>(self.backend(), x.dims())?;
        self.enqueue("reduce", kind, Some(&x), Some(&out), x.len())?;
        Ok(Some(out))
    }

    /// Every rank gets `root`'s `x`. Every rank passes an array of the same shape and type;
    /// only the root's elements are read.
    pub fn broadcast<T: Element>(
        &self,
        x: &Array<T, HipBackend>,
        root: usize,
    ) -> Result<Array<T, HipBackend>> {
        self.check_input("broadcast", x)?;
        self.check_rank("broadcast", "root", root)?;
        let out = output::<T>(self.backend(), x.dims())?;
        let kind = CollectiveKind::Broadcast { root };
        if self.rank() == root {
            let x = x.contiguous()?;
            self.enqueue("broadcast", kind, Some(&x), Some(&out), x.len())?;
        } else {
            self.enqueue::<T>("broadcast", kind, None, Some(&out), x.len())?;
        }
        Ok(out)
    }

    /// Every rank gets every rank's `x`, stacked: shape `[ranks, ..x.shape]`, rank `r`'s
    /// array at index `r`.
    pub fn all_gather<T: Element>(&self, x: &Array<T, HipBackend>) -> Result<Array<T, HipBackend>> {
        self.check_input("all_gather", x)?;
        let x = x.contiguous()?;
        let mut dims = vec![self.ranks()];
        dims.extend_from_slice(x.dims());
        let out = output::<T>(self.backend(), &dims)?;
        self.enqueue(
            "all_gather",
            CollectiveKind::AllGather,
            Some(&x),
            Some(&out),
            x.len(),
        )?;
        Ok(out)
    }

    /// The `op` of every rank's `x`, split along the first axis: rank `r` gets block `r` of
    /// `ranks` equal blocks (shape `[x.shape[0] / ranks, ..]`). The first axis must divide
    /// by the number of ranks.
    pub fn reduce_scatter<T: Element>(
        &self,
        x: &Array<T, HipBackend>,
        op: ReduceOp,
    ) -> Result<Array<T, HipBackend>> {
        self.check_input("reduce_scatter", x)?;
        let ranks = self.ranks();
        let Some(&first) = x.dims().first().filter(|&&d| d % ranks == 0) else {
            return Err(invalid(
                "reduce_scatter",
                format!(
                    "shape {:?}: the first axis must divide into {ranks} equal blocks",
                    x.dims()
                ),
            ));
        };
        let x = x.contiguous()?;
        let mut dims = x.dims().to_vec();
        dims[0] = first / ranks;
        let out = output::<T>(self.backend(), &dims)?;
        let kind = CollectiveKind::ReduceScatter(op);
        self.enqueue("reduce_scatter", kind, Some(&x), Some(&out), out.len())?;
        Ok(out)
    }

    /// Send `x` to rank `peer`, which calls [`Communicator::recv`] with the same shape and
    /// type.
    pub fn send<T: Element>(&self, x: &Array<T, HipBackend>, peer: usize) -> Result<()> {
        self.check_input("send", x)?;
        self.check_peer("send", peer)?;
        let x = x.contiguous()?;
        self.enqueue::<T>(
            "send",
            CollectiveKind::Send { peer },
            Some(&x),
            None,
            x.len(),
        )
    }

    /// Receive an array of `dims` from rank `peer`, which calls [`Communicator::send`].
    pub fn recv<T: Element>(&self, dims: &[usize], peer: usize) -> Result<Array<T, HipBackend>> {
        gpuarrays_core::graph::refuse_while_recording(self.backend(), "recv")?;
        self.check_peer("recv", peer)?;
        let out = output::<T>(self.backend(), dims)?;
        self.enqueue(
            "recv",
            CollectiveKind::Recv { peer },
            None,
            Some(&out),
            out.len(),
        )?;
        Ok(out)
    }

    fn check_peer(&self, what: &str, peer: usize) -> Result<()> {
        self.check_rank(what, "peer", peer)?;
        if peer == self.rank() {
            return Err(invalid(
                what,
                format!("rank {peer} is this rank: pick another"),
            ));
        }
        Ok(())
    }
}
