//! The wire protocol between `srun` and the step servers of a job.
//!
//! Frames: one type byte, a big-endian u32 length, the payload. Control messages are JSON;
//! task output travels as raw bytes (rank, stream, data) so nothing is re-encoded.
//!
//! Authentication is mutual challenge-response with the job's secret, which never crosses
//! the network: the server sends a random nonce, the client answers with HMAC-SHA256 over
//! both nonces and its own nonce, and the server proves itself the same way (with another
//! label, so neither answer can be replayed as the other). Only then may the client ask for
//! anything. srun authenticates the step servers this way, and they it; the launcher of
//! node 0 checks the other nodes' servers the same way when it starts them.

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const CONTROL: u8 = 0;
const OUTPUT: u8 = 1;
/// Frames bigger than this are refused (a corrupt or hostile peer), between authenticated
/// peers.
const MAX_FRAME: u32 = 16 << 20;
/// Before authentication only the handshake's own frames travel, a few hundred bytes each:
/// anything bigger is refused from its header, before a byte of it is read or allocated.
pub const MAX_HANDSHAKE_FRAME: u32 = 4 << 10;
/// How long either side has for the whole handshake (connect, greeting, proofs).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Pauses before srun tries a failed handshake again (see [`connect`]).
const RETRY_DELAYS_MS: [u64; 6] = [10, 20, 40, 80, 160, 320];
/// The same through a platform's tunnel, whose manager may close a connection it could not
/// relay and do better a moment later (seen under load in CI).
const TUNNEL_RETRY_DELAYS_MS: [u64; 3] = [250, 1000, 2000];

/// What a task is: its place in the step and what it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSpec {
    pub rank: u32,
    pub local_rank: u32,
    pub argv: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: String,
    /// Where stdout/stderr go on the node when not streamed back (`-o`/`-e` patterns,
    /// already expanded); None streams them to srun.
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// Both streams go back to one file srun writes: one pipe for both, so that the file
    /// holds them in the order the task wrote them.
    #[serde(default)]
    pub merged: bool,
    /// `--task-prolog`/`--task-epilog`: run around this task on its node.
    #[serde(default)]
    pub prolog: Option<String>,
    #[serde(default)]
    pub epilog: Option<String>,
    /// Word slurmstepd's messages as 24.11 does (see `JobEnvDeltas::step_messages_24`).
    #[serde(default)]
    pub messages_24: bool,
    /// srun's soft limits the task takes (`--propagate`; all by default).
    #[serde(default)]
    pub rlimits: Vec<crate::model::rlimit::Propagated>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Control {
    /// Server -> client, first: the challenge.
    Hello { nonce: String, node: String },
    /// Client -> server: its proof ([`client_proof`]) and its own nonce.
    Auth { mac: String, nonce: String },
    /// Server -> client, after a good Auth: the server's proof ([`server_proof`]).
    Welcome { mac: String },
    /// Client -> server: are you there (and the job's)? Answered with Ok.
    Ping,
    /// Client -> server (node 0): give the new step an id and record it as running.
    AllocateStep {
        name: String,
        ntasks: u32,
        nnodes: u32,
        nodes: String,
        cpus: u32,
    },
    /// Server -> client: the step's id.
    StepAllocated { step_id: u32 },
    /// Client -> server (node 0): record how the step ended.
    FinishStep {
        step_id: u32,
        state: String,
        code: i32,
        signal: i32,
        /// Who cancelled it (srun's user, aborting a step it could not start).
        #[serde(default)]
        cancelled_by: Option<u32>,
    },
    /// Client -> server (node 0 of an allocation made from the login node, salloc's or
    /// srun's): the allocation is given back with this exit status; the job ends.
    Release { code: i32, signal: i32 },
    /// Client -> server (node 0, from the login node through Backend.AI's tunnel): what
    /// `scancel` asks of a running job, as slurmctld asks slurmstepd.
    SignalJob(JobSignal),
    /// Client -> server (node 0, through the tunnel): `scontrol notify`'s message for the
    /// batch job's error stream.
    Notify { message: String },
    /// Server -> client: done.
    Ok,
    /// Client -> server: start these tasks of step `step_id` on this node (with a PMI
    /// server for them when `pmi` is given).
    Launch {
        step_id: u32,
        tasks: Vec<TaskSpec>,
        #[serde(default)]
        pmi: Option<super::pmi::PmiJob>,
        /// `srun --pty`: task 0 runs on a terminal of this size.
        #[serde(default)]
        pty: Option<super::pty::WindowSize>,
    },
    /// Server -> client: every local rank is in a PMI barrier; these are the node's new puts.
    PmiFence { kvs: Vec<(String, String)> },
    /// Client -> server: every node's puts; the barrier is over.
    PmiFenceDone { kvs: Vec<(String, String)> },
    /// Client -> server: deliver a signal to every task of this connection's step.
    Signal { signal: i32 },
    /// Client -> server: cancel this connection's tasks as slurmstepd cancels a step:
    /// SIGCONT and SIGTERM, then SIGKILL after `kill_wait` seconds.
    Cancel {
        job_id: u32,
        step_id: u32,
        kill_wait: u32,
        /// SIGKILL at once (srun aborting a step it could not start, as
        /// `slurm_step_launch_abort` does), not SIGCONT and SIGTERM first.
        #[serde(default)]
        at_once: bool,
    },
    /// Server -> client: a line for srun's stderr from the step server itself.
    Message { text: String },
    /// Client -> server: data for task 0's stdin; empty = end of input.
    Stdin { data: Vec<u8> },
    /// Client -> server: srun's terminal has a new size (`--pty`).
    Resize { size: super::pty::WindowSize },
    /// Server -> client: the tasks run, with their pids.
    Started { pids: Vec<(u32, i32)> },
    /// Server -> client: a task ended (raw wait status).
    Exited { rank: u32, status: i32 },
    /// Server -> client: a task could not be launched (Slurm's `RESPONSE_LAUNCH_TASKS`
    /// with a return code): it counts as exited 0, and srun says why.
    LaunchFailed { rank: u32, error: String },
    /// Server -> client: the request cannot be served.
    Refused { reason: String },
}

