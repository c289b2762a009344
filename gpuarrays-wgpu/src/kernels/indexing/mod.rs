//! Gathers and scatters (`take`, `put`, `scatter_add`, `bincount`, ...): core's three-axis
//! index space (`gpuarrays_core::kernel::indexing`) run with one invocation per point.
//!
//! **Why the index is read as two words.** The index operand is i64, but every kernel here
//! binds it as `array<u32>` and computes `IndexMode::position` from its low and high words
//! ([`position`]): the high word decides "negative / beyond 2^32 / in range" first, so no
//! value (i64::MIN included) becomes an out-of-range address, and `Wrap` reduces the full
//! 64-bit value exactly. No 64-bit arithmetic is needed, so gathers and scatters of every
//! element type run on adapters without SHADER_INT64; data are moved as words too, so only
//! adding f64/c64 needs SHADER_F64 in a shader.
//!
//! **Why three scatter schemes.** WGSL has 32-bit atomics only ([`scatter`]):
//! - *direct*, one dispatch: atomic stores of one-word elements, atomic adds of i32/u32 and the
//!   two-word integer add (the carry of the low word's `atomicAdd` goes into the high
//!   word's, which gives the exact wrapped 64-bit sum), f32/c32 adds by compare-exchange
//!   loops on the bits, and bool/u8 stores and adds by compare-exchange loops on the word
//!   that holds the byte (neighbouring bytes belong to other elements, possibly written by
//!   other invocations at the same time);
//! - *claim* ([`staged`]), for stores of elements of two or four words (i64, u64, f64, c32,
//!   c64): two plain stores racing on one element could leave words of different updates
//!   (a torn value, neither update). Each update claims its element with `atomicMax` of its
//!   rank on the element's first word; only the winner, the last update in row-major order
//!   of the index space (what the CPU reference keeps), stores;
//! - *list* ([`staged`]), for adding f64/c64, which no 32-bit atomic can do exactly: the
//!   updates of one element are linked into a list with `atomicExchange` on the element's
//!   first word (saved first), and one invocation per element walks its list and adds, so
//!   every update is added exactly once (lock-free; the order of the sum is the order of
//!   the exchanges, unspecified as core documents for GPUs).
//!
//! **Ranges.** The index space is dispatched in linear ranges of points whose operand
//! windows each fit one storage binding (the reach of a range is bounded by the box of
//! coordinates it covers; the indexed operand always spans its whole indexed axis), so
//! operands larger than a binding work; 2-D grids take ranges of more than 65,535
//! workgroups. Ranges run in order, so "the last update wins" and sums hold across them.

mod gather;
mod position;
mod scatter;
mod staged;
#[cfg(test)]
mod tests;

pub use gather::run as gather;
pub use scatter::run as scatter;

#[cfg(test)]
pub(crate) use gather::source as gather_source;
#[cfg(test)]
pub(crate) use scatter::{Direct, source as direct_source};
#[cfg(test)]
pub(crate) use staged::{Bind, Stage, source as staged_source};

use gpuarrays_core::kernel::{IndexSpace, Strided3};

use super::windows::{capacity, for_ranges, rel};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::error::{Result, WgpuError, invalid};
use crate::wgsl::header::WORKGROUP;

/// Parameter words every indexing kernel reads (`prm(i)`).
pub(crate) mod prm {
    /// First point of the range (linear, row-major over `[outer, count, inner]`).
    pub const Q0: usize = 0;
    /// One past the last point of the range.
    pub const Q1: usize = 1;
    pub const COUNT: usize = 2;
    pub const INNER: usize = 3;
    pub const EXTENT: usize = 4;
    /// 2^64 mod extent (the `Wrap` of negative indices).
    pub const WRAP: usize = 5;
    /// The index: base and three strides, in words.
    pub const INDEX: usize = 6;
    /// The indexed operand (source or target): base and three strides, in units.
    pub const TABLE: usize = 10;
    /// The values (base and strides) or the gather's output (base), in units.
    pub const OTHER: usize = 14;
    /// Scratch words: the first array (flags, or list links) and the second (list tails).
    pub const SCRATCH: usize = 18;
    pub const SCRATCH2: usize = 19;
    /// The f64 scratch (saved elements of the list scheme), in f64 units.
    pub const SAVED: usize = 20;
    pub const WORDS: usize = 21;
}

