//! The multi-dispatch scatter schemes, for what one 32-bit atomic cannot do (see the
//! [module docs](super)). Both use the first word of each reached target element as a
//! per-element atomic while they run (only updates of one element share it), and scratch
//! words per point of the range; dispatch boundaries order the stages. Every access that
//! several invocations make to one word within a stage is atomic (the clears too: racing
//! plain stores leave an undefined value in the WGSL memory model, even when equal).
//!
//! **Claim** (stores of 2- or 4-word elements), per range:
//! 1. `Clear`: the element's first word ← 0, the point's flag ← 0;
//! 2. `Max`: `atomicMax(first word, rank + 1)`: the last update in row-major order wins;
//! 3. `Mark`: flag ← whether the first word holds the point's own rank;
//! 4. `Write`: flagged points store their value's words.
//!
//! **List** (f64/c64 adds), per range of at most [`MAX_WALK`] points:
//! 1. `Save`: the element (as f64) is saved per point (every update of it saves the same
//!    value), links and tail flags ← 0;
//! 2. `Clear`: the element's first word ← 0;
//! 3. `Link`: `prev = atomicExchange(first word, rank + 1)`: the point that finds 0 is the
//!    tail of its element's list, any other becomes the successor of `prev`;
//! 4. `Walk`: each tail starts from the saved element, adds the values of its list in link
//!    order and stores the sum (every word of the element, its first word included).
//!
//! The walk is bounded: lavapipe ends an invocation's loops after 65,535 iterations without
//! an error, so no range holds more than [`MAX_WALK`] points.

use gpuarrays_core::kernel::{IndexMode, ScatterArgs};

use super::position::{per_point, prelude};
use super::{Geometry, operand, prm};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan, Window};
use crate::error::Result;
use crate::kernels::windows::{capacity, rel};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::Class;

/// The most points of one list range (the longest list a walk follows).
pub(crate) const MAX_WALK: usize = 16_384;

/// One dispatch of a staged scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    ClaimClear,
    ClaimMax,
    ClaimMark,
    ClaimWrite,
    ListSave,
    ListClear,
    ListLink,
    ListWalk,
}

impl Stage {
    pub const CLAIM: [Stage; 4] = [
        Stage::ClaimClear,
        Stage::ClaimMax,
        Stage::ClaimMark,
        Stage::ClaimWrite,
    ];
    pub const LIST: [Stage; 4] = [
        Stage::ListSave,
        Stage::ListClear,
        Stage::ListLink,
        Stage::ListWalk,
    ];

    /// How the stage binds the target: class, access, and the bytes of one address unit.
    pub fn target(self) -> (Class, Access, u64) {
        match self {
            Stage::ClaimClear | Stage::ClaimMax | Stage::ListClear | Stage::ListLink => {
                (Class::A32, Access::ReadWrite, 4)
            }
            Stage::ClaimMark => (Class::W32, Access::Read, 4),
            Stage::ListSave => (Class::F64, Access::Read, 8),
            Stage::ListWalk => (Class::F64, Access::ReadWrite, 8),
            _ => (Class::W32, Access::ReadWrite, 4),
        }
    }

    /// Whether the stage reads the values.
    pub fn values(self) -> bool {
        matches!(self, Stage::ClaimWrite | Stage::ListWalk)
    }

    /// Whether the stage uses the scratch words, and writes them.
    pub fn scratch(self) -> Option<Access> {
        match self {
            Stage::ClaimMax | Stage::ListClear => None,
            Stage::ClaimWrite | Stage::ListWalk => Some(Access::Read),
            _ => Some(Access::ReadWrite),
        }
    }

    /// Whether the stage uses the saved f64 elements, and writes them.
    pub fn saved(self) -> Option<Access> {
        match self {
            Stage::ListSave => Some(Access::ReadWrite),
            Stage::ListWalk => Some(Access::Read),
            _ => None,
        }
    }
}

/// Bindings (0-based) of a staged kernel: index, target, values, scratch words, saved f64s.
/// Unused ones are ignored.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Bind {
    pub i: usize,
    pub t: usize,
    pub v: usize,
    pub s: usize,
    pub f: usize,
}

