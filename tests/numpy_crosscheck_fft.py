"""The FFT part of tests/numpy_crosscheck.py: `numpy.fft` as the reference for the cases of
tests/numpy_crosscheck/fft.rs.

- Transforms are recomputed in double precision (complex128) from the same inputs; a result
  of N points per transform passes when every component is within
  4 (log2 N + 2) eps * S, where S is sum|x| over the input of its transform times the
  norm's factor (twice that for irfft, whose half spectrum stands for both halves), and eps
  that of our element type. sum|x| bounds every |X_k|, and a correct FFT's error grows like
  eps log N relative to it, while a wrong bin or twiddle is off by about S / sqrt(N).
- OURS: f32 and c32 transform in single precision (NumPy >= 2 also keeps float32), integer
  and bool input is rejected (NumPy would compute in float64), and a call NumPy refuses
  with ValueError (a transform of 0 points) must fail with InvalidArgument.
- fftfreq/rfftfreq compare exactly: both compute i * (1 / (n d)) in float64 and round once.
- fftshift/ifftshift are copies: exact.
"""

import math

import numpy as np

FLOATS = {"f32", "f64"}
COMPLEX = {"c32", "c64"}
REAL = {"c32": "f32", "c64": "f64"}

FFT_TYPES = {
    "fft": FLOATS | COMPLEX,
    "ifft": FLOATS | COMPLEX,
    "rfft": FLOATS,
    "irfft": FLOATS | COMPLEX,
    "fft2": FLOATS | COMPLEX,
    "ifft2": FLOATS | COMPLEX,
    "fftn": FLOATS | COMPLEX,
    "ifftn": FLOATS | COMPLEX,
    "rfftn": FLOATS,
    "irfftn": FLOATS | COMPLEX,
}


def accepted(op, all_types):
    if op["op"] == "fft":
        return FFT_TYPES[op["fn"]]
    if op["op"] == "fftfreq":
        return FLOATS | {"f16", "bf16"}
    return all_types


def resolved_axes(op, ndim):
    fn = op["fn"]
    if "axis" in op:
        return [op["axis"] % ndim]
    axes, s = op.get("axes"), op.get("s")
    if axes is not None:
        return [a % ndim for a in axes]
    if fn in ("fft2", "ifft2"):
        return [ndim - 2, ndim - 1]
    if s is not None:
        return list(range(ndim - len(s), ndim))
    return list(range(ndim))


def op_fft(op, d, ins, Expect, Reject, eps):
    (a,) = ins
    fn, norm = op["fn"], op["norm"]
    x = a.astype(np.complex128 if d in COMPLEX else np.float64)
    if "axis" in op:
        kw = {"n": op["n"], "axis": op["axis"]}
    else:
        kw = {"s": op["s"]}
        if op["axes"] is not None:  # NumPy's own default (fft2: the last two axes)
            kw["axes"] = op["axes"]
    try:
        ref = getattr(np.fft, fn)(x, norm=norm, **kw)
    except ValueError:
        return Reject("InvalidArgument")
    axes = resolved_axes(op, a.ndim)
    real = REAL.get(d, d)
    out_dtype = real if fn.startswith("irfft") else {"f32": "c32", "f64": "c64"}[real]
    # N: points per transform (irfft: the output's lengths; rfft: the real input's).
    lengths = [ref.shape[ax] for ax in axes]
    if fn.startswith("rfft"):
        last = axes[-1]
        given = op["n"] if "axis" in op else (op["s"][-1] if op["s"] else None)
        lengths[-1] = given if given is not None else a.shape[last]
    n = int(np.prod(lengths))
    inverse = fn.startswith("i")
    factor = {
        "ortho": 1 / math.sqrt(n),
        "backward": 1 / n if inverse else 1.0,
        "forward": 1.0 if inverse else 1 / n,
    }[norm]
    if fn.startswith("irfft"):
        factor *= 2
    lanes = np.sum(np.abs(x), axis=tuple(axes), keepdims=True)
    tol = 4 * (math.log2(n) + 2) * eps(d) * lanes * factor
    return Expect(ref, out_dtype, "tol", np.broadcast_to(tol, ref.shape))


def op_fftshift(op, d, ins, Expect):
    (a,) = ins
    f = np.fft.fftshift if op["fn"] == "fftshift" else np.fft.ifftshift
    return Expect(f(a, axes=op["axes"]), d)


def op_fftfreq(op, d, DT, Expect):
    f = np.fft.fftfreq if op["fn"] == "fftfreq" else np.fft.rfftfreq
    return Expect(f(op["n"], op["d"]).astype(DT[d]), d)
