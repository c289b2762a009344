#!/usr/bin/env bash
# The HIP runtime's ordering promise on the H200: the pooled-stream take, the stress program
# (threads sharing buffers, writers, frees from other threads, verified against a host
# model), the 10^6-thread soak (RSS, device memory, pooled streams sampled into a CSV and a
# PNG) and compute-sanitizer over the HIP test binaries and the stress program.
source benches/h200/env.sh
B=.gpu/bin
TAIL=8 step take 60 $B/bench-hip_stream_take --samples 2000
TAIL=6 step stress 120 $B/bench-hip_stress --threads 16 --rounds 4000
TAIL=8 step soak 240 sh -c "$B/bench-hip_soak --threads ${SOAK_THREADS:-1000000} --concurrency 16 --sample-every 10000 --csv $OUT/hip_soak.csv; python3 benches/hip_soak/plot.py $OUT/hip_soak.csv $OUT/hip_soak.png"
TAIL=40 step sanitizer 420 bash benches/hip_sanitizer.sh
cd "$OUT" && tar czf logs_concurrency.tgz *.log sanitizer hip_soak.csv 2>/dev/null; rm -rf *.log sanitizer
