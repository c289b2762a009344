//! The test double's collectives (NCCL/RCCL), on the groups and communicators of
//! `collectives.rs`.
//!
//! A rank's collective is a piece of work on its stream that completes when released
//! ([`super::Completion::Manual`]): when the last rank of the operation enqueues its part,
//! the double checks that the parts agree, computes every rank's output from every rank's
//! input (all inputs read before any output is written, so in-place calls work), writes
//! it, and releases every part. The `k`-th collective of each rank matches the `k`-th of
//! every other rank; the `k`-th send from rank `a` to rank `b` matches the `k`-th receive
//! at `b` from `a`. Parts that disagree (kind, root, operation, count or type) put every
//! participant's stream into an error state and fail the last caller. Reductions combine
//! in rank order, integers wrapping, the half types in f32 rounded once.
//!
//! As everywhere in the double, data moves when the operation is enqueued, here when its
//! last part is: work a rank enqueues after its part before the others have arrived sees
//! its memory as it was (a host copy from pageable memory reads it at once). Synchronize
//! the stream (or wait for an event recorded after the part) first, as one would on a GPU
//! to see the result on the host.
//!
//! Collectives on a capturing stream are refused (the double does not capture them).

use super::collective_records::{Comm, Part};
use super::state::{Completion, FakeOp, State};
use super::{FakePlatform, api, no_such};
use crate::error::{HipError, Result};
use crate::platform::{
    CollectiveCall, CollectiveKind, CollectiveType, CommHandle, ReduceOp, StreamHandle, codes,
};
use gpuarrays_core::{bf16, f16};

fn invalid(why: &str) -> HipError {
    api("collective", codes::INVALID_VALUE, why)
}

