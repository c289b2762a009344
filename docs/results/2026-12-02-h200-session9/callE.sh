# Session 9, call E: why the 1-D radix sort of 2^28 f32 (sorting/1dL) takes 10.5 ms where
# CuPy (CUB) takes 7.1 ms: Nsight Compute over our onesweep pass and histogram kernels and
# over CuPy's sort kernels, same keys, same call.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=4 step bench_ours 60 $B/bin-gpuarrays bench --backend hip --filter sorting/1dL
TAIL=60 step ncu_ours 200 ncu --kernel-name regex:ga_radix --launch-skip 10 --launch-count 5 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats $B/bin-gpuarrays bench --backend hip --filter sorting/1dL
cat > "$OUT/cupy_sort.py" <<'PY'
import cupy as cp
x = cp.random.random(1 << 28, dtype=cp.float32)
for _ in range(3):
    y = cp.sort(x)
cp.cuda.Device().synchronize()
PY
TAIL=60 step ncu_cupy 200 ncu --kernel-name regex:Radix --launch-count 8 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats python3 "$OUT/cupy_sort.py"
cd "$OUT" && tar czf logs_callE.tgz *.log && rm -rf *.log *.py
