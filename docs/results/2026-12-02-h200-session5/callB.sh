# Session 5, call B: compute-sanitizer over every gpuarrays-hip test binary and the stress
# program (benches/hip_sanitizer.sh).
source benches/h200/env.sh
echo "commit $(cat .gpu/commit)"
DEADLINE=590 TAIL=40 step sanitizer 585 bash benches/hip_sanitizer.sh
cd "$OUT" && tar czf logs_callB.tgz sanitizer *.log
