//! The batch wrapper: runs a job script as the job's main task, with its output files,
//! its time limit and its signals, and reports how it ended. Backend-agnostic: the local
//! backend and the Backend.AI session both drive it.

use crate::model::ExitStatus;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Everything needed to run one batch step.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    /// The script file (executable), as slurmstepd's `slurm_script`.
    pub script: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub work_dir: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    pub stdin: PathBuf,
    pub append: bool,
    pub umask: Option<u32>,
    /// The submitting shell's soft limits (`--propagate`), set for the script.
    pub rlimits: Vec<crate::model::rlimit::Propagated>,
    pub time_limit: Option<Duration>,
    /// Between SIGTERM and SIGKILL (Slurm's KillWait).
    pub kill_wait: Duration,
    /// `--signal`: (signal, seconds before the limit, batch shell only).
    pub warn_signal: Option<(i32, u32, bool)>,
    /// A file that may give the job a new time limit while it runs (`scontrol update
    /// TimeLimit=`): seconds from the start, or `infinite`. Read every few seconds.
    pub limit_file: Option<PathBuf>,
}

/// Propagated soft limits resolved to resource numbers before a fork, to be set in the
/// child between fork and exec.
pub struct SoftLimits(Vec<(crate::sys::RlimitResource, u64)>);

impl SoftLimits {
    pub fn of(list: &[crate::model::rlimit::Propagated]) -> SoftLimits {
        SoftLimits(
            list.iter()
                .filter_map(|l| Some((crate::sys::rlimit_resource(&l.name)?, l.soft)))
                .collect(),
        )
    }

    /// Sets them all (async-signal-safe: no allocation).
    pub fn set(&self) {
        for &(resource, soft) in &self.0 {
            set_soft_limit(resource, soft);
        }
    }
}

/// Sets a propagated soft limit, as slurmstepd's `_set_limit`: the hard limit is raised to
/// it where this process may (root), else the soft limit goes as high as the hard one
/// allows. Called between fork and exec: async-signal-safe calls only.
fn set_soft_limit(resource: crate::sys::RlimitResource, soft: u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write structs we own.
    unsafe {
        if libc::getrlimit(resource, &mut r) != 0 || r.rlim_cur == soft {
            return;
        }
        let wanted = libc::rlimit {
            rlim_cur: soft,
            rlim_max: r.rlim_max.max(soft),
        };
        if libc::setrlimit(resource, &wanted) != 0 {
            let capped = libc::rlimit {
                rlim_cur: soft.min(r.rlim_max),
                rlim_max: r.rlim_max,
            };
            libc::setrlimit(resource, &capped);
        }
    }
}

/// How often a running job's limit file is read again.
const LIMIT_POLL: Duration = Duration::from_secs(5);

/// The limit in `path`, when there is one: `Some(None)` is no limit.
fn read_limit_file(path: &std::path::Path) -> Option<Option<Duration>> {
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim();
    if text == "infinite" {
        return Some(None);
    }
    text.parse::<u64>()
        .ok()
        .map(|s| Some(Duration::from_secs(s)))
}

/// `*** JOB N ON node CANCELLED AT time[ why] ***`, as slurmstepd writes it into the job's
/// error output.
fn write_cancel_line(err_log: &mut std::fs::File, plan: &BatchPlan, why: &str) {
    let _ = writeln!(
        err_log,
        "{}: error: *** JOB {} ON {} CANCELLED AT {}{why} ***",
        stepd_name(plan),
        plan.env
            .get("SLURM_JOB_ID")
            .map(String::as_str)
            .unwrap_or("?"),
        plan.env
            .get("SLURMD_NODENAME")
            .map(String::as_str)
            .unwrap_or("?"),
        chrono::Local::now().format("%Y-%m-%dT%H:%M:%S")
    );
}

/// A signal to the job's whole process group, or to its batch shell alone (the group's
/// leader).
fn send(pgid: Pid, sig: Signal, group: bool) {
    let _ = if group {
        killpg(pgid, sig)
    } else {
        nix::sys::signal::kill(pgid, sig)
    };
}

/// What slurmstepd's messages begin with: `slurmstepd-<node>` (Slurm's build names each
/// node's slurmstepd so).
fn stepd_name(plan: &BatchPlan) -> String {
    format!(
        "slurmstepd-{}",
        plan.env
            .get("SLURMD_NODENAME")
            .map(String::as_str)
            .unwrap_or("?")
    )
}

