# Session 8, call D: is memcheck over the FFT rows slow or stuck? The same command as call C,
# left to run for up to 420 s, with every process's CPU time sampled every 30 s (the
# sanitizer's front end instruments modules in its own process).
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
start=$SECONDS
(timeout 420 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin-gpuarrays validate --backend hip --quick --filter fft/c > "$OUT/fft_memcheck_long.log" 2>&1; echo "rc=$? after $((SECONDS - start)) s" >> "$OUT/fft_memcheck_long.log") &
for i in $(seq 1 14); do
  sleep 30
  { echo "== t=$((SECONDS - start)) s"; ps -eo pid,ppid,stat,etime,time,pcpu,rss,comm | grep -iE "sanit|launcher|bin-gpuarrays|PID"; tail -c 300 "$OUT/fft_memcheck_long.log"; echo; } >> "$OUT/fft_sampling.log"
  grep -q "^rc=" "$OUT/fft_memcheck_long.log" && break
done
wait
tail -c 3000 "$OUT/fft_sampling.log"; tail -5 "$OUT/fft_memcheck_long.log"
cd "$OUT" && tar czf logs_callD.tgz *.log && rm -f *.log
