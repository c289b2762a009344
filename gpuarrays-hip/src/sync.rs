//! The locks and atomics of the stream pool, streams, buffers' use records and the memory
//! pool, switchable to loom's for model checking.
//!
//! Why a shim: loom (a model checker for concurrent Rust) explores the interleavings of the
//! threads of a test only at operations on *its own* locks and atomics, and a lock of
//! another kind held across one of loom's switch points would block the model's single OS
//! thread. The code whose correctness depends on interleavings (taking, releasing and
//! recycling pooled streams; ordering, enqueueing and recording the uses of a buffer;
//! freeing into and reusing from the memory pool) therefore takes its primitives from
//! here: parking_lot's and std's in every ordinary build, loom's when built with
//! `RUSTFLAGS="--cfg loom"` (`docs/safety.md` has the command; the models are in
//! `src/loom_models/`). The method names are parking_lot's (`lock()` returns the guard),
//! so the code reads the same in both builds. Statics keep std's atomics (loom's have no
//! `const` constructor); they only hand out identifiers.

#[cfg(not(loom))]
mod imp {
    pub(crate) use parking_lot::{Mutex, MutexGuard};
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize};
}

#[cfg(loom)]
mod imp {
    use std::sync::PoisonError;

    pub(crate) use loom::sync::MutexGuard;
    pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize};

    /// loom's mutex with parking_lot's interface. A poisoned lock (a model thread panicked)
    /// is used as is: the panic already fails the model.
    #[derive(Debug, Default)]
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Self {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner)
        }

        pub(crate) fn get_mut(&mut self) -> &mut T {
            self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
        }
    }
}

pub(crate) use imp::*;
