# Session 6, call B: staged copies by size (driver vs staged) under several settings, the
# copy rows with and without staging beside PyTorch/CuPy, the staged-copy tests.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
for cfg in on chunk=16M,slots=4 chunk=32M,slots=3 threads=16 chunk=16M,slots=4,threads=16; do
  name=sizes_${cfg//[=,]/_}
  TAIL=14 GPUARRAYS_HOST_STAGING=$cfg step "$name" 80 $B/bench-hip_host_copies --reps-mib 512
done
for cfg in off on chunk=16M,slots=4; do
  name=rows_${cfg//[=,]/_}
  TAIL=6 GPUARRAYS_HOST_STAGING=$cfg step "$name" 60 \
    $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15 --json "$OUT/$name.json"
done
TAIL=12 step suite_torch 100 python3 benches/suite_torch.py "$OUT/rows_on.json" --out "$OUT/suite"
cd "$OUT" && tar czf logs_callB.tgz *.log *.json suite && rm -rf *.log *.json suite
