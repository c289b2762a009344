# Session 9, call D: the one-pass-per-row scan (59d568e). Correctness (validate; every cum
# row with the row pass forced, also under memcheck; the large-input scans), then the
# accumulate rows with the automatic choice and with the reduce-then-scan forced, two
# alternations, PyTorch/CuPy on the same rows, and Nsight Compute on both kernels.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=2 step validate 150 $B/bin-gpuarrays validate --backend hip
TAIL=2 step validate_rowpass_cum 60 env GPUARRAYS_SCAN=rowpass $B/bin-gpuarrays validate --backend hip --filter cum
TAIL=3 step memcheck_rowpass_cum 90 env GPUARRAYS_SCAN=rowpass compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter cum
TAIL=3 step large_scans 120 $B/test-codegen_large_inputs --exact large_scans_match_cpu --nocapture
for i in 1 2; do
  TAIL=1 step "acc_auto_$i" 60 $B/bin-gpuarrays bench --backend hip --filter accumulate --json "$OUT/acc_auto_$i.json"
  TAIL=1 step "acc_reducescan_$i" 60 env GPUARRAYS_SCAN=reducescan $B/bin-gpuarrays bench --backend hip --filter accumulate --json "$OUT/acc_reducescan_$i.json"
done
python3 - "$OUT" <<'PY' | tee "$OUT/acc_ab.log"
import json, sys, os
out = sys.argv[1]
def rows(f):
    d = json.load(open(os.path.join(out, f)))
    rs = d["rows"] if isinstance(d, dict) and "rows" in d else d
    return {r["name"]: r for r in rs}
runs = {k: [rows(f"acc_{k}_{i}.json") for i in (1, 2)] for k in ("auto", "reducescan")}
names = [n for n in runs["auto"][0] if "accumulate" in n]
print(f"{'row':<40} {'auto (µs)':>20} {'reducescan (µs)':>20} {'speedup':>8}")
for n in names:
    a = [r[n]["median_s"] * 1e6 for r in runs["auto"]]
    b = [r[n]["median_s"] * 1e6 for r in runs["reducescan"]]
    print(f"{n:<40} {a[0]:9.1f} {a[1]:9.1f} {b[0]:9.1f} {b[1]:9.1f} {min(b)/min(a):7.2f}x")
PY
TAIL=40 step acc_torch 120 python3 benches/suite_torch.py "$OUT/acc_auto_1.json" --out "$OUT/acc_torch"
TAIL=6 step hip_rows 60 env HIP_BENCH_ONLY=cumsum_rows_8192,cumsum_rows_8192_reducescan $B/bench-hip_kernels
for k in auto reducescan; do
  env_k=(); [[ $k == reducescan ]] && env_k=(GPUARRAYS_SCAN=reducescan)
  TAIL=30 step "ncu_$k" 120 env "${env_k[@]}" ncu --kernel-name regex:ga_scan --launch-skip 6 --launch-count 3 --section SpeedOfLight --section Occupancy --section LaunchStats $B/bin-gpuarrays bench --backend hip --filter 'accumulate/Int64/dims=1L'
done
cd "$OUT" && tar czf logs_callD.tgz *.log *.json acc_torch && rm -rf *.log *.json acc_torch
