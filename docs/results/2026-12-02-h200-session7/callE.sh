# Session 7, call E (ef62fb5): the conformance suite's new short-side permute cases under
# memcheck (quick) and at full size, and the permute rows three times beside PyTorch/CuPy.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
for f in permute transpose; do
  TAIL=2 step memcheck_quick_$f 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter $f
done
TAIL=2 step validate_permute 60 $B/bin-gpuarrays validate --backend hip --filter permute
for i in 1 2 3; do
  TAIL=2 step perm_$i 60 $B/bin-gpuarrays bench --backend hip --filter array/permutedims/ --json "$OUT/perm_$i.json"
  TAIL=9 step perm_torch_$i 60 python3 benches/suite_torch.py "$OUT/perm_$i.json" --out "$OUT/perm_suite_$i"
done
cd "$OUT" && tar czf logs_callE.tgz *.log *.json perm_suite_* && rm -rf *.log *.json perm_suite_*
