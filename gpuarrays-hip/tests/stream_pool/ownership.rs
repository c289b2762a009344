//! Memory operations name a stream: a pooled stream another live thread holds is refused for
//! them (an allocation or a free on it could land between that thread's work, or inside its
//! graph capture); explicit streams stay shareable.

use super::*;
use gpuarrays_hip::platform::test_double::FakeOp;
use gpuarrays_hip::{BufferUses, HipError, Stream};

fn assert_not_owned<T: std::fmt::Debug>(name: &str, r: gpuarrays_hip::Result<T>, theirs: &Stream) {
    match r {
        Err(e @ HipError::StreamNotOwned { stream, .. }) => {
            assert_eq!(stream, theirs.handle().0, "[{name}]");
            let msg = e.to_string();
            assert!(msg.contains("explicit stream"), "[{name}] {msg}");
        }
        other => panic!("[{name}] expected StreamNotOwned, got {other:?}"),
    }
}

#[test]
fn allocating_or_freeing_on_another_live_threads_pooled_stream_is_refused() {
    for h in default_harnesses() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
        let rt = h.rt.clone();
        let holder = std::thread::spawn(move || {
            tx.send(rt.stream(D0).unwrap()).unwrap();
            end_rx.recv().unwrap();
        });
        let theirs = rx.recv().unwrap();
        let d = h.rt.device(D0).unwrap().clone();
        let logged = h.fake.as_ref().map(|f| f.log().len());

        assert_not_owned(h.name, d.alloc_on(4096, &theirs), &theirs);
        assert_not_owned(h.name, d.memory().alloc(4096, &theirs), &theirs);

        // Frees are refused too, and the memory is freed all the same (nothing leaks).
        let mine = h.rt.stream(D0).unwrap();
        let b = d.alloc_on(4096, &mine).unwrap();
        assert_not_owned(h.name, b.free_on(&theirs), &theirs);
        let a = d.memory().alloc(4096, &mine).unwrap();
        assert_not_owned(
            h.name,
            d.memory().free(a, BufferUses::written_by(&mine), &theirs),
            &theirs,
        );
        assert_eq!(d.memory().stats().in_use_bytes, 0, "[{}]", h.name);
        if let (Some(f), Some(logged)) = (&h.fake, logged) {
            let touched: Vec<FakeOp> = f.log()[logged..]
                .iter()
                .filter(|op| op.stream() == theirs.handle())
                .cloned()
                .collect();
            assert!(touched.is_empty(), "enqueued on their stream: {touched:?}");
        }

        // Explicit streams are for sharing: any thread allocates and frees on them.
        let shared = h.rt.create_stream(D0, StreamPriority::Normal).unwrap();
        let (d2, s2) = (d.clone(), shared.clone());
        let x = on_thread(move || d2.alloc_on(4096, &s2).unwrap());
        x.free_on(&shared).unwrap();

        end_tx.send(()).unwrap();
        holder.join().unwrap();
    }
}