impl FakePlatform {
    pub(super) fn fake_collective(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()> {
        self.collectives_check()?;
        let mut st = self.state.lock();
        let c = *st
            .collectives
            .comms
            .get(&comm.0)
            .ok_or_else(|| no_such("collective", "communicator"))?;
        let device = self.enqueue_check(&st, "collective", stream)?;
        if device != c.device {
            let why = format!("stream of device {device}, communicator of {}", c.device);
            return Err(invalid(&why));
        }
        if st.capturing(stream) {
            let why = "the test double does not capture collectives";
            return Err(api("collective", codes::STREAM_CAPTURE_UNSUPPORTED, why));
        }
        let ranks = st
            .collectives
            .groups
            .get(&c.id)
            .map_or(0, |g| g.members.len());
        let rank = match call.kind {
            CollectiveKind::Reduce { root, .. } | CollectiveKind::Broadcast { root } => root,
            CollectiveKind::Send { peer } | CollectiveKind::Recv { peer } if peer == c.rank => {
                return Err(invalid(&format!("rank {peer} cannot send to itself")));
            }
            CollectiveKind::Send { peer } | CollectiveKind::Recv { peer } => peer,
            _ => 0,
        };
        if rank >= ranks {
            return Err(invalid(&format!("rank {rank} outside a group of {ranks}")));
        }
        let (send_bytes, recv_bytes) = call.extents(ranks);
        let mut touched = Vec::new();
        for (ptr, bytes, write) in [
            (call.send, send_bytes, false),
            (call.recv, recv_bytes, true),
        ] {
            if bytes == 0 {
                continue;
            }
            let (base, _) = self.access_on(&mut st, stream, ptr, bytes)?;
            if st.allocs[&base].device != c.device {
                let why = format!("{ptr} is not memory of the communicator's {}", c.device);
                return Err(invalid(&why));
            }
            touched.push((base, write));
        }
        let uid = st.handles[&stream.0];
        if st.keep_log {
            st.log.push(FakeOp::Collective { stream, comm });
        }
        let work = st.push_work(uid, Completion::Manual, None);
        for (base, write) in touched {
            self.note(&mut st, stream, base, write, "collective");
        }
        let part = Part {
            call: *call,
            uid,
            work,
        };
        self.arrive(&mut st, c, ranks, part)
    }

    /// Add a rank's part; if it completes an operation, run it.
    fn arrive(&self, st: &mut State, c: Comm, ranks: usize, part: Part) -> Result<()> {
        let Some(g) = st.collectives.groups.get_mut(&c.id) else {
            return Err(invalid("the communicator's group is gone"));
        };
        let parts: Vec<Part> = match part.call.kind {
            CollectiveKind::Send { peer } | CollectiveKind::Recv { peer } => {
                let send = matches!(part.call.kind, CollectiveKind::Send { .. });
                let (pair, side, count) = match send {
                    true => ((c.rank, peer), 0, &mut g.sent),
                    false => ((peer, c.rank), 1, &mut g.received),
                };
                let k = count.entry(pair).or_default();
                let key = (pair.0, pair.1, *k);
                *k += 1;
                let slots = g.p2p.entry(key).or_default();
                slots[side] = Some(part);
                let [Some(s), Some(r)] = *slots else {
                    return Ok(());
                };
                g.p2p.remove(&key);
                vec![s, r]
            }
            _ => {
                let k = g.issued[c.rank];
                g.issued[c.rank] += 1;
                let slots = g.pending.entry(k).or_insert_with(|| vec![None; ranks]);
                slots[c.rank] = Some(part);
                if slots.iter().any(Option::is_none) {
                    return Ok(());
                }
                let done = g.pending.remove(&k).unwrap_or_default();
                done.into_iter().flatten().collect()
            }
        };
        let result = agreement(&parts).and_then(|()| self.run_collective(st, &parts));
        for p in &parts {
            if let Some(w) = p.work.and_then(|id| st.work.get_mut(&id)) {
                w.released = true;
            }
            if let (Err(_), Some(s)) = (&result, st.streams.get_mut(&p.uid)) {
                s.error = Some(codes::INVALID_VALUE);
            }
        }
        self.changed.notify_all();
        if result.is_ok() {
            st.stats.collectives_completed += 1;
        }
        result.map_err(|why| invalid(&why))
    }

    /// Compute every part's output from every part's input and write it.
    fn run_collective(&self, st: &mut State, parts: &[Part]) -> std::result::Result<(), String> {
        let ranks = parts.len();
        let mut inputs = Vec::with_capacity(ranks);
        for p in parts {
            let (bytes, _) = p.call.extents(ranks);
            if bytes == 0 {
                // A receive reads nothing (its `send` may be anything).
                inputs.push(Vec::new());
                continue;
            }
            let (base, off) = self
                .access(st, p.call.send, bytes)
                .map_err(|e| e.to_string())?;
            inputs.push(st.allocs[&base].data[off..off + bytes].to_vec());
        }
        let ins: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let call = parts[0].call;
        let n = call.count * call.dtype.size();
        let reduced = |op, r: usize| {
            let block: Vec<&[u8]> = ins.iter().map(|i| &i[r * n..(r + 1) * n]).collect();
            reduce(call.dtype, op, &block)
        };
        let outputs: Vec<Option<Vec<u8>>> = match call.kind {
            CollectiveKind::AllReduce(op) => vec![Some(reduced(op, 0)); ranks],
            CollectiveKind::Reduce { op, root } => (0..ranks)
                .map(|r| (r == root).then(|| reduced(op, 0)))
                .collect(),
            CollectiveKind::Broadcast { root } => vec![Some(inputs[root].clone()); ranks],
            CollectiveKind::AllGather => vec![Some(inputs.concat()); ranks],
            CollectiveKind::ReduceScatter(op) => (0..ranks).map(|r| Some(reduced(op, r))).collect(),
            // The pair: the send's input lands in the receive's output.
            CollectiveKind::Send { .. } | CollectiveKind::Recv { .. } => {
                vec![None, Some(inputs[0].clone())]
            }
        };
        let mut at = Vec::with_capacity(ranks);
        for (p, out) in parts.iter().zip(&outputs) {
            if let Some(out) = out {
                at.push(
                    self.access(st, p.call.recv, out.len())
                        .map_err(|e| e.to_string())?,
                );
            }
        }
        for (at, out) in at.into_iter().zip(outputs.iter().flatten()) {
            st.bytes_mut(at, out.len()).copy_from_slice(out);
        }
        Ok(())
    }
}

/// Whether the parts of one operation agree (the same kind, root and operation, count and
/// type; a send and its receive: the same count and type).
fn agreement(parts: &[Part]) -> std::result::Result<(), String> {
    let first = parts[0].call;
    let p2p = matches!(first.kind, CollectiveKind::Send { .. });
    for (r, p) in parts.iter().enumerate().skip(1) {
        let c = p.call;
        if (!p2p && c.kind != first.kind) || c.count != first.count || c.dtype != first.dtype {
            return Err(format!(
                "the ranks' calls disagree: {:?} of {} {:?} against part {r}: {:?} of {} {:?}",
                first.kind, first.count, first.dtype, c.kind, c.count, c.dtype
            ));
        }
    }
    Ok(())
}

/// A type whose values combine as a reduction says.
trait Combine: Copy {
    fn combine(self, op: ReduceOp, b: Self) -> Self;
}

macro_rules! int_combine {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn combine(self, op: ReduceOp, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => self.wrapping_add(b),
                    ReduceOp::Prod => self.wrapping_mul(b),
                    ReduceOp::Min => self.min(b),
                    ReduceOp::Max => self.max(b),
                }
            }
        }
    )*};
}
int_combine!(i8, u8, i32, u32, i64, u64);

