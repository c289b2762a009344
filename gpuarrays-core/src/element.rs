//! The sealed `Element` trait: the Rust types an array can hold, each tied to its `DType`.

use std::fmt::Debug;

use num_complex::{Complex32, Complex64};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can be an array element. Sealed: the set matches [`DType`] exactly,
/// because every backend must generate code for each of them.
pub trait Element:
    Copy + Send + Sync + Debug + PartialEq + Default + bytemuck::NoUninit + sealed::Sealed + 'static
{
    /// The run-time tag of this type.
    const DTYPE: DType;

    /// Wraps a value in a [`Scalar`].
    fn to_scalar(self) -> Scalar;

    /// Unwraps a [`Scalar`] of exactly this type.
    fn from_scalar(s: Scalar) -> Option<Self>;

    /// Decodes elements from little-endian device bytes. `bytes.len()` must be a multiple
    /// of the element size. Fails only for `bool`, whose bytes must be 0 or 1.
    fn from_bytes(bytes: &[u8]) -> Result<Vec<Self>>;

    /// The additive identity (`false` for bool).
    fn zero() -> Self {
        Self::default()
    }

    /// The multiplicative identity (`true` for bool).
    fn one() -> Self;
}

/// Views elements as their bytes (no copy).
pub fn as_bytes<T: Element>(values: &[T]) -> &[u8] {
    bytemuck::cast_slice(values)
}

macro_rules! pod_element {
    ($t:ty, $dt:ident, $one:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$dt;
            fn to_scalar(self) -> Scalar {
                Scalar::$dt(self)
            }
            fn from_scalar(s: Scalar) -> Option<Self> {
                match s {
                    Scalar::$dt(v) => Some(v),
                    _ => None,
                }
            }
            fn from_bytes(bytes: &[u8]) -> Result<Vec<Self>> {
                if bytes.len() % std::mem::size_of::<$t>() != 0 {
                    return Err(Error::invalid_arg(
                        "from_bytes",
                        format!(
                            "{} bytes is not a whole number of {}",
                            bytes.len(),
                            DType::$dt
                        ),
                    ));
                }
                Ok(bytemuck::pod_collect_to_vec(bytes))
            }
            fn one() -> Self {
                $one
            }
        }
    };
}

pod_element!(i8, I8, 1);
pod_element!(u8, U8, 1);
pod_element!(i16, I16, 1);
pod_element!(u16, U16, 1);
pod_element!(i32, I32, 1);
pod_element!(u32, U32, 1);
pod_element!(i64, I64, 1);
pod_element!(u64, U64, 1);
pod_element!(half::f16, F16, half::f16::ONE);
pod_element!(half::bf16, BF16, half::bf16::ONE);
pod_element!(f32, F32, 1.0);
pod_element!(f64, F64, 1.0);
pod_element!(Complex32, C32, Complex32::new(1.0, 0.0));
pod_element!(Complex64, C64, Complex64::new(1.0, 0.0));

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
    fn from_scalar(s: Scalar) -> Option<Self> {
        match s {
            Scalar::Bool(v) => Some(v),
            _ => None,
        }
    }
    /// A bool is false for byte 0 and true for any other byte: the rule every backend
    /// follows when it reads bools (a bool array's bytes can be written through a u8 view).
    fn from_bytes(bytes: &[u8]) -> Result<Vec<Self>> {
        Ok(bytes.iter().map(|&b| b != 0).collect())
    }
    fn one() -> Self {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_bool_check() {
        let v = [1.5f32, -2.0, 3.25];
        assert_eq!(f32::from_bytes(as_bytes(&v)).unwrap(), v);
        let c = [Complex64::new(1.0, -2.0)];
        assert_eq!(Complex64::from_bytes(as_bytes(&c)).unwrap(), c);
        assert_eq!(
            bool::from_bytes(&[0, 1, 1, 2, 255]).unwrap(),
            vec![false, true, true, true, true]
        );
        assert!(f64::from_bytes(&[0u8; 7]).is_err());
    }
}
