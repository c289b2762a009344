#!/usr/bin/env python3
"""Recomputes the cases written by tests/numpy_crosscheck.rs with NumPy and reports
mismatches as one JSON object on stdout.

    python3 tests/numpy_crosscheck.py DIR      # DIR holds manifest.json and data.bin

The semantics are those documented in gpuarrays-core (kernel/ops.rs, kernel/axis_ops.rs,
kernel/random.rs, scalar.rs), not NumPy's where the two differ. Every place where NumPy
is made to follow ours is marked "OURS:" below. In short:

- integer arithmetic wraps: NumPy ufuncs with an explicit same-width dtype do that;
- integer division truncates toward zero, x / 0 == 0 and MIN / -1 == MIN (NumPy floors and
  warns): emulated with fmod;
- casts follow Rust `as` (float -> int truncates and saturates, NaN -> 0; NumPy's astype is
  undefined there): emulated with trunc/compare/where; int -> int wraps (as astype does);
- complex division and mean use the naive formula (NumPy uses Smith's algorithm): emulated
  on the real and imaginary parts;
- the mean of zero elements is an error (NumPy returns NaN and warns);
- the sign of a zero produced by min/max, a float sum, a complex product or a sort of -0.0
  and 0.0 is not specified by our docs, so those compare zeros by value ("zeros" mode); NaNs
  compare equal to NaNs whatever their sign or payload everywhere;
- products start from their first factor (NumPy's complex prod of the one element 6+infj is
  nan+nanj; ours is 6+infj): recomputed factor by factor with the textbook formula in the
  element type; a complex product of three or more factors with a non-finite part only has
  to have a non-finite part (which parts are NaN or infinite depends on the order);
- a complex mean is the sum divided by n+0i with the naive formula;
- f16 and bf16 (NumPy's float16; ml_dtypes' bfloat16) compute every elementwise operation
  in float32 and round once, as NumPy's float16 loops and ml_dtypes' do; OURS: sums,
  products and matrix products accumulate in float32 and round once at the end (NumPy's
  float16 sum does too; its prod and ml_dtypes' bfloat16 reductions round every step),
  cumulative sums and products keep a float32 running value and round each output once
  (NumPy's float16 cumsum rounds every running value instead, so it is not the reference
  there: long double is, as for the other floats), and a random draw is the top 11 (f16) or 8 (bf16) bits of a word (uniform) or the f32 normal
  pair rounded once.

FFTs, fftfreq and fftshift: see tests/numpy_crosscheck_fft.py. var, std, logsumexp, norm,
dot, vdot and outer: see tests/numpy_crosscheck_stats.py.

Transcendental functions, pow, float sums/products/means/matmul and cumulative sums are
compared with tolerances against references computed in long double; inputs that make
those operations exact in any order (multiples of 1/8, small integers, powers of two) are
compared exactly. Tolerances (eps = machine epsilon of the element type):
- exp, log, tanh, pow, |complex|, log1p, expm1, tan, atan, asin, acos, sinh, cosh,
  sigmoid, angle, atan2, hypot: 4 eps relative (+2 smallest subnormals);
  sin, cos: 4 eps relative + 4 eps absolute;
- sum of n elements: (sqrt(n) + 1) eps sum|x| + eps |result|; cumsum likewise per position;
- product of n elements: (n + 1) eps |result| (complex: 4 (n + 1) eps prod|z|);
- matmul with inner size k: (k + 1) eps (|A| |B|) + eps |result| (complex: 2 (k + 2) eps);
- complex mul/div: a few eps of the magnitude of the terms (the docs only say "as usual").

For each case the checker also decides, from the documented type rules, whether the
operation must accept the element type, and checks that rejected cases failed with the
documented error kind. Finally it mutates every agreeing result once and checks that the
comparison then fails, so no comparison here can pass vacuously.
"""

import json
import math
import sys
import traceback
import warnings
import zlib

import ml_dtypes
import numpy as np

import numpy_crosscheck_fft as fftcheck
import numpy_crosscheck_stats as statcheck

warnings.filterwarnings("ignore")

DT = {
    "bool": np.bool_,
    "i8": np.int8,
    "u8": np.uint8,
    "i16": np.int16,
    "u16": np.uint16,
    "i32": np.int32,
    "u32": np.uint32,
    "i64": np.int64,
    "u64": np.uint64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "c32": np.complex64,
    "c64": np.complex128,
}
ALL = set(DT)
NAME_OF = {np.dtype(v): k for k, v in DT.items()}
INTS = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"}
SIGNED = {"i8", "i16", "i32", "i64"}
HALF = {"f16", "bf16"}
FLOATS = {"f16", "bf16", "f32", "f64"}
COMPLEX = {"c32", "c64"}
NUMERIC = INTS | FLOATS | COMPLEX
ORDERED = ALL - COMPLEX
REAL = {"c32": "f32", "c64": "f64"}
LD = np.longdouble
CLD = np.clongdouble

# The documented type rules (kernel/ops.rs, kernel/axis_ops.rs and the generic ops).
UNARY_TYPES = {
    "neg": NUMERIC,
    "abs": NUMERIC,
    "not": {"bool"} | INTS,
    **{f: FLOATS for f in ("sqrt", "exp", "log", "sin", "cos", "tanh", "log1p", "expm1", "tan",
                           "atan", "asin", "acos", "sinh", "cosh", "sigmoid")},
    **{f: INTS | FLOATS for f in ("floor", "ceil", "round", "trunc", "sign")},
    **{f: ALL for f in ("isnan", "isinf", "isfinite", "real", "imag", "conj")},
    "angle": FLOATS | COMPLEX,
}
BINARY_TYPES = {
    **{f: NUMERIC for f in ("add", "sub", "mul", "div")},
    "pow": FLOATS,
    **{f: ORDERED for f in ("min", "max", "lt", "le", "gt", "ge")},
    "eq": ALL,
    "ne": ALL,
    **{f: {"bool"} | INTS for f in ("and", "or", "xor")},
    "rem": INTS | FLOATS,
    "shl": INTS,
    "shr": INTS,
    "atan2": FLOATS,
    "hypot": FLOATS,
    "fmin": ORDERED,
    "fmax": ORDERED,
}
REDUCE_TYPES = {
    "sum": NUMERIC,
    "prod": NUMERIC,
    **{f: ORDERED for f in ("min", "max", "argmin", "argmax")},
    "any": ALL,
    "all": ALL,
    "mean": FLOATS | COMPLEX,
}


def accepted_types(op):
    o = op["op"]
    if o in ("fft", "fftshift", "fftfreq"):
        return fftcheck.accepted(op, ALL)
    if o == "unary":
        return UNARY_TYPES[op["fn"]]
    if o == "binary":
        return BINARY_TYPES[op["fn"]]
    if o == "reduce":
        return REDUCE_TYPES[op["fn"]]
    if o == "scan" and op["fn"] in ("cummax", "cummin"):
        return NUMERIC & ORDERED
    if o == "stat":
        return statcheck.accepted(op, FLOATS, NUMERIC)
    if o in ("scan", "matmul", "arange"):
        return NUMERIC
    if o in ("sort", "argsort", "sort_along", "topk", "partition", "argpartition", "unique",
             "searchsorted"):
        return ORDERED
    if o in ("random", "linspace", "logspace"):
        return FLOATS
    if o in ("scatter_add", "index_add"):
        return NUMERIC
    if o == "bincount":
        return INTS
    return ALL


