//! `find`: the ascending positions of the true elements of a bool range, as i64.
//!
//! Pass 1 counts the true elements of each block of 1024; the counts are read back (the
//! caller needs the total on the host anyway, to size the result), turned into block
//! offsets on the host and uploaded; pass 2 has each workgroup scan its block's flags in
//! workgroup memory and write the positions of its true elements from its block's offset.
//! Positions are written as two 32-bit words (value, 0), so no 64-bit arithmetic is needed.
//! Both passes run over ranges of blocks whose input, counts and positions fit in one
//! binding each.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::FindArgs;

use super::windows::{capacity, rel};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header;
use crate::wgsl::types::{self, Class};

const BLOCK: u32 = 1024;
const LANES: u32 = 256;

// Parameters: 0 end block, 1 len, 2 input offset (bytes, relative to its window,
// wrapping), 3 counts (count pass) or output (write pass) offset in words, 4 first block,
// 5 offsets' offset (write pass).
const PARAMS: usize = 6;

fn flags(b: &str) -> String {
    // The 4 flags of thread `lid` in block `g`: elements base .. base + 4.
    format!(
        "  let blk = g + prm(4u);
  let base = blk * {BLOCK}u + lid * 4u;
  var f: array<bool, 4>;
  var c = 0u;
  for (var e = 0u; e < 4u; e++) {{
    let p = base + e;
    f[e] = p < prm(1u) && {};
    c += select(0u, 1u, f[e]);
  }}
",
        types::load(DType::Bool, b, "(prm(2u) + p)")
    )
}

pub(crate) fn count_source(storage: &[(Class, Access)]) -> String {
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str("var<workgroup> total: atomic<u32>;\n");
    s.push_str(&header::entry(LANES));
    s.push_str("  if (lid == 0u) { atomicStore(&total, 0u); }\n  workgroupBarrier();\n");
    s.push_str(&flags("b1"));
    s.push_str(
        "  atomicAdd(&total, c);\n  workgroupBarrier();\n  let sum = atomicLoad(&total);\n  if (lid == 0u && blk < prm(0u)) { b2[prm(3u) + blk] = sum; }\n}\n",
    );
    s
}

pub(crate) fn write_source(storage: &[(Class, Access)]) -> String {
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str(&format!("var<workgroup> sh: array<u32, {LANES}>;\n"));
    s.push_str(&header::entry(LANES));
    s.push_str(&flags("b1"));
    s.push_str(&format!(
        "  sh[lid] = c;
  workgroupBarrier();
  for (var w = 1u; w < {LANES}u; w = w << 1u) {{
    var v = 0u;
    if (lid >= w) {{ v = sh[lid - w]; }}
    workgroupBarrier();
    sh[lid] = sh[lid] + v;
    workgroupBarrier();
  }}
  if (blk >= prm(0u)) {{ return; }}
  var at = b2[prm(5u) + blk] + sh[lid] - c;
  for (var e = 0u; e < 4u; e++) {{
    if (f[e]) {{
      b3[prm(3u) + at * 2u] = base + e;
      b3[prm(3u) + at * 2u + 1u] = 0u;
      at += 1u;
    }}
  }}
}}
"
    ));
    s
}

/// Ranges of blocks whose input, counts and positions (8 bytes for each element at most)
/// fit in a binding.
fn block_ranges(ctx: &Context, blocks: usize) -> Vec<(usize, usize)> {
    let per = ((capacity(ctx) / (8 * BLOCK as u64)) as usize).max(1);
    (0..blocks)
        .step_by(per)
        .map(|q0| (q0, (q0 + per).min(blocks)))
        .collect()
}

