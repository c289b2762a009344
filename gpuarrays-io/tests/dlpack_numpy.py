#!/usr/bin/env python3
"""gpuarrays' DLPack export and import against real consumers and producers.

    python3 dlpack_numpy.py LIB               # NumPy, host memory
    python3 dlpack_numpy.py LIB --torch-cuda  # PyTorch on a GPU (LIB built with `hip`)

LIB is the test library of tests/dlpack_py (a cdylib over gpuarrays_io::dlpack). Our
exports reach the consumer through an object with `__dlpack__` / `__dlpack_device__` that
wraps the managed tensor in a PyCapsule, as a producer written in C would; their tensors
reach our imports as the spec's consumer takes them: the capsule's pointer, the capsule
renamed to "used_dltensor[_versioned]", the deleter then ours to call (exactly once).
Run by tests/dlpack_numpy.rs and tests/dlpack_torch_gpu.rs; exits non-zero on a failure.
"""

import ctypes
import gc
import sys
import time

KINDS = ["bool", "uint8", "int32", "uint32", "int64", "uint64",
         "float32", "float64", "complex64", "complex128"]
GA_OK, GA_UNSUPPORTED_DTYPE, GA_DEVICE_MISMATCH, GA_READ_ONLY = 0, 3, 4, 5
KDL_CPU = 1
READ_ONLY_FLAG = 1

VERSIONED = b"dltensor_versioned"
LEGACY = b"dltensor"
USED = {VERSIONED: b"used_dltensor_versioned", LEGACY: b"used_dltensor"}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", Deleter)]


assert ctypes.sizeof(DLManagedTensorVersioned) == 80 and ctypes.sizeof(DLManagedTensor) == 64

api = ctypes.pythonapi
Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, Destructor]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetName.restype = ctypes.c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.py_object]
api.PyCapsule_SetName.restype = ctypes.c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
# The destructor receives a capsule being freed: raw pointers, no new references to it.
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", api))


def _destructor(name, struct):
    @Destructor
    def destroy(raw):
        # An unconsumed capsule (the consumer renames the ones it takes) deletes its tensor.
        if _is_valid_raw(raw, name):
            ptr = _get_pointer_raw(raw, name)
            managed = struct.from_address(ptr)
            if managed.deleter:
                managed.deleter(ptr)
    return destroy


DESTRUCTORS = {VERSIONED: _destructor(VERSIONED, DLManagedTensorVersioned),
               LEGACY: _destructor(LEGACY, DLManagedTensor)}
STRUCTS = {VERSIONED: DLManagedTensorVersioned, LEGACY: DLManagedTensor}


def capsule(ptr, name):
    return api.PyCapsule_New(ptr, name, DESTRUCTORS[name])


FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


class Producer:
    """A DLPack producer over the library's export functions (each takes the consumer's
    stream, or None): versioned when the consumer asks for max_version >= 1, else legacy."""

    def __init__(self, lib, versioned, legacy, device=(KDL_CPU, 0)):
        self.lib, self.versioned, self.legacy, self.device = lib, versioned, legacy, device
        self.calls, self.address, self.tensor = [], None, None

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append({"stream": stream, "max_version": max_version,
                           "dl_device": dl_device, "copy": copy})
        if copy:
            raise BufferError("gpuarrays exports share memory: copy=True is not offered")
        if dl_device is not None and tuple(dl_device) != tuple(self.device):
            raise BufferError(f"the tensor is on {self.device}, not {dl_device}")
        use_versioned = self.versioned is not None and max_version is not None \
            and max_version[0] >= 1
        if not use_versioned and self.legacy is None:
            raise BufferError("this producer only makes DLPack 1.x tensors")
        name = VERSIONED if use_versioned else LEGACY
        ptr = (self.versioned if use_versioned else self.legacy)(stream)
        if not ptr:
            raise BufferError(self.lib.ga_last_error().decode())
        t = STRUCTS[name].from_address(ptr).dl_tensor
        self.address = t.data + t.byte_offset
        self.tensor = {"shape": [t.shape[i] for i in range(t.ndim)],
                       "strides": [t.strides[i] for i in range(t.ndim)] if t.strides else None,
                       "byte_offset": t.byte_offset, "name": name}
        return capsule(ptr, name)

    def __dlpack_device__(self):
        return self.device


