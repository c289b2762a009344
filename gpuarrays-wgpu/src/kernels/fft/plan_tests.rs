//! The planner checked without a GPU: a CPU interpreter runs each step exactly as the
//! kernels do (the same Stockham stages and twiddle indices, in f64) and the result is
//! compared with a direct DFT of what `FftArgs` describes, for every kind, strided and
//! offset layouts, several ranks, and workgroup lines short enough to force one, two and
//! three levels of splitting.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{FftArgs, FftDirection, FftKind, FftLayout};

use super::*;

type C = (f64, f64);

fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn w(n: usize, e: usize, inverse: bool) -> C {
    let a = -2.0 * std::f64::consts::PI * (e % n) as f64 / n as f64;
    let s = if inverse { -1.0 } else { 1.0 };
    (a.cos(), s * a.sin())
}

/// Buffers as f64 units (a complex element is two units), as the kernels see words.
struct Mem {
    bufs: Vec<Vec<f64>>,
}

impl Mem {
    fn idx(b: Buf) -> usize {
        match b {
            Buf::Input => 0,
            Buf::Output => 1,
            Buf::Temp(i) => 2 + i,
        }
    }
    fn get(&self, b: Buf, p: usize, real: bool) -> C {
        let v = &self.bufs[Self::idx(b)];
        if real {
            (v[p], 0.0)
        } else {
            (v[2 * p], v[2 * p + 1])
        }
    }
    fn set(&mut self, b: Buf, p: usize, real: bool, x: C) {
        let v = &mut self.bufs[Self::idx(b)];
        if real {
            v[p] = x.0;
        } else {
            v[2 * p] = x.0;
            v[2 * p + 1] = x.1;
        }
    }
}

/// The Stockham stages of the line kernel, as the WGSL runs them.
fn stockham(x: &mut [C], inverse: bool) {
    let m = x.len();
    let mut ns = 1;
    while ns < m {
        let old = x.to_vec();
        for j in 0..m / 2 {
            let k = j & (ns - 1);
            let x0 = old[j];
            let x1 = mul(old[j + m / 2], w(m, k * (m / 2 / ns), inverse));
            let idx = ((j - k) << 1) + k;
            x[idx] = (x0.0 + x1.0, x0.1 + x1.1);
            x[idx + ns] = (x0.0 - x1.0, x0.1 - x1.1);
        }
        ns <<= 1;
    }
}

fn run_step(mem: &mut Mem, s: &Step, inverse: bool) {
    let (sr, dr) = s.real_sides();
    for line in 0..s.lines() {
        let (mut r, mut sb, mut db) = (line, s.src.offset, s.dst.offset);
        let mut last = 0;
        for d in s.digits.iter().rev() {
            let v = r % d.count;
            r /= d.count;
            sb += v * d.src;
            db += v * d.dst;
            if d.twiddle {
                last = v;
            }
        }
        let at = |j: usize| sb + j * s.src.stride;
        match s.kind {
            StepKind::Lines {
                m,
                twiddle_n,
                load,
                keep,
                ..
            } => {
                let mut x: Vec<C> = (0..m)
                    .map(|j| match load {
                        Load::Hermitian if j > m / 2 => {
                            let v = mem.get(s.src.buf, at(m - j), false);
                            (v.0, -v.1)
                        }
                        _ => mem.get(s.src.buf, at(j), sr),
                    })
                    .collect();
                stockham(&mut x, inverse);
                for (k, v) in x.into_iter().enumerate().take(keep) {
                    let v = if twiddle_n > 0 {
                        mul(v, w(twiddle_n, last * k, inverse))
                    } else {
                        v
                    };
                    mem.set(s.dst.buf, db + k * s.dst.stride, dr, v);
                }
            }
            StepKind::Edge { keep, extend_n } => {
                for j in 0..keep {
                    let v = if extend_n > 0 && j > extend_n / 2 {
                        let v = mem.get(s.src.buf, at(extend_n - j), false);
                        (v.0, -v.1)
                    } else {
                        mem.get(s.src.buf, at(j), false)
                    };
                    mem.set(s.dst.buf, db + j * s.dst.stride, false, v);
                }
            }
        }
    }
}

struct Case {
    kind: FftKind,
    inverse: bool,
    lengths: Vec<usize>,
    batch: usize,
    il: FftLayout,
    ol: FftLayout,
}

fn lin(x: &[usize], embed: &[usize]) -> usize {
    x.iter().zip(embed).fold(0, |a, (&i, &e)| a * e + i)
}

