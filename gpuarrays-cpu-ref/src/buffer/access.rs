//! The ordering of backend calls that share a buffer: each call holds, for as long as its
//! kernel runs, a shared lock on every buffer it only reads and an exclusive lock on every
//! buffer it writes.
//!
//! Why: arrays are shared between threads (`share()`, derived arrays), and one thread may
//! fill an array while another reduces it. On a GPU the runtime orders the two calls (the
//! second waits for the first's work on the device). The CPU runs kernels on the calling
//! thread and the pool at once, so without an ordering of its own a reader would see part
//! of one write and part of the next — a data race, undefined behaviour in Rust. With the
//! locks, calls that touch a buffer behave as if run in some serial order, as on the GPU:
//! reads of one buffer by many threads still run at the same time; a write waits for them.
//!
//! Deadlock freedom:
//! - a call locks each of its buffers once (a buffer it reads and writes counts as written),
//!   in order of address, so two calls never wait on each other in a cycle;
//! - a call never makes another backend call while it holds its locks;
//! - a thread that blocks while waiting for a lock is never a rayon worker: the kernels of
//!   the threads holding the locks still have every worker to run on. Calls made on rayon
//!   workers (a program calling gpuarrays inside `par_iter`) take their locks with
//!   [`Accesses::acquire_polling`] — all or none, running other queued jobs between tries —
//!   and then run their kernel serially ([`crate::parallel`]), so that they never run
//!   someone else's job while they hold a lock.

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use smallvec::SmallVec;

use super::CpuBuffer;

/// The lock a buffer carries for the ordering (see the module documentation).
#[derive(Default)]
pub(crate) struct AccessLock(RwLock<()>);

/// How a call uses a buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    Read,
    Write,
}

/// A held lock.
enum Held<'a> {
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
}

/// The buffers of one call, each with how the call uses it. Most calls touch up to four
/// buffers; larger expressions spill to the heap.
#[derive(Default)]
pub(crate) struct Accesses<'a> {
    buffers: SmallVec<[(&'a CpuBuffer, Mode); 4]>,
}

/// The locks of one call, released when dropped.
pub(crate) struct AccessGuard<'a> {
    _held: SmallVec<[Held<'a>; 4]>,
}

impl<'a> Accesses<'a> {
    /// Adds a buffer the call reads.
    pub(crate) fn read(mut self, buffer: &'a CpuBuffer) -> Self {
        self.buffers.push((buffer, Mode::Read));
        self
    }

    /// Adds a buffer the call writes (and may read).
    pub(crate) fn write(mut self, buffer: &'a CpuBuffer) -> Self {
        self.buffers.push((buffer, Mode::Write));
        self
    }

    /// Sorts by address and merges repeats (a buffer both read and written is written).
    fn normalise(&mut self) {
        let key = |b: &CpuBuffer| b as *const CpuBuffer as usize;
        self.buffers.sort_unstable_by_key(|(b, _)| key(b));
        self.buffers.dedup_by(|later, kept| {
            let same = std::ptr::eq(later.0, kept.0);
            if same && later.1 == Mode::Write {
                kept.1 = Mode::Write;
            }
            same
        });
    }

    /// Takes every lock, waiting as long as needed. For threads that are not rayon workers.
    pub(crate) fn acquire_blocking(mut self) -> AccessGuard<'a> {
        self.normalise();
        let held = self
            .buffers
            .iter()
            .map(|&(b, mode)| match mode {
                Mode::Read => Held::Read(b.access.0.read()),
                Mode::Write => Held::Write(b.access.0.write()),
            })
            .collect();
        AccessGuard { _held: held }
    }

    /// Takes every lock or none, trying again until all are free; between tries this
    /// thread runs other jobs of its rayon pool (whose progress may be what frees the
    /// locks), or yields when there are none.
    pub(crate) fn acquire_polling(mut self) -> AccessGuard<'a> {
        self.normalise();
        let mut idle_rounds = 0u32;
        loop {
            if let Some(guard) = self.try_acquire() {
                return guard;
            }
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => idle_rounds = 0,
                _ => {
                    idle_rounds = idle_rounds.saturating_add(1);
                    if idle_rounds < 64 {
                        std::thread::yield_now();
                    } else {
                        // A long wait (another call's large kernel): stop spinning.
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                }
            }
        }
    }

    fn try_acquire(&self) -> Option<AccessGuard<'a>> {
        let mut held = SmallVec::with_capacity(self.buffers.len());
        for &(b, mode) in &self.buffers {
            let h = match mode {
                Mode::Read => b.access.0.try_read().map(Held::Read),
                Mode::Write => b.access.0.try_write().map(Held::Write),
            };
            // On failure, `held` drops here and releases what was taken.
            held.push(h?);
        }
        Some(AccessGuard { _held: held })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_read_and_written_by_one_call_is_locked_once_for_writing() {
        let (a, b) = (CpuBuffer::new(8).unwrap(), CpuBuffer::new(8).unwrap());
        let mut acc = Accesses::default().read(&a).write(&b).read(&b).read(&a);
        acc.normalise();
        assert_eq!(acc.buffers.len(), 2);
        let mode_of = |x: &CpuBuffer| {
            acc.buffers
                .iter()
                .find(|(y, _)| std::ptr::eq(*y, x))
                .map(|(_, m)| *m)
        };
        assert_eq!(mode_of(&a), Some(Mode::Read));
        assert_eq!(mode_of(&b), Some(Mode::Write));
        // Blocking acquisition of a set with a repeat does not wait on itself.
        let g = Accesses::default()
            .write(&a)
            .read(&a)
            .read(&b)
            .acquire_blocking();
        // While held: another writer of `a` cannot get in, a reader of `b` can.
        assert!(Accesses::default().write(&a).try_acquire().is_none());
        assert!(Accesses::default().read(&b).try_acquire().is_some());
        drop(g);
        assert!(Accesses::default().write(&a).try_acquire().is_some());
    }

    #[test]
    fn polling_takes_all_locks_or_none() {
        let (a, b) = (CpuBuffer::new(8).unwrap(), CpuBuffer::new(8).unwrap());
        let hold_b = Accesses::default().write(&b).acquire_blocking();
        assert!(
            Accesses::default()
                .read(&a)
                .write(&b)
                .try_acquire()
                .is_none()
        );
        // `a` was not left locked by the failed try.
        assert!(Accesses::default().write(&a).try_acquire().is_some());
        drop(hold_b);
        let both = Accesses::default().read(&a).write(&b).acquire_polling();
        drop(both);
    }
}
