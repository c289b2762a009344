//! Copies between two devices of one runtime: [`gpuarrays_core::Backend::copy_to_device`].
//!
//! The copy runs on the destination device's stream and reads the source's memory directly
//! when the pair has peer access ([`crate::runtime::PeerLinks`]: asked and enabled once per
//! pair), ordered on both devices by the protocol for operations across devices
//! ([`crate::device::enqueue_across`]). Devices that cannot reach each other, and handles of
//! two runtimes (two platforms), copy through host memory. One device to itself is a plain
//! device copy.

use super::HipBackend;
use super::checks::check_run;
use crate::backend::HipBuffer;
use crate::device::{DestinationSide, SourceSide, enqueue_across};
use crate::error::Result;
use crate::runtime::PeerRoute;
use gpuarrays_core::{Backend, DType};
use std::sync::Arc;

/// How one copy between devices went (for tests and benchmarks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceCopyRoute {
    /// Both buffers on one device: a device copy.
    SameDevice,
    /// A peer copy, device to device.
    Peer,
    /// Through host memory, with the reason.
    ThroughHost(String),
}

impl HipBackend {
    /// The route a copy from this backend's device to `to`'s takes.
    pub fn device_copy_route(&self, to: &HipBackend) -> DeviceCopyRoute {
        if !Arc::ptr_eq(self.runtime(), to.runtime()) {
            return DeviceCopyRoute::ThroughHost(
                "the two handles belong to different runtimes".into(),
            );
        }
        let (from_dev, to_dev) = (self.device_state().id(), to.device_state().id());
        if from_dev == to_dev {
            return DeviceCopyRoute::SameDevice;
        }
        // The copy runs on the destination's stream and reads the source's memory.
        match self.runtime().peer_route(to_dev, from_dev) {
            PeerRoute::Direct => DeviceCopyRoute::Peer,
            PeerRoute::ThroughHost(why) => DeviceCopyRoute::ThroughHost(why),
        }
    }

    pub(super) fn copy_to_device_inner(
        &self,
        src: &HipBuffer,
        src_byte_offset: usize,
        to: &HipBackend,
        dst: &HipBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> gpuarrays_core::Result<()> {
        let checked = check_run(src, DType::U8, src_byte_offset, bytes, "copy_to_device")
            .and_then(|()| check_run(dst, DType::U8, dst_byte_offset, bytes, "copy_to_device"));
        checked.map_err(|e| self.err(e))?;
        if bytes == 0 {
            return Ok(());
        }
        match self.device_copy_route(to) {
            DeviceCopyRoute::SameDevice => {
                self.copy(src, src_byte_offset, dst, dst_byte_offset, bytes)
            }
            DeviceCopyRoute::ThroughHost(_) => gpuarrays_core::host::copy_across(
                self,
                src,
                src_byte_offset,
                to,
                dst,
                dst_byte_offset,
                bytes,
            ),
            DeviceCopyRoute::Peer => self
                .peer_copy(src, src_byte_offset, to, dst, dst_byte_offset, bytes)
                .map_err(|e| self.err(e)),
        }
    }

    fn peer_copy(
        &self,
        src: &HipBuffer,
        src_byte_offset: usize,
        to: &HipBackend,
        dst: &HipBuffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        let (a, b) = (self.device_state(), to.device_state());
        let (stream_a, stream_b) = (a.thread_stream()?, b.thread_stream()?);
        let source = SourceSide {
            buffer: src.device_buffer(),
            stream: &stream_a,
        };
        let destination = DestinationSide {
            buffer: dst.device_buffer(),
            stream: &stream_b,
        };
        enqueue_across(source, destination, |s| {
            // SAFETY: both ranges were checked against their buffers' lengths; the buffers'
            // memory is reused only after the copy ran (the source's reader stream waits for
            // it, the destination's writer is the copy's stream); peer access from the
            // destination's device to the source's was enabled for this pair.
            unsafe {
                a.platform().copy_peer_async(
                    dst.ptr().offset(dst_byte_offset),
                    b.id(),
                    src.ptr().offset(src_byte_offset),
                    a.id(),
                    bytes,
                    s.handle(),
                )
            }
        })
    }
}
