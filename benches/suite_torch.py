#!/usr/bin/env python3
"""PyTorch and CuPy side of `gpuarrays bench`: the same workloads, same names, same sizes, timed
the same way, in the same run on the same GPU, then a ratio table (markdown) and PNG plots.

    gpuarrays bench --backend hip --json $OUT/gpuarrays.json
    python3 benches/suite_torch.py $OUT/gpuarrays.json --out $OUT

It reads the rows of gpuarrays' result file: each row carries `params` (operation, element
type, shapes), so this script runs exactly what gpuarrays ran, under the row's name; a row
whose operation has no PyTorch/CuPy counterpart here is listed as such, never guessed.

Timing, as gpuarrays' HIP timer: CUDA events on the current stream around k back-to-back
calls (k chosen so that one sample lasts about 2 ms), 2 warm-up calls, the median over
`--samples` samples of (elapsed / k). `kernel/launch` and rows whose params say `"host": true`
(`fft/.../cached-call`) are host time per call, as in gpuarrays. FFT rows (`"op": "fft"`) run
torch.fft.fftn / rfftn and cupy.fft.fftn / rfftn over the row's axes (each library with its
own plan cache, warm after the warm-up calls).
Matrix products run with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False; CuPy does
not use TF32 unless CUPY_TF32 is set).

Writes into --out: torch_cupy.json (every measurement), ratios.md (the table), and
ratios_small.png, ratios_large.png, bandwidth_large.png (matplotlib, if installed).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

TARGET_SAMPLE_S = 2e-3
MAX_CALLS = 2000

TORCH_DTYPES = {"f32": "float32", "f64": "float64", "i64": "int64", "i32": "int32",
                "bool": "bool", "c32": "complex64", "c64": "complex128",
                "f16": "float16", "bf16": "bfloat16"}


def median_time(run, sync, event, samples, host=False):
    """Seconds per call: the method of gpuarrays' bench (see the module docstring)."""
    for _ in range(2):
        run()
    sync()
    if host:
        per = []
        for _ in range(samples):
            t0 = time.perf_counter()
            for _ in range(100):
                run()
            per.append((time.perf_counter() - t0) / 100)
            sync()
        return statistics.median(per), 100

    def timed(k):
        start, end = event(), event()
        start.record()
        for _ in range(k):
            run()
        end.record()
        end.synchronize()
        return start_end_seconds(start, end) / k

    one = timed(1)
    k = MAX_CALLS if one <= 0 else max(1, min(MAX_CALLS, math.ceil(TARGET_SAMPLE_S / one)))
    return statistics.median(timed(k) for _ in range(samples)), k


def host_timed(p):
    """Rows timed on the host per call (gpuarrays' `Timing::Host`): `kernel/launch` and the
    rows whose params say `"host": true` (the cached FFT call)."""
    return p["op"] == "launch" or bool(p.get("host"))


def start_end_seconds(start, end):
    # torch.cuda.Event.elapsed_time(end) and cupy.cuda.get_elapsed_time(start, end): ms
    if hasattr(start, "elapsed_time"):
        return start.elapsed_time(end) * 1e-3
    import cupy
    return cupy.cuda.get_elapsed_time(start, end) * 1e-3


# ---------------------------------------------------------------------------------------------
# PyTorch

