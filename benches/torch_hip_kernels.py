#!/usr/bin/env python3
"""PyTorch side of benches/hip_kernels.rs: the same operations on the same sizes, timed the
same way (median over repetitions of wall time of k back-to-back calls between
synchronisations, divided by k), one JSON object per line on stdout, a table on stderr.

    python3 benches/torch_hip_kernels.py > torch.json
    TORCH_BENCH_ONLY=sort_2p26,cumsum_2p26 python3 benches/torch_hip_kernels.py   # some rows

Row names match the Rust bench's. Sorts are torch.sort (values and indices: PyTorch has no
values-only sort); argmax returns a tensor (no host synchronisation per call).
"""
import json
import os
import statistics
import sys
import time

import torch

N = 1 << 28  # 1 GiB of f32
SIDE = 1 << 14  # 16384 x 16384 f32 = 1 GiB
N26 = 1 << 26
SIDE13 = 1 << 13
GIB = float(1 << 30)


def timed(fn, warm=2, reps=7, k=10):
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
    only = os.environ.get("TORCH_BENCH_ONLY")
    wanted = (lambda n: True) if not only else (lambda n: n in only.split(","))
    g = torch.Generator(device=dev).manual_seed(0)
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}", file=sys.stderr)

    def run(rows):
        for name, nbytes, fn, k in rows:
            if not wanted(name):
                continue
            t = timed(fn, k=k)
            gbps = nbytes / t / 1e9
            print(json.dumps({"name": name, "gbps": round(gbps, 1), "ms": round(t * 1e3, 4)}), flush=True)
            print(f"| {name} | {t * 1e3:.3f} ms | {gbps:.0f} GB/s |", file=sys.stderr, flush=True)

    x = torch.rand(N, device=dev, generator=g)
    y = torch.rand(N, device=dev, generator=g)
    z = torch.empty_like(x)
    m = torch.rand(SIDE, SIDE, device=dev, generator=g)
    run([
        ("axpy", 3 * GIB, lambda: torch.add(y, x, alpha=1.5, out=z), 10),
        ("copy", 2 * GIB, lambda: x.clone(), 10),
        ("randn", GIB, lambda: torch.randn(N, device=dev, generator=g), 10),
        ("sum", GIB, lambda: x.sum(), 10),
        ("cumsum", 2 * GIB, lambda: torch.cumsum(x, 0), 5),
        ("sum_dim0", GIB, lambda: m.sum(dim=0), 10),
        ("sum_dim1", GIB, lambda: m.sum(dim=1), 10),
        ("axpy_unfused", 3 * GIB, lambda: x * 1.5 + y, 10),
    ])
    del x, y, z, m
    torch.cuda.empty_cache()
    xi = torch.arange(-(1 << 26), -(1 << 26) + N // 2, device=dev, dtype=torch.int64)
    run([("cumsum_i64", 2 * GIB, lambda: torch.cumsum(xi, 0), 5)])
    del xi
    torch.cuda.empty_cache()

    b26 = 4.0 * N26
    x = torch.rand(N26, device=dev, generator=g)
    m = torch.rand(SIDE13, SIDE13, device=dev, generator=g)
    x3 = x.reshape(256, 512, 512)
    xd = torch.rand(N26 // 2, device=dev, generator=g, dtype=torch.float64)
    short = {n: x.reshape(N26 // n, n) for n in (128, 256, 512, 1024, 2048)}
    run([
        ("random_2p26", b26, lambda: torch.rand(N26, device=dev, generator=g), 10),
        ("randn_2p26", b26, lambda: torch.randn(N26, device=dev, generator=g), 10),
        ("randn_f64_2p25", b26, lambda: torch.randn(N26 // 2, device=dev, generator=g, dtype=torch.float64), 10),
        ("cumsum_2p26", 2 * b26, lambda: torch.cumsum(x, 0), 10),
        ("cumsum_rows_8192", 2 * b26, lambda: torch.cumsum(m, 1), 10),
        ("cumsum_2p19", 2 * 4.0 * (1 << 19), lambda: torch.cumsum(x[: 1 << 19], 0), 50),
        ("argmax_2p26", b26, lambda: torch.argmax(x), 10),
        ("sum_dim0_8192", b26, lambda: m.sum(dim=0), 10),
        ("sum_dim1_8192", b26, lambda: m.sum(dim=1), 10),
        ("transpose_8192", 2 * b26, lambda: m.t().contiguous(), 10),
        ("permute_210", 2 * b26, lambda: x3.permute(2, 1, 0).contiguous(), 10),
        ("reverse_2p26", 2 * b26, lambda: torch.flip(x, [0]), 10),
        ("sort_2p26", 2 * b26, lambda: torch.sort(x), 3),
        ("sort_rows_8192", 2 * b26, lambda: torch.sort(m, dim=1), 3),
        ("sort_f64_2p25", 2 * b26, lambda: torch.sort(xd), 3),
        *[(f"sort_rows_{n}", 2 * b26, (lambda r=r: torch.sort(r, dim=1)), 3) for n, r in short.items()],
    ])

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
