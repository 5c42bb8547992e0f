//! salloc: obtain an allocation, run a command in it (default: your shell), give it back.

use super::allocate;
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::launcher::env::AllocationUser;
use crate::model::ExitStatus;
use crate::options::salloc::{self, SallocOutcome};

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    let immediate_exit = allocate::immediate_exit(inv);
    let args = inv.args.clone();
    let req = match salloc::parse_for(inv.profile, &args, &inv.env, inv.now) {
        SallocOutcome::Exit {
            stdout,
            stderr,
            code,
        } => return inv.finish(&stdout, &stderr, code),
        SallocOutcome::Run(req) => req,
    };
    // The command, by default the user's login shell from the passwd database, not
    // $SHELL (salloc's `_get_shell`: `uid_to_shell`, both releases).
    let argv = if req.argv.is_empty() {
        vec![inv.user.shell.clone()]
    } else {
        req.argv.clone()
    };
    let sent = inv
        .profile
        .submit
        .salloc_sends_command
        .then(|| argv[0].as_str());
    let (spec, messages) =
        match allocate::allocation_spec(inv, &req.opts, "salloc", "interactive".into(), sent) {
            Ok(s) => s,
            Err(f) => {
                let _ = inv.err.write_all(f.stderr.as_bytes());
                return f.code;
            }
        };
    for m in messages {
        let _ = writeln!(inv.err, "{m}");
    }
    let (id, details) = match allocate::obtain(inv, cluster, &spec, "salloc", immediate_exit) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let _ = writeln!(inv.err, "salloc: Granted job allocation {id}");
    if inv.profile.job_env.salloc_nodes_ready_line {
        let nodes: Vec<String> = details.nodes.iter().map(|(n, _)| n.clone()).collect();
        let _ = writeln!(
            inv.err,
            "salloc: Nodes {} are ready for job",
            crate::model::hostlist::compress(&nodes)
        );
    }
    let env = allocate::env_of(inv, id, &details, &spec, AllocationUser::Salloc);
    // srun in the command finds the allocation's step servers in the file we hold.
    let _held = match allocate::job_file(cluster, id, &details).hold() {
        Ok(h) => Some(h),
        Err(e) => {
            inv.error(&format!("cannot hold the job file of job {id}: {e}"));
            None
        }
    };
    // The command is a process group of its own, in the terminal's foreground when salloc
    // is (salloc.c): a Ctrl-C there is the command's, not salloc's.
    let terminal = Foreground::claim();
    let signals = signal_hook::iterator::Signals::new(RUN_SIGNALS).ok();
    let mut command = std::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .env_clear()
        .envs(&env)
        .current_dir(&inv.cwd);
    let in_foreground = terminal.is_some();
    // SAFETY: only async-signal-safe calls (setpgid, tcsetpgrp, signal) between fork and exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(move || {
            libc::setpgid(0, 0);
            if in_foreground {
                libc::tcsetpgrp(libc::STDIN_FILENO, libc::getpgrp());
            }
            // Job control signals back to their defaults; SIGTSTP stays ignored (salloc.c).
            libc::signal(libc::SIGTTIN, libc::SIG_DFL);
            libc::signal(libc::SIGTTOU, libc::SIG_DFL);
            Ok(())
        });
    }
    let spawned = command.spawn();
    let mut revoked = false;
    let end = spawned.and_then(|child| {
        let group = child.id() as i32;
        // SAFETY: setpgid(2) on our own child, as the child does itself (no race either way).
        unsafe { libc::setpgid(group, group) };
        wait_watching(inv, cluster, id, child, signals, &mut revoked)
    });
    drop(terminal);
    let (code, exit) = match end {
        Ok(CommandEnd::Exited(s)) => exit_of(s),
        // salloc stopped waiting (SIGHUP): its status was never read.
        Ok(CommandEnd::HungUp) => (1, ExitStatus::code(0)),
        Err(e) => {
            inv.error(&format!("Unable to exec command \"{}\": {e}", argv[0]));
            (1, ExitStatus::code(1))
        }
    };
    // A revoked allocation is not given back: it is over already (salloc.c, REVOKED).
    if revoked {
        return code;
    }
    let _ = writeln!(inv.err, "salloc: Relinquishing job allocation {id}");
    if let Err(e) = cluster.release(id, exit) {
        inv.error(&format!("Unable to release job allocation {id}: {e}"));
    }
    code
}

/// salloc's exit status for its command's end, and the status the allocation ends with: a
/// command ended by SIGHUP, SIGINT, SIGQUIT or SIGKILL was most likely ended by its user, so
/// salloc exits 0; by another signal, 1 (salloc.c).
fn exit_of(status: std::process::ExitStatus) -> (i32, ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => (c, ExitStatus::code(c)),
        (None, Some(sig)) => {
            let by_user = matches!(
                sig,
                libc::SIGHUP | libc::SIGINT | libc::SIGQUIT | libc::SIGKILL
            );
            (if by_user { 0 } else { 1 }, ExitStatus::signal(sig))
        }
        _ => (1, ExitStatus::code(1)),
    }
}

/// The signals salloc acts on while its command runs: SIGHUP is passed to the command and
/// salloc stops waiting for it; the others end the allocation under the command (the
/// handler salloc installed while it waited for the allocation stays).
const RUN_SIGNALS: [i32; 7] = [
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGPIPE,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
];

/// How salloc stopped waiting for its command.
enum CommandEnd {
    Exited(std::process::ExitStatus),
    /// SIGHUP: passed on to the command, which salloc no longer waits for.
    HungUp,
}

/// salloc in the terminal's foreground (`is_interactive`): it takes the terminal for its
/// own process group, gives it to the command, and takes it back when dropped.
struct Foreground;

