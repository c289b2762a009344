//! `dispatch_dtype!`: from a run-time element type to code written for the Rust element type.
//!
//! Arrays, kernels and host data carry a run-time [`DType`](crate::DType); the code that
//! touches the elements is generic over the Rust type (`fn sum<T>`, `Vec<T>`). Every crate
//! bridging the two used to write its own ten-arm match (the CPU backend's kernel dispatch,
//! the conformance suite's host data, the NumPy cross-check's recorder), each repeating which
//! Rust type a `DType` is. This macro is that pairing, written once:
//!
//! | `DType` | Bool | I8 | U8 | I16 | U16 | I32 | U32 | I64 | U64 | F16 | BF16 | F32 | F64 | C32 | C64 |
//! |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
//! | `T` | `bool` | `i8` | `u8` | `i16` | `u16` | `i32` | `u32` | `i64` | `u64` | [`f16`](crate::f16) | [`bf16`](crate::bf16) | `f32` | `f64` | [`Complex32`](crate::Complex32) | [`Complex64`](crate::Complex64) |
//!
//! It is a type-level mapping and nothing else: it computes nothing and carries no
//! semantics (no arithmetic, casts or NaN rules), which is why the conformance suite's
//! independent oracle may use it without sharing behaviour with the backends it checks.
//! `T` is the element type as Rust holds it (`bool` for Bool); code reading device bytes,
//! where a bool is a byte that may hold any value, maps it to its byte itself.

/// Runs an expression with a type name bound to the Rust element type of a run-time
/// [`DType`](crate::DType), or of the variant of an enum with one variant per `DType`.
///
/// Four forms:
///
/// - `dispatch_dtype!(dtype, T => body)`: `body` for every element type, with `T` the Rust
///   type of `dtype` (exhaustive: a new `DType` fails to compile until the macro knows it).
/// - `dispatch_dtype!(dtype, [U8, F32, ...], T => body, else other => fallback)`: `body` for
///   the listed `DType` variants only; any other value is bound to the pattern `other` and
///   gives `fallback`.
/// - `dispatch_dtype!(value, Enum(v: T) => body)`: `value` is an enum whose variants are
///   named after `DType`'s and hold one field each (`Enum::F32(Vec<f32>)`, ...); `v` binds
///   the field and `T` the variant's element type. `Enum` is a name in scope (`Self` works).
/// - `dispatch_dtype!(value, [U8, ...], Enum(v: T) => body, else other => fallback)`: the
///   same for the listed variants only.
///
/// `T` may go unused. `body` is an expression; `return` and `?` act on the caller.
///
/// ```
/// use gpuarrays_core::{DType, Element, dispatch_dtype};
///
/// fn size_of_element(dtype: DType) -> usize {
///     dispatch_dtype!(dtype, T => std::mem::size_of::<T>())
/// }
/// assert_eq!(size_of_element(DType::C64), 16);
///
/// // A subset, with an "else" arm for the rest.
/// fn parse_float(dtype: DType, text: &str) -> Result<f64, String> {
///     dispatch_dtype!(dtype, [F32, F64], T => text.parse::<T>().map(f64::from).map_err(|e| e.to_string()),
///         else other => Err(format!("{other} is not a float type")))
/// }
/// assert_eq!(parse_float(DType::F32, "0.5"), Ok(0.5));
/// assert!(parse_float(DType::I32, "1").is_err());
///
/// // An enum with one variant per element type.
/// enum Column {
///     Bool(Vec<bool>), I8(Vec<i8>), U8(Vec<u8>), I16(Vec<i16>), U16(Vec<u16>),
///     I32(Vec<i32>), U32(Vec<u32>), I64(Vec<i64>), U64(Vec<u64>),
///     F16(Vec<gpuarrays_core::f16>), BF16(Vec<gpuarrays_core::bf16>), F32(Vec<f32>), F64(Vec<f64>),
///     C32(Vec<gpuarrays_core::Complex32>), C64(Vec<gpuarrays_core::Complex64>),
/// }
/// impl Column {
///     fn len(&self) -> usize {
///         dispatch_dtype!(self, Column(v: T) => v.len())
///     }
///     fn dtype(&self) -> DType {
///         dispatch_dtype!(self, Column(v: T) => T::DTYPE)
///     }
///     fn first_as_f64(&self) -> Option<f64> {
///         dispatch_dtype!(self, [F32, F64], Column(v: T) => v.first().map(|&x| f64::from(x)),
///             else _ => None)
///     }
/// }
/// let c = Column::F32(vec![1.5, 2.0]);
/// assert_eq!((c.len(), c.dtype(), c.first_as_f64()), (2, DType::F32, Some(1.5)));
/// assert_eq!(Column::U8(vec![7]).first_as_f64(), None);
/// ```
#[macro_export]
macro_rules! dispatch_dtype {
    // An enum value, a subset of its variants, and an "else" arm.
    ($value:expr, [$($V:ident),+ $(,)?], $Enum:ident ($v:ident : $T:ident) => $body:expr,
     else $other:pat => $fallback:expr $(,)?) => {
        match $value {
            $($Enum::$V($v) => {
                #[allow(dead_code)]
                type $T = $crate::__dtype_rust_type!($V);
                $body
            })+
            #[allow(unreachable_patterns)]
            $other => $fallback,
        }
    };
    // An enum value, every variant.
    ($value:expr, $Enum:ident ($v:ident : $T:ident) => $body:expr $(,)?) => {
        match $value {
            $Enum::Bool($v) => $crate::dispatch_dtype!(@bind Bool, $T, $body),
            $Enum::I8($v) => $crate::dispatch_dtype!(@bind I8, $T, $body),
            $Enum::U8($v) => $crate::dispatch_dtype!(@bind U8, $T, $body),
            $Enum::I16($v) => $crate::dispatch_dtype!(@bind I16, $T, $body),
            $Enum::U16($v) => $crate::dispatch_dtype!(@bind U16, $T, $body),
            $Enum::I32($v) => $crate::dispatch_dtype!(@bind I32, $T, $body),
            $Enum::U32($v) => $crate::dispatch_dtype!(@bind U32, $T, $body),
            $Enum::I64($v) => $crate::dispatch_dtype!(@bind I64, $T, $body),
            $Enum::U64($v) => $crate::dispatch_dtype!(@bind U64, $T, $body),
            $Enum::F16($v) => $crate::dispatch_dtype!(@bind F16, $T, $body),
            $Enum::BF16($v) => $crate::dispatch_dtype!(@bind BF16, $T, $body),
            $Enum::F32($v) => $crate::dispatch_dtype!(@bind F32, $T, $body),
            $Enum::F64($v) => $crate::dispatch_dtype!(@bind F64, $T, $body),
            $Enum::C32($v) => $crate::dispatch_dtype!(@bind C32, $T, $body),
            $Enum::C64($v) => $crate::dispatch_dtype!(@bind C64, $T, $body),
        }
    };
    // A `DType`, a subset of its variants, and an "else" arm.
    ($dtype:expr, [$($V:ident),+ $(,)?], $T:ident => $body:expr,
     else $other:pat => $fallback:expr $(,)?) => {
        match $dtype {
            $($crate::DType::$V => $crate::dispatch_dtype!(@bind $V, $T, $body),)+
            #[allow(unreachable_patterns)]
            $other => $fallback,
        }
    };
    // A `DType`, every variant.
    ($dtype:expr, $T:ident => $body:expr $(,)?) => {
        match $dtype {
            $crate::DType::Bool => $crate::dispatch_dtype!(@bind Bool, $T, $body),
            $crate::DType::I8 => $crate::dispatch_dtype!(@bind I8, $T, $body),
            $crate::DType::U8 => $crate::dispatch_dtype!(@bind U8, $T, $body),
            $crate::DType::I16 => $crate::dispatch_dtype!(@bind I16, $T, $body),
            $crate::DType::U16 => $crate::dispatch_dtype!(@bind U16, $T, $body),
            $crate::DType::I32 => $crate::dispatch_dtype!(@bind I32, $T, $body),
            $crate::DType::U32 => $crate::dispatch_dtype!(@bind U32, $T, $body),
            $crate::DType::I64 => $crate::dispatch_dtype!(@bind I64, $T, $body),
            $crate::DType::U64 => $crate::dispatch_dtype!(@bind U64, $T, $body),
            $crate::DType::F16 => $crate::dispatch_dtype!(@bind F16, $T, $body),
            $crate::DType::BF16 => $crate::dispatch_dtype!(@bind BF16, $T, $body),
            $crate::DType::F32 => $crate::dispatch_dtype!(@bind F32, $T, $body),
            $crate::DType::F64 => $crate::dispatch_dtype!(@bind F64, $T, $body),
            $crate::DType::C32 => $crate::dispatch_dtype!(@bind C32, $T, $body),
            $crate::DType::C64 => $crate::dispatch_dtype!(@bind C64, $T, $body),
        }
    };
    (@bind $V:ident, $T:ident, $body:expr) => {{
        #[allow(dead_code)]
        type $T = $crate::__dtype_rust_type!($V);
        $body
    }};
}

