#!/usr/bin/env bash
# Performance on the H200, side by side in one run: `gpuarrays bench` with PyTorch/CuPy
# (ratio table + plots), the HIP kernel bench with PyTorch, wgpu timestamps, FFT benches
# against raw cuFFT/PyTorch/CuPy, the AnyBackend dispatch cost.
source benches/h200/env.sh
B=.gpu/bin
TAIL=6 step bench_hip 300 $B/bin-gpuarrays bench --backend hip --json "$OUT/gpuarrays_hip.json"
TAIL=30 step suite_torch 200 python3 benches/suite_torch.py "$OUT/gpuarrays_hip.json" --out "$OUT/suite"
TAIL=2 step torch_kernels 120 sh -c "python3 benches/torch_hip_kernels.py > $OUT/torch.json"
TAIL=40 step hip_kernels 200 env TORCH_RESULTS="$OUT/torch.json" $B/bench-hip_kernels
TAIL=30 step wgpu_timings 150 env TORCH_RESULTS="$OUT/torch.json" $B/bench-wgpu_timings
TAIL=10 step any_dispatch 60 $B/bench-any_backend_dispatch
mkdir -p "$OUT/fft"
TAIL=12 step fft_plan_cache 200 sh -c "$B/bench-fft_plan_cache all > $OUT/fft/fft_plan_cache.csv; grep -E '^hotcold|^# churn' $OUT/fft/fft_plan_cache.csv"
TAIL=20 step fft_throughput 150 sh -c "$B/bench-fft_throughput > $OUT/fft/fft_throughput.csv; grep -E '^ratio|^host|largest' $OUT/fft/fft_throughput.csv"
TAIL=10 step fft_torch 120 sh -c "python3 benches/fft_torch_cupy.py > $OUT/fft/fft_torch_cupy.csv"
TAIL=30 step fft_plot 60 sh -c "python3 benches/fft_plot.py $OUT/fft $OUT/fft/fft_plan_cache.csv $OUT/fft/fft_throughput.csv $OUT/fft/fft_torch_cupy.csv; cat $OUT/fft/fft_summary.md"
TAIL=10 step wgpu_fft 120 $B/bench-fft_timings
cd "$OUT" && tar czf logs_benches.tgz *.log suite fft gpuarrays_hip.json torch.json 2>/dev/null; rm -rf *.log suite fft
