//! The C API that NCCL (NVIDIA) and RCCL (AMD) both export, as one hand-written table used
//! by both platforms' [`super::CollectiveLibrary`] implementations.
//!
//! Why by hand: RCCL is NCCL's API under the same names, enum values and struct layouts, with
//! `hipStream_t` where NCCL has `cudaStream_t` (both an opaque pointer), so one table serves
//! both vendors; no crate binds RCCL, and cudarc's NCCL binding resolves lazily (a missing
//! symbol panics) with its enums gated by NCCL version features. Only the calls used here
//! are declared, each as `nccl.h` (NCCL 2.18+, RCCL 2.18+ in ROCm 6) declares it; all but
//! `ncclBfloat16`'s value exist since NCCL 2.7.
//!
//! The library is opened at the first communicator, not at platform creation: most programs
//! never use collectives, and libnccl is large.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_void};

use super::loader::{LoadedLibrary, SymbolSpec, SymbolTable, fn_table, open_first};
use super::{
    CollectiveCall, CollectiveId, CollectiveKind, CollectiveType, CommHandle, PlatformKind,
    ReduceOp, StreamHandle,
};
use crate::error::{HipError, Result};

/// `ncclComm_t` (opaque pointer).
pub type NcclComm = *mut c_void;
/// `cudaStream_t` / `hipStream_t` (opaque pointer).
pub type NcclStream = *mut c_void;

/// `ncclUniqueId`: 128 bytes, passed by value to `ncclCommInitRank`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct NcclUniqueId {
    /// The id's bytes.
    pub internal: [c_char; 128],
}

/// The values of NCCL's enums used here (C enums: `int`), identical in RCCL.
pub mod values {
    /// `ncclSuccess`.
    pub const SUCCESS: i32 = 0;
    /// `ncclInProgress` (a non-blocking communicator still initialising).
    pub const IN_PROGRESS: i32 = 7;
    /// `ncclSum`, `ncclProd`, `ncclMax`, `ncclMin` (max before min).
    pub const SUM: i32 = 0;
    /// `ncclProd`.
    pub const PROD: i32 = 1;
    /// `ncclMax`.
    pub const MAX: i32 = 2;
    /// `ncclMin`.
    pub const MIN: i32 = 3;
}

fn_table!(NcclFns {
    ncclGetVersion: fn(*mut c_int) -> i32,
    ncclGetUniqueId: fn(*mut NcclUniqueId) -> i32,
    ncclCommInitRank: fn(*mut NcclComm, c_int, NcclUniqueId, c_int) -> i32,
    ncclCommDestroy: fn(NcclComm) -> i32,
    ncclGetErrorString: fn(i32) -> *const c_char,
    #[optional] ncclGetLastError: fn(NcclComm) -> *const c_char,
    ncclGroupStart: fn() -> i32,
    ncclGroupEnd: fn() -> i32,
    ncclAllReduce: fn(*const c_void, *mut c_void, usize, i32, i32, NcclComm, NcclStream) -> i32,
    ncclReduce: fn(*const c_void, *mut c_void, usize, i32, i32, c_int, NcclComm, NcclStream) -> i32,
    ncclBroadcast: fn(*const c_void, *mut c_void, usize, i32, c_int, NcclComm, NcclStream) -> i32,
    ncclAllGather: fn(*const c_void, *mut c_void, usize, i32, NcclComm, NcclStream) -> i32,
    ncclReduceScatter: fn(*const c_void, *mut c_void, usize, i32, i32, NcclComm, NcclStream) -> i32,
    ncclSend: fn(*const c_void, usize, i32, c_int, NcclComm, NcclStream) -> i32,
    ncclRecv: fn(*mut c_void, usize, i32, c_int, NcclComm, NcclStream) -> i32,
});

/// Every symbol of [`NcclFns`], for the loader's preflight.
const SYMBOLS: SymbolSpec = SymbolSpec {
    required: &[
        "ncclGetVersion",
        "ncclGetUniqueId",
        "ncclCommInitRank",
        "ncclCommDestroy",
        "ncclGetErrorString",
        "ncclGroupStart",
        "ncclGroupEnd",
        "ncclAllReduce",
        "ncclReduce",
        "ncclBroadcast",
        "ncclAllGather",
        "ncclReduceScatter",
        "ncclSend",
        "ncclRecv",
    ],
    // NCCL 2.13+: the last error's text, which says more than the code.
    optional: &["ncclGetLastError"],
};

/// `ncclDataType_t` of an element type.
pub fn data_type(t: CollectiveType) -> i32 {
    match t {
        CollectiveType::I8 => 0,
        CollectiveType::U8 => 1,
        CollectiveType::I32 => 2,
        CollectiveType::U32 => 3,
        CollectiveType::I64 => 4,
        CollectiveType::U64 => 5,
        CollectiveType::F16 => 6,
        CollectiveType::F32 => 7,
        CollectiveType::F64 => 8,
        CollectiveType::BF16 => 9,
    }
}

