# Session 5, call C: memcheck over the quick-suite rows call B did not reach (reverse,
# permute, transpose, sort, find, matmul, every FFT row), nothing else.
source benches/h200/env.sh
echo "commit $(cat .gpu/commit)"
cs=/usr/local/cuda/bin/compute-sanitizer
for f in reverse permute transpose sort find matmul fft; do
  DEADLINE=230 TAIL=3 step memcheck_$f 200 $cs --tool memcheck .gpu/bin/bin-gpuarrays validate --backend hip --quick --filter $f
done
cd "$OUT" && tar czf logs_callC.tgz *.log
