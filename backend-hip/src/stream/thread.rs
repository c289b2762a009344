//! Per-thread stream state: the thread's streams (leases from pools), its current priority,
//! and `with_stream` overrides. Leases go back to their pools when the thread exits (a
//! thread-local with a `Drop`) or when the `with_priority` scope that took them returns.

use super::StreamPriority;
use super::shared_stream::Stream;
use super::stream_pool::StreamPool;
use crate::error::Result;
use crate::platform::DeviceId;
use std::cell::RefCell;
use std::sync::{Arc, Weak};
use std::thread::ThreadId;

struct Lease {
    pool: Weak<StreamPool>,
    stream: Stream,
    /// The `with_priority` scope that took it (released when that scope returns), or `None`
    /// for the thread's lifetime.
    scope: Option<u64>,
}

struct ThreadStreams {
    owner: ThreadId,
    leases: Vec<Lease>,
    /// Active `with_priority` scopes, innermost last: (priority, scope id).
    priorities: Vec<(StreamPriority, u64)>,
    /// Active `with_stream` overrides, innermost last.
    overrides: Vec<Stream>,
    next_scope: u64,
}

impl ThreadStreams {
    fn new() -> Self {
        ThreadStreams {
            owner: std::thread::current().id(),
            leases: Vec::new(),
            priorities: Vec::new(),
            overrides: Vec::new(),
            next_scope: 1,
        }
    }
}

impl Drop for ThreadStreams {
    fn drop(&mut self) {
        release_all(self.owner, std::mem::take(&mut self.leases));
    }
}

fn release_all(owner: ThreadId, leases: Vec<Lease>) {
    for lease in leases {
        if let Some(pool) = lease.pool.upgrade() {
            pool.release(lease.stream, owner);
        }
    }
}

thread_local! {
    static THREAD: RefCell<ThreadStreams> = RefCell::new(ThreadStreams::new());
}

/// The calling thread's current priority (the innermost `with_priority`, else Normal).
pub fn current_priority() -> StreamPriority {
    THREAD
        .try_with(|t| t.try_borrow().ok()?.priorities.last().map(|p| p.0))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Run `f` with the calling thread's priority set to `priority`: streams taken inside are of
/// that priority. The thread gets its own stream for that priority back each time (the pool
/// prefers the stream this thread released), and a stream first taken inside this scope goes
/// back to the pool when the scope returns (also on panic).
pub fn with_priority<R>(priority: StreamPriority, f: impl FnOnce() -> R) -> R {
    let scope = THREAD
        .try_with(|t| {
            let mut t = t.try_borrow_mut().ok()?;
            let id = t.next_scope;
            t.next_scope += 1;
            t.priorities.push((priority, id));
            Some(id)
        })
        .ok()
        .flatten();
    let _guard = ScopeGuard(scope);
    f()
}

struct ScopeGuard(Option<u64>);

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        let Some(scope) = self.0 else { return };
        let taken = THREAD.try_with(|t| {
            let Ok(mut t) = t.try_borrow_mut() else {
                return None;
            };
            t.priorities.retain(|p| p.1 != scope);
            let (mine, keep): (Vec<Lease>, Vec<Lease>) =
                t.leases.drain(..).partition(|l| l.scope == Some(scope));
            t.leases = keep;
            Some((t.owner, mine))
        });
        if let Ok(Some((owner, mine))) = taken {
            release_all(owner, mine);
        }
    }
}

/// Run `f` with `stream` as the calling thread's stream for its device (for the runtime that
/// created it). Explicit streams are never pooled; this only scopes their use.
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    let pushed = THREAD
        .try_with(|t| match t.try_borrow_mut() {
            Ok(mut t) => {
                t.overrides.push(stream.clone());
                true
            }
            Err(_) => false,
        })
        .unwrap_or(false);
    let _guard = OverrideGuard(pushed);
    f()
}

struct OverrideGuard(bool);

impl Drop for OverrideGuard {
    fn drop(&mut self) {
        if self.0 {
            let _ = THREAD.try_with(|t| {
                if let Ok(mut t) = t.try_borrow_mut() {
                    t.overrides.pop();
                }
            });
        }
    }
}

/// The calling thread's stream for (`runtime_id`, `device`): a `with_stream` override, else
/// the lease for the current priority, taken from `pool_for(priority)` at first use.
pub(crate) fn thread_stream(
    runtime_id: u64,
    device: DeviceId,
    pool_for: impl FnOnce(StreamPriority) -> Arc<StreamPool>,
) -> Result<Stream> {
    let (found, priority, scope, owner, stale) = THREAD
        .try_with(|t| {
            let Ok(mut t) = t.try_borrow_mut() else {
                return (None, StreamPriority::Normal, None, None, None);
            };
            let owner = Some(t.owner);
            if let Some(s) = t
                .overrides
                .iter()
                .rev()
                .find(|s| s.0.runtime_id == runtime_id && s.device() == device)
            {
                return (Some(s.clone()), StreamPriority::Normal, None, owner, None);
            }
            let (priority, scope) = match t.priorities.last() {
                Some(&(p, id)) => (p, Some(id)),
                None => (StreamPriority::Normal, None),
            };
            let pos = t.leases.iter().position(|l| {
                l.stream.0.runtime_id == runtime_id
                    && l.stream.device() == device
                    && l.stream.priority() == Some(priority)
            });
            let mut stale = None;
            if let Some(i) = pos {
                if t.leases[i].stream.is_valid() {
                    return (
                        Some(t.leases[i].stream.clone()),
                        priority,
                        scope,
                        owner,
                        None,
                    );
                }
                stale = Some(t.leases.swap_remove(i));
            }
            (None, priority, scope, owner, stale)
        })
        .map_err(|_| {
            crate::error::HipError::InvalidArgument(
                "the thread is exiting; use an explicit stream in thread-local destructors".into(),
            )
        })?;
    if let Some(s) = found {
        return Ok(s);
    }
    let owner = owner.ok_or_else(|| {
        crate::error::HipError::InvalidArgument(
            "the thread's stream state is in use (re-entrant call from a destructor); use an explicit stream".into(),
        )
    })?;
    if let Some(stale) = stale {
        release_all(owner, vec![stale]);
    }
    let pool = pool_for(priority);
    let stream = pool.take(owner)?;
    let lease = Lease {
        pool: Arc::downgrade(&pool),
        stream: stream.clone(),
        scope,
    };
    let pushed = THREAD.try_with(|t| match t.try_borrow_mut() {
        Ok(mut t) => {
            t.leases.push(lease);
            true
        }
        Err(_) => false,
    });
    if !matches!(pushed, Ok(true)) {
        // The thread is exiting (or re-entered): the stream cannot be kept; give it back.
        pool.release(stream.clone(), owner);
    }
    Ok(stream)
}

/// How many pooled streams the calling thread holds (for tests and diagnostics).
pub fn leased_stream_count() -> usize {
    THREAD
        .try_with(|t| t.try_borrow().map_or(0, |t| t.leases.len()))
        .unwrap_or(0)
}
