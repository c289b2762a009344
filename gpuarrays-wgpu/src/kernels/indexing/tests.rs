//! The device's `position` against `IndexMode::position` for axes up to 2^32 − 1 elements
//! (no array of that length fits a test, so the function runs alone in a small kernel).
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

use gpuarrays_core::kernel::IndexMode;

use super::position::{functions, wrap_constant};
use crate::backend::WgpuBackend;
use crate::dispatch::{self, BindingPlan};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::Class;

/// The kernel: `out[t] = position(lo, hi, n, k)` for quads `(lo, hi, n, k)` of binding 1.
fn kernel(mode: IndexMode, storage: &[(Class, Access)]) -> String {
    let mut s = header::declarations(1, storage, false);
    s.push_str(&functions(mode));
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(
        "  if (t >= prm(0u)) { return; }
  b2[t] = position(b1[t * 4u], b1[t * 4u + 1u], b1[t * 4u + 2u], b1[t * 4u + 3u]);
}
",
    );
    s
}

fn cases() -> Vec<(i64, u64)> {
    let extents: [u64; 14] = [
        1,
        2,
        3,
        5,
        7,
        1000,
        65_536,
        (1 << 31) - 1,
        1 << 31,
        (1 << 31) + 1,
        0xdead_beef,
        (1 << 32) - 2,
        (1 << 32) - 1,
        4_000_000_007,
    ];
    let mut out = Vec::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for &n in &extents {
        let ni = n as i64;
        let mut rs = vec![
            0,
            1,
            -1,
            ni - 1,
            ni,
            ni + 1,
            -ni,
            -ni - 1,
            -ni + 1,
            2 * ni,
            -2 * ni,
            i64::MIN,
            i64::MIN + 1,
            i64::MAX,
            i64::MAX - 1,
            1 << 32,
            (1 << 32) - 1,
            (1 << 32) + 1,
            -(1 << 32),
            -(1 << 32) - 1,
            -(1 << 32) + 1,
            1 << 31,
            -(1 << 31),
            (1 << 62) + 12_345,
            -(1 << 62) - 12_345,
        ];
        for _ in 0..40 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            rs.push(x as i64);
            rs.push((x as i64) >> (x % 61));
        }
        out.extend(rs.into_iter().map(|r| (r, n)));
    }
    out
}

#[test]
fn device_positions_match_the_reference_for_every_mode() {
    let backend = match WgpuBackend::new() {
        Ok(b) => b,
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_WGPU").is_ok_and(|v| v == "1");
            assert!(!required, "GPUARRAYS_REQUIRE_WGPU=1 but no adapter: {e}");
            eprintln!("skipped: no wgpu adapter ({e})");
            return;
        }
    };
    let ctx = backend.context();
    let cases = cases();
    let mut words = Vec::with_capacity(cases.len() * 16);
    for &(r, n) in &cases {
        let u = r as u64;
        for w in [u as u32, (u >> 32) as u32, n as u32, wrap_constant(n)] {
            words.extend_from_slice(&w.to_le_bytes());
        }
    }
    let input = ctx
        .upload_buffer(&words, wgpu::BufferUsages::STORAGE)
        .expect("upload");
    let input_id = crate::buffer::next_buffer_id();
    for mode in IndexMode::ALL {
        let out = ctx.alloc(cases.len() * 4).expect("alloc");
        let mut plan = BindingPlan::default();
        plan.add_raw(
            &input,
            input_id,
            Class::W32,
            Access::Read,
            0,
            words.len() as u64,
        );
        plan.add(
            &out,
            Class::W32,
            Access::ReadWrite,
            0,
            cases.len() as u64 * 4,
        );
        let w = plan.windows(ctx).expect("windows");
        let layout = plan.layout();
        let spec = ShaderSpec {
            label: format!("position_{}", mode.name()),
            source: kernel(mode, &layout),
            storage: layout.iter().map(|x| x.1).collect(),
        };
        let groups = (cases.len() as u64).div_ceil(WORKGROUP as u64);
        dispatch::launch(ctx, &spec, &[cases.len() as u32], &plan, &w, false, groups)
            .expect("launch");
        let mut got = vec![0u8; cases.len() * 4];
        ctx.read(&out.buffer, 0, &mut got).expect("read");
        for (i, &(r, n)) in cases.iter().enumerate() {
            let g =
                u32::from_le_bytes([got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]]);
            let want = mode.position(r, n as usize);
            assert_eq!(g as usize, want, "{} of {r} on an axis of {n}", mode.name());
        }
        ctx.release(out);
    }
}
