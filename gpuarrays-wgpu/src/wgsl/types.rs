//! How element types live in WGSL: the value type a kernel computes with, the storage
//! array a buffer is bound as, and the load/store expressions between them.
//!
//! | dtype | value type | bound as | unit (what offsets count) |
//! |---|---|---|---|
//! | bool | `bool` | `array<u32>`, one byte per element | byte |
//! | u8 | `u32` holding 0..=255 | `array<u32>`, one byte per element | byte |
//! | i32, u32, f32 | `i32`, `u32`, `f32` | `array<u32>` (bitcast) | element |
//! | c32 | `vec2<f32>` | `array<u32>`, two words | f32 part |
//! | i64, u64 | `i64`, `u64` | `array<u64>` (SHADER_INT64) | element |
//! | f64 | `f64` | `array<f64>` (SHADER_F64) | element |
//! | c64 | `vec2<f64>` | `array<f64>`, two parts | f64 part |
//!
//! Offsets and strides passed to kernels are in units, relative to the start of the bound
//! window. Bytes are never stored one at a time (two threads would race on a word): kernels
//! writing bool/u8 write whole words (see `kernels::elementwise` and `kernels::pack`).

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

/// Whether elements are single bytes packed in words.
pub const fn is_byte(d: DType) -> bool {
    matches!(d, DType::Bool | DType::U8)
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
        DType::U8 | DType::U32 => "u32",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::U64 => "u64",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C32 => "vec2<f32>",
        DType::C64 => "vec2<f64>",
        // `capability::supports` refuses every kernel of these types; a name no WGSL
        // type has makes a shader that reaches here fail validation instead of running.
        DType::I8 | DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
            "no_wgsl_type_for_this_dtype"
        }
    }
}

/// The expression loading the element at unit index `i` (a u32 expression) of binding `b`.
pub fn load(d: DType, b: &str, i: &str) -> String {
    match d {
        DType::Bool => format!("((({b}[({i}) >> 2u] >> ((({i}) & 3u) * 8u)) & 0xffu) != 0u)"),
        DType::U8 => format!("(({b}[({i}) >> 2u] >> ((({i}) & 3u) * 8u)) & 0xffu)"),
        DType::U32 | DType::F64 | DType::U64 => format!("{b}[{i}]"),
        DType::I32 => format!("bitcast<i32>({b}[{i}])"),
        DType::F32 => format!("bitcast<f32>({b}[{i}])"),
        DType::I64 => format!("bitcast<i64>({b}[{i}])"),
        DType::C32 => format!("vec2<f32>(bitcast<f32>({b}[{i}]), bitcast<f32>({b}[({i}) + 1u]))"),
        DType::C64 => format!("vec2<f64>({b}[{i}], {b}[({i}) + 1u])"),
        DType::I8 | DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
            format!("no_wgsl_load_for_{}({b}[{i}])", d.name())
        }
    }
}

/// The statement storing value `v` at unit index `i` of binding `b` (not for byte types:
/// those store whole words).
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
        // Callers pack bytes into words themselves.
        DType::Bool => format!("/* byte store */ {b}[{i}] = select(0u, 1u, {v});"),
        DType::U8 => format!("/* byte store */ {b}[{i}] = {v};"),
        DType::I8 | DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
            format!("no_wgsl_store_for_{}({b}[{i}], {v});", d.name())
        }
    }
}

/// The byte (0..=255, as u32) a bool or u8 value is stored as.
pub fn byte_of(d: DType, v: &str) -> String {
    if d == DType::Bool {
        format!("select(0u, 1u, {v})")
    } else {
        format!("(({v}) & 0xffu)")
    }
}

/// A WGSL literal of type `d` for a small integer value `v` (0, 1, -1, ...).
pub fn lit(d: DType, v: i64) -> String {
    match d {
        DType::Bool => (v != 0).to_string(),
        DType::U8 | DType::U32 => format!("{}u", v as u32),
        DType::I32 => {
            if v == i32::MIN as i64 {
                "i32(-2147483647 - 1)".to_string()
            } else {
                format!("i32({v})")
            }
        }
        DType::I64 => format!("i64({v}li)"),
        DType::U64 => format!("{}lu", v as u64),
        DType::F32 => format!("f32({v}.0)"),
        DType::F64 => format!("f64({v}.0lf)"),
        DType::C32 => format!("vec2<f32>({v}.0, 0.0)"),
        DType::C64 => format!("vec2<f64>({v}.0lf, 0.0lf)"),
        DType::I8 | DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
            format!("no_wgsl_literal_for_{}({v})", d.name())
        }
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
        DType::I32 => ("i32(-2147483647 - 1)".into(), "2147483647i".into()),
        DType::U32 => ("0u".into(), "4294967295u".into()),
        DType::I64 => (
            "(-9223372036854775807li - 1li)".into(),
            "9223372036854775807li".into(),
        ),
        _ => ("0lu".into(), "18446744073709551615lu".into()),
    }
}
