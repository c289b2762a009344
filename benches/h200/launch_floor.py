#!/usr/bin/env python3
"""The CUDA driver's own host cost of launching an empty kernel, measured without gpuarrays:
Python's ctypes straight onto libcuda, on several kinds of stream.

Why: `bench-hip_kernels` (HIP_BENCH_ONLY=host) splits the host time of a tiny op by depth,
and its shallowest depth, `cuLaunchKernel` of an empty kernel, is 3.2-4.5 us on the H200
machines we are lent. This program asks whether that floor is the machine's or comes from
how gpuarrays sets up its context and streams: a process that shares no code with ours
retains the primary context, loads the same empty kernel (as PTX) and times launches on
the legacy default stream, the per-thread default stream, and created streams of each
flag and priority gpuarrays could use.

Method: rounds of 100 back-to-back launches per stream kind, kinds taking turns, the
stream synchronised after each round; per launch = median over rounds of (round time /
100) minus the same loop's cost with a no-op driver call (`cuCtxGetCurrent`) in place of
the launch (the Python loop and the ctypes call). So the figure is the driver's time in
`cuLaunchKernel` itself, comparable to the "driver: empty kernel" row of our split.

    python3 benches/h200/launch_floor.py [--rounds 200]
"""
import argparse
import ctypes
import statistics
import time

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry ga_floor_empty() { ret; }
"""

CU_STREAM_NON_BLOCKING = 1
CU_STREAM_PER_THREAD = 2  # the handle value cuda.h defines for the per-thread stream


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--calls", type=int, default=100)
    a = ap.parse_args()

    cu = ctypes.CDLL("libcuda.so.1")

    def ck(r, what):
        if r != 0:
            raise SystemExit(f"{what} failed: CUresult {r}")

    vp = ctypes.c_void_p
    ck(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = vp()
    ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ck(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    mod = vp()
    ck(cu.cuModuleLoadData(ctypes.byref(mod), PTX), "cuModuleLoadData")
    fn = vp()
    ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"ga_floor_empty"), "cuModuleGetFunction")
    ver = ctypes.c_int()
    ck(cu.cuDriverGetVersion(ctypes.byref(ver)), "cuDriverGetVersion")

    launch = cu.cuLaunchKernel
    u = ctypes.c_uint
    launch.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
    launch.restype = ctypes.c_int
    get_current = cu.cuCtxGetCurrent
    get_current.argtypes = [vp]
    get_current.restype = ctypes.c_int
    sync = cu.cuStreamSynchronize
    sync.argtypes = [vp]

    lo, hi = ctypes.c_int(), ctypes.c_int()
    ck(cu.cuCtxGetStreamPriorityRange(ctypes.byref(lo), ctypes.byref(hi)), "priority range")

    def created(flags, priority):
        s = vp()
        ck(cu.cuStreamCreateWithPriority(ctypes.byref(s), u(flags), ctypes.c_int(priority)),
           "cuStreamCreateWithPriority")
        return s

    kinds = [
        ("legacy default stream (0)", vp(0)),
        ("per-thread default stream", vp(CU_STREAM_PER_THREAD)),
        ("created, blocking, priority 0", created(0, 0)),
        ("created, non-blocking, priority 0 (gpuarrays' pool)", created(CU_STREAM_NON_BLOCKING, 0)),
        (f"created, non-blocking, priority {hi.value} (highest)",
         created(CU_STREAM_NON_BLOCKING, hi.value)),
    ]
    out = ctypes.c_void_p()
    out_ref = ctypes.byref(out)
    calls = a.calls

    def round_launch(stream):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            launch(fn, 1, 1, 1, 1, 1, 1, 0, stream, None, None)
        t = time.perf_counter_ns() - t0
        sync(stream)
        return t / calls

    def round_noop():
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            get_current(out_ref)
        return (time.perf_counter_ns() - t0) / calls

    # Every launch returns CUDA_SUCCESS (checked once per kind, outside the timed loops).
    for name, s in kinds:
        ck(launch(fn, 1, 1, 1, 1, 1, 1, 0, s, None, None), f"launch on {name}")
        sync(s)
    times = {name: [] for name, _ in kinds}
    noop = []
    for r in range(a.rounds):
        order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
        noop.append(round_noop())
        for name, s in order:
            times[name].append(round_launch(s))
    warm = 10
    base = statistics.median(noop[warm:])
    print(f"driver {ver.value}, priority range {lo.value}..{hi.value} (least..greatest), "
          f"{a.rounds - warm} rounds of {calls} calls per kind")
    print(f"  loop + ctypes call (cuCtxGetCurrent): {base / 1e3:.3f} us per call")
    for name, _ in kinds:
        v = times[name][warm:]
        med = statistics.median(v)
        q = statistics.quantiles(v, n=4)
        print(f"  {name:<52} {(med - base) / 1e3:6.3f} us per launch "
              f"(raw {med / 1e3:.3f}, quartiles {q[0] / 1e3:.3f}-{q[2] / 1e3:.3f})")


if __name__ == "__main__":
    main()
