//! loom models of the stream pool and of the ordering protocol: every interleaving
//! of two or three threads (up to a preemption bound) at the operations on the crate's own
//! locks and atomics (`crate::sync`), against [`model_platform::ModelPlatform`], whose race
//! detector checks the device side.
//!
//! Run (`docs/safety.md` has the measured times):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test --release -p gpuarrays-hip --lib --target-dir target/loom loom_models
//! ```
//!
//! Properties:
//! - **pool**: no stream is held by two live owners; a stream goes to another owner only
//!   when its work is complete (and then with a new generation); a release by someone who
//!   does not hold the stream, or a second release, never puts it in the idle list;
//! - **ordering**: whatever the interleaving of readers, writers, frees and reuse of the
//!   memory, no access is unordered against another stream's conflicting access (the race
//!   detector is empty), including across a stream that changes hands.

mod model_platform;

use crate::device::Access;
use crate::platform::DeviceId;
use crate::stream::{OwnerToken, StreamPriority};
use crate::{HipRuntime, RuntimeConfig};
use loom::thread;
use model_platform::ModelPlatform;
use std::sync::Arc;

const D0: DeviceId = DeviceId(0);

/// The preemption bound: `LOOM_MAX_PREEMPTIONS`, else `default`.
fn model(default: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    if b.preemption_bound.is_none() {
        b.preemption_bound = Some(default);
    }
    b.check(f);
}

fn runtime() -> (Arc<ModelPlatform>, Arc<HipRuntime>) {
    let m = Arc::new(ModelPlatform::new());
    let rt = match HipRuntime::new(m.clone(), RuntimeConfig::default()) {
        Ok(rt) => rt,
        Err(e) => panic!("runtime over the model platform: {e}"),
    };
    (m, rt)
}

fn assert_no_races(m: &ModelPlatform) {
    let races = m.races();
    assert!(races.is_empty(), "{}", races.join("\n"));
}

/// Two threads take, use and release pooled streams while a third tries to release a stream
/// it does not hold: no stream is held twice, a busy stream never changes owner, the idle
/// list never holds a stream twice or one someone holds.
#[test]
fn pool_take_release_recycle_never_shares_a_stream() {
    model(3, || {
        let (m, rt) = runtime();
        let pool = rt.device(D0).unwrap().pool(StreamPriority::Normal).clone();
        // Who holds each stream now, and who held it last (owner token values).
        let holders = Arc::new(crate::sync::Mutex::new(std::collections::HashMap::<
            u64,
            (u64, u64),
        >::new()));
        let stolen = Arc::new(crate::sync::Mutex::new(None));
        let worker = |leave_busy: bool| {
            let (m, pool, holders, stolen) =
                (m.clone(), pool.clone(), holders.clone(), stolen.clone());
            move || {
                let me = OwnerToken::current().unwrap();
                let s = pool.take(me).unwrap();
                {
                    let mut h = holders.lock();
                    let entry = h.entry(s.handle().0).or_insert((0, 0));
                    assert_eq!(entry.0, 0, "a stream held by two live owners");
                    assert!(
                        !m.is_busy(s.handle()) || entry.1 == 0 || entry.1 == me.get(),
                        "a stream with work still queued went to another owner"
                    );
                    *entry = (me.get(), me.get());
                }
                *stolen.lock() = Some(s.clone());
                if leave_busy {
                    m.work(&s).unwrap();
                }
                holders.lock().entry(s.handle().0).or_default().0 = 0;
                pool.release(s, me);
            }
        };
        let t1 = thread::spawn(worker(true));
        let t2 = thread::spawn(worker(false));
        // A thief: releasing a stream it never took must not put it in the idle list.
        let thief = {
            let (pool, stolen) = (pool.clone(), stolen.clone());
            thread::spawn(move || {
                let me = OwnerToken::current().unwrap();
                let s = stolen.lock().take();
                if let Some(s) = s {
                    pool.release(s, me);
                }
            })
        };
        t1.join().unwrap();
        t2.join().unwrap();
        thief.join().unwrap();
        let idle = pool.idle_streams();
        for (i, a) in idle.iter().enumerate() {
            assert!(a.owner().is_none(), "an idle stream has an owner");
            assert!(
                idle[i + 1..].iter().all(|b| !b.same_as(a)),
                "a stream is idle twice"
            );
        }
        assert!(idle.len() <= 2);
    });
}

