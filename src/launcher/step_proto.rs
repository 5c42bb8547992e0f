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

const CONTROL: u8 = 0;
const OUTPUT: u8 = 1;
/// Frames bigger than this are refused (a corrupt or hostile peer).
const MAX_FRAME: u32 = 16 << 20;

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
    },
    /// Server -> client: done.
    Ok,
    /// Client -> server: start these tasks of step `step_id` on this node (with a PMI
    /// server for them when `pmi` is given).
    Launch {
        step_id: u32,
        tasks: Vec<TaskSpec>,
        #[serde(default)]
        pmi: Option<super::pmi::PmiJob>,
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
    },
    /// Server -> client: a line for srun's stderr from the step server itself.
    Message { text: String },
    /// Client -> server: data for task 0's stdin; empty = end of input.
    Stdin { data: Vec<u8> },
    /// Server -> client: the tasks run, with their pids.
    Started { pids: Vec<(u32, i32)> },
    /// Server -> client: a task ended (raw wait status).
    Exited { rank: u32, status: i32 },
    /// Server -> client: the request cannot be served.
    Refused { reason: String },
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
    let body = serde_json::to_vec(msg).map_err(std::io::Error::other)?;
    write_frame(w, CONTROL, &body)
}

pub fn write_output(
    w: &mut impl Write,
    rank: u32,
    stderr: bool,
    data: &[u8],
) -> std::io::Result<()> {
    let mut body = Vec::with_capacity(data.len() + 5);
    body.extend_from_slice(&rank.to_be_bytes());
    body.push(u8::from(stderr));
    body.extend_from_slice(data);
    write_frame(w, OUTPUT, &body)
}

fn write_frame(w: &mut impl Write, kind: u8, body: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    let mut head = [0u8; 5];
    head[0] = kind;
    head[1..].copy_from_slice(&len.to_be_bytes());
    w.write_all(&head)?;
    w.write_all(body)?;
    w.flush()
}

/// Reads the next frame; `Ok(None)` at a clean end of stream.
pub fn read_frame(r: &mut impl Read) -> std::io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
    if len > MAX_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "frame too large",
        ));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body)?;
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
    let (server_nonce, node) = match read_frame(reader)? {
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
    match read_frame(reader)? {
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

/// A fresh random value, hex: nonces and job secrets.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The kernel's generator: no userspace state to get wrong.
    if std::fs::File::open("/dev/urandom")
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
