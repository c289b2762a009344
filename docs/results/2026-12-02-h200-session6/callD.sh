# Session 6, call D: the split row reduction's grid, 8 against 16 blocks per multiprocessor,
# alternated three times; the small f64 gemm row beside PyTorch three times.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
for i in 1 2 3; do
  for n in 8 16; do
    TAIL=5 GPUARRAYS_REDUCE_BLOCKS=$n step reduce_blocks_${n}_$i 40 $B/bin-gpuarrays bench --backend hip \
      --filter reduce/Int64/1dL,reduce/Float32/1dL --samples 20
  done
done
TAIL=5 step reduce_torch 60 $B/bin-gpuarrays bench --backend hip --filter reduce/Int64/1dL,reduce/Float32/1dL --json "$OUT/reduce.json"
TAIL=8 step reduce_torch_cmp 60 python3 benches/suite_torch.py "$OUT/reduce.json" --out "$OUT/reduce_suite" --no-cupy
for i in 1 2 3; do
  TAIL=3 step gemm_$i 40 $B/bin-gpuarrays bench --backend hip --filter gemm/Float64/256,gemm/Float32/256 --json "$OUT/gemm_$i.json"
  TAIL=6 step gemm_torch_$i 60 python3 benches/suite_torch.py "$OUT/gemm_$i.json" --out "$OUT/gemm_$i" --no-cupy
done
cd "$OUT" && tar czf logs_callD.tgz *.log *.json reduce_suite gemm_* && rm -rf *.log *.json reduce_suite gemm_?
