# Session 9, call A: the closing check of issue 9 at one commit. validate, the whole suite
# beside PyTorch and CuPy, the small-op host figures (five runs, to show their spread), and
# the conformance and ordering tests.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.log" 2>&1
lscpu | grep -E "Model name|^CPU\(s\)|MHz" > "$OUT/cpu.log" 2>&1
TAIL=3 step validate 150 $B/bin-gpuarrays validate --backend hip
TAIL=3 step bench_all 150 $B/bin-gpuarrays bench --backend hip --json "$OUT/suite_hip.json"
TAIL=8 step suite_torch 130 python3 benches/suite_torch.py "$OUT/suite_hip.json" --out "$OUT/suite"
for i in 1 2 3 4 5; do
  TAIL=12 step "host_$i" 40 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
done
for t in conformance_hip ordering_across_threads; do
  TAIL=2 step "hip_$t" 60 $B/test-$t
done
cd "$OUT" && tar czf logs_callA.tgz *.log *.json suite && rm -rf *.log *.json suite