/// `scancel`'s request to a running job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSignal {
    /// None: cancel the job (slurmstepd's CANCELLED line, SIGTERM, SIGKILL after KillWait).
    pub signal: Option<i32>,
    /// `-b`: the batch shell alone.
    pub batch_only: bool,
    /// `-f`: the batch shell, its children and every step.
    pub full: bool,
}

/// One frame read from a peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Control(Control),
    Output {
        rank: u32,
        stderr: bool,
        data: Vec<u8>,
    },
}

pub fn write_control(w: &mut impl Write, msg: &Control) -> std::io::Result<()> {
    let mut frame = vec![CONTROL, 0, 0, 0, 0];
    serde_json::to_writer(&mut frame, msg).map_err(std::io::Error::other)?;
    write_frame(w, frame)
}

pub fn write_output(
    w: &mut impl Write,
    rank: u32,
    stderr: bool,
    data: &[u8],
) -> std::io::Result<()> {
    let mut frame = Vec::with_capacity(data.len() + 10);
    frame.extend_from_slice(&[OUTPUT, 0, 0, 0, 0]);
    frame.extend_from_slice(&rank.to_be_bytes());
    frame.push(u8::from(stderr));
    frame.extend_from_slice(data);
    write_frame(w, frame)
}

/// Sends a frame whose first five bytes are left for its header, in one write: a header
/// and a body written apart meet Nagle's algorithm and the peer's delayed ACK, and each
/// small frame (every handshake message) waited 40 ms for it.
fn write_frame(w: &mut impl Write, mut frame: Vec<u8>) -> std::io::Result<()> {
    let len = u32::try_from(frame.len() - 5).map_err(std::io::Error::other)?;
    frame[1..5].copy_from_slice(&len.to_be_bytes());
    w.write_all(&frame)?;
    w.flush()
}

/// Reads the next frame; `Ok(None)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Frame>> {
    read_frame_within(r, MAX_FRAME)
}

