//! The processes of a job, found through /proc: a launcher is its job's session leader,
//! so everything the job started (the batch script, srun tasks, their children) shares its
//! session id, and what escaped the session (a `setsid` daemon) is reparented to the
//! nearest subreaper, the launcher or the queue runner. When a launcher dies, what is left
//! of its job is killed, as slurmd kills a job's processes when the job ends.

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// One process, as /proc/PID/stat and the owner of /proc/PID tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    pub session: i32,
    /// Clock ticks after boot.
    pub start: u64,
    pub uid: u32,
    pub zombie: bool,
}

/// Reads /proc/PID/stat. The command name may contain spaces and parentheses; the fields
/// resume after its last closing parenthesis.
fn parse_stat(pid: i32, stat: &str, uid: u32) -> Option<Proc> {
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(Proc {
        pid,
        zombie: *f.first()? == "Z",
        ppid: f.get(1)?.parse().ok()?,
        session: f.get(3)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
        uid,
    })
}

pub fn process(pid: i32) -> Option<Proc> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata(format!("/proc/{pid}")).ok()?.uid();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat, uid)
}

/// Every process on the machine (those that vanish while we look are left out).
pub fn all() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(process)
        .collect()
}

/// The kernel's start time of a live process, used to tell a live launcher from an
/// unrelated process that reused its pid. None for a zombie: it has ended. (Reads only
/// the stat file: the runner asks this of every running job on every pass.)
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &stat, 0)
        .filter(|p| !p.zombie)
        .map(|p| p.start)
}

/// Whether `pid` is still the process that had `start` as its start time.
pub fn is_same_process(pid: i32, start: u64) -> bool {
    start_time(pid) == Some(start)
}

/// Kills, with SIGKILL, every live process of `uid` in the session `session` that started
/// no earlier than `since` (so a later session that reused the id is left alone), and
/// every one whose parent is `adopter` (a subreaper's adopted orphans), except `spare`.
/// Repeats while new ones appear (a process forking as it is killed). Returns how many.
pub fn kill_leftovers(
    session: i32,
    since: u64,
    adopter: Option<i32>,
    uid: u32,
    spare: i32,
) -> usize {
    let mut killed = 0;
    for _ in 0..20 {
        let targets: Vec<Proc> = all()
            .into_iter()
            .filter(|p| p.pid != spare && !p.zombie && p.uid == uid)
            .filter(|p| (p.session == session && p.start >= since) || Some(p.ppid) == adopter)
            .collect();
        if targets.is_empty() {
            break;
        }
        for p in &targets {
            if kill(Pid::from_raw(p.pid), Signal::SIGKILL).is_ok() {
                killed += 1;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    killed
}

/// Makes this process a child subreaper: orphans among its descendants become its
/// children instead of init's, so it can find them.
pub fn become_subreaper() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes a plain integer and touches no memory.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Collects the exit status of adopted children that have ended, among `procs` (not
/// those in `mine`, whose owners wait for them).
pub fn reap_adopted(procs: &[Proc], me: i32, mine: &[i32]) {
    use nix::sys::wait::{WaitPidFlag, waitpid};
    for p in procs
        .iter()
        .filter(|p| p.ppid == me && p.zombie && !mine.contains(&p.pid))
    {
        let _ = waitpid(Pid::from_raw(p.pid), Some(WaitPidFlag::WNOHANG));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let line = "42 (a) b (c)) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 777 1000 10 18446744073709551615";
        let p = parse_stat(42, line, 7).unwrap();
        assert_eq!((p.ppid, p.session, p.start, p.uid), (1, 42, 777, 7));
        assert!(!p.zombie);
        assert!(parse_stat(1, "garbage", 0).is_none());
        assert!(parse_stat(1, "1 (x)", 0).is_none());
    }

    #[test]
    fn this_process_is_found() {
        let me = std::process::id() as i32;
        let p = process(me).unwrap();
        assert_eq!(p.pid, me);
        assert!(is_same_process(me, p.start));
        assert!(!is_same_process(me, p.start + 1));
    }

    #[test]
    fn a_session_is_killed_whole_including_what_left_its_process_group() {
        use std::os::unix::process::CommandExt;
        // A session leader with a child in another process group of the same session.
        let mut leader = std::process::Command::new("sh");
        leader.args(["-c", "sleep 300 & (set -m; sleep 301 &) ; wait"]);
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            leader.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        let mut child = leader.spawn().unwrap();
        let sid = child.id() as i32;
        let since = start_time(sid).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let uid = nix::unistd::getuid().as_raw();
        let members = || {
            all()
                .into_iter()
                .filter(|p| p.session == sid && !p.zombie)
                .count()
        };
        assert!(members() >= 3, "{}", members());
        let killed = kill_leftovers(sid, since, None, uid, -1);
        let _ = child.wait();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(killed >= 3, "{killed}");
        assert_eq!(members(), 0);
    }
}
