#!/usr/bin/env bash
# Peer copies and collectives on the GPU machine: the collective tests through the real
# NCCL (one rank on one GPU; every device of the machine as one group when it has two or
# more), the two-device tests (skipped, with their reason, on one GPU), the test-double
# versions, the bandwidth bench beside PyTorch (torch.distributed with one process per
# GPU), and memcheck over the collective tests. Pack with `bash benches/h200/pack_multi_gpu.sh`.
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_NCCL=1 NCCL_DEBUG=WARN
# NCCL as PyTorch's wheel ships it (the machine has no system libnccl).
NCCL_HOME=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(os.path.dirname(nvidia.nccl.__file__), "lib"))' 2>/dev/null)
[[ -f "$NCCL_HOME/libnccl.so.2" ]] || NCCL_HOME=$(dirname "$(find / -name 'libnccl.so.2' -not -path '*/proc/*' 2>/dev/null | head -1)")
export NCCL_HOME
echo "NCCL_HOME=$NCCL_HOME"; ls "$NCCL_HOME" 2>/dev/null | head -3
(( $(nvidia-smi -L | wc -l) >= 2 )) && export GPUARRAYS_REQUIRE_MULTI_GPU=1
TAIL=6 step topology 20 nvidia-smi topo -m
TAIL=12 step collectives_gpu 120 $B/test-collectives_gpu --test-threads=1 --nocapture
TAIL=12 step multi_gpu 120 $B/test-multi_gpu --test-threads=1 --nocapture
TAIL=4 step multi_device_fake 60 $B/test-multi_device_fake
TAIL=4 step fake_collectives 60 $B/test-fake_collectives
TAIL=30 step bench_ours 120 $B/bench-hip_multi_gpu --max-mib 1024 --reps 20
TAIL=30 step bench_torch 150 python3 benches/torch_multi_gpu.py --max-mib 1024 --reps 20
TAIL=12 step memcheck 150 compute-sanitizer --tool memcheck --leak-check full $B/test-collectives_gpu --test-threads=1
cd "$OUT" && tar czf logs.tgz *.log 2>/dev/null; rm -f *.log
