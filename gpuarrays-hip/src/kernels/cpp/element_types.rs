//! Element types in generated C++: register and memory types, conversions between them, and
//! the literals (zero, one, extremes) kernels need.
//!
//! `bool` lives in memory as one byte holding 0 or 1 and in registers as C++ `bool`. f16 and
//! bf16 live in memory as their 16 bits (the header's `f16` and `bf16` structs) and in
//! registers as the f32 that holds them exactly: core's lowering computes every operation on
//! them in f32 and rounds once (`Convert` to a half prints `ga_round_f16`/`ga_round_bf16`,
//! which keep an f32 holding a half value), so loads widen, stores narrow exactly, and
//! comparisons, shuffles and the f32 accumulators of sums need nothing new. Every other type
//! is the same in both places (i8, i16 and u16 as C++'s narrow integers).

use gpuarrays_core::DType;

/// The register type of `d`. The kernel header names its typedefs (and the complex structs) after
/// `DType::name`, so the name is the C++ type; `codegen_syntax` compiles every use.
pub fn cty(d: DType) -> &'static str {
    match d {
        DType::F16 | DType::BF16 => "f32",
        other => other.name(),
    }
}

/// The memory type of `d` (bool is stored as `u8`, the halves as their bit structs).
pub fn mty(d: DType) -> &'static str {
    match d {
        DType::Bool => "u8",
        other => other.name(),
    }
}

/// Bytes of one register value of `d` (what a kernel's scratch holds per accumulator).
pub fn reg_size(d: DType) -> usize {
    match d {
        DType::F16 | DType::BF16 => 4,
        other => other.size(),
    }
}

/// Converts a memory value (an lvalue or expression of [`mty`]) to its register type.
pub fn load(d: DType, expr: &str) -> String {
    match d {
        DType::Bool => format!("({expr} != 0)"),
        DType::F16 | DType::BF16 => format!("ga_f32_of({expr})"),
        _ => expr.to_string(),
    }
}

/// Converts a register value to its memory type (bool becomes 0 or 1; a register holding a
/// half value narrows exactly).
pub fn store(d: DType, expr: &str) -> String {
    match d {
        DType::Bool => format!("(u8)({expr})"),
        DType::F16 => format!("ga_to_f16({expr})"),
        DType::BF16 => format!("ga_to_bf16({expr})"),
        _ => expr.to_string(),
    }
}

/// The additive identity. Floats use -0.0, the true IEEE identity (`-0.0 + x == x` for every
/// x, also `x == -0.0`), so a sum of one element returns that element bit for bit.
pub fn zero(d: DType) -> &'static str {
    match d {
        DType::Bool => "false",
        DType::U8 => "(u8)0",
        DType::I32 => "0",
        DType::I8 => "(i8)0",
        DType::I16 => "(i16)0",
        DType::U16 => "(u16)0",
        DType::F16 => "-0.0f",
        DType::BF16 => "-0.0f",
        DType::U32 => "0u",
        DType::I64 => "0LL",
        DType::U64 => "0ULL",
        DType::F32 => "-0.0f",
        DType::F64 => "-0.0",
        DType::C32 => "ga_c32(-0.0f, -0.0f)",
        DType::C64 => "ga_c64(-0.0, -0.0)",
    }
}

/// The multiplicative identity.
pub fn one(d: DType) -> &'static str {
    match d {
        DType::Bool => "true",
        DType::U8 => "(u8)1",
        DType::I32 => "1",
        DType::I8 => "(i8)1",
        DType::I16 => "(i16)1",
        DType::U16 => "(u16)1",
        DType::F16 => "1.0f",
        DType::BF16 => "1.0f",
        DType::U32 => "1u",
        DType::I64 => "1LL",
        DType::U64 => "1ULL",
        DType::F32 => "1.0f",
        DType::F64 => "1.0",
        DType::C32 => "ga_c32(1.0f, 0.0f)",
        DType::C64 => "ga_c64(1.0, 0.0)",
    }
}

/// The greatest value of an ordered type (+inf for floats): the identity of `min`.
pub fn greatest(d: DType) -> &'static str {
    match d {
        DType::Bool => "true",
        DType::U8 => "(u8)255",
        DType::I8 => "(i8)127",
        DType::I16 => "(i16)32767",
        DType::U16 => "(u16)65535",
        DType::F16 => "ga_inf_f32()",
        DType::BF16 => "ga_inf_f32()",
        DType::I32 => "2147483647",
        DType::U32 => "4294967295u",
        DType::I64 => "9223372036854775807LL",
        DType::U64 => "18446744073709551615ULL",
        DType::F32 => "ga_inf_f32()",
        DType::F64 => "ga_inf_f64()",
        DType::C32 | DType::C64 => "/* complex has no order */",
    }
}

/// The least value of an ordered type (-inf for floats): the identity of `max`.
pub fn least(d: DType) -> &'static str {
    match d {
        DType::Bool => "false",
        DType::U8 => "(u8)0",
        DType::I32 => "(-2147483647 - 1)",
        DType::I8 => "(i8)(-128)",
        DType::I16 => "(i16)(-32768)",
        DType::U16 => "(u16)0",
        DType::F16 => "(-ga_inf_f32())",
        DType::BF16 => "(-ga_inf_f32())",
        DType::U32 => "0u",
        DType::I64 => "(-9223372036854775807LL - 1)",
        DType::U64 => "0ULL",
        DType::F32 => "(-ga_inf_f32())",
        DType::F64 => "(-ga_inf_f64())",
        DType::C32 | DType::C64 => "/* complex has no order */",
    }
}

/// A stable short name for kernel and struct names ("f32", "c64", ...).
pub fn tag(d: DType) -> &'static str {
    d.name()
}
