# Session 9, call B: the driver's own launch floor measured without gpuarrays (ctypes onto
# libcuda, benches/h200/launch_floor.py) beside our depth split, twice, alternating; then
# benches/hip_sanitizer.sh in full (memcheck over every HIP test binary, cuFFT with eager
# loading, the out-of-memory pass, the stress program with leak check, racecheck and
# synccheck).
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
for i in 1 2; do
  TAIL=8 step "floor_$i" 60 python3 benches/h200/launch_floor.py
  TAIL=7 step "split_$i" 40 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
done
TAIL=45 step sanitizer 470 bash benches/hip_sanitizer.sh
cd "$OUT" && tar czf logs_callB.tgz *.log sanitizer && rm -rf *.log sanitizer