/// The kernel of `stage` for elements of `size` bytes (claim: 8 or 16; list: f64 8, c64 16).
pub(crate) fn source(
    stage: Stage,
    size: u64,
    mode: IndexMode,
    storage: &[(Class, Access)],
    b: Bind,
) -> String {
    let (t, v, s, f) = (b.t + 1, b.v + 1, b.s + 1, b.f + 1);
    let (links, tails, saved) = (prm::SCRATCH, prm::SCRATCH2, prm::SAVED);
    let mut src = header::declarations(prm::WORDS, storage, false);
    src.push_str(&prelude(mode, b.i));
    src.push_str(&header::entry(WORKGROUP));
    src.push_str(&per_point());
    let body = match stage {
        Stage::ClaimClear => {
            format!("  atomicStore(&b{t}[slot(c)], 0u);\n  b{s}[prm({links}u) + t] = 0u;\n")
        }
        Stage::ClaimMax => format!("  atomicMax(&b{t}[slot(c)], t + 1u);\n"),
        Stage::ClaimMark => {
            format!("  b{s}[prm({links}u) + t] = select(0u, 1u, b{t}[slot(c)] == t + 1u);\n")
        }
        Stage::ClaimWrite => {
            let mut w = format!(
                "  if (b{s}[prm({links}u) + t] == 0u) {{ return; }}
  let a = slot(c);
  let v = at({o}u, c, c.y);
",
                o = prm::OTHER
            );
            for e in 0..size / 4 {
                w.push_str(&format!("  b{t}[a + {e}u] = b{v}[v + {e}u];\n"));
            }
            w
        }
        Stage::ListSave => {
            let mut w = format!(
                "  let a = slot(c);
  b{s}[prm({links}u) + t] = 0u;
  b{s}[prm({tails}u) + t] = 0u;
"
            );
            let n = size / 8;
            for e in 0..n {
                w.push_str(&format!(
                    "  b{f}[prm({saved}u) + t * {n}u + {e}u] = b{t}[a + {e}u];\n"
                ));
            }
            w
        }
        Stage::ListClear => format!("  atomicStore(&b{t}[slot(c)], 0u);\n"),
        Stage::ListLink => format!(
            "  let prev = atomicExchange(&b{t}[slot(c)], t + 1u);
  if (prev == 0u) {{ b{s}[prm({tails}u) + t] = 1u; }} else {{ b{s}[prm({links}u) + prev - 1u] = t + 1u; }}
"
        ),
        Stage::ListWalk => {
            let (load, store) = if size == 8 {
                (
                    format!("b{f}[prm({saved}u) + t]"),
                    format!("  b{t}[a] = acc;\n"),
                )
            } else {
                (
                    format!(
                        "vec2<f64>(b{f}[prm({saved}u) + t * 2u], b{f}[prm({saved}u) + t * 2u + 1u])"
                    ),
                    format!("  b{t}[a] = acc.x;\n  b{t}[a + 1u] = acc.y;\n"),
                )
            };
            let value = if size == 8 {
                format!("b{v}[w]")
            } else {
                format!("vec2<f64>(b{v}[w], b{v}[w + 1u])")
            };
            format!(
                "  if (b{s}[prm({tails}u) + t] == 0u) {{ return; }}
  let a = slot(c);
  var acc = {load};
  var m = t + 1u;
  loop {{
    if (m == 0u) {{ break; }}
    let cm = point(prm({q0}u) + m - 1u);
    let w = at({o}u, cm, cm.y);
    acc = acc + {value};
    m = b{s}[prm({links}u) + m - 1u];
  }}
{store}",
                q0 = prm::Q0,
                o = prm::OTHER,
            )
        }
    };
    src.push_str(&body);
    src.push_str("}\n");
    src
}

/// Scratch bytes of a range of `n` points, for ranges of at most `cap_points` points:
/// (words `lo..hi`, saved f64s `lo..hi`). The claim uses `n` flags; the list `n` links,
/// `n` tail flags from word `cap_points`, and `n` saved elements from byte `8·cap_points`.
fn scratch_bytes(list: bool, n: u64, cap_points: u64, size: u64) -> ((u64, u64), (u64, u64)) {
    if !list {
        return ((0, 4 * n), (0, 0));
    }
    let saved0 = 8 * cap_points;
    ((0, 4 * cap_points + 4 * n), (saved0, saved0 + n * size))
}

