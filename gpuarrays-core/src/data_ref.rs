//! `DataRef`: a reference-counted handle to one device buffer (second and third seeds).
//!
//! The buffer's destructor is registered once, when the `DataRef` is created, and runs
//! exactly once: when the last handle goes, or earlier when some holder calls
//! [`DataRef::free_all_shared`]. Arrays derived from one another (views, reshapes,
//! reinterprets) hold clones of the same `DataRef`, so dropping one of them releases only its
//! own reference. After a forced release every holder sees [`Error::Freed`] on access, never
//! a dangling buffer.
//!
//! Access goes through a read lock held for the duration of one backend call (the enqueue,
//! not the GPU work: backends order frees after queued work on their own streams), and the
//! forced release takes the write lock, so a release never races with a call that is using
//! the buffer.

use std::fmt;

use crate::sync::{Arc, Mutex, RwLock};

use crate::error::{Error, Result};

type Destructor<B> = Box<dyn FnOnce(B) + Send>;

struct Shared<B> {
    buffer: RwLock<Option<B>>,
    destructor: Mutex<Option<Destructor<B>>>,
}

impl<B> Shared<B> {
    /// Takes the buffer out and runs the destructor, at most once over the object's life.
    fn release(&self) {
        let buffer = self.buffer.write().take();
        let destructor = self.destructor.lock().take();
        if let (Some(buffer), Some(destructor)) = (buffer, destructor) {
            destructor(buffer);
        }
    }
}

impl<B> Drop for Shared<B> {
    fn drop(&mut self) {
        self.release();
    }
}

/// A shared, reference-counted device buffer with a destructor that runs once.
pub struct DataRef<B> {
    shared: Arc<Shared<B>>,
}

/// A borrowed buffer, valid while the guard lives (a read lock on the buffer slot).
#[cfg(not(loom))]
pub type BufferGuard<'a, B> = parking_lot::MappedRwLockReadGuard<'a, B>;
#[cfg(loom)]
pub struct BufferGuard<'a, B>(loom::sync::RwLockReadGuard<'a, Option<B>>);
#[cfg(loom)]
impl<B> std::ops::Deref for BufferGuard<'_, B> {
    type Target = B;
    fn deref(&self) -> &B {
        self.0.as_ref().unwrap()
    }
}

impl<B> DataRef<B> {
    /// Wraps `buffer`; `destructor` runs exactly once, with the buffer, when the last
    /// reference goes or at [`free_all_shared`](Self::free_all_shared). The destructor must
    /// capture by value what it needs (device, context) and must not panic.
    pub fn new(buffer: B, destructor: impl FnOnce(B) + Send + 'static) -> Self {
        DataRef {
            shared: Arc::new(Shared {
                buffer: RwLock::new(Some(buffer)),
                destructor: Mutex::new(Some(Box::new(destructor))),
            }),
        }
    }

    /// Borrows the buffer for one backend call. Recursive read locking is used so one
    /// thread may borrow the same buffer for several operands of one call.
    pub fn read(&self) -> Result<BufferGuard<'_, B>> {
        #[cfg(not(loom))]
        return parking_lot::RwLockReadGuard::try_map(
            self.shared.buffer.read_recursive(),
            Option::as_ref,
        )
        .map_err(|_| Error::Freed);
        #[cfg(loom)]
        {
            let g = self.shared.buffer.read_recursive();
            if g.is_some() {
                Ok(BufferGuard(g))
            } else {
                Err(Error::Freed)
            }
        }
    }

    /// Whether the buffer is still alive (not force-released).
    pub fn is_alive(&self) -> bool {
        self.shared.buffer.read_recursive().is_some()
    }

    /// Releases the buffer for *every* holder now. Later access through any clone returns
    /// [`Error::Freed`]. Calling it again, or dropping the holders afterwards, does nothing.
    pub fn free_all_shared(&self) {
        self.shared.release();
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

#[cfg(test)]
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
        b.free_all_shared();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(matches!(a.read(), Err(Error::Freed)));
        a.free_all_shared();
        drop(a);
        drop(b);
        assert_eq!(runs.load(Ordering::SeqCst), 1);
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
                            h.free_all_shared();
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
}
