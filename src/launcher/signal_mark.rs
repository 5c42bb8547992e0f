//! An operator's signal to another user's running Backend.AI job, left as a mark in the
//! job directory (`<job_dir>/<uid>.running/<job>[_<task>].signal`). The manager's tunnel
//! reaches a session only with its owner's keypair (`stream_proxy` looks the session up
//! among the requester's own), so root's `scancel` of another user's job cannot ask the
//! job's launcher directly; it writes this mark, as the owner, and node 0's launcher,
//! which polls it, carries out each new one once, as it carries out `scancel`'s request
//! through the tunnel.

use super::gate;
use super::step_proto::JobSignal;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How often node 0's launcher looks at the mark.
pub const POLL: Duration = Duration::from_secs(2);

/// One request: `nonce` tells a new request from the one already carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalMark {
    pub nonce: u64,
    pub request: JobSignal,
}

impl SignalMark {
    /// A request with a nonce of its own (the time in nanoseconds and the sender's pid).
    pub fn new(request: JobSignal) -> SignalMark {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        SignalMark {
            nonce: nanos ^ (u64::from(std::process::id()) << 48),
            request,
        }
    }

    pub fn render(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn parse(text: &[u8]) -> Option<SignalMark> {
        serde_json::from_slice(text).ok()
    }
}

/// `<job_dir>/<uid>.running/<name>.signal`.
pub fn path(job_dir: &Path, uid: u32, name: &str) -> PathBuf {
    gate::running_dir(job_dir, uid).join(format!("{name}.signal"))
}

/// Watches the mark at `path` every `every` in a thread of its own for the rest of the
/// process: each request that differs from the last one seen goes to `act`. What is there
/// when the watch starts is an earlier run's (a requeued job's), and is not carried out.
pub fn watch(path: PathBuf, every: Duration, act: impl Fn(JobSignal) + Send + 'static) {
    let read = move || {
        crate::sys::read_no_follow(&path)
            .ok()
            .and_then(|t| SignalMark::parse(&t))
    };
    let mut seen = read().map(|m| m.nonce);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(every);
            if let Some(mark) = read()
                && seen != Some(mark.nonce)
            {
                seen = Some(mark.nonce);
                act(mark.request);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_new_request_is_carried_out_once_and_an_earlier_runs_never() {
        let dir = tempfile::tempdir().unwrap();
        let mark = path(dir.path(), 1001, "7");
        std::fs::create_dir_all(mark.parent().unwrap()).unwrap();
        let usr1 = JobSignal {
            signal: Some(libc::SIGUSR1),
            batch_only: true,
            full: false,
        };
        let earlier = SignalMark::new(usr1);
        std::fs::write(&mark, earlier.render()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let every = Duration::from_millis(20);
        watch(mark.clone(), every, move |r| tx.send(r).unwrap());
        let wait = every * 10;
        assert!(rx.recv_timeout(wait).is_err(), "an earlier run's request");
        let cancel = JobSignal {
            signal: None,
            batch_only: false,
            full: false,
        };
        std::fs::write(&mark, SignalMark::new(cancel).render()).unwrap();
        assert_eq!(rx.recv_timeout(wait).unwrap(), cancel);
        assert!(rx.recv_timeout(wait).is_err(), "carried out once");
        std::fs::write(&mark, b"{not json").unwrap();
        std::fs::write(&mark, SignalMark::new(usr1).render()).unwrap();
        assert_eq!(rx.recv_timeout(wait).unwrap(), usr1);
    }
}
