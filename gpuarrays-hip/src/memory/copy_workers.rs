//! `CopyWorkers`: a few host threads that split one large `memcpy` between them.
//!
//! Why: a staged host copy moves every byte twice, once by DMA between the device and a
//! pinned chunk, once by the CPU between that chunk and the user's pageable memory. One core
//! of the H200 machine's host copies about 7 GB/s (a staged copy with one thread: 145–150 ms
//! for 1 GiB), far below the 53–55 GB/s the link carries, so the CPU half is split between
//! threads. The driver's own pageable path does its CPU half with one thread
//! (docs/results/hip-host-copies.md).
//!
//! Why not rayon: the caller holds its operand's use record while the pipeline runs (the
//! whole staged copy is one ordered operation), and a rayon `join` lets the waiting thread
//! steal unrelated work, which could try to order work on that same buffer and deadlock on
//! the record it already holds. These workers only ever run `memcpy` pieces, take no lock
//! but their own queue's, and so always finish.
//!
//! The threads are process-wide (host memory bandwidth is one resource, whatever the device),
//! started at first use, grown on demand up to the largest count asked for; between copies
//! they spin briefly, then sleep on a condition variable.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Pieces smaller than this are not split further: a thread hand-over costs a few
/// microseconds, which a 256 KiB piece (about 35 µs at one core's 7 GB/s on the H200
/// machine) amortises.
const MIN_PIECE: usize = 256 << 10;
/// Pieces start at multiples of this (whole pages).
const PIECE_ALIGN: usize = 4096;
/// How long an idle worker, or a caller waiting for its pieces, spins before it sleeps.
/// A staged copy hands out pieces every chunk (every 150–600 µs), and waking a sleeping
/// thread cost about 80–150 µs per chunk on the H200 machine (1 GiB in 8 MiB chunks: 36 ms
/// against 21 ms in 32 MiB chunks, 2026-12-02), so the threads stay awake across the
/// gaps of one copy and sleep between copies.
const SPIN: Duration = Duration::from_micros(300);

/// One piece of a copy: `len` bytes from `src` to `dst`, and the latch of the copy it is
/// part of.
struct Piece {
    dst: usize,
    src: usize,
    len: usize,
    streaming: bool,
    latch: Arc<Latch>,
}

/// Counts the pieces of one copy that are not done; the copy's caller waits for zero,
/// spinning first, then sleeping.
struct Latch {
    left: AtomicUsize,
    lock: Mutex<()>,
    done: Condvar,
}

impl Latch {
    fn count_down(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock: a waiter checks `left` under it before sleeping, so it either
            // sees zero or is asleep when this notifies.
            let _g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.done.notify_all();
        }
    }

    fn wait(&self) {
        let start = Instant::now();
        while self.left.load(Ordering::Acquire) > 0 {
            if start.elapsed() > SPIN {
                let mut g = self.lock.lock().unwrap_or_else(|p| p.into_inner());
                while self.left.load(Ordering::Acquire) > 0 {
                    g = self.done.wait(g).unwrap_or_else(|p| p.into_inner());
                }
                return;
            }
            std::hint::spin_loop();
        }
    }
}

#[derive(Default)]
struct Queue {
    pieces: VecDeque<Piece>,
    threads: usize,
    /// Workers asleep on `ready` (changed under the queue's lock).
    sleeping: usize,
}

/// The process-wide copy threads.
pub struct CopyWorkers {
    queue: Mutex<Queue>,
    /// Pieces queued, readable without the lock (what idle workers spin on).
    queued: AtomicUsize,
    ready: Condvar,
}

