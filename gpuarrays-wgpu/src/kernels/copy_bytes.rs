//! Byte-exact copies between arbitrary byte offsets: the kernel behind host writes and
//! device copies whose offsets or lengths are not multiples of 4 (wgpu's buffer copies
//! move whole words) and behind copies within one buffer (which wgpu's copy forbids).
//!
//! One thread per destination word: it keeps the bytes outside the range and replaces the
//! bytes inside it, so no two threads write one word.

use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::Result;
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::Class;

/// The kernel's source: binding `src` and `dst` (the same index when one buffer).
pub fn source(storage: &[(Class, Access)], src: usize, dst: usize) -> String {
    let mut s = header::declarations(4, storage, false);
    let (sb, db) = (format!("b{}", src + 1), format!("b{}", dst + 1));
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!(
        "  if (t >= prm(0u)) {{ return; }}
  let w = (prm(1u) >> 2u) + t;
  var word = {db}[w];
  for (var k = 0u; k < 4u; k++) {{
    let p = w * 4u + k;
    if (p >= prm(1u) && p - prm(1u) < prm(2u)) {{
      let q = prm(3u) + (p - prm(1u));
      let v = ({sb}[q >> 2u] >> ((q & 3u) * 8u)) & 0xffu;
      word = (word & ~(0xffu << (k * 8u))) | (v << (k * 8u));
    }}
  }}
  {db}[w] = word;
}}
"
    ));
    s
}

/// Copies `bytes` bytes from `src` at `src_off` to `dst` at `dst_off` (ranges disjoint).
pub fn copy(
    ctx: &Context,
    src: (&wgpu::Buffer, u64),
    src_off: u64,
    dst: &WgpuBuffer,
    dst_off: u64,
    bytes: u64,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    let chunk = (ctx
        .limits
        .max_storage_buffer_binding_size
        .saturating_sub(2 * align)
        / 4
        * 4)
    .max(4);
    let mut done = 0u64;
    while done < bytes {
        let len = chunk.min(bytes - done);
        let (s0, d0) = (src_off + done, dst_off + done);
        let mut plan = BindingPlan::default();
        let sb = plan.add_raw(src.0, src.1, Class::W32, Access::Read, s0, s0 + len);
        let db = plan.add(dst, Class::W32, Access::ReadWrite, d0, d0 + len);
        let windows = plan.windows(ctx)?;
        let layout = plan.layout();
        let spec = ShaderSpec {
            label: "copy_bytes".into(),
            source: source(&layout, sb, db),
            storage: layout.iter().map(|x| x.1).collect(),
        };
        let d_rel = (d0 - windows[db].start) as u32;
        let s_rel = (s0 - windows[sb].start) as u32;
        let words = ((d_rel as u64 + len - 1) >> 2) - (d_rel as u64 >> 2) + 1;
        let params = [words as u32, d_rel, len as u32, s_rel];
        dispatch::launch(
            ctx,
            &spec,
            &params,
            &plan,
            &windows,
            false,
            words.div_ceil(WORKGROUP as u64),
        )?;
        done += len;
    }
    Ok(())
}