def rdt(d):
    """The real component type of d."""
    return REAL.get(d, d)


def finfo(d):
    return ml_dtypes.finfo(DT[d]) if d == "bf16" else np.finfo(DT[d])


def eps(d):
    return float(finfo(rdt(d)).eps)


def tiny(d):
    return float(finfo(rdt(d)).smallest_subnormal)


def absf(x):
    """|x| in long double where finite, 0 elsewhere (so tolerances are finite)."""
    x = np.asarray(x).astype(LD)
    return np.where(np.isfinite(x), np.abs(x), 0)


def comps(x):
    x = np.asarray(x)
    return [x.real, x.imag] if x.dtype.kind == "c" else [x]


def make_complex(re, im, d):
    re, im = np.broadcast_arrays(np.asarray(re), np.asarray(im))
    out = np.empty(re.shape, DT[d])
    out.real = re
    out.imag = im
    return out


class Expect:
    """Expected values of dtype name `dtype`. mode: exact (bit for bit, NaN == NaN), zeros
    (by value: -0.0 == 0.0), or tol (|ours - expected| <= tol, per component).
    `values` is a list of components (real, imag for complex)."""

    def __init__(self, values, dtype, mode="exact", tol=None, free=None):
        # free: elements (complex products of 3+ factors with a non-finite part) that only
        # have to have a non-finite part.
        self.free = free
        if isinstance(values, list):
            self.comps = [np.asarray(v) for v in values]
        else:
            self.comps = comps(values)
        self.shape = self.comps[0].shape
        self.dtype = dtype
        self.mode = mode
        if tol is not None and not isinstance(tol, list):
            tol = [tol] * len(self.comps)
        self.tol = tol


class Reject:
    def __init__(self, kind):
        self.kind = kind


def float_ok(o, e, mode, tol):
    on = np.isnan(o)
    en = np.isnan(e)
    if mode == "exact":
        e = e.astype(o.dtype)
        ubits = {2: np.uint16, 4: np.uint32}.get(o.dtype.itemsize, np.uint64)
        # (copies, not ascontiguousarray: that turns 0-d arrays into 1-d ones)
        same = np.array(o, copy=True).view(ubits) == np.array(e, copy=True).view(ubits)
    elif mode == "zeros":
        same = o == e.astype(o.dtype)
    else:
        ol = o.astype(LD)
        el = e.astype(LD)
        diff = np.abs(ol - el)
        same = (ol == el) | (np.isfinite(ol) & np.isfinite(el) & (diff <= tol))
        # A reference beyond the type's range rounds to an infinity there (f16 sums and
        # variances overflow at 65504): ours must be that infinity.
        with np.errstate(over="ignore"):
            rounded = el.astype(o.dtype)
        same |= np.isinf(rounded) & np.isfinite(el) & (o == rounded)
    return (on & en) | (~on & ~en & same)


def mismatches(ours, exp):
    """A bool array marking wrong elements, or a string when dtype or shape is wrong."""
    name = NAME_OF.get(ours.dtype)
    if name != exp.dtype:
        return f"dtype {name}, expected {exp.dtype}"
    if ours.shape != exp.shape:
        return f"shape {list(ours.shape)}, expected {list(exp.shape)}"
    bad = np.zeros(ours.shape, bool)
    for k, (o, e) in enumerate(zip(comps(ours), exp.comps)):
        if o.dtype == DT["bf16"]:
            # ml_dtypes' bfloat16 is not a NumPy float kind: compare as the float32 values
            # (exact), the expected value rounded to bfloat16 first unless compared with a
            # tolerance.
            if exp.mode != "tol":
                e = np.asarray(e).astype(DT["bf16"]).astype(np.float32)
            o = o.astype(np.float32)
        if o.dtype.kind == "f":
            tol = None if exp.tol is None else np.broadcast_to(exp.tol[k], o.shape)
            bad |= ~float_ok(o, e, exp.mode, tol)
        else:
            bad |= o != e.astype(o.dtype)
    if exp.free is not None:
        ours_special = ~np.isfinite(ours.real) | ~np.isfinite(ours.imag)
        bad = np.where(exp.free, ~ours_special, bad)
    return bad


def mutate(ours, exp, seed):
    """A copy of `ours` with one element changed by more than the comparison allows."""
    m = np.array(ours, copy=True)
    flat = m.reshape(-1)
    i = seed % flat.size
    kind = flat.dtype.kind
    if kind == "b":
        flat[i] = not flat[i]
    elif kind in "ui":
        flat[i] = flat[i] + flat.dtype.type(1)
    else:
        part = flat.real if kind == "c" else flat
        x = float(part[i])
        tol = 0.0 if exp.tol is None else float(np.broadcast_to(exp.tol[0], exp.shape).reshape(-1)[i])
        if not math.isfinite(x):
            new = 0.0
        else:
            # A step of several ulps of the type (f16, bf16) or 2^-10 (wider types).
            step = max(2.0**-10, 4 * float(finfo(NAME_OF[flat.dtype]).eps))
            new = x + 2 * tol + max(abs(x), 1.0) * step
        part[i] = new
        if kind == "c" and not math.isfinite(float(flat.imag[i])):
            flat.imag[i] = 0.0  # a wholly finite value, which no comparison accepts
    return m


# ---------------------------------------------------------------- casts and arithmetic


def float_to_int(x, d):
    # OURS: Rust `as`: truncate toward zero, saturate at the limits, NaN -> 0.
    info = np.iinfo(DT[d])
    t = np.trunc(np.asarray(x).astype(np.float64))
    nan = np.isnan(t)
    hi = float(int(info.max) + 1)  # 2^bits exactly
    lo = float(int(info.min))
    over = t >= hi
    under = t < lo
    inside = ~(nan | over | under)
    safe = np.where(inside, t, 0.0).astype(DT[d])
    out = np.where(over, DT[d](info.max), np.where(under, DT[d](info.min), safe))
    return np.where(nan, DT[d](0), out).astype(DT[d])


def rust_cast(x, s, d):
    x = np.asarray(x)
    if s == d:
        return x.copy()
    if d == "bool":
        if s in COMPLEX:
            return (x.real != 0) | (x.imag != 0)
        return x != 0  # NaN is true
    if s in COMPLEX:
        if d in COMPLEX:
            return make_complex(x.real.astype(DT[REAL[d]]), x.imag.astype(DT[REAL[d]]), d)
        return rust_cast(x.real.copy(), REAL[s], d)  # the real part, then the real rules
    if d in COMPLEX:
        return make_complex(rust_cast(x, s, REAL[d]), np.zeros(x.shape, DT[REAL[d]]), d)
    if s in FLOATS and d in INTS:
        return float_to_int(x, d)
    # bool -> 0/1, int -> int wraps, int -> float and f64 -> f32 round to nearest.
    return x.astype(DT[d])