/// A reader and a writer of one buffer on two streams at once, then a free and a reuse of
/// the memory on a third: every access ordered (the race detector is empty), whichever
/// thread orders first, and however their steps interleave.
#[test]
fn concurrent_read_and_write_are_ordered_and_the_free_waits_for_both() {
    model(2, || {
        let (m, rt) = runtime();
        let d = rt.device(D0).unwrap().clone();
        let s0 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let x = Arc::new(d.alloc_on(1024, &s0).unwrap());
        let reader = {
            let (m, rt, d, x) = (m.clone(), rt.clone(), d.clone(), x.clone());
            thread::spawn(move || {
                let s1 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
                d.enqueue(&s1, &[Access::read(&x)], |s| m.kernel(s, x.ptr(), false))
                    .unwrap();
            })
        };
        let writer = {
            let (m, rt, d, x) = (m.clone(), rt.clone(), d.clone(), x.clone());
            thread::spawn(move || {
                let s2 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
                d.enqueue(&s2, &[Access::write(&x)], |s| m.kernel(s, x.ptr(), true))
                    .unwrap();
            })
        };
        reader.join().unwrap();
        writer.join().unwrap();
        let x = Arc::try_unwrap(x).unwrap();
        let ptr = x.ptr();
        x.free_on(&s0).unwrap();
        let s3 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let y = d.alloc_on(1024, &s3).unwrap();
        d.enqueue(&s3, &[Access::write(&y)], |s| m.kernel(s, y.ptr(), true))
            .unwrap();
        let _ = ptr;
        assert_no_races(&m);
        y.free_on(&s3).unwrap();
    });
}

/// Two readers on two streams and a free racing an allocation of the same size on another
/// thread: the readers do not wait for each other, and the block is reused only in order.
#[test]
fn a_free_racing_a_reuse_of_its_block_stays_ordered() {
    model(2, || {
        let (m, rt) = runtime();
        let d = rt.device(D0).unwrap().clone();
        let s1 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let x = d.alloc_on(1024, &s1).unwrap();
        d.enqueue(&s1, &[Access::read(&x)], |s| m.kernel(s, x.ptr(), false))
            .unwrap();
        let freer = {
            let s1 = s1.clone();
            thread::spawn(move || x.free_on(&s1).unwrap())
        };
        let user = {
            let (m, rt, d, s1) = (m.clone(), rt.clone(), d.clone(), s1.clone());
            thread::spawn(move || {
                // The same stream object (reuse at once is in stream order) or a new one.
                for s in [s1, rt.create_stream(D0, StreamPriority::Normal).unwrap()] {
                    let y = d.alloc_on(1024, &s).unwrap();
                    d.enqueue(&s, &[Access::write(&y)], |st| m.kernel(st, y.ptr(), true))
                        .unwrap();
                    y.free_on(&s).unwrap();
                }
            })
        };
        freer.join().unwrap();
        user.join().unwrap();
        assert_no_races(&m);
    });
}

/// A pooled stream that changes hands: a writer on one owner's pooled stream, a reader on
/// another's, the first stream recycled (or not, if still busy) in between. The generation
/// rule skips only waits for work that is complete.
#[test]
fn records_of_a_recycled_stream_are_waited_for_only_while_needed() {
    model(2, || {
        let (m, rt) = runtime();
        let d = rt.device(D0).unwrap().clone();
        let pool = d.pool(StreamPriority::Normal).clone();
        let s0 = rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let x = Arc::new(d.alloc_on(1024, &s0).unwrap());
        let writer = {
            let (m, d, pool, x) = (m.clone(), d.clone(), pool.clone(), x.clone());
            thread::spawn(move || {
                let me = OwnerToken::current().unwrap();
                let p = pool.take(me).unwrap();
                d.enqueue(&p, &[Access::write(&x)], |s| m.kernel(s, x.ptr(), true))
                    .unwrap();
                pool.release(p, me);
            })
        };
        let reader = {
            let (m, d, pool, x) = (m.clone(), d.clone(), pool.clone(), x.clone());
            thread::spawn(move || {
                let me = OwnerToken::current().unwrap();
                let q = pool.take(me).unwrap();
                d.enqueue(&q, &[Access::read(&x)], |s| m.kernel(s, x.ptr(), false))
                    .unwrap();
                pool.release(q, me);
            })
        };
        writer.join().unwrap();
        reader.join().unwrap();
        // Whoever takes a stream now, a final write of x is ordered after both.
        let me = OwnerToken::current().unwrap();
        let r = pool.take(me).unwrap();
        d.enqueue(&r, &[Access::write(&x)], |s| m.kernel(s, x.ptr(), true))
            .unwrap();
        pool.release(r, me);
        assert_no_races(&m);
        // Freed explicitly: a drop would take the thread's stream through std's
        // thread-locals, which outlive a model execution.
        Arc::try_unwrap(x).unwrap().free_on(&s0).unwrap();
    });
}
