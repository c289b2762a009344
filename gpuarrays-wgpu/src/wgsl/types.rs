//! How element types live in WGSL: the value type a kernel computes with, the storage
//! array a buffer is bound as, and the load/store expressions between them.
//!
//! | dtype | value type | bound as | unit (what offsets count) |
//! |---|---|---|---|
//! | bool | `bool` | `array<u32>`, one byte per element | byte |
//! | u8 | `u32` holding 0..=255 | `array<u32>`, one byte per element | byte |
//! | i8 | `i32` holding -128..=127 | `array<u32>`, one byte per element | byte |
//! | i16, u16 | `i32`, `u32` holding the type's range | `array<u32>`, two bytes per element | element |
//! | f16, bf16 | `f32` holding a value of the type exactly | `array<u32>`, two bytes per element | element |
//! | i32, u32, f32 | `i32`, `u32`, `f32` | `array<u32>` (bitcast) | element |
//! | c32 | `vec2<f32>` | `array<u32>`, two words | f32 part |
//! | i64, u64 | `i64`, `u64` | `array<u64>` (SHADER_INT64) | element |
//! | f64 | `f64` | `array<f64>` (SHADER_F64) | element |
//! | c64 | `vec2<f64>` | `array<f64>`, two parts | f64 part |
//!
//! Offsets and strides passed to kernels are in units, relative to the start of the bound
//! window. Elements narrower than a word (*packed* types: 1- and 2-byte ones) are never
//! stored one at a time (two threads would race on a word): kernels writing them write whole
//! words (`kernels::elementwise`), and other kernels write a 32-bit temporary that an
//! elementwise cast packs (`kernels::temp`). Arithmetic on the narrow integers wraps to their
//! width after each operation; halves are computed in f32 (core widens them) and rounded
//! once per operation to nearest even (`wgsl::half`), as on every backend.

use gpuarrays_core::DType;

/// The element type of a storage binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// `array<u32>`.
    W32,
    /// `array<f64>`.
    F64,
    /// `array<u64>`.
    U64,
    /// `array<vec4<u32>>`: four 32-bit elements per load or store (contiguous operands of
    /// the vectorised elementwise kernels, reductions and scans).
    V4,
    /// `array<atomic<u32>>`: words updated with atomics (the targets of scatters); always
    /// bound read-write.
    A32,
}

impl Class {
    pub fn of(d: DType) -> Class {
        match d {
            DType::F64 | DType::C64 => Class::F64,
            DType::I64 | DType::U64 => Class::U64,
            _ => Class::W32,
        }
    }

    pub const fn wgsl(self) -> &'static str {
        match self {
            Class::W32 => "u32",
            Class::F64 => "f64",
            Class::U64 => "u64",
            Class::V4 => "vec4<u32>",
            Class::A32 => "atomic<u32>",
        }
    }

    /// Bytes of one array element of the binding.
    pub const fn bytes(self) -> u64 {
        match self {
            Class::W32 | Class::A32 => 4,
            Class::F64 | Class::U64 => 8,
            Class::V4 => 16,
        }
    }
}

/// Elements per 32-bit word of a packed type (1, 2 or 4 bytes per element); 1 otherwise.
pub const fn per_word(d: DType) -> u32 {
    match d {
        DType::Bool | DType::U8 | DType::I8 => 4,
        DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
        _ => 1,
    }
}

/// Whether several elements share one 32-bit word (so a kernel writes them a word at a time).
pub const fn is_packed(d: DType) -> bool {
    per_word(d) > 1
}

/// Bytes of one unit (see the module table).
pub const fn unit_bytes(d: DType) -> u64 {
    match d {
        DType::C32 => 4,
        DType::C64 => 8,
        other => other.size() as u64,
    }
}

/// Units per element (2 for complex).
pub const fn units(d: DType) -> u32 {
    if d.is_complex() { 2 } else { 1 }
}

/// The WGSL value type.
pub const fn ty(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 | DType::U16 | DType::U32 => "u32",
        DType::I8 | DType::I16 | DType::I32 => "i32",
        DType::F16 | DType::BF16 => "f32",
        DType::I64 => "i64",
        DType::U64 => "u64",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C32 => "vec2<f32>",
        DType::C64 => "vec2<f64>",
    }
}

/// The expression of the packed element at index `i` of binding `b`, as a u32 holding its
/// bits (low 8 or 16 bits).
pub fn packed_bits(d: DType, b: &str, i: &str) -> String {
    if per_word(d) == 4 {
        format!("(({b}[({i}) >> 2u] >> ((({i}) & 3u) * 8u)) & 0xffu)")
    } else {
        format!("(({b}[({i}) >> 1u] >> ((({i}) & 1u) * 16u)) & 0xffffu)")
    }
}

/// The expression loading the element at unit index `i` (a u32 expression) of binding `b`.
pub fn load(d: DType, b: &str, i: &str) -> String {
    match d {
        DType::Bool
        | DType::U8
        | DType::I8
        | DType::U16
        | DType::I16
        | DType::F16
        | DType::BF16 => from_bits(d, &packed_bits(d, b, i)),
        DType::U32 | DType::F64 | DType::U64 => format!("{b}[{i}]"),
        DType::I32 => format!("bitcast<i32>({b}[{i}])"),
        DType::F32 => format!("bitcast<f32>({b}[{i}])"),
        DType::I64 => format!("bitcast<i64>({b}[{i}])"),
        DType::C32 => format!("vec2<f32>(bitcast<f32>({b}[{i}]), bitcast<f32>({b}[({i}) + 1u]))"),
        DType::C64 => format!("vec2<f64>({b}[{i}], {b}[({i}) + 1u])"),
    }
}

