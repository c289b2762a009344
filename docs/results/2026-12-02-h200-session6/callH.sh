# Session 6, call H: streaming stores where call G found them faster (stream=auto, the new
# default) against none (stream=off, the default before), alternated twice: sizes and the
# copy rows; then the copy rows beside PyTorch/CuPy at the default; tests and memcheck.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
TAIL=3 step memcheck_staged 60 $cs --tool memcheck --error-exitcode 9 $B/test-staged_copy --test-threads=1
for i in 1 2; do
  for st in off auto; do
    TAIL=12 GPUARRAYS_HOST_STAGING=stream=$st step sizes_${st}_$i 60 $B/bench-hip_host_copies --reps-mib 512
    TAIL=5 GPUARRAYS_HOST_STAGING=stream=$st step rows_${st}_$i 40 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15
  done
done
TAIL=3 step rows 40 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15 --json "$OUT/rows.json"
TAIL=12 step rows_torch 100 python3 benches/suite_torch.py "$OUT/rows.json" --out "$OUT/rows_suite"
cd "$OUT" && tar czf logs_callH.tgz *.log *.json rows_suite && rm -rf *.log *.json rows_suite
