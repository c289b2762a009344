//! What this backend can run: `supports(dtype, op)` answers.
//!
//! | types | storage | compute |
//! |---|---|---|
//! | bool, u8, i32, u32, f32, c32 | always | always (what is implemented) |
//! | f64, c64 | with SHADER_F64 | with SHADER_F64 |
//! | i64, u64 | with SHADER_INT64 | with SHADER_INT64 |
//! | i8, i16, u16, f16, bf16 | always | every adapter (no SHADER_F16 needed) |
//!
//! The narrow types are packed in 32-bit words, as WGSL has no 8- or 16-bit types
//! (`wgsl::types`): narrow integers are computed in i32/u32 and wrapped, halves in f32 and
//! rounded once per operation with integer operations on the bits (`wgsl::half`), so no
//! adapter feature is needed. Kernels writing them write whole words, or go through a
//! temporary of one word per element; scatters change their lane of a word by
//! compare-exchange loops.
//!
//! FFTs (`kernels::fft`) answer yes for f32/c32 and no for f64/c64 on every adapter; within
//! f32, lengths that are not powers of two are refused at dispatch with core's
//! `Error::Unsupported` (the answer depends on the lengths, which `supports` does not see).
//!
//! `find` answers yes for i64 on every adapter: it writes its i64 positions as pairs of
//! 32-bit words, without 64-bit arithmetic.
//!
//! Gathers and scatters (`kernels::indexing`) read their i64 index as two 32-bit words and
//! move data as words, and scatters add i64/u64 as two words with a carry, so they answer
//! yes for i64/u64 on every adapter, like `find`; f64/c64 need SHADER_F64 as everywhere
//! (adding them is f64 arithmetic). Every other type is yes; scatter-adding bool is refused
//! by the scatter itself (`Error::InvalidDType`, core's type rule, as on the host).
//!
//! | kind | bool, u8, i8, i16, u16, f16, bf16, i32, u32, f32, c32 | i64, u64 | f64, c64 |
//! |---|---|---|---|
//! | gather | yes | yes (no SHADER_INT64 needed) | with SHADER_F64 |
//! | scatter (store, add) | yes | yes (no SHADER_INT64 needed) | with SHADER_F64 |
//!
//! Every elementwise operation of f32 and f64 is computed to the conformance suite's
//! tolerances on every adapter: the transcendental functions (`exp`, `log`, `tanh`, `sin`,
//! `cos`, `pow`, normal draws) in software (`wgsl::math`, `wgsl::trig`, `wgsl::pow`),
//! because drivers' builtins are not accurate to the C library.

use gpuarrays_core::{DType, OpKind, Support};

use crate::context::Features;

/// Whether the operation kind is implemented at all (slices not yet built answer no).
pub(crate) fn implemented(_op: OpKind) -> bool {
    true
}

pub(crate) fn supports(features: Features, dtype: DType, op: OpKind) -> Support {
    if !implemented(op) {
        return Support::no(
            format!("{op} is not implemented by the wgpu backend yet"),
            Some("use the CPU or HIP backend for this operation"),
        );
    }
    if op == OpKind::Fft && matches!(dtype, DType::F64 | DType::C64) {
        return Support::no(
            "the wgpu FFT computes single precision only (c32/f32, power-of-two lengths)",
            Some("use c32/f32, or the CPU or HIP backend for double precision"),
        );
    }
    match dtype {
        DType::F64 | DType::C64 if !features.f64 => Support::no(
            "the adapter lacks SHADER_F64",
            Some(if dtype == DType::F64 {
                "use f32"
            } else {
                "use c32"
            }),
        ),
        DType::I64 | DType::U64 if !features.int64 => {
            if (op == OpKind::Find && dtype == DType::I64)
                || matches!(op, OpKind::Gather | OpKind::Scatter)
            {
                Support::Yes
            } else {
                Support::no(
                    "the adapter lacks SHADER_INT64",
                    Some(if dtype == DType::I64 {
                        "use i32"
                    } else {
                        "use u32"
                    }),
                )
            }
        }
        // Sorting f64 uses u64 keys.
        DType::F64 if op == OpKind::Sort && !features.int64 => Support::no(
            "sorting f64 needs SHADER_INT64 (64-bit sort keys), which the adapter lacks",
            Some("sort an f32 copy"),
        ),
        _ => Support::Yes,
    }
}
