//! Collective communication between devices: NCCL on NVIDIA, RCCL on AMD (the same C API),
//! loaded at the first communicator like the other vendor libraries.
//!
//! A concern of its own: only the runtime's communicators (`crate::collectives`) use it.
//! One communicator is one rank of a group; the group's ranks may live in one process (one
//! device each) or in many, which agree on a [`CollectiveId`] first.

use super::{DeviceId, DevicePtr, StreamHandle};
use crate::error::Result;

/// The 128-byte id that names one group of ranks (`ncclUniqueId`): made by one rank with
/// [`CollectiveLibrary::collective_id`] and handed to every other rank before it joins.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CollectiveId(pub [u8; 128]);

impl std::fmt::Debug for CollectiveId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The id holds the bootstrap address of rank 0; its first bytes tell ids apart.
        write!(f, "CollectiveId({:02x?}…)", &self.0[..8])
    }
}

/// A communicator (`ncclComm_t`): one rank of a group, bound to one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CommHandle(pub u64);

/// The element types collectives move (`ncclDataType_t`). Types without one travel as
/// another of their size (bool as `U8`, complex as pairs of reals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CollectiveType {
    /// `ncclInt8`.
    I8,
    /// `ncclUint8`.
    U8,
    /// `ncclInt32`.
    I32,
    /// `ncclUint32`.
    U32,
    /// `ncclInt64`.
    I64,
    /// `ncclUint64`.
    U64,
    /// `ncclFloat16`.
    F16,
    /// `ncclFloat32`.
    F32,
    /// `ncclFloat64`.
    F64,
    /// `ncclBfloat16` (NCCL 2.10 and later).
    BF16,
}

impl CollectiveType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            CollectiveType::I8 | CollectiveType::U8 => 1,
            CollectiveType::F16 | CollectiveType::BF16 => 2,
            CollectiveType::I32 | CollectiveType::U32 | CollectiveType::F32 => 4,
            CollectiveType::I64 | CollectiveType::U64 | CollectiveType::F64 => 8,
        }
    }
}

/// How a reduction combines the ranks' elements (`ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `ncclSum`.
    Sum,
    /// `ncclProd`.
    Prod,
    /// `ncclMin`.
    Min,
    /// `ncclMax`.
    Max,
}

/// Which collective, with what is particular to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CollectiveKind {
    /// Every rank gets the reduction of every rank's `count` elements.
    AllReduce(ReduceOp),
    /// Rank `root` gets the reduction; the others' `recv` is untouched.
    Reduce {
        /// How elements combine.
        op: ReduceOp,
        /// The rank that receives.
        root: usize,
    },
    /// Every rank gets `root`'s `count` elements.
    Broadcast {
        /// The rank that sends.
        root: usize,
    },
    /// Every rank gets every rank's `count` elements, rank after rank (`ranks × count`).
    AllGather,
    /// Rank `r` gets the reduction of block `r` (`count` elements) of every rank's
    /// `ranks × count` elements.
    ReduceScatter(ReduceOp),
    /// Send `count` elements of `send` to rank `peer` (`recv` unused).
    Send {
        /// The receiving rank.
        peer: usize,
    },
    /// Receive `count` elements from rank `peer` into `recv` (`send` unused).
    Recv {
        /// The sending rank.
        peer: usize,
    },
}

/// One collective call of one rank: NCCL's arguments, with `count` as NCCL counts it (the
/// elements each rank sends for all-gather, those it receives for reduce-scatter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectiveCall {
    /// Which collective.
    pub kind: CollectiveKind,
    /// The rank's input.
    pub send: DevicePtr,
    /// The rank's output (may equal `send`: in place).
    pub recv: DevicePtr,
    /// Elements, as NCCL counts them for `kind`.
    pub count: usize,
    /// Element type.
    pub dtype: CollectiveType,
}

impl CollectiveCall {
    /// Bytes the call reads from `send` and writes to `recv`, on a group of `ranks`.
    pub fn extents(&self, ranks: usize) -> (usize, usize) {
        let n = self.count * self.dtype.size();
        match self.kind {
            CollectiveKind::AllReduce(_)
            | CollectiveKind::Reduce { .. }
            | CollectiveKind::Broadcast { .. } => (n, n),
            CollectiveKind::AllGather => (n, n * ranks),
            CollectiveKind::ReduceScatter(_) => (n * ranks, n),
            CollectiveKind::Send { .. } => (n, 0),
            CollectiveKind::Recv { .. } => (0, n),
        }
    }
}

/// The collective library (NCCL on NVIDIA, RCCL on AMD), loaded at first use; a supertrait
/// of [`super::Platform`].
pub trait CollectiveLibrary {
    /// The library's name and version (e.g. "NCCL 2.27.3"), loading it if needed. A missing
    /// library is [`crate::HipError::LibraryNotFound`] saying what to install.
    fn collectives_version(&self) -> Result<String>;
    /// A new group id (`ncclGetUniqueId`), to be shared with every rank of the group.
    fn collective_id(&self) -> Result<CollectiveId>;
    /// Join group `id` as rank `rank` of `ranks` on `device` (`ncclCommInitRank`). Blocks
    /// until every rank has joined: ranks of one process call it from one thread each, or
    /// between [`CollectiveLibrary::group_start`] and [`CollectiveLibrary::group_end`].
    fn comm_init_rank(
        &self,
        device: DeviceId,
        ranks: usize,
        id: &CollectiveId,
        rank: usize,
    ) -> Result<CommHandle>;
    /// Destroy a communicator (`ncclCommDestroy`), once work enqueued with it has completed.
    fn comm_destroy(&self, comm: CommHandle) -> Result<()>;
    /// Start a group (`ncclGroupStart`): the collectives of several ranks enqueued from one
    /// thread until [`CollectiveLibrary::group_end`] are launched together.
    fn group_start(&self) -> Result<()>;
    /// End a group (`ncclGroupEnd`), launching its collectives.
    fn group_end(&self) -> Result<()>;
    /// Enqueue `call` for `comm`'s rank on `stream` (a stream of the communicator's device,
    /// from a thread bound to it). It completes once every rank has enqueued its part.
    ///
    /// # Safety
    /// `send` and `recv` must be allocations of the communicator's device holding
    /// [`CollectiveCall::extents`] bytes until the collective has run.
    unsafe fn collective(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()>;
}
