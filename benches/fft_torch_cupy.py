#!/usr/bin/env python3
"""The cases of benches/fft_throughput.rs with PyTorch and CuPy, on the same GPU and with the
same method: the median over 15 repetitions of (wall time of 20 back-to-back transforms,
between synchronisations) / 20, plans warmed (both libraries cache them).

    python3 benches/fft_torch_cupy.py | tee $OUT/fft_torch_cupy.csv

Prints CSV lines `fft,<torch|cupy>,<case>,<ms>,<GB/s>` (GB/s: input + output bytes once),
the format of the Rust program, so benches/fft_plot.py can join them.
"""

import statistics
import time

REPS, K = 15, 20
CASES = [
    ("c2c_c32_2^24", (1 << 24,), "c32"),
    ("c2c_c32_4096x4096", (4096, 4096), "c32"),
    ("c2c_c32_batch1024x4096", (1024, 4096), "c32"),
    ("r2c_f32_2^24", (1 << 24,), "r2c"),
    ("c2c_c32_prime999983", (999983,), "c32"),
    ("c2c_c64_2^24", (1 << 24,), "c64"),
]


def timed(f, sync):
    for _ in range(3):
        f()
    sync()
    runs = []
    for _ in range(REPS):
        t = time.perf_counter()
        for _ in range(K):
            f()
        sync()
        runs.append((time.perf_counter() - t) / K)
    return statistics.median(runs)


def transform(lib, x, name, kind):
    if kind == "r2c":
        return lambda: lib.fft.rfft(x)
    if "4096x4096" in name:
        return lambda: lib.fft.fft2(x)
    return lambda: lib.fft.fft(x, axis=-1) if lib.__name__ == "cupy" else lib.fft.fft(x, dim=-1)


def run_torch():
    import torch

    for name, shape, kind in CASES:
        dt = {"c32": torch.complex64, "c64": torch.complex128, "r2c": torch.float32}[kind]
        x = (torch.rand(shape, device="cuda") - 0.5).to(dt)
        f = transform(torch, x, name, kind)
        out = f()
        t = timed(f, torch.cuda.synchronize)
        nbytes = x.numel() * x.element_size() + out.numel() * out.element_size()
        print(f"fft,torch,{name},{t * 1e3:.4f},{nbytes / t / 1e9:.0f}", flush=True)
        del x, out
        torch.cuda.empty_cache()


def run_cupy():
    import cupy

    sync = cupy.cuda.Device().synchronize
    for name, shape, kind in CASES:
        dt = {"c32": cupy.complex64, "c64": cupy.complex128, "r2c": cupy.float32}[kind]
        x = (cupy.random.random(shape) - 0.5).astype(dt)
        f = transform(cupy, x, name, kind)
        out = f()
        t = timed(f, sync)
        nbytes = x.nbytes + out.nbytes
        print(f"fft,cupy,{name},{t * 1e3:.4f},{nbytes / t / 1e9:.0f}", flush=True)
        del x, out
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    for run in (run_torch, run_cupy):
        try:
            run()
        except Exception as e:  # a missing library: report and go on with the other
            print(f"# {run.__name__}: {e!r}")
