//! Per-thread stream state: the thread's streams (leases from pools), its current priority,
//! and `with_stream` overrides. Leases go back to their pools when the thread exits (a
//! thread-local with a `Drop`) or when the `with_priority` scope that took them returns.
//!
//! The thread also remembers the streams it enqueued on that it no longer holds (a
//! priority scope's stream given back, an explicit stream whose `with_stream` scope ended),
//! with their generation: `synchronize` waits for those too, unless they changed hands
//! since (then their work is complete). See [`streams_to_synchronize`].

use super::StreamPriority;
use super::owner::OwnerToken;
use super::shared_stream::{Stream, StreamInner};
use super::stream_pool::StreamPool;
use crate::error::{HipError, Result};
use crate::platform::DeviceId;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::sync::{Arc, Weak};

struct Lease {
    pool: Weak<StreamPool>,
    stream: Stream,
    /// The `with_priority` scope that took it (released when that scope returns), or `None`
    /// for the thread's lifetime.
    scope: Option<u64>,
}

/// A `with_stream` override: the stream, and whether this thread may use it (not destroyed
/// when the scope began, and not another thread's pooled stream).
struct Override {
    stream: Stream,
    usable: bool,
}

/// A stream the thread enqueued on and no longer holds: (object, generation then).
type Past = (Weak<StreamInner>, u64);

/// Past streams remembered at most; beyond, the oldest are synchronised and forgotten.
const MAX_PAST: usize = 16;

struct ThreadStreams {
    owner: Option<OwnerToken>,
    leases: Vec<Lease>,
    /// Active `with_priority` scopes, innermost last: (priority, scope id).
    priorities: Vec<(StreamPriority, u64)>,
    /// Active `with_stream` overrides, innermost last.
    overrides: Vec<Override>,
    past: SmallVec<[Past; 4]>,
    next_scope: u64,
}

impl ThreadStreams {
    fn new() -> Self {
        ThreadStreams {
            owner: OwnerToken::current(),
            leases: Vec::new(),
            priorities: Vec::new(),
            overrides: Vec::new(),
            past: SmallVec::new(),
            next_scope: 1,
        }
    }

    /// Remember that the thread enqueued on `stream` and no longer holds it. Returns a past
    /// stream pushed out by the cap (to synchronise now, outside the thread state).
    fn remember(&mut self, stream: &Stream) -> Option<Stream> {
        let weak = Arc::downgrade(&stream.0);
        self.past
            .retain(|p| p.0.strong_count() > 0 && !Weak::ptr_eq(&p.0, &weak));
        self.past.push((weak, stream.generation()));
        if self.past.len() <= MAX_PAST {
            return None;
        }
        let (oldest, generation) = self.past.remove(0);
        let s = Stream(oldest.upgrade()?);
        (s.generation() == generation).then_some(s)
    }
}

impl Drop for ThreadStreams {
    fn drop(&mut self) {
        if let Some(owner) = self.owner {
            release_all(owner, std::mem::take(&mut self.leases));
        }
    }
}

fn release_all(owner: OwnerToken, leases: Vec<Lease>) {
    for lease in leases {
        if let Some(pool) = lease.pool.upgrade() {
            pool.release(lease.stream, owner);
        }
    }
}

/// Block until `stream`'s work is done, logging a failure (a best-effort wait on a path that
/// cannot return errors).
fn synchronize_quietly(stream: &Stream) {
    if let Err(e) = stream.synchronize() {
        tracing::debug!(stream = %stream.handle(), error = %e, "synchronising a stream the thread no longer holds failed");
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
            let spilled: Vec<Stream> = THREAD
                .try_with(|t| {
                    let Ok(mut t) = t.try_borrow_mut() else {
                        return Vec::new();
                    };
                    mine.iter().filter_map(|l| t.remember(&l.stream)).collect()
                })
                .unwrap_or_default();
            spilled.iter().for_each(synchronize_quietly);
            if let Some(owner) = owner {
                release_all(owner, mine);
            }
        }
    }
}

/// Run `f` with `stream` as the calling thread's stream for its device (for the runtime that
/// created it). Explicit streams are never pooled; this only scopes their use.
///
/// While the scope runs, the stream cannot be destroyed ([`Stream::destroy`] refuses). A
/// stream destroyed before the scope began, or a pooled stream another thread holds, is not
/// used: operations inside the scope fail with [`HipError::StreamUnusable`] instead.
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    let counted = stream.begin_scope();
    let pushed = THREAD
        .try_with(|t| match t.try_borrow_mut() {
            Ok(mut t) => {
                let usable = counted && stream.usable_by(t.owner);
                t.overrides.push(Override {
                    stream: stream.clone(),
                    usable,
                });
                true
            }
            Err(_) => false,
        })
        .unwrap_or(false);
    let _guard = OverrideGuard {
        stream: stream.clone(),
        pushed,
    };
    f()
}

