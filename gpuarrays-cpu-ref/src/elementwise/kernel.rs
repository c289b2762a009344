//! The calling convention of a compiled instruction ([`Kernel`]) and the loop shapes every
//! kernel is made of (one operand mapped, two zipped, three selected between).
//!
//! Why function pointers: the evaluator runs every instruction over one small block at a
//! time, so what an instruction costs besides its loop is paid once per block. Choosing the
//! loop (operator, element type, AVX2 or not) once per call, when the program is compiled
//! ([`super::plan`]), leaves one indirect call per instruction per block; the earlier
//! evaluator matched on the operator and the type, took and returned pooled vectors and
//! checked types again in every block (about 80 ns per block, which kept its blocks large;
//! see the module documentation of [`super`] for why they must be small).
//!
//! Each loop is a monomorphised loop over slices, which the compiler vectorises; an operand
//! that is the same for the whole block (`uniform`) is hoisted out of it.

/// One operand of a kernel call: `len` values of the kernel's operand type, or one value
/// standing for all of them when `uniform`.
#[derive(Clone, Copy)]
pub(crate) struct Arg {
    pub(crate) ptr: *const u8,
    pub(crate) uniform: bool,
}

impl Arg {
    /// An unused operand slot.
    pub(crate) const NONE: Arg = Arg {
        ptr: std::ptr::null(),
        uniform: true,
    };
}

/// Operand slots of a kernel: three for an instruction (select has three), four for a fused
/// chain ([`super::chain`]: its first value and one operand per link).
pub(crate) const ARGS: usize = 4;

/// A compiled instruction: reads its operands `args` (as many as the instruction has),
/// writes `len` results to `out`. `start` is the output index of the block's first element
/// (read by index and random draws only).
///
/// # Safety
/// Each operand the instruction reads points at `len` (one if `uniform`) initialised,
/// aligned values of its operand type; `out` points at `len` aligned writable slots of the
/// result type that overlap no operand (a fused chain allows an operand at exactly the
/// address of `out`, see [`super::chain`]); nothing else accesses either while the call runs.
pub(crate) type Kernel = unsafe fn(args: &[Arg; ARGS], out: *mut u8, start: usize, len: usize);

/// The operand's values as a slice of `len`.
///
/// # Safety
/// `a` is not uniform and points at `len` initialised, aligned values of `T`, not written
/// while the slice lives.
#[inline(always)]
unsafe fn slice<'a, T>(a: Arg, len: usize) -> &'a [T] {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(a.ptr.cast::<T>(), len) }
}

/// The operand's single value.
///
/// # Safety
/// `a` points at an initialised, aligned `T`.
#[inline(always)]
unsafe fn one<T: Copy>(a: Arg) -> T {
    // SAFETY: the caller's contract.
    unsafe { a.ptr.cast::<T>().read() }
}

/// The output slots as a slice.
///
/// # Safety
/// `out` points at `len` aligned writable slots of `R` that nothing else accesses meanwhile.
#[inline(always)]
unsafe fn out_slice<'a, R>(out: *mut u8, len: usize) -> &'a mut [R] {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(out.cast::<R>(), len) }
}

/// `out[i] = f(a[i])`.
///
/// # Safety
/// The [`Kernel`] contract for one operand of type `A` and results of type `R`.
#[inline(always)]
pub(crate) unsafe fn map<A: Copy, R: Copy>(a: Arg, out: *mut u8, len: usize, f: impl Fn(A) -> R) {
    // SAFETY: the caller's contract.
    let out = unsafe { out_slice::<R>(out, len) };
    if a.uniform {
        // SAFETY: the caller's contract.
        out.fill(f(unsafe { one::<A>(a) }));
    } else {
        // SAFETY: the caller's contract.
        let a = unsafe { slice::<A>(a, len) };
        for (o, &x) in out.iter_mut().zip(a) {
            *o = f(x);
        }
    }
}

