#!/usr/bin/env bash
# The graph rows beside torch.cuda.CUDAGraph, the graph tests (memcheck over the update
# path is in tiles_and_scans.sh) and the full `validate` on every backend (wgpu through the
# NVIDIA Vulkan driver: pack with `gpu-pack --vulkan`). Logs joined in $OUT.
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_WGPU=1
F=graph/,array/copy
TAIL=14 step bench_graph 90 $B/bin-gpuarrays bench --backend hip --filter $F --samples 20 --json "$OUT/graph.json"
TAIL=20 step suite_graph 120 python3 benches/suite_torch.py "$OUT/graph.json" --out "$OUT/suite_graph" --samples 20
TAIL=4 step graph_replay 60 $B/test-graph_replay --test-threads=1
TAIL=4 step graph_capture 60 $B/test-graph_capture --test-threads=1
TAIL=16 step validate 330 $B/bin-gpuarrays validate
TAIL=10 step bench_graph_wgpu 40 $B/bin-gpuarrays bench --backend wgpu --filter graph/ --samples 10
cd "$OUT" && tar czf logs.tgz *.log *.json suite_graph 2>/dev/null; rm -rf *.log suite_graph