/// The length a frame's header announces, or an error when it is longer than `max`.
pub fn announced_len(head: [u8; 5], max: u32) -> std::io::Result<u32> {
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("frame too large ({len} bytes, at most {max})"),
        ));
    }
    Ok(len)
}

/// Reads the next frame, refusing one longer than `max` from its header alone.
pub fn read_frame_within(r: &mut impl Read, max: u32) -> std::io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = announced_len(head, max)?;
    // The buffer grows with what arrives, not with what the header claims.
    let mut body = Vec::with_capacity((len as usize).min(64 << 10));
    r.by_ref().take(u64::from(len)).read_to_end(&mut body)?;
    if body.len() != len as usize {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    match head[0] {
        CONTROL => serde_json::from_slice(&body)
            .map(|c| Some(Frame::Control(c)))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        OUTPUT if body.len() >= 5 => Ok(Some(Frame::Output {
            rank: u32::from_be_bytes([body[0], body[1], body[2], body[3]]),
            stderr: body[4] != 0,
            data: body[5..].to_vec(),
        })),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "unknown frame",
        )),
    }
}

fn mac_of(secret: &[u8], label: &str, first: &str, second: &str) -> Hmac<Sha256> {
    let mut mac =
        <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("HMAC takes keys of any size");
    for part in [label, first, second] {
        mac.update(&(part.len() as u32).to_be_bytes());
        mac.update(part.as_bytes());
    }
    mac
}

/// What a client sends to prove it knows the secret: HMAC("client", server nonce, own nonce).
pub fn client_proof(secret: &[u8], server_nonce: &str, client_nonce: &str) -> String {
    hex::encode(
        mac_of(secret, "client", server_nonce, client_nonce)
            .finalize()
            .into_bytes(),
    )
}

/// What a server sends back: HMAC("server", client nonce, own nonce).
pub fn server_proof(secret: &[u8], client_nonce: &str, server_nonce: &str) -> String {
    hex::encode(
        mac_of(secret, "server", client_nonce, server_nonce)
            .finalize()
            .into_bytes(),
    )
}

fn check(mac: Hmac<Sha256>, mac_hex: &str) -> bool {
    hex::decode(mac_hex).is_ok_and(|given| mac.verify_slice(&given).is_ok())
}

/// Checks a client's proof in constant time.
pub fn verify_client(secret: &[u8], server_nonce: &str, client_nonce: &str, mac: &str) -> bool {
    client_nonce.len() >= 32 && check(mac_of(secret, "client", server_nonce, client_nonce), mac)
}

/// Checks a server's proof in constant time.
pub fn verify_server(secret: &[u8], client_nonce: &str, server_nonce: &str, mac: &str) -> bool {
    check(mac_of(secret, "server", client_nonce, server_nonce), mac)
}

/// The client's side of the handshake on a fresh connection: reads the greeting, proves the
/// secret, checks the server's proof. Returns the node name the server gave.
pub fn client_handshake(
    reader: &mut impl Read,
    writer: &mut impl Write,
    secret: &[u8],
) -> std::io::Result<String> {
    let (server_nonce, node) = match read_frame_within(reader, MAX_HANDSHAKE_FRAME)? {
        Some(Frame::Control(Control::Hello { nonce, node })) => (nonce, node),
        _ => return Err(std::io::Error::other("the step server did not greet")),
    };
    let nonce = random_hex(16);
    write_control(
        writer,
        &Control::Auth {
            mac: client_proof(secret, &server_nonce, &nonce),
            nonce: nonce.clone(),
        },
    )?;
    match read_frame_within(reader, MAX_HANDSHAKE_FRAME)? {
        Some(Frame::Control(Control::Welcome { mac }))
            if verify_server(secret, &nonce, &server_nonce, &mac) =>
        {
            Ok(node)
        }
        Some(Frame::Control(Control::Welcome { .. })) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the step server does not know the job's secret",
        )),
        Some(Frame::Control(Control::Refused { reason })) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            reason,
        )),
        _ => Err(std::io::Error::other("the step server did not answer")),
    }
}

