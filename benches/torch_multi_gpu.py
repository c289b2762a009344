"""PyTorch's side of benches/hip_multi_gpu.rs, on the same machine and the same sizes.

    python3 benches/torch_multi_gpu.py [--reps 20] [--max-mib 1024]

Peer copies: `x.to('cuda:1')` of an f32 tensor (cudaMemcpyPeerAsync with peer access, as
PyTorch enables it), and the same-device `clone`. All-reduce: `torch.distributed.all_reduce`
(NCCL, in place, sum of f32) with one process per GPU, as PyTorch runs it. Each cell is the
median of `--reps` samples (one call, then a synchronize of every device; wall clock) after
two warm-up calls. The output lines have the Rust program's format.
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def sizes(max_mib):
    return [1 << p for p in range(20, 41, 2) if (1 << p) <= max_mib << 20]


def report(bench, nbytes, seconds, gbps):
    print(f"bench={bench} size_bytes={nbytes} seconds={seconds:.6e} gbps={gbps:.2}", flush=True)
    print(json.dumps({"bench": bench, "size_bytes": nbytes, "seconds": seconds, "gbps": gbps}), flush=True)


def timed(reps, fn, devices):
    def wait():
        for d in devices:
            torch.cuda.synchronize(d)
    for _ in range(2):
        fn()
    wait()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        wait()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def copies(args):
    n = torch.cuda.device_count()
    if n < 2:
        print("peer copies: skipped (one device)")
        return
    print(f"peer access 0 -> 1: {torch.cuda.can_device_access_peer(1, 0)}")
    for nbytes in sizes(args.max_mib):
        a = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda:0")
        t = timed(args.reps, lambda: a.to("cuda:1"), [0, 1])
        report("peer_copy", nbytes, t, nbytes / t / 1e9)
        t = timed(args.reps, lambda: a.clone(), [0, 1])
        report("same_device_copy", nbytes, t, nbytes / t / 1e9)


def rank_main(rank, world, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device(f"cuda:{rank}"))
    if rank == 0:
        print(f"collectives: NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}", flush=True)
    for nbytes in sizes(args.max_mib):
        x = torch.ones(nbytes // 4, dtype=torch.float32, device=f"cuda:{rank}")
        dist.barrier()
        t = timed(args.reps, lambda: dist.all_reduce(x), [rank])
        # Every rank's median; rank 0 reports the slowest (the collective ends with it).
        tt = torch.tensor([t], device=f"cuda:{rank}")
        dist.all_reduce(tt, op=dist.ReduceOp.MAX)
        if rank == 0:
            t = tt.item()
            bus = nbytes / t / 1e9 * 2 * (world - 1) / world
            report(f"all_reduce_{world}", nbytes, t, bus)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--max-mib", type=int, default=1024)
    p.add_argument("--port", type=int, default=29511)
    args = p.parse_args()
    n = torch.cuda.device_count()
    print(f"devices: {n}")
    copies(args)
    mp.spawn(rank_main, args=(n, args, args.port), nprocs=n, join=True)


if __name__ == "__main__":
    main()
