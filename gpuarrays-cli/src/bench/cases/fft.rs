//! `fft/...`: the FFT shapes of the throughput targets (c32 1-D 2^24, 4096² 2-D, a
//! batch of 1024 rows of 4096 points, r2c 2^24, an awkward prime length, c64 2^24), each a
//! new output array per call through the public API (what a user's call costs, plan-cache
//! hit included), and `fft/.../cached-call`: the host cost of a whole small FFT call whose
//! plan is cached (no device wait between calls, as `kernel/launch`).
//!
//! Names: `fft/<kind>/<element type>/<lengths>[/variant]`, kind `c2c` or `r2c`.
//!
//! Throughput is the conventional *nominal* FFT operation count, as FFTW's benchFFT and
//! cuFFT's published figures: a complex transform of N points (N the product of its
//! lengths, so a 2-D transform counts its row and column passes together) is
//! 5·N·log2 N floating-point operations, a real-input one half of that (2.5·N·log2 N); a
//! batch multiplies by the batch count. It is the same for every algorithm (a prime length
//! costs more real operations than it is credited with), so it compares implementations of
//! one shape, not shapes with each other.

use gpuarrays::{AnyBackend, Complex32, Complex64, Element, FftNorm, Result};
use serde_json::json;

use super::gemm::matrix;
use super::inputs::data;
use super::{Case, Runner, Sizes, Timing, Work};

/// Which transform a row runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Complex to complex over `axes`.
    C2c,
    /// Real to complex (half spectrum) over `axes`.
    R2c,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::C2c => "c2c",
            Kind::R2c => "r2c",
        }
    }
}

/// The nominal operation count (see the module docs): 5·N·log2 N per complex transform of N
/// points, half for real input, times the batch.
fn nominal_flops(kind: Kind, transform_points: usize, batch: usize) -> f64 {
    let n = transform_points as f64;
    let per = if n > 1.0 { 5.0 * n * n.log2() } else { 0.0 };
    let per = if kind == Kind::R2c { per / 2.0 } else { per };
    per * batch as f64
}

/// One transform row: `dims` of element type `T` (complex for c2c, real for r2c),
/// transformed over `axes` (each as one call of the API: 1 axis `fft`/`rfft`, 2 axes `fft2`).
fn transform<T: Element>(name: String, kind: Kind, dims: Vec<usize>, axes: Vec<usize>) -> Case {
    let points: usize = axes.iter().map(|&a| dims[a]).product();
    let batch = dims.iter().product::<usize>() / points.max(1);
    let params = json!({"op": "fft", "kind": kind.name(), "dtype": T::DTYPE.name(),
                        "dims": dims, "axes": axes});
    let work = Work::Flops(nominal_flops(kind, points, batch));
    Case::new(name, params, work, move |be| {
        runner::<T>(be, kind, &dims, &axes)
    })
}

/// Makes the input on `be` and returns the call.
fn runner<T: Element>(
    be: &AnyBackend,
    kind: Kind,
    dims: &[usize],
    axes: &[usize],
) -> Result<Runner> {
    let x = if kind == Kind::C2c {
        matrix::<T>(be, dims, 61)?.into_raw()
    } else {
        data::<T>(be, dims, 62)?.into_raw()
    };
    let axes = axes.to_vec();
    Ok(Box::new(move || {
        let norm = FftNorm::Backward;
        match (kind, axes.as_slice()) {
            (Kind::C2c, [a]) => x.fft(None, *a, norm).map(drop),
            (Kind::R2c, [a]) => x.rfft(None, *a, norm).map(drop),
            (Kind::C2c, many) => x.fftn(None, Some(many), norm).map(drop),
            (Kind::R2c, many) => x.rfftn(None, Some(many), norm).map(drop),
        }
    }) as Runner)
}

/// Every FFT row: the throughput shapes are large rows, the cached-call row small.
pub fn cases(sizes: Sizes) -> Vec<Case> {
    let mut v = Vec::new();
    const N24: usize = 1 << 24;
    /// The largest prime below 10⁶: a Bluestein-sized transform on every library.
    const PRIME: usize = 999_983;
    if sizes.large() {
        v.push(transform::<Complex32>(
            "fft/c2c/ComplexF32/2^24".into(),
            Kind::C2c,
            vec![N24],
            vec![0],
        ));
        v.push(transform::<Complex32>(
            "fft/c2c/ComplexF32/4096x4096".into(),
            Kind::C2c,
            vec![4096, 4096],
            vec![0, 1],
        ));
        v.push(transform::<Complex32>(
            "fft/c2c/ComplexF32/1024x4096/batched".into(),
            Kind::C2c,
            vec![1024, 4096],
            vec![1],
        ));
        v.push(transform::<f32>(
            "fft/r2c/Float32/2^24".into(),
            Kind::R2c,
            vec![N24],
            vec![0],
        ));
        v.push(transform::<Complex32>(
            format!("fft/c2c/ComplexF32/{PRIME}"),
            Kind::C2c,
            vec![PRIME],
            vec![0],
        ));
        v.push(transform::<Complex64>(
            "fft/c2c/ComplexF64/2^24".into(),
            Kind::C2c,
            vec![N24],
            vec![0],
        ));
    }
    if sizes.small() {
        let n = 1024;
        let mut case = transform::<Complex32>(
            format!("fft/c2c/ComplexF32/{n}/cached-call"),
            Kind::C2c,
            vec![n],
            vec![0],
        )
        .timed_by(Timing::Host);
        case.params["host"] = json!(true);
        case.work = Work::None;
        v.push(case);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nominal_flops_follow_the_convention() {
        // 5·N·log2 N: 1024 points → 5·1024·10.
        assert_eq!(nominal_flops(Kind::C2c, 1024, 1), 51_200.0);
        assert_eq!(nominal_flops(Kind::C2c, 1024, 3), 153_600.0);
        assert_eq!(nominal_flops(Kind::R2c, 1024, 1), 25_600.0);
        // A 2-D 64×64 transform counts both passes: 5·4096·12.
        assert_eq!(nominal_flops(Kind::C2c, 64 * 64, 1), 245_760.0);
        assert_eq!(nominal_flops(Kind::C2c, 1, 7), 0.0);
    }

    #[test]
    fn rows_say_what_to_run() {
        for c in cases(Sizes::All) {
            assert_eq!(c.params["op"], "fft", "{}", c.name);
            let dims = c.params["dims"].as_array().expect("dims");
            for a in c.params["axes"].as_array().expect("axes") {
                let a = a.as_u64().expect("axis") as usize;
                assert!(a < dims.len(), "{}: axis {a} of {dims:?}", c.name);
            }
            let is_complex = c.params["dtype"] == "c32" || c.params["dtype"] == "c64";
            assert_eq!(is_complex, c.params["kind"] == "c2c", "{}", c.name);
        }
    }

    /// The runners compute on the CPU reference (tiny shapes of the same kinds).
    #[test]
    fn runners_run_on_the_cpu() {
        let be = AnyBackend::cpu();
        for (kind, dims, axes) in [
            (Kind::C2c, vec![8usize], vec![0usize]),
            (Kind::C2c, vec![4, 6], vec![0, 1]),
            (Kind::C2c, vec![3, 5], vec![1]),
        ] {
            let mut r = runner::<Complex32>(&be, kind, &dims, &axes).expect("prepare");
            r().expect("run");
        }
        let mut r = runner::<f32>(&be, Kind::R2c, &[16], &[0]).expect("prepare");
        r().expect("run");
        let mut r = runner::<Complex64>(&be, Kind::C2c, &[7], &[0]).expect("prepare");
        r().expect("run");
    }
}
