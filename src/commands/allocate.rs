//! Allocations asked for from the command line: srun outside a job and salloc. The job is
//! submitted without a batch script; once it runs, the caller runs its steps (srun) or its
//! command (salloc) and gives the allocation back, which ends the job with that exit code.

use crate::backend::{AllocationDetails, Cluster};
use crate::cli::Invocation;
use crate::launcher::env::{AllocationUser, BatchEnvFacts, allocation_env};
use crate::launcher::jobfile::JobFile;
use crate::launcher::srun_client::{self, Allocation};
use crate::model::{ExitStatus, JobSpec};
use crate::options::job_opts::{self, BuildContext, JobOptions};
use crate::options::srun::SrunRequest;
use std::collections::BTreeMap;
use std::time::Duration;

/// What precedes the controller's refusal of an allocation: salloc's and srun's own words
/// (salloc.c `Job submit/allocate failed: %m`, srun's `Unable to allocate resources: %m`).
fn refusal_prefix(prog: &str) -> &'static str {
    if prog == "salloc" {
        "Job submit/allocate failed: "
    } else {
        "Unable to allocate resources: "
    }
}

/// Builds the allocation's JobSpec from the options (the same processing sbatch uses).
/// `command`: the program the allocation is for, which the controller keeps as the job's
/// `Command=` (srun's, and 24.11 salloc's: they send their argv; 22.05's salloc does not).
pub fn allocation_spec(
    inv: &Invocation<'_>,
    opts: &JobOptions,
    prog: &'static str,
    default_name: String,
    command: Option<&str>,
) -> Result<(JobSpec, Vec<String>), job_opts::Failure> {
    let ctx = BuildContext {
        prog,
        submit_prefix: refusal_prefix(prog),
        env: &inv.env,
        cwd: &inv.cwd,
        hostname: crate::sys::hostname(),
        umask: crate::sys::umask(),
        max_array_size: crate::model::array::DEFAULT_MAX_ARRAY_SIZE,
        error_exit: 1,
        default_name,
    };
    let (mut spec, messages) = job_opts::build(opts, &ctx, Vec::new(), None, Vec::new())?;
    spec.interactive = true;
    spec.made_by_srun = prog == "srun";
    if let Some(c) = command {
        spec.command = c.to_string();
    }
    let me = std::process::id() as i32;
    spec.owner = crate::backend::local::procs::start_time(me).map(|start| (me, start));
    Ok((spec, messages))
}

/// Submits the allocation and waits until it runs, printing Slurm's messages. `Err` carries
/// the exit status when it was refused or taken away (`immediate_exit` when `--immediate`
/// found no resources).
pub fn obtain(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    spec: &JobSpec,
    prog: &str,
    immediate_exit: i32,
) -> Result<(u32, AllocationDetails), i32> {
    // Caught from before the request: a signal while it is sent is seen right after.
    let mut signals = signal_hook::iterator::Signals::new(waiting_signals(prog)).ok();
    let mut id = submit(inv, cluster, spec, prog)?;
    let mut immediate = spec
        .immediate
        .and_then(|secs| Immediate::new(secs, cluster, immediate_exit));
    let mut waited = false;
    let mut delay = Duration::from_millis(50);
    loop {
        let caught: Vec<i32> = signals
            .as_mut()
            .map_or_else(Vec::new, |s| s.pending().collect());
        for sig in caught {
            cancel(inv, cluster, id);
            if sig == libc::SIGCONT {
                // srun's blocking request was interrupted: libslurm gives the job up and
                // srun asks again (a new job).
                id = submit(inv, cluster, spec, prog)?;
                waited = false;
                delay = Duration::from_millis(50);
                continue;
            }
            say_aborted_by_signal(inv, prog, id);
            return Err(1);
        }
        match cluster.allocation(id) {
            Ok(Some(details)) => {
                if waited {
                    let _ = writeln!(inv.err, "{prog}: job {id} has been allocated resources");
                }
                return Ok((id, details));
            }
            Ok(None) => {
                let given_up = immediate.as_mut().is_some_and(|i| i.expired(cluster, id));
                // Slurm says so as soon as the controller answers "pending"; a short wait
                // keeps a job that starts at once quiet, but one given up was queued (a slow
                // manager can use up `--immediate=3` in the first polls).
                if !waited && (given_up || delay >= Duration::from_millis(400)) {
                    waited = true;
                    say_queued(inv, prog, id);
                }
                if let (true, Some(i)) = (given_up, &immediate) {
                    return Err(i.give_up(inv, cluster, id, prog));
                }
            }
            // The scheduler failed an `--immediate` job it could not start at once.
            Err(_) if spec.immediate.is_some() => {
                inv.error("Unable to allocate resources: Requested nodes are busy");
                return Err(immediate_exit);
            }
            Err(e) => {
                let _ = writeln!(
                    inv.err,
                    "{prog}: error: Job allocation {id} has been revoked: {e}"
                );
                return Err(1);
            }
        }
        std::thread::sleep(delay);
        delay = (delay * 2).min(Duration::from_millis(500));
    }
}

