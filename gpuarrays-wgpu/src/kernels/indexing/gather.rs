//! Gathers: `output[q] = source[slot(q)]`, moving words, so every element type gathers
//! with the same two kernels and without 64-bit arithmetic.
//!
//! Elements of one or more words: one invocation per point copies the element's words.
//! Packed elements (bool, u8, i8: four per word; i16, u16, f16, bf16: two): elements of the
//! contiguous output share words, so one invocation per output word computes the points
//! that word holds and stores the word once, keeping the lanes outside the output (no two
//! invocations write one word, no atomics needed).

use gpuarrays_core::kernel::{GatherArgs, IndexMode};

use super::position::{per_point, prelude};
use super::{Geometry, operand, prm, words};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::Result;
use crate::kernels::windows::rel;
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::Class;

/// The gather kernel for elements of `size` bytes (1 or 2: packed in words), the index,
/// source and output at bindings `bi`, `bs`, `bo` (0-based; equal where one buffer serves
/// two).
pub(crate) fn source(
    size: u64,
    mode: IndexMode,
    storage: &[(Class, Access)],
    bi: usize,
    bs: usize,
    bo: usize,
) -> String {
    let (s, o) = (bs + 1, bo + 1);
    let mut src = header::declarations(prm::WORDS, storage, false);
    src.push_str(&prelude(mode, bi));
    src.push_str(&header::entry(WORKGROUP));
    if size < 4 {
        // Lanes per word, log2 of it, bits per lane and the lane mask.
        let (per, sh, bits) = (4 / size, if size == 1 { 2 } else { 1 }, size * 8);
        let mask = if size == 1 { "0xffu" } else { "0xffffu" };
        src.push_str(&format!(
            "  let n = prm({q1}u) - prm({q0}u);
  let ob = prm({ob}u);
  if (t > ((ob + n - 1u) >> {sh}u) - (ob >> {sh}u)) {{ return; }}
  let w = (ob >> {sh}u) + t;
  var word = b{o}[w];
  for (var e = 0u; e < {per}u; e++) {{
    let b = w * {per}u + e;
    if (b >= ob && b - ob < n) {{
      let a = slot(point(prm({q0}u) + (b - ob)));
      let v = (b{s}[a >> {sh}u] >> ((a & {lm}u) * {bits}u)) & {mask};
      word = (word & ~({mask} << (e * {bits}u))) | (v << (e * {bits}u));
    }}
  }}
  b{o}[w] = word;
}}
",
            q0 = prm::Q0,
            q1 = prm::Q1,
            ob = prm::OTHER,
            lm = per - 1,
        ));
    } else {
        let w = words(size);
        src.push_str(&per_point());
        src.push_str(&format!(
            "  let a = slot(c);\n  let o = prm({ob}u) + t * {w}u;\n",
            ob = prm::OTHER
        ));
        for e in 0..w {
            src.push_str(&format!("  b{o}[o + {e}u] = b{s}[a + {e}u];\n"));
        }
        src.push_str("}\n");
    }
    src
}

/// Runs a gather.
pub fn run(ctx: &Context, a: &GatherArgs<'_, WgpuBuffer>) -> Result<()> {
    let size = a.dtype.size() as u64;
    let Some(geo) = Geometry::new(ctx, &a.space, &a.source, a.dtype.size())? else {
        return Ok(());
    };
    let unit = size.min(4);
    let out = |q0: usize, q1: usize| {
        let base = a.output_offset as u64;
        Ok(((base + q0 as u64) * size, (base + q1 as u64) * size))
    };
    let mut spec = None;
    for (q0, q1) in geo.ranges(ctx, usize::MAX, out)? {
        let mut plan = BindingPlan::default();
        let (ilo, ihi) = geo.index_bytes(q0, q1)?;
        let (slo, shi) = geo.table_bytes(q0, q1)?;
        let (olo, ohi) = out(q0, q1)?;
        let bi = plan.add(a.space.index.buffer, Class::W32, Access::Read, ilo, ihi);
        let bs = plan.add(a.source.buffer, Class::W32, Access::Read, slo, shi);
        let bo = plan.add(a.output, Class::W32, Access::ReadWrite, olo, ohi);
        let w = plan.windows(ctx)?;
        let spec = spec.get_or_insert_with(|| {
            let layout = plan.layout();
            ShaderSpec {
                label: format!("gather_{}[{}]", a.space.mode.name(), a.dtype),
                source: source(size, a.space.mode, &layout, bi, bs, bo),
                storage: layout.iter().map(|x| x.1).collect(),
            }
        });
        let mut p = geo.params(q0, q1, w[bi].start);
        operand(&mut p, prm::TABLE, &a.source, size, unit, w[bs].start);
        p[prm::OTHER] = rel(olo, w[bo].start, unit);
        let n = (q1 - q0) as u64;
        let threads = if size < 4 {
            let (ob, per) = (p[prm::OTHER] as u64, 4 / size);
            (ob + n - 1) / per - ob / per + 1
        } else {
            n
        };
        let groups = threads.div_ceil(WORKGROUP as u64);
        dispatch::launch(ctx, spec, &p, &plan, &w, false, groups)?;
    }
    Ok(())
}
