# Session 6, call G: non-temporal stores in the staged copies' host half, off against on,
# alternated: sizes twice each, the copy rows twice each; the staged-copy tests and memcheck.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
TAIL=3 step memcheck_staged 60 $cs --tool memcheck --error-exitcode 9 $B/test-staged_copy --test-threads=1
lscpu | grep -E "Model name|Flags" | cut -c1-200
for i in 1 2; do
  for st in off on; do
    TAIL=12 GPUARRAYS_HOST_STAGING=stream=$st step sizes_${st}_$i 60 $B/bench-hip_host_copies --reps-mib 512
    TAIL=4 GPUARRAYS_HOST_STAGING=stream=$st step rows_${st}_$i 40 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15
  done
done
cd "$OUT" && tar czf logs_callG.tgz *.log && rm -rf *.log
