//! The queue runner (`bai-slurm __local-runner`): one per state directory, started on
//! demand by any command. Each pass accounts for launchers that died, decides which pending
//! jobs start (schedule.rs) and spawns a launcher per started job. It sleeps until kicked or
//! for one second, and leaves when it has had nothing to do for `idle_exit` seconds.

use super::db::{DbResult, JobRow, Tx};
use super::schedule::{self, Capacity, Deadline, Decision, Request, reason};
use super::{LocalCluster, control, executor, gres, plan, procs, records};
use crate::backend::Cluster;
use crate::model::{ArrayPart, JobState, StateFlag};
use std::collections::HashMap;
use std::ffi::OsStr;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Seconds a started job may wait for its launcher to claim it before it is requeued.
const CLAIM_TIMEOUT: i64 = 60;

struct Launch {
    job_id: u32,
    child: Child,
    exited: bool,
}

/// Shortest time between two scheduling passes: a flood of kicks costs at most this rate
/// (short jobs then start at up to 100 per CPU and second). Passes are also spaced by twice
/// their own work, so a long pass (a queue of thousands) leaves the machine and the
/// commands' writes at least half of the time.
const MIN_PASS_INTERVAL: Duration = Duration::from_millis(10);
/// How often the runner looks for orphans and old job directories.
const HOUSEKEEPING_INTERVAL: Duration = Duration::from_secs(1);
/// runner.log is rotated (to runner.log.1) beyond this size.
const MAX_LOG: u64 = 1 << 20;