/// The exit status slurmstepd records for a batch step it could not start (`0:53`).
pub const LAUNCH_FAILED_SIGNAL: i32 = 53;

/// slurmstepd's own lines in a running job's error stream (`scontrol notify`), written
/// through slurmstepd's handle on it: they share the script's file offset, so the script's
/// later output follows them instead of covering them.
#[derive(Default)]
pub struct StepdMessages(std::sync::OnceLock<(File, String)>);

impl StepdMessages {
    /// The script runs: its error stream (as [`run`] gives it) can take messages.
    pub fn attach(&self, err: &File, plan: &BatchPlan) {
        if let Ok(f) = err.try_clone() {
            let _ = self.0.set((f, stepd_name(plan)));
        }
    }

    /// `slurmstepd-<node>: error: <message>`, as slurmstepd's `error("%s", message)`.
    pub fn error(&self, message: &str) -> Result<(), String> {
        let (err, stepd) = self.0.get().ok_or("the batch script is not running")?;
        (&*err)
            .write_all(format!("{stepd}: error: {message}\n").as_bytes())
            .map_err(|e| format!("the job's error stream: {e}"))
    }
}

/// How the step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The script ended on its own.
    Exited(ExitStatus),
    /// The time limit ended it.
    TimedOut(ExitStatus),
    /// It was cancelled (SIGTERM/SIGINT/SIGHUP to the launcher).
    Cancelled(ExitStatus),
    /// It never started: output files could not be opened or the exec failed.
    LaunchFailed(ExitStatus),
}

enum Event {
    Exited(i32),
    Signal(i32),
}

/// Opens an output file the way slurmstepd does (create, truncate or append). The
/// launcher's own console (`/dev/stdout`) is shared as it is, never reopened or truncated.
fn open_output(path: &PathBuf, append: bool) -> std::io::Result<File> {
    if path.as_os_str() == "/dev/stdout" {
        use std::os::fd::AsFd;
        return Ok(File::from(std::io::stdout().as_fd().try_clone_to_owned()?));
    }
    let mut o = OpenOptions::new();
    o.write(true).create(true).mode(0o644);
    if append {
        o.append(true);
    } else {
        o.truncate(true);
    }
    o.open(path)
}

/// Signals the launcher handles: SIGTERM, SIGINT and SIGHUP cancel the job, USR1/USR2 are
/// passed on, and the [`relay`] signals carry `scancel -b/-f -s TERM|KILL`.
pub fn handled_signals() -> Vec<i32> {
    let mut all = vec![
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ];
    all.extend(relay::ALL.iter().map(|r| r.number()));
    all
}

/// `scancel -b` or `-f` with SIGTERM or SIGKILL: slurmstepd writes its `*** JOB N ON node
/// CANCELLED AT ... ***` line (once) whenever one of these reaches a step, then delivers the
/// signal; the job is not cancelled, it ends as its script does. A command asks the launcher
/// with a real-time signal, as only the launcher writes the job's output.
pub mod relay {
    /// What to send, and to whom.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Relay {
        pub signal: i32,
        /// The whole process group (-f), or the batch shell alone (-b).
        pub group: bool,
        offset: i32,
    }

    impl Relay {
        pub fn number(self) -> i32 {
            libc::SIGRTMIN() + self.offset
        }
    }

    pub const ALL: [Relay; 4] = [
        Relay {
            signal: libc::SIGTERM,
            group: false,
            offset: 1,
        },
        Relay {
            signal: libc::SIGKILL,
            group: false,
            offset: 2,
        },
        Relay {
            signal: libc::SIGTERM,
            group: true,
            offset: 3,
        },
        Relay {
            signal: libc::SIGKILL,
            group: true,
            offset: 4,
        },
    ];

    /// The relay for this signal and target, when slurmstepd would write its line.
    pub fn for_signal(signal: i32, group: bool) -> Option<Relay> {
        ALL.into_iter()
            .find(|r| r.signal == signal && r.group == group)
    }

    /// The relay a received signal number stands for.
    pub fn received(number: i32) -> Option<Relay> {
        ALL.into_iter().find(|r| r.number() == number)
    }
}

