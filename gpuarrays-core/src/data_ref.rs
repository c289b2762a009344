//! `DataRef`: a reference-counted handle to one device buffer (shared by arrays derived from one another).
//!
//! The buffer's destructor is registered once, when the `DataRef` is created, and runs
//! exactly once: when the last handle goes, or earlier when some holder calls
//! [`DataRef::free_all_shared`]. Arrays derived from one another (views, reshapes,
//! reinterprets) hold clones of the same `DataRef`, so dropping one of them releases only its
//! own reference. After a forced release every holder sees [`Error::Freed`] on access, never
//! a dangling buffer.
//!
//! # The release rule
//!
//! The buffer and its destructor live together in **one** slot, `Option<Live>`, behind one
//! reader-writer lock. Releasing is one `take()` of that slot under the write lock: exactly
//! one releaser gets `Some((buffer, destructor))` and runs it; every other releaser, earlier
//! or later, gets `None`. (The buffer and the destructor used to sit behind two locks, taken
//! one after the other: two concurrent `free_all_shared` calls could each take one half,
//! and then neither ran the destructor.) The models in `tests/loom_data_ref.rs` check this
//! over every interleaving.
//!
//! Access goes through a read lock held for the duration of one backend call (the enqueue,
//! not the GPU work: backends order frees after queued work on their own streams). The
//! release takes the write lock, so it waits until no call is borrowing the buffer, and the
//! destructor runs after the lock is released (a destructor may take a while, and must not
//! hold up other holders, who will see [`Error::Freed`]).
//!
//! A thread that holds a [`BufferGuard`] and calls [`DataRef::free_all_shared`] on the same
//! buffer would wait for its own borrow forever. Each thread therefore keeps the list of
//! buffers it borrows (a thread-local list of ids, pushed by [`DataRef::read`] and popped
//! when the guard drops), and `free_all_shared` refuses with [`Error::InvalidArgument`]
//! instead of hanging when the calling thread is among the borrowers.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{Error, Result};
use crate::sync::{Arc, RwLock};

type Destructor<B> = Box<dyn FnOnce(B) + Send>;

/// A buffer that has not been released yet, with the destructor that will release it.
struct Live<B> {
    buffer: B,
    /// Never locked: the destructor is only ever moved out by value, on release. The mutex
    /// makes a `Send` closure shareable (`Sync`) while it sits in the slot that readers of
    /// other threads lock, without asking callers for a `Sync` destructor.
    destructor: parking_lot::Mutex<Destructor<B>>,
}

impl<B> Live<B> {
    /// Runs the destructor. A panic in it is caught and reported: releasing happens in
    /// `Drop`, and unwinding out of a drop that runs during another panic aborts.
    fn release(self) {
        let Live { buffer, destructor } = self;
        let destructor = destructor.into_inner();
        // AssertUnwindSafe: after a caught panic nothing of this buffer is touched again;
        // the slot it came from is already empty.
        if catch_unwind(AssertUnwindSafe(move || destructor(buffer))).is_err() {
            tracing::error!("DataRef: a buffer destructor panicked; the buffer may have leaked");
        }
    }
}

struct Shared<B> {
    /// `Some` until the buffer is released; taken exactly once.
    slot: RwLock<Option<Live<B>>>,
}

impl<B> Shared<B> {
    /// Takes the buffer and its destructor out in one step and runs the destructor. Only
    /// the first call over the object's life finds them.
    fn release(&self) {
        let taken = self.slot.write().take();
        if let Some(live) = taken {
            live.release();
        }
    }
}

impl<B> Drop for Shared<B> {
    fn drop(&mut self) {
        if let Some(live) = self.slot.get_mut().take() {
            live.release();
        }
    }
}

/// A shared, reference-counted device buffer with a destructor that runs once.
pub struct DataRef<B> {
    shared: Arc<Shared<B>>,
}

/// A borrowed buffer, valid while the guard lives (a read lock on the buffer slot). While it
/// lives, [`DataRef::free_all_shared`] of the same buffer on this thread is refused.
#[cfg(not(loom))]
pub struct BufferGuard<'a, B> {
    guard: parking_lot::MappedRwLockReadGuard<'a, B>,
    _borrow: this_thread::Borrow,
}

#[cfg(not(loom))]
impl<B> std::ops::Deref for BufferGuard<'_, B> {
    type Target = B;

    fn deref(&self) -> &B {
        &self.guard
    }
}

/// The buffers the current thread borrows (by [`DataRef::id`]), so that a release on the
/// same thread can be refused instead of waiting for itself.
#[cfg(not(loom))]
mod this_thread {
    use std::cell::RefCell;

