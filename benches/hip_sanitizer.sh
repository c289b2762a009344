#!/usr/bin/env bash
# compute-sanitizer over the HIP backend: memcheck over every HIP test binary and
# the stress program, racecheck and synccheck over a subset (the cross-thread ordering tests
# and a short stress run: the kernels with shared memory — reduce, scan, sort, matmul — and
# every operation's kernel run there). Prints each run's "ERROR SUMMARY" line, and exits
# non-zero if a run has errors or did not print one (the tool did not run).
#
# Run on the GPU machine, from the checkout, after packing the test binaries into .gpu/ (see docs/results/ for the pack commands):
#   bash benches/hip_sanitizer.sh            # logs under ${OUT:-/tmp}/sanitizer/
#
# Out-of-memory tests: they ask the driver for more memory than the device has, on purpose;
# memcheck reports that failing API call (CUDA_ERROR_OUT_OF_MEMORY) as an error. They run
# in a pass of their own with API-error reports off (`--report-api-errors no`; memory
# errors are still checked), and are skipped (`--skip out_of_memory`) in the main pass,
# where every other API error counts.
set -uo pipefail
cs=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
bin=.gpu/bin
logs=${OUT:-/tmp}/sanitizer
mkdir -p "$logs"
[ -f .gpu/env.sh ] && source .gpu/env.sh >/dev/null
failed=0
declare -a summary

# run NAME TOOL [sanitizer args...] -- CMD...
run() {
  local name=$1 tool=$2
  shift 2
  local sargs=()
  while [[ $1 != -- ]]; do sargs+=("$1"); shift; done
  shift
  local log="$logs/$tool-$name.log" t0=$SECONDS
  # RUN_ENV: space-separated VAR=value settings for this run only (see FFT below).
  local envs
  read -ra envs <<<"${RUN_ENV:-}"
  timeout "${LIMIT:-150}" env "${envs[@]}" "$cs" --tool "$tool" "${sargs[@]}" "$@" >"$log" 2>&1
  local rc=$? line
  line=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
  # Host-only test binaries (code generation, header checks, fake platforms) make no CUDA
  # call: the tool says so and instruments nothing; that is not a failure.
  if grep -q "terminated before first instrumented API call" "$log" && [[ $rc -eq 255 ]] \
      && grep -q "^test result: ok" "$log"; then
    summary+=("$tool $name: no CUDA call (host-only tests) | $(grep -E '^test result' "$log" | tail -1)")
    return
  fi
  local tests
  tests=$(grep -E "^test result" "$log" | tail -1)
  [[ -z $line ]] && line="NO ERROR SUMMARY (the tool did not run to the end; rc=$rc)"
  summary+=("$tool $name: ${line#========= } | rc=$rc ${tests:+| $tests} | $((SECONDS - t0)) s")
  if [[ $line != *"ERROR SUMMARY: 0 errors"* && $line != *"RACECHECK SUMMARY: 0 hazards"* ]] \
      || [[ $rc -ne 0 ]]; then failed=1; fi
}

# Leaks: test binaries end with blocks in the process-wide memory pool's cache (measured: the
# HIP conformance tests leave 62+ cached blocks at exit), which a leak check reports; only the
# stress program, which synchronises and trims the pool before it exits, runs with
# --leak-check full, so a leak it reports is one of ours.
# Every test binary of gpuarrays-hip (what `gpu-pack -p gpuarrays-hip --tests` packs).
# A test file under gpuarrays-hip/tests/ missing from this list fails the run (below): the list
# was 13 binaries until 2026-12-02, when 8 newer ones were found missing and added.
tests=(test-gpuarrays_hip test-blas_fake_platform test-codegen_fake_platform test-codegen_syntax
       test-combiner_identity test-conformance_hip test-last_use_and_memory test-module_layers
       test-multi_gpu test-ordering_across_threads test-platforms test-rocblas_header
       test-stream_pool test-compile_before_locks test-fft_ordering test-fft_plan_cache
       test-host_path_allocations test-rocfft_header test-unit_math_accuracy
       test-staged_copy test-pinned_fake_platform)
