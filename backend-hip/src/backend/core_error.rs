//! `HipError` → `gpuarrays_core::Error`: out-of-memory keeps its numbers (bytes requested and
//! free), everything else becomes `Error::Backend` with the HIP error as its source.

use gpuarrays_core::{DeviceInfo, Error};

use crate::error::HipError;

/// The core error for `e`, raised on `device`.
pub fn to_core(device: &DeviceInfo, e: HipError) -> Error {
    match e {
        HipError::OutOfMemory {
            requested,
            free,
            total,
            released,
            ..
        } => Error::OutOfMemory {
            device: device.to_string(),
            requested,
            free,
            hint: Some(format!(
                "{total} bytes in total; {released} cached bytes were released and the \
                 allocation retried; free arrays you no longer need or use smaller batches"
            )),
        },
        other => Error::backend("hip", other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::DeviceId;

    #[test]
    fn out_of_memory_keeps_its_numbers() {
        let dev = DeviceInfo {
            backend: "hip",
            id: 1,
            ordinal: 0,
            name: "test".into(),
        };
        let e = to_core(
            &dev,
            HipError::OutOfMemory {
                device: DeviceId(0),
                requested: 100,
                free: 7,
                total: 50,
                released: 3,
            },
        );
        match e {
            Error::OutOfMemory {
                requested, free, ..
            } => assert_eq!((requested, free), (100, 7)),
            other => panic!("{other}"),
        }
        let e = to_core(&dev, HipError::InvalidArgument("x".into()));
        assert!(matches!(e, Error::Backend { .. }), "{e}");
    }
}