impl CopyWorkers {
    /// The process's workers.
    pub fn global() -> &'static CopyWorkers {
        static WORKERS: OnceLock<CopyWorkers> = OnceLock::new();
        WORKERS.get_or_init(|| CopyWorkers {
            queue: Mutex::new(Queue::default()),
            queued: AtomicUsize::new(0),
            ready: Condvar::new(),
        })
    }

    /// Copy `len` bytes from `src` to `dst` with up to `threads` threads, the caller being
    /// one of them, with non-temporal stores if `streaming` (x86-64; elsewhere ignored).
    /// Returns when every byte is copied.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of `len` bytes until this returns,
    /// and the two ranges must not overlap.
    pub unsafe fn copy(
        &'static self,
        dst: *mut u8,
        src: *const u8,
        len: usize,
        threads: usize,
        streaming: bool,
    ) {
        let parts = threads.min(len / MIN_PIECE).max(1);
        if parts == 1 {
            // SAFETY: the caller's contract.
            unsafe { copy_piece(dst, src, len, streaming) };
            return;
        }
        let step = len.div_ceil(parts).next_multiple_of(PIECE_ALIGN);
        let mut bounds: Vec<(usize, usize)> = (0..len)
            .step_by(step)
            .map(|start| (start, step.min(len - start)))
            .collect();
        let (own_start, own_len) = bounds.remove(0);
        let latch = Arc::new(Latch {
            left: AtomicUsize::new(bounds.len()),
            lock: Mutex::new(()),
            done: Condvar::new(),
        });
        {
            let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            for &(start, n) in &bounds {
                q.pieces.push_back(Piece {
                    dst: dst as usize + start,
                    src: src as usize + start,
                    len: n,
                    streaming,
                    latch: latch.clone(),
                });
            }
            self.queued.fetch_add(bounds.len(), Ordering::Release);
            self.grow(&mut q, threads - 1);
            if q.sleeping > 0 {
                self.ready.notify_all();
            }
        }
        // SAFETY: a sub-range of the caller's ranges (start + len ≤ len).
        unsafe { copy_piece(dst.add(own_start), src.add(own_start), own_len, streaming) };
        // Help with what is still queued (this copy's pieces or another caller's: each is a
        // plain memcpy whose caller waits for it), then wait for the pieces taken by others.
        while let Some(piece) = self.take() {
            run(piece);
        }
        latch.wait();
    }

    /// Start threads until `want` exist (a failed spawn leaves fewer: the caller and the
    /// existing threads still do all the pieces).
    fn grow(&'static self, q: &mut Queue, want: usize) {
        while q.threads < want {
            let spawned = std::thread::Builder::new()
                .name(format!("gpuarrays-copy-{}", q.threads))
                .spawn(move || self.work());
            match spawned {
                Ok(_) => q.threads += 1,
                Err(e) => {
                    tracing::debug!(error = %e, threads = q.threads, "no more copy threads");
                    break;
                }
            }
        }
    }

    fn take(&self) -> Option<Piece> {
        if self.queued.load(Ordering::Acquire) == 0 {
            return None;
        }
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let piece = q.pieces.pop_front();
        if piece.is_some() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
        piece
    }

    fn work(&self) {
        loop {
            if let Some(piece) = self.take() {
                run(piece);
                continue;
            }
            let start = Instant::now();
            while self.queued.load(Ordering::Acquire) == 0 && start.elapsed() < SPIN {
                std::hint::spin_loop();
            }
            if self.queued.load(Ordering::Acquire) > 0 {
                continue;
            }
            let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.sleeping += 1;
            while q.pieces.is_empty() {
                q = self.ready.wait(q).unwrap_or_else(|p| p.into_inner());
            }
            q.sleeping -= 1;
        }
    }
}

fn run(piece: Piece) {
    // SAFETY: the piece lies inside the ranges of a `copy` call whose caller waits on the
    // piece's latch before returning, so both ranges are still valid and do not overlap.
    unsafe {
        copy_piece(
            piece.dst as *mut u8,
            piece.src as *const u8,
            piece.len,
            piece.streaming,
        )
    };
    piece.latch.count_down();
}

