# Session 9, call G: the session's last library code (a9bb07b): validate, and the whole
# suite beside PyTorch and CuPy.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=2 step validate 150 $B/bin-gpuarrays validate --backend hip
TAIL=3 step bench_all 150 $B/bin-gpuarrays bench --backend hip --json "$OUT/suite_hip.json"
TAIL=4 step suite_torch 150 python3 benches/suite_torch.py "$OUT/suite_hip.json" --out "$OUT/suite"
cd "$OUT" && tar czf logs_callG.tgz *.log *.json suite && rm -rf *.log *.json suite