/// `out[i] = f(a[i], b[i])`.
///
/// # Safety
/// The [`Kernel`] contract for operands of types `A`, `B` and results of type `R`.
#[inline(always)]
pub(crate) unsafe fn zip<A: Copy, B: Copy, R: Copy>(
    a: Arg,
    b: Arg,
    out: *mut u8,
    len: usize,
    f: impl Fn(A, B) -> R,
) {
    // SAFETY: the caller's contract.
    let out = unsafe { out_slice::<R>(out, len) };
    match (a.uniform, b.uniform) {
        (false, false) => {
            // SAFETY: the caller's contract.
            let (a, b) = unsafe { (slice::<A>(a, len), slice::<B>(b, len)) };
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (true, false) => {
            // SAFETY: the caller's contract.
            let (x, b) = unsafe { (one::<A>(a), slice::<B>(b, len)) };
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (false, true) => {
            // SAFETY: the caller's contract.
            let (a, y) = unsafe { (slice::<A>(a, len), one::<B>(b)) };
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (true, true) => {
            // SAFETY: the caller's contract.
            let (x, y) = unsafe { (one::<A>(a), one::<B>(b)) };
            out.fill(f(x, y));
        }
    }
}

/// Element `i` of an operand, where a uniform one is the same everywhere.
///
/// # Safety
/// As for [`slice`] or [`one`], and `i < len`.
#[inline(always)]
unsafe fn at<T: Copy>(a: Arg, i: usize) -> T {
    let p = a.ptr.cast::<T>();
    // SAFETY: the caller's contract.
    unsafe { if a.uniform { p.read() } else { p.add(i).read() } }
}

/// `out[i] = c[i] ? a[i] : b[i]`.
///
/// # Safety
/// The [`Kernel`] contract for a bool operand `c` and operands and results of type `T`.
#[inline(always)]
pub(crate) unsafe fn select<T: Copy>(c: Arg, a: Arg, b: Arg, out: *mut u8, len: usize) {
    // SAFETY: the caller's contract.
    let out = unsafe { out_slice::<T>(out, len) };
    if !(c.uniform || a.uniform || b.uniform) {
        // SAFETY: the caller's contract.
        let (c, a, b) = unsafe {
            (
                slice::<bool>(c, len),
                slice::<T>(a, len),
                slice::<T>(b, len),
            )
        };
        for (o, (&c, (&x, &y))) in out.iter_mut().zip(c.iter().zip(a.iter().zip(b))) {
            *o = if c { x } else { y };
        }
    } else {
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: the caller's contract; `i < len`.
            *o = unsafe {
                if at::<bool>(c, i) {
                    at::<T>(a, i)
                } else {
                    at::<T>(b, i)
                }
            };
        }
    }
}

/// `out[i] = f(start + i)`: values computed from the output index alone.
///
/// # Safety
/// `out` points at `len` aligned writable slots of `R` that nothing else accesses meanwhile.
#[inline(always)]
pub(crate) unsafe fn from_index<R: Copy>(
    out: *mut u8,
    start: usize,
    len: usize,
    f: impl Fn(usize) -> R,
) {
    // SAFETY: the caller's contract.
    let out = unsafe { out_slice::<R>(out, len) };
    for (i, o) in out.iter_mut().enumerate() {
        *o = f(start + i);
    }
}

/// `out[i]` = the `i`-th value of `values` (the draws of outputs `start..start + len`).
///
/// # Safety
/// `out` points at `len` aligned writable slots of `R` that nothing else accesses meanwhile.
#[inline(always)]
pub(crate) unsafe fn from_iter<R: Copy>(out: *mut u8, len: usize, values: impl Iterator<Item = R>) {
    // SAFETY: the caller's contract.
    let out = unsafe { out_slice::<R>(out, len) };
    for (o, v) in out.iter_mut().zip(values) {
        *o = v;
    }
}