/// Slurm's lines for an allocation the controller queued.
fn say_queued(inv: &mut Invocation<'_>, prog: &str, id: u32) {
    if prog == "salloc" {
        let _ = writeln!(inv.err, "salloc: Pending job allocation {id}");
    }
    let _ = writeln!(inv.err, "{prog}: job {id} queued and waiting for resources");
}

/// Sends the allocation request; `Err` is the exit status of a refusal, said as Slurm says it.
fn submit(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    spec: &JobSpec,
    prog: &str,
) -> Result<u32, i32> {
    super::backend_warnings(inv, cluster, spec, prog)
        .and_then(|()| cluster.submit(spec, &inv.user))
        .map_err(|e| {
            for d in &e.details {
                inv.error(d);
            }
            inv.error(&format!("{}{}", refusal_prefix(prog), e.reason()));
            1
        })
}

/// The signals that end the wait for an allocation, cancelling the job (salloc.c's and
/// srun.c's `sig_array` with their `_signal_while_allocating`). salloc lets SIGCONT be;
/// srun's SIGCONT interrupts its request, which starts over.
fn waiting_signals(prog: &str) -> &'static [i32] {
    use libc::*;
    if prog == "salloc" {
        &[SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2]
    } else {
        &[
            SIGINT, SIGQUIT, SIGCONT, SIGTERM, SIGHUP, SIGALRM, SIGUSR1, SIGUSR2, SIGPIPE,
        ]
    }
}

/// What salloc and srun say once a signal has cancelled the job they were waiting for (the
/// controller's job-complete message and their own words; 24.11's srun hears the former
/// after it has said the latter).
fn say_aborted_by_signal(inv: &mut Invocation<'_>, prog: &str, id: u32) {
    let lines = if prog == "salloc" {
        [
            format!("salloc: Job allocation {id} has been revoked."),
            "salloc: Job aborted due to signal".to_string(),
        ]
    } else {
        let revoked = format!("srun: Job allocation {id} has been revoked");
        let forced = format!("srun: Force Terminated JobId={id}");
        if inv.profile.job_env.step_messages_24 {
            [forced, revoked]
        } else {
            [revoked, forced]
        }
    };
    for line in lines {
        let _ = writeln!(inv.err, "{line}");
    }
}

/// `SLURM_EXIT_IMMEDIATE`: the exit status when `--immediate` finds no resources (1 unless
/// set; read as atoi reads it, a zero value an error that leaves 1). salloc and srun read it
/// first of all (`_set_exit_code`), whatever their options.
pub fn immediate_exit(inv: &mut Invocation<'_>) -> i32 {
    let Some(v) = inv.var("SLURM_EXIT_IMMEDIATE") else {
        return 1;
    };
    match crate::model::cnum::atoi(v.as_bytes()) {
        0 => {
            inv.error("SLURM_EXIT_IMMEDIATE has zero value");
            1
        }
        n => n,
    }
}

/// salloc/srun `--immediate[=secs]`: how long they wait for the job to leave PENDING.
struct Immediate {
    until: std::time::Instant,
    /// `--immediate=secs` (more than 1): a timeout of the wait, as Slurm's own.
    timed: bool,
    exit: i32,
}

impl Immediate {
    /// None when nothing is to be watched: a bare `--immediate` that the backend's
    /// scheduler decides itself.
    fn new(secs: u32, cluster: &dyn Cluster, exit: i32) -> Option<Immediate> {
        let timed = secs > 1;
        let patience = if timed {
            Duration::from_secs(secs.into())
        } else {
            cluster.immediate_patience()?
        };
        Some(Immediate {
            until: std::time::Instant::now() + patience,
            timed,
            exit,
        })
    }

