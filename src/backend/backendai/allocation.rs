//! Allocations made from the login node on Backend.AI (salloc, srun outside a job).
//!
//! The job is a batch session like any other, whose launcher runs no script: it serves
//! steps until the login node gives the allocation back (`launcher::container`). The
//! session preopens one port per node (`STEP_PORT + k`); the login node reaches node 0's
//! step server, and through node 0's relays every other node's, by the manager's `tcpproxy`
//! websocket ([`super::tunnel`]), with a secret both sides derive for the job.

use super::client::Client;
use super::tunnel::{Forwarder, Target};
use crate::launcher::step_proto::{self, Control};
use crate::model::ExitStatus;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::Mutex;

/// Node 0's step server's port in the container; node k's relay listens on `STEP_PORT + k`.
/// Above the ports Backend.AI's own services take in a kernel (2000-2003 the kernel runner,
/// 2200 sshd, 7681 ttyd).
pub const STEP_PORT: u16 = 2300;

/// The ports a session of `nodes` containers preopens.
pub fn ports(nodes: u32) -> Vec<u16> {
    (0..nodes.max(1))
        .map(|k| STEP_PORT.saturating_add(k as u16))
        .collect()
}

/// The job's step secret: only the keypair's owner can compute it (HMAC-SHA256 of the job
/// id under the secret key), so any of the user's shells on any login node can reach the
/// allocation, as in Slurm, and nobody else; the secret key itself never leaves the login
/// node. It travels in the session's environ, which only the owner and admins can read.
pub fn secret(secret_key: &str, job_id: u32) -> String {
    hmac_hex(secret_key, &format!("bai-slurm allocation {job_id}"))
}

fn hmac_hex(secret_key: &str, text: &str) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret_key.as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// The step secret of one session: an array task's names its task too, so that one
/// task's secret opens no other.
pub fn session_secret(secret_key: &str, job_id: u32, task: Option<u32>) -> String {
    match task {
        None => secret(secret_key, job_id),
        Some(t) => hmac_hex(secret_key, &format!("bai-slurm allocation {job_id}_{t}")),
    }
}

/// The containers' host names, main first (as the launcher orders them).
pub fn node_names(nodes: u32) -> Vec<String> {
    (0..nodes.max(1))
        .map(|k| {
            if k == 0 {
                "main1".to_string()
            } else {
                format!("sub{k}")
            }
        })
        .collect()
}

/// The local ends of an allocation's tunnels, kept for as long as the command runs.
#[derive(Default)]
pub struct Tunnels(Mutex<HashMap<u32, Vec<(String, Forwarder)>>>);

impl Tunnels {
    /// `(node, local address)` of each node of the job, opening the forwarders the first
    /// time.
    pub fn nodes(
        &self,
        client: &Client,
        session: &str,
        job_id: u32,
        nodes: u32,
    ) -> Result<Vec<(String, String)>, String> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let std::collections::hash_map::Entry::Vacant(slot) = map.entry(job_id) {
            let mut opened = Vec::new();
            for (name, port) in node_names(nodes).into_iter().zip(ports(nodes)) {
                let target = Target::new(client, session, &port.to_string())?;
                let fwd = Forwarder::start(target).map_err(|e| e.to_string())?;
                opened.push((name, fwd));
            }
            slot.insert(opened);
        }
        Ok(map[&job_id]
            .iter()
            .map(|(n, f)| (n.clone(), f.addr.clone()))
            .collect())
    }
}

/// Whether every node's step server answers (the launcher has started them all).
pub fn ready(nodes: &[(String, String)], secret: &str) -> bool {
    nodes
        .iter()
        .all(|(_, addr)| ask(addr, secret, &Control::Ping).is_ok())
}

/// Gives the allocation back to node 0's launcher, which ends the job with `exit`.
pub fn release(node0: &str, secret: &str, exit: ExitStatus) -> Result<(), String> {
    ask(
        node0,
        secret,
        &Control::Release {
            code: exit.code,
            signal: exit.signal,
        },
    )
}

/// Asks node 0's launcher of a running session to carry out scancel's request.
pub fn signal(
    client: &Client,
    session: &str,
    secret: &str,
    req: step_proto::JobSignal,
) -> Result<(), String> {
    ask_launcher(client, session, secret, &Control::SignalJob(req))
}

/// Gives node 0's launcher of a running batch session `scontrol notify`'s message.
pub fn notify(client: &Client, session: &str, secret: &str, message: &str) -> Result<(), String> {
    let msg = Control::Notify {
        message: message.to_string(),
    };
    ask_launcher(client, session, secret, &msg)
}

/// One request to node 0's launcher through a tunnel of its own.
fn ask_launcher(
    client: &Client,
    session: &str,
    secret: &str,
    what: &Control,
) -> Result<(), String> {
    let target = Target::new(client, session, &STEP_PORT.to_string())?;
    let tunnel = Forwarder::start(target).map_err(|e| e.to_string())?;
    client.log_line("GET", &format!("/stream/session/{session}/tcpproxy"));
    ask(&tunnel.addr, secret, what)
}

/// One request to a step server through the tunnel, answered with Ok (a handshake the
/// manager leaves unanswered is tried again on a new tunnel: `step_proto::connect_within`).
fn ask(addr: &str, secret: &str, what: &Control) -> Result<(), String> {
    match step_proto::request(
        addr,
        secret.as_bytes(),
        step_proto::TUNNEL_HANDSHAKE_TIMEOUT,
        what,
    ) {
        Ok((Control::Ok, _)) => Ok(()),
        Ok((Control::Refused { reason }, _)) => Err(reason),
        Ok(_) => Err("unexpected answer".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_depends_on_the_key_and_the_job() {
        let a = secret("key", 1);
        assert_eq!(a.len(), 64);
        assert_eq!(a, secret("key", 1));
        assert_ne!(a, secret("key", 2));
        assert_ne!(a, secret("other", 1));
        assert!(!a.contains("key"));
    }

    #[test]
    fn nodes_and_ports_line_up() {
        assert_eq!(node_names(3), ["main1", "sub1", "sub2"]);
        assert_eq!(ports(3), [2300, 2301, 2302]);
        assert_eq!(ports(0), [2300]);
    }
}
