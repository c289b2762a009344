#!/usr/bin/env bash
# Interop and observability on the H200: DLPack both ways with PyTorch on the GPU, memory
# statistics and profiler ranges on a real device, the ranges seen by Nsight Compute
# (`ncu --nvtx`), and compute-sanitizer over the DLPack exchange and the memory-limit tests.
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_WGPU=1
CS=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
TAIL=30 step dlpack_torch 120 python3 gpuarrays-io/tests/dlpack_numpy.py $B/lib-dlpack_py_hip.so --torch-cuda
TAIL=12 step memory_stats 60 $B/test-memory_stats --test-threads=1 --nocapture
TAIL=8 step profiler_ranges 60 $B/test-profiler_ranges --test-threads=1
TAIL=4 step example_profile_ranges 60 $B/example-profile_ranges
# Only the kernels inside the `argsort` range: ncu filters by the NVTX range stack
# ("argsort/" = a push/pop range of that name).
TAIL=40 step ncu_nvtx 180 "$NCU" --nvtx --nvtx-include "argsort/" --print-summary per-kernel --metrics gpu__time_duration.sum $B/example-profile_ranges
TAIL=6 step sanitizer_dlpack 120 "$CS" --tool memcheck --leak-check full python3 gpuarrays-io/tests/dlpack_numpy.py $B/lib-dlpack_py_hip.so --torch-cuda
TAIL=6 step sanitizer_memory_limits 120 "$CS" --tool memcheck --report-api-errors no $B/test-memory_limits --test-threads=1
TAIL=6 step sanitizer_memory_stats 60 "$CS" --tool memcheck $B/test-memory_stats --test-threads=1 a_hip_device
cd "$OUT" && tar czf logs_interop.tgz *.log 2>/dev/null; rm -f *.log