# Test binaries checked another way (below), or not at all, and why:
# - codegen_large_inputs: 2^31-element inputs take minutes even without the tool; only its
#   register sort of every short row length runs under memcheck.
# - fft_gpu: runs below, with eager module loading. Under memcheck with the default lazy
#   loading, cuFFT's rows hung (H200 runs 7 and 8): left 420 s, neither the tool's processes
#   nor ours used CPU, and the FFT's thread waited on a futex inside the tool's library,
#   called from the CUDA driver, called from cuFFT (docs/results/sanitizers.md,
#   run 8, calls C and D). With CUDA_MODULE_LOADING=EAGER (every module loaded when the library
#   is, not at a kernel's first launch) test-fft_gpu passed under memcheck in 10 s on a fresh
#   machine, and every FFT row of the suite, quick and full size, in 3 s and 6 s (calls E-G).
# - codegen_emulated: host-only (the kernel emulator) and 143 s under the tool, which then
#   has nothing to check.
elsewhere=(test-codegen_large_inputs test-fft_gpu test-codegen_emulated)
# Tests that hold a stream busy with a device-side wait on host memory and assert the
# stream reads busy meanwhile: memcheck serialises and instruments launches, so the hold's
# timing claim does not hold under it (they pass without the tool; their memory accesses
# run in the other tests). The HIP conformance suite's full rows under memcheck exceed the
# per-run limit (150 s): it is skipped here; the kernels it runs are launched by the other
# tests of that binary and by the stress program.
held=(--skip streams_with_queued_work_are_skipped --skip a_block_is_not_reused_at_once
      --skip a_use_on_another_thread_waits --skip blocks_are_reused_on_the_same_stream)
slow=(--skip conformance_suite_matches_cpu_reference)
for f in gpuarrays-hip/tests/*.rs; do
  n=test-$(basename "$f" .rs)
  [[ " ${tests[*]} ${elsewhere[*]} " == *" $n "* ]] ||
    { summary+=("NOT IN THE LIST: $n ($f)"); failed=1; }
done
for t in "${tests[@]}"; do
  [[ -x $bin/$t ]] || { summary+=("memcheck $t: MISSING $bin/$t"); failed=1; continue; }
  run "$t" memcheck -- "$bin/$t" --test-threads=4 --skip out_of_memory \
    "${held[@]}" "${slow[@]}"
done
# Large inputs (2^31-element sorts, scans, reductions) take minutes even without the tool:
# under memcheck only the register sort of every short row length (the newest kernel; small
# rows, every length 1..=2048) runs.
run large-inputs-register-sort memcheck -- "$bin/test-codegen_large_inputs" --test-threads=1 \
  register_sort_of_every_short_length
# cuFFT under memcheck needs eager module loading (see fft_gpu above).
RUN_ENV=CUDA_MODULE_LOADING=EAGER run fft_gpu memcheck -- "$bin/test-fft_gpu"
# The conformance suite at its quick sizes through the CLI, under memcheck (every kernel
# family, cuBLAS and cuFFT; eager module loading, for cuFFT's rows).
# It is slow under the tool: 680 of the 850 rows took 420 s on the H200 (2026-12-02), so it
# runs only when asked, in pieces that fit one call, each a `--filter` of the CLI:
#   SANITIZER_VALIDATE=all bash benches/hip_sanitizer.sh           # every row, one run
#   SANITIZER_VALIDATE=sort,matmul,reverse bash benches/hip_sanitizer.sh   # ~1 s each
if [[ -n ${SANITIZER_VALIDATE:-} ]]; then
  IFS=, read -ra pieces <<<"$SANITIZER_VALIDATE"
  for f in "${pieces[@]}"; do
    filter=(--filter "$f"); [[ $f == all ]] && filter=()
    LIMIT=${VALIDATE_LIMIT:-420} RUN_ENV=CUDA_MODULE_LOADING=EAGER run "validate-quick-$f" memcheck -- \
      "$bin/bin-gpuarrays" validate --backend hip --quick "${filter[@]}"
  done
fi
run oom-tests memcheck --report-api-errors no -- "$bin/test-last_use_and_memory" --test-threads=1 out_of_memory
run stress memcheck --leak-check full -- "$bin/bench-hip_stress" --threads 8 --rounds 60 --len 4096

for tool in racecheck synccheck; do
  run ordering "$tool" -- "$bin/test-ordering_across_threads" --test-threads=2
  run stress "$tool" -- "$bin/bench-hip_stress" --threads 6 --rounds 20 --len 4096
done

echo "== compute-sanitizer ($("$cs" --version | grep -i version | head -1)); logs in $logs"
printf '%s\n' "${summary[@]}"
exit $failed
