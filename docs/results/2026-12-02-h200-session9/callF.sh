# Session 9, call F: the radix histogram with 16-byte block-striped loads. Correctness (sort
# rows with the automatic choice and with onesweep forced for every type, also under
# memcheck; the large-input sorts), then the sorting rows of the base build (59d568e) and
# the new one alternating, PyTorch/CuPy on the same rows, Nsight Compute on the histogram.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=2 step validate_sort 90 $B/bin-gpuarrays validate --backend hip --filter sort
TAIL=2 step validate_onesweep 90 env GPUARRAYS_SORT=onesweep $B/bin-gpuarrays validate --backend hip --filter sort
TAIL=3 step memcheck_onesweep 120 env GPUARRAYS_SORT=onesweep compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter sort
TAIL=3 step large_sorts 150 $B/test-codegen_large_inputs --exact large_sorts_match_cpu --nocapture
for i in 1 2; do
  TAIL=4 step "sort_base_$i" 60 $B/bin-gpuarrays-base bench --backend hip --filter sorting --json "$OUT/sort_base_$i.json"
  TAIL=4 step "sort_new_$i" 60 $B/bin-gpuarrays bench --backend hip --filter sorting --json "$OUT/sort_new_$i.json"
done
TAIL=12 step sort_torch 120 python3 benches/suite_torch.py "$OUT/sort_new_1.json" --out "$OUT/sort_torch"
TAIL=30 step ncu_hist 90 ncu --kernel-name regex:ga_radix_hist --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats $B/bin-gpuarrays bench --backend hip --filter sorting/1dL
cd "$OUT" && tar czf logs_callF.tgz *.log *.json sort_torch && rm -rf *.log *.json sort_torch
