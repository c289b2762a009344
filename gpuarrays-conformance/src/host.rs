//! Host-side arrays of any element type: what cases are generated as, what backends'
//! results are downloaded into, and what the scalar oracle computes on.

use gpuarrays_core::{Complex32, Complex64, DType, Element, Error, Result, Scalar};

/// One `Vec` per element type.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C32(Vec<Complex32>),
    C64(Vec<Complex64>),
}

/// Applies `$body` to the vector inside a [`HostData`], whatever its type.
macro_rules! each_vec {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            HostData::Bool($v) => $body,
            HostData::U8($v) => $body,
            HostData::I32($v) => $body,
            HostData::U32($v) => $body,
            HostData::I64($v) => $body,
            HostData::U64($v) => $body,
            HostData::F32($v) => $body,
            HostData::F64($v) => $body,
            HostData::C32($v) => $body,
            HostData::C64($v) => $body,
        }
    };
}

impl HostData {
    /// An empty vector of `dtype`.
    pub fn empty(dtype: DType) -> HostData {
        Self::with_capacity(dtype, 0)
    }

    pub fn with_capacity(dtype: DType, n: usize) -> HostData {
        match dtype {
            DType::Bool => HostData::Bool(Vec::with_capacity(n)),
            DType::U8 => HostData::U8(Vec::with_capacity(n)),
            DType::I32 => HostData::I32(Vec::with_capacity(n)),
            DType::U32 => HostData::U32(Vec::with_capacity(n)),
            DType::I64 => HostData::I64(Vec::with_capacity(n)),
            DType::U64 => HostData::U64(Vec::with_capacity(n)),
            DType::F32 => HostData::F32(Vec::with_capacity(n)),
            DType::F64 => HostData::F64(Vec::with_capacity(n)),
            DType::C32 => HostData::C32(Vec::with_capacity(n)),
            DType::C64 => HostData::C64(Vec::with_capacity(n)),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            HostData::Bool(_) => DType::Bool,
            HostData::U8(_) => DType::U8,
            HostData::I32(_) => DType::I32,
            HostData::U32(_) => DType::U32,
            HostData::I64(_) => DType::I64,
            HostData::U64(_) => DType::U64,
            HostData::F32(_) => DType::F32,
            HostData::F64(_) => DType::F64,
            HostData::C32(_) => DType::C32,
            HostData::C64(_) => DType::C64,
        }
    }

