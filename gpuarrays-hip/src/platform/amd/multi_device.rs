//! TEMPORARY: replaced by the fake peer copies and collectives.
use super::AmdPlatform;
use crate::error::{HipError, Result};
use crate::platform::{
    CollectiveCall, CollectiveId, CollectiveLibrary, CommHandle, DeviceId, DevicePtr, PeerAccess,
    StreamHandle,
};

fn todo_err() -> HipError {
    HipError::InvalidArgument("not yet".into())
}

impl PeerAccess for AmdPlatform {
    fn can_access_peer(&self, _device: DeviceId, _peer: DeviceId) -> Result<bool> {
        Err(todo_err())
    }
    fn enable_peer_access(&self, _device: DeviceId, _peer: DeviceId) -> Result<()> {
        Err(todo_err())
    }
    unsafe fn copy_peer_async(
        &self,
        _dst: DevicePtr,
        _dst_device: DeviceId,
        _src: DevicePtr,
        _src_device: DeviceId,
        _bytes: usize,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(todo_err())
    }
}

impl CollectiveLibrary for AmdPlatform {
    fn collectives_version(&self) -> Result<String> {
        Err(todo_err())
    }
    fn collective_id(&self) -> Result<CollectiveId> {
        Err(todo_err())
    }
    fn comm_init_rank(
        &self,
        _device: DeviceId,
        _ranks: usize,
        _id: &CollectiveId,
        _rank: usize,
    ) -> Result<CommHandle> {
        Err(todo_err())
    }
    fn comm_destroy(&self, _comm: CommHandle) -> Result<()> {
        Err(todo_err())
    }
    fn group_start(&self) -> Result<()> {
        Err(todo_err())
    }
    fn group_end(&self) -> Result<()> {
        Err(todo_err())
    }
    unsafe fn collective(
        &self,
        _comm: CommHandle,
        _call: &CollectiveCall,
        _stream: StreamHandle,
    ) -> Result<()> {
        Err(todo_err())
    }
}
