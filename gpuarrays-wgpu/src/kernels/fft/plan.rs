//! How one FFT becomes a list of kernel steps, with no GPU involved (so the decomposition
//! is unit-tested on the CPU by interpreting the steps, see the tests).
//!
//! **Plan key.** A plan is made from core's [`FftPlanKey`] (everything of an `FftArgs` but
//! the buffers and offsets), the same key the HIP backend caches cuFFT/rocFFT plans on, so
//! both backends agree on which descriptions are one plan. The operands' offsets are added
//! afterwards ([`Plan::placed`]).
//!
//! **Lines.** Every step transforms (or copies) *lines*: `m` points at a fixed element
//! stride, one line per tuple of up to [`MAX_DIGITS`] *digits* (the batch index and the
//! indices of the axes not transformed), each digit with its own stride on the source and on
//! the destination. That describes every layout `FftArgs` can: offsets, strides, distances,
//! the half-spectrum embeds, transforms along the first, middle or last axis.
//!
//! **One axis.** A power-of-two length `n` up to the workgroup limit `local` is one
//! [`StepKind::Lines`] step: a workgroup loads whole lines into workgroup memory, runs the
//! Stockham stages there and stores them (reading and writing the same positions, so it may
//! run in place). A longer axis is split as `n = n1 · m` (the "four-step" factorisation):
//! `n1`-point transforms over the lines `x[n1·m + j]` (`j` a new digit), each result
//! multiplied by the twiddle `W_n^{j·k1}`, stored to a contiguous temporary as `[k1][j]`;
//! then `m`-point transforms of each row of the temporary (recursively split when `m` is
//! still too long), stored at output position `k1 + n1·k2`. `n1` is as short as lets `m`
//! fit one line (at least `local/16`), so several `n1`-point lines share a workgroup and
//! their strided loads coalesce. So a 2^20-point transform with 4096-point workgroup lines
//! is two passes over memory (256-point lines, then 4096-point lines).
//!
//! **Axes.** C2C: every axis, last first, the first reading the input and the others working
//! on the output in place. R2C: the last axis first (real input promoted as it is loaded,
//! only the `n/2 + 1` non-redundant bins stored), then the other axes on the output in place.
//! C2R (core sends rank 1; any rank is handled): the other axes first, in place on the input
//! (core hands over a scratch copy the backend may overwrite), then the last axis, loading
//! the Hermitian extension of the half spectrum and storing real parts. When the real axis is
//! longer than one workgroup line, the bins are cropped (R2C) or the half spectrum extended
//! (C2R) by an [`StepKind::Edge`] pass through a full-length temporary instead.

use gpuarrays_core::kernel::{FftArgs, FftKind, FftLayout, FftPlanKey};

pub(crate) use super::steps::{
    Buf, Digit, Load, MAX_DIGITS, Plan, PlanError, Side, Step, StepKind, Store, local_limit,
};

struct Planner {
    local: usize,
    steps: Vec<Step>,
    temps: usize,
}

/// Row-major strides of `embed` times `stride`.
fn strides(embed: &[usize], stride: usize) -> Vec<usize> {
    let mut out = vec![0; embed.len()];
    let mut acc = stride;
    for (o, &e) in out.iter_mut().zip(embed).rev() {
        *o = acc;
        acc *= e;
    }
    out
}

/// The digits of the lines along `axis` (batch, then the other axes) and each side's
/// stride along the axis.
fn axis_lines(
    batch: usize,
    axis: usize,
    (sl, se): (FftLayout, &[usize]),
    (dl, de): (FftLayout, &[usize]),
) -> (Vec<Digit>, usize, usize) {
    let (ss, ds) = (strides(se, sl.stride), strides(de, dl.stride));
    let mut digits = vec![Digit {
        count: batch,
        src: sl.dist,
        dst: dl.dist,
        twiddle: false,
    }];
    for e in 0..se.len() {
        if e != axis {
            digits.push(Digit {
                count: se[e],
                src: ss[e],
                dst: ds[e],
                twiddle: false,
            });
        }
    }
    (digits, ss[axis], ds[axis])
}

/// Drops digits of count 1 and merges neighbours that step like one digit.
fn simplify(digits: Vec<Digit>) -> Vec<Digit> {
    let mut out: Vec<Digit> = Vec::new();
    for d in digits.into_iter().filter(|d| d.count > 1 || d.twiddle) {
        match out.last_mut() {
            Some(o)
                if !o.twiddle
                    && !d.twiddle
                    && o.src == d.src * d.count
                    && o.dst == d.dst * d.count =>
            {
                o.count *= d.count;
                o.src = d.src;
                o.dst = d.dst;
            }
            _ => out.push(d),
        }
    }
    if out.is_empty() {
        out.push(Digit {
            count: 1,
            src: 0,
            dst: 0,
            twiddle: false,
        });
    }
    out
}

