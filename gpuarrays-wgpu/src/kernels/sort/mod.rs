//! Sorting rows in place: a bitonic network over order-preserving unsigned keys.
//!
//! Each value becomes a key whose unsigned order is the sort order (integers: sign bit
//! flipped; floats: the IEEE bits with negatives inverted, every NaN the largest key, so
//! NaNs go last), in a temporary of `rows × P` keys (`P` the power of two at or above the
//! row length, padded with the largest key). The network's steps `(k, j)` compare keys `p`
//! and `p ^ j`, ascending where `p & k == 0`:
//! - steps with `j <` [`local`] run in workgroup memory, many per dispatch: first every
//!   step with `k ≤ local` (each block of `local` keys sorted), then, for each larger `k`,
//!   its steps with small `j` after the global ones;
//! - steps with large `j` run one dispatch each, one thread per pair, the lower and upper
//!   keys of the pairs bound as two windows (so a key array larger than a binding works).
//!
//! Then the keys are turned back into values (a NaN comes back as a NaN; which NaN is not
//! kept). 64-bit types use u64 keys (SHADER_INT64). Packed types (bool, u8, i8, i16, u16,
//! f16, bf16) are loaded widened, narrow integers into i32/u32 and halves into f32, all
//! exactly, so they take the keys of those types; their sorted values go to a temporary of
//! one word per element that an exact cast packs into the row.

mod source;

use gpuarrays_core::kernel::SortArgs;

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::kernels::temp::{pack, temp_dtype};
use crate::kernels::windows::{capacity, for_ranges, rel};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::WORKGROUP;
use crate::wgsl::types::{Class, unit_bytes};

use source::wide;
pub(crate) use source::{Stage, local, source};

/// The pieces of one sort: its arguments and the key temporary.
struct Sorter<'a> {
    ctx: &'a Context,
    a: &'a SortArgs<'a, WgpuBuffer>,
    keys: &'a WgpuBuffer,
    p: usize,
    slots: usize,
    ksize: u64,
    kclass: Class,
    cap: u64,
}