def int_div(a, b, d):
    # OURS: truncation toward zero, x / 0 == 0, MIN / -1 == MIN (NumPy floors and warns).
    T = DT[d]
    a, b = np.broadcast_arrays(a, b)
    zero = b == T(0)
    bs = np.where(zero, T(1), b)
    if d in SIGNED:
        minus_one = bs == T(-1)
        bs = np.where(minus_one, T(1), bs)
        r = np.fmod(a, bs)  # the sign of the dividend, like C
        q = ((a - r) // bs).astype(T)  # exact division: floor == trunc
        q = np.where(minus_one, np.negative(a), q)  # -MIN wraps to MIN
    else:
        q = a // bs
    return np.where(zero, T(0), q).astype(T)


def cmul(a, b, d):
    # The textbook formula, as num-complex computes it.
    ar, ai, br, bi = np.asarray(a).real, np.asarray(a).imag, np.asarray(b).real, np.asarray(b).imag
    re = ar * br - ai * bi
    im = ar * bi + ai * br
    e = 2 * eps(d)
    tol_re = e * (absf(ar * br) + absf(ai * bi))
    tol_im = e * (absf(ar * bi) + absf(ai * br))
    return make_complex(re, im, d), [tol_re, tol_im]


def cdiv(a, b, d):
    # OURS: (ac+bd)/(c²+d²) + i(bc-ad)/(c²+d²), the naive formula (NumPy uses Smith's).
    ar, ai = np.asarray(a).real, np.asarray(a).imag
    c, dd = np.asarray(b).real, np.asarray(b).imag
    norm = c * c + dd * dd
    re = (ar * c + ai * dd) / norm
    im = (ai * c - ar * dd) / norm
    e = 4 * eps(d)
    n = absf(norm)
    with np.errstate(all="ignore"):
        tol_re = e * ((absf(ar * c) + absf(ai * dd)) / np.where(n > 0, n, 1) + absf(re))
        tol_im = e * ((absf(ai * c) + absf(ar * dd)) / np.where(n > 0, n, 1) + absf(im))
    tol_re = np.where(np.isfinite(tol_re), tol_re, 0)
    tol_im = np.where(np.isfinite(tol_im), tol_im, 0)
    return make_complex(re, im, d), [tol_re, tol_im]


def product_ours(a, axis, d, cumulative):
    """OURS: the product from the first factor, factor by factor in the element type (the
    textbook formula for complex values), and how many factors each result has."""
    a = np.asarray(a)
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    x = np.moveaxis(a, axis, 0)
    n = x.shape[0]
    # OURS: a half-precision product, cumulative or not, accumulates in f32.
    acc_type = np.float32 if d in HALF else DT[d]
    acc = x[0].astype(acc_type)
    prefixes = [acc.copy()]
    for k in range(1, n):
        if d in COMPLEX:
            acc, _ = cmul(acc, x[k], d)
        else:
            acc = (acc * x[k].astype(acc_type)).astype(acc_type)
        prefixes.append(np.asarray(acc).copy())
    if cumulative:
        out = np.moveaxis(np.stack(prefixes), 0, axis)
        count = np.moveaxis(np.broadcast_to(
            np.arange(1, n + 1).reshape((n,) + (1,) * (x.ndim - 1)), x.shape), 0, axis)
        return out, count
    return np.asarray(acc).astype(DT[d]), np.full(np.shape(acc), n)


def product_expect(a, axis, d, cumulative):
    if np.asarray(a).size == 0:
        return None
    ref, factors = product_ours(a, axis, d, cumulative)
    if d not in COMPLEX:
        return Expect(ref.astype(DT[d]), d)  # the sign of a zero product is determined
    special = ~np.isfinite(ref.real) | ~np.isfinite(ref.imag)
    return Expect(ref.astype(DT[d]), d, "zeros", free=special & (factors >= 3))


def lane_expect(f, a, axis, d):
    """Reductions over lanes of one or two elements of special values, in the element type:
    a single operation, so the result does not depend on any order."""
    a = np.asarray(a)
    n = a.shape[axis]
    x = np.moveaxis(a, axis, 0)
    if f == "prod":
        return product_expect(a, axis, d, False)
    s = x[0].copy()
    for k in range(1, n):
        s = (s + x[k]).astype(DT[d])
    if f == "sum":
        return Expect(s, d, "zeros")
    # mean: OURS divides by n (complex: by n + 0i with the naive formula); f16 and bf16
    # sum and divide in f32, rounding once.
    if d in HALF:
        w = x[0].astype(np.float32)
        for k in range(1, n):
            w = w + x[k].astype(np.float32)
        return Expect((w / np.float32(n)).astype(DT[d]), d, "zeros")
    if d in FLOATS:
        return Expect((s / DT[d](n)).astype(DT[d]), d, "zeros")
    q, _ = cdiv(s, np.full(s.shape, n, DT[d]), d)
    return Expect(q, d, "zeros")


def ld_function(f, args, d, abs_tol=0.0):
    """f computed in long double from the exact inputs, rounded to d, with a tolerance."""
    ref = np.asarray(f(*[np.asarray(x).astype(LD) for x in args])).astype(DT[d])
    tol = 4 * eps(d) * absf(ref) + 2 * tiny(d) + abs_tol
    return Expect(ref, d, "tol", tol)


def sigmoid(x):
    # OURS: NumPy has no sigmoid; 1/(1+e^-x) in long double (which holds e^-x of any f64 x
    # whose sigmoid is not 0).
    return 1 / (1 + np.exp(-x))


TRANSCENDENTAL = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
                  "log1p": np.log1p, "expm1": np.expm1, "tan": np.tan, "atan": np.arctan,
                  "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh,
                  "sigmoid": sigmoid}
ROUNDING = {"floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc}
CLASSIFY = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


def op_unary(op, d, ins):
    a = ins[0]
    f = op["fn"]
    if f == "neg":
        return Expect(np.negative(a), d)  # integers wrap, as NumPy's do
    if f == "abs":
        if d in COMPLEX:
            return ld_function(np.hypot, [a.real, a.imag], REAL[d])  # the modulus
        if d in INTS - SIGNED:
            return Expect(a.copy(), d)
        return Expect(np.abs(a), d)  # abs(MIN) == MIN, as NumPy's
    if f == "not":
        return Expect(np.logical_not(a) if d == "bool" else np.invert(a), d)
    if f == "sqrt":
        return Expect(np.sqrt(a), d)  # correctly rounded on both sides
    if f in ROUNDING:
        # Exact; integers are their own rounding (as in NumPy 2.3+).
        return Expect(a.copy() if d in INTS else ROUNDING[f](a), d)
    if f == "sign":
        if d == "bf16":
            # ml_dtypes' bfloat16 sign keeps -0.0; ours (and NumPy's float sign) gives +0.0.
            return Expect(np.sign(a.astype(np.float32)).astype(DT[d]), d)
        return Expect(np.sign(a), d)  # sign(-0.0) == +0.0, NaN stays NaN
    if f in CLASSIFY:
        if d in FLOATS | COMPLEX:
            return Expect(CLASSIFY[f](a), "bool")
        return Expect(np.full(a.shape, f == "isfinite"), "bool")
    if f in ("real", "imag"):
        if d in COMPLEX:
            return Expect((a.real if f == "real" else a.imag).copy(), REAL[d])
        return Expect(a.copy() if f == "real" else np.zeros_like(a), d)
    if f == "conj":
        return Expect(np.conj(a) if d in COMPLEX else a.copy(), d)
    if f == "angle":
        if d in COMPLEX:
            return ld_function(np.arctan2, [a.imag, a.real], REAL[d])
        # NumPy's angle of a real x: arctan2(+0, x), so angle(-0.0) == pi.
        return ld_function(np.arctan2, [np.zeros_like(a), a], d)
    abs_tol = 4 * eps(d) if f in ("sin", "cos") else 0.0
    return ld_function(TRANSCENDENTAL[f], [a], d, abs_tol)


COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
           "gt": np.greater, "ge": np.greater_equal}