    /// Whether the wait is over with the job still PENDING (one that left it has its
    /// resources and is only starting).
    fn expired(&mut self, cluster: &dyn Cluster, id: u32) -> bool {
        if std::time::Instant::now() < self.until {
            return false;
        }
        let pending = cluster
            .jobs_with_ids(&[id])
            .map(|jobs| {
                jobs.iter()
                    .any(|j| j.job_id == id && j.state == crate::model::JobState::Pending)
            })
            .unwrap_or(true);
        if !pending {
            self.until += Duration::from_secs(3600 * 24 * 365);
        }
        pending
    }

    /// Cancels the job and says so as salloc and srun do (salloc names the timeout, srun
    /// always the busy nodes); the exit status to leave with.
    fn give_up(&self, inv: &mut Invocation<'_>, cluster: &dyn Cluster, id: u32, prog: &str) -> i32 {
        cancel(inv, cluster, id);
        inv.error(if prog == "salloc" && self.timed {
            "Unable to allocate resources: Connection timed out"
        } else {
            "Unable to allocate resources: Requested nodes are busy"
        });
        self.exit
    }
}

/// Cancels the job as its user (`scancel`).
pub fn cancel(inv: &Invocation<'_>, cluster: &dyn Cluster, id: u32) {
    let _ = cluster.signal(
        &crate::model::JobSelector::whole(id),
        &crate::backend::SignalRequest::cancel(inv.user.uid),
    );
}

/// The job-level environment of the allocation, for `who`.
pub fn env_of(
    inv: &Invocation<'_>,
    id: u32,
    details: &AllocationDetails,
    spec: &JobSpec,
    who: AllocationUser,
) -> BTreeMap<String, String> {
    let rec = &details.record;
    let names: Vec<String> = details.nodes.iter().map(|(n, _)| n.clone()).collect();
    let nnodes = names.len().max(1) as u32;
    let ntasks = spec.ntasks.or(spec.ntasks_per_node.map(|n| n * nnodes));
    let tasks = ntasks.unwrap_or(nnodes);
    let facts = BatchEnvFacts {
        cluster_name: rec.cluster.clone(),
        job_id: id,
        job_name: rec.name.clone(),
        partition: rec.partition.clone(),
        account: rec.account.clone(),
        qos: rec.qos.clone(),
        nodelist: crate::model::hostlist::compress(&names),
        node_name: names.first().cloned().unwrap_or_default(),
        cpus_per_node: vec![details.cpus_per_node; nnodes as usize],
        tasks_per_node: (0..nnodes)
            .map(|i| tasks / nnodes + u32::from(i < tasks % nnodes))
            .collect(),
        // salloc exports SLURM_NTASKS only for tasks asked for (-n, --ntasks-per-node;
        // scenario salloc_shell); srun's tasks always have their count.
        ntasks: match who {
            AllocationUser::Salloc => ntasks,
            AllocationUser::Srun => Some(tasks),
        },
        cpus_per_task: spec.cpus_per_task,
        ntasks_per_node: spec.ntasks_per_node,
        memory: None,
        user: inv.user.name.clone(),
        uid: inv.user.uid,
        gid: inv.user.gid,
        array: None,
        dependency: spec.dependency_raw.clone(),
        restart_count: None,
        gpus: details.gpus.clone(),
        working_cluster: Some(crate::launcher::env::working_cluster(
            &rec.cluster,
            "127.0.0.1",
        )),
        release: inv.profile.job_env,
        start_time: rec.start_time.unwrap_or(inv.now),
        end_time: crate::launcher::env::end_at_limit(
            rec.start_time.unwrap_or(inv.now),
            rec.time_limit.seconds(),
        ),
    };
    let mut base = inv.env.clone();
    base.insert("SLURM_SUBMIT_DIR".into(), inv.cwd.display().to_string());
    base.insert("SLURM_SUBMIT_HOST".into(), crate::sys::hostname());
    let mut env = allocation_env(&base, &facts, who);
    if who == AllocationUser::Srun && inv.profile.job_env.step_debug_and_group {
        env.insert("SLURM_JOB_GROUP".into(), inv.user.group.clone());
    }
    env
}

