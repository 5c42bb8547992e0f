//! srun: inside an allocation, runs a job step on its nodes; outside one, first asks for an
//! allocation (as Slurm does) and runs the step in it.

use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::launcher::srun_client::{self, Allocation, StepPlan};
use crate::options::srun::{self, SrunOutcome, SrunRequest};
use std::path::Path;

/// Inside a job, srun needs no scheduler: it reads the allocation from the job's
/// environment before any configuration, which in a Backend.AI container is the
/// submitter's login-node setup and means nothing there. Outside one it asks the
/// configured backend for an allocation.
pub fn run(inv: &mut Invocation<'_>) -> i32 {
    let immediate_exit = super::allocate::immediate_exit(inv);
    let args = inv.args.clone();
    let mut req = match srun::parse_for(inv.profile, &args, &inv.env, inv.now) {
        SrunOutcome::Exit {
            stdout,
            stderr,
            code,
        } => return inv.finish(&stdout, &stderr, code),
        SrunOutcome::Run(req) => req,
    };
    let multi_prog = match load_multi_prog(inv, &mut req) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if let Some(list) = &req.opts.propagate
        && let Err(bad) = crate::model::rlimit::parse_propagate(list)
    {
        let _ = write!(
            inv.err,
            "srun: error: Bad rlimit name: {bad}\nsrun: error: --propagate={list} is not valid.\n"
        );
        return 1;
    }
    match Allocation::find(&inv.env) {
        Some(alloc) if req.opts.jobid.is_none_or(|j| j == alloc.job_id) => {
            for w in req.step_warnings() {
                let _ = writeln!(inv.err, "{w}");
            }
            let mut plan = step_plan(inv, &req);
            plan.multi_prog = multi_prog;
            srun_client::run(&plan, &alloc, inv.out, inv.err)
        }
        _ => super::with_cluster(inv, |inv, cluster: &dyn Cluster| {
            super::allocate::run_in_new_allocation(inv, cluster, &req, multi_prog, immediate_exit)
        }),
    }
}

/// `--multi-prog`: srun reads the file and checks it before it asks for anything
/// (`_load_multi`, `verify_multi_name`); without a task count, its ranks give one.
fn load_multi_prog(
    inv: &mut Invocation<'_>,
    req: &mut SrunRequest,
) -> Result<Option<Vec<u8>>, i32> {
    use crate::model::multi_prog;
    use std::io::Read;
    if !req.opts.multi_prog {
        return Ok(None);
    }
    let name = req.argv[0].clone();
    let read = || -> Result<Vec<u8>, String> {
        let f = std::fs::File::open(inv.cwd.join(&name))
            .map_err(|_| format!("Could not open multi_prog config file {name}"))?;
        let size = f
            .metadata()
            .map_err(|_| format!("Could not stat multi_prog config file {name}"))?
            .len();
        if size > multi_prog::MAX_FILE_SIZE {
            return Err(format!("Multi_prog config file {name} is too large"));
        }
        // As many bytes as the file's size says, as srun reads it (a device reads as empty).
        let mut text = Vec::new();
        f.take(size)
            .read_to_end(&mut text)
            .map_err(|_| format!("Error reading multi_prog config file {name}"))?;
        Ok(text)
    };
    let checked = read().map_err(|e| vec![e]).and_then(|text| {
        let n = multi_prog::verify(
            &text,
            &name,
            req.opts.ntasks.unwrap_or(1),
            req.opts.ntasks.is_some(),
        )?;
        Ok((text, n))
    });
    match checked {
        Ok((text, ntasks)) => {
            req.opts.ntasks = Some(ntasks);
            Ok(Some(text))
        }
        Err(lines) => {
            for line in lines {
                let _ = writeln!(inv.err, "srun: error: {line}");
            }
            Err(1)
        }
    }
}

/// The tasks' environment: srun's `--export` of its own, and (24.11) the step's TRES per
/// task, which srun writes for its tasks as sbatch did for the job.
fn step_environment(
    o: &crate::options::job_opts::JobOptions,
    env: &std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    let mut out = crate::options::values::export::job_environment(o.export.as_ref(), env, false);
    if let Some(t) = &o.tres_per_task {
        out.insert("SLURM_TRES_PER_TASK".into(), t.clone());
    }
    out
}

