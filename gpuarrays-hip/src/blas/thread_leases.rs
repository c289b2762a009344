//! The calling thread's BLAS handles: one per [`super::DeviceBlas`] the thread has multiplied
//! on, kept in a thread-local until the thread exits, then returned to that device's cache
//! (or destroyed, when the cache is gone).
//!
//! A handle is taken out of the thread-local for the length of one product and put back
//! after, so a re-entrant call (a destructor multiplying matrices) finds none and uses a
//! second handle instead of aliasing the first.

use std::cell::RefCell;
use std::sync::Weak;

use super::handle::{BlasHandleCache, OwnedBlasHandle};

struct ThreadLease {
    /// The `DeviceBlas` the handle belongs to.
    owner: u64,
    /// Its cache, to return the handle to.
    cache: Weak<BlasHandleCache>,
    handle: Option<OwnedBlasHandle>,
}

impl Drop for ThreadLease {
    fn drop(&mut self) {
        let Some(handle) = self.handle.take() else {
            return;
        };
        match self.cache.upgrade() {
            Some(cache) => {
                let (device, bytes) = (handle.device(), handle.bytes());
                cache.push(device, handle, bytes);
            }
            // The device's BLAS state is gone: the handle destroys itself.
            None => drop(handle),
        }
    }
}

thread_local! {
    static LEASES: RefCell<Vec<ThreadLease>> = const { RefCell::new(Vec::new()) };
}

/// Takes the calling thread's handle for `owner` out of the thread-local, if it has one.
pub(super) fn take(owner: u64) -> Option<OwnedBlasHandle> {
    LEASES
        .try_with(|l| {
            let mut l = l.try_borrow_mut().ok()?;
            let i = l.iter().position(|t| t.owner == owner)?;
            let mut lease = l.swap_remove(i);
            lease.handle.take()
        })
        .ok()
        .flatten()
}

/// Keeps `handle` as the calling thread's handle for `owner`. Gives it back when the thread
/// cannot keep it (it is exiting, or the thread-local is in use) or already keeps one.
pub(super) fn keep(
    owner: u64,
    cache: Weak<BlasHandleCache>,
    handle: OwnedBlasHandle,
) -> Option<OwnedBlasHandle> {
    let mut slot = Some(handle);
    let _ = LEASES.try_with(|l| {
        if let Ok(mut l) = l.try_borrow_mut()
            && !l.iter().any(|t| t.owner == owner)
        {
            l.push(ThreadLease {
                owner,
                cache,
                handle: slot.take(),
            });
        }
    });
    slot
}

/// How many BLAS handles the calling thread holds (for tests and diagnostics).
pub fn leased_blas_handles() -> usize {
    LEASES
        .try_with(|l| l.try_borrow().map_or(0, |l| l.len()))
        .unwrap_or(0)
}

/// Returns the calling thread's handle for `owner` to its cache now (a thread that will not
/// multiply again on that device soon, or a test).
pub fn release(owner: u64) {
    let lease = LEASES
        .try_with(|l| {
            let mut l = l.try_borrow_mut().ok()?;
            let i = l.iter().position(|t| t.owner == owner)?;
            Some(l.swap_remove(i))
        })
        .ok()
        .flatten();
    drop(lease);
}