struct OverrideGuard {
    stream: Stream,
    pushed: bool,
}

impl Drop for OverrideGuard {
    fn drop(&mut self) {
        if self.pushed {
            let spilled = THREAD
                .try_with(|t| {
                    let mut t = t.try_borrow_mut().ok()?;
                    let o = t.overrides.pop()?;
                    if o.usable {
                        t.remember(&o.stream)
                    } else {
                        None
                    }
                })
                .ok()
                .flatten();
            if let Some(s) = spilled {
                synchronize_quietly(&s);
            }
        }
        self.stream.end_scope();
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
                return Err(HipError::InvalidArgument(
                    "the thread's stream state is in use (re-entrant call from a destructor); use an explicit stream".into(),
                ));
            };
            let owner = t.owner;
            if let Some(o) = t
                .overrides
                .iter()
                .rev()
                .find(|o| o.stream.runtime_id() == runtime_id && o.stream.device() == device)
            {
                if !o.usable || !o.stream.is_valid() {
                    return Err(HipError::StreamUnusable {
                        device,
                        stream: o.stream.handle().0,
                        reason: "the with_stream scope's stream was destroyed, or is a pooled \
                                 stream another thread holds (use an explicit stream)"
                            .into(),
                    });
                }
                return Ok((Some(o.stream.clone()), StreamPriority::Normal, None, owner, None));
            }
            let (priority, scope) = match t.priorities.last() {
                Some(&(p, id)) => (p, Some(id)),
                None => (StreamPriority::Normal, None),
            };
            let pos = t.leases.iter().position(|l| {
                l.stream.runtime_id() == runtime_id
                    && l.stream.device() == device
                    && l.stream.priority() == Some(priority)
            });
            let mut stale = None;
            if let Some(i) = pos {
                if t.leases[i].stream.is_valid() {
                    return Ok((
                        Some(t.leases[i].stream.clone()),
                        priority,
                        scope,
                        owner,
                        None,
                    ));
                }
                stale = Some(t.leases.swap_remove(i));
            }
            Ok((None, priority, scope, owner, stale))
        })
        .map_err(|_| {
            HipError::InvalidArgument(
                "the thread is exiting; use an explicit stream in thread-local destructors".into(),
            )
        })??;
    if let Some(s) = found {
        return Ok(s);
    }
    let owner = owner.ok_or_else(|| {
        HipError::InvalidArgument(
            "the thread is exiting; use an explicit stream in thread-local destructors".into(),
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
        // The thread is exiting (or re-entered): it cannot keep the stream, so it must not
        // use it either — give it back and say so (never release and still return it).
        pool.release(stream, owner);
        return Err(HipError::InvalidArgument(
            "the thread is exiting; use an explicit stream in thread-local destructors".into(),
        ));
    }
    Ok(stream)
}

/// Every stream on (`runtime_id`, `device`) the calling thread may have enqueued work on
/// and whose work is not known to be complete: its leases of every priority, its active
/// `with_stream` overrides, and the streams it held earlier (a priority scope's stream, an
/// explicit stream of an ended scope) while their generation is unchanged. Those earlier
/// streams are forgotten by this call (the caller synchronises them now).
pub(crate) fn streams_to_synchronize(runtime_id: u64, device: DeviceId) -> SmallVec<[Stream; 4]> {
    THREAD
        .try_with(|t| {
            let Ok(mut t) = t.try_borrow_mut() else {
                return SmallVec::new();
            };
            let mut out: SmallVec<[Stream; 4]> = SmallVec::new();
            let mine = |s: &Stream| s.runtime_id() == runtime_id && s.device() == device;
            let mut add = |s: Stream| {
                if !out.iter().any(|o| o.same_as(&s)) {
                    out.push(s);
                }
            };
            for l in t.leases.iter().filter(|l| mine(&l.stream)) {
                add(l.stream.clone());
            }
            for o in t.overrides.iter().filter(|o| o.usable && mine(&o.stream)) {
                add(o.stream.clone());
            }
            t.past.retain(|(weak, generation)| {
                let Some(inner) = weak.upgrade() else {
                    return false;
                };
                let s = Stream(inner);
                if !mine(&s) {
                    return true;
                }
                if s.generation() == *generation && s.is_valid() {
                    add(s);
                }
                false
            });
            out
        })
        .unwrap_or_default()
}

/// How many pooled streams the calling thread holds (for tests and diagnostics).
pub fn leased_stream_count() -> usize {
    THREAD
        .try_with(|t| t.try_borrow().map_or(0, |t| t.leases.len()))
        .unwrap_or(0)
}
