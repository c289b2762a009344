//! Columns: the values of one instruction over one block of outputs, the unit the evaluator
//! works on. A column of length 1 stands for a value broadcast over the whole block (scalars,
//! broadcast inputs).
//!
//! Three shapes of the same idea:
//! - [`Col`] owns its values (an instruction's result);
//! - [`ColRef`] borrows them, either from a `Col` or straight from an input buffer: a
//!   contiguous input is read in place, never copied (profiling the earlier evaluator, which
//!   copied every input into a fresh column, put 20% of an in-place `max(a·y + b, 0)` in
//!   `memmove`);
//! - [`Pool`] keeps the vectors of finished blocks, so a task allocates its columns while its
//!   first block runs and reuses them afterwards (the earlier evaluator allocated one vector
//!   per instruction per chunk; the stores into fresh pages of those vectors were the hottest
//!   instructions of the profile).

use gpuarrays_core::{Complex32, Complex64, DType, Element, dispatch_dtype};

/// A block of values of one element type (owned).
pub(crate) enum Col {
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

/// A block of values of one element type (borrowed).
#[derive(Clone, Copy)]
pub(crate) enum ColRef<'a> {
    Bool(&'a [bool]),
    U8(&'a [u8]),
    I32(&'a [i32]),
    U32(&'a [u32]),
    I64(&'a [i64]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    C32(&'a [Complex32]),
    C64(&'a [Complex64]),
}

/// An element type columns can hold, with its [`Col`]/[`ColRef`] variant and its free list
/// in a [`Pool`].
pub(crate) trait ColElem: Element {
    fn owned(v: Vec<Self>) -> Col;
    fn borrowed(v: &[Self]) -> ColRef<'_>;
    fn free(pool: &mut Pool) -> &mut Vec<Vec<Self>>;
}

macro_rules! col_elem {
    ($($V:ident: $t:ty => $field:ident),*) => {
        /// Free column vectors, one list per element type.
        #[derive(Default)]
        pub(crate) struct Pool {
            $($field: Vec<Vec<$t>>,)*
        }
        $(
            impl ColElem for $t {
                #[inline]
                fn owned(v: Vec<$t>) -> Col { Col::$V(v) }
                #[inline]
                fn borrowed(v: &[$t]) -> ColRef<'_> { ColRef::$V(v) }
                #[inline]
                fn free(pool: &mut Pool) -> &mut Vec<Vec<$t>> { &mut pool.$field }
            }
        )*
    };
}
col_elem!(Bool: bool => bool, U8: u8 => u8, I32: i32 => i32, U32: u32 => u32, I64: i64 => i64,
    U64: u64 => u64, F32: f32 => f32, F64: f64 => f64, C32: Complex32 => c32,
    C64: Complex64 => c64);

impl Pool {
    /// An empty vector, reusing a returned one (and its capacity) where there is one.
    #[inline]
    pub(crate) fn take<T: ColElem>(&mut self) -> Vec<T> {
        T::free(self).pop().unwrap_or_default()
    }

    /// A column holding the values of `it`, in a reused vector.
    #[inline]
    pub(crate) fn collect<T: ColElem>(&mut self, it: impl Iterator<Item = T>) -> Col {
        let mut v = self.take::<T>();
        v.extend(it);
        T::owned(v)
    }

    /// Returns a column's vector for reuse.
    pub(crate) fn give(&mut self, c: Col) {
        dispatch_dtype!(c, Col(v: T) => {
            let mut v = v;
            v.clear();
            T::free(self).push(v)
        })
    }
}

impl Col {
    pub(crate) fn as_ref(&self) -> ColRef<'_> {
        dispatch_dtype!(self, Col(v: T) => T::borrowed(v))
    }
}

impl ColRef<'_> {
    pub(crate) fn dtype(&self) -> DType {
        dispatch_dtype!(self, ColRef(_v: T) => T::DTYPE)
    }

    pub(crate) fn len(&self) -> usize {
        dispatch_dtype!(self, ColRef(v: T) => v.len())
    }
}
