//! The test double's FFT library: plans are records on a device that hold some device memory
//! (so out-of-memory paths can be driven), and an execution is a direct DFT in f64 on the
//! double's host memory, checking what cuFFT and rocFFT would not forgive: the calling thread
//! bound to the stream's device, the plan on that device, a work area that is a live
//! allocation of at least the plan's size, and a plan destroyed under its own device.

use std::collections::HashMap;

use gpuarrays_core::kernel::{FftDirection, FftKind};

use super::{FakePlatform, api};
use crate::error::{HipError, Result};
use crate::platform::{
    DeviceId, DevicePtr, FftPlanDesc, FftPlanHandle, FftPlanInfo, StreamHandle, codes,
};

use super::state::FakeOp;

/// Counters of the double's FFT library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeFftStats {
    /// Plans created.
    pub created: usize,
    /// Plans destroyed.
    pub destroyed: usize,
    /// Plans created and not destroyed.
    pub alive: usize,
    /// Transforms run.
    pub executions: usize,
    /// `fft_plan_destroy` calls naming a device other than the plan's.
    pub wrong_device_destroys: usize,
    /// Largest number of executions of one plan running at once on different threads.
    pub max_concurrent_uses: usize,
}

#[derive(Debug)]
struct FakePlan {
    device: DeviceId,
    desc: FftPlanDesc,
    table_bytes: usize,
    in_use: usize,
}

/// The double's FFT state.
#[derive(Debug, Default)]
pub(super) struct FakeFft {
    plans: HashMap<u64, FakePlan>,
    next: u64,
    stats: FakeFftStats,
    /// Device memory each plan holds (its "tables"); 64 KiB unless a test sets it.
    table_bytes: Option<usize>,
}

/// The work area a fake plan asks for: 16 bytes per point, plus 1 KiB.
pub fn fake_work_bytes(desc: &FftPlanDesc) -> usize {
    1024 + 16 * desc.lengths.iter().product::<usize>()
}

type C = (f64, f64);

fn read_f(bytes: &[u8], double: bool, i: usize) -> f64 {
    if double {
        f64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]))
    } else {
        f32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap_or([0; 4])) as f64
    }
}

fn write_f(bytes: &mut [u8], double: bool, i: usize, v: f64) {
    if double {
        bytes[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    } else {
        bytes[i * 4..i * 4 + 4].copy_from_slice(&(v as f32).to_le_bytes());
    }
}

/// The direct DFT of each lane of `x` (row-major `dims`) along `axis`.
fn dft_axis(x: &mut [C], dims: &[usize], axis: usize, sign: f64) {
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer = x.len() / (n * inner).max(1);
    let mut lane = vec![(0.0, 0.0); n];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            for (j, v) in lane.iter_mut().enumerate() {
                *v = x[at(j)];
            }
            for k in 0..n {
                let mut acc = (0.0, 0.0);
                for (j, v) in lane.iter().enumerate() {
                    let a = sign * std::f64::consts::TAU * ((j * k) % n) as f64 / n as f64;
                    let (c, s) = (a.cos(), a.sin());
                    acc.0 += v.0 * c - v.1 * s;
                    acc.1 += v.0 * s + v.1 * c;
                }
                x[at(k)] = acc;
            }
        }
    }
}