def torch_workload(torch, p):
    """A zero-argument callable running row `p`'s operation once, or None if unsupported."""
    dev = torch.device("cuda")
    op, dtype = p["op"], getattr(torch, TORCH_DTYPES.get(p.get("dtype", "f32"), "float32"))
    dims = p.get("dims")
    g = torch.Generator(device=dev).manual_seed(1)

    def data(shape, dt=dtype):
        if dt.is_floating_point or dt.is_complex:
            return torch.rand(shape, device=dev, generator=g, dtype=dt)
        return torch.arange(math.prod(shape), device=dev, dtype=dt).reshape(shape)

    axis = p.get("axis")
    if op == "copy":
        x = data(dims)
        return lambda: x.clone()
    if op == "cpu_to_gpu":
        x, h = torch.empty(dims, device=dev, dtype=dtype), torch.zeros(dims, dtype=dtype)
        return lambda: x.copy_(h)
    if op == "gpu_to_cpu":
        x, h = data(dims), torch.empty(dims, dtype=dtype)
        return lambda: h.copy_(x)
    if op == "gpu_to_gpu":
        x, y = data(dims), torch.empty(dims, device=dev, dtype=dtype)
        return lambda: y.copy_(x)
    if op == "fill":
        x = torch.empty(dims, device=dev, dtype=dtype)
        return lambda: x.fill_(0)
    if op in ("axpy", "launch"):
        x, y, z = data(dims), data(dims), torch.empty(dims, device=dev, dtype=dtype)
        return lambda: torch.add(y, x, alpha=1.5, out=z)
    if op == "cast":
        to = getattr(torch, TORCH_DTYPES[p["to"]])
        x, y = data(dims), torch.empty(dims, device=dev, dtype=to)
        return lambda: y.copy_(x)
    if op == "cumsum":
        x = data(dims)
        return lambda: torch.cumsum(x, axis)
    if op == "sum":
        x = data(dims)
        return (lambda: x.sum()) if axis is None else (lambda: x.sum(dim=axis))
    if op == "mapreduce_plus1_sum":
        x = data(dims)
        return (lambda: (x + 1).sum()) if axis is None else (lambda: (x + 1).sum(dim=axis))
    if op == "reverse":
        x = data(dims)
        return lambda: torch.flip(x, [axis])
    if op == "permute":
        x, axes = data(dims), p["axes"]
        return lambda: x.permute(*axes).contiguous()
    if op == "slice_copy":
        x = data(dims)
        return lambda: x[::2, 1::2].contiguous()
    if op == "axpy_view":
        x = data(dims)
        src = x.t() if p["transposed"] else x
        out = torch.empty(src.shape, device=dev, dtype=dtype)
        return lambda: torch.add(torch.mul(src, 2.0), 1.0, out=out)
    if op == "assign_columns":
        dst = data(dims)[:, ::2]
        src = data(dst.shape)
        return lambda: dst.copy_(src)
    if op == "concatenate":
        x, y = data(dims), data(dims)
        return lambda: torch.cat([x, y], dim=p["axis"])
    if op == "pad":
        x = data(dims)
        return lambda: torch.nn.functional.pad(x, (1, 1, 1, 1))
    if op == "index_select":
        x = data(dims)
        i = torch.randint(0, dims[0], (p["count"],), device=dev, generator=g)
        return lambda: torch.index_select(x, 0, i)
    if op == "take_along_axis":
        x = data(dims)
        i = torch.randint(0, dims[1], tuple(dims), device=dev, generator=g)
        return lambda: torch.gather(x, 1, i)
    if op == "scatter_add":
        t, x = torch.zeros(dims, device=dev, dtype=dtype), data(dims)
        i = torch.randint(0, p["bins"], tuple(dims), device=dev, generator=g)
        return lambda: t.scatter_add_(0, i, x)
    if op == "bincount":
        i = torch.randint(0, p["bins"], tuple(dims), device=dev, generator=g)
        return lambda: torch.bincount(i, minlength=p["bins"])
    if op == "masked_select":
        x = data(dims)
        m = torch.rand(dims, device=dev, generator=g) > 0.5
        return lambda: torch.masked_select(x, m)
    if op == "rand":
        return lambda: torch.rand(dims, device=dev, dtype=dtype)
    if op == "randn":
        return lambda: torch.randn(dims, device=dev, dtype=dtype)
    if op == "sort":
        x = data(dims)
        return lambda: torch.sort(x, dim=-1)
    if op == "argsort":
        x = data(dims)
        return lambda: torch.argsort(x, stable=True)
    if op == "topk":
        x = data(dims)
        return lambda: torch.topk(x, p["k"])
    if op == "unique":
        x = torch.floor(data(dims) * p["distinct"])
        return lambda: torch.unique(x, sorted=True, return_inverse=True, return_counts=True)
    if op == "searchsorted":
        table, x = torch.sort(data([p["table"]]))[0], data(dims)
        return lambda: torch.searchsorted(table, x)
    if op == "findall":
        m = torch.rand(dims, device=dev, generator=g) > 0.5
        return lambda: torch.nonzero(m)
    if op == "findfirst":
        m = torch.zeros(dims, device=dev, dtype=torch.bool)
        m[-1] = True
        return lambda: torch.argmax(m.view(torch.uint8)).item()
    if op == "argmin":
        x = data(dims)
        return (lambda: x.argmin()) if axis is None else (lambda: x.argmin(dim=axis))
    if op == "matmul":
        if not (dtype.is_floating_point or dtype.is_complex):
            return None  # PyTorch has no integer matmul on CUDA
        a, b = data(p["a"]), data(p["b"])
        return lambda: torch.matmul(a, b)
    if op == "fft":
        x, axes = data(dims), p["axes"]
        if p["kind"] == "r2c":
            return lambda: torch.fft.rfftn(x, dim=axes)
        return lambda: torch.fft.fftn(x, dim=axes)
    if op == "chain":
        x, n = data(dims), p["ops"]

        def chain():
            z = x.clone()
            for i in range(n):
                z = z * 0.999 if i % 2 == 0 else z + 0.001
            return z
        return torch_graphed(torch, chain) if p.get("graph") else chain
    if op == "mlp_step":
        a, b = data(p["a"]), data(p["b"])

        def step():
            return torch.relu(a @ b).sum(dim=1)
        return torch_graphed(torch, step) if p.get("graph") else step
    return None


