//! Dispatch from a run-time `DType` to a generic function over the Rust element type.

/// The Rust type stored for a `DType` variant (bool is read as its byte, u8).
macro_rules! rust_type {
    (Bool) => {
        u8
    };
    (U8) => {
        u8
    };
    (I32) => {
        i32
    };
    (U32) => {
        u32
    };
    (I64) => {
        i64
    };
    (U64) => {
        u64
    };
    (F32) => {
        f32
    };
    (F64) => {
        f64
    };
    (C32) => {
        gpuarrays_core::Complex32
    };
    (C64) => {
        gpuarrays_core::Complex64
    };
}

/// `dispatch!(dtype, [U8, I32, ...], func(args...))` calls `func::<T>(args...)` for the
/// listed variants and returns an "invalid kernel" error for the others.
macro_rules! dispatch {
    ($dt:expr, [$($V:ident),*], $f:ident $args:tt) => {
        match $dt {
            $(gpuarrays_core::DType::$V => $f::<rust_type!($V)> $args,)*
            #[allow(unreachable_patterns)]
            other => Err(crate::error::invalid(format!("{} for {}", stringify!($f), other))),
        }
    };
}

pub(crate) use {dispatch, rust_type};
