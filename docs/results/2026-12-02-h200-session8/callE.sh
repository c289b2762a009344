# Session 8, call E: does memcheck over the FFT rows get past the hang of calls C and D when
# every module is loaded at start (CUDA_MODULE_LOADING=EAGER) instead of at a kernel's first
# launch? Once over all kernels, once checking only ours (kns=ga_).
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=4 step eager_all 110 env CUDA_MODULE_LOADING=EAGER compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter fft/c
TAIL=4 step eager_ours 110 env CUDA_MODULE_LOADING=EAGER compute-sanitizer --tool memcheck --error-exitcode 9 --kernel-name kns=ga_ $B/bin-gpuarrays validate --backend hip --quick --filter fft/c
cd "$OUT" && tar czf logs_callE.tgz *.log && rm -f *.log