LOGIC = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def op_binary(op, d, ins):
    a, b = ins
    f = op["fn"]
    T = DT[d]
    if f == "mul" and d in COMPLEX:
        v, tol = cmul(a, b, d)
        return Expect(v, d, "tol", tol)
    if f in ARITH:
        return Expect(ARITH[f](a, b, dtype=T), d)  # integers wrap
    if f == "div":
        if d in INTS:
            return Expect(int_div(a, b, d), d)
        if d in COMPLEX:
            v, tol = cdiv(a, b, d)
            return Expect(v, d, "tol", tol)
        return Expect(np.divide(a, b), d)
    if f == "pow":
        exp = ld_function(np.power, [a, b], d)
        # glibc's long double powl gets some infinite cases wrong (powl(-inf, -2^63) is inf,
        # C99 says +0), so where an input is not finite the reference is NumPy's power in
        # the element type (C pow/powf, whose special cases follow C99 Annex F).
        special = ~(np.isfinite(a) & np.isfinite(b))
        exp.comps[0] = np.where(special, np.power(a, b), exp.comps[0])
        return exp
    if f == "rem":
        # NumPy's remainder in the type: integers x % 0 == 0 and MIN % -1 == 0 (as ours);
        # floats fmod, then moved to the divisor's sign (npy_divmod).
        return Expect(np.remainder(a, b, dtype=T), d)
    if f in ("shl", "shr"):
        # NumPy's rule: amounts outside [0, bits) give 0 (right shifts of negatives: -1).
        return Expect((np.left_shift if f == "shl" else np.right_shift)(a, b, dtype=T), d)
    if f == "atan2":
        return ld_function(np.arctan2, [a, b], d)
    if f == "hypot":
        return ld_function(np.hypot, [a, b], d)
    if f in ("fmin", "fmax"):
        v = (np.fmin if f == "fmin" else np.fmax)(a, b)  # a NaN operand is ignored
        return Expect(v, d, "zeros" if d in FLOATS else "exact")
    if f in ("min", "max"):
        v = (np.minimum if f == "min" else np.maximum)(a, b)  # NaN propagates
        return Expect(v, d, "zeros" if d in FLOATS else "exact")
    if f in COMPARE:
        return Expect(COMPARE[f](a, b), "bool")
    return Expect(LOGIC[f](a, b), d)


def op_expr(op, d, ins):
    a, b = ins
    T = DT[d]
    name = op["name"]
    if name == "axpy_relu":
        return Expect(np.maximum(a * T(2.5) + b, T(0)), d, "zeros")
    if name == "select_sqrt":
        return Expect(np.where(a < b, np.sqrt(a), b * b - T(1)), d)
    if name == "bool_logic":
        return Expect(((a > T(0)) & (b <= T(0))) | ~(a == b), "bool")
    if name == "lit_sub":
        return Expect(T(2) - a, d)
    if name == "lit_div":
        return Expect(T(1) / b, d)
    if name == "int_mix":
        f = rust_cast(a, "i32", "f64") * np.float64(0.5) + rust_cast(b, "i32", "f64")
        return Expect(rust_cast(f, "f64", "i32"), "i32")
    raise ValueError(f"unknown expression {name}")


# ---------------------------------------------------------------- axis-wise operations

