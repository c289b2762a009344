# Session 6, call A: staged host copies: the copy-row sweep beside PyTorch/CuPy
# (benches/h200/staging.sh), then the tests on the GPU (and under memcheck), validate.
export OUT
nproc; lscpu | grep -E "Model name|Socket|NUMA node\(s\)"
DEADLINE=300 bash benches/h200/staging.sh
(cd "$OUT" && rm -f *.log staging_*.json)
source benches/h200/env.sh
B=.gpu/bin
export GPUARRAYS_REQUIRE_GPU=1
TAIL=10 step staged_copy 90 $B/test-staged_copy --test-threads=1
TAIL=3 step pinned_fake 30 $B/test-pinned_fake_platform
TAIL=3 step conformance_hip 100 $B/test-conformance_hip --test-threads=1
TAIL=3 step ordering 60 $B/test-ordering_across_threads --test-threads=1
TAIL=3 step last_use 60 $B/test-last_use_and_memory --test-threads=1
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
TAIL=6 step memcheck_staged 100 $cs --tool memcheck --error-exitcode 9 $B/test-staged_copy --test-threads=1
TAIL=6 step validate 150 $B/bin-gpuarrays validate --backend hip --quick
cd "$OUT" && tar czf logs_callA_tests.tgz *.log && rm -f *.log
