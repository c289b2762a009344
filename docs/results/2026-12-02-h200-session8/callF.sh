# Session 8, call F (same machine as E, still warm): memcheck with eager module loading over
# every quick FFT row, then the full-size FFT rows with the time left.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export CUDA_MODULE_LOADING=EAGER
TAIL=4 step eager_fft_quick 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter fft
TAIL=4 step eager_fft_full 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --filter fft
cd "$OUT" && tar czf logs_callF.tgz *.log && rm -f *.log
