#!/usr/bin/env bash
# Builds the executables the H200 scripts run and packs them (xz) into .gpu/, under the
# 64 MiB that can be carried.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
# The packing tool is the build machine's, not part of this repository: it builds release
# binaries of the named packages and targets and copies them into .gpu/bin. GPU_PACK names
# another one.
GPU_PACK="${GPU_PACK:-../shared/tools/gpu-pack}"
# Two packs (the tool empties .gpu/bin each time): the HIP test binaries (the sanitizer
# script runs every one), then everything else. Keep them apart: cargo unifies features
# within one build, so gpuarrays-hip's tests (which enable its `test-double` feature) built
# with the CLI would give the benchmarked binary a library that is not the shipped one.
"$GPU_PACK" -p gpuarrays-hip --tests 2>&1 | tail -1 || true
rm -rf /tmp/h200-pack && cp -r .gpu/bin /tmp/h200-pack
"$GPU_PACK" --vulkan \
  -p gpuarrays-cli --bins \
  -p gpuarrays --examples --bench hip_kernels --bench any_backend_dispatch --bench wgpu_timings \
  --bench fft_throughput --bench fft_plan_cache --bench hip_stress --bench hip_soak \
  --bench hip_stream_take --bench hip_host_copies --test runtime_backend \
  --test memory_stats --test profiler_ranges \
  -p gpuarrays-wgpu --test conformance_wgpu --test math_accuracy --test large_operands \
  --test fft_wgpu --test fft_multipass_wgpu --test matmul_long_inner --test operand_bounds \
  --test allocation_limits --bench fft_timings 2>&1 | tail -1 || true
cp -n /tmp/h200-pack/* .gpu/bin/
# The DLPack test library (a cdylib of its own workspace) with its HIP exports, which
# gpuarrays-io/tests/dlpack_numpy.py --torch-cuda loads into PyTorch's process.
cargo build --release --quiet --manifest-path gpuarrays-io/tests/dlpack_py/Cargo.toml \
  --features hip --target-dir target/dlpack-py
cp target/dlpack-py/release/libgpuarrays_dlpack_py.so .gpu/bin/lib-dlpack_py_hip.so
# Host-only test binaries (the emulator, the fake platforms) need no GPU and would push the
# archive past what can be carried; the H200 scripts do not run them.
rm -f .gpu/bin/test-*emulated .gpu/bin/test-*fake_platform .gpu/bin/example-heat_stencil \
  .gpu/bin/example-kmeans
ls .gpu/bin
tar -C .gpu -cf - bin | xz -T2 -6 > .gpu/bin.tar.xz
rm -rf .gpu/bin
du -sh .gpu
