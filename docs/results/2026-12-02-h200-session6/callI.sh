# Session 6, call I: the final default (f8afb10: streaming host-to-device under 64 MiB,
# device-to-host from 256 MiB) as a whole: tests, sizes, the copy rows beside PyTorch/CuPy.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
TAIL=3 step staged_copy 60 $B/test-staged_copy --test-threads=1
TAIL=12 step sizes 60 $B/bench-hip_host_copies --reps-mib 512
TAIL=3 step rows 40 $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15 --json "$OUT/rows.json"
TAIL=12 step rows_torch 100 python3 benches/suite_torch.py "$OUT/rows.json" --out "$OUT/rows_suite"
cd "$OUT" && tar czf logs_callI.tgz *.log *.json rows_suite && rm -rf *.log *.json rows_suite
