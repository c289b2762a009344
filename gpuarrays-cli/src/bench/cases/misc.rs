//! `kernel/launch` (the host cost of one small operation through the user API) and the
//! `stream/...` scenarios (several threads working at once, each on its own stream on HIP).

use gpuarrays::{AnyBackend, Array, Backend, Result};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Sizes, Timing, Work};

/// Elements of the tiny operation whose host cost `kernel/launch` measures.
pub const LAUNCH_LEN: usize = 1024;
/// Threads and operations per thread of the stream scenario.
const THREADS: usize = 4;
const OPS_PER_THREAD: usize = 200;

pub fn cases(sizes: Sizes) -> Vec<Case> {
    if !sizes.small() {
        return Vec::new();
    }
    vec![
        Case::new(
            "kernel/launch",
            json!({"op": "launch", "dtype": "f32", "dims": [LAUNCH_LEN]}),
            Work::None,
            |b| {
                let x = data::<f32>(b, &[LAUNCH_LEN], 31)?;
                let y = data::<f32>(b, &[LAUNCH_LEN], 32)?;
                let mut z = Array::<f32, _>::zeros(b, &[LAUNCH_LEN])?;
                Ok(Box::new(move || (&x * 1.5f32 + &y).eval_into(&mut z)) as Runner)
            },
        )
        .timed_by(Timing::Host),
        Case::new(
            format!("stream/threads={THREADS}/axpy"),
            json!({"op": "threads_axpy", "dtype": "f32", "dims": [super::array::SMALL],
                   "threads": THREADS, "ops_per_thread": OPS_PER_THREAD}),
            Work::Bytes((THREADS * OPS_PER_THREAD * super::array::SMALL * 4 * 3) as f64),
            |b| {
                let n = super::array::SMALL;
                let mut sets = Vec::with_capacity(THREADS);
                for t in 0..THREADS as u64 {
                    sets.push((
                        data::<f32>(b, &[n], 40 + t)?,
                        data::<f32>(b, &[n], 50 + t)?,
                        Array::<f32, _>::zeros(b, &[n])?,
                    ));
                }
                let b = b.clone();
                Ok(Box::new(move || threads_axpy(&b, &mut sets)) as Runner)
            },
        )
        .timed_by(Timing::Wall),
    ]
}

type Operands = (
    Array<f32, AnyBackend>,
    Array<f32, AnyBackend>,
    Array<f32, AnyBackend>,
);

/// One thread per operand set, each running `OPS_PER_THREAD` fused axpys on its own arrays
/// and synchronizing at the end: how well independent threads overlap (on HIP each thread
/// works on its own pooled stream).
fn threads_axpy(b: &AnyBackend, sets: &mut [Operands]) -> Result<()> {
    std::thread::scope(|s| {
        let handles: Vec<_> = sets
            .iter_mut()
            .map(|(x, y, z)| {
                s.spawn(move || -> Result<()> {
                    for _ in 0..OPS_PER_THREAD {
                        (&*x * 1.5f32 + &*y).eval_into(z)?;
                    }
                    b.synchronize()
                })
            })
            .collect();
        for h in handles {
            h.join().map_err(|_| gpuarrays::Error::InvalidArgument {
                op: "stream scenario".into(),
                reason: "a worker thread panicked".into(),
            })??;
        }
        Ok(())
    })
}