/// Runs the transform of `d` from `input` bytes into `output` bytes (element units from 0).
fn transform(d: &FftPlanDesc, input: &[u8], output: &mut [u8]) {
    let rank = d.lengths.len();
    let full: usize = d.lengths.iter().product();
    let per_out: usize = d.output_embed().iter().product();
    let sign = if d.direction == FftDirection::Forward {
        -1.0
    } else {
        1.0
    };
    let n_last = d.lengths[rank - 1];
    let m = n_last / 2 + 1;
    for b in 0..d.batch {
        let at_in = |j: usize| b * d.input_dist + d.input_stride * j;
        let mut x = vec![(0.0, 0.0); full];
        match d.kind {
            FftKind::C2C => {
                for (j, v) in x.iter_mut().enumerate() {
                    let p = at_in(j);
                    *v = (
                        read_f(input, d.double, 2 * p),
                        read_f(input, d.double, 2 * p + 1),
                    );
                }
            }
            FftKind::R2C => {
                for (j, v) in x.iter_mut().enumerate() {
                    *v = (read_f(input, d.double, at_in(j)), 0.0);
                }
            }
            FftKind::C2R => {
                // Rank 1 (core sends no other): the Hermitian extension of the half.
                for (k, v) in x.iter_mut().enumerate() {
                    let (src, conj) = if k < m {
                        (k, false)
                    } else {
                        (n_last - k, true)
                    };
                    let p = at_in(src);
                    let (re, im) = (
                        read_f(input, d.double, 2 * p),
                        read_f(input, d.double, 2 * p + 1),
                    );
                    *v = if conj { (re, -im) } else { (re, im) };
                }
            }
        }
        for axis in 0..rank {
            dft_axis(&mut x, &d.lengths, axis, sign);
        }
        let at_out = |j: usize| b * d.output_dist + d.output_stride * j;
        for j in 0..per_out {
            let p = at_out(j);
            match d.kind {
                FftKind::C2R => write_f(output, d.double, p, x[j].0),
                FftKind::C2C => {
                    write_f(output, d.double, 2 * p, x[j].0);
                    write_f(output, d.double, 2 * p + 1, x[j].1);
                }
                FftKind::R2C => {
                    // Output element j of the half spectrum is full element (row, col < m).
                    let (row, col) = (j / m, j % m);
                    let v = x[row * n_last + col];
                    write_f(output, d.double, 2 * p, v.0);
                    write_f(output, d.double, 2 * p + 1, v.1);
                }
            }
        }
    }
}

/// Bytes from element 0 to one past the last element an operand reaches.
fn span(batch: usize, dist: usize, stride: usize, per: usize, elem: usize) -> usize {
    ((batch - 1) * dist + stride * (per - 1) + 1) * elem
}

impl FakePlatform {
    /// Device memory each fake plan holds from now on (default 64 KiB).
    pub fn set_fft_plan_bytes(&self, bytes: usize) {
        self.fft.lock().table_bytes = Some(bytes);
    }

    /// Counters of the fake FFT library.
    pub fn fft_stats(&self) -> FakeFftStats {
        let f = self.fft.lock();
        FakeFftStats {
            alive: f.plans.len(),
            ..f.stats.clone()
        }
    }

    /// The device each live plan was created on.
    pub fn fft_plan_devices(&self) -> Vec<DeviceId> {
        self.fft.lock().plans.values().map(|p| p.device).collect()
    }

    pub(super) fn fake_fft_plan_create(
        &self,
        device: DeviceId,
        desc: &FftPlanDesc,
    ) -> Result<FftPlanInfo> {
        self.check_device(device)?;
        let table_bytes = self.fft.lock().table_bytes.unwrap_or(64 << 10);
        {
            let mut st = self.state.lock();
            let used = st.used.get(&device).copied().unwrap_or(0);
            if used + table_bytes > self.config.memory_per_device {
                return Err(api(
                    "fft_plan_create",
                    codes::OUT_OF_MEMORY,
                    "out of memory for the plan's tables",
                ));
            }
            *st.used.entry(device).or_default() += table_bytes;
        }
        let mut f = self.fft.lock();
        f.next += 1;
        let id = 0xff00_0000 + f.next;
        f.plans.insert(
            id,
            FakePlan {
                device,
                desc: desc.clone(),
                table_bytes,
                in_use: 0,
            },
        );
        f.stats.created += 1;
        Ok(FftPlanInfo {
            handle: FftPlanHandle { plan: id, aux: 0 },
            work_bytes: fake_work_bytes(desc),
        })
    }

