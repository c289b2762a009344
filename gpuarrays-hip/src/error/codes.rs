//! Error codes that HIP and CUDA share (HIP copied CUDA's numbering).

/// Success.
pub const SUCCESS: i32 = 0;
/// Invalid value.
pub const INVALID_VALUE: i32 = 1;
/// Out of memory (`hipErrorOutOfMemory`, `CUDA_ERROR_OUT_OF_MEMORY`).
pub const OUT_OF_MEMORY: i32 = 2;
/// Invalid (e.g. destroyed) handle.
pub const INVALID_HANDLE: i32 = 400;
/// Work not yet complete (not an error).
pub const NOT_READY: i32 = 600;
/// Illegal address in a kernel.
pub const ILLEGAL_ADDRESS: i32 = 700;
/// The context was destroyed.
pub const CONTEXT_IS_DESTROYED: i32 = 709;
/// A kernel failed.
pub const LAUNCH_FAILURE: i32 = 719;
/// The operation is not permitted while capturing.
pub const STREAM_CAPTURE_UNSUPPORTED: i32 = 900;
/// The capture was invalidated by an operation not permitted during it (e.g. a device
/// synchronisation); ending it fails with this code.
pub const STREAM_CAPTURE_INVALIDATED: i32 = 901;
/// A global or thread-local capture was ended by a thread other than the one that began
/// it (CUDA driver 580 ends the capture all the same; see `Stream::end_capture`).
pub const STREAM_CAPTURE_WRONG_THREAD: i32 = 908;