def load(path):
    lib = ctypes.CDLL(path)
    vp, i32, i64, f64p = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_double)
    sigs = {
        "ga_last_error": (ctypes.c_char_p, []),
        "ga_exports": (ctypes.c_uint64, []), "ga_deleter_calls": (ctypes.c_uint64, []),
        "ga_export_cpu": (vp, [i32, i64, i64]), "ga_export_cpu_legacy": (vp, [i32, i64, i64]),
        "ga_export_f32_cpu": (vp, [ctypes.c_size_t]),
        "ga_export_view_cpu": (vp, []), "ga_export_view_cpu_legacy": (vp, []),
        "ga_export_shared_cpu": (vp, [ctypes.c_size_t]),
        "ga_shared_sum": (i32, [f64p]), "ga_shared_fill": (i32, [ctypes.c_double]),
        "ga_shared_release": (i32, []),
        "ga_import_sum": (i32, [vp, f64p]), "ga_import_sum_legacy": (i32, [vp, f64p]),
        "ga_import_fill": (i32, [vp, ctypes.c_double]),
        "ga_import_fill_legacy": (i32, [vp, ctypes.c_double]),
        "ga_hip_device_type": (i32, []), "ga_hip_stream": (i64, []),
        "ga_export_f32_hip": (vp, [ctypes.c_size_t, i64]),
        "ga_export_f32_hip_legacy": (vp, [ctypes.c_size_t, i64]),
        "ga_import_sum_hip": (i32, [vp, f64p]), "ga_import_sum_hip_legacy": (i32, [vp, f64p]),
        "ga_import_fill_hip": (i32, [vp, ctypes.c_double]),
        "ga_import_fill_hip_legacy": (i32, [vp, ctypes.c_double]),
    }
    for name, (res, args) in sigs.items():
        if hasattr(lib, name):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
    return lib


def all_deleted(lib, what):
    gc.collect()
    check(lib.ga_deleter_calls() == lib.ga_exports(),
          f"{what}: {lib.ga_exports()} exports, {lib.ga_deleter_calls()} deleter calls")


def take(cap):
    """The consumer's side of a capsule: its pointer and name, the capsule marked used."""
    name = api.PyCapsule_GetName(cap)
    ptr = api.PyCapsule_GetPointer(cap, name)
    check(api.PyCapsule_SetName(cap, USED[name]) == 0, "rename the capsule")
    return ptr, name


def import_call(lib, fn, cap, *args):
    ptr, name = take(cap)
    suffix = "_legacy" if name == LEGACY else ""
    return getattr(lib, fn + suffix)(ptr, *args)


def ga_sum(lib, fn, cap):
    out = (ctypes.c_double * 2)()
    code = import_call(lib, fn, cap, out)
    return code, complex(out[0], out[1])


def expected(np, kind, shape):
    n = int(np.prod(shape)) if shape else 1
    i = np.arange(n)
    if kind == "bool":
        v = i % 2 == 1
    elif kind.startswith("complex"):
        v = (i - 1j * i).astype(kind)
    else:
        v = i.astype(kind)
    return v.reshape(shape)