pub fn run(cluster: &LocalCluster) -> i32 {
    let lock_path = cluster.state_dir.join("runner.lock");
    let Ok(lock) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
    else {
        eprintln!("bai-slurm runner: cannot open {}", lock_path.display());
        return 1;
    };
    // One runner per state directory; a second one simply leaves.
    let Ok(_lock) = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusiveNonblock)
    else {
        return 0;
    };
    let uid = nix::unistd::getuid().as_raw();
    let mut listener = match control::Listener::bind(&cluster.state_dir, uid) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "bai-slurm runner: cannot listen on {}: {e}",
                cluster.state_dir.join("runner.sock").display()
            );
            return 1;
        }
    };
    // Orphans of a launcher that dies come to us, and are killed (procs.rs).
    procs::become_subreaper();
    // One connection open for as long as the runner runs: SQLite resets the write-ahead
    // log and its index when the first connection opens the database and checkpoints and
    // deletes it when the last one closes (fsyncs, a read of the whole log), which every
    // command paid when the passes between them left the database closed.
    let _keep_open = cluster.db().ok();
    let me = std::process::id() as i32;
    rotate_log(&cluster.state_dir);
    let lock_id = file_id(&lock_path);
    let exe = crate::sys::own_executable().ok();
    let exe_id = exe.as_deref().and_then(file_id);
    let mut launches: Vec<Launch> = Vec::new();
    // Children this process already has are launchers started before it became this
    // program again (the re-exec after an upgrade, below): theirs are running jobs, not
    // orphans to kill.
    let mut inherited: Vec<i32> = procs::all()
        .iter()
        .filter(|p| p.ppid == me && !p.zombie)
        .map(|p| p.pid)
        .collect();
    let mut log = LogLimiter::default();
    let mut idle_since = Instant::now();
    let mut last_housekeeping = Instant::now() - HOUSEKEEPING_INTERVAL;
    // Clean-up runs as often as MinJobAge asks, at most every second, at least every 30 s.
    let purge_interval = Duration::from_secs(u64::from(cluster.settings.min_job_age).clamp(1, 30));
    let mut last_purge = Instant::now() - purge_interval;
    let idle_exit = Duration::from_secs(u64::from(cluster.settings.idle_exit));
    // priority/multifactor's decay thread: it first runs one period after the controller
    // starts, as slurmctld's.
    let mut last_decay = Instant::now();
    // sched/backfill's cycle (the default SchedulerType of both releases): every
    // bf_interval after the controller starts; its time is kept when it had jobs to test.
    let mut last_backfill = Instant::now();
    loop {
        let pass_started = Instant::now();
        for l in launches.iter_mut() {
            if !l.exited && matches!(l.child.try_wait(), Ok(Some(_))) {
                l.exited = true;
            }
        }
        let active = match pass(cluster, &mut launches) {
            Ok(n) => n,
            Err(e) => {
                log.say(&format!("bai-slurm runner: {e}"));
                1
            }
        };
        for skipped in cluster.warnings() {
            log.say(&format!("bai-slurm runner: {skipped}"));
        }
        launches.retain(|l| !l.exited);
        if last_housekeeping.elapsed() >= HOUSEKEEPING_INTERVAL {
            last_housekeeping = Instant::now();
            let mine: Vec<i32> = launches.iter().map(|l| l.child.id() as i32).collect();
            kill_orphans(me, &mine, &mut inherited);
            if listener.refused > 0 {
                log.say(&format!(
                    "bai-slurm runner: ignored {} wake-ups from other users",
                    listener.refused
                ));
                listener.refused = 0;
            }
        }
        if last_decay.elapsed() >= super::priority::CALC_PERIOD {
            last_decay = Instant::now();
            if let Err(e) = cluster.decay_pass() {
                log.say(&format!("bai-slurm runner: computing priorities: {e}"));
            }
        }
        if last_backfill.elapsed() >= BF_INTERVAL {
            last_backfill = Instant::now();
            if let Err(e) = backfill_cycle(cluster) {
                log.say(&format!("bai-slurm runner: backfill cycle: {e}"));
            }
        }
        if last_purge.elapsed() >= purge_interval {
            last_purge = Instant::now();
            if let Err(e) = purge(cluster) {
                log.say(&format!("bai-slurm runner: cleaning up: {e}"));
            }
            rotate_log(&cluster.state_dir);
        }
        if file_id(&lock_path) != lock_id {
            // The state directory was removed or replaced: this runner has nothing to run.
            return 0;
        }
        if let Some(path) = &exe
            && file_id(path) != exe_id
            && file_id(path).is_some()
        {
            // bai-slurm was upgraded underneath us: become the new version. Launchers keep
            // running; the new runner finds them in the database.
            drop(listener);
            use std::os::unix::process::CommandExt;
            let err = Command::new(path)
                .arg("__local-runner")
                .arg(&cluster.state_dir)
                .exec();
            eprintln!(
                "bai-slurm runner: cannot restart as {}: {err}",
                path.display()
            );
            return 1;
        }
        let work = pass_started.elapsed();
        if active > 0 || !launches.is_empty() {
            idle_since = Instant::now();
        } else if idle_since.elapsed() >= idle_exit {
            return 0;
        }
        listener.wait(Duration::from_secs(1));
        // However many kicks come, passes are at least this far apart.
        let spacing = (work * 2).max(MIN_PASS_INTERVAL);
        if let Some(rest) = spacing.checked_sub(pass_started.elapsed()) {
            std::thread::sleep(rest);
        }
    }
}

