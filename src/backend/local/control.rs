//! Reaching the queue runner: a kick (one datagram on the Unix socket `runner.sock` in the
//! state directory) wakes it; when nobody listens, a new runner is started, detached from
//! the caller's session so it outlives the submitting shell.
//!
//! The socket is a file in the user's private state directory (not an abstract name,
//! which anybody could bind first), so only the user can reach it; the runner still checks
//! each sender's uid (SO_PASSCRED) and ignores anybody else's.

use std::ffi::OsStr;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const SOCKET: &str = "runner.sock";
/// sun_path holds 108 bytes with its NUL; longer paths go through the directory's fd.
const MAX_SOCKET_PATH: usize = 100;

/// Runs `f` with a path to the runner's socket short enough for `sockaddr_un`: the real
/// path when it fits, else the same file reached through an open descriptor of the state
/// directory (`/proc/self/fd/N/runner.sock`).
fn with_socket_path<T>(
    state_dir: &Path,
    f: impl FnOnce(&Path) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let path = state_dir.join(SOCKET);
    if path.as_os_str().len() <= MAX_SOCKET_PATH {
        return f(&path);
    }
    let dir = std::fs::File::open(state_dir)?;
    f(&PathBuf::from(format!(
        "/proc/self/fd/{}/{SOCKET}",
        dir.as_raw_fd()
    )))
}

/// Wakes the runner; false when no runner is listening. Never blocks: a runner whose
/// queue of kicks is full has plenty of them to wake it.
pub fn kick(state_dir: &Path) -> bool {
    let Ok(sock) = UnixDatagram::unbound() else {
        return false;
    };
    let _ = sock.set_nonblocking(true);
    match with_socket_path(state_dir, |p| sock.send_to(b"k", p)) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
    }
}

/// The runner's end of the socket: bound in the state directory, readable only by the
/// user, telling who sent each kick.
pub struct Listener {
    sock: UnixDatagram,
    uid: u32,
    /// Kicks from other users, ignored (for the log).
    pub refused: u64,
}

impl Listener {
    /// Binds the socket. Call only while holding the runner lock: a socket file left by
    /// a killed runner is removed first, which is safe only when no runner is alive.
    pub fn bind(state_dir: &Path, uid: u32) -> std::io::Result<Listener> {
        let path = state_dir.join(SOCKET);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let sock = with_socket_path(state_dir, |p| UnixDatagram::bind(p))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        nix::sys::socket::setsockopt(&sock, nix::sys::socket::sockopt::PassCred, &true)
            .map_err(std::io::Error::from)?;
        Ok(Listener {
            sock,
            uid,
            refused: 0,
        })
    }

    /// Waits up to `timeout` for a kick; then takes every kick already queued, since one
    /// pass answers them all.
    pub fn wait(&mut self, timeout: Duration) {
        let _ = self.sock.set_nonblocking(false);
        let _ = self.sock.set_read_timeout(Some(timeout));
        let _ = self.receive_one();
        self.drain();
    }

    /// Takes every kick queued, without waiting.
    pub fn drain(&mut self) {
        let _ = self.sock.set_nonblocking(true);
        for _ in 0..10_000 {
            if self.receive_one().is_none() {
                break;
            }
        }
    }

    /// One datagram: Some(true) from the user or root, Some(false) from anybody else,
    /// None when there was none.
    fn receive_one(&mut self) -> Option<bool> {
        use nix::sys::socket::{ControlMessageOwned, MsgFlags, UnixAddr, recvmsg};
        let mut buf = [0u8; 64];
        let mut iov = [std::io::IoSliceMut::new(&mut buf)];
        let mut space = nix::cmsg_space!(nix::sys::socket::UnixCredentials);
        let msg = recvmsg::<UnixAddr>(
            self.sock.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::empty(),
        )
        .ok()?;
        let sender = msg.cmsgs().ok()?.find_map(|c| match c {
            ControlMessageOwned::ScmCredentials(c) => Some(c.uid()),
            _ => None,
        });
        let ours = sender.is_some_and(|u| u == self.uid || u == 0);
        if !ours {
            self.refused += 1;
        }
        Some(ours)
    }
}

/// Wakes the runner, starting one if none is running.
pub fn ensure_runner(state_dir: &Path) -> std::io::Result<()> {
    if kick(state_dir) {
        return Ok(());
    }
    // The caller does not wait: the runner is reparented when the caller exits.
    start_detached(
        state_dir,
        &[OsStr::new("__local-runner"), state_dir.as_os_str()],
    )
    .map(|_| ())
}

/// Starts this program again (`bai-slurm <args>`: the runner, a job's launcher) in a
/// session of its own, without stdin and stdout, its stderr appended to the state
/// directory's `runner.log`. The new session detaches it from the caller's terminal, so
/// the runner survives the shell that submitted the job, and makes a launcher the leader
/// whose session id every process of its job carries (procs.rs).
pub(super) fn start_detached(state_dir: &Path, args: &[&OsStr]) -> std::io::Result<Child> {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(state_dir.join("runner.log"))?;
    start_detached_as(args, log, None)
}

/// Who a process started by root runs as: a user with their groups.
pub struct RunAs {
    uid: libc::uid_t,
    gid: libc::gid_t,
    groups: Vec<libc::gid_t>,
}

impl RunAs {
    /// `user` with the groups the group database gives them (initgroups).
    pub fn user(user: &crate::sys::UserInfo) -> std::io::Result<RunAs> {
        let name = std::ffi::CString::new(user.name.as_str()).map_err(std::io::Error::other)?;
        let groups = nix::unistd::getgrouplist(&name, nix::unistd::Gid::from_raw(user.gid))
            .map_err(std::io::Error::from)?
            .into_iter()
            .map(|g| g.as_raw())
            .collect();
        Ok(RunAs {
            uid: user.uid,
            gid: user.gid,
            groups,
        })
    }
}

/// [`start_detached`] with stderr to `log`, and as `run_as` when given (system mode's
/// launchers: the identity is dropped in the child before bai-slurm runs again).
pub(super) fn start_detached_as(
    args: &[&OsStr],
    log: std::fs::File,
    run_as: Option<RunAs>,
) -> std::io::Result<Child> {
    let exe = crate::sys::own_executable()
        .map_err(|_| std::io::Error::other("cannot find bai-slurm's own path"))?;
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(log));
    // SAFETY: setsid, setgroups, setgid and setuid are async-signal-safe; `run_as` was
    // made before the fork and is only read.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            if let Some(r) = &run_as
                && (libc::setgroups(r.groups.len(), r.groups.as_ptr()) != 0
                    || libc::setgid(r.gid) != 0
                    || libc::setuid(r.uid) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn()
}

/// System mode: makes a job's directory in the state directory (root's) the job user's,
/// private, and opens the launcher's log in it. The log is made new (never opened
/// through whatever an earlier run of the job left under its name).
pub fn prepare_user_job_dir(
    job_dir: &Path,
    user: &crate::sys::UserInfo,
) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::create_dir(job_dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let uid = Some(nix::unistd::Uid::from_raw(user.uid));
    let gid = Some(nix::unistd::Gid::from_raw(user.gid));
    nix::unistd::chown(job_dir, uid, gid).map_err(std::io::Error::from)?;
    std::fs::set_permissions(job_dir, std::fs::Permissions::from_mode(0o700))?;
    let log_path = job_dir.join("launcher.log");
    let _ = std::fs::remove_file(&log_path);
    let log = std::fs::OpenOptions::new()
        .append(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&log_path)?;
    nix::unistd::fchown(&log, uid, gid).map_err(std::io::Error::from)?;
    Ok(log)
}