/// The statement storing value `v` at unit index `i` of binding `b` (not for packed types:
/// those store whole words, see [`bits_of`]).
pub fn store(d: DType, b: &str, i: &str, v: &str) -> String {
    match d {
        DType::U32 | DType::F64 | DType::U64 => format!("{b}[{i}] = {v};"),
        DType::I32 | DType::F32 | DType::I64 => {
            let bits = if d == DType::I64 { "u64" } else { "u32" };
            format!("{b}[{i}] = bitcast<{bits}>({v});")
        }
        DType::C32 => format!(
            "{{ let z = {v}; {b}[{i}] = bitcast<u32>(z.x); {b}[({i}) + 1u] = bitcast<u32>(z.y); }}"
        ),
        DType::C64 => format!("{{ let z = {v}; {b}[{i}] = z.x; {b}[({i}) + 1u] = z.y; }}"),
        // Callers pack narrow elements into words themselves.
        DType::Bool
        | DType::U8
        | DType::I8
        | DType::I16
        | DType::U16
        | DType::F16
        | DType::BF16 => {
            format!("/* packed store */ {b}[{i}] = {};", bits_of(d, v))
        }
    }
}

/// The bits (in the low 8 or 16 bits of a u32, the rest zero) a value of packed type `d` is
/// stored as. A half value is one of the type's values already (rounded by the operation
/// that made it), so converting it is exact.
pub fn bits_of(d: DType, v: &str) -> String {
    match d {
        DType::Bool => format!("select(0u, 1u, {v})"),
        DType::I8 => format!("(bitcast<u32>({v}) & 0xffu)"),
        DType::I16 => format!("(bitcast<u32>({v}) & 0xffffu)"),
        DType::U16 => format!("(({v}) & 0xffffu)"),
        DType::F16 => format!("ga_f2h({v})"),
        DType::BF16 => format!("ga_f2bf({v})"),
        _ => format!("(({v}) & 0xffu)"),
    }
}

/// The value (of [`ty`]`(d)`) of a packed element of type `d` from `bits`, a u32 holding its
/// bits in the low 8 or 16 (the inverse of [`bits_of`]).
pub fn from_bits(d: DType, bits: &str) -> String {
    match d {
        DType::Bool => format!("({bits} != 0u)"),
        // Sign extension: the element's bits to the top of the word, then back.
        DType::I8 => format!("(bitcast<i32>({bits} << 24u) >> 24u)"),
        DType::I16 => format!("(bitcast<i32>({bits} << 16u) >> 16u)"),
        DType::F16 => format!("ga_h2f({bits})"),
        DType::BF16 => format!("bitcast<f32>({bits} << 16u)"),
        _ => bits.to_string(),
    }
}

/// A WGSL literal of type `d` for a small integer value `v` (0, 1, -1, ...).
pub fn lit(d: DType, v: i64) -> String {
    match d {
        DType::Bool => (v != 0).to_string(),
        DType::U8 | DType::U16 | DType::U32 => format!("{}u", v as u32),
        DType::I8 | DType::I16 => format!("i32({v})"),
        DType::I32 => {
            if v == i32::MIN as i64 {
                "i32(-2147483647 - 1)".to_string()
            } else {
                format!("i32({v})")
            }
        }
        DType::I64 => format!("i64({v}li)"),
        DType::U64 => format!("{}lu", v as u64),
        DType::F32 | DType::F16 | DType::BF16 => format!("f32({v}.0)"),
        DType::F64 => format!("f64({v}.0lf)"),
        DType::C32 => format!("vec2<f32>({v}.0, 0.0)"),
        DType::C64 => format!("vec2<f64>({v}.0lf, 0.0lf)"),
    }
}

/// An f32 literal for a finite value (exact: printed with enough digits to round-trip).
pub fn f32_lit(x: f32) -> String {
    format!("bitcast<f32>({:#010x}u)", x.to_bits())
}

/// An f64 literal for a finite value (Rust's shortest round-trip form, with `lf`).
pub fn f64_lit(x: f64) -> String {
    let s = format!("{x:e}");
    format!("f64({s}lf)")
}

/// The smallest and largest values of an integer type, as literals of that type.
pub fn int_bounds(d: DType) -> (String, String) {
    match d {
        DType::U8 => ("0u".into(), "255u".into()),
        DType::I8 => ("i32(-128)".into(), "i32(127)".into()),
        DType::I16 => ("i32(-32768)".into(), "i32(32767)".into()),
        DType::U16 => ("0u".into(), "65535u".into()),
        DType::I32 => ("i32(-2147483647 - 1)".into(), "2147483647i".into()),
        DType::U32 => ("0u".into(), "4294967295u".into()),
        DType::I64 => (
            "(-9223372036854775807li - 1li)".into(),
            "9223372036854775807li".into(),
        ),
        _ => ("0lu".into(), "18446744073709551615lu".into()),
    }
}
