# Session 9, call I: where ga_radix_pass spends its time, instruction by instruction (Nsight
# Compute's warp-state sampling over the SASS of one pass of the 2^28 f32 sort), for the next
# session's work on the pass. No code change.
source benches/h200/env.sh
B=.gpu/bin
echo "commit $(cat .gpu/commit)"
TAIL=6 step ncu_pass_full 200 ncu --kernel-name regex:ga_radix_pass --launch-skip 5 --launch-count 1 --set full --import-source no -o "$OUT/pass" $B/bin-gpuarrays bench --backend hip --filter sorting/1dL
TAIL=3 step sass_csv 120 bash -c "ncu -i $OUT/pass.ncu-rep --page source --csv --print-source sass > $OUT/pass_sass.csv; wc -l $OUT/pass_sass.csv; head -3 $OUT/pass_sass.csv"
TAIL=40 step details 60 ncu -i "$OUT/pass.ncu-rep" --page details --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis
cd "$OUT" && tar czf logs_callI.tgz *.log pass_sass.csv && rm -f *.log pass_sass.csv
