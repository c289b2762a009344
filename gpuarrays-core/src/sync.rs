//! The synchronisation primitives of [`DataRef`](crate::DataRef) and
//! [`HandleCache`](crate::handle_cache::HandleCache), switchable to loom's for model checking.
//!
//! Why a shim: loom (a model checker for concurrent Rust) explores every interleaving of
//! the threads of a test, but only of operations on *its own* locks and atomics. The two
//! places of core whose correctness depends on interleavings (release of a shared buffer,
//! and the handle cache's take/push/evict) therefore take their primitives from here:
//! parking_lot's and std's in every ordinary build, loom's when built with
//! `RUSTFLAGS="--cfg loom"` (see `docs/safety.md` for the command). The method names are
//! parking_lot's (`lock()` returns the guard, there is no poisoning), so the code using
//! them reads the same in both builds.
//!
//! Nothing else in core uses this module; it is not part of the public API.

#[cfg(not(loom))]
mod imp {
    pub(crate) use parking_lot::{Mutex, RwLock};
    pub(crate) use std::sync::Arc;
    pub(crate) use std::sync::atomic::AtomicU64;
}

#[cfg(loom)]
mod imp {
    use std::sync::PoisonError;

    pub(crate) use loom::sync::Arc;
    pub(crate) use loom::sync::atomic::AtomicU64;

    /// loom's mutex with parking_lot's interface. A poisoned lock (a model thread panicked)
    /// is used as is: the panic already fails the model.
    #[derive(Debug)]
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Self {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> loom::sync::MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner)
        }

        pub(crate) fn get_mut(&mut self) -> &mut T {
            self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
        }
    }

    /// loom's reader-writer lock with the part of parking_lot's interface core uses.
    #[derive(Debug)]
    pub(crate) struct RwLock<T>(loom::sync::RwLock<T>);

    impl<T> RwLock<T> {
        pub(crate) fn new(value: T) -> Self {
            RwLock(loom::sync::RwLock::new(value))
        }

        /// loom's read lock never queues readers behind a waiting writer, so every read is
        /// "recursive" in parking_lot's sense.
        pub(crate) fn read_recursive(&self) -> loom::sync::RwLockReadGuard<'_, T> {
            self.0.read().unwrap_or_else(PoisonError::into_inner)
        }

        pub(crate) fn write(&self) -> loom::sync::RwLockWriteGuard<'_, T> {
            self.0.write().unwrap_or_else(PoisonError::into_inner)
        }

        pub(crate) fn get_mut(&mut self) -> &mut T {
            self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
        }
    }
}

pub(crate) use imp::*;