/// Kills what a dead launcher left behind: our adopted children that are not launchers
/// (ours, or `inherited` ones still running). One look at the process table: orphans
/// killed now are reaped at the next look, as are inherited launchers that have ended.
fn kill_orphans(me: i32, ours: &[i32], inherited: &mut Vec<i32>) {
    let table = procs::all();
    inherited.retain(|&pid| table.iter().any(|p| p.pid == pid && !p.zombie));
    let launchers: Vec<i32> = ours.iter().chain(inherited.iter()).copied().collect();
    procs::reap_adopted(&table, me, &launchers);
    let orphans = table
        .iter()
        .filter(|p| p.ppid == me && !p.zombie && !launchers.contains(&p.pid));
    let my_session = nix::unistd::getsid(None).map_or(-1, |s| s.as_raw());
    for p in orphans {
        // Its own descendants go with it: they are in its session, or come to us next.
        // (Of the orphan's user: in system mode, jobs' processes are their users'.)
        if p.session != my_session {
            procs::kill_leftovers(p.session, p.start, None, p.uid, me);
        }
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(p.pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Removes the directories of jobs that ended more than MinJobAge ago and the scripts
/// nobody can need any more (Slurm purges a job's record and script then); their
/// accounting rows stay for sacct.
fn purge(cluster: &LocalCluster) -> DbResult<()> {
    let cutoff = crate::sys::now() - i64::from(cluster.settings.min_job_age);
    let mut db = cluster
        .db()
        .map_err(|e| super::db::DbError::Corrupt(e.to_string()))?;
    let ended = db.write(|tx| tx.purge_ended_before(cutoff))?;
    for job_id in ended {
        match std::fs::remove_dir_all(cluster.job_dir(job_id)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!("bai-slurm runner: cannot remove job {job_id}'s files: {e}"),
        }
    }
    Ok(())
}

/// Keeps runner.log bounded: beyond MAX_LOG it becomes runner.log.1 (replacing the one
/// before) and the runner writes to a new runner.log.
fn rotate_log(state_dir: &std::path::Path) {
    let log = state_dir.join("runner.log");
    if std::fs::metadata(&log).map_or(true, |m| m.len() < MAX_LOG) {
        return;
    }
    if std::fs::rename(&log, state_dir.join("runner.log.1")).is_err() {
        return;
    }
    if let Ok(f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
    {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto our own stderr descriptor; `f` stays valid for the call.
        unsafe {
            libc::dup2(f.as_raw_fd(), libc::STDERR_FILENO);
        }
    }
}

/// Says each distinct line at most once a minute, so a fault that lasts (a full disk, a
/// bad record) cannot fill the log.
#[derive(Default)]
struct LogLimiter {
    last: HashMap<String, Instant>,
}

impl LogLimiter {
    fn say(&mut self, line: &str) {
        let now = Instant::now();
        if self
            .last
            .get(line)
            .is_some_and(|t| now.duration_since(*t) < Duration::from_secs(60))
        {
            return;
        }
        if self.last.len() > 1000 {
            self.last.clear();
        }
        self.last.insert(line.to_string(), now);
        eprintln!("{line}");
    }
}

/// (device, inode) of a file, to notice when it is replaced.
fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Seconds after submission before the scheduler's own look at a job shows: which limit
/// a job over its partition's limits is over (until then: PartitionConfig, as slurmctld's
/// submission sets it), and why a job with a deadline waits (until then: None, as
/// slurmctld does not try such a job at submission).
const FIRST_LOOK_DELAY: i64 = 2;

/// One scheduling pass. Returns how many jobs are still pending or running.
///
/// The queue is read and the decisions made outside the write lock, so that commands
/// (sbatch, scancel, ...) do not wait for a pass over a long queue; the decisions are then
/// applied in a short write, each only to a job that has not changed since it was read
/// (one that has is decided again at the next pass).
fn pass(cluster: &LocalCluster, launches: &mut Vec<Launch>) -> DbResult<usize> {
    let now = crate::sys::now();
    let mut db = cluster
        .db()
        .map_err(|e| super::db::DbError::Corrupt(e.to_string()))?;
    db.write(|tx| {
        for mut row in tx.running_jobs()? {
            check_running(tx, cluster, &mut row, launches, now)?;
        }
        Ok(())
    })?;
    let settings = &cluster.settings;
    let names = settings.node_names();
    let (jobs, specs, before, decisions, mut taken) = db.read(|tx| {
        let mut jobs = tx.active_jobs()?;
        let targets: Vec<u32> = jobs
            .iter()
            .filter(|j| j.state == JobState::Pending)
            .filter_map(|j| j.dependency.as_ref())
            .flat_map(|d| d.items.iter().filter_map(|i| i.target.map(|t| t.job_id())))
            .collect();
        let known: std::collections::HashSet<u32> = jobs.iter().map(|j| j.job_id).collect();
        for r in tx.jobs_related(&targets)? {
            if !known.contains(&r.job_id) {
                jobs.push(r);
            }
        }
        let sub_ids: Vec<u32> = jobs
            .iter()
            .filter(|j| j.state == JobState::Pending)
            .map(|j| j.submission_id)
            .collect();
        let specs = tx.submissions(&sub_ids)?;
        let before: HashMap<u32, JobRow> = jobs.iter().map(|j| (j.job_id, j.clone())).collect();
        let cluster_profile = cluster.profile();
        // GPU devices running jobs hold, per node.
        let taken = held_per_node(settings, names.len(), tx.running_gpus()?);
        let marks = tx.node_marks()?;
        let capacity: Vec<Capacity> = taken
            .iter()
            .zip(&names)
            .map(|(t, name)| Capacity {
                cpus: settings.node.cpus,
                mem_mb: settings.node.memory_mb,
                gpus: settings.node.gpus.saturating_sub(t.len() as u32),
                in_service: super::node_admin::in_service(&marks, name),
            })
            .collect();
        let unavailable = {
            let out: Vec<&str> = names
                .iter()
                .zip(&capacity)
                .filter(|(_, c)| !c.in_service)
                .map(|(n, _)| n.as_str())
                .collect();
            (!out.is_empty()).then(|| {
                if cluster_profile.submit.node_not_avail_unnamed {
                    "ReqNodeNotAvail, May be reserved for other job".to_string()
                } else {
                    format!(
                        "ReqNodeNotAvail, UnavailableNodes:{}",
                        crate::model::hostlist::compress(&out)
                    )
                }
            })
        };
        let decisions = schedule::plan(
            &mut jobs,
            |row| {
                let spec = specs.get(&row.submission_id);
                let named = |list: Option<&String>| {
                    list.map_or_else(Vec::new, |l| settings.node_indexes(l))
                };
                let required = named(spec.and_then(|s| s.nodelist.as_ref()));
                Request {
                    cpus: row.alloc_cpus,
                    mem_mb: row.alloc_mem_mb,
                    nodes: spec.map_or(1, |s| s.nodes()),
                    gpus: spec.map_or(0, |s| gres::gpus_per_node(s).unwrap_or(0)),
                    over_time_limit: spec.is_some_and(|s| {
                        settings
                            .partition_of(s)
                            .times()
                            .check(s.time_limit)
                            .is_err()
                    }),
                    begin: spec.and_then(|s| s.begin),
                    deadline: spec.and_then(|s| {
                        deadline_of(s, cluster_profile.submit.deadline_of_every_pending_job)
                    }),
                    unavailable: unavailable.clone(),
                    required_unavailable: {
                        let out: Vec<&str> = required
                            .iter()
                            .filter(|&&i| !capacity[i].in_service)
                            .map(|&i| names[i].as_str())
                            .collect();
                        (!out.is_empty()).then(|| crate::model::hostlist::compress(&out))
                    },
                    required,
                    excluded: named(spec.and_then(|s| s.exclude.as_ref())),
                }
            },
            &capacity,
            |row| {
                row.node
                    .as_deref()
                    .map_or_else(|| vec![0], |n| settings.node_indexes(n))
            },
            now,
        );
        Ok((jobs, specs, before, decisions, taken))
    })?;
    let to_launch = db.write(|tx| {
        let current =
            |job_id: u32| -> DbResult<bool> { Ok(tx.job(job_id)?.as_ref() == before.get(&job_id)) };
        // CPU ids running jobs hold, per node (slurmctld gives the lowest free ones).
        let mut cpus_taken = held_per_node(settings, names.len(), tx.running_cpus()?);

        let mut to_launch = Vec::new();
        // by id: a pass over a long queue stays linear
        let index: HashMap<u32, usize> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.job_id, i))
            .collect();
        let first_look = |row: &JobRow| now - row.submit_time < FIRST_LOOK_DELAY;
        let keeps_priority_reason = cluster
            .profile()
            .submit
            .over_time_limit_keeps_priority_reason;
        // The jobs still waiting after this pass, with the reasons they show (one over its
        // partition's time limit in its first moment: not yet stopped by it).
        let waiting: Vec<schedule::Queued> = match keeps_priority_reason {
            false => Vec::new(),
            true => decisions
                .iter()
                .filter_map(|(id, d)| match d {
                    Decision::Wait { reason: why } => {
                        let row = &jobs[*index.get(id)?];
                        let stopped_later =
                            why.as_ref() == reason::PARTITION_TIME_LIMIT && first_look(row);
                        Some(schedule::Queued {
                            job_id: row.job_id,
                            priority: row.priority,
                            submit_time: row.submit_time,
                            reason: match stopped_later {
                                true => reason::NONE.to_string(),
                                false => why.to_string(),
                            },
                        })
                    }
                    _ => None,
                })
                .collect(),
        };
        for (job_id, decision) in decisions {
            let Some(mut row) = index.get(&job_id).map(|&i| jobs[i].clone()) else {
                continue;
            };
            // Only a job unchanged since it was read gets what was decided for it; a
            // plain wait writes nothing unless its reason changed.
            let writes = !matches!(decision, Decision::Wait { .. })
                || specs
                    .get(&row.submission_id)
                    .is_some_and(|s| s.immediate == Some(1) || s.kill_on_invalid_dep == Some(true));
            if writes && !current(job_id)? {
                continue;
            }
            match decision {
                Decision::Start { tasks, placements } => {
                    let lists: Vec<String> = placements
                        .iter()
                        .map(|p| {
                            let on: Vec<&str> = p.iter().map(|&i| names[i].as_str()).collect();
                            crate::model::hostlist::compress(&on)
                        })
                        .collect();
                    let want = specs
                        .get(&row.submission_id)
                        .map_or(0, |s| gres::gpus_per_node(s).unwrap_or(0));
                    let cpus = row.alloc_cpus;
                    let started = start(tx, &mut row, tasks, &lists, now)?;
                    if let Some(spec) = specs.get(&row.submission_id)
                        && let Some(at) = spec.deadline
                    {
                        let limit = settings
                            .partition_of(spec)
                            .times()
                            .job_limit(spec.time_limit);
                        for id in &started {
                            cap_at_deadline(tx, *id, limit, at, now)?;
                        }
                    }
                    for (job_id, on) in started.iter().zip(&placements) {
                        let held: Vec<Vec<u32>> = on
                            .iter()
                            .map(|&i| {
                                let d = gres::pick(settings.node.gpus, &taken[i], want);
                                taken[i].extend(&d);
                                d
                            })
                            .collect();
                        let text = (want > 0).then(|| gres::format_held(&held));
                        tx.set_job_gpus(*job_id, text.as_deref())?;
                        let per_node = cpus.div_ceil(on.len().max(1) as u32);
                        let ids: Vec<Vec<u32>> = on
                            .iter()
                            .map(|&i| {
                                let ids = gres::pick(settings.node.cpus, &cpus_taken[i], per_node);
                                cpus_taken[i].extend(&ids);
                                ids
                            })
                            .collect();
                        tx.set_job_cpus(*job_id, &gres::format_held(&ids))?;
                    }
                    to_launch.extend(started)
                }
                Decision::Deadline => {
                    // `deadline_ok`: ended where it waits.
                    end_unstarted(&mut row, JobState::Deadline, reason::DEADLINE, now);
                    tx.update_job(&row)?;
                }
                Decision::Wait { .. }
                    if specs
                        .get(&row.submission_id)
                        .is_some_and(|s| s.immediate == Some(1)) =>
                {
                    // job_allocate's `immediate`: a job that cannot start at the first look
                    // fails; salloc/srun tell why.
                    end_unstarted(&mut row, JobState::Failed, reason::BAD_CONSTRAINTS, now);
                    tx.update_job(&row)?;
                }
                Decision::Wait { reason: why }
                    if why.as_ref() == reason::DEPENDENCY_NEVER
                        && specs
                            .get(&row.submission_id)
                            .is_some_and(|s| s.kill_on_invalid_dep == Some(true)) =>
                {
                    // --kill-on-invalid-dep=yes: the job goes instead of waiting forever.
                    row.state = JobState::Cancelled;
                    row.reason = why.to_string();
                    row.start_time = Some(now);
                    row.end_time = Some(now);
                    tx.update_job(&row)?;
                }
                Decision::Wait { reason: why } => {
                    let why: &str = &why;
                    // What accounting keeps as the job's Reason (slurmctld's
                    // state_reason_prev_db): the reason the job had as its scheduler's
                    // pass began. Held, deferred and dependent jobs have theirs from
                    // submission on; the scheduler's own (Resources, Priority,
                    // JobArrayTaskLimit) are seen from its next pass.
                    let seen = match why {
                        reason::HELD_USER
                        | reason::HELD_ADMIN
                        | reason::BEGIN_TIME
                        | reason::DEPENDENCY => why.to_string(),
                        // A dependency found impossible changes the job's reason, not the
                        // one accounting keeps (slurmctld leaves state_reason_prev_db).
                        reason::DEPENDENCY_NEVER => reason::DEPENDENCY.to_string(),
                        _ => reason::code_of(&row.reason)
                            .map_or_else(|| row.reason.clone(), str::to_string),
                    };
                    if !matches!(
                        seen.as_str(),
                        reason::NONE | reason::PRIORITY | reason::RESOURCES
                    ) {
                        row.reason_prev = seen;
                    }
                    row.reason = why.to_string();
                    // slurmctld says PartitionConfig at submission and names the limit
                    // once its scheduler has looked at the job (not in the same moment).
                    if matches!(
                        why,
                        reason::PARTITION_NODE_LIMIT | reason::PARTITION_TIME_LIMIT
                    ) && first_look(&row)
                    {
                        row.reason =
                            match keeps_priority_reason && why == reason::PARTITION_TIME_LIMIT {
                                true => schedule::over_time_limit_reason_24(&row, &waiting),
                                false => reason::PARTITION_CONFIG,
                            }
                            .into();
                    }
                    if matches!(why, reason::PRIORITY | reason::RESOURCES)
                        && first_look(&row)
                        && specs
                            .get(&row.submission_id)
                            .is_some_and(|s| s.deadline.is_some())
                    {
                        row.reason = reason::NONE.into();
                    }
                    if row.accounting_is_stale() {
                        row.record_in_accounting();
                    }
                    if matches!(
                        why,
                        reason::PRIORITY | reason::RESOURCES | reason::ARRAY_TASK_LIMIT
                    ) {
                        row.eligible_time.get_or_insert(now);
                    }
                    if before.get(&job_id) != Some(&row) && current(job_id)? {
                        row.last_sched_eval = Some(now);
                        tx.update_job(&row)?;
                    }
                }
            }
        }
        Ok(to_launch)
    })?;
    let (active, plan) = db.read(|tx| {
        let rows = tx.active_jobs()?;
        Ok((rows.len(), plan_of(tx, cluster, &rows, now)?))
    })?;
    db.write(|tx| tx.store_plans(&plan))?;
    for job_id in to_launch {
        match spawn_launcher(cluster, job_id) {
            Ok(child) => launches.push(Launch {
                job_id,
                child,
                exited: false,
            }),
            Err(e) => eprintln!("bai-slurm runner: cannot start launcher for job {job_id}: {e}"),
        }
    }
    Ok(active)
}

/// backfill's bf_interval (30 s by default in both releases).
const BF_INTERVAL: Duration = Duration::from_secs(30);

/// A backfill cycle: the runner's passes already plan the waiting jobs (`plan_of`, what
/// backfill's planning shows) and start what can start; what is left of backfill is the
/// time of its last cycle with jobs to test, which squeue --json shows (`last_backfill`).
fn backfill_cycle(cluster: &LocalCluster) -> DbResult<()> {
    let mut db = cluster
        .db()
        .map_err(|e| super::db::DbError::Corrupt(e.to_string()))?;
    db.write(|tx| tx.record_backfill_cycle(crate::sys::now()))
}

/// Plans the expected starts of the jobs waiting for resources (the first
/// `plan::MAX_JOB_TEST` in priority order, as backfill), to be stored, so that showing
/// a waiting job costs one lookup instead of a plan of the whole queue.
fn plan_of(
    tx: &Tx<'_>,
    cluster: &LocalCluster,
    active: &[JobRow],
    now: i64,
) -> DbResult<HashMap<u32, plan::Plan>> {
    let mut waiting: Vec<&JobRow> = active
        .iter()
        .filter(|r| plan::is_planned(r.state, &r.reason))
        .collect();
    waiting.sort_by_key(|r| (std::cmp::Reverse(r.priority), r.job_id));
    waiting.truncate(plan::MAX_JOB_TEST);
    let running = active.iter().filter(|r| r.state == JobState::Running);
    let rows: Vec<&JobRow> = running.chain(waiting).collect();
    let ids: Vec<u32> = rows.iter().map(|r| r.submission_id).collect();
    let specs = tx.submissions(&ids)?;
    let ctx = cluster.ctx();
    let mut records: Vec<_> = rows
        .iter()
        .filter_map(|r| {
            let spec = specs.get(&r.submission_id)?;
            Some(records::job_record(r, spec, &[], &ctx, false))
        })
        .collect();
    Ok(plan::planned(&mut records, &cluster.node_capacities(), now))
}

/// Accounts for a running job whose launcher has died or never came up.
fn check_running(
    tx: &Tx<'_>,
    cluster: &LocalCluster,
    row: &mut JobRow,
    launches: &[Launch],
    now: i64,
) -> DbResult<()> {
    match (row.launcher_pid, row.launcher_start) {
        (Some(pid), Some(start)) => {
            if !procs::is_same_process(pid, start) {
                executor::reconcile_dead_launcher(tx, cluster, row, now)?;
            }
        }
        _ => match launches.iter().find(|l| l.job_id == row.job_id) {
            Some(l) if l.exited => executor::fail_launch(tx, row, now)?,
            Some(_) => {}
            None if row.start_time.is_some_and(|s| now - s > CLAIM_TIMEOUT) => {
                // Started by a runner that died before spawning its launcher: run it again.
                row.state = JobState::Pending;
                row.flag = StateFlag::None;
                row.start_time = None;
                row.node = None;
                row.reason = reason::NONE.into();
                tx.update_job(row)?;
            }
            None => {}
        },
    }
    Ok(())
}

/// A job's `--deadline` with the time it needs at least before it (`deadline_ok`): its
/// TimeMin as slurmctld holds it, else its time limit; nothing for an unlimited one.
/// Ends a job that never started as slurmctld ends one where it waits (a deadline passed,
/// an `--immediate` job with no room): `state` with `why`, exit code 0:1 (1:0 in
/// accounting), its start and end now.
fn end_unstarted(row: &mut JobRow, state: JobState, why: &str, now: i64) {
    row.state = state;
    row.reason = why.into();
    row.exit = crate::model::ExitStatus::from_wait_status(1);
    row.start_time = Some(now);
    row.end_time = Some(now);
    row.record_in_accounting();
}

fn deadline_of(spec: &crate::model::JobSpec, while_waiting: bool) -> Option<Deadline> {
    use crate::model::TimeLimit;
    let at = spec.deadline?;
    let needs = match (spec.time_min_minutes(), spec.time_limit) {
        (Some(m), _) if m > 0 => Some(i64::from(m) * 60),
        (_, Some(TimeLimit::Minutes(m))) => Some(i64::from(m) * 60),
        _ => None,
    };
    Some(Deadline {
        at,
        needs,
        while_waiting,
    })
}

/// A job with a deadline starts with at most the whole minutes left before it
/// (`_schedule`'s deadline_time_limit), kept as its time limit.
fn cap_at_deadline(
    tx: &Tx<'_>,
    job_id: u32,
    limit: crate::model::TimeLimit,
    at: i64,
    now: i64,
) -> DbResult<()> {
    use crate::model::TimeLimit;
    let left = u32::try_from((at - now).max(0) / 60).unwrap_or(u32::MAX);
    if matches!(limit, TimeLimit::Minutes(m) if m <= left) {
        return Ok(());
    }
    let Some(mut row) = tx.job(job_id)? else {
        return Ok(());
    };
    let mut spec = super::jobctl::own_spec(tx, &mut row)?;
    spec.time_limit = Some(TimeLimit::Minutes(left));
    tx.replace_submission(row.submission_id, &spec)?;
    tx.update_job(&row)
}

/// Marks a job (or `tasks` tasks of an array) as started. Returns the job ids to launch.
/// What running jobs hold on each of the `nodes` nodes (GPU devices or CPU ids), from
/// their (node list, ids as stored) rows.
fn held_per_node(
    settings: &super::LocalSettings,
    nodes: usize,
    rows: Vec<(String, String)>,
) -> Vec<Vec<u32>> {
    let mut taken: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (list, held) in rows {
        for (i, ids) in settings
            .node_indexes(&list)
            .into_iter()
            .zip(gres::parse_held(&held))
        {
            if let Some(t) = taken.get_mut(i) {
                t.extend(ids);
            }
        }
    }
    taken
}

fn start(
    tx: &Tx<'_>,
    row: &mut JobRow,
    tasks: u32,
    nodes: &[String],
    now: i64,
) -> DbResult<Vec<u32>> {
    let set_started = |r: &mut JobRow, i: usize| {
        r.state = JobState::Running;
        r.flag = StateFlag::Configuring;
        r.start_time = Some(now);
        r.node = nodes.get(i).cloned();
        r.reason = reason::NONE.into();
        r.eligible_time.get_or_insert(now);
        r.last_sched_eval = Some(now);
        r.launcher_pid = None;
        r.launcher_start = None;
        r.job_pgid = None;
        r.record_in_accounting();
    };
    let Some(ArrayPart::Pending {
        array_job_id,
        tasks: pending,
        throttle,
    }) = row.array.clone()
    else {
        set_started(row, 0);
        tx.update_job(row)?;
        return Ok(vec![row.job_id]);
    };
    let mut pending = pending;
    pending.sort_unstable();
    let n = (tasks as usize).min(pending.len());
    let batch: Vec<u32> = pending.drain(..n).collect();
    // The last task of an array takes over the array's own record, as in slurmctld.
    let takes_over = pending.is_empty();
    let mut started = Vec::new();
    for (i, &task) in batch.iter().enumerate() {
        let mut r = row.clone();
        r.array = Some(ArrayPart::Task {
            array_job_id,
            task_id: task,
        });
        set_started(&mut r, i);
        if takes_over && i + 1 == batch.len() {
            tx.update_job(&r)?;
        } else {
            r.job_id = tx.next_job_id()?;
            tx.insert_job(&r)?;
        }
        started.push(r.job_id);
    }
    if !pending.is_empty() {
        row.array = Some(ArrayPart::Pending {
            array_job_id,
            tasks: pending,
            throttle,
        });
        tx.update_job(row)?;
    }
    Ok(started)
}

fn spawn_launcher(cluster: &LocalCluster, job_id: u32) -> std::io::Result<Child> {
    let settings = serde_json::to_string(&cluster.settings).map_err(std::io::Error::other)?;
    let id = job_id.to_string();
    let args = [
        OsStr::new("__launch"),
        cluster.state_dir.as_os_str(),
        OsStr::new(&id),
        OsStr::new(&settings),
    ];
    // The launcher leads a session of its own, so every process of its job carries its id.
    if cluster.settings.service_socket.is_none() {
        return control::start_detached(&cluster.state_dir, &args);
    }
    // System mode: the launcher runs as the job's user, in a job directory of theirs.
    let uid = cluster
        .db()
        .map_err(std::io::Error::other)?
        .read(|tx| tx.job(job_id))
        .map_err(std::io::Error::other)?
        .ok_or_else(|| std::io::Error::other("the job is gone"))?
        .uid;
    let user = crate::sys::lookup_user_by_uid(uid)
        .ok_or_else(|| std::io::Error::other(format!("uid {uid} is not a user of this machine")))?;
    let log = control::prepare_user_job_dir(&cluster.job_dir(job_id), &user)?;
    control::start_detached_as(&args, log, Some(control::RunAs::user(&user)?))
}
