#!/usr/bin/env bash
# One call for two changes (the machine starts are the scarce part): the tiled elementwise
# kernel (binaries before the change in .gpu/base, after in .gpu/bin) and the one-pass half
# scans. Most important first; steps past DEADLINE are skipped. Logs joined in $OUT.
source benches/h200/env.sh
B=.gpu/bin
O=.gpu/base
export GPUARRAYS_REQUIRE_GPU=1
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
T=array/permutedims,array/views/axpy,array/views/concatenate,array/copy
TAIL=9 step tiles_base 80 $O/bin-gpuarrays bench --backend hip --sizes large --filter $T --samples 9 --json "$OUT/base.json"
TAIL=20 step new 150 $B/bin-gpuarrays bench --backend hip --filter $T,half/,array/accumulate/f32 --samples 9 --json "$OUT/new.json"
TAIL=9 step tiles_base2 80 $O/bin-gpuarrays bench --backend hip --sizes large --filter $T --samples 9 --json "$OUT/base2.json"
TAIL=30 step suite 150 python3 benches/suite_torch.py "$OUT/new.json" --out "$OUT/suite" --samples 9
for f in permute transpose cum; do
  TAIL=2 step validate_$f 80 $B/bin-gpuarrays validate --backend hip --filter $f
done
TAIL=4 step large 150 $B/test-codegen_large_inputs --test-threads=1 large_permutes large_scans
TAIL=3 step memcheck_graphs 100 $S --tool memcheck --leak-check full --error-exitcode 3 $B/test-graph_replay --test-threads=1
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size
for v in base bin; do
  TAIL=30 step ncu_$v 40 $N --metrics $M -k regex:ga_ew --launch-count 4 .gpu/$v/bin-gpuarrays bench --backend hip --sizes large --filter array/permutedims/2d --samples 1
done
TAIL=3 step memcheck_rows 100 $S --tool memcheck --error-exitcode 3 $B/bin-gpuarrays validate --backend hip --quick --filter permute
TAIL=3 step memcheck_scans 100 $S --tool memcheck --error-exitcode 3 $B/bin-gpuarrays validate --backend hip --quick --filter cum
cd "$OUT" && tar czf logs.tgz *.log *.json suite 2>/dev/null; rm -rf *.log suite
