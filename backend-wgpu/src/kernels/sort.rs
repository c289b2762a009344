//! Sorting rows in place: a bitonic network over order-preserving unsigned keys.
//!
//! Each value becomes a key whose unsigned order is the sort order (integers: sign bit
//! flipped; floats: the IEEE bits with negatives inverted, every NaN the largest key, so
//! NaNs go last), in a temporary of `rows × P` keys (`P` the power of two at or above the
//! row length, padded with the largest key). One dispatch per (k, j) step of the network
//! compares and swaps across all rows; then the keys are turned back into values (a NaN
//! comes back as a NaN; which NaN is not kept). 64-bit types use u64 keys (SHADER_INT64).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::SortArgs;

use super::temp::{pack, temp_dtype, to_temp};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::error::{Result, WgpuError, invalid};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::{self, Class, unit_bytes};

fn wide(d: DType) -> bool {
    d.size() == 8
}

fn key_ty(d: DType) -> &'static str {
    if wide(d) { "u64" } else { "u32" }
}

/// (value → key, key → value) expressions of `v` / `k`.
fn key_fns(h: &mut Helpers, d: DType) -> (String, String) {
    match d {
        DType::Bool => ("select(0u, 1u, v)".into(), "(k != 0u)".into()),
        DType::U8 | DType::U32 | DType::U64 => ("v".into(), "k".into()),
        DType::I32 => (
            "(bitcast<u32>(v) ^ 0x80000000u)".into(),
            "bitcast<i32>(k ^ 0x80000000u)".into(),
        ),
        DType::I64 => (
            "(bitcast<u64>(v) ^ 0x8000000000000000lu)".into(),
            "bitcast<i64>(k ^ 0x8000000000000000lu)".into(),
        ),
        _ => {
            let nan = h.isnan(d);
            let (u, top, max, f) = if d == DType::F32 {
                ("u32", "0x80000000u", "0xffffffffu", "f32")
            } else {
                ("u64", "0x8000000000000000lu", "0xfffffffffffffffflu", "f64")
            };
            (
                format!(
                    "select(select(bitcast<{u}>(v) | {top}, ~bitcast<{u}>(v), (bitcast<{u}>(v) & {top}) != 0{s}), {max}, {nan}(v))",
                    s = if u == "u32" { "u" } else { "lu" }
                ),
                format!(
                    "bitcast<{f}>(select(~k, k & ~{top}, (k & {top}) != 0{s}))",
                    s = if u == "u32" { "u" } else { "lu" }
                ),
            )
        }
    }
}

// Parameters: 0 threads, 1 len, 2 P, 3 value offset (units), 4 k, 5 j, 6 out offset.

