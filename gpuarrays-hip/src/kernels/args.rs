//! Packing kernel parameters for `launch_kernel`: each parameter's bytes live in their own
//! 8-byte-aligned slots (enough for every parameter type the generated kernels use: integers,
//! pointers, complex scalars of 16 bytes, and `GaDims` structs of i64), and the launch gets one
//! pointer per parameter.
//!
//! Storage is inline for the common case (no heap allocation on the launch path: allocations
//! were the largest item of the host-side launch cost in a profile of the test double).

use std::ffi::c_void;

use gpuarrays_core::Scalar;
use smallvec::SmallVec;

use crate::platform::DevicePtr;

/// The parameter values of one launch, in declaration order.
#[derive(Debug, Default, Clone)]
pub struct KernelArgs {
    slots: SmallVec<[u64; 64]>,
    starts: SmallVec<[u32; 32]>,
}

/// One pointer per parameter, as `launch_kernel` takes them.
pub type ArgPointers = SmallVec<[*mut c_void; 32]>;

impl KernelArgs {
    /// Room for about `params` parameters (inline up to 32).
    #[inline]
    pub fn with_capacity(params: usize) -> KernelArgs {
        let mut a = KernelArgs::default();
        a.starts.reserve(params);
        a
    }

    /// A parameter with these raw little-endian bytes (padded with zeros to 8-byte slots).
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.starts.push(self.slots.len() as u32);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.slots.push(u64::from_le_bytes(word));
        }
        if bytes.is_empty() {
            self.slots.push(0);
        }
        self
    }

    /// A parameter of one 8-byte slot holding `word` (what [`bytes`](Self::bytes) stores for
    /// up to 8 little-endian bytes, without its chunk loop: most parameters are this).
    #[inline]
    fn word(&mut self, word: u64) -> &mut Self {
        self.starts.push(self.slots.len() as u32);
        self.slots.push(word);
        self
    }

    /// An `i64` parameter.
    #[inline]
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.word(v as u64)
    }

    /// A `u64` parameter.
    #[inline]
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.word(v)
    }

    /// An `i32` parameter (its 4 little-endian bytes, then zeros).
    #[inline]
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.word(u64::from(v as u32))
    }

    /// A device pointer parameter (`T*`).
    #[inline]
    pub fn ptr(&mut self, p: DevicePtr) -> &mut Self {
        self.u64(p.0)
    }

    /// A `GaDims` parameter: a struct of `v.len()` i64.
    pub fn dims(&mut self, v: impl IntoIterator<Item = i64>) -> &mut Self {
        self.starts.push(self.slots.len() as u32);
        let before = self.slots.len();
        self.slots.extend(v.into_iter().map(|x| x as u64));
        if self.slots.len() == before {
            self.slots.push(0);
        }
        self
    }

    /// A scalar parameter of the scalar's memory type (bool as one byte): the bytes of
    /// `Scalar::to_le_bytes`, packed without that method's `Vec` (one allocation per scalar
    /// per launch otherwise).
    #[inline]
    pub fn scalar(&mut self, s: &Scalar) -> &mut Self {
        match *s {
            Scalar::Bool(v) => self.word(u64::from(v)),
            Scalar::I8(v) => self.word(u64::from(v as u8)),
            Scalar::U8(v) => self.word(u64::from(v)),
            Scalar::I16(v) => self.word(u64::from(v as u16)),
            Scalar::U16(v) => self.word(u64::from(v)),
            Scalar::F16(v) => self.word(u64::from(v.to_bits())),
            Scalar::BF16(v) => self.word(u64::from(v.to_bits())),
            Scalar::I32(v) => self.word(u64::from(v as u32)),
            Scalar::U32(v) => self.word(u64::from(v)),
            Scalar::I64(v) => self.word(v as u64),
            Scalar::U64(v) => self.word(v),
            Scalar::F32(v) => self.word(u64::from(v.to_bits())),
            Scalar::F64(v) => self.word(v.to_bits()),
            Scalar::C32(v) => {
                self.word(u64::from(v.re.to_bits()) | u64::from(v.im.to_bits()) << 32)
            }
            Scalar::C64(v) => {
                self.word(v.re.to_bits());
                self.slots.push(v.im.to_bits());
                self
            }
        }
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// One pointer per parameter, into this value's storage (valid while `self` is neither
    /// moved nor changed).
    pub fn pointers(&mut self) -> ArgPointers {
        let base = self.slots.as_mut_ptr();
        self.starts
            .iter()
            // SAFETY: every start indexes a slot pushed by `bytes` or `dims`, so the offset
            // stays inside the storage.
            .map(|&s| unsafe { base.add(s as usize) }.cast::<c_void>())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_get_their_own_aligned_slots() {
        let mut a = KernelArgs::default();
        a.i64(-2)
            .scalar(&Scalar::Bool(true))
            .dims([3, 4, 5])
            .scalar(&Scalar::C64(gpuarrays_core::Complex64::new(1.0, 2.0)));
        assert_eq!(a.len(), 4);
        let p = a.pointers();
        assert_eq!(p.len(), 4);
        for w in p.windows(2) {
            assert!((w[1] as usize - w[0] as usize) % 8 == 0);
        }
        // SAFETY: the pointers point into `a`, which is alive and unchanged.
        unsafe {
            assert_eq!(*(p[0] as *const i64), -2);
            assert_eq!(*(p[1] as *const u8), 1);
            assert_eq!(*(p[2] as *const i64).add(2), 5);
            assert_eq!(*(p[3] as *const f64).add(1), 2.0);
        }
    }

    #[test]
    fn word_parameters_match_their_little_endian_bytes() {
        let (mut fast, mut slow) = (KernelArgs::default(), KernelArgs::default());
        for v in [0i64, -1, 7, i64::MIN, i64::MAX] {
            fast.i64(v).i32(v as i32).u64(v as u64);
            slow.bytes(&v.to_le_bytes())
                .bytes(&(v as i32).to_le_bytes())
                .bytes(&(v as u64).to_le_bytes());
        }
        assert_eq!((fast.slots, fast.starts), (slow.slots, slow.starts));
    }

    #[test]
    fn scalars_are_packed_as_their_little_endian_bytes() {
        use gpuarrays_core::{Complex32, Complex64};
        let values = [
            Scalar::Bool(true),
            Scalar::U8(0xab),
            Scalar::I32(-3),
            Scalar::U32(u32::MAX),
            Scalar::I64(-5),
            Scalar::U64(u64::MAX - 1),
            Scalar::F32(-1.5),
            Scalar::F64(std::f64::consts::PI),
            Scalar::C32(Complex32::new(1.25, -2.5)),
            Scalar::C64(Complex64::new(-0.5, 3.75)),
        ];
        let (mut fast, mut slow) = (KernelArgs::default(), KernelArgs::default());
        for v in &values {
            fast.scalar(v);
            slow.bytes(&v.to_le_bytes());
        }
        assert_eq!((fast.slots, fast.starts), (slow.slots, slow.starts));
    }

    #[test]
    fn many_parameters_spill_to_the_heap_intact() {
        let mut a = KernelArgs::default();
        for i in 0..100 {
            a.i64(i).dims([i, i + 1]);
        }
        let p = a.pointers();
        assert_eq!(p.len(), 200);
        // SAFETY: as above.
        unsafe {
            assert_eq!(*(p[198] as *const i64), 99);
            assert_eq!(*(p[199] as *const i64).add(1), 100);
        }
    }
}
