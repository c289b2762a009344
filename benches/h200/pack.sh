#!/usr/bin/env bash
# Builds the executables the H200 scripts run and packs them (xz) into .gpu/, under the
# 64 MiB that can be carried.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
../shared/tools/gpu-pack --vulkan \
  -p gpuarrays-cli --bins \
  -p gpuarrays --examples --bench hip_kernels --bench any_backend_dispatch --bench wgpu_timings \
  --bench fft_throughput --bench fft_plan_cache --test runtime_backend \
  -p gpuarrays-hip --test conformance_hip --test fft_gpu --test codegen_large_inputs \
  --test stream_pool --test last_use_and_memory --test platforms \
  -p gpuarrays-wgpu --test conformance_wgpu --test math_accuracy --test large_operands \
  --test fft_wgpu --test fft_multipass_wgpu --bench fft_timings 2>&1 | tail -3 || true
tar -C .gpu -cf - bin | xz -T2 -6 > .gpu/bin.tar.xz
rm -rf .gpu/bin
du -sh .gpu