fn unlin(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut x = vec![0; dims.len()];
    for (xi, &d) in x.iter_mut().zip(dims).rev() {
        *xi = i % d;
        i /= d;
    }
    x
}

fn check(c: &Case, local: usize) {
    let buf = 0u8;
    let args = FftArgs {
        kind: c.kind,
        direction: if c.inverse {
            FftDirection::Inverse
        } else {
            FftDirection::Forward
        },
        real: DType::F32,
        lengths: c.lengths.clone(),
        batch: c.batch,
        input: &buf,
        input_layout: c.il,
        output: &buf,
        output_layout: c.ol,
    };
    let plan = for_args(&args, local).unwrap();
    let (ie, oe) = (args.input_embed(), args.output_embed());
    let n: usize = c.lengths.iter().product();
    // A real signal per batch for R2C and C2R (C2R gets its exact half spectrum).
    let signal: Vec<Vec<C>> = (0..c.batch)
        .map(|b| {
            (0..n)
                .map(|i| {
                    let t = (b * 131 + i * 17 + 3) as f64;
                    let im = if c.kind == FftKind::C2C {
                        (t * 0.37).cos()
                    } else {
                        0.0
                    };
                    ((t * 0.61).sin(), im)
                })
                .collect()
        })
        .collect();
    let dft = |x: &[C], inverse: bool| -> Vec<C> {
        (0..n)
            .map(|k| {
                let kk = unlin(k, &c.lengths);
                x.iter().enumerate().fold((0.0, 0.0), |acc, (j, &v)| {
                    let jj = unlin(j, &c.lengths);
                    let mut t = (1.0, 0.0);
                    for d in 0..c.lengths.len() {
                        t = mul(t, w(c.lengths[d], jj[d] * kk[d], inverse));
                    }
                    let p = mul(v, t);
                    (acc.0 + p.0, acc.1 + p.1)
                })
            })
            .collect()
    };
    let in_units = 2 * args.extent(true) + 8;
    let out_units = 2 * args.extent(false) + 8;
    let mut mem = Mem {
        bufs: vec![vec![f64::NAN; in_units], vec![f64::NAN; out_units]],
    };
    mem.bufs
        .extend((0..plan.temps).map(|_| vec![f64::NAN; 2 * plan.temp_elems]));
    let in_real = c.kind == FftKind::R2C;
    let out_real = c.kind == FftKind::C2R;
    let mut expected = Vec::new();
    for (b, sig) in signal.iter().enumerate() {
        let (input, want): (Vec<C>, Vec<C>) = match c.kind {
            FftKind::C2C => (sig.clone(), dft(sig, c.inverse)),
            FftKind::R2C => (sig.clone(), dft(sig, false)),
            FftKind::C2R => {
                let spec = dft(sig, false);
                let scaled = sig.iter().map(|v| (v.0 * n as f64, 0.0)).collect();
                (spec, scaled)
            }
        };
        for i in 0..ie.iter().product::<usize>() {
            let x = unlin(i, &ie);
            let p = c.il.offset + b * c.il.dist + c.il.stride * lin(&x, &ie);
            mem.set(Buf::Input, p, in_real, input[lin(&x, &c.lengths)]);
        }
        for i in 0..oe.iter().product::<usize>() {
            let x = unlin(i, &oe);
            let p = c.ol.offset + b * c.ol.dist + c.ol.stride * lin(&x, &oe);
            expected.push((p, want[lin(&x, &c.lengths)]));
        }
    }
    for s in &plan.steps {
        run_step(&mut mem, s, c.inverse);
    }
    let scale = (n as f64).max(1.0);
    for (p, want) in expected {
        let got = mem.get(Buf::Output, p, out_real);
        let err = ((got.0 - want.0).abs()
            + if out_real {
                0.0
            } else {
                (got.1 - want.1).abs()
            })
            / scale;
        assert!(
            err < 1e-9,
            "{:?} {:?} batch {} local {local}: position {p}: got {got:?}, want {want:?}\n{plan:#?}",
            c.kind,
            c.lengths,
            c.batch
        );
    }
}

fn contiguous_case(kind: FftKind, inverse: bool, lengths: &[usize], batch: usize) -> Case {
    let full: usize = lengths.iter().product();
    let last = *lengths.last().unwrap_or(&1);
    let half = full / last * (last / 2 + 1);
    let (ip, op) = match kind {
        FftKind::C2C => (full, full),
        FftKind::R2C => (full, half),
        FftKind::C2R => (half, full),
    };
    Case {
        kind,
        inverse,
        lengths: lengths.to_vec(),
        batch,
        il: FftLayout::contiguous(3, ip),
        ol: FftLayout::contiguous(1, op),
    }
}

