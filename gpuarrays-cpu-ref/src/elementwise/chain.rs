//! Fused chains: two or three binary instructions on f32 or f64, each feeding the next, run
//! as one loop that keeps the running value in registers ([`super::fuse`] finds them).
//!
//! Why: one instruction at a time, every instruction reads and writes a 512-value column,
//! so `max(a·x + y, 0)` makes three L1 round trips per element where a hand-written loop
//! makes none. Measured with a stand-alone copy of these loops (rustc -O, AVX2, 1 M f32, one
//! thread, this project's 2-core AMD EPYC host, other builds running): the three passes
//! 154 µs, this loop 110 µs, a plain loop 109 µs; in place `y = max(0.5·y + 0.25, 0)`:
//! passes 110 µs, this loop 53 µs. An interpreter running the whole program over a tile
//! held in a local array (the op matched per tile) measured 205 µs (tiles of 32) and
//! 158–234 µs (64): the dispatch per tile cost more than the L1 round trips it saved.
//!
//! Each link is `acc = f(acc, operand)` with the per-element function of
//! [`gpuarrays_core::host::semantics`] that the instruction itself uses, in program order,
//! so every value is bit for bit what the instructions compute one at a time. A link
//! takes the running value as its left operand; add and mul also take it on the right
//! (IEEE addition and multiplication are commutative for every value, and LLVM already
//! treats them so).
//!
//! Every chain is monomorphised (element type, operators, and whether each operand is a
//! column or one value), so only a table of common chains is compiled: the crate already
//! compiles several hundred kernels twice. Values are computed in tiles of [`TILE`], all
//! operands read before the tile is written, so the output may be any operand's own column
//! (an in-place `eval_into`).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::BinaryOp;

use super::kernel::{ARGS, Arg, Kernel};
use gpuarrays_core::host::semantics::{Arith, Ordered};

/// Values per tile. Measured in the stand-alone copy: 16 did not vectorise (5× slower),
/// 32 and 64 ran as fast as a plain loop.
const TILE: usize = 32;

/// One link: the running value and the link's operand to the next running value. `num`
/// (a constant once inlined) says the operand is never NaN.
trait Link<T> {
    fn apply(acc: T, o: T, num: bool) -> T;
}

macro_rules! links {
    ($($name:ident: $bound:ident, |$a:ident, $o:ident, $num:ident| $body:expr;)*) => {$(
        struct $name;
        impl<T: $bound> Link<T> for $name {
            #[inline(always)]
            fn apply($a: T, $o: T, $num: bool) -> T {
                $body
            }
        }
    )*};
}
// With an operand that is never NaN, `min_`/`max_` are exactly `o < a ? o : a` and
// `o > a ? o : a` (a NaN `a` fails the comparison and is returned, as `min_`/`max_` return
// it), one `vminps`/`vmaxps` instead of five instructions: measured in the chain of the
// in-place benchmark, `max(0.5·y + 0.25, 0)` over 1 M f32, one thread: see the results file.
links! {
    Add: Arith, |a, o, _num| a.add(o);
    Sub: Arith, |a, o, _num| a.sub(o);
    Mul: Arith, |a, o, _num| a.mul(o);
    Min: Ordered, |a, o, num| if num { if o < a { o } else { a } } else { a.min_(o) };
    Max: Ordered, |a, o, num| if num { if o > a { o } else { a } } else { a.max_(o) };
    Nop: Copy, |a, _o, _num| a;
}

/// Where a link's operand values come from.
trait Source<T>: Copy {
    /// Whether the values are never NaN where that matters: [`super::fuse`] fuses a min or
    /// max link with one value only if that value is not NaN.
    const NUM: bool;
    /// # Safety
    /// `a` points at the block's values of `T` (one value for [`Uni`]).
    unsafe fn new(a: Arg) -> Self;
    /// # Safety
    /// `i` is below the block's length.
    unsafe fn get(self, i: usize) -> T;
}

/// A column of the block's values.
#[derive(Clone, Copy)]
struct Col<T>(*const T);
/// One value for the whole block.
#[derive(Clone, Copy)]
struct Uni<T>(T);
/// No operand (a link of [`Nop`]).
#[derive(Clone, Copy)]
struct Absent;

impl<T: Copy> Source<T> for Col<T> {
    const NUM: bool = false;
    #[inline(always)]
    unsafe fn new(a: Arg) -> Self {
        Col(a.ptr.cast())
    }
    #[inline(always)]
    unsafe fn get(self, i: usize) -> T {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i).read() }
    }
}

impl<T: Copy> Source<T> for Uni<T> {
    const NUM: bool = true;
    #[inline(always)]
    unsafe fn new(a: Arg) -> Self {
        // SAFETY: the caller's contract.
        Uni(unsafe { a.ptr.cast::<T>().read() })
    }
    #[inline(always)]
    unsafe fn get(self, _i: usize) -> T {
        self.0
    }
}

impl<T: Arith> Source<T> for Absent {
    const NUM: bool = true;
    #[inline(always)]
    unsafe fn new(_a: Arg) -> Self {
        Absent
    }
    #[inline(always)]
    unsafe fn get(self, _i: usize) -> T {
        T::ZERO
    }
}