/// The most ranges (dispatches of one kernel) a gather or scatter is split into.
const MAX_RANGES: usize = 1 << 20;

/// The index space of one gather or scatter, with its indexed operand (`table`: the
/// gather's source or the scatter's target) and the element size of the data.
pub(crate) struct Geometry<'g, 'a> {
    pub space: &'g IndexSpace<'a, WgpuBuffer>,
    pub table: &'g Strided3<'a, WgpuBuffer>,
    pub size: u64,
    pub total: usize,
    cap: u64,
}

/// An inclusive range of coordinates along each axis.
type Bounds = [(usize, usize); 3];

impl<'g, 'a> Geometry<'g, 'a> {
    /// Checks what the 32-bit kernels can address; `None` for an empty index space.
    pub fn new(
        ctx: &Context,
        space: &'g IndexSpace<'a, WgpuBuffer>,
        table: &'g Strided3<'a, WgpuBuffer>,
        size: usize,
    ) -> Result<Option<Self>> {
        let total = space
            .dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX);
        if total == 0 {
            return Ok(None);
        }
        let limit = (u32::MAX - 2 * WORKGROUP) as u64;
        if total as u64 >= limit {
            return Err(WgpuError::LimitExceeded {
                what: format!("a gather or scatter over {total} points"),
                requested: total as u64,
                limit,
                limit_name: "points per kernel (32-bit indices)",
                adapter: ctx.adapter_name.clone(),
                hint: "split the index array",
            });
        }
        if space.extent == 0 {
            return Err(invalid("a gather or scatter along an axis of 0 elements"));
        }
        if space.extent as u64 > u32::MAX as u64 {
            return Err(WgpuError::LimitExceeded {
                what: format!("indexing an axis of {} elements", space.extent),
                requested: space.extent as u64,
                limit: u32::MAX as u64,
                limit_name: "elements along the indexed axis (32-bit positions)",
                adapter: ctx.adapter_name.clone(),
                hint: "index a reshaped view whose indexed axis is shorter",
            });
        }
        Ok(Some(Geometry {
            space,
            table,
            size: size as u64,
            total,
            cap: capacity(ctx),
        }))
    }

    /// The coordinates of point `q`.
    fn coords(&self, q: usize) -> [usize; 3] {
        let [_, count, inner] = self.space.dims;
        [q / (count * inner), q / inner % count, q % inner]
    }

    /// The box of coordinates points `q0..q1` lie in.
    fn bounds(&self, q0: usize, q1: usize) -> Bounds {
        let [_, count, inner] = self.space.dims;
        let (a, b) = (self.coords(q0), self.coords(q1 - 1));
        if a[0] != b[0] {
            [(a[0], b[0]), (0, count - 1), (0, inner - 1)]
        } else if a[1] != b[1] {
            [(a[0], a[0]), (a[1], b[1]), (0, inner - 1)]
        } else {
            [(a[0], a[0]), (a[1], a[1]), (a[2], b[2])]
        }
    }

    /// The bytes `lo..hi` an operand of `size`-byte elements reaches over `bounds`.
    fn reach(s: &Strided3<'_, WgpuBuffer>, bounds: Bounds, size: u64) -> Result<(u64, u64)> {
        let (mut lo, mut hi) = (s.offset as i128, s.offset as i128);
        for ((a, b), st) in bounds.iter().zip(s.strides) {
            let (x, y) = (*a as i128 * st as i128, *b as i128 * st as i128);
            lo += x.min(y);
            hi += x.max(y);
        }
        if lo < 0 || hi >= (u64::MAX / size) as i128 {
            return Err(invalid(format!(
                "an indexing operand reaches elements {lo}..={hi}"
            )));
        }
        Ok((lo as u64 * size, (hi as u64 + 1) * size))
    }

    /// The bytes of the index that points `q0..q1` read.
    pub fn index_bytes(&self, q0: usize, q1: usize) -> Result<(u64, u64)> {
        Self::reach(&self.space.index, self.bounds(q0, q1), 8)
    }

    /// The bytes of the indexed operand that points `q0..q1` may reach.
    pub fn table_bytes(&self, q0: usize, q1: usize) -> Result<(u64, u64)> {
        let mut b = self.bounds(q0, q1);
        b[1] = (0, self.space.extent - 1);
        Self::reach(self.table, b, self.size)
    }

    /// The bytes of a strided operand over the index space (the values) for `q0..q1`.
    pub fn values_bytes(
        &self,
        v: &Strided3<'_, WgpuBuffer>,
        q0: usize,
        q1: usize,
    ) -> Result<(u64, u64)> {
        Self::reach(v, self.bounds(q0, q1), self.size)
    }

    /// Consecutive ranges of points covering the index space, each of at most `max_points`
    /// points, whose index and indexed-operand windows fit one binding and for which
    /// `other(q0, q1)` (the bytes of the remaining operand) fits too.
    pub fn ranges(
        &self,
        ctx: &Context,
        max_points: usize,
        other: impl Fn(usize, usize) -> Result<(u64, u64)>,
    ) -> Result<Vec<(usize, usize)>> {
        let fits = |q0: usize, q1: usize| -> Result<bool> {
            let ok = |(lo, hi): (u64, u64)| hi - lo <= self.cap;
            Ok(q1 - q0 <= max_points
                && ok(self.index_bytes(q0, q1)?)
                && ok(self.table_bytes(q0, q1)?)
                && ok(other(q0, q1)?))
        };
        let mut out = Vec::new();
        for_ranges(
            self.total,
            |q0, q1| fits(q0, q1).unwrap_or(false),
            |q0, q1| {
                if q1 - q0 == 1 && !fits(q0, q1)? {
                    let (lo, hi) = self.table_bytes(q0, q1)?;
                    return Err(WgpuError::LimitExceeded {
                        what: "the indexed operand of a gather or scatter (its whole indexed axis at one point)".into(),
                        requested: hi - lo,
                        limit: self.cap,
                        limit_name: "max_storage_buffer_binding_size",
                        adapter: ctx.adapter_name.clone(),
                        hint: "index a contiguous copy, or an array whose indexed axis is smaller",
                    });
                }
                if out.len() == MAX_RANGES {
                    return Err(WgpuError::LimitExceeded {
                        what: "a gather or scatter whose operands need as many separate windows"
                            .into(),
                        requested: MAX_RANGES as u64 + 1,
                        limit: MAX_RANGES as u64,
                        limit_name: "dispatches per indexing kernel (windows of max_storage_buffer_binding_size)",
                        adapter: ctx.adapter_name.clone(),
                        hint: "use contiguous operands or smaller arrays",
                    });
                }
                out.push((q0, q1));
                Ok(())
            },
        )?;
        Ok(out)
    }

    /// The parameter block for points `q0..q1`, with the index at window `index_start`;
    /// the operands are set with [`operand`].
    pub fn params(&self, q0: usize, q1: usize, index_start: u64) -> Vec<u32> {
        let mut p = vec![0u32; prm::WORDS];
        let [_, count, inner] = self.space.dims;
        let n = self.space.extent as u64;
        p[prm::Q0] = q0 as u32;
        p[prm::Q1] = q1 as u32;
        p[prm::COUNT] = count as u32;
        p[prm::INNER] = inner as u32;
        p[prm::EXTENT] = n as u32;
        p[prm::WRAP] = position::wrap_constant(n);
        operand(&mut p, prm::INDEX, &self.space.index, 8, 4, index_start);
        p
    }
}

/// Sets the base and strides of `s` (elements of `size` bytes, addressed in `unit`-byte
/// units of a window starting at byte `start`) at parameter word `at`. Wrapping u32s: the
/// kernel's sums come out right modulo 2^32, and every address lies in its window.
pub(crate) fn operand(
    p: &mut [u32],
    at: usize,
    s: &Strided3<'_, WgpuBuffer>,
    size: u64,
    unit: u64,
    start: u64,
) {
    let per = (size / unit).max(1) as i64;
    p[at] = rel(s.offset as u64 * size, start, unit);
    for (i, st) in s.strides.iter().enumerate() {
        p[at + 1 + i] = (*st as i64).wrapping_mul(per) as u32;
    }
}

/// Words per element in a word binding (bool/u8: bytes, 1).
pub(crate) fn words(size: u64) -> u32 {
    (size / 4).max(1) as u32
}