macro_rules! float_combine {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn combine(self, op: ReduceOp, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => self + b,
                    ReduceOp::Prod => self * b,
                    ReduceOp::Min => self.min(b),
                    ReduceOp::Max => self.max(b),
                }
            }
        }
    )*};
}
float_combine!(f32, f64);

/// An element as the device holds it (little-endian), read into the type it combines in.
trait Elem {
    const SIZE: usize;
    type Acc: Combine;
    fn read(b: &[u8]) -> Self::Acc;
    fn write(acc: Self::Acc, b: &mut [u8]);
}

macro_rules! plain_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            type Acc = $t;
            fn read(b: &[u8]) -> $t {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&b[..Self::SIZE]);
                <$t>::from_le_bytes(a)
            }
            fn write(acc: $t, b: &mut [u8]) {
                b[..Self::SIZE].copy_from_slice(&acc.to_le_bytes());
            }
        }
    )*};
}
plain_elem!(i8, u8, i32, u32, i64, u64, f32, f64);

/// The half types combine in f32, rounded once when written.
macro_rules! half_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = 2;
            type Acc = f32;
            fn read(b: &[u8]) -> f32 {
                <$t>::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()
            }
            fn write(acc: f32, b: &mut [u8]) {
                b[..2].copy_from_slice(&<$t>::from_f32(acc).to_bits().to_le_bytes());
            }
        }
    )*};
}
half_elem!(f16, bf16);

/// The element-wise reduction of equally long inputs, in rank order.
fn reduce(dtype: CollectiveType, op: ReduceOp, inputs: &[&[u8]]) -> Vec<u8> {
    fn fold<T: Elem>(op: ReduceOp, inputs: &[&[u8]]) -> Vec<u8> {
        let Some((first, rest)) = inputs.split_first() else {
            return Vec::new();
        };
        let mut out = first.to_vec();
        for (e, o) in out.chunks_exact_mut(T::SIZE).enumerate() {
            let at = e * T::SIZE;
            let acc = rest.iter().fold(T::read(&first[at..]), |acc, i| {
                acc.combine(op, T::read(&i[at..]))
            });
            T::write(acc, o);
        }
        out
    }
    match dtype {
        CollectiveType::I8 => fold::<i8>(op, inputs),
        CollectiveType::U8 => fold::<u8>(op, inputs),
        CollectiveType::I32 => fold::<i32>(op, inputs),
        CollectiveType::U32 => fold::<u32>(op, inputs),
        CollectiveType::I64 => fold::<i64>(op, inputs),
        CollectiveType::U64 => fold::<u64>(op, inputs),
        CollectiveType::F16 => fold::<f16>(op, inputs),
        CollectiveType::F32 => fold::<f32>(op, inputs),
        CollectiveType::F64 => fold::<f64>(op, inputs),
        CollectiveType::BF16 => fold::<bf16>(op, inputs),
    }
}