/// Runs the step. `signals` must be registered for [`handled_signals`] before the job is
/// claimed, so no cancel is lost; `started` is told the script's pid (= its process group)
/// and given slurmstepd's own handle on the job's error stream (its messages must share
/// the script's file offset, or a later write of the script's covers them).
pub fn run(
    plan: &BatchPlan,
    mut signals: signal_hook::iterator::Signals,
    started: impl FnOnce(i32, &File),
) -> Ending {
    if let Some(mask) = plan.umask {
        nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(
            mask as libc::mode_t,
        ));
    }
    // A file slurmstepd cannot open fails the job before anything runs or is written
    // (sacct: FAILED 0:53, as 22.05.8 records it; tests/scenarios/stepd_messages.scn).
    let failed = || Ending::LaunchFailed(ExitStatus::signal(LAUNCH_FAILED_SIGNAL));
    let Ok(stdin) = File::open(&plan.stdin) else {
        return failed();
    };
    let Ok(stdout) = open_output(&plan.stdout, plan.append) else {
        return failed();
    };
    let stderr = if plan.stderr == plan.stdout {
        stdout.try_clone()
    } else {
        open_output(&plan.stderr, plan.append)
    };
    let Ok(stderr) = stderr else {
        return failed();
    };
    let Ok(mut err_log) = stderr.try_clone() else {
        return failed();
    };
    let mut cwd = plan.work_dir.clone();
    if !cwd.is_dir() {
        // Said twice, as slurmstepd says it (once setting the step up, once in the task).
        for _ in 0..2 {
            let _ = writeln!(
                err_log,
                "{}: error: couldn't chdir to `{}': No such file or directory: going to /tmp instead",
                stepd_name(plan),
                cwd.display()
            );
        }
        cwd = PathBuf::from("/tmp");
    }

    // `sh` sets SLURM_TASK_PID to the script's own pid, then becomes the script.
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("SLURM_TASK_PID=$$; export SLURM_TASK_PID; exec \"$0\" \"$@\"")
        .arg(&plan.script)
        .args(&plan.args)
        .env_clear()
        .envs(&plan.env)
        .current_dir(&cwd)
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::from(stderr))
        .process_group(0);
    let limits = SoftLimits::of(&plan.rlimits);
    // SAFETY: prctl, getrlimit and setrlimit are async-signal-safe; `limits` was made
    // before the fork and is only read. The first makes the script die with its launcher.
    unsafe {
        cmd.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            limits.set();
            Ok(())
        });
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(
                err_log,
                "{}: error: execve(): {}: {}",
                stepd_name(plan),
                plan.script.display(),
                io_text(&e)
            );
            return Ending::LaunchFailed(ExitStatus::code(e.raw_os_error().unwrap_or(1)));
        }
    };
    let pid = child.id() as i32;
    started(pid, &err_log);

    let (tx, rx) = mpsc::channel();
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let status = child.wait().map(|s| {
                use std::os::unix::process::ExitStatusExt;
                s.into_raw()
            });
            let _ = tx.send(Event::Exited(status.unwrap_or(0)));
        });
    }
    std::thread::spawn(move || {
        for s in signals.forever() {
            if tx.send(Event::Signal(s)).is_err() {
                break;
            }
        }
    });

    let begin = Instant::now();
    let mut deadline = plan.time_limit.map(|l| begin + l);
    // `--signal`'s warning, due its time before the end (the end a changed limit moves,
    // as slurmctld's end time does), sent once.
    let warning_for = |limit: Option<Duration>| match (plan.warn_signal, limit) {
        (Some((sig, before, batch_only)), Some(limit)) => Some((
            begin + limit.saturating_sub(Duration::from_secs(u64::from(before))),
            sig,
            batch_only,
        )),
        _ => None,
    };
    let mut warn_at = warning_for(plan.time_limit);
    let mut warned = false;
    let mut next_limit_read = plan.limit_file.as_ref().map(|_| begin + LIMIT_POLL);
    let pgid = Pid::from_raw(pid);
    // Set once termination started: (why, when SIGKILL is due).
    let mut terminating: Option<(bool, Instant)> = None;
    // slurmstepd writes its CANCELLED line once per step.
    let mut cancel_line_written = false;
    let mut say_cancelled = |err_log: &mut File| {
        if !std::mem::replace(&mut cancel_line_written, true) {
            write_cancel_line(err_log, plan, "");
        }
    };
    loop {
        let mut next = [
            deadline,
            warn_at.map(|w| w.0),
            terminating.map(|t| t.1),
            next_limit_read,
        ]
        .into_iter()
        .flatten()
        .min();
        if terminating.is_some() {
            next = terminating.map(|t| t.1);
        }
        let event = match next {
            Some(at) => rx.recv_timeout(at.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Exited(raw)) => {
                // Whatever the script left behind goes with it, as Slurm's proctrack does.
                let _ = killpg(pgid, Signal::SIGKILL);
                let status = ExitStatus::from_wait_status(raw);
                return match terminating {
                    Some((true, _)) => Ending::TimedOut(status),
                    Some((false, _)) => Ending::Cancelled(status),
                    None => Ending::Exited(status),
                };
            }
            Ok(Event::Signal(s)) if s == libc::SIGUSR1 || s == libc::SIGUSR2 => {
                let _ = killpg(pgid, Signal::try_from(s).unwrap_or(Signal::SIGUSR1));
            }
            Ok(Event::Signal(s)) => match relay::received(s) {
                Some(r) => {
                    say_cancelled(&mut err_log);
                    let sig = Signal::try_from(r.signal).unwrap_or(Signal::SIGTERM);
                    send(pgid, sig, r.group);
                }
                None if terminating.is_none() => {
                    say_cancelled(&mut err_log);
                    terminate(pgid);
                    terminating = Some((false, Instant::now() + plan.kill_wait));
                }
                None => {}
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                if let Some((_, kill_at)) = terminating {
                    if now >= kill_at {
                        let _ = killpg(pgid, Signal::SIGKILL);
                        terminating =
                            terminating.map(|(t, _)| (t, now + Duration::from_secs(3600)));
                    }
                    continue;
                }
                if let (Some(at), Some(path)) = (next_limit_read, &plan.limit_file)
                    && now >= at
                {
                    if let Some(limit) = read_limit_file(path) {
                        deadline = limit.map(|l| begin + l);
                        if !warned {
                            warn_at = warning_for(limit);
                        }
                    }
                    next_limit_read = Some(now + LIMIT_POLL);
                }
                if let Some((at, sig, batch_only)) = warn_at
                    && now >= at
                {
                    let sig = Signal::try_from(sig).unwrap_or(Signal::SIGUSR1);
                    send(pgid, sig, !batch_only);
                    warn_at = None;
                    warned = true;
                }
                if deadline.is_some_and(|d| now >= d) {
                    write_cancel_line(&mut err_log, plan, " DUE TO TIME LIMIT");
                    terminate(pgid);
                    terminating = Some((true, now + plan.kill_wait));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Ending::Exited(ExitStatus::OK);
            }
        }
    }
}

