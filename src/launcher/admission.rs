//! What a step server grants a peer before it has proved it knows the job's secret: a
//! bounded number of handshake slots, a deadline (`step_proto::HANDSHAKE_TIMEOUT`), and a
//! rate-limited line in the log when it fails.
//!
//! Why the oldest waiting peer is the one dropped when the slots are full: refusing the
//! newcomer instead would let a stranger hold every slot with idle connections until their
//! deadline, and the job's own srun would wait that long. A legitimate client finishes its
//! handshake in two round trips on the job's network (well under a millisecond on
//! loopback); to push it out a flood must get `max_pending` newer connections accepted in
//! that time. Should that still happen, srun sees its connection end and retries at once
//! with a short backoff (`step_proto::connect`). Authenticated connections hold no slot and
//! are never dropped: a step that runs for days is not at the mercy of a flood.

use std::collections::VecDeque;
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The limits a step server puts on peers that have not authenticated.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time for the whole handshake; a peer that has not proved itself by then is dropped.
    pub handshake_timeout: Duration,
    /// Connections allowed to be in their handshake at once (one thread and one descriptor
    /// each); a newcomer beyond this drops the oldest.
    pub max_pending: usize,
    /// At most one log line about refused or dropped peers per this interval.
    pub log_every: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            handshake_timeout: super::step_proto::HANDSHAKE_TIMEOUT,
            max_pending: 128,
            log_every: Duration::from_secs(5),
        }
    }
}

/// The connections still in their handshake, oldest first.
#[derive(Clone, Default)]
pub struct Admission(Arc<Mutex<Pending>>);

#[derive(Default)]
struct Pending {
    next_id: u64,
    conns: VecDeque<(u64, Arc<TcpStream>)>,
}

impl Admission {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        // Nothing in the table can be left half-changed by a panic: go on with it.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Gives a new connection a slot, first dropping the oldest waiting one when all `cap`
    /// are taken (its socket is shut down, so its thread's read ends at once).
    pub fn admit(&self, conn: Arc<TcpStream>, cap: usize) -> Slot {
        let mut p = self.lock();
        while p.conns.len() >= cap.max(1) {
            if let Some((_, old)) = p.conns.pop_front() {
                let _ = old.shutdown(Shutdown::Both);
            }
        }
        let id = p.next_id;
        p.next_id += 1;
        p.conns.push_back((id, conn));
        Slot {
            admission: self.clone(),
            id,
            held: true,
        }
    }

    /// How many connections are in their handshake now.
    pub fn waiting(&self) -> usize {
        self.lock().conns.len()
    }

    fn remove(&self, id: u64) -> bool {
        let mut p = self.lock();
        match p.conns.iter().position(|(i, _)| *i == id) {
            Some(at) => {
                p.conns.remove(at);
                true
            }
            None => false,
        }
    }

    fn holds(&self, id: u64) -> bool {
        self.lock().conns.iter().any(|(i, _)| *i == id)
    }
}

/// A connection's place among the waiting ones; given back when dropped.
pub struct Slot {
    admission: Admission,
    id: u64,
    held: bool,
}

impl Slot {
    /// The peer has authenticated: it leaves the table and can no longer be dropped.
    /// False when it was dropped first (its socket is already shut down).
    pub fn settle(&mut self) -> bool {
        self.held = false;
        self.admission.remove(self.id)
    }

    /// Whether a newer connection took this one's place.
    pub fn dropped(&self) -> bool {
        self.held && !self.admission.holds(self.id)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.held {
            self.admission.remove(self.id);
        }
    }
}

/// Lets one line through per interval and counts the ones it held back.
#[derive(Debug)]
pub struct Throttle {
    every: Duration,
    last: Option<Instant>,
    held: u64,
}

impl Throttle {
    pub fn new(every: Duration) -> Throttle {
        Throttle {
            every,
            last: None,
            held: 0,
        }
    }

    /// `Some(n)` when a line may go out now (`n` lines were held back since the last one),
    /// None when this one is to be held back.
    pub fn pass(&mut self, now: Instant) -> Option<u64> {
        if self
            .last
            .is_some_and(|t| now.saturating_duration_since(t) < self.every)
        {
            self.held += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.held))
    }

    /// The lines held back and never reported (at the end of the job).
    pub fn take_held(&mut self) -> u64 {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    /// `n` real connections: (our end, the server's end).
    fn pairs(n: usize) -> Vec<(TcpStream, Arc<TcpStream>)> {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        (0..n)
            .map(|_| {
                let c = TcpStream::connect(addr).unwrap();
                (c, Arc::new(l.accept().unwrap().0))
            })
            .collect()
    }

    #[test]
    fn a_full_table_drops_its_oldest() {
        let a = Admission::default();
        let mut conns = pairs(5);
        let mut slots: Vec<Slot> = conns
            .iter()
            .map(|(_, s)| a.admit(Arc::clone(s), 3))
            .collect();
        assert_eq!(a.waiting(), 3);
        // The two oldest were shut down: their peers read the end; the others are open.
        for (i, (ours, _)) in conns.iter_mut().enumerate() {
            ours.set_read_timeout(Some(Duration::from_millis(100)))
                .unwrap();
            let got = ours.read(&mut [0u8; 1]);
            if i < 2 {
                assert_eq!(got.unwrap(), 0, "connection {i} should have been dropped");
                assert!(slots[i].dropped() && !slots[i].settle());
            } else {
                assert!(got.is_err(), "connection {i} should still be open");
                assert!(!slots[i].dropped());
            }
        }
        // A settled slot is out of the table and never dropped; a dropped Slot frees its place.
        assert!(slots[2].settle());
        assert_eq!(a.waiting(), 2);
        drop(slots.pop());
        assert_eq!(a.waiting(), 1);
        // Dropping a slot that was already dropped from the table changes nothing.
        drop(slots.remove(0));
        assert_eq!(a.waiting(), 1);
    }

    #[test]
    fn the_throttle_counts_what_it_held_back() {
        let mut t = Throttle::new(Duration::from_secs(5));
        let t0 = Instant::now();
        assert_eq!(t.pass(t0), Some(0));
        for i in 1..=9 {
            assert_eq!(t.pass(t0 + Duration::from_millis(i * 100)), None);
        }
        assert_eq!(t.pass(t0 + Duration::from_secs(5)), Some(9));
        assert_eq!(t.pass(t0 + Duration::from_secs(6)), None);
        assert_eq!(t.take_held(), 1);
        assert_eq!(t.take_held(), 0);
    }
}
