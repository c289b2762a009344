"""The statistics and vector operations core composes (var, std, logsumexp, norm, dot,
vdot, outer) for tests/numpy_crosscheck.py, recomputed in long double with NumPy.

OURS: where n <= ddof NumPy divides by max(n - ddof, 0) too (NaN or inf, with a warning);
logsumexp follows SciPy's (shift by the maximum where finite, else by 0; an empty lane is
-inf), written out here so SciPy is not needed. Tolerances are those of a sum of n terms
((sqrt(n) + c) eps) against what was summed; a variance against sum((|x| + mean|x|)^2) over
the divisor, a standard deviation against its square root."""

import numpy as np


def accepted(op, floats, numeric):
    return floats if op["fn"] == "logsumexp" else numeric


def result_type(d, ints):
    return "f64" if d in ints else {"c32": "f32", "c64": "f64"}.get(d, d)


def op_stat(op, d, ins, Expect, eps, LD, CLD, ints, complex_):
    f = op["fn"]
    a = ins[0]
    wide = a.astype(CLD if d in complex_ else LD)
    rt = result_type(d, ints)
    e = eps(rt)
    if f in ("var", "std"):
        axis, ddof = op["axis"], op["ddof"]
        n = a.size if axis is None else a.shape[axis]
        ref = np.var(wide, axis=axis, ddof=ddof)
        m = np.abs(wide)
        mu = m.mean(axis=axis, keepdims=True) if n else 0
        s = ((m + mu) ** 2).sum(axis=axis) / max(n - ddof, 1)
        if f == "std":
            ref, s = np.sqrt(ref), np.sqrt(s)
        return Expect(np.asarray(ref), rt, "tol", (np.sqrt(n) + 8) * e * s)
    if f == "logsumexp":
        axis = op["axis"]
        n = a.size if axis is None else a.shape[axis]
        out_shape = () if axis is None else a.shape[:axis] + a.shape[axis + 1:]
        if n == 0:
            return Expect(np.full(out_shape, -np.inf, dtype=LD), rt, "tol", 0.0)
        m = np.max(wide, axis=axis, keepdims=True)
        shift = np.where(np.isfinite(m), m, 0)
        s = np.exp(wide - shift).sum(axis=axis, keepdims=True)
        ref = (np.log(s) + shift).reshape(out_shape)
        return Expect(ref, rt, "tol", (np.sqrt(n) + 16) * e * (np.abs(ref) + 1))
    if f.startswith("norm"):
        mag = np.abs(wide.ravel())
        n = mag.size
        if f == "norm":
            ref = np.sqrt((mag * mag).sum())
            return Expect(np.asarray(ref), rt, "tol", (np.sqrt(n) + 8) * e * ref)
        if f == "norm_1":
            ref = mag.sum()
            return Expect(np.asarray(ref), rt, "tol", (np.sqrt(n) + 4) * e * ref)
        ref = mag.max()
        return Expect(np.asarray(ref), rt, "tol", 4 * e * ref)
    b = ins[1]
    fn = {"dot": np.dot, "vdot": np.vdot, "outer": np.outer}[f]
    if d in ints:
        return Expect(np.asarray(fn(a, b)), d)
    wb = b.astype(CLD if d in complex_ else LD)
    ref = np.asarray(fn(wide, wb))
    mag = np.asarray(fn(np.abs(wide), np.abs(wb)))
    if f == "outer":
        if d not in complex_:
            # One rounding in the element type (a long double product rounded again to f64
            # would round twice).
            return Expect(np.outer(a, b), d)
        return Expect(ref, d, "tol", 4 * e * mag)
    k = a.size if f == "vdot" else (a.shape[-1] if a.ndim else 1)
    return Expect(ref, d, "tol", (np.sqrt(k) + 1) * e * mag)
