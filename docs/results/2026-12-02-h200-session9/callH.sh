# Session 9, call H: the onesweep pass's tile size for 4-byte keys, swept with
# GPUARRAYS_SORT_PASS_ITEMS (keys per thread; 256 threads per tile), two alternations, on the
# sorting rows; sort rows validated at each size.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
for n in 12 16 20 24; do
  TAIL=1 step "validate_items_$n" 60 env GPUARRAYS_SORT=onesweep GPUARRAYS_SORT_PASS_ITEMS=$n $B/bin-gpuarrays validate --backend hip --filter sort
done
for i in 1 2; do
  for n in 12 16 20 24; do
    TAIL=2 step "sort_items_${n}_$i" 60 env GPUARRAYS_SORT_PASS_ITEMS=$n $B/bin-gpuarrays bench --backend hip --filter sorting/1dL,sorting/2dL --json "$OUT/sort_items_${n}_$i.json"
  done
done
for n in 16 24; do
  TAIL=20 step "ncu_items_$n" 90 env GPUARRAYS_SORT_PASS_ITEMS=$n ncu --kernel-name regex:ga_radix_pass --launch-skip 4 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats $B/bin-gpuarrays bench --backend hip --filter sorting/1dL
done
cd "$OUT" && tar czf logs_callH.tgz *.log *.json && rm -rf *.log *.json