/// The step as srun's options and environment describe it.
pub fn step_plan(inv: &Invocation<'_>, req: &SrunRequest) -> StepPlan {
    let o = &req.opts;
    // A step is named after its command unless -J is on srun's own command line (the job's
    // SLURM_JOB_NAME names the job, not the step).
    let name = o
        .job_name
        .clone()
        .filter(|_| req.from_cli.contains(&"job-name"))
        .unwrap_or_else(|| {
            Path::new(&req.argv[0])
                .file_name()
                .map_or(req.argv[0].clone(), |f| f.to_string_lossy().into_owned())
        });
    let cwd = o.chdir.as_deref().map_or_else(
        || inv.cwd.display().to_string(),
        |d| crate::options::job_opts::make_absolute(d, &inv.cwd),
    );
    StepPlan {
        name,
        argv: req.argv.clone(),
        ntasks: o.ntasks,
        nodes: o.nodes.map(|n| n.min.max(1) as u32),
        ntasks_per_node: o.ntasks_per_node,
        cpus_per_task: o.cpus_per_task,
        distribution: o.distribution.clone(),
        cyclic: o
            .distribution
            .as_deref()
            .is_some_and(|d| d.starts_with("cyclic")),
        nodelist: o.nodelist.clone(),
        exclude: o.exclude.clone(),
        label: o.label,
        // --pty is unbuffered, implicitly (srun's opt.c): a prompt has no newline.
        unbuffered: o.unbuffered || o.pty,
        kill_on_bad_exit: o.kill_on_bad_exit,
        cwd,
        stdout: o.stdout.clone(),
        stderr: o.stderr.clone().or_else(|| o.stdout.clone()),
        env: step_environment(o, &inv.env),
        umask: crate::sys::umask(),
        rlimits: crate::sys::soft_limits(
            &crate::model::rlimit::parse_propagate(o.propagate.as_deref().unwrap_or("ALL"))
                .unwrap_or_default(),
        ),
        in_existing_job: true,
        pty: o.pty,
        quit_on_interrupt: o.quit_on_interrupt,
        disable_status: o.disable_status,
        max_wait: o.max_wait,
        release: inv.profile.job_env,
        no_stdin: o
            .stdin
            .as_deref()
            .is_some_and(|i| i.eq_ignore_ascii_case("none")),
        array: inv
            .var("SLURM_ARRAY_JOB_ID")
            .and_then(|a| a.parse().ok())
            .zip(inv.var("SLURM_ARRAY_TASK_ID").and_then(|t| t.parse().ok())),
        job_name: inv.var("SLURM_JOB_NAME").unwrap_or_default().to_string(),
        user: inv.user.name.clone(),
        multi_prog: None,
        prolog: o.prolog.clone(),
        epilog: o.epilog.clone(),
        task_prolog: o.task_prolog.clone(),
        task_epilog: o.task_epilog.clone(),
        srun_env: inv.env.clone(),
        gpus: step_gpus(
            inv.var("SLURM_JOB_GPUS")
                .unwrap_or_default()
                .split(',')
                .filter_map(|d| d.parse().ok())
                .collect(),
            req,
        ),
    }
}

/// The GPUs a step gets: all of the job's, or the first as many as it asks for
/// (`--gres=gpu:N`, `--gpus=N`).
pub fn step_gpus(job: Vec<u32>, req: &SrunRequest) -> Vec<u32> {
    let o = &req.opts;
    let mut asked: Option<u64> = None;
    for g in o.gres.iter().filter(|g| g.name == "gpu") {
        if let crate::options::values::gres::GresCount::Whole(n) = g.count {
            *asked.get_or_insert(0) += n;
        }
    }
    if let Some((_, items)) = &o.gpus {
        for g in items {
            if let crate::options::values::gres::GresCount::Whole(n) = g.count {
                *asked.get_or_insert(0) += n;
            }
        }
    }
    match asked {
        Some(n) => job.into_iter().take(n as usize).collect(),
        None => job,
    }
}
