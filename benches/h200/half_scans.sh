#!/usr/bin/env bash
# One-pass scans of halves on HIP and graph updates under compute-sanitizer: validate on
# HIP, the large-input scans (halves included), the half/ bench rows with PyTorch and CuPy
# side by side, memcheck over the graph tests and the scan rows. Logs joined in $OUT.
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1
S=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
TAIL=4 step large_scans 150 $B/test-codegen_large_inputs --test-threads=1 large_scans
TAIL=16 step bench 120 $B/bin-gpuarrays bench --backend hip --filter half/,array/accumulate/f32,array/copy --samples 9 --json "$OUT/half.json"
TAIL=24 step suite 120 python3 benches/suite_torch.py "$OUT/half.json" --out "$OUT/suite" --samples 9
TAIL=3 step validate_hip 200 $B/bin-gpuarrays validate --backend hip --filter cum
TAIL=3 step memcheck_graphs 120 $S --tool memcheck --leak-check full --error-exitcode 3 $B/test-graph_replay --test-threads=1
TAIL=3 step memcheck_scans 120 $S --tool memcheck --error-exitcode 3 $B/bin-gpuarrays validate --backend hip --quick --filter cum
cd "$OUT" && tar czf logs_half_scans.tgz *.log half.json suite 2>/dev/null; rm -rf *.log suite