    thread_local! {
        /// Ids of the buffers this thread borrows, once per live guard.
        static BORROWED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }

    /// One live borrow of buffer `id` by this thread; forgotten when dropped. Guards are
    /// not `Send` (parking_lot's read guards are not), so it drops on the thread that made it.
    pub(super) struct Borrow(usize);

    impl Borrow {
        pub(super) fn new(id: usize) -> Borrow {
            BORROWED.with(|b| b.borrow_mut().push(id));
            Borrow(id)
        }
    }

    impl Drop for Borrow {
        fn drop(&mut self) {
            // `try_with`: during thread teardown the list may already be gone; nothing to do.
            let _ = BORROWED.try_with(|b| {
                let mut b = b.borrow_mut();
                if let Some(i) = b.iter().rposition(|&x| x == self.0) {
                    b.swap_remove(i);
                }
            });
        }
    }

    /// Whether this thread holds a guard of buffer `id`.
    pub(super) fn borrows(id: usize) -> bool {
        BORROWED
            .try_with(|b| b.borrow().contains(&id))
            .unwrap_or(false)
    }
}

/// A borrowed buffer, valid while the guard lives (a read lock on the buffer slot). This is
/// the model-checking build's form (`--cfg loom`); ordinary builds map parking_lot's guard.
#[cfg(loom)]
pub struct BufferGuard<'a, B> {
    guard: loom::sync::RwLockReadGuard<'a, Option<Live<B>>>,
}

#[cfg(loom)]
impl<B> std::ops::Deref for BufferGuard<'_, B> {
    type Target = B;

    fn deref(&self) -> &B {
        match &*self.guard {
            Some(live) => &live.buffer,
            // `DataRef::read` builds a guard only over a live slot, and the slot cannot be
            // emptied while the read lock is held.
            None => unreachable!("a BufferGuard over a released slot"),
        }
    }
}

impl<B> DataRef<B> {
    /// Wraps `buffer`; `destructor` runs exactly once, with the buffer, when the last
    /// reference goes or at [`free_all_shared`](Self::free_all_shared). The destructor must
    /// capture by value what it needs (device, context) and should not panic (a panic is
    /// caught and logged, and the buffer may then leak).
    pub fn new(buffer: B, destructor: impl FnOnce(B) + Send + 'static) -> Self {
        DataRef {
            shared: Arc::new(Shared {
                slot: RwLock::new(Some(Live {
                    buffer,
                    destructor: parking_lot::Mutex::new(Box::new(destructor)),
                })),
            }),
        }
    }

    /// Borrows the buffer for one backend call, or fails with [`Error::Freed`] if it was
    /// released by [`free_all_shared`](Self::free_all_shared). Recursive read locking is
    /// used so one thread may borrow the same buffer for several operands of one call even
    /// while another thread waits to release it.
    ///
    /// While the calling thread captures a graph on the host, the buffer is noted for it
    /// (`graph::recorder`): the graph keeps the buffers its recorded calls use.
    #[cfg(not(loom))]
    pub fn read(&self) -> Result<BufferGuard<'_, B>>
    where
        B: Send + Sync + 'static,
    {
        let guard =
            parking_lot::RwLockReadGuard::try_map(self.shared.slot.read_recursive(), |slot| {
                slot.as_ref().map(|live| &live.buffer)
            })
            .map_err(|_| Error::Freed)?;
        crate::graph::note_buffer(self, &guard);
        Ok(BufferGuard {
            guard,
            _borrow: this_thread::Borrow::new(self.id()),
        })
    }

    /// Borrows the buffer for one backend call, or fails with [`Error::Freed`] (the
    /// model-checking build's form).
    #[cfg(loom)]
    pub fn read(&self) -> Result<BufferGuard<'_, B>> {
        let guard = self.shared.slot.read_recursive();
        if guard.is_some() {
            Ok(BufferGuard { guard })
        } else {
            Err(Error::Freed)
        }
    }

    /// Whether the buffer is still alive (not released).
    pub fn is_alive(&self) -> bool {
        self.shared.slot.read_recursive().is_some()
    }

    /// Releases the buffer for *every* holder now: waits until no backend call borrows it,
    /// then runs the destructor (on this thread, after the lock is released). Later access
    /// through any clone returns [`Error::Freed`]. Calling it again, from any holder and on
    /// any thread, concurrently or later, or dropping the holders afterwards, does nothing.
    ///
    /// Fails with [`Error::InvalidArgument`] (and releases nothing) if the calling thread
    /// itself holds a [`BufferGuard`] of this buffer: waiting for that borrow would never end.
    pub fn free_all_shared(&self) -> Result<()> {
        #[cfg(not(loom))]
        if this_thread::borrows(self.id()) {
            return Err(Error::InvalidArgument {
                op: "free_all_shared".into(),
                reason: "this thread still borrows the buffer (a guard from `RawArray::buffer()` \
                         or `DataRef::read()` is alive), and the release would wait for that \
                         borrow forever; drop the guard first"
                    .into(),
            });
        }
        self.shared.release();
        Ok(())
    }

    /// Number of live handles (arrays) sharing this buffer.
    pub fn ref_count(&self) -> usize {
        Arc::strong_count(&self.shared)
    }

    /// Whether two handles refer to the same buffer.
    pub fn same_buffer(a: &Self, b: &Self) -> bool {
        Arc::ptr_eq(&a.shared, &b.shared)
    }

    /// A stable identity of the shared buffer, for diagnostics and tests.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.shared) as *const () as usize
    }
}

