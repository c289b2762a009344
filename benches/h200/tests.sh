#!/usr/bin/env bash
# Correctness on the H200: validate (HIP, wgpu through Vulkan, CPU), the examples, the HIP
# and wgpu test binaries with hardware required. Logs in $OUT (joined into few files).
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_WGPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
TAIL=12 step info 30 $B/bin-gpuarrays info --verbose
TAIL=8 step validate 240 $B/bin-gpuarrays validate
for e in saxpy reductions choose_backend fft_filter; do TAIL=3 step "ex_$e" 30 $B/example-$e; done
for t in conformance_hip indexing_gpu fft_gpu codegen_large_inputs stream_pool last_use_and_memory ordering_across_threads graph_capture memory_limits staged_copy platforms runtime_backend; do
  TAIL=3 step "hip_$t" 240 $B/test-$t --test-threads=1
done
for t in conformance_wgpu fft_wgpu fft_multipass_wgpu math_accuracy large_operands matmul_long_inner operand_bounds allocation_limits; do
  TAIL=3 step "wgpu_$t" 240 $B/test-$t --nocapture
done
cd "$OUT" && tar czf logs_tests.tgz *.log && rm -f *.log
