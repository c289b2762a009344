# Session 6, call E: the final library code (16 blocks per multiprocessor, staging from
# 1 MiB): the whole suite beside PyTorch/CuPy, the copy rows twice more, sizes, the tests,
# memcheck, validate.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=4 step bench_all 120 $B/bin-gpuarrays bench --backend hip --json "$OUT/suite_hip.json"
TAIL=14 step suite_torch 120 python3 benches/suite_torch.py "$OUT/suite_hip.json" --out "$OUT/suite"
for i in 2 3; do
  TAIL=6 step rows_$i 40 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15
done
TAIL=14 step sizes 60 $B/bench-hip_host_copies --reps-mib 512
for t in staged_copy conformance_hip ordering_across_threads last_use_and_memory stream_pool; do
  TAIL=2 step "hip_$t" 120 $B/test-$t --test-threads=1
done
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
TAIL=3 step memcheck_staged 60 $cs --tool memcheck --error-exitcode 9 $B/test-staged_copy --test-threads=1
TAIL=3 step memcheck_stress 90 $cs --tool memcheck --leak-check full --error-exitcode 9 $B/bench-hip_stress --threads 8 --rounds 60 --len 4096
TAIL=4 step validate 150 $B/bin-gpuarrays validate --backend hip
cd "$OUT" && tar czf logs_callE.tgz *.log *.json suite && rm -rf *.log *.json suite
