//! `search_sorted`: insertion points of u32 or u64 keys in an ascending table of keys, one
//! invocation per value, by a branch-free binary search over the whole table.
//!
//! Keys are read as words (a u64 key as its low and high words, compared high word first),
//! so no 64-bit arithmetic is needed and every adapter runs it; answers are written as two
//! words (value, 0). The table is bound whole; the values and the answers run in ranges
//! whose bytes fit a binding beside it. Every read is a position inside the table, so a
//! table that is not sorted gives unspecified answers in `0..=table_len`, nothing worse.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{SearchArgs, Side};

use super::windows::{capacity, for_ranges, rel};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::Class;

// Parameters: 0 table offset (words, relative to its window), 1 table length, 2 values'
// offset (words), 3 output offset (words), 4 values in this range.
const PARAMS: usize = 5;

/// The kernel for keys of `words` words (1 or 2), the table, values and output at bindings
/// `bt`, `bv`, `bo` (0-based).
pub(crate) fn source(
    words: u32,
    side: Side,
    storage: &[(Class, Access)],
    [bt, bv, bo]: [usize; 3],
) -> String {
    let (t, v, o) = (bt + 1, bv + 1, bo + 1);
    let key = |b: usize, base: &str| match words {
        1 => format!("vec2<u32>(b{b}[{base} + i], 0u)"),
        _ => format!("vec2<u32>(b{b}[{base} + 2u * i], b{b}[{base} + 2u * i + 1u])"),
    };
    let low = match side {
        Side::Left => "<",
        Side::Right => "<=",
    };
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str(&format!(
        "fn table_key(i: u32) -> vec2<u32> {{ return {tk}; }}
fn value_key(i: u32) -> vec2<u32> {{ return {vk}; }}
// Whether table key x comes before value v: smaller (left side) or not larger (right side).
fn before(x: vec2<u32>, v: vec2<u32>) -> bool {{
  if (x.y != v.y) {{ return x.y < v.y; }}
  return x.x {low} v.x;
}}
",
        tk = key(t, "prm(0u)"),
        vk = key(v, "prm(2u)"),
    ));
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!(
        "  if (t >= prm(4u)) {{ return; }}
  let v = value_key(t);
  var base = 0u;
  var n = prm(1u);
  loop {{
    if (n <= 1u) {{ break; }}
    let half = n >> 1u;
    base = select(base, base + half, before(table_key(base + half), v));
    n = n - half;
  }}
  let at = base + select(0u, 1u, before(table_key(base), v));
  b{o}[prm(3u) + 2u * t] = at;
  b{o}[prm(3u) + 2u * t + 1u] = 0u;
}}
"
    ));
    s
}

/// Runs a search.
pub fn run(ctx: &Context, a: &SearchArgs<'_, WgpuBuffer>) -> Result<()> {
    let size = a.dtype.size() as u64;
    let words = match a.dtype {
        DType::U32 => 1,
        _ => 2,
    };
    let cap = capacity(ctx);
    let table_bytes = a.table_len as u64 * size;
    if table_bytes + 16 * WORKGROUP as u64 > cap || a.table_len as u64 >= u32::MAX as u64 {
        return Err(WgpuError::LimitExceeded {
            what: format!("searchsorted in a table of {} keys", a.table_len),
            requested: table_bytes,
            limit: cap,
            limit_name: "bytes of one storage binding (the table is bound whole)",
            adapter: ctx.adapter_name.clone(),
            hint: "search the table's halves separately and add the first half's length to the second's answers",
        });
    }
    let (tlo, thi) = (
        a.table_offset as u64 * size,
        (a.table_offset + a.table_len) as u64 * size,
    );
    let (vbase, obase) = (a.values_offset as u64 * size, a.output_offset as u64 * 8);
    let room = cap - table_bytes;
    let fits = |q0: usize, q1: usize| {
        ((q1 - q0) as u64) * (size + 8) <= room && q1 - q0 <= u32::MAX as usize / 2
    };
    let mut spec = None;
    for_ranges(a.len, fits, |q0, q1| {
        let mut plan = BindingPlan::default();
        let bt = plan.add(a.table, Class::W32, Access::Read, tlo, thi);
        let (vlo, vhi) = (vbase + q0 as u64 * size, vbase + q1 as u64 * size);
        let bv = plan.add(a.values, Class::W32, Access::Read, vlo, vhi);
        let (olo, ohi) = (obase + q0 as u64 * 8, obase + q1 as u64 * 8);
        let bo = plan.add(a.output, Class::W32, Access::ReadWrite, olo, ohi);
        let w = plan.windows(ctx)?;
        let spec = spec.get_or_insert_with(|| {
            let layout = plan.layout();
            ShaderSpec {
                label: format!("search_{:?}[{}]", a.side, a.dtype),
                source: source(words, a.side, &layout, [bt, bv, bo]),
                storage: layout.iter().map(|x| x.1).collect(),
            }
        });
        let params = [
            rel(tlo, w[bt].start, 4),
            a.table_len as u32,
            rel(vlo, w[bv].start, 4),
            rel(olo, w[bo].start, 4),
            (q1 - q0) as u32,
        ];
        let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
        dispatch::launch(ctx, spec, &params, &plan, &w, false, groups)
    })
}
