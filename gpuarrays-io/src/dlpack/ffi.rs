//! The DLPack C structs (`dlpack.h`, v1.x), written out by hand.
//!
//! Why by hand: the whole ABI is six small `#[repr(C)]` structs and a few constants, and the
//! crates that carry them (`dlpark`, `dlpack-rs`) add their own tensor traits and, behind
//! features, PyO3 — more to review than these sixty lines. The layout is checked against
//! the header's by the tests at the end (offsets computed by hand for 64-bit targets).

use std::ffi::c_void;

/// The version this crate produces (`DLPACK_MAJOR_VERSION`, `DLPACK_MINOR_VERSION`): 1.0,
/// the version every DLPack 1.x consumer accepts.
pub const DLPACK_VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 0 };

/// `kDLCPU`: host memory.
pub const KDL_CPU: i32 = 1;
/// `kDLCUDA`: NVIDIA device memory.
pub const KDL_CUDA: i32 = 2;
/// `kDLCUDAHost`: pinned host memory allocated through CUDA.
pub const KDL_CUDA_HOST: i32 = 3;
/// `kDLROCM`: AMD device memory.
pub const KDL_ROCM: i32 = 10;

/// `kDLInt`: signed integers.
pub const KDL_INT: u8 = 0;
/// `kDLUInt`: unsigned integers.
pub const KDL_UINT: u8 = 1;
/// `kDLFloat`: IEEE floats.
pub const KDL_FLOAT: u8 = 2;
/// `kDLBfloat`: bfloat16.
pub const KDL_BFLOAT: u8 = 4;
/// `kDLComplex`: complex numbers (`bits` counts both parts).
pub const KDL_COMPLEX: u8 = 5;
/// `kDLBool`: booleans (8 bits each).
pub const KDL_BOOL: u8 = 6;

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write the tensor.
pub const FLAG_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the producer made a copy for this exchange.
pub const FLAG_IS_COPIED: u64 = 1 << 1;
/// `DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED` (v1.1).
pub const FLAG_IS_SUBBYTE_TYPE_PADDED: u64 = 1 << 2;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version; a consumer refuses a major version it does not know.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

/// `DLDevice`: where the memory is.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` (a C enum: `int` on every platform DLPack supports).
    pub device_type: i32,
    /// The device's ordinal within its type (0 for the CPU).
    pub device_id: i32,
}

/// `DLDataType`: the element type.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode` (`kDLInt`, `kDLFloat`, ...).
    pub code: u8,
    /// Bits of one lane.
    pub bits: u8,
    /// Lanes per element (1 for scalars; gpuarrays has no vector types).
    pub lanes: u16,
}

/// `DLTensor`: a strided view of memory.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// The base address (device memory for device types; with `byte_offset` added, the
    /// address of element `(0, .., 0)`).
    pub data: *mut c_void,
    /// Where `data` lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for a compact row-major tensor.
    pub strides: *mut i64,
    /// Bytes from `data` to element `(0, .., 0)`.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the unversioned (pre-1.0, "legacy") owner of a `DLTensor`.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when it is done; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the owner of a `DLTensor` since DLPack 1.0.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The producer's DLPack version.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer when it is done; may be null.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// `DLPACK_FLAG_BITMASK_*`.
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// Offsets from `dlpack.h` on a 64-bit target (pointers 8 bytes, `int` 4).
    #[test]
    fn layout_matches_the_c_header() {
        assert_eq!((size_of::<DLDevice>(), size_of::<DLDataType>()), (8, 4));
        assert_eq!(size_of::<DLPackVersion>(), 8);
        // DLTensor: data 0, device 8, ndim 16, dtype 20, shape 24, strides 32, byte_offset 40.
        assert_eq!(offset_of!(DLTensor, data), 0);
        assert_eq!(offset_of!(DLTensor, device), 8);
        assert_eq!(offset_of!(DLTensor, ndim), 16);
        assert_eq!(offset_of!(DLTensor, dtype), 20);
        assert_eq!(offset_of!(DLTensor, shape), 24);
        assert_eq!(offset_of!(DLTensor, strides), 32);
        assert_eq!(offset_of!(DLTensor, byte_offset), 40);
        assert_eq!(size_of::<DLTensor>(), 48);
        // DLManagedTensor: dl_tensor 0, manager_ctx 48, deleter 56.
        assert_eq!(offset_of!(DLManagedTensor, manager_ctx), 48);
        assert_eq!(offset_of!(DLManagedTensor, deleter), 56);
        assert_eq!(size_of::<DLManagedTensor>(), 64);
        // DLManagedTensorVersioned: version 0, manager_ctx 8, deleter 16, flags 24, dl_tensor 32.
        assert_eq!(offset_of!(DLManagedTensorVersioned, manager_ctx), 8);
        assert_eq!(offset_of!(DLManagedTensorVersioned, deleter), 16);
        assert_eq!(offset_of!(DLManagedTensorVersioned, flags), 24);
        assert_eq!(offset_of!(DLManagedTensorVersioned, dl_tensor), 32);
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
        assert_eq!(offset_of!(DLDataType, lanes), 2);
        assert_eq!(offset_of!(DLDevice, device_id), 4);
    }
}
