# Session 7, call C: memcheck over the FFT rows (quick sizes, by group) and over test-fft_gpu.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=2 step warm 60 $B/bin-gpuarrays validate --backend hip --quick --filter fft
for f in fft/f fft/c fft/u fft/i fft2/ fftn/; do
  n=memcheck_quick_${f//\//_}
  TAIL=2 step $n 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter $f
done
TAIL=8 step memcheck_fft_gpu 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B/test-fft_gpu --nocapture
cd "$OUT" && tar czf logs_callC.tgz *.log && rm -f *.log