/// Holds an allocation that has no batch script: waits for a termination signal (its owner
/// giving it back, or a cancel), the time limit, or its owner process to disappear.
pub fn hold(
    time_limit: Option<Duration>,
    mut signals: signal_hook::iterator::Signals,
    owner_alive: impl Fn() -> bool,
) -> Ending {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for s in signals.forever() {
            if matches!(s, libc::SIGTERM | libc::SIGINT | libc::SIGHUP) && tx.send(s).is_err() {
                break;
            }
        }
    });
    let deadline = time_limit.map(|l| Instant::now() + l);
    loop {
        if rx.recv_timeout(Duration::from_millis(500)).is_ok() {
            return Ending::Cancelled(ExitStatus::signal(libc::SIGTERM));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ending::TimedOut(ExitStatus::OK);
        }
        if !owner_alive() {
            return Ending::Cancelled(ExitStatus::signal(libc::SIGKILL));
        }
    }
}

/// SIGCONT then SIGTERM to the whole job, as slurmstepd does before KillWait.
fn terminate(pgid: Pid) {
    let _ = killpg(pgid, Signal::SIGCONT);
    let _ = killpg(pgid, Signal::SIGTERM);
}

/// An error as C's strerror says it (`No such file or directory`), as Slurm prints `%m`.
pub fn io_text(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::relay;

    #[test]
    fn relays_are_distinct_real_time_signals_the_launcher_handles() {
        let handled = super::handled_signals();
        for r in relay::ALL {
            assert!(r.number() > libc::SIGRTMIN() && r.number() <= libc::SIGRTMAX());
            assert_eq!(relay::received(r.number()), Some(r));
            assert!(handled.contains(&r.number()));
        }
        assert_eq!(
            relay::for_signal(libc::SIGTERM, false).map(|r| (r.signal, r.group)),
            Some((libc::SIGTERM, false))
        );
        assert_eq!(relay::for_signal(libc::SIGUSR1, false), None);
        assert_eq!(relay::received(libc::SIGTERM), None);
    }
}