/// Contiguous strides of lines of `n` points over `digits`.
fn contiguous(digits: &[Digit], n: usize) -> Vec<usize> {
    let counts: Vec<usize> = digits.iter().map(|d| d.count).collect();
    strides(&counts, n)
}

impl Planner {
    fn push(
        &mut self,
        kind: StepKind,
        digits: Vec<Digit>,
        src: Side,
        dst: Side,
    ) -> Result<(), PlanError> {
        let digits = simplify(digits);
        if digits.len() > MAX_DIGITS {
            return Err(PlanError::TooManyDigits(digits.len()));
        }
        self.steps.push(Step {
            kind,
            digits,
            src,
            dst,
        });
        Ok(())
    }

    /// A temporary that is none of `busy`.
    fn temp(&mut self, busy: &[Buf]) -> Buf {
        let i = (0..).find(|i| !busy.contains(&Buf::Temp(*i))).unwrap_or(0);
        self.temps = self.temps.max(i + 1);
        Buf::Temp(i)
    }

    /// `n`-point transforms of the lines `digits` from `src` to `dst` (see the module docs).
    #[allow(clippy::too_many_arguments)]
    fn axis(
        &mut self,
        n: usize,
        digits: Vec<Digit>,
        src: Side,
        dst: Side,
        load: Load,
        store: Store,
        busy: &[Buf],
    ) -> Result<(), PlanError> {
        if n <= self.local {
            let kind = StepKind::Lines {
                m: n,
                twiddle_n: 0,
                load,
                store,
                keep: n,
            };
            return self.push(kind, digits, src, dst);
        }
        // Short first lines (when the rest still fits one line) leave workgroup memory for
        // several of them at once, so their strided loads coalesce.
        let n1 = (n / self.local).max(self.local / 16).min(self.local);
        let m = n / n1;
        let mut taken = busy.to_vec();
        taken.extend([src.buf, dst.buf]);
        let u = self.temp(&taken);
        let cont = contiguous(&digits, n);
        let mut first: Vec<Digit> = digits
            .iter()
            .zip(&cont)
            .map(|(d, &c)| Digit { dst: c, ..*d })
            .collect();
        first.push(Digit {
            count: m,
            src: src.stride,
            dst: 1,
            twiddle: true,
        });
        self.push(
            StepKind::Lines {
                m: n1,
                twiddle_n: n,
                load,
                store: Store::Complex,
                keep: n1,
            },
            first,
            Side {
                stride: m * src.stride,
                ..src
            },
            Side {
                buf: u,
                offset: 0,
                stride: m,
            },
        )?;
        let mut rest: Vec<Digit> = digits
            .iter()
            .zip(&cont)
            .map(|(d, &c)| Digit { src: c, ..*d })
            .collect();
        rest.push(Digit {
            count: n1,
            src: m,
            dst: dst.stride,
            twiddle: false,
        });
        let mut busy = busy.to_vec();
        busy.push(u);
        self.axis(
            m,
            rest,
            Side {
                buf: u,
                offset: 0,
                stride: 1,
            },
            Side {
                stride: n1 * dst.stride,
                ..dst
            },
            Load::Complex,
            store,
            &busy,
        )
    }
}

/// The plan of `args`: its key's plan ([`plan`]), placed at the operands' offsets.
pub(crate) fn for_args<B>(args: &FftArgs<'_, B>, local: usize) -> Result<Plan, PlanError> {
    let placed = |p: Plan| p.placed(args.input_layout.offset, args.output_layout.offset);
    plan(&FftPlanKey::from_args(args), local).map(placed)
}

