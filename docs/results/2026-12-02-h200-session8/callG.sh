# Session 8, call G: test-fft_gpu (every FFT kind at the sizes of the GPU tests) under
# memcheck with eager module loading; it hung under the tool in session 7 (call C).
echo "commit $(cat .gpu/commit)"
source .gpu/env.sh
mkdir -p "$OUT"
export CUDA_MODULE_LOADING=EAGER GPUARRAYS_REQUIRE_GPU=1
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 .gpu/bin_fft/test-fft_gpu > "$OUT/memcheck_fft_gpu.log" 2>&1
echo "rc=$?"
tail -6 "$OUT/memcheck_fft_gpu.log"