impl<B> Clone for DataRef<B> {
    /// A new reference to the same buffer (what derived arrays hold).
    fn clone(&self) -> Self {
        DataRef {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<B> fmt::Debug for DataRef<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataRef")
            .field("id", &format_args!("{:#x}", self.id()))
            .field("refs", &self.ref_count())
            .field("alive", &self.is_alive())
            .finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counted() -> (DataRef<Vec<u8>>, Arc<AtomicUsize>) {
        let runs = Arc::new(AtomicUsize::new(0));
        let r = runs.clone();
        (
            DataRef::new(vec![1, 2, 3], move |_| {
                r.fetch_add(1, Ordering::SeqCst);
            }),
            runs,
        )
    }

    #[test]
    fn destructor_runs_once_when_last_reference_goes() {
        let (a, runs) = counted();
        let b = a.clone();
        assert_eq!(a.ref_count(), 2);
        drop(a);
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        assert_eq!(b.read().unwrap().len(), 3);
        drop(b);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn force_release_frees_for_every_holder_once() {
        let (a, runs) = counted();
        let b = a.clone();
        b.free_all_shared().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(matches!(a.read(), Err(Error::Freed)));
        a.free_all_shared().unwrap();
        drop(a);
        drop(b);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_destructor_does_not_unwind_out_of_a_drop() {
        let a = DataRef::new(vec![1u8], |_| {
            panic!("destructor failure (expected by test)")
        });
        let b = a.clone();
        drop(a);
        drop(b); // would abort the test process if the panic escaped during unwinding
        let c = DataRef::new(vec![1u8], |_| {
            panic!("destructor failure (expected by test)")
        });
        c.free_all_shared().unwrap();
        assert!(matches!(c.read(), Err(Error::Freed)));
    }

    #[test]
    fn concurrent_release_and_reads_are_safe() {
        for _ in 0..50 {
            let (a, runs) = counted();
            std::thread::scope(|s| {
                for i in 0..8 {
                    let h = a.clone();
                    s.spawn(move || {
                        if i == 3 {
                            h.free_all_shared().unwrap();
                        } else if let Ok(g) = h.read() {
                            assert_eq!(g.len(), 3);
                        }
                    });
                }
            });
            drop(a);
            assert_eq!(runs.load(Ordering::SeqCst), 1);
        }
    }

    #[test]
    fn freeing_a_buffer_this_thread_borrows_is_an_error_not_a_hang() {
        let (a, runs) = counted();
        let b = a.clone();
        let guard = a.read().unwrap();
        // Two guards of one buffer, and a guard of another buffer, on this thread.
        let again = b.read().unwrap();
        let (other, _) = counted();
        let other_guard = other.read().unwrap();
        let err = b.free_all_shared().unwrap_err();
        assert!(err.to_string().contains("drop the guard first"), "{err}");
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        drop(guard);
        assert!(b.free_all_shared().is_err(), "one guard is still alive");
        drop(again);
        // Another buffer's guard does not stand in the way.
        b.free_all_shared().unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(matches!(a.read(), Err(Error::Freed)));
        drop(other_guard);
        other.free_all_shared().unwrap();
        // A borrow on another thread is waited for, not refused.
        let (c, c_runs) = counted();
        let c2 = c.clone();
        let (held_tx, held_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            let g = c2.read().unwrap();
            held_tx.send(()).unwrap();
            go_rx.recv().unwrap();
            drop(g);
        });
        held_rx.recv().unwrap();
        go_tx.send(()).unwrap();
        c.free_all_shared().unwrap();
        t.join().unwrap();
        assert_eq!(c_runs.load(Ordering::SeqCst), 1);
    }
}
