# Session 7, call D: the oblong permute tiles on the GPU (large-input permutes against the
# CPU, memcheck of the suite's permute/transpose rows), validate, the whole suite beside
# PyTorch/CuPy, and the test binaries touched this session.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step large_permutes 90 $B/test-codegen_large_inputs --exact large_permutes_match_cpu
for f in permute transpose; do
  TAIL=2 step memcheck_quick_$f 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter $f
done
TAIL=3 step validate 150 $B/bin-gpuarrays validate --backend hip
TAIL=3 step bench_all 130 $B/bin-gpuarrays bench --backend hip --json "$OUT/suite_hip.json"
TAIL=8 step suite_torch 130 python3 benches/suite_torch.py "$OUT/suite_hip.json" --out "$OUT/suite"
for t in platforms staged_copy ordering_across_threads conformance_hip; do
  TAIL=2 step "hip_$t" 60 $B/test-$t
done
cd "$OUT" && tar czf logs_callD.tgz *.log *.json suite && rm -rf *.log *.json suite