fn getrandom(buf: &mut [u8]) -> bool {
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: getrandom(2) writes at most `rest.len()` bytes into `rest`.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n > 0 {
            filled += n as usize;
        } else if n == 0
            || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            return false;
        }
    }
    true
}

/// One side of a socket during the handshake: every read and write must end by one
/// deadline for the whole exchange, so a peer trickling a byte at a time gains nothing.
pub struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl<'a> Deadline<'a> {
    pub fn new(stream: &'a TcpStream, until: Instant) -> Deadline<'a> {
        Deadline { stream, until }
    }

    fn left(&self) -> std::io::Result<Duration> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        Ok(left)
    }
}

fn timed_out() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "handshake timed out")
}

/// A socket timeout says EAGAIN; the handshake says what it means.
fn as_timeout(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::WouldBlock {
        timed_out()
    } else {
        e
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.stream.set_read_timeout(Some(self.left()?))?;
        let mut s = self.stream;
        s.read(buf).map_err(as_timeout)
    }
}

impl Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.set_write_timeout(Some(self.left()?))?;
        let mut s = self.stream;
        s.write(buf).map_err(as_timeout)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Connects to a step server and authenticates (both ways) within [`HANDSHAKE_TIMEOUT`];
/// returns the socket, its timeouts cleared, and the node name the server gave.
///
/// A server with all its handshake slots taken drops its oldest unauthenticated peer, or
/// turns the newcomer away (`launcher::admission`), so under a flood of strangers a
/// legitimate client can, rarely, be the one let go: it then sees its connection end and
/// tries again at once, with a short backoff (10 ms doubling, about 0.6 s in all). Nothing
/// but the handshake is repeated, so no request is ever sent twice. A wrong secret, nobody
/// listening or a server that let the whole deadline pass are not retried.
pub fn connect(addr: &str, secret: &[u8]) -> std::io::Result<(TcpStream, String)> {
    connect_within(addr, secret, HANDSHAKE_TIMEOUT)
}

/// How long a handshake through a platform's tunnel may take: the server answers only once
/// the tunnel is up (a busy manager's websocket upgrade took 0.5-16 s on the test stacks).
pub const TUNNEL_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// One request to a step server and its answer (a refusal as an error); also says which
/// address this process reached the server from.
pub fn request(
    addr: &str,
    secret: &[u8],
    patience: Duration,
    msg: &Control,
) -> std::io::Result<(Control, String)> {
    let (stream, _) = connect_within(addr, secret, patience)?;
    let me = stream
        .local_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_default();
    write_control(&mut &stream, msg)?;
    match read_frame(&mut std::io::BufReader::new(&stream))? {
        Some(Frame::Control(Control::Refused { reason })) => Err(std::io::Error::other(reason)),
        Some(Frame::Control(c)) => Ok((c, me)),
        _ => Err(std::io::Error::other("no answer from the step server")),
    }
}