pub(crate) fn source(
    d: DType,
    stage: &str,
    storage: &[(Class, Access)],
    bv: usize,
    bk: usize,
) -> String {
    let mut h = Helpers::default();
    let (to_key, from_key) = key_fns(&mut h, d);
    let kt = key_ty(d);
    let max = if wide(d) {
        "0xfffffffffffffffflu"
    } else {
        "0xffffffffu"
    };
    let vb = format!("b{}", bv + 1);
    let kb = format!("b{}", bk + 1);
    let body = match stage {
        "keys" => format!(
            "  let row = t / prm(2u);
  let p = t % prm(2u);
  var key: {kt} = {max};
  if (p < prm(1u)) {{
    let v = {};
    key = {to_key};
  }}
  {kb}[t] = key;
",
            types::load(d, &vb, "(prm(3u) + row * prm(1u) + p)")
        ),
        "step" => format!(
            "  let row = t / prm(2u);
  let p = t % prm(2u);
  let q = p ^ prm(5u);
  if (q <= p) {{ return; }}
  let a = {kb}[row * prm(2u) + p];
  let b = {kb}[row * prm(2u) + q];
  let up = (p & prm(4u)) == 0u;
  if ((a > b) == up && a != b) {{
    {kb}[row * prm(2u) + p] = b;
    {kb}[row * prm(2u) + q] = a;
  }}
"
        ),
        _ => {
            let od = temp_dtype(d);
            format!(
                "  let row = t / prm(1u);
  let p = t % prm(1u);
  let k = {kb}[row * prm(2u) + p];
  let v = {from_key};
  {}
",
                types::store(od, &vb, "prm(6u) + t", &to_temp(d, "v"))
            )
        }
    };
    let mut s = header::declarations(7, storage, false);
    s.push_str(&h.emit());
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&format!("  if (t >= prm(0u)) {{ return; }}\n{body}}}\n"));
    s
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
    let ksize = if wide(d) { 8 } else { 4 };
    let kclass = if wide(d) { Class::U64 } else { Class::W32 };
    let keys = ctx.alloc(slots as usize * ksize)?;
    let total = a.rows * a.len;
    let od = temp_dtype(d);
    let temp = if od != d {
        Some(ctx.alloc(total * 4)?)
    } else {
        None
    };
    let r = (|| {
        let size = d.size() as u64;
        let (vlo, vhi) = (a.offset as u64 * size, (a.offset + total) as u64 * size);
        // Values -> keys.
        let mut plan = BindingPlan::default();
        let bv = plan.add(a.buffer, Class::of(d), Access::Read, vlo, vhi);
        let bk = plan.add(&keys, kclass, Access::ReadWrite, 0, slots * ksize as u64);
        let w = plan.windows(ctx)?;
        let voff = ((vlo - w[bv].start) / unit_bytes(d)) as u32;
        let mut params = [slots as u32, a.len as u32, p as u32, voff, 0, 0, 0];
        let spec = |stage: &str, plan: &BindingPlan<'_>, bv: usize, bk: usize| {
            let layout = plan.layout();
            ShaderSpec {
                label: format!("sort_{stage}[{d}]"),
                source: source(d, stage, &layout, bv, bk),
                storage: layout.iter().map(|x| x.1).collect(),
            }
        };
        let groups = slots.div_ceil(WORKGROUP as u64);
        dispatch::launch(
            ctx,
            &spec("keys", &plan, bv, bk),
            &params,
            &plan,
            &w,
            false,
            groups,
        )?;
        // The network.
        let mut plan_k = BindingPlan::default();
        let bk2 = plan_k.add(&keys, kclass, Access::ReadWrite, 0, slots * ksize as u64);
        let wk = plan_k.windows(ctx)?;
        let step_spec = spec("step", &plan_k, bk2, bk2);
        let mut k = 2usize;
        while k <= p {
            let mut j = k / 2;
            while j > 0 {
                params[4] = k as u32;
                params[5] = j as u32;
                dispatch::launch(ctx, &step_spec, &params, &plan_k, &wk, false, groups)?;
                j /= 2;
            }
            k *= 2;
        }
        // Keys -> values.
        let mut plan_o = BindingPlan::default();
        let (ob, oo) = match &temp {
            Some(t) => (t, 0usize),
            None => (a.buffer, a.offset),
        };
        let osize = od.size() as u64;
        let bo = plan_o.add(
            ob,
            Class::of(od),
            Access::ReadWrite,
            oo as u64 * osize,
            (oo + total) as u64 * osize,
        );
        let bk3 = plan_o.add(&keys, kclass, Access::Read, 0, slots * ksize as u64);
        let wo = plan_o.windows(ctx)?;
        params[0] = total as u32;
        params[6] = ((oo as u64 * osize - wo[bo].start) / unit_bytes(od)) as u32;
        let out_spec = spec("values", &plan_o, bo, bk3);
        dispatch::launch(
            ctx,
            &out_spec,
            &params,
            &plan_o,
            &wo,
            false,
            (total as u64).div_ceil(WORKGROUP as u64),
        )?;
        if let Some(t) = &temp {
            pack(ctx, t, d, a.buffer, a.offset, total)?;
        }
        Ok(())
    })();
    ctx.release(keys);
    if let Some(t) = temp {
        ctx.release(t);
    }
    r
}
