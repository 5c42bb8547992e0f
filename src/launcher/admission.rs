//! The door of a step server. Every connection that has not yet proved it knows the job's
//! secret waits here, all of them on the one thread of [`Door::serve`]; only a peer that
//! has proved itself gets a thread of its own. A waiting peer costs a descriptor and a few
//! hundred bytes, has [`Limits::handshake_timeout`] for the whole handshake, may send
//! frames of at most `step_proto::MAX_HANDSHAKE_FRAME` (refused from the header), and at
//! most [`Limits::max_pending`] wait at once. Refusals are logged through a [`Throttle`].
//!
//! Why the oldest waiting peer is dropped when the table is full: turning newcomers away
//! instead would let a stranger hold every slot with idle connections until their deadline
//! while the job's srun waits; dropping the oldest makes an idle connection worthless. But
//! a burst drained from the kernel's queue at once would then push every connection out
//! before its peer could answer, srun's among them; so a connection keeps its slot for
//! [`Limits::grace`] first, and while all are younger than that, the newcomer is turned
//! away instead. A legitimate client answers within a round trip and an HMAC (well under a
//! millisecond on loopback), so to keep srun out a flood must take over every slot faster
//! than `max_pending / grace` connections a second (12,800 with the defaults) and keep it
//! up through srun's retries (`step_proto::connect`: 7 attempts over 0.6 s). One thread
//! that does a read and a write per peer also accepts fast enough to keep the kernel's
//! queue short: a SYN dropped on a full queue waits a second for its retransmission.

use super::step_proto::{self, Control, Deadline, Frame, MAX_HANDSHAKE_FRAME};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read};
use std::net::{TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What a step server grants peers that have not authenticated.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time for the whole handshake; a peer that has not proved itself by then is dropped.
    pub handshake_timeout: Duration,
    /// Connections allowed to wait at once (a quarter of the usual 1024 descriptors).
    pub max_pending: usize,
    /// How long a waiting connection is safe from being dropped for a newcomer.
    pub grace: Duration,
    /// At most one log line about refused or dropped peers per this interval.
    pub log_every: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            handshake_timeout: step_proto::HANDSHAKE_TIMEOUT,
            max_pending: 256,
            grace: Duration::from_millis(20),
            log_every: Duration::from_secs(5),
        }
    }
}

impl Limits {
    /// For a server that peers reach through a platform's tunnel (an allocation's): the
    /// tunnel connects to the server before its far end has the greeting, so a busy
    /// manager's relay counts against the handshake; it gets the tunnel's patience.
    pub fn through_tunnel() -> Limits {
        Limits {
            handshake_timeout: step_proto::TUNNEL_HANDSHAKE_TIMEOUT,
            ..Limits::default()
        }
    }
}

/// Accepts at most this many connections between two looks at the waiting ones.
const ACCEPTS_PER_ROUND: usize = 64;

/// The handshake side of one step server.
pub struct Door<'a> {
    pub node: &'a str,
    pub secret: &'a [u8],
    pub limits: &'a Limits,
    /// How many connections wait now (updated every round).
    pub waiting: &'a AtomicUsize,
}

/// A connection in its handshake: greeted, its answer not complete yet.
struct Waiting {
    conn: TcpStream,
    peer: String,
    nonce: String,
    since: Instant,
    /// What the peer sent so far: never more than its one frame.
    got: Vec<u8>,
}

enum Progress {
    More,
    /// The peer proved itself, with this nonce of its own.
    Proved(String),
    /// Turned away, and why; true when it is worth telling the peer.
    Failed(String, bool),
}

impl Door<'_> {
    /// Serves `listener` until it fails. A peer that proves itself goes to `admitted`
    /// (its socket blocking again, without timeouts); one turned away to `refused` (peer,
    /// why), before it is answered.
    pub fn serve(
        &self,
        listener: &TcpListener,
        refused: &dyn Fn(&str, &str),
        admitted: &dyn Fn(TcpStream, String),
    ) -> std::io::Result<()> {
        listener.set_nonblocking(true)?;
        let cap = self.limits.max_pending.max(1);
        let timeout = self.limits.handshake_timeout;
        let mut waiting: VecDeque<Waiting> = VecDeque::with_capacity(cap);
        loop {
            // Oldest first, so the deadlines run out at the front.
            let now = Instant::now();
            while waiting.front().is_some_and(|w| now >= w.since + timeout) {
                if let Some(w) = waiting.pop_front() {
                    w.turn_away(
                        refused,
                        &format!("refused: no handshake within {timeout:?}"),
                    );
                }
            }
            self.waiting.store(waiting.len(), Ordering::Relaxed);
            let mut fds: Vec<libc::pollfd> = std::iter::once(listener.as_raw_fd())
                .chain(waiting.iter().map(|w| w.conn.as_raw_fd()))
                .map(|fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            let wait_ms = waiting.front().map_or(-1, |w| {
                let left = (w.since + timeout).saturating_duration_since(now);
                i32::try_from(left.as_millis() + 1).unwrap_or(i32::MAX)
            });
            // SAFETY: poll(2) on a live array of `fds.len()` pollfd entries.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            // From the back, so removing one keeps the indexes of those before it.
            for i in (0..waiting.len()).rev() {
                if fds[i + 1].revents == 0 {
                    continue;
                }
                let progress = waiting[i].progress(self.secret);
                if matches!(progress, Progress::More) {
                    continue;
                }
                let Some(w) = waiting.remove(i) else { continue };
                match progress {
                    Progress::Proved(client_nonce) => match w.welcome(self, &client_nonce) {
                        Ok((conn, peer)) => admitted(conn, peer),
                        Err((peer, e)) => refused(&peer, &format!("handshake failed: {e}")),
                    },
                    Progress::Failed(why, answer) if answer => w.turn_away(refused, &why),
                    Progress::Failed(why, _) => refused(&w.peer, &why),
                    Progress::More => {}
                }
            }
            if fds[0].revents != 0 {
                self.accept(listener, &mut waiting, cap, refused)?;
            }
        }
    }

    /// Takes in what the kernel has queued, up to a round's worth, and greets each.
    fn accept(
        &self,
        listener: &TcpListener,
        waiting: &mut VecDeque<Waiting>,
        cap: usize,
        refused: &dyn Fn(&str, &str),
    ) -> std::io::Result<()> {
        for _ in 0..ACCEPTS_PER_ROUND {
            let (conn, peer) = match listener.accept() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) => match e.raw_os_error() {
                    // Out of descriptors or memory: accept(2) would fail again at once.
                    Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM) => {
                        std::thread::sleep(Duration::from_millis(10));
                        return Ok(());
                    }
                    // The peer gave up before we took it: the next one.
                    Some(libc::ECONNABORTED | libc::EINTR | libc::EPROTO) => continue,
                    _ => return Err(e),
                },
            };
            let peer = peer.to_string();
            if waiting.len() >= cap {
                if waiting
                    .front()
                    .is_some_and(|w| w.since.elapsed() >= self.limits.grace)
                {
                    if let Some(old) = waiting.pop_front() {
                        refused(
                            &old.peer,
                            &format!(
                                "dropped: {cap} newer connections were waiting to authenticate"
                            ),
                        );
                    }
                } else {
                    refused(
                        &peer,
                        &format!("turned away: {cap} connections are waiting to authenticate"),
                    );
                    continue;
                }
            }
            match Waiting::greet(conn, peer, self.node) {
                Ok(w) => waiting.push_back(w),
                Err((peer, e)) => refused(&peer, &format!("handshake failed: {e}")),
            }
        }
        Ok(())
    }
}

