source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_WGPU=1
DEADLINE=${DEADLINE:-560}
TAIL=14 step validate 330 $B/bin-gpuarrays validate
TAIL=4 step graph_replay 60 $B/test-graph_replay --test-threads=1
TAIL=4 step graph_capture 60 $B/test-graph_capture --test-threads=1
TAIL=4 step gather_wgpu 60 $B/test-gather_wgpu
TAIL=4 step scatter_wgpu 60 $B/test-scatter_wgpu
TAIL=14 step bench_graph 60 $B/bin-gpuarrays bench --backend hip --filter graph/ --samples 20 --json $OUT/graph.json
TAIL=8 step bench_graph_wgpu 40 $B/bin-gpuarrays bench --backend wgpu --filter graph/ --samples 10
cd "$OUT" && tar czf logs.tgz *.log *.json 2>/dev/null; rm -f *.log