    pub(super) fn fake_fft_plan_destroy(
        &self,
        device: DeviceId,
        plan: FftPlanHandle,
    ) -> Result<()> {
        let mut f = self.fft.lock();
        let Some(plan_device) = f.plans.get(&plan.plan).map(|p| p.device) else {
            return Err(api(
                "fft_plan_destroy",
                codes::INVALID_HANDLE,
                "no such plan",
            ));
        };
        if plan_device != device {
            f.stats.wrong_device_destroys += 1;
            return Err(api(
                "fft_plan_destroy",
                codes::INVALID_HANDLE,
                &format!("plan of device {plan_device} destroyed under device {device}"),
            ));
        }
        let bytes = f.plans.remove(&plan.plan).map_or(0, |p| p.table_bytes);
        f.stats.destroyed += 1;
        drop(f);
        if let Some(used) = self.state.lock().used.get_mut(&device) {
            *used = used.saturating_sub(bytes);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn fake_fft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let fail = |m: String| Err(HipError::TestDouble(format!("fft_execute: {m}")));
        // cuFFT refuses real data not aligned to its complex type (CUFFT_INVALID_VALUE, seen
        // on the H200 for views at odd element offsets); the double refuses it too.
        let align = 2 * if desc.double { 8 } else { 4 };
        let real_side = match desc.kind {
            FftKind::R2C => Some(input),
            FftKind::C2R => Some(output),
            FftKind::C2C => None,
        };
        if let Some(p) = real_side.filter(|p| p.0 % align != 0) {
            return fail(format!(
                "real data at {:#x} is not aligned to its complex type ({align} bytes)",
                p.0
            ));
        }
        {
            let mut f = self.fft.lock();
            let Some(p) = f.plans.get_mut(&plan.plan) else {
                return fail("no such plan".into());
            };
            if p.desc != *desc {
                return fail("the plan was made for another description".into());
            }
            p.in_use += 1;
            let now = p.in_use;
            f.stats.max_concurrent_uses = f.stats.max_concurrent_uses.max(now);
        }
        let result = self.fake_fft_run(plan, desc, input, output, work, work_bytes, stream);
        let mut f = self.fft.lock();
        if let Some(p) = f.plans.get_mut(&plan.plan) {
            p.in_use -= 1;
        }
        if result.is_ok() {
            f.stats.executions += 1;
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn fake_fft_run(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let fail = |m: String| Err(HipError::TestDouble(format!("fft_execute: {m}")));
        let plan_device = self.fft.lock().plans.get(&plan.plan).map(|p| p.device);
        // Give other threads a chance to overlap, so concurrent use of a plan is visible.
        std::thread::yield_now();
        let mut st = self.state.lock();
        self.enqueue_check(&st, "fft_execute", stream)?;
        let device = st
            .stream(stream)
            .map(|s| s.device)
            .ok_or_else(|| api("fft_execute", codes::INVALID_HANDLE, "no such stream"))?;
        if plan_device != Some(device) {
            return fail(format!(
                "plan of {plan_device:?} run on a stream of {device}"
            ));
        }
        if work_bytes < fake_work_bytes(desc) {
            return fail(format!(
                "work area of {work_bytes} bytes, the plan needs more"
            ));
        }
        if work_bytes > 0 {
            self.access_on(&mut st, stream, work, work_bytes)?;
        }
        let (per_in, per_out): (usize, usize) = (
            desc.input_embed().iter().product(),
            desc.output_embed().iter().product(),
        );
        let in_span = span(
            desc.batch,
            desc.input_dist,
            desc.input_stride,
            per_in,
            desc.input_element_bytes(),
        );
        let out_span = span(
            desc.batch,
            desc.output_dist,
            desc.output_stride,
            per_out,
            desc.output_element_bytes(),
        );
        let (ib, io) = self.access_on(&mut st, stream, input, in_span)?;
        let src = st.allocs[&ib].data[io..io + in_span].to_vec();
        let (ob, oo) = self.access_on(&mut st, stream, output, out_span)?;
        if desc.in_place != (input == output) {
            return fail("in-place flag and pointers disagree".into());
        }
        let mut dst = st.allocs[&ob].data[oo..oo + out_span].to_vec();
        transform(desc, &src, &mut dst);
        if let Some(a) = st.allocs.get_mut(&ob) {
            a.data[oo..oo + out_span].copy_from_slice(&dst);
        }
        let captured = st.enqueue(
            FakeOp::Fft {
                stream,
                plan: plan.plan,
            },
            self.config.kernel_time,
        );
        if !captured {
            // For the race detector: the input is read (written too when in place), the
            // output and the work area written.
            let mut touched = vec![(input, desc.in_place), (output, true)];
            if work_bytes > 0 {
                touched.push((work, true));
            }
            for (ptr, write) in touched {
                if let Some(base) = Self::allocation_of(&st, ptr.0) {
                    self.note(&mut st, stream, base, write, "fft");
                }
            }
        }
        Ok(())
    }
}
