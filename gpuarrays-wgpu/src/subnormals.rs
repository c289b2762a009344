//! Whether the opened device flushes subnormals to zero, found out by running a tiny kernel.
//!
//! WGSL lets an implementation flush subnormal floats to zero, and some do: the NVIDIA
//! Vulkan driver flushes f32 subnormals in compute shaders (lavapipe keeps them). A device
//! that flushes cannot match an IEEE reference on subnormal inputs or results, so the
//! backend measures it when a device opens and declares it in
//! [`DeviceInfo::flushes_subnormals`](gpuarrays_core::DeviceInfo::flushes_subnormals); the
//! conformance suite then compares such results under its flush-to-zero rule instead of
//! failing, and says so in its report.
//!
//! The probe reads subnormals from a storage buffer (1e-40 or 1e-310, and the smallest
//! one), computes `x·1 + 0` with a 1 the compiler cannot fold ([`extended::one`]) and a 0
//! read from the buffer, and also halves the smallest normal (a normal input with a
//! subnormal result). The precision flushes if any result differs from its IEEE value.
//! f64 is probed separately, where SHADER_F64 is in use.
//!
//! `GPUARRAYS_WGPU_ASSUME_FTZ=1` (or [`crate::WgpuOptions::assume_ftz`]) declares flushing
//! whatever the probe says, so the suite's flush-to-zero handling can be exercised on a
//! device that keeps subnormals.

use gpuarrays_core::{DType, SubnormalFlush};

use crate::context::Context;
use crate::error::Result;
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::extended;
use crate::wgsl::header::declarations;
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::Class;

/// Set to `1` to declare that the device flushes subnormals (f32, and f64 where in use)
/// without probing.
pub const ASSUME_FTZ_ENV: &str = "GPUARRAYS_WGPU_ASSUME_FTZ";

/// Whether [`ASSUME_FTZ_ENV`] is set to `1` (or `true`).
pub fn assume_ftz_from_env() -> bool {
    std::env::var(ASSUME_FTZ_ENV)
        .map(|v| matches!(v.trim(), "1" | "true" | "yes"))
        .unwrap_or(false)
}

/// Which precisions `ctx`'s device flushes: measured, or all in use if `assume`.
pub(crate) fn detect(ctx: &Context, assume: bool) -> SubnormalFlush {
    if assume {
        let flush = SubnormalFlush {
            f32: true,
            f64: ctx.features.f64,
        };
        tracing::info!(%flush, "wgpu: subnormal flushing assumed ({ASSUME_FTZ_ENV})");
        return flush;
    }
    match measure(ctx) {
        Ok(flush) => {
            tracing::info!(adapter = %ctx.adapter_name, %flush, "wgpu: subnormal flushing probed");
            flush
        }
        Err(e) => {
            tracing::warn!(
                "wgpu: the subnormal probe failed ({e}); assuming IEEE subnormals, so \
                 comparisons stay strict"
            );
            SubnormalFlush::NONE
        }
    }
}

/// Runs the probe kernels: which precisions in use flush (f64 only with SHADER_F64).
pub(crate) fn measure(ctx: &Context) -> Result<SubnormalFlush> {
    Ok(SubnormalFlush {
        f32: probe(ctx, DType::F32)?,
        f64: ctx.features.f64 && probe(ctx, DType::F64)?,
    })
}

/// The probe's inputs of `d` (a +0, 0.5, then the three values whose results are checked)
/// and the results IEEE arithmetic gives.
fn cases(d: DType) -> (Vec<f64>, [f64; 3]) {
    if d == DType::F32 {
        let subs = [1e-40f32, f32::from_bits(1), f32::MIN_POSITIVE];
        let want = [subs[0], subs[1], f32::MIN_POSITIVE * 0.5];
        (
            [0.0, 0.5].into_iter().chain(subs.map(f64::from)).collect(),
            want.map(f64::from),
        )
    } else {
        let subs = [1e-310f64, f64::from_bits(1), f64::MIN_POSITIVE];
        let want = [subs[0], subs[1], f64::MIN_POSITIVE * 0.5];
        ([0.0, 0.5].into_iter().chain(subs).collect(), want)
    }
}

/// Runs the probe kernel for `d`: whether any result differs from its IEEE value.
fn probe(ctx: &Context, d: DType) -> Result<bool> {
    let (inputs, want) = cases(d);
    let f32s = d == DType::F32;
    let mut h = Helpers::default();
    let one = extended::one(&mut h, d);
    let class = if f32s { Class::W32 } else { Class::F64 };
    let (load, store) = if f32s {
        ("bitcast<f32>(b1[{i}])", "bitcast<u32>({v})")
    } else {
        ("b1[{i}]", "{v}")
    };
    let ld = |i: usize| load.replace("{i}", &i.to_string());
    let st = |v: &str| store.replace("{v}", v);
    let source = format!(
        "{}{}@compute @workgroup_size(1)\nfn main() {{\n  let z = {};\n  let half = {};\n  \
         b1[2] = {};\n  b1[3] = {};\n  b1[4] = {};\n}}\n",
        declarations(1, &[(class, Access::ReadWrite)], false),
        h.emit(),
        ld(0),
        ld(1),
        st(&format!("{} * {one}() + z", ld(2))),
        st(&format!("{} * {one}() + z", ld(3))),
        st(&format!("{} * half", ld(4))),
    );
    let spec = ShaderSpec {
        label: format!("subnormal probe {d}"),
        source,
        storage: vec![Access::ReadWrite],
    };
    let bytes: Vec<u8> = if f32s {
        inputs
            .iter()
            .flat_map(|&x| (x as f32).to_le_bytes())
            .collect()
    } else {
        inputs.iter().flat_map(|&x| x.to_le_bytes()).collect()
    };
    let pipeline = ctx.pipelines.get(&ctx.device, &ctx.adapter_name, &spec)?;
    // Word 0 of the parameter block is 1: `one()` is 1.0 unless it is 0xffffffff.
    let params = ctx.upload_buffer(
        &[1u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        wgpu::BufferUsages::UNIFORM,
    )?;
    let data = ctx.upload_buffer(
        &bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    )?;
    let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&spec.label),
        layout: &pipeline.layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: data.as_entire_binding(),
            },
        ],
    });
    ctx.record(|enc| {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&spec.label),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    });
    let mut out = vec![0u8; bytes.len()];
    ctx.read(&data, 0, &mut out)?;
    let got: Vec<f64> = if f32s {
        out.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect()
    } else {
        out.chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect()
    };
    let results = got.get(2..5).unwrap_or(&[]);
    let flushed = results.len() != 3 || results.iter().zip(want).any(|(g, w)| *g != w);
    tracing::debug!(?results, expected = ?want, flushed, "wgpu: {d} subnormal probe");
    Ok(flushed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_inputs_are_subnormal_and_results_ieee() {
        for d in [DType::F32, DType::F64] {
            let (inputs, want) = cases(d);
            assert_eq!(inputs.len(), 5);
            let min = if d == DType::F32 {
                f32::MIN_POSITIVE as f64
            } else {
                f64::MIN_POSITIVE
            };
            // The first two checked inputs and every checked result are subnormal.
            assert!(inputs[2..4].iter().all(|x| *x > 0.0 && *x < min), "{d}");
            assert!(want.iter().all(|x| *x > 0.0 && *x < min), "{d}");
        }
    }
}
