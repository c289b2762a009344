#!/usr/bin/env python3
"""PyTorch side of benches/hip_kernels.rs: the same operations on the same sizes, timed the
same way (median over repetitions of wall time of k back-to-back calls between
synchronisations, divided by k), one JSON object per line on stdout, a table on stderr.

    python3 benches/torch_hip_kernels.py > torch.json
"""
import json
import statistics
import sys
import time

import torch

N = 1 << 28  # 1 GiB of f32
SIDE = 1 << 14  # 16384 x 16384 f32 = 1 GiB
GIB = float(1 << 30)


def timed(fn, warm=3, reps=7, k=10):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) / k)
    return statistics.median(ts)


def main():
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(0)
    x = torch.rand(N, device=dev, generator=g)
    y = torch.rand(N, device=dev, generator=g)
    z = torch.empty_like(x)
    m = torch.rand(SIDE, SIDE, device=dev, generator=g)
    rows = [
        ("axpy", 3 * GIB, lambda: torch.add(y, x, alpha=1.5, out=z), {}),
        ("copy", 2 * GIB, lambda: x.clone(), {}),
        ("sum", GIB, lambda: x.sum(), {}),
        ("sum_dim0", GIB, lambda: m.sum(dim=0), {}),
        ("sum_dim1", GIB, lambda: m.sum(dim=1), {}),
        ("cumsum", 2 * GIB, lambda: torch.cumsum(x, 0), dict(warm=2, reps=5, k=5)),
        ("axpy_unfused", 3 * GIB, lambda: x * 1.5 + y, {}),
    ]
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}", file=sys.stderr)
    for name, nbytes, fn, kw in rows:
        t = timed(fn, **kw)
        gbps = nbytes / t / 1e9
        print(json.dumps({"name": name, "gbps": round(gbps, 1), "ms": round(t * 1e3, 4)}))
        print(f"| {name} | {t * 1e3:.3f} ms | {gbps:.0f} GB/s |", file=sys.stderr)
    # Host enqueue of a small op (what a user pays per call), for comparison.
    xs = torch.rand(1024, device=dev)
    ys = torch.rand(1024, device=dev)
    zs = torch.empty_like(xs)
    per_call, per_batch = [], []
    for r in range(60):
        tb = time.perf_counter()
        for _ in range(100):
            t0 = time.perf_counter()
            torch.add(ys, xs, alpha=1.5, out=zs)
            if r >= 5:
                per_call.append(time.perf_counter() - t0)
        if r >= 5:
            per_batch.append((time.perf_counter() - tb) / 100)
        torch.cuda.synchronize()
    call_us = statistics.median(per_call) * 1e6
    batch_us = statistics.median(per_batch) * 1e6
    print(json.dumps({"name": "enqueue_small_us", "us": round(call_us, 2), "batch_us": round(batch_us, 2)}))
    print(f"| host enqueue of a small add (per call / per batch) | {call_us:.2f} / {batch_us:.2f} us |", file=sys.stderr)

if __name__ == "__main__":
    main()