def numpy_exports(np, lib):
    """Our exports through np.from_dlpack: values, dtype, shape, strides, shared memory,
    our deleter run once when NumPy frees the array."""
    shapes = {(-1, -1): (), (5, -1): (5,), (2, 3): (2, 3), (0, -1): (0,), (0, 3): (0, 3)}
    asked = set()
    for k, kind in enumerate(KINDS):
        for (d0, d1), shape in shapes.items():
            for legacy_only in (False, True):
                what = f"export {kind}{list(shape)}{' legacy' if legacy_only else ''}"
                p = Producer(lib, None if legacy_only else (lambda s: lib.ga_export_cpu(k, d0, d1)),
                             lambda s: lib.ga_export_cpu_legacy(k, d0, d1))
                before = lib.ga_deleter_calls()
                a = np.from_dlpack(p)
                asked.add(str(p.calls[-1]))
                want = expected(np, kind, shape)
                check(p.tensor["name"] == (LEGACY if legacy_only else VERSIONED), f"{what}: kind of capsule")
                check(a.dtype == np.dtype(kind), f"{what}: dtype {a.dtype}")
                check(a.shape == shape, f"{what}: shape {a.shape}")
                check(np.array_equal(a, want), f"{what}: values {a} != {want}")
                if a.size > 0:
                    check(a.strides == want.strides, f"{what}: strides {a.strides} != {want.strides}")
                    check(a.ctypes.data == p.address, f"{what}: NumPy copied (address differs)")
                # NumPy marks arrays from legacy capsules read-only (they carry no flag).
                check(a.flags.writeable != legacy_only, f"{what}: writeable {a.flags.writeable}")
                check(lib.ga_deleter_calls() == before, f"{what}: deleted while NumPy holds it")
                del a
                gc.collect()
                check(lib.ga_deleter_calls() == before + 1,
                      f"{what}: {lib.ga_deleter_calls() - before} deleter calls after del")
    print("np.from_dlpack called __dlpack__ with:", "; ".join(sorted(asked)))
    all_deleted(lib, "dtypes and shapes")

    # The strided, reversed view: negative strides and a byte offset.
    want = np.arange(12.).reshape(3, 4).T[::-1]
    for legacy_only in (False, True):
        what = f"view{' legacy' if legacy_only else ''}"
        p = Producer(lib, None if legacy_only else (lambda s: lib.ga_export_view_cpu()),
                     lambda s: lib.ga_export_view_cpu_legacy())
        a = np.from_dlpack(p)
        check(p.tensor["strides"] == [-1, 4] and p.tensor["byte_offset"] == 24,
              f"{what}: our tensor {p.tensor}")
        check(np.array_equal(a, want), f"{what}: values {a}")
        check(a.strides == (-8, 32), f"{what}: NumPy strides {a.strides}")
        check(a.ctypes.data == p.address, f"{what}: address")
        del a
    all_deleted(lib, "views")

    # Writes are shared both ways with the array gpuarrays keeps.
    p = Producer(lib, lambda s: lib.ga_export_shared_cpu(5), None)
    a = np.from_dlpack(p)
    out = (ctypes.c_double * 2)()
    a[1] = 100.0
    check(lib.ga_shared_sum(out) == GA_OK and out[0] == 109.0,
          f"NumPy's write seen by gpuarrays: sum {out[0]} (want 109)")
    check(lib.ga_shared_fill(7.0) == GA_OK, "gpuarrays fill")
    check(np.array_equal(a, np.full(5, 7.0)), f"gpuarrays' fill seen by NumPy: {a}")
    lib.ga_shared_release()
    check(np.array_equal(a, np.full(5, 7.0)), "NumPy's array outlives gpuarrays' handle")
    del a
    all_deleted(lib, "shared")

    # Our producer asked for an unavailable version or a copy: refused, nothing leaked.
    p = Producer(lib, lambda s: lib.ga_export_f32_cpu(3), None)
    try:
        np.from_dlpack(p, copy=True)
        check(False, "copy=True accepted")
    except BufferError:
        pass
    # An unconsumed capsule deletes its tensor when freed (the harness's own destructor).
    cap = capsule(lib.ga_export_f32_cpu(3), VERSIONED)
    del cap
    all_deleted(lib, "refusals and unconsumed capsules")


