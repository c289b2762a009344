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

use crate::error::{CpuError, invalid};

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

/// One block of the output, written in place by the last instruction (see [`Sink`]). There
/// is no bool variant: bool outputs are bytes, written through a column.
pub(crate) enum ColMut<'a> {
    U8(&'a mut [u8]),
    I32(&'a mut [i32]),
    U32(&'a mut [u32]),
    I64(&'a mut [i64]),
    U64(&'a mut [u64]),
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
    C32(&'a mut [Complex32]),
    C64(&'a mut [Complex64]),
}

/// An element type columns can hold, with its [`Col`]/[`ColRef`]/[`ColMut`] variants and its
/// free list in a [`Pool`].
pub(crate) trait ColElem: Element {
    fn owned(v: Vec<Self>) -> Col;
    fn borrowed(v: &[Self]) -> ColRef<'_>;
    /// The output slice, if it holds this type.
    fn out_slice(out: ColMut<'_>) -> Option<&mut [Self]>;
    fn free(pool: &mut Pool) -> &mut Vec<Vec<Self>>;
}

macro_rules! col_elem {
    ($($V:ident: $t:ty => $field:ident),*) => {
        /// Free column vectors, one list per element type.
        #[derive(Default)]
        pub(crate) struct Pool {
            bool: Vec<Vec<bool>>,
            $($field: Vec<Vec<$t>>,)*
        }
        impl ColElem for bool {
            #[inline]
            fn owned(v: Vec<bool>) -> Col { Col::Bool(v) }
            #[inline]
            fn borrowed(v: &[bool]) -> ColRef<'_> { ColRef::Bool(v) }
            #[inline]
            fn out_slice(_: ColMut<'_>) -> Option<&mut [bool]> { None }
            #[inline]
            fn free(pool: &mut Pool) -> &mut Vec<Vec<bool>> { &mut pool.bool }
        }
        $(
            impl ColElem for $t {
                #[inline]
                fn owned(v: Vec<$t>) -> Col { Col::$V(v) }
                #[inline]
                fn borrowed(v: &[$t]) -> ColRef<'_> { ColRef::$V(v) }
                #[inline(always)]
                fn out_slice(out: ColMut<'_>) -> Option<&mut [$t]> {
                    match out {
                        ColMut::$V(s) => Some(s),
                        _ => None,
                    }
                }
                #[inline]
                fn free(pool: &mut Pool) -> &mut Vec<Vec<$t>> { &mut pool.$field }
            }
        )*
    };
}
col_elem!(U8: u8 => u8, I32: i32 => i32, U32: u32 => u32, I64: i64 => i64,
    U64: u64 => u64, F32: f32 => f32, F64: f64 => f64, C32: Complex32 => c32,
    C64: Complex64 => c64);

/// What an instruction produced: a column, or its values already written to the output.
pub(crate) enum Produced {
    Col(Col),
    Written,
}

/// Where an instruction's values go: a pooled column, or, for the last instruction where
/// nothing it reads overlaps the output, straight into the block's output slice. Writing
/// the output directly saves a copy of every block (measured: about a third of an
/// in-place `max(a·y + b, 0)` on 1 M f32 in cache went to that copy).
pub(crate) struct Sink<'s, 'o> {
    pub(crate) pool: &'s mut Pool,
    pub(crate) out: Option<ColMut<'o>>,
}

impl Sink<'_, '_> {
    /// Stores the values of `it` (the block's length, or one value broadcast over it).
    #[inline(always)]
    pub(crate) fn put<R: ColElem>(
        self,
        it: impl ExactSizeIterator<Item = R>,
    ) -> Result<Produced, CpuError> {
        let Some(out) = self.out else {
            return Ok(Produced::Col(self.pool.collect(it)));
        };
        let Some(out) = R::out_slice(out) else {
            return Err(invalid(format!("a {} result for the output", R::DTYPE)));
        };
        let mut it = it;
        match it.len() {
            n if n == out.len() => {
                for (o, v) in out.iter_mut().zip(it) {
                    *o = v;
                }
            }
            1 => {
                if let Some(v) = it.next() {
                    out.fill(v);
                }
            }
            n => {
                return Err(invalid(format!(
                    "{n} values for a block of {} outputs",
                    out.len()
                )));
            }
        }
        Ok(Produced::Written)
    }
}

impl Pool {
    /// An empty vector, reusing a returned one (and its capacity) where there is one.
    #[inline(always)]
    pub(crate) fn take<T: ColElem>(&mut self) -> Vec<T> {
        T::free(self).pop().unwrap_or_default()
    }

    /// A column holding the values of `it`, in a reused vector.
    ///
    /// Written as a plain loop rather than `Vec::extend`: std's `extend` was compiled as a
    /// function of its own, outside the AVX2 copies of the instructions (see
    /// `multiversion.rs`), and so ran with SSE2 (42% of a profile).
    #[inline(always)]
    pub(crate) fn collect<T: ColElem>(&mut self, it: impl ExactSizeIterator<Item = T>) -> Col {
        let mut v = self.take::<T>();
        v.reserve(it.len());
        let mut written = 0;
        for (slot, x) in v.spare_capacity_mut().iter_mut().zip(it) {
            slot.write(x);
            written += 1;
        }
        // SAFETY: the first `written` slots of the spare capacity were initialised above (the
        // vector was empty, so they follow its length 0).
        unsafe { v.set_len(written) };
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
    /// The bytes it spans, as addresses `[start, end)`.
    pub(crate) fn span(&self) -> (usize, usize) {
        dispatch_dtype!(self, ColRef(v: T) => {
            let start = v.as_ptr() as usize;
            (start, start + std::mem::size_of_val(*v))
        })
    }

    pub(crate) fn dtype(&self) -> DType {
        dispatch_dtype!(self, ColRef(_v: T) => T::DTYPE)
    }

    pub(crate) fn len(&self) -> usize {
        dispatch_dtype!(self, ColRef(v: T) => v.len())
    }
}
