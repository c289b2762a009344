//! What the kit needs of a device: byte storage, and a name for its messages.
//!
//! The kit's functions are written against [`HostStorage`] rather than [`crate::Backend`]:
//! the `Backend` trait's default methods call the kit, so a kit that named `Backend` would
//! make the two modules depend on each other. Every `Backend` is a `HostStorage` (the blanket
//! implementation sits next to the trait, in `backend.rs`), so a backend author calls
//! `host::elementwise(self, ...)` as before and never implements this trait by hand. The
//! method names differ from `Backend`'s so that having both traits in scope is never
//! ambiguous.

use crate::device::DeviceInfo;
use crate::error::Result;

/// Byte storage on a device, as the kit uses it: [`crate::Backend`]'s storage methods.
pub trait HostStorage {
    /// The device's buffer type ([`crate::Backend::Buffer`]).
    type Buffer;

    /// The backend's short name ([`crate::Backend::name`]).
    fn storage_name(&self) -> &'static str;

    /// The device ([`crate::Backend::device`]).
    fn storage_device(&self) -> &DeviceInfo;

    /// Allocates `bytes` bytes ([`crate::Backend::alloc`]).
    fn alloc_bytes(&self, bytes: usize) -> Result<Self::Buffer>;

    /// Releases a buffer ([`crate::Backend::release`]).
    fn release_buffer(&self, buffer: Self::Buffer);

    /// Copies bytes from the buffer to the host ([`crate::Backend::read`]).
    fn read_bytes(&self, src: &Self::Buffer, byte_offset: usize, dst: &mut [u8]) -> Result<()>;

    /// Copies host bytes into the buffer ([`crate::Backend::write`]).
    fn write_bytes(&self, dst: &Self::Buffer, byte_offset: usize, src: &[u8]) -> Result<()>;
}
