# Session 6, call F: background pinning (d8a1c71): the first large copy of a process, sizes,
# the copy rows beside PyTorch/CuPy, the staged-copy tests and memcheck.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
TAIL=3 step memcheck_staged 60 $cs --tool memcheck --error-exitcode 9 $B/test-staged_copy --test-threads=1
for i in 1 2; do TAIL=14 step sizes_$i 60 $B/bench-hip_host_copies --reps-mib 512; done
TAIL=4 step rows 60 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15 --json "$OUT/rows.json"
TAIL=12 step rows_torch 100 python3 benches/suite_torch.py "$OUT/rows.json" --out "$OUT/rows_suite"
TAIL=3 step conformance_hip 100 $B/test-conformance_hip --test-threads=1
cd "$OUT" && tar czf logs_callF.tgz *.log *.json rows_suite && rm -rf *.log *.json rows_suite
