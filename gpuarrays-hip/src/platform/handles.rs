//! Plain handle newtypes shared by every platform implementation.
//!
//! A handle is the raw platform object as an integer (a `CUstream` / `hipStream_t` pointer,
//! a `CUdeviceptr`, ...). Handles carry no ownership: whoever created one destroys it.

use std::fmt;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.0)
            }
        }
    };
}

handle!(
    /// A stream (`CUstream` / `hipStream_t`).
    StreamHandle
);
handle!(
    /// An event (`CUevent` / `hipEvent_t`).
    EventHandle
);
handle!(
    /// A device address (`CUdeviceptr` / `hipDeviceptr_t`).
    DevicePtr
);
handle!(
    /// A loaded module (`CUmodule` / `hipModule_t`).
    ModuleHandle
);
handle!(
    /// A kernel function of a loaded module (`CUfunction` / `hipFunction_t`).
    FunctionHandle
);
handle!(
    /// A captured graph (`CUgraph` / `hipGraph_t`).
    GraphHandle
);
handle!(
    /// An instantiated graph (`CUgraphExec` / `hipGraphExec_t`).
    GraphExecHandle
);
handle!(
    /// A vendor BLAS handle (`cublasHandle_t` / `rocblas_handle`), bound to the device that was
    /// current when it was created.
    BlasHandle
);

impl DevicePtr {
    /// The address `bytes` further on.
    pub fn offset(self, bytes: usize) -> DevicePtr {
        DevicePtr(self.0 + bytes as u64)
    }
}