/// The Rust element type of a `DType` variant name (used by [`dispatch_dtype!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __dtype_rust_type {
    (Bool) => {
        bool
    };
    (I8) => {
        i8
    };
    (U8) => {
        u8
    };
    (I16) => {
        i16
    };
    (U16) => {
        u16
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
    (F16) => {
        $crate::f16
    };
    (BF16) => {
        $crate::bf16
    };
    (F32) => {
        f32
    };
    (F64) => {
        f64
    };
    (C32) => {
        $crate::Complex32
    };
    (C64) => {
        $crate::Complex64
    };
}

#[cfg(test)]
mod tests {
    use crate::{DType, Element};

    /// The pairing agrees with each Rust type's own `Element::DTYPE` and with `DType::size`.
    #[test]
    fn every_dtype_binds_its_element_type() {
        for d in DType::ALL {
            assert_eq!(dispatch_dtype!(d, T => <T as Element>::DTYPE), d);
            assert_eq!(dispatch_dtype!(d, T => std::mem::size_of::<T>()), d.size());
        }
    }

    #[test]
    fn a_subset_falls_back_for_the_rest() {
        let ints: Vec<DType> = DType::ALL
            .into_iter()
            .filter(|&d| {
                dispatch_dtype!(d, [I8, U8, I16, U16, I32, U32, I64, U64], T => T::DTYPE == d,
                    else _ => false)
            })
            .collect();
        assert_eq!(
            ints,
            [
                DType::I8,
                DType::U8,
                DType::I16,
                DType::U16,
                DType::I32,
                DType::U32,
                DType::I64,
                DType::U64
            ]
        );
        let other = dispatch_dtype!(DType::C32, [Bool], T => None, else o => Some(o));
        assert_eq!(other, Some(DType::C32));
        // Listing every type leaves the "else" arm unreachable, which is allowed.
        let every = DType::ALL.iter().all(|&d| {
            dispatch_dtype!(d, [Bool, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64],
                T => T::DTYPE == d, else _ => false)
        });
        assert!(every);
    }
}
