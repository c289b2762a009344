#!/usr/bin/env bash
# The tiled elementwise kernel (permutes, transposed operands): the binaries before the
# change (.gpu/base) and after (.gpu/bin) benched alternately in one call, PyTorch and CuPy
# beside the new ones, the permute/transpose rows of the suite, the large-input permutes,
# and memcheck over the permute rows. Logs joined in $OUT.
source benches/h200/env.sh
B=.gpu/bin
O=.gpu/base
export GPUARRAYS_REQUIRE_GPU=1
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F=array/permutedims,array/views/axpy,array/views/concatenate,array/copy
for r in 1 2; do
  TAIL=9 step base_$r 80 $O/bin-gpuarrays bench --backend hip --sizes large --filter $F --samples 9 --json "$OUT/base_$r.json"
  TAIL=9 step new_$r 80 $B/bin-gpuarrays bench --backend hip --sizes large --filter $F --samples 9 --json "$OUT/new_$r.json"
done
TAIL=16 step suite 120 python3 benches/suite_torch.py "$OUT/new_1.json" --out "$OUT/suite" --samples 9
for f in permute transpose concatenate add; do
  TAIL=2 step validate_$f 60 $B/bin-gpuarrays validate --backend hip --filter $f
done
TAIL=4 step large_permutes 100 $B/test-codegen_large_inputs --test-threads=1 large_permutes
TAIL=3 step memcheck_permute 100 $S --tool memcheck --error-exitcode 3 $B/bin-gpuarrays validate --backend hip --quick --filter permute
cd "$OUT" && tar czf logs_tiles.tgz *.log *.json suite 2>/dev/null; rm -rf *.log suite