# Inputs whose float sums are exact in any order, up to this many terms (f32; f64 has 29
# more bits): multiples of 1/8 up to 64 ("exact"), multiples of 1/4 up to 5 ("dups").
EXACT_SUM_TERMS = {"exact": 2**24 // (64 * 8), "dups": 2**24 // (5 * 4)}


def exact_sum(kind, n, d):
    bound = EXACT_SUM_TERMS.get(kind, -1)
    if bound > 0 and rdt(d) == "f64":
        bound <<= 29
    return n <= bound


def axis_positions(shape, axis):
    """1, 2, ..., n along `axis`, shaped to broadcast against an array of `shape`."""
    k = np.arange(1, shape[axis] + 1, dtype=LD)
    view = [1] * len(shape)
    view[axis] = shape[axis]
    return k.reshape(view)


def op_reduce(op, d, ins):
    a = ins[0]
    f, axis, kind = op["fn"], op["axis"], op["kind"]
    T = DT[d]
    n = a.size if axis is None else a.shape[axis]
    out_shape = () if axis is None else a.shape[:axis] + a.shape[axis + 1:]
    out_size = int(np.prod(out_shape, dtype=np.int64))
    if f in ("min", "max", "argmin", "argmax") and n == 0 and out_size > 0:
        return Reject("EmptyReduction")
    if f == "mean" and n == 0 and out_size > 0:
        return Reject("EmptyReduction")  # OURS: an error (NumPy: NaN and a warning)
    if out_size == 0:
        # OURS: an empty result is fine even over an empty axis (NumPy raises for min/max
        # of shape (0, 0) along axis 0).
        out_dtype = "bool" if f in ("any", "all") else "i64" if f.startswith("arg") else d
        return Expect(np.zeros(out_shape, DT[out_dtype]), out_dtype)
    if f in ("any", "all"):
        return Expect(np.asarray((np.any if f == "any" else np.all)(a, axis=axis)), "bool")
    if f in ("min", "max"):
        v = np.asarray((np.min if f == "min" else np.max)(a, axis=axis))
        return Expect(v, d, "zeros" if d in FLOATS else "exact")
    if f in ("argmin", "argmax"):
        g = np.argmin if f == "argmin" else np.argmax  # first occurrence; first NaN wins
        return Expect(np.asarray(g(a, axis=axis)).astype(np.int64), "i64")
    if d in INTS:
        g = np.sum if f == "sum" else np.prod
        return Expect(np.asarray(g(a, axis=axis, dtype=T)), d)  # wraps
    if kind in ("pairs", "alone"):
        return lane_expect(f, a, axis, d)
    if kind == "tame_special":
        return product_expect(a, axis, d, False)
    if f == "sum":
        return sum_expect(a, axis, kind, n, d)
    if f == "mean":
        return mean_expect(a, axis, kind, n, d)
    return prod_expect(a, axis, kind, n, d)


def sum_expect(a, axis, kind, n, d):
    vals, tols = [], []
    exact = exact_sum(kind, n, d)
    for c in comps(a):
        ref = np.asarray(np.sum(c.astype(LD), axis=axis))
        if exact:
            vals.append(ref.astype(DT[rdt(d)]))
        else:
            vals.append(ref)
            scale = np.asarray(np.sum(absf(c), axis=axis))
            tols.append((math.sqrt(n) + 1) * eps(d) * scale + eps(d) * absf(ref))
    if exact:
        return Expect(vals, d, "zeros")
    return Expect(vals, d, "tol", tols)


def mean_expect(a, axis, kind, n, d):
    if d in HALF:
        # OURS: the sum and the quotient in f32, rounded once (NumPy's float16 mean also
        # computes in float32).
        ref = np.asarray(np.sum(a.astype(LD), axis=axis)) / n
        scale = np.asarray(np.sum(absf(a), axis=axis)) / n
        tol = (math.sqrt(n) + 1) * eps("f32") * scale + eps(d) * absf(ref)
        return Expect(ref, d, "tol", tol)
    s = sum_expect(a, axis, kind, n, d)
    R = DT[rdt(d)]
    nT = R(n)
    if d in FLOATS:
        if s.mode == "zeros":
            return Expect(np.divide(s.comps[0].astype(R), nT), d, "zeros")
        return Expect(s.comps[0] / n, d, "tol", [s.tol[0] / n + eps(d) * absf(s.comps[0] / n)])
    # OURS: sum / (n + 0i) with the naive complex division formula.
    if s.mode == "zeros":
        sr, si = (x.astype(R) for x in s.comps)
        zero = R(0)
        norm = nT * nT + zero * zero
        re = (sr * nT + si * zero) / norm
        im = (si * nT - sr * zero) / norm
        return Expect([re, im], d, "zeros")
    vals = [x / n for x in s.comps]
    return Expect(vals, d, "tol", [t / n + 4 * eps(d) * absf(v) for t, v in zip(s.tol, vals)])


def prod_expect(a, axis, kind, n, d):
    exact = kind in ("prod_exact", "tame")
    if d in COMPLEX:
        ref = np.asarray(np.prod(a.astype(CLD), axis=axis))
        if exact:
            return Expect(ref.astype(DT[d]), d, "zeros")
        scale = np.asarray(np.prod(np.abs(a).astype(LD), axis=axis))
        return Expect(ref, d, "tol", 4 * (n + 1) * eps(d) * scale)
    ref = np.asarray(np.prod(a.astype(LD), axis=axis))
    if exact:
        return Expect(ref.astype(DT[d]), d)  # exact; the sign of a zero product is determined
    return Expect(ref, d, "tol", (n + 1) * eps(d) * absf(ref))


def op_scan(op, d, ins):
    a = ins[0]
    f, axis, kind = op["fn"], op["axis"], op["kind"]
    T = DT[d]
    if f in ("cummax", "cummin"):
        # NaN propagates (maximum/minimum do); the sign of a zero tie is not specified.
        g = np.maximum if f == "cummax" else np.minimum
        return Expect(g.accumulate(a, axis=axis), d, "zeros" if d in FLOATS else "exact")
    g = np.cumsum if f == "cumsum" else np.cumprod
    if d in INTS:
        return Expect(g(a, axis=axis, dtype=T), d)  # wraps
    if a.size == 0:
        return Expect(a.copy(), d)
    n = a.shape[axis]
    k = axis_positions(a.shape, axis)
    if f == "cumprod" and kind in ("pairs", "alone", "tame_special"):
        return product_expect(a, axis, d, True)
    if f == "cumsum" and kind in ("pairs", "alone"):
        x = np.moveaxis(a, axis, 0)
        out = [x[0].copy()]
        for j in range(1, n):
            out.append((out[-1] + x[j]).astype(T))
        return Expect(np.moveaxis(np.stack(out), 0, axis), d, "zeros")
    if f == "cumsum":
        exact = exact_sum(kind, n, d)
        vals, tols = [], []
        for c in comps(a):
            ref = np.cumsum(c.astype(LD), axis=axis)
            if exact:
                vals.append(ref.astype(DT[rdt(d)]))
            else:
                vals.append(ref)
                # OURS: halves keep an f32 running sum and round each output once.
                run_eps = eps("f32") if d in HALF else eps(d)
                tols.append((np.sqrt(k) + 1) * run_eps * np.cumsum(absf(c), axis=axis)
                            + eps(d) * absf(ref))
        return Expect(vals, d, "zeros", None) if exact else Expect(vals, d, "tol", tols)
    exact = kind in ("prod_exact", "tame")
    if d in COMPLEX:
        ref = np.cumprod(a.astype(CLD), axis=axis)
        if exact:
            return Expect(ref.astype(T), d, "zeros")
        scale = np.cumprod(np.abs(a).astype(LD), axis=axis)
        return Expect(ref, d, "tol", 4 * (k + 1) * eps(d) * scale)
    ref = np.cumprod(a.astype(LD), axis=axis)
    if exact:
        return Expect(ref.astype(T), d)
    return Expect(ref, d, "tol", (k + 1) * eps(d) * absf(ref))


def op_matmul(op, d, ins):
    a, b = ins
    if d in INTS:
        return Expect(np.matmul(a, b), d)  # accumulates in the element type: wraps
    k = a.shape[-1]
    exact = op["kind"] == "small_int"
    if d in COMPLEX:
        ref = np.matmul(a.astype(CLD), b.astype(CLD))
        if exact:
            return Expect(ref.astype(DT[d]), d, "zeros")
        scale = np.matmul(np.abs(a).astype(LD), np.abs(b).astype(LD))
        return Expect(ref, d, "tol", 2 * (k + 2) * eps(d) * scale)
    ref = np.matmul(a.astype(LD), b.astype(LD))
    if exact:
        return Expect(ref.astype(DT[d]), d, "zeros")
    scale = np.matmul(absf(a), absf(b))
    return Expect(ref, d, "tol", (k + 1) * eps(d) * scale + eps(d) * absf(ref))


# ---------------------------------------------------------------- construction


def op_arange(op, d, ins):
    start, step = ins[0][()], ins[1][()]
    T = DT[d]
    v = rust_cast(np.arange(op["len"], dtype=np.int64), "i64", d)  # OURS: i as T first
    if d in COMPLEX:
        prod, tol = cmul(v, np.asarray(step), d)
        return Expect(prod + start, d, "tol", tol)
    if d in INTS:
        return Expect(np.add(np.multiply(v, step, dtype=T), start, dtype=T), d)
    return Expect(v * step + start, d)


def op_linspace(op, d, ins):
    """NumPy's own linspace (computed in f64, then rounded): ours computes start + i*step
    in the element type, so allow a few ulps of the span; an endpoint is exactly stop."""
    start, stop = ins[0][()], ins[1][()]
    ref = np.linspace(start, stop, op["num"], endpoint=op["endpoint"], dtype=np.float64)
    tol = 4 * eps(d) * (abs(float(start)) + abs(float(stop)))
    return Expect(ref, d, "tol", np.full(ref.shape, tol))


def op_meshgrid(op, d, ins):
    return Expect(np.meshgrid(*ins, indexing=op["indexing"])[op["which"]].copy(), d)


M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
MASK = np.uint64(0xFFFFFFFF)


def philox_words(seed, n):
    """Philox4x32-10 of counters [lo(c), hi(c), 0, 0], c < n, with key [lo(seed), hi(seed)]."""
    i = np.arange(n, dtype=np.uint64)
    c0, c1 = i & MASK, i >> np.uint64(32)
    c2 = np.zeros(n, np.uint64)
    c3 = np.zeros(n, np.uint64)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    for r in range(10):
        if r > 0:
            k0 = (k0 + W0) & MASK
            k1 = (k1 + W1) & MASK
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK
    return c0, c1, c2, c3


def unit_f64(x, y):
    return ((x >> np.uint64(5)).astype(np.float64) * 67108864.0
            + (y >> np.uint64(6)).astype(np.float64)) * 2.0**-53


def draw_words(seed, n, per):
    """Draw i takes words per*i .. per*i + per - 1 of the stream: Philox call c gives
    stream words 4c .. 4c + 3."""
    calls = (n * per + 3) // 4
    stream = np.stack(philox_words(seed, calls), axis=1).reshape(-1)
    words = [stream[k::per][:n] for k in range(per)]
    return words + [np.zeros(n, np.uint64)] * (4 - per)


def op_random(op, d, ins):
    want = d
    shape = tuple(op["shape"])
    n = int(np.prod(shape, dtype=np.int64))
    per = {("uniform", "f32"): 1, ("uniform", "f16"): 1, ("uniform", "bf16"): 1,
           ("normal", "f64"): 4}.get((op["dist"], d), 2)
    T = DT[d]
    if op["dist"] == "uniform":
        r0, r1, r2, r3 = draw_words(int(op["seed"]), n, per)
        if d in HALF:
            # OURS: the top 11 (f16) or 8 (bf16) bits, exact in the type.
            bits = 11 if d == "f16" else 8
            v = (r0 >> np.uint64(32 - bits)).astype(np.float64) * 2.0**-bits
            return Expect(v.astype(T).reshape(shape), d)
        if d == "f32":
            v = (r0 >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
        else:
            v = unit_f64(r0, r1)
        return Expect(v.reshape(shape), d)  # bit for bit
    # A normal draw is a Box-Muller pair: element 2k is rho*cos(theta) of draw k, element
    # 2k + 1 its rho*sin(theta).
    pairs = (n + 1) // 2
    r0, r1, r2, r3 = draw_words(int(op["seed"]), pairs, per)
    half = d in HALF
    if half:
        # OURS: the f32 pair, rounded once to the type.
        d, T = "f32", np.float32
    if d == "f32":
        u1 = ((r0 >> np.uint64(8)) + np.uint64(1)).astype(np.float32) * np.float32(2.0**-24)
        u2 = (r1 >> np.uint64(8)).astype(np.float32) * np.float32(2.0**-24)
    else:
        u1 = unit_f64(r0, r1) + 2.0**-53
        u2 = unit_f64(r2, r3)
    # Each step in the element type; ln, cos and sin correctly rounded from long double.
    ln = np.log(u1.astype(LD)).astype(T)
    rho = np.sqrt(T(-2.0) * ln)
    theta = (T(2 * math.pi) * u2).astype(LD)
    cs = np.stack([np.cos(theta).astype(T), np.sin(theta).astype(T)], axis=1).reshape(-1)[:n]
    s = np.repeat(rho, 2)[:n]
    z = s * cs
    tol = 4 * eps(d) * (absf(s) + absf(z))
    if half:
        d = want
        z = z.astype(DT[d])
        tol = tol + eps(d) * absf(z)
    return Expect(z.reshape(shape), d, "tol", tol.reshape(shape))


# ---------------------------------------------------------------- dispatch


def op_sort(op, d, ins):
    return Expect(np.sort(ins[0], axis=-1), d, "zeros" if d in FLOATS else "exact")


def stable_argsort(x, axis, descending):
    """NumPy's stable argsort; descending: the stable order of the reversed comparison
    (equal elements keep their order, NaNs first), from the ascending order of the
    reversed axis."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


def op_argsort(op, d, ins):
    return Expect(stable_argsort(ins[0], op["axis"], op["descending"]).astype(np.int64), "i64")


def op_sort_along(op, d, ins):
    s = np.sort(ins[0], axis=op["axis"])
    if op["descending"]:
        s = np.flip(s, op["axis"])
    return Expect(s.copy(), d, "zeros" if d in FLOATS else "exact")


def op_topk(op, d, ins):
    x, axis, k = ins[0], op["axis"], op["k"]
    idx = np.take(stable_argsort(x, axis, op["descending"]), np.arange(k), axis=axis)
    if op["which"] == 1:
        return Expect(idx.astype(np.int64), "i64")
    return Expect(np.take_along_axis(x, idx, axis), d)


def op_partition(op, d, ins):
    # Documented: the result is the fully sorted array, one valid partition around kth.
    x, axis = ins[0], op["axis"]
    part = np.partition(x, op["kth"], axis=axis)
    s = np.sort(x, axis=axis)
    kth = np.take(s, [op["kth"]], axis=axis)
    assert (np.take(part, [op["kth"]], axis=axis) == kth).all() or np.isnan(kth).any()
    if op["op"] == "argpartition":
        return Expect(np.argsort(x, axis=axis, kind="stable").astype(np.int64), "i64")
    return Expect(s, d, "zeros" if d in FLOATS else "exact")


def op_unique(op, d, ins):
    # ml_dtypes' bfloat16 compares -0.0 and 0.0 (and NaNs) apart in np.unique; its float32
    # values (exact) follow NumPy's float rules, which are ours.
    x = ins[0].astype(np.float32) if d == "bf16" else ins[0]
    r = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    w = op["which"]
    if w == 0:
        return Expect(r[0].astype(DT[d]), d)
    if w == 2:
        return Expect(r[2].reshape(ins[0].shape).astype(np.int64), "i64")
    return Expect(r[w].astype(np.int64), "i64")


def op_searchsorted(op, d, ins):
    side = "right" if op["right"] else "left"
    return Expect(np.searchsorted(np.sort(ins[0]), ins[1], side=side).astype(np.int64), "i64")


def op_find(op, d, ins):
    return Expect(np.flatnonzero(ins[0]).astype(np.int64), "i64")


def op_find_first(op, d, ins):
    return Expect(np.flatnonzero(ins[0])[:1].astype(np.int64), "i64")


def op_cast(op, d, ins):
    return Expect(rust_cast(ins[0], d, op["to"]), op["to"])


def selection(sel):
    """NumPy's index tuple for a recorded selection (see recorder.rs `selection_json`)."""
    out = []
    for item in sel:
        if item == "new":
            out.append(np.newaxis)
        elif "i" in item:
            out.append(item["i"])
        else:
            out.append(slice(*item["s"]))
    return tuple(out)


def op_pad(op, d, ins):
    widths = [tuple(w) for w in op["widths"]]
    if op["mode"] == "constant":
        return Expect(np.pad(ins[0], widths, mode="constant", constant_values=ins[1][()]), d)
    if not widths:
        widths = 0  # a 0-d array: NumPy's widths broadcast to no axes
    try:
        return Expect(np.pad(ins[0], widths, mode=op["mode"]), d)
    except ValueError:
        # NumPy: "can't extend empty axis ... using modes other than 'constant'".
        return Reject("InvalidArgument")


def op_repeat_counts(op, d, ins):
    """np.repeat with an array of counts. Documented refusals: counts that are not
    integers (InvalidDType), of rank > 1 (RankMismatch), negative (InvalidArgument, NumPy's
    ValueError) or of a length other than 1 or the axis's (ShapeMismatch, NumPy's
    ValueError)."""
    a, c = ins
    if c.dtype.kind not in "iu":
        return Reject("InvalidDType")
    if c.ndim > 1:
        return Reject("RankMismatch")
    c = c.astype(np.int64)
    n = a.size if op["axis"] is None else a.shape[op["axis"]]
    try:
        ref = np.repeat(a, c, axis=op["axis"])
    except ValueError:
        return Reject("InvalidArgument" if (c < 0).any() else "ShapeMismatch")
    assert c.size in (1, n) and (c >= 0).all()
    return Expect(ref, d)


def op_logspace(op, d, ins):
    """NumPy's logspace (computed in f64): ours is pow(base, y) in the element type with y
    our linspace, whose few ulps of the span grow by |ln(base)| through the power."""
    start, stop, base = (float(x[()]) for x in ins)
    ref = np.logspace(start, stop, op["num"], endpoint=op["endpoint"], base=base)
    rel = eps(d) * (8 + 8 * abs(np.log(abs(base))) * (abs(start) + abs(stop)))
    return Expect(ref, d, "tol", rel * absf(ref))


def einsum_refusal(spec, d, ins):
    """The documented refusals of einsum, in order, or None (the subscripts and shapes are
    then also valid for NumPy): not one or two operands, two types, bool, an ellipsis,
    subscripts that are not letters or name another number of operands (InvalidArgument
    but for the types), a rank that differs (RankMismatch), a letter of two lengths
    (ShapeMismatch), an output letter repeated or not an input's (InvalidArgument)."""
    if len(ins) not in (1, 2):
        return "InvalidArgument"
    if len({x.dtype for x in ins}) > 1:
        return "DTypeMismatch"
    if d == "bool":
        return "InvalidDType"
    spec = spec.replace(" ", "")
    if "." in spec:
        return "InvalidArgument"
    lhs, _, rhs = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ins) or not all(t.isalpha() or t == "" for t in terms + [rhs]):
        return "InvalidArgument"
    lengths = {}
    for t, x in zip(terms, ins):
        if len(t) != x.ndim:
            return "RankMismatch"
        for letter, n in zip(t, x.shape):
            if lengths.setdefault(letter, n) != n:
                return "ShapeMismatch"
    if len(set(rhs)) != len(rhs) or any(c not in lengths for c in rhs):
        return "InvalidArgument"
    return None


def op_einsum(op, d, ins):
    spec = op["spec"]
    kind = einsum_refusal(spec, d, ins)
    if kind is not None:
        if len(ins) in (1, 2) and "." not in spec and kind != "InvalidDType":
            # NumPy refuses these too (its einsum has no 3-operand or ellipsis limits).
            try:
                np.einsum(spec, *ins)
            except ValueError:
                return Reject(kind)
            if kind != "DTypeMismatch":
                raise AssertionError(f"NumPy accepted {spec!r}, refused as {kind}")
        return Reject(kind)
    if d in INTS:
        return Expect(np.einsum(spec, *ins), d)  # in the element type: wraps
    # Terms per output element (the product of the summed lengths) and the sum of |terms|.
    terms = np.einsum(spec, *[np.ones(x.shape, np.float64) for x in ins])
    if d in COMPLEX:
        scale = np.einsum(spec, *[np.abs(x).astype(LD) for x in ins])
        ref = np.einsum(spec, *[x.astype(CLD) for x in ins])
        return Expect(ref, d, "tol", 2 * (terms + 2) * eps(d) * scale)
    scale = np.einsum(spec, *[absf(x) for x in ins])
    ref = np.einsum(spec, *[x.astype(LD) for x in ins])
    return Expect(ref, d, "tol", (terms + 2) * eps(d) * scale + eps(d) * absf(ref))


def op_at_assign(op, d, ins):
    y = ins[0].copy()
    y[selection(op["sel"])] = ins[1]
    return Expect(y, d)


def op_at_self_assign(op, d, ins):
    y = ins[0].copy()
    y[selection(op["dst"])] = y[selection(op["src"])]
    return Expect(y, d)


def index_errors(f):
    """NumPy's IndexError (an index outside its axis, a non-empty take from an empty axis)
    is the error gpuarrays reports as IndexOutOfRange."""
    def wrapped(op, d, ins):
        try:
            return f(op, d, ins)
        except IndexError:
            return Reject("IndexOutOfRange")
    return wrapped


def axis_tuple(ndim, axis, idx):
    """The index tuple `(:, ..., idx, ...)` that selects `idx` along `axis`."""
    return (slice(None),) * axis + (idx,)


def along_axis_tuple(idx, axis, shape):
    """Full coordinate arrays for `idx` along `axis`, the other axes broadcast to `shape`
    (NumPy's own `put_along_axis` pairs them the same way)."""
    space = list(shape)
    space[axis] = idx.shape[axis]
    grids = list(np.indices(space, sparse=True))
    grids[axis] = np.broadcast_to(idx, space)
    return tuple(np.broadcast_arrays(*grids))


def op_put(op, d, ins):
    y = ins[0].copy()
    np.put(y, ins[1], ins[2], mode=op["mode"])
    return Expect(y, d)


def op_put_along_axis(op, d, ins):
    y = ins[0].copy()
    np.put_along_axis(y, ins[1].astype(np.int64), ins[2], op["axis"])
    return Expect(y, d)


def op_scatter_add(op, d, ins):
    y = ins[0].copy()
    coords = along_axis_tuple(ins[1].astype(np.int64), op["axis"], y.shape)
    np.add.at(y, coords, np.broadcast_to(ins[2], coords[0].shape))
    return Expect(y, d)


def op_index_copy(op, d, ins):
    y = ins[0].copy()
    y[axis_tuple(y.ndim, op["axis"], ins[1].astype(np.int64))] = ins[2]
    return Expect(y, d)


def op_index_add(op, d, ins):
    y = ins[0].copy()
    np.add.at(y, axis_tuple(y.ndim, op["axis"], ins[1].astype(np.int64)), ins[2])
    return Expect(y, d)


def op_masked_assign(op, d, ins):
    y = ins[0].copy()
    y[ins[1]] = ins[2]
    return Expect(y, d)


def op_bincount(op, d, ins):
    # Any integer type is accepted (converted to i64 first; NumPy refuses uint64 itself).
    x = ins[0].astype(np.int64)
    if len(ins) > 1:
        return Expect(np.bincount(x, ins[1].astype(np.float64), op["minlength"]), "f64")
    return Expect(np.bincount(x, minlength=op["minlength"]).astype(np.int64), "i64")


OPS = {
    "unary": op_unary,
    "binary": op_binary,
    "expr": op_expr,
    "cast": op_cast,
    "select": lambda op, d, ins: Expect(np.where(ins[0], ins[1], ins[2]), d),
    "broadcast_to": lambda op, d, ins: Expect(np.broadcast_to(ins[0], tuple(op["shape"])).copy(), d),
    "full": lambda op, d, ins: Expect(np.broadcast_to(ins[0], tuple(op["shape"])).copy(), d),
    "copy": lambda op, d, ins: Expect(ins[0].copy(), d),
    "reverse": lambda op, d, ins: Expect(np.flip(ins[0], axis=op["axis"]), d),
    "permute": lambda op, d, ins: Expect(np.transpose(ins[0], op["axes"]), d),
    "reduce": op_reduce,
    "scan": op_scan,
    "sort": op_sort,
    "argsort": op_argsort,
    "sort_along": op_sort_along,
    "topk": op_topk,
    "partition": op_partition,
    "argpartition": op_partition,
    "unique": op_unique,
    "searchsorted": op_searchsorted,
    "find": op_find,
    "find_first": op_find_first,
    "matmul": op_matmul,
    "arange": op_arange,
    "linspace": op_linspace,
    "eye": lambda op, d, ins: Expect(np.eye(op["n"], op["m"], op["k"], dtype=DT[d]), d),
    "tri": lambda op, d, ins: Expect(np.tri(op["n"], op["m"], op["k"], dtype=DT[d]), d),
    "meshgrid": op_meshgrid,
    "concatenate": lambda op, d, ins: Expect(np.concatenate(ins, axis=op["axis"]), d),
    "stack": lambda op, d, ins: Expect(np.stack(ins, axis=op["axis"]), d),
    "array_split": lambda op, d, ins: Expect(
        np.array_split(ins[0], op["sections"], axis=op["axis"])[op["piece"]].copy(), d),
    "tile": lambda op, d, ins: Expect(np.tile(ins[0], op["reps"]), d),
    "repeat": lambda op, d, ins: Expect(np.repeat(ins[0], op["repeats"], axis=op["axis"]), d),
    "pad": op_pad,
    "repeat_counts": op_repeat_counts,
    "logspace": op_logspace,
    "einsum": op_einsum,
    "at": lambda op, d, ins: Expect(np.array(ins[0][selection(op["sel"])]), d),
    "at_assign": op_at_assign,
    "at_self_assign": op_at_self_assign,
    "random": op_random,
    "fft": lambda op, d, ins: fftcheck.op_fft(op, d, ins, Expect, Reject, eps),
    "fftshift": lambda op, d, ins: fftcheck.op_fftshift(op, d, ins, Expect),
    "fftfreq": lambda op, d, ins: fftcheck.op_fftfreq(op, d, DT, Expect),
    "stat": lambda op, d, ins: statcheck.op_stat(op, d, ins, Expect, eps, LD, CLD, INTS, COMPLEX),
    "take": index_errors(lambda op, d, ins: Expect(
        np.take(ins[0], ins[1].astype(np.int64), axis=op["axis"], mode=op["mode"]), d)),
    "take_along_axis": index_errors(lambda op, d, ins: Expect(
        np.take_along_axis(ins[0], ins[1].astype(np.int64), op["axis"]), d)),
    "put": index_errors(op_put),
    "put_along_axis": index_errors(op_put_along_axis),
    "scatter_add": index_errors(op_scatter_add),
    "index_copy": index_errors(op_index_copy),
    "index_add": index_errors(op_index_add),
    "masked_select": lambda op, d, ins: Expect(ins[0][ins[1]], d),
    "masked_assign": op_masked_assign,
    "nonzero": lambda op, d, ins: Expect(np.nonzero(ins[0])[op["which"]].astype(np.int64), "i64"),
    "argwhere": lambda op, d, ins: Expect(np.argwhere(ins[0]).astype(np.int64), "i64"),
    "bincount": op_bincount,
}


def coverage_key(op):
    o = op["op"]
    for k in ("fn", "to", "dist"):
        if k in op:
            return f"{o}/{op[k]}"
    return o


def load_arrays(manifest, data):
    arrays = []
    for a in manifest["arrays"]:
        shape = tuple(a["shape"])
        n = int(np.prod(shape, dtype=np.int64))
        dt = DT[a["dtype"]]
        if n == 0:
            arrays.append(np.zeros(shape, dt))
            continue
        raw = np.frombuffer(data, dtype=np.uint8, count=a["nbytes"], offset=a["offset"])
        if a["dtype"] == "bool" and (raw > 1).any():
            arrays.append(ValueError("corrupt bool bytes (not 0 or 1)"))
            continue
        arrays.append(raw.view(dt).reshape(shape).copy())
    return arrays


def build_input(arrays, ref):
    x = arrays[ref["array"]]
    for step in ref["derive"]:
        if "view" in step:
            x = x[tuple(slice(s, e) for s, e in step["view"])]
        elif "reshape" in step:
            x = x.reshape(step["reshape"])
        elif "reinterpret" in step:
            x = np.ascontiguousarray(x).view(DT[step["reinterpret"]])
        elif "at" in step:
            x = x[selection(step["at"])]
        elif "permute" in step:
            x = x.transpose(step["permute"])
    return x



def describe(ours, exp, bad, limit=4):
    idx = np.argwhere(bad)[:limit]
    rows = []
    for i in idx:
        t = tuple(int(j) for j in i)
        row = {"index": list(t), "ours": repr(ours[t])}
        row["expected"] = [repr(c[t]) for c in exp.comps]
        if exp.tol is not None:
            row["tol"] = [repr(np.broadcast_to(x, exp.shape)[t]) for x in exp.tol]
        rows.append(row)
    return {"wrong": int(bad.sum()), "of": int(bad.size), "first": rows}


def check(manifest, data):
    arrays = load_arrays(manifest, data)
    failures = []
    compared = rejected = mutations = 0
    seen = {}
    for case in manifest["cases"]:
        cid, op, d = case["id"], case["op"], case["dtype"]
        if op.get("coverage", True):
            seen.setdefault(coverage_key(op), set()).add(d)
        result = case["result"]

        def fail(why, **detail):
            failures.append({"id": cid, "why": why, **detail})

        try:
            ins = [build_input(arrays, r) for r in case["inputs"]]
            if d not in accepted_types(op):
                exp = Reject("InvalidDType")
            else:
                with np.errstate(all="ignore"):
                    exp = OPS[op["op"]](op, d, ins)
        except Exception:
            fail("checker error", trace=traceback.format_exc())
            continue
        if isinstance(exp, Reject):
            err = result.get("err")
            if err is None:
                fail(f"expected error {exp.kind}, got a result")
            elif err["kind"] != exp.kind:
                fail(f"expected error {exp.kind}, got {err['kind']}", message=err["message"])
            else:
                rejected += 1
            continue
        if "err" in result:
            fail("unexpected error", error=result["err"])
            continue
        ours = arrays[result["ok"]]
        if isinstance(ours, Exception):
            fail(str(ours))
            continue
        with np.errstate(all="ignore"):
            bad = mismatches(ours, exp)
        if isinstance(bad, str):
            fail(bad)
            continue
        if bad.any():
            fail("values differ", mode=exp.mode, **describe(ours, exp, bad))
            continue
        compared += 1
        if ours.size:
            with np.errstate(all="ignore"):
                m = mutate(ours, exp, zlib.crc32(cid.encode()))
                caught = mismatches(m, exp)
            if isinstance(caught, str) or not caught.any():
                fail("a mutated result still passed the comparison", mode=exp.mode)
            else:
                mutations += 1
    for key, dtypes in sorted(seen.items()):
        if dtypes != ALL:
            failures.append({"id": key, "why": "not every element type was tried",
                             "missing": sorted(ALL - dtypes)})
    return {
        "cases": len(manifest["cases"]),
        "compared": compared,
        "rejected": rejected,
        "mutations_detected": mutations,
        "numpy": np.__version__,
        "failures": failures,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: numpy_crosscheck.py DIR")
    d = sys.argv[1]
    with open(f"{d}/manifest.json") as f:
        manifest = json.load(f)
    with open(f"{d}/data.bin", "rb") as f:
        data = f.read()
    json.dump(check(manifest, data), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
