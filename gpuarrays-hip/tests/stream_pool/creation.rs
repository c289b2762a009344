//! Creating streams: outside the lock, per thread with pooling off, recovering from a failed
//! creation; the configuration's values parsed or rejected.

use super::*;

#[test]
fn concurrent_first_touches_create_outside_the_lock() {
    for h in default_harnesses() {
        if let Some(f) = &h.fake {
            f.set_stream_creation_delay(Duration::from_millis(20));
        }
        let n = 64;
        let barrier = Arc::new(Barrier::new(n));
        let ts: Vec<_> = (0..n)
            .map(|_| {
                let (rt, b) = (h.rt.clone(), barrier.clone());
                std::thread::spawn(move || {
                    b.wait();
                    let t = std::time::Instant::now();
                    let s = rt.stream(D0).unwrap();
                    let us = t.elapsed().as_micros();
                    b.wait();
                    (s.handle(), us)
                })
            })
            .collect();
        let res: Vec<_> = ts.into_iter().map(|t| t.join().unwrap()).collect();
        let mut waits: Vec<u128> = res.iter().map(|r| r.1).collect();
        waits.sort();
        eprintln!(
            "[{}] 64 concurrent first touches: median {} us, max {} us",
            h.name,
            waits[waits.len() / 2],
            waits[waits.len() - 1]
        );
        let mut got: Vec<_> = res.into_iter().map(|r| r.0).collect();
        got.sort();
        got.dedup();
        assert_eq!(got.len(), n, "[{}]", h.name);
        if let Some(f) = &h.fake {
            let max = f.stats().max_concurrent_creations;
            assert!(max > 1, "creations ran concurrently (max {max})");
        }
    }
}

#[test]
fn pooling_off_creates_and_destroys_per_thread() {
    for h in harnesses(RuntimeConfig {
        pooling: false,
        ..RuntimeConfig::default()
    }) {
        for _ in 0..3 {
            let rt = h.rt.clone();
            on_thread(move || rt.stream(D0).unwrap());
        }
        let st = normal_stats(&h);
        assert_eq!(
            (st.created, st.reused, st.idle, st.alive),
            (3, 0, 0, 0),
            "[{}] {st:?}",
            h.name
        );
    }
}

#[test]
fn failed_creation_is_an_error_and_the_pool_recovers() {
    let h = fake_harness(FakeConfig::default(), RuntimeConfig::default());
    h.fake().fail_next_stream_creations(1);
    let rt = h.rt.clone();
    let r = on_thread(move || rt.stream(D0).map(|s| s.handle()));
    assert!(r.is_err());
    let rt = h.rt.clone();
    assert!(on_thread(move || rt.stream(D0).is_ok()));
}

#[test]
fn config_values_are_parsed_or_rejected() {
    let c = RuntimeConfig::from_values(Some("off"), Some("7")).unwrap();
    assert!(!c.pooling);
    assert_eq!(c.max_idle_streams, 7);
    assert!(RuntimeConfig::from_values(None, None).unwrap().pooling);
    assert!(matches!(
        RuntimeConfig::from_values(Some("sometimes"), None),
        Err(gpuarrays_hip::HipError::InvalidConfig { .. })
    ));
    assert!(RuntimeConfig::from_values(None, Some("-1")).is_err());
}
