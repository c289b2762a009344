//! Host-side arrays of any element type: what cases are generated as, what backends'
//! results are downloaded into, and what the scalar oracle computes on.
//!
//! Code over all element types goes through [`gpuarrays_core::dispatch_dtype!`], a pure
//! type-level pairing of `DType` and Rust type: it shares no behaviour with any backend, so
//! the oracle stays independent of what it checks.

use gpuarrays_core::{
    Complex32, Complex64, DType, Element, Error, Result, Scalar, bf16, dispatch_dtype, f16,
};

/// One `Vec` per element type.
#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C32(Vec<Complex32>),
    C64(Vec<Complex64>),
}

impl HostData {
    /// An empty vector of `dtype`.
    pub fn empty(dtype: DType) -> HostData {
        Self::with_capacity(dtype, 0)
    }

    pub fn with_capacity(dtype: DType, n: usize) -> HostData {
        dispatch_dtype!(dtype, T => Vec::<T>::with_capacity(n).into_host())
    }

    pub fn dtype(&self) -> DType {
        dispatch_dtype!(self, HostData(_v: T) => T::DTYPE)
    }

    pub fn len(&self) -> usize {
        dispatch_dtype!(self, HostData(v: T) => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a [`Scalar`] (a plain container here: no core semantics are used).
    pub fn get(&self, i: usize) -> Scalar {
        dispatch_dtype!(self, HostData(v: T) => v[i].to_scalar())
    }

    /// Appends `value`; returns false (and appends nothing) if its type is not this vector's.
    pub fn push(&mut self, value: Scalar) -> bool {
        dispatch_dtype!(self, HostData(v: T) => match Element::from_scalar(value) {
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
        dispatch_dtype!(self, HostData(v: T) => v[start..end].to_vec().into_host())
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
        dispatch_dtype!(self, HostData(v: T) => gpuarrays_core::element::as_bytes(v).to_vec())
    }

    /// Decodes device bytes (fails for bool bytes other than 0 and 1).
    pub fn from_bytes(dtype: DType, bytes: &[u8]) -> Result<HostData> {
        Ok(dispatch_dtype!(dtype, T => T::from_bytes(bytes)?.into_host()))
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
host_element!(i8, I8);
host_element!(u8, U8);
host_element!(i16, I16);
host_element!(u16, U16);
host_element!(i32, I32);
host_element!(u32, U32);
host_element!(i64, I64);
host_element!(u64, U64);
host_element!(f16, F16);
host_element!(bf16, BF16);
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
