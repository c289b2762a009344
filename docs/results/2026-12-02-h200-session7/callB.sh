# Session 7, call B: test-platforms after the RTLD_NODELETE loader (dc4974a); an FFT row
# under memcheck (does cuFFT progress under the tool at all?).
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=14 step plat_parallel_1 60 $B/test-platforms
TAIL=3 step plat_parallel_2 60 $B/test-platforms
TAIL=3 step plat_serial 60 $B/test-platforms --test-threads=1
TAIL=6 step plat_sym_then_open 60 $B/test-platforms --test-threads=1 --nocapture every_amd_symbol opening_a_device
TAIL=6 step plat_reload 60 $B/test-platforms --exact reloading_the_amd_runtime_then_opening_a_device_does_not_abort --nocapture
TAIL=6 step plat_resident 60 $B/test-platforms --exact a_loaded_amd_runtime_stays_resident_after_its_handle_is_dropped --nocapture
TAIL=4 step validate_fft_plain 60 $B/bin-gpuarrays validate --backend hip --quick --filter fft2/c32
TAIL=12 step memcheck_fft 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter fft2/c32
cd "$OUT" && tar czf logs_callB.tgz *.log && rm -f *.log
