//! The first-access protocol of [`CpuBuffer`]: a whole overwrite that another thread's first
//! access zeroes meanwhile is reported (`written` returns false) and done again, so a write
//! is never lost for good; the same through the whole-buffer `write_bytes` and `copy_to`
//! with two threads racing on fresh buffers.

use std::sync::Barrier;

use super::CpuBuffer;

/// A pattern with no zero byte, different per `seed`.
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u8).wrapping_mul(31) ^ seed) | 1)
        .collect()
}

fn contents(b: &CpuBuffer) -> Vec<u8> {
    let mut out = vec![0u8; b.len()];
    b.read_bytes(0, &mut out).expect("read");
    out
}

#[test]
fn an_overwrite_zeroed_meanwhile_reports_it() {
    let b = CpuBuffer::new(4096).expect("alloc");
    let want = pattern(4096, 7);
    // SAFETY: the test writes every byte before `written`, and reads none through `d`.
    let d = unsafe { b.overwrite_ptr() }.expect("a fresh buffer may be overwritten");
    // SAFETY: `d` is the whole buffer's base, 4096 writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(want.as_ptr(), d, want.len()) };
    // Another access comes first (as a thread racing the overwrite would): it zeroes.
    let _ = b.ptr::<u8>(0, 1).expect("ptr");
    // SAFETY: every byte was written above.
    let stood = unsafe { b.written() };
    assert!(
        !stood,
        "the zeroing wiped the overwrite: written must say so"
    );
    assert!(contents(&b).iter().all(|&x| x == 0));
    // Once accessed, a buffer is no longer fresh: overwrites take the ordinary path.
    // SAFETY: the pointer is not used.
    assert!(unsafe { b.overwrite_ptr() }.is_none());
}

#[test]
fn an_uncontested_overwrite_stands() {
    let b = CpuBuffer::new(4096).expect("alloc");
    let want = pattern(4096, 9);
    b.write_bytes(0, &want).expect("write");
    assert_eq!(contents(&b), want);
    let c = CpuBuffer::new(4096).expect("alloc");
    b.copy_to(0, &c, 0, 4096).expect("copy");
    assert_eq!(contents(&c), want);
}

/// Runs `write` (a whole overwrite of a fresh buffer) and a first read on two threads
/// released together, `rounds` times; the buffer must end with the written bytes each time
/// (serial order read-then-write or write-then-read: either leaves them).
fn race_rounds(len: usize, rounds: usize, write: impl Fn(&CpuBuffer, &[u8]) + Sync) {
    let want = pattern(len, 3);
    for round in 0..rounds {
        let b = CpuBuffer::new(len).expect("alloc");
        let barrier = Barrier::new(2);
        std::thread::scope(|s| {
            s.spawn(|| {
                barrier.wait();
                write(&b, &want);
            });
            s.spawn(|| {
                barrier.wait();
                let mut first = [0u8; 64];
                b.read_bytes(len - 64, &mut first).expect("read");
            });
        });
        let got = contents(&b);
        let lost = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        assert_eq!(
            lost, 0,
            "round {round}: {lost} of {len} written bytes lost to a racing first access"
        );
    }
}

#[test]
fn a_racing_first_access_never_loses_a_whole_write_bytes() {
    race_rounds(1 << 20, 200, |b, src| b.write_bytes(0, src).expect("write"));
}

#[test]
fn a_racing_first_access_never_loses_a_whole_copy() {
    race_rounds(4 << 20, 100, |b, src| {
        let from = CpuBuffer::new(src.len()).expect("alloc");
        from.write_bytes(0, src).expect("write");
        from.copy_to(0, b, 0, src.len()).expect("copy");
    });
}