impl Sorter<'_> {
    fn spec(&self, stage: Stage, plan: &BindingPlan<'_>, b0: usize, b1: usize) -> ShaderSpec {
        let layout = plan.layout();
        ShaderSpec {
            label: format!("sort_{stage:?}[{}]", self.a.dtype),
            source: source(self.a.dtype, stage, &layout, b0, b1),
            storage: layout.iter().map(|x| x.1).collect(),
        }
    }

    /// Values → keys.
    fn keys_pass(&self) -> Result<()> {
        let (d, a, ks) = (self.a.dtype, self.a, self.ksize);
        let size = d.size() as u64;
        // The values slots q0..q1 read (padding slots read nothing).
        let total = (a.rows * a.len) as u64;
        let span = |q0: usize, q1: usize| {
            let (r0, r1) = (q0 / self.p, (q1 - 1) / self.p);
            let lo = (r0 * a.len + (q0 % self.p).min(a.len)) as u64;
            let hi = (r1 * a.len + ((q1 - 1) % self.p + 1).min(a.len)) as u64;
            (lo.min(total - 1), hi.max(lo + 1).min(total))
        };
        let fits = |q0: usize, q1: usize| {
            let (lo, hi) = span(q0, q1);
            (hi - lo) * size <= self.cap && (q1 - q0) as u64 * ks <= self.cap
        };
        let mut spec = None;
        for_ranges(self.slots, fits, |q0, q1| {
            let (lo, hi) = span(q0, q1);
            let base = a.offset as u64 * size;
            let mut plan = BindingPlan::default();
            let bv = plan.add(
                a.buffer,
                Class::of(d),
                Access::Read,
                base + lo * size,
                base + hi * size,
            );
            let bk = plan.add(
                self.keys,
                self.kclass,
                Access::ReadWrite,
                q0 as u64 * ks,
                q1 as u64 * ks,
            );
            let w = plan.windows(self.ctx)?;
            let spec = spec.get_or_insert_with(|| self.spec(Stage::Keys, &plan, bv, bk));
            let params = [
                q1 as u32,
                a.len as u32,
                self.p as u32,
                rel(base, w[bv].start, unit_bytes(d)),
                rel(0, w[bk].start, ks),
                q0 as u32,
                0,
            ];
            let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
            dispatch::launch(self.ctx, spec, &params, &plan, &w, false, groups)
        })
    }

    /// Steps `k_first..=k_last` (doubling) with every `j < local`, in workgroup memory.
    fn local_pass(&self, k_first: usize, k_last: usize) -> Result<()> {
        let (l, ks) = (local(self.a.dtype), self.ksize);
        let blocks = self.slots.div_ceil(l);
        let fits = |q0: usize, q1: usize| ((q1 - q0) * l) as u64 * ks <= self.cap;
        let mut spec = None;
        for_ranges(blocks, fits, |q0, q1| {
            let mut plan = BindingPlan::default();
            let hi = ((q1 * l).min(self.slots) as u64) * ks;
            let bk = plan.add(
                self.keys,
                self.kclass,
                Access::ReadWrite,
                (q0 * l) as u64 * ks,
                hi,
            );
            let w = plan.windows(self.ctx)?;
            let spec = spec.get_or_insert_with(|| self.spec(Stage::Local, &plan, bk, bk));
            let params = [
                q1 as u32,
                self.p as u32,
                k_first as u32,
                k_last as u32,
                rel(0, w[bk].start, ks),
                q0 as u32,
                self.slots as u32,
            ];
            dispatch::launch(self.ctx, spec, &params, &plan, &w, false, (q1 - q0) as u64)
        })
    }

    /// One global step `(k, j)`.
    fn pairs_pass(&self, k: usize, j: usize) -> Result<()> {
        let ks = self.ksize;
        let pairs = self.slots / 2;
        let lower = |c: usize| (c / j) * 2 * j + c % j;
        let fits = |q0: usize, q1: usize| {
            let span = (lower(q1 - 1) - lower(q0) + 1) as u64 * ks;
            span <= self.cap
        };
        let mut spec = None;
        for_ranges(pairs, fits, |q0, q1| {
            let (l0, l1) = (lower(q0), lower(q1 - 1) + 1);
            let mut plan = BindingPlan::default();
            let bl = plan.add_separate(self.keys, self.kclass, l0 as u64 * ks, l1 as u64 * ks);
            let bu = plan.add_separate(
                self.keys,
                self.kclass,
                (l0 + j) as u64 * ks,
                (l1 + j) as u64 * ks,
            );
            let w = plan.windows(self.ctx)?;
            let spec = spec.get_or_insert_with(|| self.spec(Stage::Pairs, &plan, bl, bu));
            let params = [
                q1 as u32,
                self.p as u32,
                k as u32,
                j as u32,
                rel(0, w[bl].start, ks),
                rel(0, w[bu].start, ks),
                q0 as u32,
            ];
            let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
            dispatch::launch(self.ctx, spec, &params, &plan, &w, false, groups)
        })
    }

    /// Keys → values (into `out` at element `out_offset`, of the temp type of the dtype).
    fn values_pass(&self, out: &WgpuBuffer, out_offset: usize) -> Result<()> {
        let (d, a, ks) = (self.a.dtype, self.a, self.ksize);
        let od = temp_dtype(d);
        let osize = od.size() as u64;
        let total = a.rows * a.len;
        // The key slots elements q0..q1 read.
        let span = |q0: usize, q1: usize| {
            let (r0, r1) = (q0 / a.len, (q1 - 1) / a.len);
            let lo = (r0 * self.p + q0 % a.len) as u64;
            let hi = (r1 * self.p + (q1 - 1) % a.len + 1) as u64;
            (lo, hi)
        };
        let fits = |q0: usize, q1: usize| {
            let (lo, hi) = span(q0, q1);
            (hi - lo) * ks <= self.cap && (q1 - q0) as u64 * osize <= self.cap
        };
        let mut spec = None;
        for_ranges(total, fits, |q0, q1| {
            let (lo, hi) = span(q0, q1);
            let base = out_offset as u64 * osize;
            let mut plan = BindingPlan::default();
            let bo = plan.add(
                out,
                Class::of(od),
                Access::ReadWrite,
                base + q0 as u64 * osize,
                base + q1 as u64 * osize,
            );
            let bk = plan.add(self.keys, self.kclass, Access::Read, lo * ks, hi * ks);
            let w = plan.windows(self.ctx)?;
            let spec = spec.get_or_insert_with(|| self.spec(Stage::Values, &plan, bo, bk));
            let params = [
                q1 as u32,
                a.len as u32,
                self.p as u32,
                rel(base, w[bo].start, unit_bytes(od)),
                rel(0, w[bk].start, ks),
                q0 as u32,
                0,
            ];
            let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
            dispatch::launch(self.ctx, spec, &params, &plan, &w, false, groups)
        })
    }

    fn network(&self) -> Result<()> {
        let l = local(self.a.dtype);
        self.local_pass(2, self.p.min(l))?;
        let mut k = 2 * l;
        while k <= self.p {
            let mut j = k / 2;
            while j >= l {
                self.pairs_pass(k, j)?;
                j /= 2;
            }
            self.local_pass(k, k)?;
            k *= 2;
        }
        Ok(())
    }
}

/// Sorts `a.rows` rows of `a.len` elements in place.
pub fn run(ctx: &Context, a: &SortArgs<'_, WgpuBuffer>) -> Result<()> {
    let d = a.dtype;
    if a.len <= 1 || a.rows == 0 {
        return Ok(());
    }
    if d.is_complex() {
        return Err(invalid("sorting complex numbers"));
    }
    let p = a.len.next_power_of_two();
    let slots = a.rows as u64 * p as u64;
    if slots >= u32::MAX as u64 / 2 {
        return Err(WgpuError::LimitExceeded {
            what: format!("sorting {} rows of {}", a.rows, a.len),
            requested: slots,
            limit: u32::MAX as u64 / 2,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "sort fewer rows at a time",
        });
    }
    let (ksize, kclass) = if wide(d) {
        (8, Class::U64)
    } else {
        (4, Class::W32)
    };
    let keys = ctx.alloc(slots as usize * ksize as usize)?;
    let total = a.rows * a.len;
    let od = temp_dtype(d);
    let temp = if od != d {
        match ctx.alloc(total * 4) {
            Ok(t) => Some(t),
            Err(e) => {
                ctx.release(keys);
                return Err(e);
            }
        }
    } else {
        None
    };
    let r = (|| {
        let sorter = Sorter {
            ctx,
            a,
            keys: &keys,
            p,
            slots: slots as usize,
            ksize,
            kclass,
            cap: capacity(ctx),
        };
        sorter.keys_pass()?;
        sorter.network()?;
        match &temp {
            Some(t) => {
                sorter.values_pass(t, 0)?;
                pack(ctx, t, d, a.buffer, a.offset, total)
            }
            None => sorter.values_pass(a.buffer, a.offset),
        }
    })();
    ctx.release(keys);
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}
