# Session 5, call E: the whole `gpuarrays bench` suite on HIP, then the same workloads
# through PyTorch and CuPy (benches/suite_torch.py): ratio table and plots.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=4 step bench_hip 200 $B/bin-gpuarrays bench --backend hip --json "$OUT/gpuarrays_hip.json"
TAIL=12 step suite_torch 150 python3 benches/suite_torch.py "$OUT/gpuarrays_hip.json" --out "$OUT/suite"
cd "$OUT" && tar czf logs_callE.tgz *.log suite gpuarrays_hip.json
