#!/usr/bin/env bash
# The host-bound eager rows of two builds of the CLI, alternating twice on one machine:
#   bash benches/h200/eager_ab.sh OLD NEW
# runs .gpu/bin/bin-gpuarrays-OLD and .gpu/bin/bin-gpuarrays-NEW, each built alone with
#   cargo build --release -p gpuarrays-cli --no-default-features --features hip --bins
# (no other target in the build: cargo unifies features within one build, see pack.sh).
# Then, if packed, the collective tests and the one-rank bench beside PyTorch (multi_gpu.sh's
# steps). Logs joined in $OUT.
source benches/h200/env.sh
B=.gpu/bin
F=kernel/launch,graph/chain100/eager,graph/mlp_step/eager
for round in 1 2; do
  for v in "$1" "$2"; do
    TAIL=6 step "ab_${v}_$round" 60 $B/bin-gpuarrays-$v bench --backend hip --sizes small --filter $F --samples 15
  done
done
if [[ -x $B/test-collectives_gpu ]]; then
  export GPUARRAYS_REQUIRE_NCCL=1 NCCL_DEBUG=WARN
  TAIL=6 step collectives_gpu 120 $B/test-collectives_gpu --test-threads=1
  TAIL=14 step bench_ours 100 $B/bench-hip_multi_gpu --max-mib 1024 --reps 20
  TAIL=14 step bench_torch 150 python3 benches/torch_multi_gpu.py --max-mib 1024 --reps 20
fi
cd "$OUT" && tar czf logs.tgz *.log 2>/dev/null; rm -f *.log