impl Foreground {
    fn claim() -> Option<Foreground> {
        // SAFETY: isatty/tcgetpgrp/getpgrp only read the state of this process and its tty.
        let interactive = unsafe {
            libc::isatty(libc::STDIN_FILENO) == 1
                && libc::tcgetpgrp(libc::STDIN_FILENO) == libc::getpgrp()
        };
        if !interactive {
            return None;
        }
        // SAFETY: ignoring the job control signals and taking the terminal, as salloc.c
        // does before it starts the command.
        unsafe {
            libc::signal(libc::SIGTSTP, libc::SIG_IGN);
            libc::signal(libc::SIGTTIN, libc::SIG_IGN);
            libc::signal(libc::SIGTTOU, libc::SIG_IGN);
            libc::setpgid(0, 0);
            libc::tcsetpgrp(libc::STDIN_FILENO, libc::getpgrp());
        }
        Some(Foreground)
    }
}

impl Drop for Foreground {
    fn drop(&mut self) {
        // SAFETY: giving the terminal back to salloc's group (SIGTTOU is ignored).
        unsafe { libc::tcsetpgrp(libc::STDIN_FILENO, libc::getpgrp()) };
    }
}

/// How often salloc asks whether its allocation still stands while the command runs
/// (slurmctld tells salloc; here it asks).
const REVOKE_POLL: std::time::Duration = std::time::Duration::from_secs(5);

/// Waits for the command; meanwhile, when the job ends under it (scancel, its time limit),
/// says so as salloc does (`_job_complete_handler`) and lets the command go on: salloc
/// kills it only when built with SALLOC_KILL_CMD, which Slurm's default build is not. A
/// signal salloc catches ends the job (22.05: cancelled; 24.11: failed with 128+signal);
/// SIGHUP goes to the command and salloc waits no more.
fn wait_watching(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    id: u32,
    mut child: std::process::Child,
    mut signals: Option<signal_hook::iterator::Signals>,
    revoked: &mut bool,
) -> std::io::Result<CommandEnd> {
    let mut asked = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(CommandEnd::Exited(status));
        }
        let caught: Vec<i32> = signals
            .as_mut()
            .map_or_else(Vec::new, |s| s.pending().collect());
        for sig in caught {
            if sig == libc::SIGHUP {
                // SAFETY: killpg(2) on the command's own process group.
                unsafe { libc::killpg(child.id() as i32, libc::SIGHUP) };
                return Ok(CommandEnd::HungUp);
            }
            if !*revoked {
                *revoked = true;
                if inv.profile.job_env.salloc_signal_fails_job {
                    let _ = cluster.release(id, ExitStatus::signal(sig));
                } else {
                    allocate::cancel(inv, cluster, id);
                }
                let _ = writeln!(inv.err, "salloc: Job allocation {id} has been revoked.");
            }
        }
        if !*revoked && asked.elapsed() >= REVOKE_POLL {
            asked = std::time::Instant::now();
            let ended = cluster.jobs_with_ids(&[id]).ok().and_then(|jobs| {
                jobs.into_iter()
                    .find(|j| j.job_id == id && j.array.is_none())
                    .and_then(|j| revocation(&j, crate::sys::now()))
            });
            if let Some(timed_out) = ended {
                *revoked = true;
                let _ = if timed_out {
                    writeln!(
                        inv.err,
                        "salloc: Job {id} has exceeded its time limit and its allocation has been revoked."
                    )
                } else {
                    writeln!(inv.err, "salloc: Job allocation {id} has been revoked.")
                };
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Whether the allocation `job` is over, as slurmctld tells salloc: when the job ends
/// or starts completing (a cancel is told at once, not when its last process has gone):
/// `Some(true)` for its time limit, `Some(false)` for anything else; None while it stands.
fn revocation(job: &crate::model::JobRecord, now: i64) -> Option<bool> {
    use crate::model::{JobState, StateFlag};
    if job.state.is_finished() {
        return Some(job.state == JobState::Timeout);
    }
    if job.flag != StateFlag::Completing {
        return None;
    }
    // A session ending with no result yet: its limit passed, or someone ended it.
    let limit_passed = job
        .time_limit
        .seconds()
        .zip(job.start_time)
        .is_some_and(|(limit, start)| now >= start + limit);
    Some(limit_passed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn an_allocation_is_revoked_once_its_job_ends_or_starts_completing() {
        use crate::model::{JobRecord, JobState, StateFlag, TimeLimit};
        let job = |state, flag| JobRecord {
            state,
            flag,
            start_time: Some(1_000),
            time_limit: TimeLimit::Minutes(5),
            ..JobRecord::default()
        };
        let running = job(JobState::Running, StateFlag::None);
        assert_eq!(revocation(&running, 1_100), None);
        let cancelled = job(JobState::Running, StateFlag::Completing);
        assert_eq!(revocation(&cancelled, 1_100), Some(false));
        assert_eq!(revocation(&cancelled, 1_300), Some(true));
        let ended = job(JobState::Cancelled, StateFlag::None);
        assert_eq!(revocation(&ended, 1_100), Some(false));
        let timed_out = job(JobState::Timeout, StateFlag::None);
        assert_eq!(revocation(&timed_out, 1_100), Some(true));
    }

    #[test]
    fn a_command_ended_by_its_user_exits_salloc_0_another_signal_1() {
        let of = |raw: i32| exit_of(std::process::ExitStatus::from_raw(raw));
        assert_eq!(of(3 << 8), (3, ExitStatus::code(3)));
        for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGKILL] {
            assert_eq!(of(sig), (0, ExitStatus::signal(sig)));
        }
        for sig in [libc::SIGTERM, libc::SIGUSR1, libc::SIGSEGV] {
            assert_eq!(of(sig), (1, ExitStatus::signal(sig)));
        }
    }
}