/// Runs `stages` over each range of at most `cap_points` points with scratch words (and,
/// for the list, saved elements) in one temporary buffer.
fn staged(
    ctx: &Context,
    a: &ScatterArgs<'_, WgpuBuffer>,
    geo: &Geometry<'_, '_>,
    stages: &[Stage],
    cap_points: usize,
) -> Result<()> {
    let size = geo.size;
    let list = stages.contains(&Stage::ListSave);
    let scratch_len = if list {
        cap_points as u64 * (8 + size)
    } else {
        cap_points as u64 * 4
    };
    let scratch = ctx.alloc(scratch_len as usize)?;
    let values = |q0: usize, q1: usize| geo.values_bytes(&a.values, q0, q1);
    let result = (|| {
        let mut specs: Vec<Option<ShaderSpec>> = vec![None; stages.len()];
        for (q0, q1) in geo.ranges(ctx, cap_points, values)? {
            let n = (q1 - q0) as u64;
            let (words, saved) = scratch_bytes(list, n, cap_points as u64, size);
            for (stage, spec) in stages.iter().zip(specs.iter_mut()) {
                let (tclass, taccess, tunit) = stage.target();
                let mut plan = BindingPlan::default();
                let mut b = Bind::default();
                let (ilo, ihi) = geo.index_bytes(q0, q1)?;
                let (tlo, thi) = geo.table_bytes(q0, q1)?;
                b.i = plan.add(a.space.index.buffer, Class::W32, Access::Read, ilo, ihi);
                b.t = plan.add(a.target.buffer, tclass, taccess, tlo, thi);
                let vclass = if tunit == 8 { Class::F64 } else { Class::W32 };
                if stage.values() {
                    let (vlo, vhi) = values(q0, q1)?;
                    b.v = plan.add(a.values.buffer, vclass, Access::Read, vlo, vhi);
                }
                if let Some(acc) = stage.scratch() {
                    b.s = plan.add(&scratch, Class::W32, acc, words.0, words.1);
                }
                if let Some(acc) = stage.saved() {
                    b.f = plan.add(&scratch, Class::F64, acc, saved.0, saved.1);
                }
                let w = plan.windows(ctx)?;
                let spec = spec.get_or_insert_with(|| {
                    let layout = plan.layout();
                    ShaderSpec {
                        label: format!("{}_{stage:?}[{}]", a.op.name(), a.dtype),
                        source: source(*stage, size, a.space.mode, &layout, b),
                        storage: layout.iter().map(|x| x.1).collect(),
                    }
                });
                let p = params(geo, a, (q0, q1), &w, b, *stage, cap_points as u64);
                let groups = n.div_ceil(WORKGROUP as u64);
                dispatch::launch(ctx, spec, &p, &plan, &w, false, groups)?;
            }
        }
        Ok(())
    })();
    ctx.release(scratch);
    result
}

/// The parameter block of one stage over points `q0..q1`.
fn params(
    geo: &Geometry<'_, '_>,
    a: &ScatterArgs<'_, WgpuBuffer>,
    (q0, q1): (usize, usize),
    w: &[Window],
    b: Bind,
    stage: Stage,
    cap_points: u64,
) -> Vec<u32> {
    let (_, _, unit) = stage.target();
    let mut p = geo.params(q0, q1, w[b.i].start);
    operand(&mut p, prm::TABLE, &a.target, geo.size, unit, w[b.t].start);
    if stage.values() {
        operand(&mut p, prm::OTHER, &a.values, geo.size, unit, w[b.v].start);
    }
    if stage.scratch().is_some() {
        p[prm::SCRATCH] = rel(0, w[b.s].start, 4);
        p[prm::SCRATCH2] = rel(4 * cap_points, w[b.s].start, 4);
    }
    if stage.saved().is_some() {
        p[prm::SAVED] = rel(8 * cap_points, w[b.f].start, 8);
    }
    p
}

/// Stores of 2- or 4-word elements, the last update of each element winning whole.
pub(crate) fn claim(
    ctx: &Context,
    a: &ScatterArgs<'_, WgpuBuffer>,
    geo: &Geometry<'_, '_>,
) -> Result<()> {
    let cap = ((capacity(ctx) / 4) as usize).max(1).min(geo.total);
    staged(ctx, a, geo, &Stage::CLAIM, cap)
}

/// Adds of f64/c64 elements through per-element lists.
pub(crate) fn list(
    ctx: &Context,
    a: &ScatterArgs<'_, WgpuBuffer>,
    geo: &Geometry<'_, '_>,
) -> Result<()> {
    let cap = ((capacity(ctx) / geo.size.max(8)) as usize)
        .clamp(1, MAX_WALK)
        .min(geo.total);
    staged(ctx, a, geo, &Stage::LIST, cap)
}