/// The plan of `key` with workgroup lines of at most `local` points (a power of two ≥ 2),
/// its input and output at offset 0 ([`Plan::placed`] moves them to the operands' offsets).
pub(crate) fn plan(key: &FftPlanKey, local: usize) -> Result<Plan, PlanError> {
    if let Some(&n) = key.lengths.iter().find(|n| !n.is_power_of_two()) {
        return Err(PlanError::NotPowerOfTwo(n));
    }
    let mut p = Planner {
        local,
        steps: Vec::new(),
        temps: 0,
    };
    let (ie, oe) = (key.input_embed(), key.output_embed());
    let (il, ol) = (key.input_layout(), key.output_layout());
    let r = key.lengths.len();
    let side = |buf, offset, stride| Side {
        buf,
        offset,
        stride,
    };
    let batch = key.batch;
    // In place over `buf` with `layout`/`embed`: the C2C axes after the first.
    let in_place = |p: &mut Planner, axis: usize, buf: Buf, l: FftLayout, e: &[usize]| {
        let (d, s, _) = axis_lines(batch, axis, (l, e), (l, e));
        let sd = side(buf, l.offset, s);
        p.axis(
            key.lengths[axis],
            d,
            sd,
            sd,
            Load::Complex,
            Store::Complex,
            &[],
        )
    };
    match key.kind {
        FftKind::C2C => {
            for (i, axis) in (0..r).rev().enumerate() {
                if i == 0 {
                    let (d, s, t) = axis_lines(batch, axis, (il, &ie), (ol, &oe));
                    let (src, dst) = (
                        side(Buf::Input, il.offset, s),
                        side(Buf::Output, ol.offset, t),
                    );
                    p.axis(
                        key.lengths[axis],
                        d,
                        src,
                        dst,
                        Load::Complex,
                        Store::Complex,
                        &[],
                    )?;
                } else {
                    in_place(&mut p, axis, Buf::Output, ol, &oe)?;
                }
            }
        }
        FftKind::R2C => {
            let axis = r - 1;
            let n = key.lengths[axis];
            let (d, s, t) = axis_lines(batch, axis, (il, &ie), (ol, &oe));
            let (src, dst) = (
                side(Buf::Input, il.offset, s),
                side(Buf::Output, ol.offset, t),
            );
            if n <= local {
                let kind = StepKind::Lines {
                    m: n,
                    twiddle_n: 0,
                    load: Load::Real,
                    store: Store::Complex,
                    keep: n / 2 + 1,
                };
                p.push(kind, d, src, dst)?;
            } else {
                let full = p.temp(&[]);
                let cont = contiguous(&d, n);
                let to_full: Vec<Digit> = d
                    .iter()
                    .zip(&cont)
                    .map(|(x, &c)| Digit { dst: c, ..*x })
                    .collect();
                p.axis(
                    n,
                    to_full,
                    src,
                    side(full, 0, 1),
                    Load::Real,
                    Store::Complex,
                    &[full],
                )?;
                let crop: Vec<Digit> = d
                    .iter()
                    .zip(&cont)
                    .map(|(x, &c)| Digit { src: c, ..*x })
                    .collect();
                let kind = StepKind::Edge {
                    keep: n / 2 + 1,
                    extend_n: 0,
                };
                p.push(kind, crop, side(full, 0, 1), dst)?;
            }
            for axis in (0..r - 1).rev() {
                in_place(&mut p, axis, Buf::Output, ol, &oe)?;
            }
        }
        FftKind::C2R => {
            for axis in (0..r - 1).rev() {
                in_place(&mut p, axis, Buf::Input, il, &ie)?;
            }
            let axis = r - 1;
            let n = key.lengths[axis];
            let (d, s, t) = axis_lines(batch, axis, (il, &ie), (ol, &oe));
            let (src, dst) = (
                side(Buf::Input, il.offset, s),
                side(Buf::Output, ol.offset, t),
            );
            if n <= local {
                let kind = StepKind::Lines {
                    m: n,
                    twiddle_n: 0,
                    load: Load::Hermitian,
                    store: Store::Real,
                    keep: n,
                };
                p.push(kind, d, src, dst)?;
            } else {
                let full = p.temp(&[]);
                let cont = contiguous(&d, n);
                let extend: Vec<Digit> = d
                    .iter()
                    .zip(&cont)
                    .map(|(x, &c)| Digit { dst: c, ..*x })
                    .collect();
                let kind = StepKind::Edge {
                    keep: n,
                    extend_n: n,
                };
                p.push(kind, extend, src, side(full, 0, 1))?;
                let from_full: Vec<Digit> = d
                    .iter()
                    .zip(&cont)
                    .map(|(x, &c)| Digit { src: c, ..*x })
                    .collect();
                p.axis(
                    n,
                    from_full,
                    side(full, 0, 1),
                    dst,
                    Load::Complex,
                    Store::Real,
                    &[full],
                )?;
            }
        }
    }
    let temp_elems = if p.temps > 0 {
        batch * key.lengths.iter().product::<usize>()
    } else {
        0
    };
    Ok(Plan {
        steps: p.steps,
        temps: p.temps,
        temp_elems,
    })
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
