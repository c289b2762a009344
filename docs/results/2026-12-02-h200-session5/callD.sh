# Session 5, call D: Nsight Compute on the 1 GiB full sums, Int64 and Float32, ours and
# PyTorch's, one launch each (after warm-up launches).
source benches/h200/env.sh
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
NCU="ncu --metrics $M --launch-skip 5 --launch-count 1"
for t in Int64 Float32; do
  TAIL=30 step ncu_ours_$t 90 $NCU --kernel-name regex:ga_rows_block .gpu/bin/bin-gpuarrays bench --backend hip --filter reductions/reduce/$t/1dL
done
for t in int64 float32; do
  TAIL=30 step ncu_torch_$t 90 $NCU --kernel-name regex:reduce python3 -c "
import torch
x = (torch.arange(2**28 if '$t' == 'float32' else 2**27, device='cuda') % 7).to(torch.$t)
for _ in range(8): x.sum()
torch.cuda.synchronize()"
done
cd "$OUT" && tar czf logs_callD.tgz *.log
