# Session 9, call C: is the spread of the small-op host figures between processes the CPU the
# process runs on? The depth split pinned to each of the 16 CPUs in turn (two passes), then
# eight unpinned runs; the machine's CPU topology.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
export GPUARRAYS_REQUIRE_GPU=1
{ lscpu; lscpu -e; nproc; cat /proc/self/status | grep -i allowed; } > "$OUT/topology.log" 2>&1
grep -E "^Model name|^Thread|^Core|^Socket|^NUMA|^L3" "$OUT/topology.log"
row() { # CPU-or-"any" LOG: one line: floor, elementwise, user API (median per call, µs)
  awk -v c="$1" '/driver: empty kernel, no arguments/{f=$6} /^  Backend::elementwise  /{e=$2} /Expr::eval_into \(the user API\) +[0-9]/{u=$5}
    END{printf "cpu %-4s floor %s  elementwise %s  user API %s  user-floor %.3f\n", c, f, e, u, u-f}' "$2"
}
HIP_BENCH_ONLY=host $B/bench-hip_kernels > /dev/null 2>&1   # compiles the kernels once
for pass in 1 2; do
  for c in $(seq 0 15); do
    HIP_BENCH_ONLY=host timeout 30 taskset -c "$c" $B/bench-hip_kernels > "$OUT/pin_${pass}_$c.log" 2>&1
    row "$c" "$OUT/pin_${pass}_$c.log" | tee -a "$OUT/pinned.log"
  done
done
for i in $(seq 1 8); do
  HIP_BENCH_ONLY=host timeout 30 $B/bench-hip_kernels > "$OUT/free_$i.log" 2>&1
  row any "$OUT/free_$i.log" | tee -a "$OUT/unpinned.log"
done
cd "$OUT" && tar czf logs_callC.tgz *.log && rm -f *.log
