# Session 7, call F (library code of 71b934d, conformance cases of ef62fb5): compute-sanitizer
# over every gpuarrays-hip test binary (benches/hip_sanitizer.sh), then every one of them
# without the tool.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
DEADLINE=160 TAIL=40 step sanitizer 130 bash benches/hip_sanitizer.sh
for t in gpuarrays_hip platforms conformance_hip stream_pool last_use_and_memory ordering_across_threads multi_gpu staged_copy fft_gpu fft_plan_cache fft_ordering compile_before_locks host_path_allocations unit_math_accuracy codegen_large_inputs; do
  DEADLINE=160 TAIL=1 step "t_$t" 90 $B/test-$t
done
grep -h "^test result" $OUT/t_*.log | sort | uniq -c > $OUT/t_summary.log; cat $OUT/t_summary.log
cd "$OUT" && tar czf logs_callF.tgz *.log sanitizer && rm -rf *.log sanitizer
