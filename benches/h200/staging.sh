#!/usr/bin/env bash
# Staged host copies (gpuarrays-hip/src/device/staged_copy.rs) on the H200: the copy rows of
# `gpuarrays bench` with staging off (the driver's pageable copy) and under a sweep of
# GPUARRAYS_HOST_STAGING settings, the driver's copy against the staged one by size
# (bench-hip_host_copies), the link's ceiling (PyTorch, pinned memory), and the same rows
# through PyTorch and CuPy (benches/suite_torch.py).
# Run on the GPU machine after benches/h200/pack.sh, with .gpu carried: bash benches/h200/staging.sh
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
sweep=(
  "off"
  "on"
  "threads=1" "threads=2" "threads=4" "threads=16"
  "chunk=2M" "chunk=4M" "chunk=16M" "chunk=32M"
  "slots=2" "slots=4"
  "min=1M"
  "min=1M,chunk=1M,slots=4"
)
for cfg in "${sweep[@]}"; do
  name=staging_${cfg//[=,]/_}
  TAIL=4 GPUARRAYS_HOST_STAGING=$cfg step "$name" 60 \
    $B/bin-gpuarrays bench --backend hip --filter array/copyto/ --samples 15 --json "$OUT/$name.json"
done
TAIL=14 step sizes 60 $B/bench-hip_host_copies --reps-mib 512
# The link's ceiling: 1 GiB between the device and pinned host memory, and PyTorch's
# pageable copies, in one process.
TAIL=8 step link_ceiling 60 python3 - <<'EOF'
import torch, time
n = 1 << 30
d = torch.ones(n // 4, device="cuda")
pin = torch.empty(n // 4, pin_memory=True)
page = torch.empty(n // 4)
page.fill_(1)
def t(f, reps=10):
    f(); torch.cuda.synchronize()
    s = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); torch.cuda.synchronize(); s.append(time.perf_counter() - t0)
    s.sort(); return s[len(s) // 2]
for name, f in [("d2h pinned", lambda: pin.copy_(d)), ("h2d pinned", lambda: d.copy_(pin)),
                ("d2h pageable", lambda: page.copy_(d)), ("h2d pageable", lambda: d.copy_(page))]:
    m = t(f)
    print(f"{name}: {m*1e3:.1f} ms, {n/m/1e9:.1f} GB/s")
EOF
TAIL=14 step suite_torch 150 python3 benches/suite_torch.py "$OUT/staging_on.json" --out "$OUT/suite"
cd "$OUT" && tar czf logs_staging.tgz *.log *.json suite
