//! One job's launcher process (`bai-slurm __launch`): claims the job, runs its batch step
//! with the batch wrapper, and records how it ended — in a result file first, then in the
//! database — so that the runner can account for it even if this process dies half-way.

use super::db::{Db, DbResult, JobRow, StepRow, Tx};
use super::{LocalCluster, procs, records};
use crate::launcher::batch::{self, BatchPlan, Ending};
use crate::launcher::env::{ArrayEnv, BatchEnvFacts, batch_env, fill_login_env};
use crate::model::{ArrayPart, ExitStatus, JobState, StateFlag, StepId};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EndKind {
    Exited,
    TimedOut,
    Cancelled,
    LaunchFailed,
    NodeFail,
}

/// What a launcher writes to `jobs/<id>/result` before it touches the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResultFile {
    kind: EndKind,
    exit: ExitStatus,
    end_time: i64,
}

impl From<Ending> for (EndKind, ExitStatus) {
    fn from(e: Ending) -> Self {
        match e {
            Ending::Exited(s) => (EndKind::Exited, s),
            Ending::TimedOut(s) => (EndKind::TimedOut, s),
            Ending::Cancelled(s) => (EndKind::Cancelled, s),
            Ending::LaunchFailed(s) => (EndKind::LaunchFailed, s),
        }
    }
}

fn result_path(job_dir: &Path) -> PathBuf {
    job_dir.join("result")
}

/// Room kept for the result: the file is made this long (blanks) when the job starts, and
/// the result is written over the blanks, so it can be written even on a full disk.
const RESULT_SPACE: usize = 512;

/// Makes the result file, blank, with its blocks allocated.
fn reserve_result(job_dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(job_dir)?;
    let f = std::fs::File::create(result_path(job_dir))?;
    use std::io::Write;
    (&f).write_all(&[b' '; RESULT_SPACE])?;
    f.sync_all()
}

