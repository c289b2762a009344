//! Which device ranges the operation being enqueued reads and which it writes, declared by
//! the runtime's ordering protocol around each launch, for platforms that check ordering.
//!
//! Why: a kernel's parameters are opaque to the platform layer, so a platform cannot tell
//! whether a kernel reads or writes a buffer it is passed. The test double's race detector
//! (`test_double`) needs that distinction: two streams reading one buffer at once is fine,
//! a write unordered against another stream's read is a bug. The runtime knows each
//! operand's role when it orders the operation (`crate::device::enqueue`), so it declares
//! the roles here for the length of the launch, on the launching thread.
//!
//! Real platforms never read the declarations, and the runtime makes them only when the
//! platform asks for them ([`super::Platform::checks_ordering`]), so the launch path of a
//! real GPU pays one boolean test. Declarations nest (an operation that enqueues another
//! inside its launch adds to them) and are removed when the scope ends, also on panic.

use super::DevicePtr;
use smallvec::SmallVec;
use std::cell::RefCell;

/// One operand range of the operation being enqueued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredAccess {
    /// First byte of the range.
    pub ptr: DevicePtr,
    /// Length of the range in bytes.
    pub bytes: usize,
    /// Whether the operation may write the range (else it only reads it).
    pub write: bool,
}

thread_local! {
    static DECLARED: RefCell<SmallVec<[DeclaredAccess; 8]>> = RefCell::new(SmallVec::new());
}

/// Run `f` with `accesses` declared for the calling thread (added to any outer declarations).
pub fn with_declared<R>(accesses: &[DeclaredAccess], f: impl FnOnce() -> R) -> R {
    let before = DECLARED
        .try_with(|d| {
            let mut d = d.try_borrow_mut().ok()?;
            let n = d.len();
            d.extend_from_slice(accesses);
            Some(n)
        })
        .ok()
        .flatten();
    let _restore = Restore(before);
    f()
}

struct Restore(Option<usize>);

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(n) = self.0 {
            let _ = DECLARED.try_with(|d| {
                if let Ok(mut d) = d.try_borrow_mut() {
                    d.truncate(n);
                }
            });
        }
    }
}

/// Every range the calling thread's current operation declared (a graph launch's operands:
/// the platform cannot see them among kernel parameters).
pub fn declared() -> SmallVec<[DeclaredAccess; 8]> {
    DECLARED
        .try_with(|d| d.try_borrow().map(|d| d.clone()).unwrap_or_default())
        .unwrap_or_default()
}

/// How the calling thread's current operation declared the range holding `ptr`: `Some(true)`
/// written, `Some(false)` only read, `None` not declared (or no declarations at all). Where
/// declarations overlap, a write wins.
pub fn declared_kind(ptr: DevicePtr) -> Option<bool> {
    DECLARED
        .try_with(|d| {
            let d = d.try_borrow().ok()?;
            let mut found = None;
            for a in d.iter() {
                if ptr.0 >= a.ptr.0 && ptr.0 < a.ptr.0 + a.bytes.max(1) as u64 {
                    found = Some(found.unwrap_or(false) | a.write);
                }
            }
            found
        })
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_nest_and_end_with_their_scope() {
        let read = DeclaredAccess {
            ptr: DevicePtr(100),
            bytes: 10,
            write: false,
        };
        let write = DeclaredAccess {
            ptr: DevicePtr(105),
            bytes: 10,
            write: true,
        };
        assert_eq!(declared_kind(DevicePtr(101)), None);
        with_declared(&[read], || {
            assert_eq!(declared_kind(DevicePtr(101)), Some(false));
            assert_eq!(declared_kind(DevicePtr(110)), None);
            with_declared(&[write], || {
                assert_eq!(declared_kind(DevicePtr(106)), Some(true), "a write wins");
                assert_eq!(declared_kind(DevicePtr(101)), Some(false));
            });
            assert_eq!(declared_kind(DevicePtr(106)), Some(false));
        });
        assert_eq!(declared_kind(DevicePtr(101)), None);
    }
}