/// `len` bytes from `src` to `dst`, with non-temporal stores if `streaming` on x86-64.
///
/// # Safety
/// As [`CopyWorkers::copy`].
unsafe fn copy_piece(dst: *mut u8, src: *const u8, len: usize, streaming: bool) {
    #[cfg(target_arch = "x86_64")]
    if streaming {
        // SAFETY: the caller's contract.
        unsafe { stream_copy(dst, src, len) };
        return;
    }
    let _ = streaming;
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
}

/// A copy whose stores bypass the caches (`movntdq`): a large copy into memory nobody reads
/// soon (the user's buffer, or a pinned slot the DMA engine reads) then writes each line
/// once instead of reading it first (read-for-ownership) and writing it back later.
///
/// # Safety
/// As [`CopyWorkers::copy`].
#[cfg(target_arch = "x86_64")]
unsafe fn stream_copy(dst: *mut u8, src: *const u8, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let head = dst.align_offset(16).min(len);
    let body = (len - head) / 64 * 64;
    // SAFETY: every access below lies in `dst[..len]` / `src[..len]` (the caller's ranges):
    // `head + body ≤ len`; the streamed stores are 16-byte aligned (`dst + head` is, and the
    // body advances in 64-byte steps); SSE2 is part of every x86-64 CPU. The fence orders the
    // streamed stores before whatever the caller does next (signalling the piece done, or a
    // DMA reading the slot).
    unsafe {
        std::ptr::copy_nonoverlapping(src, dst, head);
        let (mut d, mut s) = (dst.add(head), src.add(head));
        let end = d.add(body);
        while d < end {
            for k in 0..4 {
                let v = _mm_loadu_si128(s.add(16 * k).cast::<__m128i>());
                _mm_stream_si128(d.add(16 * k).cast::<__m128i>(), v);
            }
            d = d.add(64);
            s = s.add(64);
        }
        _mm_sfence();
        std::ptr::copy_nonoverlapping(s, d, len - head - body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_lands_for_odd_lengths_thread_counts_and_alignments() {
        for &(len, threads) in &[
            (0usize, 4usize),
            (1, 4),
            (100, 1),
            (MIN_PIECE * 2 + 7, 3),
            (MIN_PIECE * 5 + 4095, 8),
            (3 << 20, 1),
            (3 << 20, 16),
        ] {
            for shift in [0usize, 1, 7, 15] {
                for streaming in [false, true] {
                    let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
                    let mut dst = vec![0xAAu8; len + 64];
                    let at = 32 + shift;
                    // SAFETY: `dst` holds `at + len` bytes, `src` `len`, and they are distinct.
                    unsafe {
                        CopyWorkers::global().copy(
                            dst.as_mut_ptr().add(at),
                            src.as_ptr(),
                            len,
                            threads,
                            streaming,
                        )
                    };
                    let case = format!("len {len}, threads {threads}, +{shift}, {streaming}");
                    assert_eq!(&dst[at..at + len], &src[..], "{case}");
                    assert!(dst[..at].iter().all(|&b| b == 0xAA), "before: {case}");
                    assert!(dst[at + len..].iter().all(|&b| b == 0xAA), "past: {case}");
                }
            }
        }
    }

    #[test]
    fn concurrent_callers_each_get_their_own_bytes() {
        let handles: Vec<_> = (0..6u8)
            .map(|t| {
                std::thread::spawn(move || {
                    let len = (2 << 20) + t as usize * 4099;
                    let src = vec![t.wrapping_mul(37).wrapping_add(1); len];
                    let mut dst = vec![0u8; len];
                    for _ in 0..20 {
                        // SAFETY: both vectors hold `len` bytes and are distinct.
                        unsafe {
                            CopyWorkers::global().copy(
                                dst.as_mut_ptr(),
                                src.as_ptr(),
                                len,
                                4,
                                t % 2 == 0,
                            )
                        };
                        assert_eq!(dst, src);
                        dst.fill(0);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("a copying thread panicked");
        }
    }
}