/// Writes the result: over the reserved blanks when there are, else as a new file.
fn write_result(job_dir: &Path, result: &ResultFile) -> std::io::Result<()> {
    use std::io::Write;
    let mut bytes = serde_json::to_vec(result).map_err(std::io::Error::other)?;
    let path = result_path(job_dir);
    let reserved = std::fs::metadata(&path).is_ok_and(|m| m.len() == RESULT_SPACE as u64);
    if reserved && bytes.len() <= RESULT_SPACE {
        // Trailing blanks are whitespace to the JSON reader.
        bytes.resize(RESULT_SPACE, b' ');
        let f = std::fs::OpenOptions::new().write(true).open(&path)?;
        (&f).write_all(&bytes)?;
        return f.sync_data();
    }
    let tmp = job_dir.join("result.tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Where a running job's launcher finds a time limit changed after it started.
fn limit_path(job_dir: &Path) -> PathBuf {
    job_dir.join("time_limit")
}

/// Records a running job's new limit (seconds; none for no limit) for its launcher.
/// In system mode the job's user owns `job_dir` and the service writes it as root: the
/// file is made anew, never written through a link planted there.
pub fn write_limit(job_dir: &Path, limit: Option<i64>) -> std::io::Result<()> {
    let text = limit.map_or_else(|| "infinite".to_string(), |l| l.to_string());
    crate::sys::replace_file(&limit_path(job_dir), text.as_bytes(), 0o644)
}

/// Applies a job's end to its record and batch step, as slurmctld's job_complete does;
/// a job being requeued goes back to the queue instead.
pub(super) fn finalize(tx: &Tx<'_>, row: &mut JobRow, result: ResultFile) -> DbResult<()> {
    if let Some(how) = row.requeue {
        // The run that ends is kept as accounting keeps it: its batch step CANCELLED,
        // its other steps with it, by the requeue's SIGTERM (`0:15`; slurmd ends a
        // requeued job's steps as it ends a job, where scancel's are SIGKILLed).
        end_steps(tx, row.job_id, JobState::Cancelled, &result, libc::SIGTERM)?;
        return super::jobctl::requeue_reset(tx, row, how, result.end_time, true);
    }
    let (state, step_state, reason) = match result.kind {
        // slurmctld leaves the reason a running job had: None, or the hold's when it was
        // held while it ran.
        EndKind::Exited if result.exit.is_success() => (
            JobState::Completed,
            JobState::Completed,
            row.reason.as_str(),
        ),
        EndKind::Exited if result.exit.signal != 0 => {
            (JobState::Failed, JobState::Failed, "RaisedSignal")
        }
        EndKind::Exited => (JobState::Failed, JobState::Failed, "NonZeroExitCode"),
        EndKind::TimedOut => (JobState::Timeout, JobState::Cancelled, "TimeLimit"),
        EndKind::Cancelled => (
            JobState::Cancelled,
            JobState::Cancelled,
            row.reason.as_str(),
        ),
        EndKind::LaunchFailed => (JobState::Failed, JobState::Failed, "JobLaunchFailure"),
        EndKind::NodeFail => (JobState::NodeFail, JobState::NodeFail, "NodeDown"),
    };
    let reason = reason.to_string();
    row.state = state;
    row.flag = StateFlag::None;
    row.reason = reason;
    row.exit = result.exit;
    row.end_time = Some(result.end_time);
    row.start_time.get_or_insert(result.end_time);
    tx.update_job(row)?;
    end_steps(tx, row.job_id, step_state, &result, libc::SIGKILL)
}

/// Ends a job's steps with it: the batch step in `batch_state` with the script's exit,
/// the steps still running killed by `signal`.
fn end_steps(
    tx: &Tx<'_>,
    job_id: u32,
    batch_state: JobState,
    result: &ResultFile,
    signal: i32,
) -> DbResult<()> {
    for mut step in tx.steps_of(job_id)? {
        if step.step == StepId::Batch {
            step.state = batch_state;
            step.exit = result.exit;
        } else if step.state == JobState::Running {
            step.state = JobState::Cancelled;
            step.exit = ExitStatus::signal(signal);
        } else {
            continue;
        }
        step.end_time = Some(result.end_time);
        tx.upsert_step(&step)?;
    }
    Ok(())
}

/// The runner found a running job whose launcher is gone: use its result file if it
/// got that far, else the job failed with its node (Slurm's NODE_FAIL).
pub fn reconcile_dead_launcher(
    tx: &Tx<'_>,
    cluster: &LocalCluster,
    row: &mut JobRow,
    now: i64,
) -> DbResult<()> {
    // What the job left running dies with it, as slurmd kills a failed node's jobs.
    if let (Some(pid), Some(start)) = (row.launcher_pid, row.launcher_start) {
        procs::kill_leftovers(pid, start, None, row.uid, std::process::id() as i32);
    }
    let job_dir = cluster.job_dir(row.job_id);
    // In system mode the job's user owns the directory: a link there is not followed.
    let result = crate::sys::read_no_follow(&result_path(&job_dir))
        .ok()
        .and_then(|b| serde_json::from_slice::<ResultFile>(&b).ok())
        .unwrap_or(ResultFile {
            kind: EndKind::NodeFail,
            exit: ExitStatus::OK,
            end_time: now,
        });
    finalize(tx, row, result)?;
    let _ = std::fs::remove_file(job_dir.join("slurm_script"));
    Ok(())
}

/// A running job whose node an operator took DOWN and that may not be requeued: it ends
/// NODE_FAIL now, as slurmctld ends it (its launcher is stopped after).
pub fn end_by_node_failure(tx: &Tx<'_>, row: &mut JobRow, now: i64) -> DbResult<()> {
    row.requeue = None;
    finalize(
        tx,
        row,
        ResultFile {
            kind: EndKind::NodeFail,
            exit: ExitStatus::OK,
            end_time: now,
        },
    )
}

/// A launcher that exited without ever claiming its job.
pub fn fail_launch(tx: &Tx<'_>, row: &mut JobRow, now: i64) -> DbResult<()> {
    finalize(
        tx,
        row,
        ResultFile {
            kind: EndKind::LaunchFailed,
            exit: ExitStatus::code(1),
            end_time: now,
        },
    )
}

/// Takes job `job_id` for launcher `me`: the job (and its batch step) marked as run by
/// it. Nothing when the job is not a started one of `me`'s user waiting for its launcher;
/// a job cancelled meanwhile ends here.
pub(super) fn claim(
    tx: &Tx<'_>,
    cluster: &LocalCluster,
    job_id: u32,
    me: super::ledger::Launcher,
    now: i64,
) -> DbResult<Option<(crate::model::JobSpec, JobRow)>> {
    let Some(mut row) = tx.job(job_id)? else {
        return Ok(None);
    };
    if row.state != JobState::Running || row.launcher_pid.is_some() || row.uid != me.uid {
        return Ok(None);
    }
    if row.cancelled_by.is_some() {
        finalize(
            tx,
            &mut row,
            ResultFile {
                kind: EndKind::Cancelled,
                exit: ExitStatus::OK,
                end_time: now,
            },
        )?;
        return Ok(None);
    }
    row.launcher_pid = Some(me.pid);
    row.launcher_start = me.start;
    row.flag = StateFlag::None;
    tx.update_job(&row)?;
    let spec = tx.submission(row.submission_id)?;
    // An allocation without a script has no batch step, as with salloc and srun.
    if !spec.interactive {
        tx.upsert_step(&StepRow {
            job_id,
            step: StepId::Batch,
            name: "batch".into(),
            state: JobState::Running,
            start_time: Some(now),
            end_time: None,
            exit: ExitStatus::OK,
            ncpus: row.alloc_cpus,
            ntasks: 1,
            nnodes: 1,
            // The batch step runs on the job's first node.
            nodes: job_nodes(cluster, &row)[0].clone(),
            pgid: None,
            cancelled_by: None,
        })?;
    }
    Ok(Some((spec, row)))
}

/// Runs job `job_id`. Returns the launcher's own exit status (0 unless it could not work).
pub fn launch(cluster: &LocalCluster, job_id: u32) -> i32 {
    // Catch termination signals before claiming the job, so a cancel can never be lost.
    let signals = match signal_hook::iterator::Signals::new(batch::handled_signals()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bai-slurm launcher: cannot handle signals: {e}");
            return 1;
        }
    };
    let ledger = super::ledger::Ledger::for_cluster(cluster);
    // The job's orphans (a `setsid` daemon) come to us, and are killed when it ends.
    procs::become_subreaper();
    let me = std::process::id() as i32;
    let my_start = procs::start_time(me);
    let (spec, row) = match ledger.claim(job_id) {
        Ok(Some(claimed)) => claimed,
        Ok(None) => {
            ledger.kick();
            return 0;
        }
        Err(e) => {
            eprintln!("bai-slurm launcher: job {job_id}: {e}");
            return 1;
        }
    };

    // The GPU devices the scheduler gave the job; the batch step has node 0's.
    let gpus: Vec<u32> = ledger
        .job_gpus(job_id)
        .map(|h| {
            super::gres::parse_held(&h)
                .into_iter()
                .next()
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let job_dir = cluster.job_dir(job_id);
    // A limit left from an earlier run of the job (it was requeued) is no longer its own.
    let _ = std::fs::remove_file(limit_path(&job_dir));
    if let Err(e) = reserve_result(&job_dir) {
        eprintln!("bai-slurm launcher: job {job_id}: cannot reserve its result file: {e}");
    }
    // srun inside the job reaches the job's step servers (one per node) through these.
    let names = job_nodes(cluster, &row);
    let all = cluster.settings.node_names();
    let nodes: Vec<(String, String)> = names
        .iter()
        .map(|n| {
            let i = all.iter().position(|m| m == n).unwrap_or(0);
            (n.clone(), cluster.settings.node_addr(i))
        })
        .collect();
    let servers = super::steps::StepServers::start(cluster, job_id, &nodes);
    // srun inside the job finds its step servers in the job file we hold (nothing of
    // ours goes into the job's environment).
    let job_file = servers
        .as_ref()
        .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))
        .and_then(|s| s.job_file(job_id).hold());
    let plan = job_file
        .and_then(|held| prepare(cluster, &job_dir, &row, &spec, &gpus).map(|plan| (plan, held)));
    let ending = match plan {
        Ok((plan, _held)) if spec.interactive => {
            // An allocation: publish the step servers, then hold the allocation until its
            // owner gives it back (or it is cancelled, or runs out of time).
            match servers.as_ref().map(|s| super::steps::AllocationFile {
                nodes: s.nodes.clone(),
                secret: s.secret.clone(),
            }) {
                Ok(file) if file.write(&job_dir).is_ok() => {
                    let owner = spec.owner;
                    batch::hold(plan.time_limit, signals, move || {
                        owner.is_none_or(|(pid, start)| procs::is_same_process(pid, start))
                    })
                }
                _ => Ending::LaunchFailed(ExitStatus::code(1)),
            }
        }
        Ok((plan, _held)) => batch::run(&plan, signals, |pgid, err| {
            if let Ok(s) = &servers {
                s.messages.attach(err, &plan);
            }
            let _ = ledger.call(super::ledger::LedgerCall::SetPgid { job_id, pgid });
        }),
        Err(e) => {
            eprintln!("bai-slurm launcher: job {job_id}: {e}");
            Ending::LaunchFailed(ExitStatus::code(1))
        }
    };
    // Steps end with their job, on every node.
    if let Ok(servers) = servers {
        servers.kill_all();
    }
    // No process of the job outlives it: its session (when the runner made us its
    // leader) and what was adopted by us.
    let uid = nix::unistd::getuid().as_raw();
    let leader = nix::unistd::getsid(None).is_ok_and(|s| s.as_raw() == me);
    let session = if leader { me } else { -1 };
    procs::kill_leftovers(session, my_start.unwrap_or(0), Some(me), uid, me);
    let (kind, exit) = ending.into();
    let result = ResultFile {
        kind,
        exit,
        end_time: crate::sys::now(),
    };
    let write = || {
        let written = write_result(&job_dir, &result);
        if let Err(e) = &written {
            eprintln!("bai-slurm launcher: job {job_id}: cannot write its result file: {e}");
        }
        written.is_ok()
    };
    let written = write();
    let recorded = ledger.call(super::ledger::LedgerCall::RecordEnd { job_id, result });
    // The ledger waits out a full disk; when it fails for another reason (a lock held
    // past its timeout) the runner applies the result file, so a file the full disk kept
    // out (its room was not reserved in time) is written now that there is room.
    if recorded.is_err() && !written {
        write();
    }
    let _ = std::fs::remove_file(job_dir.join("slurm_script"));
    let _ = std::fs::remove_file(super::steps::AllocationFile::path(&job_dir));
    match recorded {
        Ok(_) => 0,
        Err(e) => {
            // The result file stays; the runner will apply it.
            eprintln!("bai-slurm launcher: job {job_id}: {e}");
            1
        }
    }
}

/// Runs `attempt` again while it fails on a full disk (for up to a day, backing off to one
/// try every 5 s), saying so once: a full disk delays the launcher's writes, it does not
/// lose them.
pub(super) fn while_disk_full<T>(
    job_id: u32,
    mut attempt: impl FnMut() -> DbResult<T>,
) -> DbResult<T> {
    let mut delay = Duration::from_millis(500);
    let give_up = std::time::Instant::now() + Duration::from_secs(86_400);
    let mut told = false;
    loop {
        match attempt() {
            Err(e) if e.is_disk_full() && std::time::Instant::now() < give_up => {
                if !told {
                    eprintln!("bai-slurm launcher: job {job_id}: {e}");
                    told = true;
                }
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// Opens the state database; on a full disk, waits for space rather than leave the job it
/// was started for unclaimed.
pub(super) fn open_waiting_for_space(cluster: &LocalCluster, job_id: u32) -> DbResult<Db> {
    while_disk_full(job_id, || cluster.open_db())
}

/// The job's nodes, in order (the one node when it was started before it had a list).
fn job_nodes(cluster: &LocalCluster, row: &JobRow) -> Vec<String> {
    row.node
        .as_deref()
        .and_then(crate::model::hostlist::expand)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| vec![cluster.settings.node.name.clone()])
}

/// Writes the script where the job can run it and works out its environment and files.
fn prepare(
    cluster: &LocalCluster,
    job_dir: &Path,
    row: &JobRow,
    spec: &crate::model::JobSpec,
    gpus: &[u32],
) -> std::io::Result<BatchPlan> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(job_dir)?;
    let script = job_dir.join("slurm_script");
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o700)
            .open(&script)?;
        f.write_all(&spec.script)?;
    }
    let s = &cluster.settings;
    let user = crate::sys::UserInfo::current();
    let nodes = job_nodes(cluster, row);
    // %N in file names is the node's host name (slurmstepd's conf->hostname): this
    // machine's (simulated nodes keep their names).
    let host = if s.nodes <= 1 {
        crate::sys::short_hostname()
    } else {
        nodes[0].clone()
    };
    let (stdout, stderr, stdin) = records::io_paths(row, spec, &user.name, &host);
    let array = match (&row.array, &spec.array) {
        (
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }),
            Some(a),
        ) => Some(ArrayEnv {
            array_job_id: *array_job_id,
            task_id: *task_id,
            count: a.tasks.len() as u32,
            min: a.tasks.iter().copied().min().unwrap_or(0),
            max: a.tasks.iter().copied().max().unwrap_or(0),
            step: a.step,
        }),
        _ => None,
    };
    let ntasks = spec
        .ntasks
        .or(spec.ntasks_per_node.map(|n| n * spec.nodes()));
    let n = nodes.len().max(1) as u32;
    let tasks = ntasks.unwrap_or(n);
    let facts = BatchEnvFacts {
        cluster_name: s.cluster_name.clone(),
        job_id: row.job_id,
        job_name: row.name.clone(),
        partition: s.partition_of(spec).name.clone(),
        account: spec.account.clone(),
        qos: Some(spec.qos.clone().unwrap_or_else(|| "normal".into())),
        nodelist: crate::model::hostlist::compress(&nodes),
        node_name: nodes[0].clone(),
        cpus_per_node: vec![row.alloc_cpus / n; nodes.len()],
        tasks_per_node: (0..n)
            .map(|i| tasks / n + u32::from(i < tasks % n))
            .collect(),
        ntasks,
        cpus_per_task: spec.cpus_per_task,
        ntasks_per_node: spec.ntasks_per_node,
        memory: Some(records::memory_request(spec, s.partition_of(spec))),
        user: user.name.clone(),
        uid: user.uid,
        gid: user.gid,
        array,
        dependency: spec.dependency_raw.clone(),
        restart_count: (row.restarts > 0).then_some(row.restarts),
        gpus: gpus.to_vec(),
        working_cluster: Some(crate::launcher::env::working_cluster(
            &s.cluster_name,
            "127.0.0.1",
        )),
        release: cluster.profile().job_env,
        start_time: row.start_time.unwrap_or_else(crate::sys::now),
        end_time: crate::launcher::env::end_at_limit(
            row.start_time.unwrap_or_else(crate::sys::now),
            records::time_limit(spec, &s.partition).seconds(),
        ),
    };
    let limit = records::time_limit(spec, s.partition_of(spec)).seconds();
    let mut env = batch_env(&spec.environment, &facts);
    fill_login_env(&mut env, &user);
    Ok(BatchPlan {
        script,
        args: spec.script_args.clone(),
        env,
        work_dir: PathBuf::from(&spec.work_dir),
        stdout: stdout.into(),
        stderr: stderr.into(),
        stdin: stdin.into(),
        append: spec.open_mode == Some(crate::model::OpenMode::Append),
        umask: spec.umask,
        rlimits: spec.rlimits.clone(),
        time_limit: limit.map(|l| Duration::from_secs(l as u64)),
        kill_wait: Duration::from_secs(u64::from(s.kill_wait)),
        warn_signal: spec
            .signal
            .map(|w| (w.signal, w.seconds_before, w.batch_only)),
        limit_file: Some(limit_path(job_dir)),
    })
}

/// Opens the job's database again in a child-safe way (used by tests).
pub fn open_db(cluster: &LocalCluster) -> Result<Db, crate::backend::BackendError> {
    cluster.db()
}