def numpy_imports(np, lib):
    """NumPy's tensors through our imports: values, strides, zero-copy writes, NumPy's
    deleter run (its reference to the array dropped) once our array is gone, typed
    refusals that still delete."""
    for kind in KINDS:
        for legacy in (False, True):
            what = f"import {kind}{' legacy' if legacy else ''}"
            a = expected(np, kind, (2, 3))
            refs = sys.getrefcount(a)
            cap = a.__dlpack__() if legacy else a.__dlpack__(max_version=(1, 0))
            check(sys.getrefcount(a) == refs + 1, f"{what}: the capsule holds the array")
            check(api.PyCapsule_GetName(cap) == (LEGACY if legacy else VERSIONED),
                  f"{what}: NumPy's capsule {api.PyCapsule_GetName(cap)}")
            code, s = ga_sum(lib, "ga_import_sum", cap)
            want = complex(a.astype(np.complex128).sum())
            check(code == GA_OK and s == want, f"{what}: code {code}, sum {s} != {want}")
            check(sys.getrefcount(a) == refs, f"{what}: NumPy's deleter did not run")
            del cap
            check(sys.getrefcount(a) == refs, f"{what}: deleted twice")
            if kind == "bool":
                continue
            cap = a.__dlpack__() if legacy else a.__dlpack__(max_version=(1, 0))
            code = import_call(lib, "ga_import_fill", cap, 3.0)
            check(code == GA_OK and np.array_equal(a, np.full((2, 3), 3).astype(kind)),
                  f"{what}: our fill not seen by NumPy: code {code}, {a}")
            check(sys.getrefcount(a) == refs, f"{what}: NumPy's deleter after fill")

    # A strided view with negative strides: we read and write exactly its elements.
    base = np.arange(24.0).reshape(4, 6)
    v = base[::2, ::-3]
    code, s = ga_sum(lib, "ga_import_sum", v.__dlpack__(max_version=(1, 0)))
    check(code == GA_OK and s == v.sum(), f"strided view: sum {s} != {v.sum()}")
    want = base.copy()
    want[::2, ::-3] = -1.0
    code = import_call(lib, "ga_import_fill", v.__dlpack__(max_version=(1, 0)), -1.0)
    check(code == GA_OK and np.array_equal(base, want), f"strided view fill: {base}")

    # The 8- and 16-bit types import too (typed refusals of types gpuarrays lacks, which
    # NumPy cannot export, are checked from Rust); the deleter runs once.
    for kind in ("float16", "int8", "int16", "uint16"):
        a = np.arange(4).astype(kind)
        refs = sys.getrefcount(a)
        code, s = ga_sum(lib, "ga_import_sum", a.__dlpack__(max_version=(1, 0)))
        check(code == GA_OK and s == 6, f"{kind}: code {code}, sum {s}")
        check(sys.getrefcount(a) == refs, f"{kind}: NumPy's deleter did not run")
    ro = np.arange(4.0)
    ro.flags.writeable = False
    refs = sys.getrefcount(ro)
    cap = ro.__dlpack__(max_version=(1, 0))
    flags = DLManagedTensorVersioned.from_address(api.PyCapsule_GetPointer(cap, VERSIONED)).flags
    check(flags & READ_ONLY_FLAG, "NumPy flags a read-only array")
    code = import_call(lib, "ga_import_fill", cap, 1.0)
    check(code == GA_READ_ONLY, f"read-only: code {code}")
    check(sys.getrefcount(ro) == refs and np.array_equal(ro, np.arange(4.0)), "read-only kept")
    check(lib.ga_import_sum(None, None) != GA_OK, "null pointer refused")

    # Round trip: NumPy's array over our export, exported again by NumPy, into our import.
    a = np.from_dlpack(Producer(lib, lambda s: lib.ga_export_f32_cpu(5), None))
    code, s = ga_sum(lib, "ga_import_sum", a.__dlpack__(max_version=(1, 0)))
    check(code == GA_OK and s == 10, f"round trip sum {s}")
    del a
    all_deleted(lib, "imports")


def run_numpy(lib):
    import numpy as np
    print("numpy", np.__version__)
    numpy_exports(np, lib)
    numpy_imports(np, lib)


