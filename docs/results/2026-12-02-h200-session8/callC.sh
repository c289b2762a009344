# Session 8, call C: where `validate --filter fft/c` waits under memcheck: a crude stack walk
# of every thread (stackscan.py: return-address candidates on each thread's stack, as
# library + offset, symbolized afterwards against the unstripped build of the same commit).
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
(compute-sanitizer --tool memcheck $B/bin-gpuarrays validate --backend hip --quick --filter fft/c > "$OUT/fft_memcheck.log" 2>&1 &)
sleep 40
for p in $(pgrep -f "bin-gpuarrays validate"); do
  [[ $(cat /proc/$p/comm) == bin-gpuarrays* ]] || continue
  python3 .gpu/stackscan.py $p > "$OUT/stacks.log" 2>&1
  grep -E "^/|libcu|nvidia|sanitizer" /proc/$p/maps | awk '{print $1, $2, $6}' | grep " r-xp\| r-x" > "$OUT/maps.log"
  awk '$2 ~ /x/' /proc/$p/maps > "$OUT/maps_x.log"
done
pkill -f compute-sanitizer; sleep 1; pkill -9 -f "bin-gpuarrays validate"
head -60 "$OUT/stacks.log"
cd "$OUT" && tar czf logs_callC.tgz *.log && rm -f *.log
