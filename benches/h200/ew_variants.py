"""Times variants of one elementwise kernel source side by side, with their SASS.

    python3 benches/h200/ew_variants.py DIR [N]

DIR holds `NAME_vVuU.cu` files: complete kernel sources (the backend's header included) whose
kernel `ga_ew(const i64 n, T* out, const u64 s0)` writes `n` outputs, `U` vectors of `V`
per thread (the layout's `vec` and `per_thread`). Each is compiled here with the NVIDIA backend's NVRTC options
(`--gpu-architecture=sm_XX -std=c++17 --fmad=false`, `gpuarrays-hip/src/kernels/cpp/header.rs`),
through the same libnvrtc the backend loads, and launched as the backend launches it (one
vector per thread, 256 threads per block). Timing: rounds in which every variant runs 10
times, the variants taking turns, CUDA events; the median per variant. SASS: `cuobjdump
-sass` of each cubin into `$OUT/sass_NAME.txt`, with a histogram of opcodes.

Used for the f32 normal kernel (`docs/results/hip-elementwise-reduce.md`): the variant sources come from
`cargo run -p gpuarrays-hip --example ew_source`."""
import collections
import ctypes
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

import cupy as cp


def nvrtc():
    names = ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"]
    for d in ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu"]:
        names += sorted(glob.glob(d + "/libnvrtc.so*"))
    for n in names:
        try:
            return ctypes.CDLL(n), n
        except OSError:
            continue
    raise SystemExit("libnvrtc not found")


LIB, LIBNAME = nvrtc()


def check(rc, what, prog=None):
    if rc != 0:
        log = ""
        if prog is not None:
            size = ctypes.c_size_t()
            LIB.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            buf = ctypes.create_string_buffer(size.value)
            LIB.nvrtcGetProgramLog(prog, buf)
            log = buf.value.decode(errors="replace")
        raise RuntimeError(f"{what} failed ({rc}): {log[-3000:]}")


def compile_cubin(src, arch):
    prog = ctypes.c_void_p()
    check(LIB.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"k.cu", 0, None, None), "create")
    check(LIB.nvrtcAddNameExpression(prog, b"ga_ew"), "name")
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17", b"--fmad=false"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    check(LIB.nvrtcCompileProgram(prog, len(opts), arr), "compile", prog)
    size = ctypes.c_size_t()
    check(LIB.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "cubin size")
    buf = ctypes.create_string_buffer(size.value)
    check(LIB.nvrtcGetCUBIN(prog, buf), "cubin")
    low = ctypes.c_char_p()
    check(LIB.nvrtcGetLoweredName(prog, b"ga_ew", ctypes.byref(low)), "lowered")
    return buf.raw, low.value.decode()


def sass(cubin, name, out):
    tool = shutil.which("cuobjdump") or next(iter(glob.glob("/usr/local/cuda*/bin/cuobjdump")), None)
    if tool is None:
        return None
    path = os.path.join(out, f"{name}.cubin")
    open(path, "wb").write(cubin)
    text = subprocess.run([tool, "-sass", path], capture_output=True, text=True).stdout
    open(os.path.join(out, f"sass_{name}.txt"), "w").write(text)
    ops = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)(\.[A-Z0-9_.]+)?", line)
        if m:
            ops[m.group(2)] += 1
    return ops


def main():
    src_dir = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 28
    out = os.environ.get("OUT", ".")
    arch = f"sm_{cp.cuda.Device().compute_capability}"
    print(f"nvrtc: {LIBNAME}; arch {arch}; n = {n}")
    variants = []
    for path in sorted(glob.glob(os.path.join(src_dir, "*.cu"))):
        name = os.path.basename(path)[:-3]
        m = re.search(r"_v(\d+)u(\d+)$", name)
        vec = int(m.group(1)) * int(m.group(2))
        try:
            cubin, lowered = compile_cubin(open(path).read(), arch)
        except RuntimeError as e:
            print(f"  {name}: does not compile: {e}")
            continue
        mod = cp.cuda.function.Module()
        mod.load(cubin)
        f = mod.get_function(lowered)
        ops = sass(cubin, name, out)
        variants.append((name, vec, f, ops))
    y = cp.empty(n, dtype=cp.float32)
    # Each variant against the first (in name order) of its family, the name's part before
    # the first "_" (`normal_f32_step_v4u2` is of family `normal`), over all n outputs.
    refs = {}
    for name, vec, f, _ in variants:
        y.fill(cp.nan)
        f(((n // vec + 255) // 256,), (256,), (cp.int64(n), y, cp.uint64(7)))
        family = name.split("_")[0]
        if family not in refs:
            refs[family] = (name, y.copy())
            continue
        ref_name, ref = refs[family]
        differ = int((y.view(cp.uint32) != ref.view(cp.uint32)).sum())
        print(f"  {name}: {differ} of {n} outputs differ in bits from {ref_name}")
    refs.clear()
    times = {v[0]: [] for v in variants}
    for _ in range(6):
        for name, vec, f, _ in variants:
            grid = ((n // vec + 255) // 256,)
            for _ in range(10):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                f(grid, (256,), (cp.int64(n), y, cp.uint64(7)))
                b.record()
                b.synchronize()
                times[name].append(cp.cuda.get_elapsed_time(a, b) * 1e3)
    print(f"median µs over 60 launches (n = {n}):")
    for name, vec, _, ops in variants:
        total = sum(ops.values()) if ops else 0
        print(f"  {name:24s} {statistics.median(times[name]):8.1f}   SASS instructions {total}")
    keys = sorted({k for v in variants if v[3] for k in v[3]})
    print("opcode histogram (static):")
    print("  " + " ".join(f"{v[0][:10]:>10s}" for v in variants) + "  opcode")
    for k in keys:
        print("  " + " ".join(f"{(v[3] or {}).get(k, 0):10d}" for v in variants) + f"  {k}")


if __name__ == "__main__":
    main()
