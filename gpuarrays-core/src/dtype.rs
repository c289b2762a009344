//! The run-time element-type tag. Every array, kernel description and capability query
//! speaks in `DType`s so that backends never need to be generic over Rust types.

use std::fmt;

/// The element types gpuarrays supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    /// IEEE binary16 ([`half::f16`]): 11 significant bits, up to 65504.
    F16,
    /// bfloat16 ([`half::bf16`]): f32's exponent range with 8 significant bits.
    BF16,
    F32,
    F64,
    /// `Complex<f32>`: two f32, real part first.
    C32,
    /// `Complex<f64>`: two f64, real part first.
    C64,
}

/// Broad families of element types, used by type rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DTypeKind {
    Bool,
    Unsigned,
    Signed,
    Float,
    Complex,
}

impl DType {
    /// Every element type, in a fixed order (used by the conformance suite and the CLI).
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
    ];

    /// NumPy-style short name: "bool", "u8", "i32", ..., "c64" (complex of two f32 is "c32").
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C32 => "c32",
            DType::C64 => "c64",
        }
    }

    /// Parses [`DType::name`].
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Size of one element in bytes (bool is stored as one byte holding 0 or 1).
    #[inline]
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C32 => 8,
            DType::C64 => 16,
        }
    }

    /// Required alignment of one element in bytes.
    pub const fn align(self) -> usize {
        match self {
            DType::C32 => 4,
            DType::C64 => 8,
            other => other.size(),
        }
    }

    pub const fn kind(self) -> DTypeKind {
        match self {
            DType::Bool => DTypeKind::Bool,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => DTypeKind::Unsigned,
            DType::I8 | DType::I16 | DType::I32 | DType::I64 => DTypeKind::Signed,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => DTypeKind::Float,
            DType::C32 | DType::C64 => DTypeKind::Complex,
        }
    }

    pub const fn is_bool(self) -> bool {
        matches!(self, DType::Bool)
    }
    /// Signed or unsigned integer (not bool).
    pub const fn is_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Unsigned | DTypeKind::Signed)
    }
    pub const fn is_signed_integer(self) -> bool {
        matches!(self.kind(), DTypeKind::Signed)
    }
    /// f16, bf16, f32 or f64.
    pub const fn is_float(self) -> bool {
        matches!(self.kind(), DTypeKind::Float)
    }
    /// f16 or bf16: stored in 16 bits, computed in f32 and rounded once to the storage type
    /// after every operation (see the guide's "Half precision").
    pub const fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }
    pub const fn is_complex(self) -> bool {
        matches!(self.kind(), DTypeKind::Complex)
    }
    /// Integer, float or complex: everything arithmetic applies to.
    pub const fn is_numeric(self) -> bool {
        !self.is_bool()
    }
    /// Has a total order usable by min/max/sort (everything except complex).
    pub const fn is_ordered(self) -> bool {
        !self.is_complex()
    }
    /// Uses 64-bit words (some adapters cannot do 64-bit integers or floats).
    pub const fn is_64bit(self) -> bool {
        matches!(self, DType::I64 | DType::U64 | DType::F64 | DType::C64)
    }

    /// The real counterpart of a complex type (`C32 -> F32`); other types map to themselves.
    pub const fn real(self) -> DType {
        match self {
            DType::C32 => DType::F32,
            DType::C64 => DType::F64,
            other => other,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
