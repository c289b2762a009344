//! The test double's race detector: flags a write or a free of device memory that is not
//! ordered after another stream's use still possibly in flight, and a read unordered after
//! another stream's write.
//!
//! "Ordered after" is happens-before on the device, tracked with vector clocks: every stream
//! operation gets a sequence number on its stream; a stream's clock says which operations
//! of every stream precede its next one (its own earlier ones, those before any event it
//! waited for, and those the host saw complete). The host's knowledge is one clock: what a
//! query or a synchronize saw complete is complete for every later enqueue, from any
//! thread — it really has finished. Work that merely finished by the clock without anyone
//! looking does not count: code relying on that would be racing on a real GPU.
//!
//! Each allocation keeps the accesses that may still matter (stream, sequence, read or
//! write). A new access by stream S with clock C conflicts with an access (T, n) of another
//! stream if either writes and C[T] < n. Accesses are forgotten when the host saw them
//! complete, when a write ordered after them replaces them, or when a later access of the
//! same stream covers them. A kernel's accesses are the device addresses among its
//! parameters, read or written as the runtime declared ([`crate::platform::access_declarations`];
//! undeclared addresses count as writes); copies, memsets, allocations and frees say so
//! themselves.

use smallvec::SmallVec;
use std::collections::BTreeMap;

/// What is known to precede something: (stream uid, last sequence number) pairs, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Clock(SmallVec<[(u64, u64); 6]>);

impl Clock {
    /// The last operation of stream `uid` known to precede.
    pub fn get(&self, uid: u64) -> u64 {
        match self.0.binary_search_by_key(&uid, |e| e.0) {
            Ok(i) => self.0[i].1,
            Err(_) => 0,
        }
    }

    /// Raise the entry of `uid` to at least `seq`.
    pub fn set(&mut self, uid: u64, seq: u64) {
        match self.0.binary_search_by_key(&uid, |e| e.0) {
            Ok(i) => self.0[i].1 = self.0[i].1.max(seq),
            Err(i) => self.0.insert(i, (uid, seq)),
        }
    }

    /// Everything `other` knows, this knows too.
    pub fn join(&mut self, other: &Clock) {
        for &(uid, seq) in &other.0 {
            if self.get(uid) < seq {
                self.set(uid, seq);
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Access {
    stream: u64,
    seq: u64,
    write: bool,
    what: &'static str,
}

/// Accesses per allocation, the host's clock, and the races found.
#[derive(Debug, Default)]
pub(crate) struct RaceDetector {
    pub enabled: bool,
    host: Clock,
    accesses: BTreeMap<u64, SmallVec<[Access; 4]>>,
    races: Vec<String>,
}

impl RaceDetector {
    /// What the host saw complete.
    pub fn host_clock(&self) -> &Clock {
        &self.host
    }

    /// The host saw stream `uid`'s operations up to `seq` complete.
    pub fn observe(&mut self, uid: u64, seq: u64) {
        self.host.set(uid, seq);
    }

    /// The host saw everything `clock` covers complete.
    pub fn observe_clock(&mut self, clock: &Clock) {
        self.host.join(clock);
    }

    /// Stream `uid`'s operation `seq`, which comes after `clock`, touches allocation `base`.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        uid: u64,
        handle: u64,
        seq: u64,
        clock: &Clock,
        base: u64,
        write: bool,
        what: &'static str,
    ) {
        if !self.enabled {
            return;
        }
        let host = &self.host;
        let list = self.accesses.entry(base).or_default();
        for a in list.iter() {
            if a.stream == uid || !(write || a.write) {
                continue;
            }
            if clock.get(a.stream) < a.seq && host.get(a.stream) < a.seq {
                self.races.push(format!(
                    "allocation {base:#x}: {} ({}) on stream {handle:#x} (#{uid}, op {seq}) is not \
                     ordered after the {} ({}) on stream #{} (op {}), which may still be in flight",
                    what,
                    if write { "write" } else { "read" },
                    a.what,
                    if a.write { "write" } else { "read" },
                    a.stream,
                    a.seq
                ));
            }
        }
        list.retain(|a| {
            let seen = host.get(a.stream) >= a.seq;
            let covered = write && clock.get(a.stream) >= a.seq;
            let same_stream_read = a.stream == uid && (!a.write || write);
            !(seen || covered || same_stream_read)
        });
        list.push(Access {
            stream: uid,
            seq,
            write,
            what,
        });
    }

    /// Forget an allocation's accesses (after its free was checked).
    pub fn forget(&mut self, base: u64) {
        self.accesses.remove(&base);
    }

    /// The races found so far.
    pub fn races(&self) -> Vec<String> {
        self.races.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(entries: &[(u64, u64)]) -> Clock {
        let mut c = Clock::default();
        for &(u, s) in entries {
            c.set(u, s);
        }
        c
    }

    fn detector() -> RaceDetector {
        RaceDetector {
            enabled: true,
            ..RaceDetector::default()
        }
    }

    #[test]
    fn concurrent_reads_are_fine_an_unordered_write_is_not() {
        let mut d = detector();
        d.access(1, 0x10, 1, &clock(&[(1, 1)]), 0x100, false, "kernel");
        d.access(2, 0x20, 1, &clock(&[(2, 1)]), 0x100, false, "kernel");
        assert!(d.races().is_empty());
        d.access(3, 0x30, 1, &clock(&[(3, 1), (1, 1)]), 0x100, true, "kernel");
        assert_eq!(d.races().len(), 1, "not ordered after stream 2's read");
        assert!(d.races()[0].contains("stream #2"), "{:?}", d.races());
    }

    #[test]
    fn a_write_ordered_after_every_use_or_seen_complete_is_fine() {
        let mut d = detector();
        d.access(1, 0x10, 1, &clock(&[(1, 1)]), 0x100, false, "kernel");
        d.access(2, 0x20, 1, &clock(&[(2, 1)]), 0x100, false, "kernel");
        d.observe(2, 1);
        d.access(3, 0x30, 1, &clock(&[(3, 1), (1, 1)]), 0x100, true, "free");
        assert!(d.races().is_empty(), "{:?}", d.races());
        // The write covers both reads: a later read ordered after the write only is fine.
        d.access(
            4,
            0x40,
            1,
            &clock(&[(4, 1), (3, 1)]),
            0x100,
            false,
            "kernel",
        );
        assert!(d.races().is_empty(), "{:?}", d.races());
    }

    #[test]
    fn a_read_unordered_after_a_write_is_a_race() {
        let mut d = detector();
        d.access(1, 0x10, 5, &clock(&[(1, 5)]), 0x100, true, "copy");
        d.access(
            2,
            0x20,
            1,
            &clock(&[(2, 1), (1, 4)]),
            0x100,
            false,
            "kernel",
        );
        assert_eq!(d.races().len(), 1);
    }
}
