//! One pool per device, and `synchronize` waiting for every stream the thread used.

use super::*;

#[test]
fn per_device_pools_on_two_devices() {
    let h = fake_harness(
        FakeConfig {
            devices: 2,
            ..FakeConfig::default()
        },
        RuntimeConfig::default(),
    );
    let rt = h.rt.clone();
    on_thread(move || {
        let d1 = gpuarrays_hip::DeviceId(1);
        let s0 = rt.stream(D0).unwrap();
        let s1 = rt.stream(d1).unwrap();
        assert_ne!(s0.handle(), s1.handle());
        assert_eq!(s1.device(), d1);
        let b = rt.device(d1).unwrap().alloc(1000).unwrap();
        assert_eq!(b.device(), d1);
        drop(b);
        assert!(rt.device(d1).unwrap().memory().stats().cached_blocks == 1);
        assert!(rt.device(D0).unwrap().memory().stats().cached_blocks == 0);
    });
}

/// `synchronize` waits for all work the thread enqueued: on its streams of every
/// priority (also one whose `with_priority` scope has ended) and on explicit streams it used
/// through `with_stream`, not only on its current stream.
#[test]
fn synchronize_waits_for_every_stream_the_thread_used() {
    use gpuarrays_core::Backend;
    for h in default_harnesses() {
        let b = gpuarrays_hip::HipBackend::with_runtime(
            h.rt.clone(),
            0,
            gpuarrays_hip::kernels::DiskCache::off(),
        )
        .unwrap();
        let rt = h.rt.clone();
        let explicit = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let (high, holds) = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let normal = rt.stream(D0).unwrap();
                    let (high, on_high) = with_priority(StreamPriority::High, || {
                        let s = rt.stream(D0).unwrap();
                        let hold = h.hold(&s);
                        (s, hold)
                    });
                    assert!(!high.same_as(&normal));
                    let on_explicit = with_stream(&explicit, || h.hold(&rt.stream(D0).unwrap()));
                    let holds = vec![on_high, on_explicit];
                    let releaser = std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(150));
                        for hold in holds {
                            hold.release();
                        }
                    });
                    b.synchronize().unwrap();
                    (high, releaser)
                })
                .join()
                .unwrap()
        });
        assert_eq!(
            high.query(),
            WorkStatus::Ready,
            "[{}] synchronize returned before the work on the thread's high-priority stream",
            h.name
        );
        assert_eq!(
            explicit.query(),
            WorkStatus::Ready,
            "[{}] synchronize returned before the work on the explicit stream",
            h.name
        );
        holds.join().unwrap();
    }
}
