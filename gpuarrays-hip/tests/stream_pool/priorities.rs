//! Priorities: switching does not exhaust the pool; levels map onto the device's range.

use super::*;

#[test]
fn priority_switches_do_not_exhaust_the_pool() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        on_thread(move || {
            let normal = rt.stream(D0).unwrap().handle();
            let mut high = Vec::new();
            for _ in 0..40 {
                with_priority(StreamPriority::High, || {
                    let s = rt.stream(D0).unwrap();
                    assert_eq!(s.priority(), Some(StreamPriority::High));
                    high.push(s.handle());
                });
                assert_eq!(
                    rt.stream(D0).unwrap().handle(),
                    normal,
                    "back to the default stream"
                );
            }
            high.dedup();
            assert_eq!(
                high.len(),
                1,
                "the thread gets its own high stream back each time"
            );
            assert_eq!(
                leased_stream_count(),
                1,
                "the high stream was released on return"
            );
            // 40 nested blocks, alternating priorities.
            fn nest(rt: &gpuarrays_hip::HipRuntime, depth: usize) {
                if depth == 0 {
                    return;
                }
                let p = if depth % 2 == 0 {
                    StreamPriority::High
                } else {
                    StreamPriority::Low
                };
                with_priority(p, || {
                    assert_eq!(rt.stream(D0).unwrap().priority(), Some(p));
                    nest(rt, depth - 1);
                });
            }
            nest(&rt, 40);
            assert_eq!(leased_stream_count(), 1);
        });
        let d = h.rt.device(D0).unwrap();
        assert_eq!(
            d.pool(StreamPriority::High).stats().created,
            1,
            "[{}]",
            h.name
        );
        assert!(
            d.pool(StreamPriority::Low).stats().created <= 1,
            "[{}]",
            h.name
        );
        // Another thread still finds the released high stream.
        let rt = h.rt.clone();
        on_thread(move || with_priority(StreamPriority::High, || rt.stream(D0).unwrap()));
        assert_eq!(
            d.pool(StreamPriority::High).stats().created,
            1,
            "[{}]",
            h.name
        );
    }
}

#[test]
fn priorities_map_onto_the_device_range() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    let f = h.fake().clone();
    let rt = h.rt.clone();
    on_thread(move || {
        let n = rt.stream(D0).unwrap();
        let hi = with_priority(StreamPriority::High, || rt.stream(D0).unwrap());
        let lo = with_priority(StreamPriority::Low, || rt.stream(D0).unwrap());
        // The double's range is CUDA-like: least 0 (default), greatest -5.
        assert_eq!(f.stream_priority(n.handle()), Some(0));
        assert_eq!(f.stream_priority(hi.handle()), Some(-5));
        assert_eq!(f.stream_priority(lo.handle()), Some(0));
        assert_ne!(lo.handle(), n.handle(), "each priority has its own pool");
    });
}
