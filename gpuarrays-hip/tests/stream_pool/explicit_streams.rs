//! Explicit and wrapped streams: never pooled; a wrapped handle returns the pool's object.

use super::*;

#[test]
fn wrapped_handles_return_the_pools_object() {
    for h in default_harnesses() {
        let rt = h.rt.clone();
        let (pooled, g0) = on_thread(move || {
            let s = rt.stream(D0).unwrap();
            let w = rt.wrap_stream(D0, s.handle()).unwrap();
            assert!(
                w.same_as(&s),
                "wrapping a pooled handle gives the pool's object"
            );
            (w, s.generation())
        });
        let rt = h.rt.clone();
        let taken = on_thread(move || rt.stream(D0).unwrap().handle());
        assert_eq!(taken, pooled.handle());
        assert!(
            pooled.generation() > g0,
            "[{}] the wrapper sees the recycling",
            h.name
        );
        // A foreign raw handle is borrowed: never pooled, never destroyed by us.
        let p = h.rt.platform().clone();
        p.bind_device(D0).unwrap();
        let raw = p.create_stream(D0, 0).unwrap();
        let w = h.rt.wrap_stream(D0, raw).unwrap();
        assert!(!w.is_pooled());
        drop(w);
        assert_eq!(
            p.query_stream(raw),
            WorkStatus::Ready,
            "[{}] still alive",
            h.name
        );
        p.destroy_stream(raw).unwrap();
    }
}

#[test]
fn explicit_streams_are_never_pooled() {
    for h in default_harnesses() {
        let s = h.rt.create_stream(D0, StreamPriority::High).unwrap();
        assert!(!s.is_pooled());
        let raw = s.handle();
        with_stream(&s, || assert!(h.rt.stream(D0).unwrap().same_as(&s)));
        assert!(
            !h.rt.stream(D0).unwrap().same_as(&s),
            "the override ends with the scope"
        );
        drop(s);
        let st = normal_stats(&h);
        assert_eq!(st.idle, 0, "[{}] {st:?}", h.name);
        if let Some(f) = &h.fake {
            assert_eq!(f.stats().invalid_destroys, 0);
            assert!(
                f.stream_priority(raw).is_none(),
                "destroyed with its last clone"
            );
        }
    }
}
