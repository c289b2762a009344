#!/usr/bin/env bash
# Gathers, scatters and views on the H200 in one call: `validate` on every backend, the
# HIP conformance and indexing tests, and the `array/index/*`, `array/views/*` and
# `array/sorting/*` (argsort, topk, unique, searchsorted) bench rows side by side with
# PyTorch and CuPy.
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1 GPUARRAYS_REQUIRE_WGPU=1
TAIL=8 step validate 240 $B/bin-gpuarrays validate
TAIL=3 step hip_conformance_hip 60 $B/test-conformance_hip --test-threads=1
TAIL=40 step hip_indexing_gpu 80 $B/test-indexing_gpu --test-threads=1 --nocapture
TAIL=3 step hip_large_argsorts 60 $B/test-codegen_large_inputs large_argsorts --test-threads=1
TAIL=12 step bench_hip 150 $B/bin-gpuarrays bench --backend hip --filter array/index/,array/views/,array/sorting/,array/copy --json "$OUT/bench_hip.json"
TAIL=40 step suite_torch 90 python3 benches/suite_torch.py "$OUT/bench_hip.json" --out "$OUT/suite"
cd "$OUT" && tar czf logs_indexing.tgz *.log suite bench_hip.json 2>/dev/null; rm -rf *.log suite