def run_torch(lib):
    """PyTorch on the GPU (prepared, not yet run on a GPU): our HIP export through
    torch.from_dlpack with the consumer's stream, torch's CUDA tensors through our import."""
    import torch
    print("torch", torch.__version__, "cuda", torch.cuda.is_available())
    check(torch.cuda.is_available(), "torch sees no GPU")
    dev = (lib.ga_hip_device_type(), 0)
    check(dev[0] in (2, 10), f"gpuarrays' HIP device: {dev} {lib.ga_last_error().decode()}")
    n = 1000
    stream = lambda s: -1 if s is None else s  # noqa: E731
    p = Producer(lib, lambda s: lib.ga_export_f32_hip(n, stream(s)),
                 lambda s: lib.ga_export_f32_hip_legacy(n, stream(s)), device=dev)
    t = torch.from_dlpack(p)
    print("torch.from_dlpack called __dlpack__ with:", p.calls)
    check(t.is_cuda and t.data_ptr() == p.address, f"zero-copy: {t.device} {t.data_ptr():#x}")
    check(torch.equal(t.cpu(), torch.arange(n, dtype=torch.float32)), "values of our export")
    t[0] = 1000.0  # torch's write, read back through torch's own export into our import
    try:
        cap = t.__dlpack__(stream=lib.ga_hip_stream(), max_version=(1, 0))
    except TypeError:
        cap = t.__dlpack__(stream=lib.ga_hip_stream())
    code, s = ga_sum(lib, "ga_import_sum_hip", cap)
    check(code == GA_OK and s == n * (n - 1) / 2 + 1000, f"torch's write: code {code}, sum {s}")
    refs = sys.getrefcount(t) - 1
    print("references to torch's tensor before del:", refs)
    if refs > 1:
        for r in gc.get_referrers(t):
            if r is not sys._getframe():
                print("  also held by:", type(r).__name__, repr(r)[:200])
    del t
    gc.collect()
    torch.cuda.synchronize()
    # DLPack sets no deadline for the consumer's deleter call: wait for it (a few seconds
    # at most), and say how long it took when it was not at once.
    t0 = time.monotonic()
    while lib.ga_deleter_calls() != lib.ga_exports() and time.monotonic() - t0 < 10:
        time.sleep(0.01)
        gc.collect()
    if time.monotonic() - t0 > 0.005:
        print(f"torch called the deleter {time.monotonic() - t0:.3f} s after the tensor died")
    all_deleted(lib, "torch consumer")

    x = torch.arange(n, dtype=torch.float32, device="cuda")
    for legacy in (False, True):
        try:
            cap = x.__dlpack__(stream=lib.ga_hip_stream(),
                               **({} if legacy else {"max_version": (1, 0)}))
        except TypeError:
            cap = x.__dlpack__(stream=lib.ga_hip_stream())
        code, s = ga_sum(lib, "ga_import_sum_hip", cap)
        check(code == GA_OK and s == x.sum().item(), f"torch import: code {code}, sum {s}")
    cap = x.__dlpack__(stream=lib.ga_hip_stream())
    code = import_call(lib, "ga_import_fill_hip", cap, 5.0)
    torch.cuda.synchronize()
    check(code == GA_OK and bool((x == 5).all()), f"our fill seen by torch: code {code}")
    # float16 and bfloat16 import and compute on HIP like any other type.
    for dt in (torch.float16, torch.bfloat16):
        h = torch.arange(8, dtype=dt, device="cuda")
        code, s = ga_sum(lib, "ga_import_sum_hip", h.__dlpack__(stream=lib.ga_hip_stream()))
        check(code == GA_OK and s == 28.0, f"{dt} from torch: code {code}, sum {s}")
    cpu = torch.arange(4.0)
    code, _ = ga_sum(lib, "ga_import_sum_hip", cpu.__dlpack__())
    check(code == GA_DEVICE_MISMATCH, f"a CPU tensor into the HIP import: code {code}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    lib = load(sys.argv[1])
    if "--torch-cuda" in sys.argv[2:]:
        run_torch(lib)
    else:
        run_numpy(lib)
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        sys.exit(1)
    print("all DLPack checks passed")