/// `ncclRedOp_t` of a reduction.
pub fn red_op(op: ReduceOp) -> i32 {
    match op {
        ReduceOp::Sum => values::SUM,
        ReduceOp::Prod => values::PROD,
        ReduceOp::Max => values::MAX,
        ReduceOp::Min => values::MIN,
    }
}

/// One loaded collective library (NCCL or RCCL) and its table.
#[derive(Debug)]
pub struct NcclLibrary {
    /// Keeps the library loaded (the table points into it).
    _lib: LoadedLibrary,
    fns: NcclFns,
    platform: PlatformKind,
    /// "NCCL" or "RCCL".
    name: &'static str,
}

/// Where to find the library and what to say when it is missing.
#[derive(Debug, Clone, Copy)]
pub struct NcclSource {
    /// The platform loading it.
    pub platform: PlatformKind,
    /// "NCCL" or "RCCL".
    pub name: &'static str,
    /// For messages, e.g. "NCCL (libnccl)".
    pub library: &'static str,
    /// What installs it.
    pub provider: &'static str,
    /// What to install or set when it is missing.
    pub hint: &'static str,
}

impl NcclLibrary {
    /// Open the first loadable of `candidates` and resolve every symbol.
    pub fn open(source: NcclSource, candidates: &[String]) -> Result<NcclLibrary> {
        let lib = open_first(
            source.platform,
            source.library,
            source.provider,
            candidates,
            source.hint,
        )?;
        let table =
            SymbolTable::resolve(source.platform, source.library, &lib, &SYMBOLS, source.hint)?;
        let fns = NcclFns::from_table(&table).ok_or_else(|| HipError::MissingSymbols {
            platform: source.platform,
            library: source.library,
            path: lib.path.clone(),
            missing: vec!["(table incomplete)".into()],
            hint: source.hint,
        })?;
        Ok(NcclLibrary {
            _lib: lib,
            fns,
            platform: source.platform,
            name: source.name,
        })
    }

