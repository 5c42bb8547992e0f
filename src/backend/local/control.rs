//! Reaching the queue runner: a kick (one datagram on an abstract Unix socket named after the
//! state directory) wakes it; when nobody listens, a new runner is started, detached from the
//! caller's session so it outlives the submitting shell.

use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The runner's socket address. Abstract names need no file, so a killed runner leaves
/// nothing stale behind and long state paths are no problem.
pub fn runner_address(state_dir: &Path) -> std::io::Result<SocketAddr> {
    use std::hash::{Hash, Hasher};
    let canonical = state_dir
        .canonicalize()
        .unwrap_or_else(|_| state_dir.to_path_buf());
    let mut h = std::collections::hash_map::DefaultHasher::new();
    canonical.hash(&mut h);
    SocketAddr::from_abstract_name(format!("bai-slurm-runner-{:016x}", h.finish()).as_bytes())
}

/// Wakes the runner; false when no runner is listening.
pub fn kick(state_dir: &Path) -> bool {
    let Ok(addr) = runner_address(state_dir) else {
        return false;
    };
    let Ok(sock) = UnixDatagram::unbound() else {
        return false;
    };
    sock.send_to_addr(b"k", &addr).is_ok()
}

/// Wakes the runner, starting one if none is running.
pub fn ensure_runner(state_dir: &Path) -> std::io::Result<()> {
    if kick(state_dir) {
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(state_dir.join("runner.log"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("__local-runner")
        .arg(state_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    // SAFETY: setsid is async-signal-safe; it detaches the runner from the caller's
    // session and terminal so it survives the shell that submitted the job.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    // The caller does not wait: the runner is reparented when the caller exits.
    cmd.spawn().map(|_| ())
}

/// The kernel's start time of a process (clock ticks since boot), used to tell a live
/// launcher from an unrelated process that reused its pid.
pub fn process_start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces; fields resume after its closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    // A zombie has ended; only its exit status is left for the parent to collect.
    if fields.next()? == "Z" {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// Whether `pid` is still the process that had `start` as its start time.
pub fn is_same_process(pid: i32, start: u64) -> bool {
    process_start_time(pid) == Some(start)
}