/// The job file salloc holds while its command runs, so that srun in it finds the step
/// servers (`launcher::jobfile`).
pub fn job_file(cluster: &dyn Cluster, id: u32, details: &AllocationDetails) -> JobFile {
    JobFile {
        job_id: id,
        nodes: details.nodes.clone(),
        secret: details.secret.clone(),
        kill_wait: kill_wait(cluster),
        remote: details.remote,
        slurm_version: None,
    }
}

/// srun outside any allocation: ask for one, run the step in it, give it back.
pub fn run_in_new_allocation(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    req: &SrunRequest,
    multi_prog: Option<Vec<u8>>,
    immediate_exit: i32,
) -> i32 {
    let name = std::path::Path::new(&req.argv[0])
        .file_name()
        .map_or(req.argv[0].clone(), |f| f.to_string_lossy().into_owned());
    let (spec, messages) = match allocation_spec(inv, &req.opts, "srun", name, Some(&req.argv[0])) {
        Ok(s) => s,
        Err(f) => {
            let _ = inv.err.write_all(f.stderr.as_bytes());
            return f.code;
        }
    };
    for m in messages {
        let _ = writeln!(inv.err, "{m}");
    }
    if req.opts.test_only {
        return report_will_run(inv, cluster, &spec, "srun");
    }
    let (id, details) = match obtain(inv, cluster, &spec, "srun", immediate_exit) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let env = env_of(inv, id, &details, &spec, AllocationUser::Srun);
    let alloc = Allocation {
        job_id: id,
        nodes: details.nodes.clone(),
        secret: details.secret.as_bytes().to_vec(),
        cpus_per_node: vec![details.cpus_per_node; details.nodes.len()],
        kill_wait: kill_wait(cluster),
        remote: details.remote,
    };
    let mut plan = super::srun::step_plan(inv, req);
    plan.multi_prog = multi_prog;
    // srun sets the allocation's variables in its own environment, which its prolog and
    // epilog inherit.
    plan.srun_env.extend(env.clone());
    plan.env = env;
    plan.array = None;
    plan.job_name = details.record.name.clone();
    plan.gpus = details.gpus.clone();
    plan.in_existing_job = false;
    let (code, interrupted) = srun_client::run_noting_interrupts(&plan, &alloc, inv.out, inv.err);
    if interrupted {
        // Ctrl-C ended the step: the job is cancelled by its user (22.05.8, 24.11.5).
        cancel(inv, cluster, id);
        return code;
    }
    let exit = if code > 128 {
        ExitStatus::signal(code - 128)
    } else {
        ExitStatus::code(code)
    };
    if let Err(e) = cluster.release(id, exit) {
        inv.error(&format!("Unable to release job allocation {id}: {e}"));
    }
    code
}

/// The cluster's KillWait in seconds (as `scontrol show config` gives it), else Slurm's 30.
fn kill_wait(cluster: &dyn Cluster) -> u32 {
    cluster
        .config()
        .iter()
        .find(|(k, _)| k == "KillWait")
        .and_then(|(_, v)| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(30)
}

/// `--test-only`: when and where the job would start, as sbatch and srun print it
/// (`sbatch: Job 12 to start at 2026-12-02T06:05:31 using 1 processors on nodes node01 in
/// partition debug`), or slurmctld's refusal as `allocation failure: ...`; nothing runs.
pub fn report_will_run(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    spec: &JobSpec,
    prog: &str,
) -> i32 {
    match super::backend_warnings(inv, cluster, spec, prog)
        .and_then(|()| cluster.will_run(spec, &inv.user))
    {
        Ok(w) => {
            let fmt = crate::model::TimeFormat::from_env_value(inv.var("SLURM_TIME_FORMAT")).0;
            let start = crate::model::timestamp::format_time(Some(w.start), &fmt, inv.now);
            let _ = writeln!(
                inv.err,
                "{prog}: Job {} to start at {start} using {} processors on nodes {} in partition {}",
                w.job_id, w.cpus, w.nodes, w.partition
            );
            0
        }
        Err(e) => {
            for d in &e.details {
                inv.error(d);
            }
            let _ = writeln!(inv.err, "allocation failure: {}", e.reason());
            1
        }
    }
}