/// [`connect`] with more time for each handshake: a server reached through a platform's
/// tunnel answers only once the tunnel is up (a websocket upgrade by a busy manager).
pub fn connect_within(
    addr: &str,
    secret: &[u8],
    patience: Duration,
) -> std::io::Result<(TcpStream, String)> {
    let tunnel = patience >= TUNNEL_HANDSHAKE_TIMEOUT;
    let mut delays = if tunnel {
        TUNNEL_RETRY_DELAYS_MS.iter()
    } else {
        RETRY_DELAYS_MS.iter()
    };
    loop {
        match connect_once(addr, secret, patience) {
            Ok(c) => return Ok(c),
            // Through a tunnel a handshake that timed out is tried again on a new one (a
            // 23.09 manager left an upgrade unanswered now and then, seen under load).
            Err(e) if retryable(&e) || (tunnel && e.kind() == std::io::ErrorKind::TimedOut) => {
                match delays.next() {
                    Some(ms) => std::thread::sleep(Duration::from_millis(*ms)),
                    None => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

fn retryable(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    !matches!(
        e.kind(),
        PermissionDenied | ConnectionRefused | TimedOut | WouldBlock | InvalidInput
    )
}

fn connect_once(
    addr: &str,
    secret: &[u8],
    patience: Duration,
) -> std::io::Result<(TcpStream, String)> {
    let until = Instant::now() + patience;
    let to = std::net::ToSocketAddrs::to_socket_addrs(addr)?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))?;
    let stream = TcpStream::connect_timeout(&to, patience)?;
    let node = client_handshake(
        &mut Deadline::new(&stream, until),
        &mut Deadline::new(&stream, until),
        secret,
    )?;
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    Ok((stream, node))
}

/// A fresh random value, hex: nonces and job secrets.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The kernel's generator: no userspace state to get wrong. getrandom(2) needs no file
    // descriptor, so a peer exhausting ours cannot make a nonce predictable.
    if !getrandom(&mut buf)
        && std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut buf))
            .is_err()
    {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        buf.iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = (t.as_nanos() >> (i % 16)) as u8 ^ i as u8);
    }
    hex::encode(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let mut buf = Vec::new();
        write_control(
            &mut buf,
            &Control::Exited {
                rank: 3,
                status: 7 << 8,
            },
        )
        .unwrap();
        write_output(&mut buf, 1, true, b"oops\n").unwrap();
        let mut r = buf.as_slice();
        assert_eq!(
            read_frame(&mut r).unwrap(),
            Some(Frame::Control(Control::Exited {
                rank: 3,
                status: 7 << 8
            }))
        );
        assert_eq!(
            read_frame(&mut r).unwrap(),
            Some(Frame::Output {
                rank: 1,
                stderr: true,
                data: b"oops\n".to_vec()
            })
        );
        assert_eq!(read_frame(&mut r).unwrap(), None);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bad in [
            &[9u8, 0, 0, 0, 1, 0][..],
            &[0, 0xff, 0xff, 0xff, 0xff],
            &[0, 0, 0, 0, 2, b'{', b'x'],
            &[1, 0, 0, 0, 1, 0],
        ] {
            assert!(read_frame(&mut &bad[..]).is_err(), "{bad:?}");
        }
    }

    /// Hands out a header, then endless garbage, counting what was taken.
    struct Hostile {
        head: [u8; 5],
        taken: usize,
    }

    impl Read for Hostile {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1 << 16);
            for (i, b) in buf[..n].iter_mut().enumerate() {
                *b = self.head.get(self.taken + i).copied().unwrap_or(b'x');
            }
            self.taken += n;
            Ok(n)
        }
    }

    #[test]
    fn an_oversized_frame_is_refused_from_its_header() {
        // 16 MiB announced: before authentication nothing past the header is read.
        let mut r = Hostile {
            head: [0, 1, 0, 0, 0],
            taken: 0,
        };
        let e = read_frame_within(&mut r, MAX_HANDSHAKE_FRAME).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(r.taken, 5);
        // Just past the limit is refused too; after authentication 16 MiB is the limit.
        let head = [0, 0, 0, 0x10, 0x01];
        let mut r = Hostile { head, taken: 0 };
        assert!(read_frame_within(&mut r, MAX_HANDSHAKE_FRAME).is_err());
        assert_eq!(r.taken, 5);
        let mut r = Hostile {
            head: [0, 1, 0, 0, 1],
            taken: 0,
        };
        assert!(read_frame(&mut r).is_err());
        assert_eq!(r.taken, 5);
    }

    #[test]
    fn a_frame_shorter_than_its_header_says_is_an_error() {
        // 16 MiB announced, ten bytes sent: the end of input, not a 16 MiB buffer of zeros.
        let mut bytes = vec![0u8, 0, 0xff, 0xff, 0xff];
        bytes.extend_from_slice(b"{\"Ok\":nul");
        let e = read_frame(&mut bytes.as_slice()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_deadline_bounds_the_whole_exchange() {
        use std::net::{TcpListener, TcpStream};
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut peer, _) = l.accept().unwrap();
        let t0 = Instant::now();
        let mut d = Deadline::new(&c, t0 + Duration::from_millis(300));
        // A peer that sends a byte at a time still meets the deadline of the whole.
        let feeder = std::thread::spawn(move || {
            for b in [0u8, 0, 0, 0, 200].iter().chain(&[b' '; 15]) {
                if peer.write_all(&[*b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let e = read_frame_within(&mut d, MAX_HANDSHAKE_FRAME).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
        let took = t0.elapsed();
        assert!(took >= Duration::from_millis(290) && took < Duration::from_millis(600));
        assert_eq!(
            d.read(&mut [0u8; 1]).unwrap_err().kind(),
            std::io::ErrorKind::TimedOut
        );
        feeder.join().unwrap();
    }

    #[test]
    fn connecting_where_nobody_listens_fails_at_once() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let t0 = Instant::now();
        let e = connect(&format!("127.0.0.1:{port}"), b"s").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused);
        assert!(t0.elapsed() < Duration::from_millis(100));
    }

    #[test]
    fn a_dropped_handshake_is_tried_again() {
        use std::net::TcpListener;
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        // The first two connections are dropped unanswered (a server that let newer
        // peers take their slots), the third is served.
        let server = std::thread::spawn(move || {
            for _ in 0..2 {
                drop(l.accept().unwrap());
            }
            let (c, _) = l.accept().unwrap();
            let sn = random_hex(16);
            let node = "n1".to_string();
            write_control(
                &mut &c,
                &Control::Hello {
                    nonce: sn.clone(),
                    node,
                },
            )
            .unwrap();
            let Some(Frame::Control(Control::Auth { nonce, .. })) = read_frame(&mut &c).unwrap()
            else {
                panic!("no auth")
            };
            let mac = server_proof(b"s", &nonce, &sn);
            write_control(&mut &c, &Control::Welcome { mac }).unwrap();
        });
        let (_, node) = connect(&addr, b"s").unwrap();
        assert_eq!(node, "n1");
        server.join().unwrap();
    }

    #[test]
    fn challenge_response_both_ways() {
        let secret = b"job-secret";
        let (sn, cn) = (random_hex(16), random_hex(16));
        assert_eq!(sn.len(), 32);
        let c = client_proof(secret, &sn, &cn);
        assert!(verify_client(secret, &sn, &cn, &c));
        assert!(!verify_client(b"other", &sn, &cn, &c));
        assert!(!verify_client(secret, &sn, &cn, "zz"));
        // A client's proof is no server proof (no reflection), and short nonces are refused.
        assert!(!verify_server(secret, &sn, &cn, &c));
        assert!(!verify_server(secret, &cn, &sn, &c));
        assert!(!verify_client(
            secret,
            &sn,
            "ab",
            &client_proof(secret, &sn, "ab")
        ));
        let s = server_proof(secret, &cn, &sn);
        assert!(verify_server(secret, &cn, &sn, &s));
        assert!(!verify_client(secret, &sn, &cn, &s));
    }

    #[test]
    fn handshake_over_a_socket() {
        use std::net::{TcpListener, TcpStream};
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            for secret in [&b"s3cret"[..], b"s3cret"] {
                let (mut c, _) = l.accept().unwrap();
                let sn = random_hex(16);
                write_control(
                    &mut c,
                    &Control::Hello {
                        nonce: sn.clone(),
                        node: "n1".into(),
                    },
                )
                .unwrap();
                let Some(Frame::Control(Control::Auth { mac, nonce })) =
                    read_frame(&mut c).unwrap()
                else {
                    panic!()
                };
                if verify_client(secret, &sn, &nonce, &mac) {
                    let mac = server_proof(secret, &nonce, &sn);
                    write_control(&mut c, &Control::Welcome { mac }).unwrap();
                } else {
                    write_control(
                        &mut c,
                        &Control::Refused {
                            reason: "no".into(),
                        },
                    )
                    .unwrap();
                }
            }
        });
        let mut c = TcpStream::connect(addr).unwrap();
        let mut r = c.try_clone().unwrap();
        assert_eq!(client_handshake(&mut r, &mut c, b"s3cret").unwrap(), "n1");
        let mut c = TcpStream::connect(addr).unwrap();
        let mut r = c.try_clone().unwrap();
        let e = client_handshake(&mut r, &mut c, b"wrong").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        server.join().unwrap();
    }
}
