//! `find`: the ascending positions of the true elements of a bool range, as i64.
//!
//! Pass 1 counts the true elements of each block of 1024; the counts are read back (the
//! caller needs the total on the host anyway, to size the result), turned into block
//! offsets on the host and uploaded; pass 2 has each workgroup scan its block's flags in
//! workgroup memory and write the positions of its true elements from its block's offset.
//! Positions are written as two 32-bit words (value, 0), so no 64-bit arithmetic is needed.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::FindArgs;

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header;
use crate::wgsl::types::{self, Class};

const BLOCK: u32 = 1024;
const LANES: u32 = 256;

fn flags(b: &str) -> String {
    // The 4 flags of thread `lid` in block `g`: elements base .. base + 4.
    format!(
        "  let base = g * {BLOCK}u + lid * 4u;
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
    let mut s = header::declarations(3, storage, false);
    s.push_str("var<workgroup> total: atomic<u32>;\n");
    s.push_str(&header::entry(LANES));
    s.push_str("  if (lid == 0u) { atomicStore(&total, 0u); }\n  workgroupBarrier();\n");
    s.push_str(&flags("b1"));
    s.push_str(
        "  atomicAdd(&total, c);\n  workgroupBarrier();\n  let sum = atomicLoad(&total);\n  if (lid == 0u && g < prm(0u)) { b2[g] = sum; }\n}\n",
    );
    s
}

pub(crate) fn write_source(storage: &[(Class, Access)]) -> String {
    let mut s = header::declarations(4, storage, false);
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
  if (g >= prm(0u)) {{ return; }}
  var at = b2[g] + sh[lid] - c;
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
    let counts = ctx.alloc(blocks * 4)?;
    let result = (|| {
        let mut plan = BindingPlan::default();
        let bi = plan.add(
            a.input,
            Class::W32,
            Access::Read,
            a.offset as u64,
            (a.offset + a.len) as u64,
        );
        plan.add(&counts, Class::W32, Access::ReadWrite, 0, blocks as u64 * 4);
        let w = plan.windows(ctx)?;
        let in_off = (a.offset as u64 - w[bi].start) as u32;
        let layout = plan.layout();
        let spec = ShaderSpec {
            label: "find_count".into(),
            source: count_source(&layout),
            storage: layout.iter().map(|x| x.1).collect(),
        };
        dispatch::launch(
            ctx,
            &spec,
            &[blocks as u32, a.len as u32, in_off],
            &plan,
            &w,
            false,
            blocks as u64,
        )?;
        let mut raw = vec![0u8; blocks * 4];
        ctx.read(&counts.buffer, 0, &mut raw)?;
        let mut offsets = Vec::with_capacity(blocks);
        let mut total = 0u64;
        for c in raw.chunks(4) {
            offsets.push(total as u32);
            total += u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64;
        }
        let total = total as usize;
        let out = ctx.alloc(total * 8)?;
        if total == 0 {
            return Ok((out, 0));
        }
        let off_bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
        let off_buf = ctx.upload_buffer(&off_bytes, wgpu::BufferUsages::STORAGE)?;
        let off_id = crate::buffer::next_buffer_id();
        let r = (|| {
            let mut plan = BindingPlan::default();
            plan.add(
                a.input,
                Class::W32,
                Access::Read,
                a.offset as u64,
                (a.offset + a.len) as u64,
            );
            plan.add_raw(
                &off_buf,
                off_id,
                Class::W32,
                Access::Read,
                0,
                blocks as u64 * 4,
            );
            plan.add(&out, Class::W32, Access::ReadWrite, 0, total as u64 * 8);
            let w = plan.windows(ctx)?;
            let layout = plan.layout();
            let spec = ShaderSpec {
                label: "find_write".into(),
                source: write_source(&layout),
                storage: layout.iter().map(|x| x.1).collect(),
            };
            dispatch::launch(
                ctx,
                &spec,
                &[blocks as u32, a.len as u32, in_off, 0],
                &plan,
                &w,
                false,
                blocks as u64,
            )
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