    /// The error of a failed call, with the library's description (and its last error's
    /// text, when it has one).
    fn check(&self, call: &'static str, r: i32, comm: NcclComm) -> Result<()> {
        if r == values::SUCCESS {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString takes any result code and returns a static string.
        let text = unsafe { (self.fns.ncclGetErrorString)(r) };
        let mut message = cstr(text).unwrap_or_else(|| "no description".into());
        if let (Some(last), false) = (self.fns.ncclGetLastError, comm.is_null()) {
            // SAFETY: `comm` is a live communicator (the call just used it); the returned
            // string belongs to the library and is read at once.
            if let Some(detail) = cstr(unsafe { last(comm) }).filter(|d| !d.is_empty()) {
                message = format!("{message}: {detail}");
            }
        }
        Err(HipError::Api {
            platform: self.platform,
            call,
            code: r,
            name: format!("{} error {r}", self.name),
            message,
        })
    }

    /// "NCCL 2.27.3".
    pub fn version(&self) -> Result<String> {
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid out-pointer.
        let r = unsafe { (self.fns.ncclGetVersion)(&mut v) };
        self.check("ncclGetVersion", r, std::ptr::null_mut())?;
        // Since 2.9 the code is major·10000 + minor·100 + patch; before, major·1000 + ….
        let (major, minor, patch) = if v >= 10000 {
            (v / 10000, (v % 10000) / 100, v % 100)
        } else {
            (v / 1000, (v % 1000) / 100, v % 100)
        };
        Ok(format!("{} {major}.{minor}.{patch}", self.name))
    }

    /// A new group id.
    pub fn unique_id(&self) -> Result<CollectiveId> {
        let mut id = NcclUniqueId { internal: [0; 128] };
        // SAFETY: `id` is a valid out-pointer to a 128-byte ncclUniqueId.
        let r = unsafe { (self.fns.ncclGetUniqueId)(&mut id) };
        self.check("ncclGetUniqueId", r, std::ptr::null_mut())?;
        Ok(CollectiveId(id.internal.map(|c| c as u8)))
    }

    /// Join group `id` as `rank` of `ranks` on the calling thread's current device.
    pub fn init_rank(&self, ranks: usize, id: &CollectiveId, rank: usize) -> Result<CommHandle> {
        let (Ok(n), Ok(r)) = (c_int::try_from(ranks), c_int::try_from(rank)) else {
            return Err(HipError::InvalidArgument(format!(
                "a group of {ranks} ranks (rank {rank}) does not fit {}'s int",
                self.name
            )));
        };
        let id = NcclUniqueId {
            internal: id.0.map(|b| b as c_char),
        };
        let mut comm: NcclComm = std::ptr::null_mut();
        // SAFETY: `comm` is a valid out-pointer; the id is passed by value as declared.
        let r = unsafe { (self.fns.ncclCommInitRank)(&mut comm, n, id, r) };
        self.check("ncclCommInitRank", r, std::ptr::null_mut())?;
        Ok(CommHandle(comm as usize as u64))
    }

    /// Destroy a communicator.
    pub fn destroy(&self, comm: CommHandle) -> Result<()> {
        // SAFETY: the caller passes a communicator this library made, destroyed once.
        let r = unsafe { (self.fns.ncclCommDestroy)(raw(comm)) };
        self.check("ncclCommDestroy", r, std::ptr::null_mut())
    }

    /// `ncclGroupStart`.
    pub fn group_start(&self) -> Result<()> {
        // SAFETY: no arguments; the library keeps a per-thread group depth.
        let r = unsafe { (self.fns.ncclGroupStart)() };
        self.check("ncclGroupStart", r, std::ptr::null_mut())
    }

    /// `ncclGroupEnd`.
    pub fn group_end(&self) -> Result<()> {
        // SAFETY: as above.
        let r = unsafe { (self.fns.ncclGroupEnd)() };
        self.check("ncclGroupEnd", r, std::ptr::null_mut())
    }

    /// Enqueue `call` for `comm` on `stream`.
    ///
    /// # Safety
    /// As [`super::CollectiveLibrary::collective`]: the buffers hold the call's extents on
    /// the communicator's device until it has run, and the thread is bound to that device.
    pub unsafe fn enqueue(
        &self,
        comm: CommHandle,
        call: &CollectiveCall,
        stream: StreamHandle,
    ) -> Result<()> {
        let f = &self.fns;
        let (send, recv) = (
            call.send.0 as usize as *const c_void,
            call.recv.0 as usize as *mut c_void,
        );
        let (n, t, c, s) = (
            call.count,
            data_type(call.dtype),
            raw(comm),
            stream.0 as usize as NcclStream,
        );
        let rank_arg = |r: usize| {
            c_int::try_from(r)
                .map_err(|_| HipError::InvalidArgument(format!("rank {r} does not fit an int")))
        };
        // In every arm: the pointers and count describe the caller's device buffers (this
        // function's contract), the communicator is live, the argument order is nccl.h's.
        let r = match call.kind {
            CollectiveKind::AllReduce(op) => {
                // SAFETY: see above.
                unsafe { (f.ncclAllReduce)(send, recv, n, t, red_op(op), c, s) }
            }
            CollectiveKind::Reduce { op, root } => {
                let root = rank_arg(root)?;
                // SAFETY: see above.
                unsafe { (f.ncclReduce)(send, recv, n, t, red_op(op), root, c, s) }
            }
            CollectiveKind::Broadcast { root } => {
                let root = rank_arg(root)?;
                // SAFETY: see above.
                unsafe { (f.ncclBroadcast)(send, recv, n, t, root, c, s) }
            }
            CollectiveKind::AllGather => {
                // SAFETY: see above.
                unsafe { (f.ncclAllGather)(send, recv, n, t, c, s) }
            }
            CollectiveKind::ReduceScatter(op) => {
                // SAFETY: see above.
                unsafe { (f.ncclReduceScatter)(send, recv, n, t, red_op(op), c, s) }
            }
            CollectiveKind::Send { peer } => {
                let peer = rank_arg(peer)?;
                // SAFETY: see above.
                unsafe { (f.ncclSend)(send, n, t, peer, c, s) }
            }
            CollectiveKind::Recv { peer } => {
                let peer = rank_arg(peer)?;
                // SAFETY: see above.
                unsafe { (f.ncclRecv)(recv, n, t, peer, c, s) }
            }
        };
        self.check(call_name(call.kind), r, c)
    }
}

/// The C function a collective kind calls, for errors.
fn call_name(kind: CollectiveKind) -> &'static str {
    match kind {
        CollectiveKind::AllReduce(_) => "ncclAllReduce",
        CollectiveKind::Reduce { .. } => "ncclReduce",
        CollectiveKind::Broadcast { .. } => "ncclBroadcast",
        CollectiveKind::AllGather => "ncclAllGather",
        CollectiveKind::ReduceScatter(_) => "ncclReduceScatter",
        CollectiveKind::Send { .. } => "ncclSend",
        CollectiveKind::Recv { .. } => "ncclRecv",
    }
}

fn raw(comm: CommHandle) -> NcclComm {
    comm.0 as usize as NcclComm
}

fn cstr(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the library returns NUL-terminated strings it owns, valid during this call.
    Some(
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned(),
    )
}
