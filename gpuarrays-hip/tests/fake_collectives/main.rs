//! The platform test double's peer copies and collective library, through the `Platform`
//! trait: collectives of every layout computed as NCCL defines them (checked against values
//! computed here), from one thread inside a group or from one thread per rank; in place;
//! in the half types (accumulated in f32, rounded once); point-to-point pairs; disagreeing
//! ranks and missing ranks failing instead of hanging; peer copies, peer access and the
//! staged (host) path; and a machine without the library.

use gpuarrays_core::{bf16, f16};
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::platform::{
    CollectiveCall, CollectiveKind, CollectiveLibrary, CollectiveType, CommHandle, DeviceId,
    DevicePtr, GraphCapture, PeerAccess, ReduceOp, StreamHandle,
};
use gpuarrays_hip::{HipError, Platform};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod joins_and_failures;
mod peers;
mod results;

const D0: DeviceId = DeviceId(0);
const D1: DeviceId = DeviceId(1);

fn fake(devices: usize) -> FakePlatform {
    FakePlatform::new(FakeConfig {
        devices,
        ..FakeConfig::default()
    })
}

/// One rank: its device, a stream of it and its communicator.
#[derive(Clone, Copy)]
struct Rank {
    dev: DeviceId,
    stream: StreamHandle,
    comm: CommHandle,
}

/// `n` ranks, rank `r` on device `r`, joined from this thread inside one group.
fn ranks_grouped(p: &FakePlatform, n: usize) -> Vec<Rank> {
    let id = p.collective_id().unwrap();
    p.group_start().unwrap();
    let ranks = (0..n)
        .map(|r| {
            let dev = DeviceId(r);
            let comm = p.comm_init_rank(dev, n, &id, r).unwrap();
            let stream = p.create_stream(dev, 0).unwrap();
            Rank { dev, stream, comm }
        })
        .collect();
    p.group_end().unwrap();
    ranks
}

/// Device memory of `r`'s device holding `bytes`.
fn upload(p: &FakePlatform, r: Rank, bytes: &[u8]) -> DevicePtr {
    p.bind_device(r.dev).unwrap();
    let ptr = p.alloc_async(bytes.len(), r.stream).unwrap();
    // SAFETY: `bytes` is readable for its length; the pageable copy reads it at once.
    unsafe { p.copy_htod_async(ptr, bytes.as_ptr() as *const c_void, bytes.len(), r.stream) }
        .unwrap();
    ptr
}

/// What `n` bytes at `ptr` hold once `r`'s stream has completed its work.
fn download(p: &FakePlatform, r: Rank, ptr: DevicePtr, n: usize) -> Vec<u8> {
    p.bind_device(r.dev).unwrap();
    p.synchronize_stream(r.stream).unwrap();
    let mut out = vec![0u8; n];
    // SAFETY: `out` is writable for `n` bytes; the pageable copy writes it at once.
    unsafe { p.copy_dtoh_async(out.as_mut_ptr() as *mut c_void, ptr, n, r.stream) }.unwrap();
    p.synchronize_stream(r.stream).unwrap();
    out
}

/// Enqueue `r`'s part of a collective (binding the thread to its device first).
fn coll(p: &FakePlatform, r: Rank, call: CollectiveCall) -> Result<(), HipError> {
    p.bind_device(r.dev).unwrap();
    // SAFETY: every test passes allocations of `r`'s device that hold the call's extents and
    // stay allocated until the test ends.
    unsafe { p.collective(r.comm, &call, r.stream) }
}

fn call(kind: CollectiveKind, send: DevicePtr, recv: DevicePtr, count: usize) -> CollectiveCall {
    let dtype = CollectiveType::F32;
    CollectiveCall {
        kind,
        send,
        recv,
        count,
        dtype,
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn from_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn from_i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
