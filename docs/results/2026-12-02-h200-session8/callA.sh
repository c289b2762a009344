# Session 8, call A: the small-op host path before (bench-hip_kernels-base, built at 1d6a33e)
# and after (bench-hip_kernels, HEAD) in one call, alternating; validate and the elementwise
# test binaries on the new launch planning; kernel/launch beside PyTorch/CuPy; and memcheck
# over the FFT rows with only our kernels instrumented.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
for i in 1 2; do
  TAIL=9 step host_new$i 60 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
  TAIL=9 step host_base$i 60 env HIP_BENCH_ONLY=host $B/bench-hip_kernels-base
done
TAIL=3 step validate 150 $B/bin-gpuarrays validate --backend hip
for t in conformance_hip codegen_large_inputs ordering_across_threads; do
  TAIL=2 step "hip_$t" 90 $B/test-$t
done
TAIL=3 step bench_launch 60 $B/bin-gpuarrays bench --backend hip --filter kernel/launch --json "$OUT/launch_hip.json"
TAIL=8 step launch_torch 60 python3 benches/suite_torch.py "$OUT/launch_hip.json" --out "$OUT/launch"
TAIL=30 step sanitizer_options 20 bash -c 'compute-sanitizer --version; compute-sanitizer --help | grep -iE -A2 "kernel-name|lazy|patch|filter"'
TAIL=4 step memcheck_fft_ours 150 compute-sanitizer --tool memcheck --error-exitcode 9 --kernel-name kns=ga_ $B/bin-gpuarrays validate --backend hip --quick --filter fft
cd "$OUT" && tar czf logs_callA.tgz *.log *.json launch && rm -rf *.log *.json launch