def torch_graphed(torch, fn):
    """`fn` captured into a `torch.cuda.CUDAGraph` (warmed up on a side stream first, as
    PyTorch asks); the callable replays it."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    return lambda: (graph.replay(), out)


def run_torch(rows, samples):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    out = {}
    meta = {"library": "torch", "version": torch.__version__,
            "device": torch.cuda.get_device_name(0)}
    for r in rows:
        fn = torch_workload(torch, r["params"])
        if fn is None:
            continue
        try:
            t, k = median_time(fn, torch.cuda.synchronize,
                               lambda: torch.cuda.Event(enable_timing=True), samples,
                               host=host_timed(r["params"]))
            out[r["name"]] = {"median_s": t, "calls_per_sample": k}
        except Exception as e:  # report, keep going (e.g. out of memory)
            out[r["name"]] = {"error": f"{type(e).__name__}: {e}"}
        del fn
        torch.cuda.empty_cache()
    return meta, out


# ---------------------------------------------------------------------------------------------
# CuPy

def cupy_workload(cp, p):
    op, dtype = p["op"], TORCH_DTYPES.get(p.get("dtype", "f32"), "float32")
    dims = p.get("dims")
    axis = p.get("axis")
    rng = cp.random.default_rng(1)

    if dtype == "bfloat16" or p.get("to") == "bf16":
        return None  # CuPy has no bfloat16
    def data(shape, dt=dtype):
        if dt in ("float32", "float64"):
            return rng.random(shape, dtype=dt)
        if dt == "float16":
            return rng.random(shape, dtype="float32").astype(dt)
        if dt.startswith("complex"):
            real = "float32" if dt == "complex64" else "float64"
            return (rng.random(shape, dtype=real) + 1j * rng.random(shape, dtype=real)).astype(dt)
        return cp.arange(math.prod(shape), dtype=dt).reshape(shape)

    if op == "copy":
        x = data(dims)
        return lambda: x.copy()
    if op == "cpu_to_gpu":
        import numpy
        # Written host memory (numpy.zeros is calloc's untouched zero pages, which a staged
        # copy reads from cache; gpuarrays' case and torch.zeros write theirs).
        x, h = cp.empty(dims, dtype=dtype), numpy.ones(dims, dtype=dtype)
        return lambda: x.set(h)
    if op == "gpu_to_cpu":
        import numpy
        x, h = data(dims), numpy.empty(dims, dtype=dtype)
        return lambda: x.get(out=h)
    if op == "gpu_to_gpu":
        x, y = data(dims), cp.empty(dims, dtype=dtype)
        return lambda: cp.copyto(y, x)
    if op == "fill":
        x = cp.empty(dims, dtype=dtype)
        return lambda: x.fill(0)
    if op in ("axpy", "launch"):
        k = cp.ElementwiseKernel("T x, T y", "T z", "z = x * (T)1.5 + y", "ga_axpy")
        x, y, z = data(dims), data(dims), cp.empty(dims, dtype=dtype)
        return lambda: k(x, y, z)
    if op == "cast":
        x, y = data(dims), cp.empty(dims, dtype=TORCH_DTYPES[p["to"]])
        return lambda: cp.copyto(y, x, casting="unsafe")
    if op == "cumsum":
        x = data(dims)
        return lambda: cp.cumsum(x, axis=axis)
    if op == "sum":
        x = data(dims)
        return lambda: x.sum(axis=axis)
    if op == "mapreduce_plus1_sum":
        x = data(dims)
        return lambda: (x + 1).sum(axis=axis)
    if op == "reverse":
        x = data(dims)
        return lambda: cp.ascontiguousarray(cp.flip(x, axis))
    if op == "permute":
        x, axes = data(dims), p["axes"]
        return lambda: cp.ascontiguousarray(x.transpose(axes))
    if op == "slice_copy":
        x = data(dims)
        return lambda: cp.ascontiguousarray(x[::2, 1::2])
    if op == "axpy_view":
        x = data(dims)
        src = x.T if p["transposed"] else x
        out = cp.empty(src.shape, dtype=dtype)
        return lambda: cp.add(cp.multiply(src, 2.0), 1.0, out=out)
    if op == "assign_columns":
        dst = data(dims)[:, ::2]
        src = data(dst.shape)

        def assign():
            dst[...] = src
        return assign
    if op == "concatenate":
        x, y = data(dims), data(dims)
        return lambda: cp.concatenate([x, y], axis=p["axis"])
    if op == "pad":
        x = data(dims)
        return lambda: cp.pad(x, 1)
    if op == "index_select":
        x = data(dims)
        i = rng.integers(0, dims[0], p["count"])
        return lambda: cp.take(x, i, axis=0)
    if op == "take_along_axis":
        x = data(dims)
        i = rng.integers(0, dims[1], tuple(dims))
        return lambda: cp.take_along_axis(x, i, 1)
    if op == "scatter_add":
        import cupyx
        t, x = cp.zeros(dims, dtype=dtype), data(dims)
        i = rng.integers(0, p["bins"], tuple(dims))
        return lambda: cupyx.scatter_add(t, i, x)
    if op == "bincount":
        i = rng.integers(0, p["bins"], tuple(dims))
        return lambda: cp.bincount(i, minlength=p["bins"])
    if op == "masked_select":
        x = data(dims)
        m = rng.random(dims) > 0.5
        return lambda: x[m]
    if op == "rand":
        return lambda: rng.random(dims, dtype=dtype)
    if op == "randn":
        return lambda: rng.standard_normal(dims, dtype=dtype)
    if op == "sort":
        x = data(dims)
        return lambda: cp.sort(x, axis=-1)
    if op == "argsort":
        x = data(dims)
        return lambda: cp.argsort(x)
    if op == "unique":
        x = cp.floor(data(dims) * p["distinct"])
        return lambda: cp.unique(x, return_inverse=True, return_counts=True)
    if op == "searchsorted":
        table, x = cp.sort(data([p["table"]])), data(dims)
        return lambda: cp.searchsorted(table, x)
    if op == "findall":
        m = rng.random(dims) > 0.5
        return lambda: cp.nonzero(m)
    if op == "argmin":
        x = data(dims)
        return lambda: x.argmin(axis=axis)
    if op == "matmul":
        a, b = data(p["a"]), data(p["b"])
        return lambda: cp.matmul(a, b)
    if op == "fft":
        x, axes = data(dims), tuple(p["axes"])
        if p["kind"] == "r2c":
            return lambda: cp.fft.rfftn(x, axes=axes)
        return lambda: cp.fft.fftn(x, axes=axes)
    return None


def run_cupy(rows, samples):
    import cupy as cp
    out = {}
    meta = {"library": "cupy", "version": cp.__version__}
    for r in rows:
        fn = cupy_workload(cp, r["params"])
        if fn is None:
            continue
        try:
            t, k = median_time(fn, cp.cuda.Device().synchronize, cp.cuda.Event, samples,
                               host=host_timed(r["params"]))
            out[r["name"]] = {"median_s": t, "calls_per_sample": k}
        except Exception as e:
            out[r["name"]] = {"error": f"{type(e).__name__}: {e}"}
        del fn
        cp.get_default_memory_pool().free_all_blocks()
    return meta, out


# ---------------------------------------------------------------------------------------------
# Table and plots

def fmt_time(s):
    if s is None:
        return "–"
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def throughput(row, seconds):
    if seconds is None or seconds <= 0:
        return None, None
    if "bytes" in row:
        return row["bytes"] / seconds / 1e9, "GB/s"
    if "flops" in row:
        return row["flops"] / seconds / 1e12, "TFLOP/s"
    return None, None


def table(rows, torch_res, cupy_res, metas):
    lines = [
        "| benchmark | gpuarrays | PyTorch | CuPy | speed vs PyTorch | speed vs CuPy | gpuarrays throughput | PyTorch throughput |",
        "|---|---|---|---|---|---|---|---|",
    ]
    ratios = []
    for r in rows:
        ours = r["median_s"]
        t = torch_res.get(r["name"], {}).get("median_s")
        c = cupy_res.get(r["name"], {}).get("median_s")
        rt = t / ours if t else None
        rc = c / ours if c else None
        tp, unit = throughput(r, ours)
        ttp, _ = throughput(r, t)
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["name"], fmt_time(ours), fmt_time(t), fmt_time(c),
            f"{rt:.2f}×" if rt else "n/a", f"{rc:.2f}×" if rc else "n/a",
            f"{tp:.1f} {unit}" if tp else "", f"{ttp:.1f} {unit}" if ttp else ""))
        ratios.append((r["name"], rt, rc))
    head = ["# gpuarrays vs PyTorch and CuPy, same GPU, same run", ""]
    for m in metas:
        head.append("- " + ", ".join(f"{k} {v}" for k, v in m.items()))
    head += ["- speed vs X = X's median time / gpuarrays' median time (above 1: gpuarrays is faster)",
             "- times: median device time per call (CUDA events / HIP events); kernel/launch and fft/.../cached-call: host time per call",
             ""]
    return "\n".join(head + lines) + "\n", ratios


def plots(out, rows, ratios, torch_res, cupy_res):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots", file=sys.stderr)
        return
    large = {r["name"] for r in rows if r["name"].endswith("L") or r["name"].startswith("gemm/")
             or (r["name"].startswith("fft/") and not r["params"].get("host"))}
    for which, keep in (("small", lambda n: n not in large), ("large", lambda n: n in large)):
        sel = [(n, rt, rc) for n, rt, rc in ratios if keep(n) and (rt or rc)]
        if not sel:
            continue
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(sel) + 1.5))
        ys = range(len(sel))
        ax.barh([y - 0.2 for y in ys], [rt or 0 for _, rt, _ in sel], height=0.4, label="vs PyTorch",
                color=["tab:red" if (rt or 1) < 0.9 else "tab:blue" for _, rt, _ in sel])
        ax.barh([y + 0.2 for y in ys], [rc or 0 for _, _, rc in sel], height=0.4, label="vs CuPy",
                color="tab:gray", alpha=0.6)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.axvline(0.9, color="tab:red", linewidth=0.6, linestyle="--")
        ax.set_yticks(list(ys))
        ax.set_yticklabels([n for n, _, _ in sel], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("gpuarrays speed relative to the library (log; > 1 faster; red: < 0.9× PyTorch)")
        ax.set_title(f"gpuarrays vs PyTorch / CuPy ({which} rows)")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"ratios_{which}.png"), dpi=110)
        plt.close(fig)
    bw = [r for r in rows if r["name"] in large and "bytes" in r]
    if bw:
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(bw) + 1.5))
        ys = range(len(bw))
        for off, label, get in ((-0.27, "gpuarrays", lambda r: r["median_s"]),
                                (0.0, "PyTorch", lambda r: torch_res.get(r["name"], {}).get("median_s")),
                                (0.27, "CuPy", lambda r: cupy_res.get(r["name"], {}).get("median_s"))):
            vals = [throughput(r, get(r))[0] or 0 for r in bw]
            ax.barh([y + off for y in ys], vals, height=0.27, label=label)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([r["name"] for r in bw], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("GB/s (bytes read + written once, 10^9 B/s)")
        ax.set_title("1 GiB rows: effective bandwidth")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "bandwidth_large.png"), dpi=110)
        plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="gpuarrays bench --json output")
    ap.add_argument("--out", default=".", help="directory for torch_cupy.json, ratios.md, PNGs")
    ap.add_argument("--backend", default="hip", help="whose rows to compare (default hip)")
    ap.add_argument("--samples", type=int, default=10)
    ap.add_argument("--no-cupy", action="store_true")
    args = ap.parse_args()
    with open(args.results) as f:
        doc = json.load(f)
    if doc.get("schema") != "gpuarrays-bench/1":
        sys.exit(f"{args.results}: not a gpuarrays bench result file")
    rows = [r for r in doc["rows"] if r["backend"] == args.backend]
    if not rows:
        sys.exit(f"no rows of backend {args.backend!r} in {args.results}")
    os.makedirs(args.out, exist_ok=True)
    metas = [{"gpuarrays": doc.get("version"), "device": rows[0]["device"], "timer": rows[0]["timer"]}]
    tmeta, torch_res = run_torch(rows, args.samples)
    metas.append(tmeta)
    cupy_res = {}
    if not args.no_cupy:
        try:
            cmeta, cupy_res = run_cupy(rows, args.samples)
            metas.append(cmeta)
        except ImportError:
            print("CuPy not installed: PyTorch only", file=sys.stderr)
    with open(os.path.join(args.out, "torch_cupy.json"), "w") as f:
        json.dump({"meta": metas, "torch": torch_res, "cupy": cupy_res}, f, indent=1)
    md, ratios = table(rows, torch_res, cupy_res, metas)
    with open(os.path.join(args.out, "ratios.md"), "w") as f:
        f.write(md)
    print(md)
    missing = [r["name"] for r in rows if r["name"] not in torch_res]
    if missing:
        print("no PyTorch counterpart: " + ", ".join(missing))
    errors = {n: v["error"] for n, v in {**torch_res, **cupy_res}.items() if "error" in v}
    for n, e in errors.items():
        print(f"error in {n}: {e}", file=sys.stderr)
    plots(args.out, rows, ratios, torch_res, cupy_res)


if __name__ == "__main__":
    main()