impl Waiting {
    /// Sends the challenge; a fresh socket's buffer always has room for it.
    fn greet(
        conn: TcpStream,
        peer: String,
        node: &str,
    ) -> Result<Waiting, (String, std::io::Error)> {
        let nonce = step_proto::random_hex(16);
        let hello = Control::Hello {
            nonce: nonce.clone(),
            node: node.to_string(),
        };
        match conn
            .set_nonblocking(true)
            .and_then(|()| step_proto::write_control(&mut &conn, &hello))
        {
            Ok(()) => Ok(Waiting {
                conn,
                peer,
                nonce,
                since: Instant::now(),
                got: Vec::new(),
            }),
            Err(e) => Err((peer, e)),
        }
    }

    /// Reads what has arrived of the peer's one frame (never past it), and judges it once
    /// it is whole.
    fn progress(&mut self, secret: &[u8]) -> Progress {
        let mut chunk = [0u8; 1024];
        loop {
            let want = match <[u8; 5]>::try_from(self.got.get(..5).unwrap_or_default()) {
                Err(_) => 5 - self.got.len(),
                Ok(head) => match step_proto::announced_len(head, MAX_HANDSHAKE_FRAME) {
                    Ok(len) => 5 + len as usize - self.got.len(),
                    Err(e) => return Progress::Failed(format!("refused: {e}"), true),
                },
            };
            if want == 0 {
                return self.judge(secret);
            }
            let n = want.min(chunk.len());
            match (&self.conn).read(&mut chunk[..n]) {
                Ok(0) => return Progress::Failed("closed before authenticating".into(), false),
                Ok(k) => self.got.extend_from_slice(&chunk[..k]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Progress::More,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Progress::Failed(format!("handshake failed: {e}"), false),
            }
        }
    }

    fn judge(&self, secret: &[u8]) -> Progress {
        match step_proto::read_frame_within(&mut self.got.as_slice(), MAX_HANDSHAKE_FRAME) {
            Ok(Some(Frame::Control(Control::Auth { mac, nonce })))
                if step_proto::verify_client(secret, &self.nonce, &nonce, &mac) =>
            {
                Progress::Proved(nonce)
            }
            Ok(Some(Frame::Control(Control::Auth { .. }))) => {
                Progress::Failed("refused: it does not know the job's secret".into(), true)
            }
            Ok(_) => Progress::Failed("refused: it did not authenticate first".into(), true),
            Err(e) => Progress::Failed(format!("refused: {e}"), true),
        }
    }

    /// Proves the server to the peer and hands the socket over, blocking again.
    fn welcome(
        self,
        door: &Door<'_>,
        client_nonce: &str,
    ) -> Result<(TcpStream, String), (String, std::io::Error)> {
        let welcome = Control::Welcome {
            mac: step_proto::server_proof(door.secret, client_nonce, &self.nonce),
        };
        let until = self.since + door.limits.handshake_timeout;
        let conn = &self.conn;
        let done = conn
            .set_nonblocking(false)
            .and_then(|()| step_proto::write_control(&mut Deadline::new(conn, until), &welcome))
            .and_then(|()| conn.set_read_timeout(None))
            .and_then(|()| conn.set_write_timeout(None));
        match done {
            Ok(()) => Ok((self.conn, self.peer)),
            Err(e) => Err((self.peer, e)),
        }
    }

    /// Logs why (first: the job, and this process, may end right after), then says so to
    /// the peer if its socket takes it at once.
    fn turn_away(self, refused: &dyn Fn(&str, &str), why: &str) {
        refused(&self.peer, why);
        let no = Control::Refused {
            reason: "authentication failed".into(),
        };
        let _ = step_proto::write_control(&mut &self.conn, &no);
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
