# Session 8, call B: the host path before/after as 10 alternating pairs (and 4 pairs pinned
# to one CPU), and where `validate --filter fft/c` stands still under memcheck (threads'
# states, kernel stacks, CPU time; gdb if present), with the run without the tool as control.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
for i in $(seq 1 10); do
  TAIL=0 step ab_new$i 30 env HIP_BENCH_ONLY=host $B/bench-hip_kernels
  TAIL=0 step ab_base$i 30 env HIP_BENCH_ONLY=host $B/bench-hip_kernels-base
done
for i in $(seq 1 4); do
  TAIL=0 step pin_new$i 30 env HIP_BENCH_ONLY=host taskset -c 5 $B/bench-hip_kernels
  TAIL=0 step pin_base$i 30 env HIP_BENCH_ONLY=host taskset -c 5 $B/bench-hip_kernels-base
done
TAIL=3 step fft_plain 60 $B/bin-gpuarrays validate --backend hip --quick --filter fft/c
diag() {
  for p in $(pgrep -f "bin-gpuarrays validate"); do
    [[ $(cat /proc/$p/comm) == bin-gpuarrays* ]] || continue
    echo "== pid $p $(grep -E '^(State|Threads)' /proc/$p/status | tr '\n' ' ')"
    for t in /proc/$p/task/*; do
      echo "tid $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan) stat=$(awk '{print $3, "utime="$14, "stime="$15}' $t/stat) syscall=$(cut -d' ' -f1 $t/syscall 2>/dev/null)"
    done
    for t in /proc/$p/task/*; do echo "-- kernel stack $(basename $t)"; head -8 $t/stack 2>/dev/null; done
    if command -v gdb >/dev/null; then timeout 60 gdb -p $p -batch -ex "thread apply all bt 15" 2>&1 | grep -v "^\[New LWP" | head -300; else echo "no gdb"; fi
  done
}
(compute-sanitizer --tool memcheck $B/bin-gpuarrays validate --backend hip --quick --filter fft/c > "$OUT/fft_memcheck.log" 2>&1 &)
sleep 45; diag > "$OUT/fft_diag1.log" 2>&1
sleep 20; diag > "$OUT/fft_diag2.log" 2>&1
pkill -f compute-sanitizer; sleep 1; pkill -9 -f "bin-gpuarrays validate"
tail -5 "$OUT/fft_memcheck.log"; head -40 "$OUT/fft_diag2.log"
cd "$OUT" && tar czf logs_callB.tgz *.log && rm -f *.log