#[test]
fn every_kind_and_rank_matches_the_dft_at_every_split_depth() {
    let shapes: [&[usize]; 7] = [&[1], &[2], &[16], &[64], &[4, 8], &[2, 16, 4], &[32, 1]];
    for local in [4, 8, 4096] {
        for shape in shapes {
            for batch in [1, 3] {
                for (kind, inverse) in [
                    (FftKind::C2C, false),
                    (FftKind::C2C, true),
                    (FftKind::R2C, false),
                    (FftKind::C2R, true),
                ] {
                    check(&contiguous_case(kind, inverse, shape, batch), local);
                }
            }
        }
    }
}

#[test]
fn strided_batches_and_in_place_match_the_dft() {
    for local in [4, 4096] {
        // Batch along the fastest dimension (stride = batch, distance 1), with offsets.
        check(
            &Case {
                kind: FftKind::C2C,
                inverse: false,
                lengths: vec![8, 4],
                batch: 3,
                il: FftLayout {
                    offset: 5,
                    stride: 3,
                    dist: 1,
                },
                ol: FftLayout {
                    offset: 2,
                    stride: 4,
                    dist: 1,
                },
            },
            local,
        );
        check(
            &Case {
                kind: FftKind::R2C,
                inverse: false,
                lengths: vec![16],
                batch: 2,
                il: FftLayout {
                    offset: 1,
                    stride: 2,
                    dist: 1,
                },
                ol: FftLayout {
                    offset: 0,
                    stride: 2,
                    dist: 1,
                },
            },
            local,
        );
        check(
            &Case {
                kind: FftKind::C2R,
                inverse: true,
                lengths: vec![4, 16],
                batch: 2,
                il: FftLayout {
                    offset: 7,
                    stride: 1,
                    dist: 40,
                },
                ol: FftLayout {
                    offset: 0,
                    stride: 2,
                    dist: 1,
                },
            },
            local,
        );
    }
}

#[test]
fn lengths_that_are_not_powers_of_two_are_refused() {
    let buf = 0u8;
    let args = FftArgs {
        kind: FftKind::C2C,
        direction: FftDirection::Forward,
        real: DType::F32,
        lengths: vec![8, 12],
        batch: 1,
        input: &buf,
        input_layout: FftLayout::contiguous(0, 96),
        output: &buf,
        output_layout: FftLayout::contiguous(0, 96),
    };
    assert_eq!(for_args(&args, 64), Err(PlanError::NotPowerOfTwo(12)));
}

#[test]
fn long_axes_take_few_passes() {
    let buf = 0u8;
    let args = FftArgs {
        kind: FftKind::C2C,
        direction: FftDirection::Forward,
        real: DType::F32,
        lengths: vec![1 << 20],
        batch: 1,
        input: &buf,
        input_layout: FftLayout::contiguous(0, 1 << 20),
        output: &buf,
        output_layout: FftLayout::contiguous(0, 1 << 20),
    };
    let p = for_args(&args, 4096).unwrap();
    assert_eq!(p.steps.len(), 2);
    assert_eq!(p.temps, 1);
    assert_eq!(local_limit(16384), 2048);
    assert_eq!(local_limit(49152), 4096);
}

#[test]
fn offsets_only_place_the_key_plan() {
    let (x, y) = (0u8, 1u8);
    let at = |input_offset, output_offset| FftArgs {
        kind: FftKind::R2C,
        direction: FftDirection::Forward,
        real: DType::F32,
        lengths: vec![4, 64],
        batch: 3,
        input: &x,
        input_layout: FftLayout::contiguous(input_offset, 256),
        output: &y,
        output_layout: FftLayout::contiguous(output_offset, 4 * 33),
    };
    let (origin, shifted) = (at(0, 0), at(5, 7));
    assert_eq!(
        FftPlanKey::from_args(&origin),
        FftPlanKey::from_args(&shifted)
    );
    let (a, b) = (
        for_args(&origin, 16).unwrap(),
        for_args(&shifted, 16).unwrap(),
    );
    assert!(a.temps > 0, "a split axis, so temporaries are placed too");
    assert_eq!(a.steps.len(), b.steps.len());
    for (s, t) in a.steps.iter().zip(&b.steps) {
        for (u, v) in [(s.src, t.src), (s.dst, t.dst)] {
            let shift = match u.buf {
                Buf::Input => 5,
                Buf::Output => 7,
                Buf::Temp(_) => 0,
            };
            assert_eq!(
                Side {
                    offset: u.offset + shift,
                    ..u
                },
                v
            );
        }
    }
}