    pub fn len(&self) -> usize {
        each_vec!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a [`Scalar`] (a plain container here: no core semantics are used).
    pub fn get(&self, i: usize) -> Scalar {
        each_vec!(self, v => v[i].to_scalar())
    }

    /// Appends `value`; returns false (and appends nothing) if its type is not this vector's.
    pub fn push(&mut self, value: Scalar) -> bool {
        each_vec!(self, v => match Element::from_scalar(value) {
            Some(x) => {
                v.push(x);
                true
            }
            None => false,
        })
    }

    /// Builds a vector of `dtype` from values that must all have that type.
    pub fn from_scalars(dtype: DType, values: impl IntoIterator<Item = Scalar>) -> Result<Self> {
        let mut out = HostData::empty(dtype);
        for v in values {
            if !out.push(v) {
                return Err(Error::DTypeMismatch {
                    op: "host data".into(),
                    lhs: dtype,
                    rhs: v.dtype(),
                });
            }
        }
        Ok(out)
    }

    /// The elements as scalars.
    pub fn scalars(&self) -> impl Iterator<Item = Scalar> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Elements `start..end` as a new vector.
    pub fn range(&self, start: usize, end: usize) -> HostData {
        each_vec!(self, v => v[start..end].to_vec().into_host())
    }

    /// `self` followed by `other` (same type; `other` is ignored if its type differs).
    pub fn concat(&self, other: &HostData) -> HostData {
        let mut out = self.clone();
        for s in other.scalars() {
            out.push(s);
        }
        out
    }

    /// Little-endian bytes, as a device holds them (bool as one byte 0/1).
    pub fn to_bytes(&self) -> Vec<u8> {
        each_vec!(self, v => gpuarrays_core::element::as_bytes(v).to_vec())
    }

    /// Decodes device bytes (fails for bool bytes other than 0 and 1).
    pub fn from_bytes(dtype: DType, bytes: &[u8]) -> Result<HostData> {
        Ok(match dtype {
            DType::Bool => HostData::Bool(bool::from_bytes(bytes)?),
            DType::U8 => HostData::U8(u8::from_bytes(bytes)?),
            DType::I32 => HostData::I32(i32::from_bytes(bytes)?),
            DType::U32 => HostData::U32(u32::from_bytes(bytes)?),
            DType::I64 => HostData::I64(i64::from_bytes(bytes)?),
            DType::U64 => HostData::U64(u64::from_bytes(bytes)?),
            DType::F32 => HostData::F32(f32::from_bytes(bytes)?),
            DType::F64 => HostData::F64(f64::from_bytes(bytes)?),
            DType::C32 => HostData::C32(Complex32::from_bytes(bytes)?),
            DType::C64 => HostData::C64(Complex64::from_bytes(bytes)?),
        })
    }

    /// The elements as a typed slice, if `T` is their type.
    pub fn as_slice<T: HostElement>(&self) -> Option<&[T]> {
        T::slice(self)
    }
}

/// The element types a [`HostData`] can hold, with their variant.
pub trait HostElement: Element {
    fn slice(data: &HostData) -> Option<&[Self]>;
    fn wrap(v: Vec<Self>) -> HostData;
}

/// Converts a typed vector into [`HostData`].
pub trait IntoHost {
    fn into_host(self) -> HostData;
}

impl<T: HostElement> IntoHost for Vec<T> {
    fn into_host(self) -> HostData {
        T::wrap(self)
    }
}

macro_rules! host_element {
    ($t:ty, $variant:ident) => {
        impl HostElement for $t {
            fn slice(data: &HostData) -> Option<&[Self]> {
                match data {
                    HostData::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn wrap(v: Vec<Self>) -> HostData {
                HostData::$variant(v)
            }
        }
    };
}

host_element!(bool, Bool);
host_element!(u8, U8);
host_element!(i32, I32);
host_element!(u32, U32);
host_element!(i64, I64);
host_element!(u64, U64);
host_element!(f32, F32);
host_element!(f64, F64);
host_element!(Complex32, C32);
host_element!(Complex64, C64);

/// A host array: row-major data and its dimensions.
#[derive(Debug, Clone, PartialEq)]
pub struct HostArray {
    pub dims: Vec<usize>,
    pub data: HostData,
}

impl HostArray {
    pub fn new(dims: Vec<usize>, data: HostData) -> Self {
        HostArray { dims, data }
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of the run-time `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            gpuarrays_core::DType::Bool => {
                type $T = bool;
                $body
            }
            gpuarrays_core::DType::U8 => {
                type $T = u8;
                $body
            }
            gpuarrays_core::DType::I32 => {
                type $T = i32;
                $body
            }
            gpuarrays_core::DType::U32 => {
                type $T = u32;
                $body
            }
            gpuarrays_core::DType::I64 => {
                type $T = i64;
                $body
            }
            gpuarrays_core::DType::U64 => {
                type $T = u64;
                $body
            }
            gpuarrays_core::DType::F32 => {
                type $T = f32;
                $body
            }
            gpuarrays_core::DType::F64 => {
                type $T = f64;
                $body
            }
            gpuarrays_core::DType::C32 => {
                type $T = gpuarrays_core::Complex32;
                $body
            }
            gpuarrays_core::DType::C64 => {
                type $T = gpuarrays_core::Complex64;
                $body
            }
        }
    };
}

pub(crate) use with_dtype;