/// Runs `find`; returns the new buffer of i64 positions and their count.
pub fn run(ctx: &Context, a: &FindArgs<'_, WgpuBuffer>) -> Result<(WgpuBuffer, usize)> {
    if a.len as u64 >= u32::MAX as u64 / 4 {
        return Err(WgpuError::LimitExceeded {
            what: format!("find over {} elements", a.len),
            requested: a.len as u64,
            limit: u32::MAX as u64 / 4,
            limit_name: "elements per kernel (32-bit indices)",
            adapter: ctx.adapter_name.clone(),
            hint: "search parts of the array separately",
        });
    }
    let blocks = a.len.div_ceil(BLOCK as usize);
    let ranges = block_ranges(ctx, blocks);
    let input_range = |q0: usize, q1: usize| {
        let lo = a.offset as u64 + (q0 * BLOCK as usize) as u64;
        let hi = a.offset as u64 + (q1 * BLOCK as usize).min(a.len) as u64;
        (lo, hi)
    };
    let counts = ctx.alloc(blocks * 4)?;
    let result = (|| {
        let mut spec = None;
        for &(q0, q1) in &ranges {
            let (lo, hi) = input_range(q0, q1);
            let mut plan = BindingPlan::default();
            let bi = plan.add(a.input, Class::W32, Access::Read, lo, hi);
            let bc = plan.add(
                &counts,
                Class::W32,
                Access::ReadWrite,
                q0 as u64 * 4,
                q1 as u64 * 4,
            );
            let w = plan.windows(ctx)?;
            let spec = spec.get_or_insert_with(|| {
                let layout = plan.layout();
                ShaderSpec {
                    label: "find_count".into(),
                    source: count_source(&layout),
                    storage: layout.iter().map(|x| x.1).collect(),
                }
            });
            let params = [
                q1 as u32,
                a.len as u32,
                rel(a.offset as u64, w[bi].start, 1),
                rel(0, w[bc].start, 4),
                q0 as u32,
                0,
            ];
            dispatch::launch(ctx, spec, &params, &plan, &w, false, (q1 - q0) as u64)?;
        }
        let mut raw = vec![0u8; blocks * 4];
        ctx.read(&counts.buffer, 0, &mut raw)?;
        let mut offsets = Vec::with_capacity(blocks + 1);
        let mut total = 0u64;
        for c in raw.chunks(4) {
            offsets.push(total as u32);
            total += u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64;
        }
        offsets.push(total as u32);
        let total = total as usize;
        let out = ctx.alloc(total * 8)?;
        if total == 0 {
            return Ok((out, 0));
        }
        let off_bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        let off_buf = ctx.upload_buffer(&off_bytes, wgpu::BufferUsages::STORAGE)?;
        let off_id = crate::buffer::next_buffer_id();
        let r = (|| {
            let mut spec = None;
            for &(q0, q1) in &ranges {
                let (o0, o1) = (offsets[q0] as u64, offsets[q1] as u64);
                if o0 == o1 {
                    continue;
                }
                let (lo, hi) = input_range(q0, q1);
                let mut plan = BindingPlan::default();
                let bi = plan.add(a.input, Class::W32, Access::Read, lo, hi);
                let bo_ = plan.add_raw(
                    &off_buf,
                    off_id,
                    Class::W32,
                    Access::Read,
                    q0 as u64 * 4,
                    q1 as u64 * 4,
                );
                let bout = plan.add(&out, Class::W32, Access::ReadWrite, o0 * 8, o1 * 8);
                let w = plan.windows(ctx)?;
                let spec = spec.get_or_insert_with(|| {
                    let layout = plan.layout();
                    ShaderSpec {
                        label: "find_write".into(),
                        source: write_source(&layout),
                        storage: layout.iter().map(|x| x.1).collect(),
                    }
                });
                let params = [
                    q1 as u32,
                    a.len as u32,
                    rel(a.offset as u64, w[bi].start, 1),
                    rel(0, w[bout].start, 4),
                    q0 as u32,
                    rel(0, w[bo_].start, 4),
                ];
                dispatch::launch(ctx, spec, &params, &plan, &w, false, (q1 - q0) as u64)?;
            }
            Ok(())
        })();
        match r {
            Ok(()) => Ok((out, total)),
            Err(e) => {
                ctx.release(out);
                Err(e)
            }
        }
    })();
    ctx.release(counts);
    result
}
