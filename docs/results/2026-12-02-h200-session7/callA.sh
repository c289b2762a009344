# Session 7, call A: why test-platforms aborts (two LLVMs), the driver's launch floor,
# racecheck/synccheck and the staged-copy tests at HEAD.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=40 step libs 20 bash -c 'ldconfig -p | grep -iE "amdhip|hiprtc|comgr|LLVM|hsa-runtime|nvrtc|ptxjit|libcuda.so"; ls /opt/rocm* 2>&1 | head'
TAIL=20 step plat_all 60 $B/test-platforms --test-threads=1 --nocapture
for t in every_amd_symbol_resolves_against_the_installed_libamdhip64 amd_platform_creation_never_panics nvidia_platform_creation_is_a_result opening_a_device_with_question_mark_keeps_the_hip_error; do
  TAIL=8 step "plat_$t" 60 $B/test-platforms --exact $t --nocapture
done
TAIL=8 step plat_amd_then_open 60 $B/test-platforms --test-threads=1 --nocapture amd_platform_creation_never_panics opening_a_device
TAIL=8 step plat_sym_then_open 60 $B/test-platforms --test-threads=1 --nocapture every_amd_symbol opening_a_device
TAIL=3 step plat_ld 60 env LD_DEBUG=files $B/test-platforms --test-threads=1 --nocapture amd_platform_creation_never_panics opening_a_device
grep -E "file=|error" $OUT/plat_ld.log | grep -v "calling" | awk '{$1=""; print}' | sort | uniq | head -80 > $OUT/plat_ld_files.log
TAIL=3 step info_ld 60 env LD_DEBUG=files $B/bin-gpuarrays info
grep -E "file=" $OUT/info_ld.log | awk '{$1=""; print}' | sort | uniq | head -80 > $OUT/info_ld_files.log
TAIL=14 step host1 120 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
TAIL=14 step host2 120 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
TAIL=6 step racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test-ordering_across_threads --test-threads=1
TAIL=6 step synccheck 150 compute-sanitizer --tool synccheck --error-exitcode 9 $B/test-ordering_across_threads --test-threads=1
cd "$OUT" && tar czf logs_callA.tgz *.log && rm -f *.log
