#!/usr/bin/env bash
# Packs what benches/h200/multi_gpu.sh runs into .gpu/ (two builds, as pack.sh says why:
# the HIP tests enable gpuarrays-hip's test double, the bench must not).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
GPU_PACK="${GPU_PACK:-../shared/tools/gpu-pack}"
"$GPU_PACK" -p gpuarrays-hip --test collectives_gpu --test multi_gpu --test multi_device_fake \
  --test fake_collectives 2>&1 | tail -1 || true
rm -rf /tmp/multi-gpu-pack && cp -r .gpu/bin /tmp/multi-gpu-pack
"$GPU_PACK" -p gpuarrays --bench hip_multi_gpu 2>&1 | tail -1 || true
cp -n /tmp/multi-gpu-pack/* .gpu/bin/
ls .gpu/bin
tar -C .gpu -cf - bin | xz -T2 -6 > .gpu/bin.tar.xz
rm -rf .gpu/bin
du -sh .gpu