/// `out[i] = L3(L2(L1(head[i], s1[i]), s2[i]), s3[i])` for `i < len`; `args` are the head
/// and the three operands.
///
/// # Safety
/// The [`Kernel`] contract, where `out` may also be exactly the address of the head or of
/// a column operand (all of a tile is read before it is written).
#[inline(always)]
unsafe fn run<T, L1, L2, L3, S1, S2, S3>(args: &[Arg; ARGS], out: *mut u8, len: usize)
where
    T: Arith,
    L1: Link<T>,
    L2: Link<T>,
    L3: Link<T>,
    S1: Source<T>,
    S2: Source<T>,
    S3: Source<T>,
{
    let head = args[0].ptr.cast::<T>();
    // SAFETY: the caller's contract.
    let (s1, s2, s3) = unsafe { (S1::new(args[1]), S2::new(args[2]), S3::new(args[3])) };
    let out = out.cast::<T>();
    // SAFETY: `i < len` (the callers below).
    let value = |i: usize| unsafe {
        let v = L1::apply(head.add(i).read(), s1.get(i), S1::NUM);
        let v = L2::apply(v, s2.get(i), S2::NUM);
        L3::apply(v, s3.get(i), S3::NUM)
    };
    let mut i = 0;
    while i + TILE <= len {
        let mut tile = [T::ZERO; TILE];
        for (j, t) in tile.iter_mut().enumerate() {
            *t = value(i + j);
        }
        // SAFETY: `i + TILE <= len` slots of `out`; the tile is a local array.
        unsafe { std::ptr::copy_nonoverlapping(tile.as_ptr(), out.add(i), TILE) };
        i += TILE;
    }
    while i < len {
        let v = value(i);
        // SAFETY: `i < len`.
        unsafe { out.add(i).write(v) };
        i += 1;
    }
}

/// Whether a link's operand is a column or one value (never NaN if the link is min or max).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Col,
    Uni,
}

/// Whether the link of `op` may take the running value as its right operand.
pub(crate) fn commutative(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Mul)
}

/// The kernel running [`run`] for one chain.
macro_rules! chain {
    ($T:ty, $L1:ident $S1:ident, $L2:ident $S2:ident, $L3:ident $S3:ty) => {
        $crate::elementwise::multiversion::multiversion!(|args, out, _start, len| {
            // SAFETY: the `Kernel` contract for a chain (see `run`).
            unsafe { run::<$T, $L1, $L2, $L3, $S1<$T>, $S2<$T>, $S3>(args, out, len) }
        })
    };
}

/// The four kernels of a chain for each combination of operand kinds of its first two links.
macro_rules! by_kinds {
    ($T:ty, $k:expr, $L1:ident, $L2:ident, $L3:ident $S3:ty) => {
        Some(match $k {
            (Kind::Col, Kind::Col) => chain!($T, $L1 Col, $L2 Col, $L3 $S3),
            (Kind::Col, Kind::Uni) => chain!($T, $L1 Col, $L2 Uni, $L3 $S3),
            (Kind::Uni, Kind::Col) => chain!($T, $L1 Uni, $L2 Col, $L3 $S3),
            (Kind::Uni, Kind::Uni) => chain!($T, $L1 Uni, $L2 Uni, $L3 $S3),
        })
    };
}

/// The chains compiled: affine maps (`a·x + b`, `(x - m)·s`) and their clamps, clamps, and
/// `a·x + b` followed by a one-sided clamp with one value (scale-shift-relu).
macro_rules! table {
    ($T:ty, $links:expr) => {{
        use BinaryOp as B;
        match *$links {
            [(B::Mul, k1), (B::Add, k2), (B::Max, Kind::Uni)] => {
                by_kinds!($T, (k1, k2), Mul, Add, Max Uni<$T>)
            }
            [(B::Mul, k1), (B::Add, k2), (B::Min, Kind::Uni)] => {
                by_kinds!($T, (k1, k2), Mul, Add, Min Uni<$T>)
            }
            [(o1, k1), (o2, k2)] => match (o1, o2) {
                (B::Mul, B::Add) => by_kinds!($T, (k1, k2), Mul, Add, Nop Absent),
                (B::Mul, B::Sub) => by_kinds!($T, (k1, k2), Mul, Sub, Nop Absent),
                (B::Add, B::Mul) => by_kinds!($T, (k1, k2), Add, Mul, Nop Absent),
                (B::Sub, B::Mul) => by_kinds!($T, (k1, k2), Sub, Mul, Nop Absent),
                (B::Add, B::Max) => by_kinds!($T, (k1, k2), Add, Max, Nop Absent),
                (B::Add, B::Min) => by_kinds!($T, (k1, k2), Add, Min, Nop Absent),
                (B::Mul, B::Max) => by_kinds!($T, (k1, k2), Mul, Max, Nop Absent),
                (B::Max, B::Min) => by_kinds!($T, (k1, k2), Max, Min, Nop Absent),
                (B::Min, B::Max) => by_kinds!($T, (k1, k2), Min, Max, Nop Absent),
                _ => None,
            },
            _ => None,
        }
    }};
}

/// The fused kernel for the chain `links` (two or three) on `dtype`, if the table has it.
pub(crate) fn lookup(dtype: DType, links: &[(BinaryOp, Kind)]) -> Option<Kernel> {
    match dtype {
        DType::F32 => table!(f32, links),
        DType::F64 => table!(f64, links),
        _ => None,
    }
}
