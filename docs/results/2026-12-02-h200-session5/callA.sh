# Session 5, call A: host time split of the tiny op (3 runs) beside PyTorch's small add,
# then validate on HIP and the HIP conformance tests.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
step smi 20 nvidia-smi -L
for i in 1 2 3; do
  TAIL=14 step host_$i 90 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
  TAIL=2 step torch_small_$i 90 env TORCH_BENCH_ONLY=none python3 benches/torch_hip_kernels.py
done
TAIL=6 step validate 240 $B/bin-gpuarrays validate --backend hip
TAIL=4 step conformance 120 $B/test-conformance_hip --test-threads=4
cd "$OUT" && tar czf logs_callA.tgz *.log
