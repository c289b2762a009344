//! FFT cases for the NumPy cross-check: every FFT function of the API on every element type
//! (integers and bool must be rejected), over powers of two, primes, length 1, crop and pad,
//! each norm, the first, middle and last axis, runs of axes, 3-D arrays, a derived input
//! with an offset, and NumPy's helpers `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.
//! `tests/numpy_crosscheck_fft.py` recomputes them with `numpy.fft`.

use gpuarrays_core::{Array, DType, FftNorm, RawArray, Result, dispatch_dtype};
use serde_json::{Value, json};

use crate::recorder::{B, In, Out, Recorder};
use crate::values::{Kind, Rng, values};

fn out(r: Result<RawArray<B>>) -> Result<Out> {
    r.and_then(|r| Out::raw(&r))
}

/// How a call runs on an input.
type Run = Box<dyn Fn(&RawArray<B>) -> Result<RawArray<B>>>;

/// One call: its JSON description for the checker, and how to run it.
struct Call {
    json: Value,
    run: Run,
}

fn one(f: &'static str, n: Option<usize>, axis: usize, norm: FftNorm) -> Call {
    let json = json!({"op": "fft", "fn": f, "n": n, "axis": axis, "norm": norm.name()});
    let run: Run = Box::new(move |a| match f {
        "fft" => a.fft(n, axis, norm),
        "ifft" => a.ifft(n, axis, norm),
        "rfft" => a.rfft(n, axis, norm),
        _ => a.irfft(n, axis, norm),
    });
    Call { json, run }
}

fn many(f: &'static str, s: Option<Vec<usize>>, axes: Option<Vec<usize>>, norm: FftNorm) -> Call {
    let json = json!({"op": "fft", "fn": f, "s": s, "axes": axes, "norm": norm.name()});
    let run: Run = Box::new(move |a| {
        let (s, axes) = (s.as_deref(), axes.as_deref());
        match f {
            "fft2" => a.fft2(s, axes, norm),
            "ifft2" => a.ifft2(s, axes, norm),
            "fftn" => a.fftn(s, axes, norm),
            "ifftn" => a.ifftn(s, axes, norm),
            "rfftn" => a.rfftn(s, axes, norm),
            _ => a.irfftn(s, axes, norm),
        }
    });
    Call { json, run }
}

/// The calls made on an input of rank `rank`.
fn calls(rank: usize) -> Vec<Call> {
    use FftNorm::{Backward as B0, Forward as Fw, Ortho as Or};
    let last = rank - 1;
    let mut v = Vec::new();
    for f in ["fft", "ifft", "rfft", "irfft"] {
        v.push(one(f, None, last, B0));
        v.push(one(f, Some(7), last, Or));
        v.push(one(f, Some(33), 0, Fw));
        if rank > 2 {
            v.push(one(f, None, 1, B0));
        }
    }
    if rank >= 2 {
        for f in ["fft2", "ifft2", "fftn", "ifftn", "rfftn", "irfftn"] {
            v.push(many(f, None, None, B0));
            v.push(many(f, Some(vec![5, 9]), Some(vec![last, 0]), Or));
            v.push(many(f, None, Some(vec![0]), Fw));
        }
    }
    v
}

pub fn build(rec: &mut Recorder, rng: &mut Rng) {
    let backend = rec.backend.clone();
    for dtype in DType::ALL {
        let mut inputs: Vec<In> = Vec::new();
        for dims in [vec![30], vec![13], vec![1], vec![6, 10], vec![3, 4, 5]] {
            let n = dims.iter().product();
            let v = values(rng, dtype, n, Kind::Exact);
            inputs.push(rec.array(dtype, &dims, &v));
        }
        let base = values(rng, dtype, 8 * 10, Kind::Exact);
        inputs.push(rec.array(dtype, &[8, 10], &base).view(&[2..6, 0..10]));
        for a in &inputs {
            for c in calls(a.raw.ndim()) {
                let id = format!("{}/{dtype}/{:?}", c.json, a.raw.dims());
                let r = out((c.run)(&a.raw));
                rec.case(id, c.json, dtype, &[a], r);
            }
        }
        for (f, s) in [
            ("fftshift", None),
            ("ifftshift", None),
            ("fftshift", Some(vec![1])),
        ] {
            let a = &inputs[3];
            let r = match f {
                "fftshift" => a.raw.fftshift(s.as_deref()),
                _ => a.raw.ifftshift(s.as_deref()),
            };
            let op = json!({"op": "fftshift", "fn": f, "axes": s});
            rec.case(format!("{op}/{dtype}"), op, dtype, &[a], out(r));
        }
        for (f, n, d) in [
            ("fftfreq", 8, 0.1),
            ("fftfreq", 9, 2.0),
            ("rfftfreq", 9, 0.5),
        ] {
            let r = dispatch_dtype!(dtype, T => {
                let made = if f == "fftfreq" {
                    Array::<T, B>::fftfreq(&backend, n, d)
                } else {
                    Array::<T, B>::rfftfreq(&backend, n, d)
                };
                made.and_then(|a| Out::typed(&a))
            });
            let op = json!({"op": "fftfreq", "fn": f, "n": n, "d": d, "out": dtype.name()});
            rec.case(format!("{op}/{dtype}"), op, dtype, &[], r);
        }
    }
}
