//! srun inside an allocation: lays the step's tasks out on the job's nodes, has each
//! node's step server start them, prints their output (with `-l` labels), reports task
//! failures in Slurm's words and returns srun's exit status.

use super::pmi::{FenceCollector, PmiJob};
use super::step_proto::{self, Control, Frame, TaskSpec};
use super::task_scripts;
use crate::model::{hostlist, multi_prog};
use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

/// Where the step servers are and the job's secret, when set in srun's environment: they
/// replace what the job file says (a debugging aid, and how tests pose as a caller without
/// the secret). bai-slurm itself never sets them: a job's environment holds only Slurm's
/// variables, and srun finds the rest in the job file (`jobfile`).
pub const STEPD_ENV: &str = "BAI_SLURM_STEPD";
pub const SECRET_ENV: &str = "BAI_SLURM_JOB_SECRET";
/// Seconds between SIGTERM and SIGKILL when a step is cancelled (Slurm's KillWait).
pub const KILL_WAIT_ENV: &str = "BAI_SLURM_KILL_WAIT";

/// The allocation a step runs in, as the job's environment describes it.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub job_id: u32,
    /// Node names in allocation order, with their step server addresses.
    pub nodes: Vec<(String, String)>,
    pub secret: Vec<u8>,
    /// CPUs of the job on each node, in node order.
    pub cpus_per_node: Vec<u32>,
    pub kill_wait: u32,
    /// The step servers are in a platform's containers, reached through its tunnel: the
    /// login node's own settings (`BACKEND_*`, ...) stay behind, as they do for a batch job.
    pub remote: bool,
}

/// `2(x3),1` -> [2, 2, 2, 1] (SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE).
pub fn expand_run_length(v: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in v.split(',') {
        match part.split_once("(x") {
            Some((n, times)) => {
                let n: u32 = n.parse().ok()?;
                let times: usize = times.strip_suffix(')')?.parse().ok()?;
                out.extend(std::iter::repeat_n(n, times));
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

impl Allocation {
    /// The allocation of the job SLURM_JOB_ID names: its step servers and secret from
    /// the job file an ancestor of this process holds, unless the environment gives them
    /// (see [`STEPD_ENV`]).
    pub fn find(env: &BTreeMap<String, String>) -> Option<Allocation> {
        let job_id = env.get("SLURM_JOB_ID")?.parse().ok()?;
        let given = env.get(STEPD_ENV).is_some() && env.get(SECRET_ENV).is_some();
        let file = if given {
            None
        } else {
            super::jobfile::JobFile::find(job_id)
        };
        let nodes: Vec<(String, String)> = match env.get(STEPD_ENV) {
            Some(v) => v
                .split(',')
                .filter_map(|e| {
                    e.split_once('=')
                        .map(|(n, a)| (n.to_string(), a.to_string()))
                })
                .collect(),
            None => file.as_ref()?.nodes.clone(),
        };
        if nodes.is_empty() {
            return None;
        }
        let secret = match env.get(SECRET_ENV) {
            Some(s) => s.clone(),
            None => file.as_ref()?.secret.clone(),
        };
        let mut cpus_per_node = env
            .get("SLURM_JOB_CPUS_PER_NODE")
            .and_then(|v| expand_run_length(v))
            .unwrap_or_default();
        let last = cpus_per_node.last().copied().unwrap_or(1);
        cpus_per_node.resize(nodes.len(), last);
        Some(Allocation {
            job_id,
            nodes,
            secret: secret.into_bytes(),
            cpus_per_node,
            kill_wait: env
                .get(KILL_WAIT_ENV)
                .and_then(|v| v.parse().ok())
                .or(file.as_ref().map(|f| f.kill_wait))
                .unwrap_or(30),
            remote: file.as_ref().is_some_and(|f| f.remote),
        })
    }

    /// How long a handshake with its step servers may take.
    fn patience(&self) -> std::time::Duration {
        if self.remote {
            step_proto::TUNNEL_HANDSHAKE_TIMEOUT
        } else {
            step_proto::HANDSHAKE_TIMEOUT
        }
    }

    /// `node=host:port,...` for the job's environment.
    pub fn stepd_value(nodes: &[(String, String)]) -> String {
        nodes
            .iter()
            .map(|(n, a)| format!("{n}={a}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// How one step is to run.
#[derive(Debug, Clone, Default)]
pub struct StepPlan {
    pub name: String,
    pub argv: Vec<String>,
    pub ntasks: Option<u32>,
    pub nodes: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub cyclic: bool,
    pub nodelist: Option<String>,
    pub exclude: Option<String>,
    pub label: bool,
    pub unbuffered: bool,
    pub kill_on_bad_exit: bool,
    pub cwd: String,
    /// `-o`/`-e` patterns (expanded on the node per task); None streams output back.
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    /// The environment tasks start from (srun's own, filtered by --export).
    pub env: BTreeMap<String, String>,
    pub umask: u32,
    /// srun's soft limits its tasks take (`--propagate`).
    pub rlimits: Vec<crate::model::rlimit::Propagated>,
    /// Whether srun runs inside a job it did not create itself (sbatch, salloc): Slurm then
    /// also sets SLURM_DISTRIBUTION and SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0 (the goldens
    /// of both cases show the difference).
    pub in_existing_job: bool,
    /// `--input=none`: the tasks get no stdin from srun (MPICH's Hydra asks for it).
    pub no_stdin: bool,
    /// `--pty`: task 0 on a terminal, srun's own in raw mode.
    pub pty: bool,
    /// `--quit-on-interrupt`: one Ctrl-C (SIGINT) ends the step.
    pub quit_on_interrupt: bool,
    /// `--disable-status`: a Ctrl-C is passed to the tasks, with no status first.
    pub disable_status: bool,
    /// `-W/--wait=secs`: the step is ended that long after its first task exited (0: never).
    pub max_wait: u32,
    /// What `%A`/`%a`, `%x` and `%u` in `-o`/`-e` stand for: the job's array ids
    /// (SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID), its name and srun's user.
    pub array: Option<(u32, u32)>,
    pub job_name: String,
    pub user: String,
    /// GPU devices the step's tasks get (the job's, or as many of them as the step asks).
    pub gpus: Vec<u32>,
    /// `--distribution` as given.
    pub distribution: Option<String>,
    /// What the site's Slurm release sets differently in a step's environment.
    pub release: crate::model::profile::JobEnvDeltas,
    /// `--multi-prog`: the configuration file's contents (`argv` is then the file's name
    /// and srun's arguments after it, which every task gets after its own).
    pub multi_prog: Option<Vec<u8>>,
    /// `--prolog`/`--epilog` (srun runs them) and `--task-prolog`/`--task-epilog` (the
    /// nodes run them around each task).
    pub prolog: Option<String>,
    pub epilog: Option<String>,
    pub task_prolog: Option<String>,
    pub task_epilog: Option<String>,
    /// srun's own environment, as its prolog and epilog get it (not filtered by --export).
    pub srun_env: BTreeMap<String, String>,
}

impl StepPlan {
    /// A task's command line: the step's, or with `--multi-prog` its rank's line of the
    /// file (empty when the file gives it none).
    fn argv_of(&self, rank: u32) -> Vec<String> {
        match &self.multi_prog {
            Some(text) => multi_prog::task_argv(text, rank, &self.argv[1..]).unwrap_or_default(),
            None => self.argv.clone(),
        }
    }

    /// The arguments srun's prolog and epilog get: the step's command line (with
    /// `--multi-prog`, the file's contents after its name, as srun passes them on).
    fn script_args(&self) -> Vec<String> {
        let mut args = self.argv.clone();
        if let Some(text) = &self.multi_prog {
            let text = multi_prog::until_nul(text);
            args.insert(
                1.min(args.len()),
                String::from_utf8_lossy(text).into_owned(),
            );
        }
        args
    }

    /// Runs srun's `--prolog` or `--epilog` (`prolog_srun`, `epilog_srun`) for step
    /// `step_id`: its exit code, after printing what srun says about it.
    fn run_script(
        &self,
        script: &Option<String>,
        context: &str,
        job_id: u32,
        step_id: u32,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> i32 {
        let Some(path) = script else {
            return 0;
        };
        let mut env = self.srun_env.clone();
        env.insert("SLURM_JOB_ID".into(), job_id.to_string());
        env.insert("SLURM_JOBID".into(), job_id.to_string());
        env.insert("SLURM_STEP_ID".into(), step_id.to_string());
        env.insert("SLURM_STEPID".into(), step_id.to_string());
        // The script writes to srun's own stdout and stderr, after what srun wrote.
        let _ = out.flush();
        let _ = err.flush();
        let (code, said) =
            task_scripts::run_srun_script(path, context, &self.script_args(), &env, &self.cwd);
        if let Some(line) = said {
            let _ = writeln!(err, "{line}");
        }
        code
    }
}

/// Which node each task goes to: block (fill each node's share in turn) or cyclic.
pub fn layout(ntasks: u32, nnodes: u32, per_node: Option<u32>, cyclic: bool) -> Vec<Vec<u32>> {
    let nnodes = nnodes.max(1);
    let mut nodes: Vec<Vec<u32>> = vec![Vec::new(); nnodes as usize];
    if cyclic {
        for r in 0..ntasks {
            nodes[(r % nnodes) as usize].push(r);
        }
        return nodes;
    }
    let mut rank = 0;
    for (i, slot) in nodes.iter_mut().enumerate() {
        let share = per_node.unwrap_or(ntasks / nnodes + u32::from((i as u32) < ntasks % nnodes));
        for _ in 0..share {
            if rank < ntasks {
                slot.push(rank);
                rank += 1;
            }
        }
    }
    nodes
}

/// Where a step runs: its nodes (name, server address), the tasks of each, and facts every
/// task's environment shares.
struct StepLayout<'a> {
    plan: &'a StepPlan,
    job_id: u32,
    step_id: u32,
    nodes: Vec<(String, String)>,
    tasks: Vec<Vec<u32>>,
    cpus: Vec<u32>,
    /// srun's own address as the step servers see it (SLURM_LAUNCH_NODE_IPADDR).
    launch_host: String,
}

fn host_of(addr: &str) -> String {
    addr.rsplit_once(':')
        .map_or(addr, |(h, _)| h)
        .trim_matches(['[', ']'])
        .to_string()
}

/// The environment of one task (`env_array_for_step` / `setup_env` in Slurm), plus what
/// PyTorch-style launchers read.
fn task_env(
    l: &StepLayout<'_>,
    node_index: usize,
    rank: u32,
    local_rank: u32,
) -> BTreeMap<String, String> {
    let plan = l.plan;
    let mut env = plan.env.clone();
    let ntasks: u32 = l.tasks.iter().map(|t| t.len() as u32).sum();
    let names: Vec<&str> = l.nodes.iter().map(|(n, _)| n.as_str()).collect();
    let step_nodelist = hostlist::compress(&names);
    let per_node: Vec<u32> = l.tasks.iter().map(|t| t.len() as u32).collect();
    let per_node_str = hostlist::run_length(&per_node);
    let (node, addr) = &l.nodes[node_index];
    let port = addr.rsplit_once(':').map_or("0", |(_, p)| p).to_string();
    let mut set = |k: &str, v: String| {
        env.insert(k.to_string(), v);
    };
    set("SLURM_STEP_ID", l.step_id.to_string());
    set("SLURM_STEPID", l.step_id.to_string());
    set("SLURM_STEP_NODELIST", step_nodelist.clone());
    set("SLURM_STEP_NUM_NODES", l.nodes.len().to_string());
    set("SLURM_STEP_NUM_TASKS", ntasks.to_string());
    set("SLURM_STEP_TASKS_PER_NODE", per_node_str.clone());
    set("SLURM_STEP_LAUNCHER_PORT", port.clone());
    set("SLURM_SRUN_COMM_HOST", l.launch_host.clone());
    set("SLURM_SRUN_COMM_PORT", port);
    set("SLURM_LAUNCH_NODE_IPADDR", l.launch_host.clone());
    set("SLURM_PROCID", rank.to_string());
    set("SLURM_LOCALID", local_rank.to_string());
    set("SLURM_NODEID", node_index.to_string());
    set(
        "SLURM_GTIDS",
        l.tasks[node_index]
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
    );
    set("SLURM_CPUS_ON_NODE", l.cpus[node_index].to_string());
    if plan.in_existing_job {
        // With no distribution asked for, a step of no more tasks than nodes is laid
        // out cyclic (22.05.8 shows it for `srun -n 1` in a one-node job).
        let cyclic = plan.cyclic || (plan.distribution.is_none() && ntasks <= l.nodes.len() as u32);
        set(
            "SLURM_DISTRIBUTION",
            if cyclic { "cyclic" } else { "block" }.to_string(),
        );
    }
    // srun's log level (info), which its tasks inherit unless it was set.
    if !plan.env.contains_key("SRUN_DEBUG") {
        set("SRUN_DEBUG", "3".to_string());
    }
    set("SLURM_UMASK", format!("{:04o}", plan.umask));
    set("SLURMD_NODENAME", node.clone());
    set("SLURM_TOPOLOGY_ADDR", node.clone());
    set("SLURM_NNODES", l.nodes.len().to_string());
    set("SLURM_NTASKS", ntasks.to_string());
    set("SLURM_NPROCS", ntasks.to_string());
    set("SLURM_TASKS_PER_NODE", per_node_str);
    set("SLURM_NODELIST", step_nodelist);
    set("SLURM_TOPOLOGY_ADDR_PATTERN", "node".to_string());
    if plan.release.step_debug_and_group {
        set("SLURMD_DEBUG", "2".to_string());
    }
    if plan.in_existing_job
        && plan.release.legacy_variables
        && let Some(v) = plan.env.get("SLURM_JOB_CPUS_PER_NODE")
    {
        set("SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", v.clone());
    }
    if let Some(c) = plan.cpus_per_task {
        set("SLURM_CPUS_PER_TASK", c.to_string());
    }
    for (k, v) in super::env::gpu_env(&plan.gpus, "SLURM_STEP_GPUS") {
        set(k, v);
    }
    if plan.label {
        set("SLURM_LABELIO", "1".to_string());
    }
    // What torch.distributed and friends read: rank 0's node is the rendezvous point, on
    // a port derived from the job and step (the same for every task of the step).
    set("MASTER_ADDR", host_of(&l.nodes[0].1));
    set("MASTER_PORT", master_port(l.job_id, l.step_id).to_string());
    set("WORLD_SIZE", ntasks.to_string());
    set("RANK", rank.to_string());
    set("LOCAL_RANK", local_rank.to_string());
    set("LOCAL_WORLD_SIZE", l.tasks[node_index].len().to_string());
    set("GROUP_RANK", node_index.to_string());
    env
}

/// The rendezvous port of a step: in 20000-39999, from the job and step ids.
pub fn master_port(job_id: u32, step_id: u32) -> u32 {
    20000 + (job_id.wrapping_mul(97).wrapping_add(step_id)) % 20000
}

/// Connects to a step server of the allocation; both sides prove they know the job's
/// secret.
fn connect(alloc: &Allocation, addr: &str) -> std::io::Result<(BufReader<TcpStream>, TcpStream)> {
    let (stream, _) = step_proto::connect_within(addr, &alloc.secret, alloc.patience())?;
    Ok((BufReader::new(stream.try_clone()?), stream))
}

/// Asks node 0's server for something and waits for its answer; also says which address
/// this process reached it from.
fn ask(alloc: &Allocation, msg: &Control) -> std::io::Result<(Control, String)> {
    step_proto::request(&alloc.nodes[0].1, &alloc.secret, alloc.patience(), msg)
}

enum Event {
    Output {
        rank: u32,
        stderr: bool,
        data: Vec<u8>,
    },
    Exited {
        rank: u32,
        status: i32,
    },
    Message(String),
    /// A task could not be launched (its exit follows as exited 0).
    LaunchFailed,
    /// A node's PMI fence (its new puts).
    Fence(Vec<(String, String)>),
    Lost {
        node: usize,
        error: String,
    },
}

/// The nodes and task counts of a step, decided as srun does inside an allocation (with
/// its warnings), or srun's error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Indexes into the allocation's nodes.
    pub nodes: Vec<usize>,
    pub ntasks: u32,
    pub per_node: Option<u32>,
    pub warnings: Vec<String>,
}

pub fn select_nodes(
    plan: &StepPlan,
    alloc_nodes: &[String],
    cpus: &[u32],
    job_id: u32,
) -> Result<Selection, String> {
    let unavailable = || {
        format!(
            "Unable to create step for job {job_id}: Requested node configuration is not available"
        )
    };
    let required: Vec<String> = match plan.nodelist.as_deref() {
        Some(w) => hostlist::expand(w).ok_or_else(unavailable)?,
        None => Vec::new(),
    };
    if required.iter().any(|n| !alloc_nodes.contains(n)) {
        return Err(unavailable());
    }
    let excluded: Vec<String> = match plan.exclude.as_deref() {
        Some(x) => hostlist::expand(x).unwrap_or_default(),
        None => Vec::new(),
    };
    if required.iter().any(|n| excluded.contains(n)) {
        return Err(unavailable());
    }
    let candidates: Vec<usize> = (0..alloc_nodes.len())
        .filter(|&i| !excluded.contains(&alloc_nodes[i]))
        .collect();
    let mut warnings = Vec::new();
    let mut nnodes = match plan.nodes {
        Some(n) => n.max(required.len() as u32),
        None if !required.is_empty() => required.len() as u32,
        None => {
            let want = plan.ntasks.unwrap_or(candidates.len() as u32);
            (candidates.len() as u32).min(want.max(1))
        }
    };
    if nnodes as usize > candidates.len() {
        let mut msg = format!(
            "Only allocated {} nodes asked for {nnodes}",
            candidates.len()
        );
        if !excluded.is_empty() {
            msg.push_str("\nAre required nodes explicitly excluded?");
        }
        return Err(msg);
    }
    let mut per_node = plan.ntasks_per_node;
    let ntasks = match (plan.ntasks, per_node) {
        (Some(n), Some(tpn)) if n != tpn * nnodes => {
            warnings.push(format!(
                "can't honor --ntasks-per-node set to {tpn} which doesn't match the requested tasks {n} with the number of requested nodes {nnodes}. Ignoring --ntasks-per-node."
            ));
            per_node = None;
            n
        }
        (Some(n), _) => n,
        (None, Some(tpn)) => tpn * nnodes,
        (None, None) => nnodes,
    };
    if ntasks < nnodes {
        warnings.push(format!(
            "can't run {ntasks} processes on {nnodes} nodes, setting nnodes to {ntasks}"
        ));
        nnodes = ntasks.max(1);
    }
    // The required nodes, then the others in allocation order.
    let mut chosen: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| required.contains(&alloc_nodes[i]))
        .collect();
    for &i in &candidates {
        if chosen.len() >= nnodes as usize {
            break;
        }
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    let sel = Selection {
        nodes: chosen,
        ntasks,
        per_node,
        warnings,
    };
    // Each node's tasks times their CPUs must fit in what the job holds there (-O is
    // ignored here, so this always applies).
    let cpt = plan.cpus_per_task.unwrap_or(1);
    let tasks = layout(ntasks, nnodes, sel.per_node, plan.cyclic);
    for (slot, &i) in tasks.iter().zip(&sel.nodes) {
        if slot.len() as u32 * cpt > cpus.get(i).copied().unwrap_or(u32::MAX) {
            return Err(format!(
                "Unable to create step for job {job_id}: More processors requested than permitted"
            ));
        }
    }
    Ok(sel)
}

/// Runs the step; returns srun's exit status.
pub fn run(plan: &StepPlan, alloc: &Allocation, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_step(plan, alloc, out, err, &mut false)
}

/// [`run`], and whether a Ctrl-C aborted the step (srun outside a job then cancels its
/// allocation, as Slurm's srun does).
pub fn run_noting_interrupts(
    plan: &StepPlan,
    alloc: &Allocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> (i32, bool) {
    let mut interrupted = false;
    let code = run_step(plan, alloc, out, err, &mut interrupted);
    (code, interrupted)
}

fn run_step(
    plan: &StepPlan,
    alloc: &Allocation,
    out: &mut dyn Write,
    err: &mut dyn Write,
    interrupted: &mut bool,
) -> i32 {
    let names: Vec<String> = alloc.nodes.iter().map(|(n, _)| n.clone()).collect();
    let sel = match select_nodes(plan, &names, &alloc.cpus_per_node, alloc.job_id) {
        Ok(s) => s,
        Err(msg) => {
            for line in msg.lines() {
                let _ = writeln!(err, "srun: error: {line}");
            }
            return 1;
        }
    };
    for w in &sel.warnings {
        let _ = writeln!(err, "srun: Warning: {w}");
    }
    let ntasks = sel.ntasks;
    let nnodes = sel.nodes.len() as u32;
    let step_nodes: Vec<(String, String)> =
        sel.nodes.iter().map(|&i| alloc.nodes[i].clone()).collect();
    let cpus: Vec<u32> = sel
        .nodes
        .iter()
        .map(|&i| alloc.cpus_per_node.get(i).copied().unwrap_or(1))
        .collect();
    let tasks = layout(ntasks, nnodes, sel.per_node, plan.cyclic);
    let step_names: Vec<&str> = step_nodes.iter().map(|(n, _)| n.as_str()).collect();
    let (step_id, launch_host) = match ask(
        alloc,
        &Control::AllocateStep {
            name: plan.name.clone(),
            ntasks,
            nnodes,
            nodes: hostlist::compress(&step_names),
            // Without --exact a step gets every CPU the job has on its nodes (a one-task
            // step of a two-CPU job is accounted with two); CPUs per task given to srun
            // make it exact (launch.c: "Implicitly setting --exact").
            cpus: match plan.cpus_per_task {
                Some(cpt) => ntasks * cpt,
                None => cpus.iter().sum::<u32>().max(ntasks),
            },
        },
    ) {
        Ok((Control::StepAllocated { step_id }, me)) => (step_id, me),
        Ok(_) | Err(_) => {
            let _ = writeln!(
                err,
                "srun: error: Unable to create step for job {}: Unable to contact slurm controller (connect failure)",
                alloc.job_id
            );
            return 1;
        }
    };
    let l = StepLayout {
        plan,
        job_id: alloc.job_id,
        step_id,
        nodes: step_nodes.clone(),
        tasks: tasks.clone(),
        cpus,
        launch_host,
    };
    // srun's prolog runs once the step exists and before it starts; when it fails, srun
    // aborts the step, which has its tasks started and at once killed.
    let prolog_rc = plan.run_script(
        &plan.prolog,
        "prolog_srun",
        alloc.job_id,
        step_id,
        &mut *out,
        &mut *err,
    );
    let aborted = prolog_rc != 0;
    let prolog_context = plan
        .prolog
        .as_deref()
        .is_some_and(|p| !p.eq_ignore_ascii_case("none"));
    if aborted {
        let _ = writeln!(
            err,
            "srun: error: srun prolog failed rc = {prolog_rc}. Aborting step."
        );
        let plugin = if plan.release.step_messages_24 {
            ""
        } else {
            "launch/slurm: launch_p_step_launch: "
        };
        let _ = writeln!(
            err,
            "srun: {plugin}StepId={}.{step_id} aborted before step completely launched.",
            alloc.job_id
        );
        say_step_aborted(err, alloc.kill_wait);
    }
    // Every step is one PMI-1 job (MPICH's simple PMI), whether or not it runs MPI.
    let pmi_job = PmiJob {
        kvsname: format!("kvs_{}_{step_id}", alloc.job_id),
        size: ntasks,
        preset: super::pmi::process_mapping(&tasks)
            .map(|m| ("PMI_process_mapping".to_string(), m))
            .into_iter()
            .collect(),
    };
    let (terminal, mut raw_mode) = if plan.pty {
        terminal_for_task0(err)
    } else {
        (None, None)
    };
    // A name without a per-task part is srun's own file: it opens it (truncating), the
    // tasks' output comes back to it, and one it cannot open ends srun at once.
    let own = |p: &Option<String>| {
        p.as_ref()
            .filter(|p| crate::model::fname::srun_opens_itself(p))
            .map(|p| expand_io(p, plan, alloc, step_id, 0, 0, &step_nodes[0].0))
    };
    let (own_out, own_err) = (own(&plan.stdout), own(&plan.stderr));
    let mut out_file: Option<std::fs::File> = None;
    let mut err_file: Option<std::fs::File> = None;
    for stream in ["stdout", "stderr"] {
        let opened = match stream {
            "stdout" => own_out.as_deref().map(open_own),
            // stderr shares stdout's file (and its offset) when they are one.
            _ => own_err.as_deref().map(|n| match &out_file {
                Some(f) if own_out.as_deref() == Some(n) => f.try_clone(),
                _ => open_own(n),
            }),
        };
        match opened {
            None => {}
            Some(Ok(f)) if stream == "stdout" => out_file = Some(f),
            Some(Ok(f)) => err_file = Some(f),
            Some(Err(e)) => {
                let _ = writeln!(
                    err,
                    "srun: error: Could not open {stream} file: {}",
                    super::batch::io_text(&e)
                );
                finish_step(alloc, step_id, ("FAILED", 1, 0));
                return 1;
            }
        }
    }
    let plan = &StepPlan {
        stdout: plan.stdout.clone().filter(|_| own_out.is_none()),
        stderr: plan.stderr.clone().filter(|_| own_err.is_none()),
        ..plan.clone()
    };
    let (tx, rx) = mpsc::channel::<Event>();
    let signals = SrunSignals::watch();
    // One lock per node connection: stdin, signals and PMI fences are written from
    // different threads, and their frames must not interleave.
    let mut writers: Vec<Option<Shared>> = Vec::new();
    let mut launch_failed = false;
    for (i, (node, addr)) in step_nodes.iter().enumerate() {
        let specs: Vec<TaskSpec> = tasks[i]
            .iter()
            .enumerate()
            .map(|(local, &rank)| TaskSpec {
                rank,
                local_rank: local as u32,
                argv: plan.argv_of(rank),
                env: {
                    let mut env = task_env(&l, i, rank, local as u32);
                    if alloc.remote {
                        env.retain(|k, _| !crate::envvars::is_login_node_setting(k));
                    }
                    // srun set it in its own environment for its prolog, and the tasks
                    // get srun's environment.
                    if prolog_context {
                        env.insert("SLURM_SCRIPT_CONTEXT".into(), "prolog_srun".into());
                    }
                    env
                },
                cwd: plan.cwd.clone(),
                stdout: plan
                    .stdout
                    .as_ref()
                    .map(|p| expand_io(p, plan, alloc, step_id, rank, i, node)),
                stderr: plan
                    .stderr
                    .as_ref()
                    .map(|p| expand_io(p, plan, alloc, step_id, rank, i, node)),
                merged: own_out.is_some() && own_out == own_err,
                prolog: plan.task_prolog.clone(),
                epilog: plan.task_epilog.clone(),
                messages_24: plan.release.step_messages_24,
                rlimits: plan.rlimits.clone(),
            })
            .collect();
        if specs.is_empty() {
            writers.push(None);
            continue;
        }
        // Tasks this node still owes an exit for: a connection that ends before they are
        // all told was lost.
        let mut owed = specs.len();
        let launched = connect(alloc, addr).and_then(|(reader, mut writer)| {
            step_proto::write_control(
                &mut writer,
                &Control::Launch {
                    step_id,
                    pty: terminal.filter(|_| specs.iter().any(|t| t.rank == 0)),
                    tasks: specs,
                    pmi: Some(pmi_job.clone()),
                },
            )?;
            Ok((reader, writer))
        });
        let (mut reader, writer) = match launched {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(
                    err,
                    "srun: error: Task launch for StepId={}.{step_id} failed on node {node}: {e}",
                    alloc.job_id
                );
                launch_failed = true;
                break;
            }
        };
        writers.push(Some(std::sync::Arc::new(std::sync::Mutex::new(writer))));
        let tx = tx.clone();
        std::thread::spawn(move || {
            loop {
                match step_proto::read_frame(&mut reader) {
                    Ok(Some(Frame::Output { rank, stderr, data })) => {
                        let _ = tx.send(Event::Output { rank, stderr, data });
                    }
                    Ok(Some(Frame::Control(Control::Exited { rank, status }))) => {
                        owed = owed.saturating_sub(1);
                        let _ = tx.send(Event::Exited { rank, status });
                    }
                    Ok(Some(Frame::Control(Control::Message { text }))) => {
                        let _ = tx.send(Event::Message(text));
                    }
                    Ok(Some(Frame::Control(Control::LaunchFailed { rank, error }))) => {
                        owed = owed.saturating_sub(1);
                        let text = format!("srun: error: task {rank} launch failed: {error}");
                        let _ = tx.send(Event::Message(text));
                        let _ = tx.send(Event::LaunchFailed);
                        let _ = tx.send(Event::Exited { rank, status: 0 });
                    }
                    Ok(Some(Frame::Control(Control::PmiFence { kvs }))) => {
                        let _ = tx.send(Event::Fence(kvs));
                    }
                    Ok(Some(Frame::Control(Control::Refused { reason }))) => {
                        let _ = tx.send(Event::Lost {
                            node: i,
                            error: reason,
                        });
                        break;
                    }
                    Ok(Some(_)) => {}
                    Ok(None) if owed > 0 => {
                        let _ = tx.send(Event::Lost {
                            node: i,
                            error: "the connection was closed".into(),
                        });
                        break;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = tx.send(Event::Lost {
                            node: i,
                            error: e.to_string(),
                        });
                        break;
                    }
                }
            }
        });
    }
    drop(tx);
    let live: Vec<Shared> = writers.iter().flatten().cloned().collect();
    if launch_failed {
        // Whatever started elsewhere goes: closing the connections ends those tasks.
        for w in &live {
            if let Ok(w) = w.lock() {
                let _ = w.shutdown(std::net::Shutdown::Both);
            }
        }
        let _ = writeln!(err, "srun: error: Application launch failed");
        finish_step(alloc, step_id, ("FAILED", 1, 0));
        return 1;
    }
    if aborted {
        kill_now(&live, alloc.job_id, step_id);
    }
    if !plan.no_stdin
        && let Some(node0) = tasks.iter().position(|t| t.contains(&0))
        && let Some(Some(w)) = writers.get(node0)
    {
        forward_stdin(std::sync::Arc::clone(w));
        if terminal.is_some() {
            follow_window_size(std::sync::Arc::clone(w));
        }
    }
    let width = ntasks.saturating_sub(1).to_string().len();
    let mut partial: BTreeMap<(u32, bool), Vec<u8>> = BTreeMap::new();
    let mut exits: BTreeMap<u32, i32> = BTreeMap::new();
    let mut unreported: Vec<(u32, i32)> = Vec::new();
    let mut cancelled = false;
    let mut fences = FenceCollector::default();
    let node_of = |rank: u32| tasks.iter().position(|t| t.contains(&rank)).unwrap_or(0);
    let mut interrupts = Interrupts::default();
    let mut aborted = aborted;
    let mut max_wait_at: Option<Instant> = None;
    let mut killed_by_wait: Vec<u32> = Vec::new();
    let mut tasks_not_launched = false;
    loop {
        if let Some(s) = &signals {
            for sig in s.received() {
                let step = format!("StepId={}.{step_id}", alloc.job_id);
                let status = StepStatus {
                    step: &step,
                    ntasks,
                    exits: &exits,
                };
                match interrupts.on(sig, plan, &status, err) {
                    Reaction::Nothing => {}
                    Reaction::Forward(sig) => {
                        for w in &live {
                            send_to(w, &Control::Signal { signal: sig });
                        }
                    }
                    Reaction::Abort { first_interrupt } => {
                        aborted = true;
                        *interrupted |= first_interrupt.is_some();
                        if let Some(sig) = first_interrupt {
                            for w in &live {
                                send_to(w, &Control::Signal { signal: sig });
                            }
                        }
                        interrupts.say_aborted_once(err, alloc.kill_wait);
                        if first_interrupt.is_some() {
                            // The tasks have until then to end of the Ctrl-C.
                            interrupts.kill_at.get_or_insert(
                                Instant::now()
                                    + Duration::from_secs(u64::from(alloc.kill_wait) + 2),
                            );
                        } else {
                            kill_now(&live, alloc.job_id, step_id);
                        }
                    }
                }
            }
        }
        if interrupts.kill_at.is_some_and(|at| Instant::now() >= at) {
            interrupts.kill_at = None;
            let _ = writeln!(
                err,
                "srun: error: Timed out waiting for job step to complete"
            );
            kill_now(&live, alloc.job_id, step_id);
        }
        if max_wait_at.is_some_and(|at| Instant::now() >= at) {
            // --wait: the first task ended that long ago (srun's SIGALRM): the status, then
            // the step is killed; the tasks it kills do not count in the step's end.
            max_wait_at = None;
            let step = format!("StepId={}.{step_id}", alloc.job_id);
            let _ = writeln!(err, "srun: First task exited {}s ago", plan.max_wait);
            StepStatus {
                step: &step,
                ntasks,
                exits: &exits,
            }
            .print(err);
            say_terminating(err, &plan.release, &step);
            killed_by_wait = (0..ntasks).filter(|r| !exits.contains_key(r)).collect();
            aborted = true;
            kill_now(&live, alloc.job_id, step_id);
            interrupts.say_aborted_once(err, alloc.kill_wait);
        }
        let event = match rx.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(e) => e,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Exits that came together are reported together, as slurmstepd sends them.
                report_exits(err, &mut unreported, &step_nodes, node_of);
                continue;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match event {
            // With --pty only task 0's terminal is shown, as Slurm's srun does.
            Event::Output { rank, .. } if terminal.is_some() && rank != 0 => {}
            Event::Output { rank, stderr, data } => {
                let sink: &mut dyn Write = match (stderr, &mut out_file, &mut err_file) {
                    (false, Some(f), _) | (true, _, Some(f)) => f,
                    (false, None, _) => &mut *out,
                    (true, _, None) => &mut *err,
                };
                emit(
                    sink,
                    &mut partial,
                    rank,
                    stderr,
                    &data,
                    plan.label,
                    plan.unbuffered,
                    width,
                );
            }
            Event::Exited { rank, status } => {
                if rank == 0 {
                    // The terminal is the user's again before srun reports anything.
                    let _ = out.flush();
                    raw_mode = None;
                }
                let o: &mut dyn Write = match out_file.as_mut() {
                    Some(f) => f,
                    None => &mut *out,
                };
                let e: &mut dyn Write = match err_file.as_mut() {
                    Some(f) => f,
                    None => &mut *err,
                };
                flush_partial(o, e, &mut partial, rank, plan.label, width);
                exits.insert(rank, status);
                if exits.len() == 1 && plan.max_wait > 0 {
                    max_wait_at = Some(Instant::now() + Duration::from_secs(plan.max_wait.into()));
                }
                // After a Ctrl-C abort, tasks that die of a signal are not reported (srun's
                // job state is past CANCELLED then).
                if (libc::WIFSIGNALED(status) && !interrupts.forced)
                    || (libc::WIFEXITED(status) && libc::WEXITSTATUS(status) != 0)
                {
                    unreported.push((rank, status));
                }
                if exits.len() as u32 == ntasks {
                    break;
                }
                let bad = libc::WIFSIGNALED(status) || libc::WEXITSTATUS(status) != 0;
                if bad && plan.kill_on_bad_exit && !cancelled {
                    cancelled = true;
                    report_exits(err, &mut unreported, &step_nodes, node_of);
                    say_terminating(
                        err,
                        &plan.release,
                        &format!("StepId={}.{step_id}", alloc.job_id),
                    );
                    for w in &live {
                        send_to(
                            w,
                            &Control::Cancel {
                                job_id: alloc.job_id,
                                step_id,
                                kill_wait: alloc.kill_wait,
                                at_once: false,
                            },
                        );
                    }
                }
            }
            Event::Message(text) => {
                let _ = writeln!(err, "{text}");
            }
            Event::LaunchFailed => tasks_not_launched = true,
            Event::Fence(kvs) => {
                if let Some(all) = fences.arrive(kvs, live.len()) {
                    for w in &live {
                        send_to(w, &Control::PmiFenceDone { kvs: all.clone() });
                    }
                }
            }
            Event::Lost { node, error } => {
                report_exits(err, &mut unreported, &step_nodes, node_of);
                let _ = writeln!(
                    err,
                    "srun: error: {}: lost contact with the step server: {error}",
                    step_nodes[node].0
                );
            }
        }
    }
    let _ = out.flush();
    drop(raw_mode);
    report_exits(err, &mut unreported, &step_nodes, node_of);
    // slurm_step_launch_wait_finish: a task that ended by SIGKILL or SIGTERM (not said
    // of a step srun aborted itself).
    if !aborted
        && exits.values().any(|&s| {
            libc::WIFSIGNALED(s) && matches!(libc::WTERMSIG(s), libc::SIGKILL | libc::SIGTERM)
        })
    {
        let _ = writeln!(
            err,
            "srun: Force Terminated StepId={}.{step_id}",
            alloc.job_id
        );
    }
    let code = exit_code(&exits, ntasks);
    // A step srun aborted was cancelled by its user (slurm_kill_job_step).
    let counted: BTreeMap<u32, i32> = exits
        .iter()
        .filter(|(r, _)| !killed_by_wait.contains(r))
        .map(|(r, s)| (*r, *s))
        .collect();
    let counted_code = if killed_by_wait.is_empty() {
        code
    } else {
        exit_code(&counted, counted.len() as u32)
    };
    let mut end = step_end(&counted, counted_code);
    // 24.11 counts the tasks -W killed when the others exited 0 (CANCELLED 0:9); an exit
    // code of the others still outranks them (FAILED 3:0), as in 22.05.
    if plan.release.waited_out_tasks_count && !killed_by_wait.is_empty() && end.0 == "COMPLETED" {
        end = step_end(&exits, code);
    }
    let end = match end {
        // A task srun's abort ended by a signal: the step was cancelled (22.05.8, 24.11.5).
        ("FAILED", 0, sig) if aborted && sig > 0 => ("CANCELLED", 0, sig),
        end => end,
    };
    let by = (aborted && end.0 == "CANCELLED").then(|| nix::unistd::getuid().as_raw());
    finish_step_by(alloc, step_id, end, by);
    let epilog_rc = plan.run_script(
        &plan.epilog,
        "epilog_srun",
        alloc.job_id,
        step_id,
        &mut *out,
        &mut *err,
    );
    if epilog_rc != 0 {
        let _ = writeln!(err, "srun: error: srun epilog failed status={epilog_rc}");
    }
    if tasks_not_launched && plan.release.launch_failure_fails_srun {
        return 1;
    }
    code
}

/// Opens srun's own output file as srun does (created 0644, truncated).
fn open_own(name: &str) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(name)
}

fn finish_step(alloc: &Allocation, step_id: u32, (state, code, signal): (&str, i32, i32)) {
    finish_step_by(alloc, step_id, (state, code, signal), None);
}

/// Records how the step ended, and who cancelled it.
fn finish_step_by(
    alloc: &Allocation,
    step_id: u32,
    (state, code, signal): (&str, i32, i32),
    cancelled_by: Option<u32>,
) {
    let _ = ask(
        alloc,
        &Control::FinishStep {
            step_id,
            state: state.into(),
            code,
            signal,
            cancelled_by,
        },
    );
}

/// A node connection several threads write to.
type Shared = std::sync::Arc<std::sync::Mutex<TcpStream>>;

fn send_to(w: &Shared, msg: &Control) -> bool {
    w.lock()
        .is_ok_and(|mut s| step_proto::write_control(&mut *s, msg).is_ok())
}

/// `--pty`: the size of srun's terminal for task 0's, with srun's terminal in raw mode
/// until the task ends; without a terminal on stdin, Slurm's two errors and no pty.
fn terminal_for_task0(
    err: &mut dyn Write,
) -> (Option<super::pty::WindowSize>, Option<super::pty::RawMode>) {
    let refuse = |err: &mut dyn Write, e: std::io::Error| {
        let why = crate::sys::strerror(e.raw_os_error().unwrap_or(libc::ENOTTY));
        let _ = writeln!(err, "srun: error: ioctl(TIOCGWINSZ): {why}");
        let _ = writeln!(
            err,
            "srun: error: Not using a pseudo-terminal, disregarding --pty option"
        );
        (None, None)
    };
    match super::pty::window_size(libc::STDIN_FILENO) {
        Err(e) => refuse(err, e),
        Ok(size) => match super::pty::RawMode::enter(libc::STDIN_FILENO) {
            Ok(raw) => (Some(size), Some(raw)),
            Err(e) => refuse(err, e),
        },
    }
}

/// The signals srun itself acts on while its step runs (srun_job.c `_srun_signal_mgr`):
/// caught here and handed to the step's loop.
struct SrunSignals {
    received: mpsc::Receiver<i32>,
    handle: signal_hook::iterator::Handle,
    /// A SIGPIPE another process sent. srun's signal thread waits for the signals it
    /// handles with sigwait(2), which never sees the SIGPIPE of its own write to a closed
    /// pipe (that one belongs to the writing thread): such a write just fails and srun goes
    /// on. Here the kernel's SIGPIPE is told apart by its sender, this process.
    pipe: Arc<AtomicBool>,
    pipe_id: Option<signal_hook_registry::SigId>,
}

impl SrunSignals {
    const CAUGHT: [i32; 8] = [
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGCONT,
        libc::SIGALRM,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ];

    fn watch() -> Option<SrunSignals> {
        let mut signals = signal_hook::iterator::Signals::new(Self::CAUGHT).ok()?;
        let handle = signals.handle();
        let (tx, received) = mpsc::channel();
        std::thread::spawn(move || {
            for sig in signals.forever() {
                if tx.send(sig).is_err() {
                    break;
                }
            }
        });
        let pipe = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&pipe);
        let me = std::process::id() as libc::pid_t;
        let action = move |info: &libc::siginfo_t| {
            // SAFETY: SIGPIPE's siginfo carries its sender (si_pid) on Linux.
            if unsafe { info.si_pid() } != me {
                flag.store(true, Ordering::SeqCst);
            }
        };
        // SAFETY: the action only reads the siginfo and stores to an atomic, both
        // async-signal-safe.
        let pipe_id =
            unsafe { signal_hook_registry::register_sigaction(libc::SIGPIPE, action) }.ok();
        Some(SrunSignals {
            received,
            handle,
            pipe,
            pipe_id,
        })
    }

    fn received(&self) -> Vec<i32> {
        let mut got: Vec<i32> = self.received.try_iter().collect();
        if self.pipe.swap(false, Ordering::SeqCst) {
            got.push(libc::SIGPIPE);
        }
        got
    }
}

impl Drop for SrunSignals {
    fn drop(&mut self) {
        self.handle.close();
        if let Some(id) = self.pipe_id.take() {
            signal_hook_registry::unregister(id);
        }
    }
}

/// What srun does about a signal.
enum Reaction {
    Nothing,
    /// Pass it to the tasks.
    Forward(i32),
    /// End the step: with Ctrl-C, the tasks get it first and some seconds to end of it;
    /// otherwise they are killed at once.
    Abort {
        first_interrupt: Option<i32>,
    },
}

/// srun's memory of Ctrl-C (`_handle_intr`) and of its step's abort.
#[derive(Default)]
struct Interrupts {
    last: Option<Instant>,
    /// `job_force_termination` has run: tasks that die of a signal are not reported.
    forced: bool,
    waiting_said: bool,
    /// When tasks still running after a Ctrl-C abort are killed.
    kill_at: Option<Instant>,
    /// A SIGPIPE has aborted the step (`_handle_pipe` acts once).
    piped: bool,
}

impl Interrupts {
    fn on(
        &mut self,
        sig: i32,
        plan: &StepPlan,
        status: &StepStatus<'_>,
        err: &mut dyn Write,
    ) -> Reaction {
        let step = status.step;
        match sig {
            libc::SIGINT => {
                let now = Instant::now();
                let again = self
                    .last
                    .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1));
                if plan.quit_on_interrupt || again {
                    let _ = writeln!(err, "srun: sending Ctrl-C to {step}");
                    self.force(err);
                    return Reaction::Abort {
                        first_interrupt: Some(libc::SIGINT),
                    };
                }
                self.last = Some(now);
                if plan.disable_status {
                    let _ = writeln!(err, "srun: sending Ctrl-C to {step}");
                    return Reaction::Forward(libc::SIGINT);
                }
                let _ = writeln!(err, "srun: interrupt (one more within 1 sec to abort)");
                status.print(err);
                Reaction::Nothing
            }
            libc::SIGTERM | libc::SIGHUP | libc::SIGQUIT => {
                if sig == libc::SIGQUIT {
                    let _ = writeln!(err, "srun: Quit");
                }
                let _ = writeln!(err, "srun: forcing job termination");
                Reaction::Abort {
                    first_interrupt: None,
                }
            }
            libc::SIGCONT => {
                let _ = writeln!(err, "srun: got SIGCONT");
                Reaction::Nothing
            }
            // srun's own timer is --wait's (handled by the step's loop); another SIGALRM is
            // not passed on.
            libc::SIGALRM => Reaction::Nothing,
            libc::SIGPIPE if self.piped => Reaction::Nothing,
            libc::SIGPIPE => {
                self.piped = true;
                Reaction::Abort {
                    first_interrupt: None,
                }
            }
            other => Reaction::Forward(other),
        }
    }

    /// slurm_step_launch_wait_finish's note of an aborted step, said once.
    fn say_aborted_once(&mut self, err: &mut dyn Write, kill_wait: u32) {
        if !self.waiting_said {
            self.waiting_said = true;
            say_step_aborted(err, kill_wait);
        }
    }

    /// `job_force_termination`: said once, then (once a second) that it goes on.
    fn force(&mut self, err: &mut dyn Write) {
        if self.forced {
            let _ = writeln!(err, "srun: job abort in progress");
        } else {
            self.forced = true;
            let _ = writeln!(err, "srun: forcing job termination");
        }
    }
}

/// The step's tasks as srun knows them, for its status report (task_state.c
/// `task_state_print`: running, exited abnormally, exited).
struct StepStatus<'a> {
    step: &'a str,
    ntasks: u32,
    exits: &'a BTreeMap<u32, i32>,
}

impl StepStatus<'_> {
    fn print(&self, err: &mut dyn Write) {
        let normal = |s: i32| libc::WIFEXITED(s) && libc::WEXITSTATUS(s) == 0;
        let running: Vec<u32> = (0..self.ntasks)
            .filter(|r| !self.exits.contains_key(r))
            .collect();
        let abnormal: Vec<u32> = self
            .exits
            .iter()
            .filter(|(_, s)| !normal(**s))
            .map(|(r, _)| *r)
            .collect();
        let exited: Vec<u32> = self
            .exits
            .iter()
            .filter(|(_, s)| normal(**s))
            .map(|(r, _)| *r)
            .collect();
        for (ranks, what) in [
            (running, "running"),
            (abnormal, "exited abnormally"),
            (exited, "exited"),
        ] {
            if !ranks.is_empty() {
                let label = if ranks.len() == 1 { "task" } else { "tasks" };
                let _ = writeln!(
                    err,
                    "srun: {} {label} {}: {what}",
                    self.step,
                    crate::model::array::ranges(&ranks)
                );
            }
        }
    }
}

/// An aborted step is given KillWait and STEP_ABORT_TIME (2 s) to end (step_launch.c).
fn say_step_aborted(err: &mut dyn Write, kill_wait: u32) {
    let _ = writeln!(
        err,
        "srun: Job step aborted: Waiting up to {} seconds for job step to finish.",
        kill_wait + 2
    );
}

/// srun's `_step_signal` says which step it ends (22.05 through its launch plugin).
fn say_terminating(err: &mut dyn Write, release: &crate::model::profile::JobEnvDeltas, step: &str) {
    let plugin = if release.step_messages_24 {
        ""
    } else {
        "launch/slurm: _step_signal: "
    };
    let _ = writeln!(err, "srun: {plugin}Terminating {step}");
}

/// Kills the step's tasks at once, as slurmstepd cancels a step (it says so).
fn kill_now(live: &[Shared], job_id: u32, step_id: u32) {
    for w in live {
        send_to(
            w,
            &Control::Cancel {
                job_id,
                step_id,
                kill_wait: 0,
                at_once: true,
            },
        );
    }
}

/// `--pty`: each change of srun's window size (SIGWINCH) goes to task 0's terminal.
fn follow_window_size(w: Shared) {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([libc::SIGWINCH]) else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            let Ok(size) = super::pty::window_size(libc::STDIN_FILENO) else {
                continue;
            };
            if !send_to(&w, &Control::Resize { size }) {
                break;
            }
        }
    });
}

/// Streams srun's stdin to task 0, as Slurm does.
fn forward_stdin(w: Shared) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 8192];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => {
                    send_to(&w, &Control::Stdin { data: Vec::new() });
                    break;
                }
                Ok(n) => {
                    let data = buf[..n].to_vec();
                    if !send_to(&w, &Control::Stdin { data }) {
                        break;
                    }
                }
            }
        }
    });
}

fn expand_io(
    pattern: &str,
    plan: &StepPlan,
    alloc: &Allocation,
    step: u32,
    rank: u32,
    node_index: usize,
    node: &str,
) -> String {
    let job = alloc.job_id;
    // %N is the node's host name (slurmstepd's conf->hostname): this machine's for the
    // node srun runs on, in a job of one node (simulated nodes keep their names).
    let own =
        alloc.nodes.len() == 1 && plan.env.get("SLURMD_NODENAME").map(String::as_str) == Some(node);
    let host = if own {
        crate::sys::short_hostname()
    } else {
        node.to_string()
    };
    let ctx = crate::model::fname::FnameContext {
        job_id: job,
        array: plan.array,
        step_id: Some(step),
        node_id: node_index as u32,
        node_name: &host,
        task_id: rank,
        user: &plan.user,
        job_name: &plan.job_name,
    };
    crate::model::fname::expand(pattern, &ctx, &plan.cwd)
}

/// Writes task output: whole lines, each with its `N: ` label under `-l`; with `-u`,
/// as it comes.
#[allow(clippy::too_many_arguments)]
fn emit(
    sink: &mut dyn Write,
    partial: &mut BTreeMap<(u32, bool), Vec<u8>>,
    rank: u32,
    stderr: bool,
    data: &[u8],
    label: bool,
    unbuffered: bool,
    width: usize,
) {
    if unbuffered && !label {
        let _ = sink.write_all(data);
        let _ = sink.flush();
        return;
    }
    let buf = partial.entry((rank, stderr)).or_default();
    buf.extend_from_slice(data);
    while let Some(pos) = buf.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = buf.drain(..=pos).collect();
        if label {
            let _ = write!(sink, "{rank:>width$}: ");
        }
        let _ = sink.write_all(&line);
    }
    if unbuffered {
        let _ = sink.flush();
    }
}

fn flush_partial(
    out: &mut dyn Write,
    err: &mut dyn Write,
    partial: &mut BTreeMap<(u32, bool), Vec<u8>>,
    rank: u32,
    label: bool,
    width: usize,
) {
    for stderr in [false, true] {
        if let Some(rest) = partial.remove(&(rank, stderr))
            && !rest.is_empty()
        {
            let sink: &mut dyn Write = if stderr { &mut *err } else { &mut *out };
            if label {
                let _ = write!(sink, "{rank:>width$}: ");
            }
            let _ = sink.write_all(&rest);
        }
    }
}

/// srun's error lines for tasks that failed since the last report, grouped by node and
/// by what happened (`tasks 0-1: Terminated`), as srun prints each exit message.
fn report_exits(
    err: &mut dyn Write,
    unreported: &mut Vec<(u32, i32)>,
    nodes: &[(String, String)],
    node_of: impl Fn(u32) -> usize,
) {
    if unreported.is_empty() {
        return;
    }
    let mut groups: BTreeMap<(usize, String), Vec<u32>> = BTreeMap::new();
    let mut order: Vec<(usize, String)> = Vec::new();
    for (rank, status) in unreported.drain(..) {
        let what = if libc::WIFSIGNALED(status) {
            signal_text(libc::WTERMSIG(status))
        } else {
            format!("Exited with exit code {}", libc::WEXITSTATUS(status))
        };
        let key = (node_of(rank), what);
        if !order.contains(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(rank);
    }
    for key in order {
        let mut ranks = groups.remove(&key).unwrap_or_default();
        ranks.sort_unstable();
        let label = if ranks.len() == 1 { "task" } else { "tasks" };
        let _ = writeln!(
            err,
            "srun: error: {}: {label} {}: {}",
            nodes[key.0].0,
            crate::model::array::ranges(&ranks),
            key.1
        );
    }
}

/// srun's exit status: 128 + the highest signal when a task was signalled, else the highest
/// exit code (src/srun/srun_job.c); 1 when tasks were lost.
fn exit_code(exits: &BTreeMap<u32, i32>, ntasks: u32) -> i32 {
    if (exits.len() as u32) < ntasks {
        return 1;
    }
    let signal = highest_signal(exits);
    if signal > 0 {
        return 128 + signal;
    }
    exits
        .values()
        .map(|s| libc::WEXITSTATUS(*s))
        .max()
        .unwrap_or(0)
}

/// The highest signal that ended a task (0 when none was signalled).
fn highest_signal(exits: &BTreeMap<u32, i32>) -> i32 {
    exits
        .values()
        .filter(|s| libc::WIFSIGNALED(**s))
        .map(|s| libc::WTERMSIG(*s))
        .max()
        .unwrap_or(0)
}

/// The state and exit status a step is accounted with.
fn step_end(exits: &BTreeMap<u32, i32>, code: i32) -> (&'static str, i32, i32) {
    let signal = highest_signal(exits);
    if signal == libc::SIGKILL {
        // As slurmctld records a step whose task was killed (22.05.8: CANCELLED 0:9).
        ("CANCELLED", 0, signal)
    } else if signal > 0 {
        ("FAILED", 0, signal)
    } else if code != 0 {
        ("FAILED", code, 0)
    } else {
        ("COMPLETED", 0, 0)
    }
}

/// strsignal(3) for the signals tasks die of.
pub fn signal_text(sig: i32) -> String {
    match sig {
        libc::SIGHUP => "Hangup".into(),
        libc::SIGINT => "Interrupt".into(),
        libc::SIGQUIT => "Quit".into(),
        libc::SIGILL => "Illegal instruction".into(),
        libc::SIGABRT => "Aborted".into(),
        libc::SIGFPE => "Floating point exception".into(),
        libc::SIGKILL => "Killed".into(),
        libc::SIGSEGV => "Segmentation fault".into(),
        libc::SIGPIPE => "Broken pipe".into(),
        libc::SIGALRM => "Alarm clock".into(),
        libc::SIGTERM => "Terminated".into(),
        libc::SIGUSR1 => "User defined signal 1".into(),
        libc::SIGUSR2 => "User defined signal 2".into(),
        libc::SIGBUS => "Bus error".into(),
        other => format!("Signal {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_and_cyclic_layouts() {
        assert_eq!(
            layout(7, 3, None, false),
            vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]]
        );
        assert_eq!(layout(4, 2, None, true), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(layout(4, 2, Some(2), false), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(layout(2, 1, None, false), vec![vec![0, 1]]);
    }

    #[test]
    fn labels_and_line_assembly() {
        let mut out = Vec::new();
        let mut partial = BTreeMap::new();
        emit(&mut out, &mut partial, 3, false, b"ab", true, false, 2);
        emit(&mut out, &mut partial, 3, false, b"c\nd", true, false, 2);
        assert_eq!(out, b" 3: abc\n");
        let mut err = Vec::new();
        flush_partial(&mut out, &mut err, &mut partial, 3, true, 2);
        assert_eq!(out, b" 3: abc\n 3: d");
    }

    #[test]
    fn status_is_reported_like_task_state_print() {
        let mut exits = BTreeMap::new();
        exits.insert(0, 0);
        exits.insert(2, 3 << 8);
        exits.insert(3, libc::SIGKILL);
        exits.insert(5, 0);
        let mut err = Vec::new();
        StepStatus {
            step: "StepId=7.0",
            ntasks: 6,
            exits: &exits,
        }
        .print(&mut err);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "srun: StepId=7.0 tasks 1,4: running\n\
             srun: StepId=7.0 tasks 2-3: exited abnormally\n\
             srun: StepId=7.0 tasks 0,5: exited\n"
        );
    }

    #[test]
    fn failures_are_reported_like_srun() {
        let nodes = vec![
            ("node01".to_string(), String::new()),
            ("node02".to_string(), String::new()),
        ];
        let mut exits = BTreeMap::new();
        exits.insert(0, 0);
        exits.insert(1, 7 << 8);
        exits.insert(2, 7 << 8);
        exits.insert(3, libc::SIGKILL);
        assert_eq!(exit_code(&exits, 4), 128 + 9);
        assert_eq!(exit_code(&exits, 5), 1);
        exits.remove(&3);
        assert_eq!(exit_code(&exits, 3), 7);
        let mut pending = vec![(1, 7 << 8), (3, libc::SIGTERM), (2, libc::SIGTERM)];
        let mut err = Vec::new();
        report_exits(&mut err, &mut pending, &nodes, |r| (r / 2) as usize);
        assert!(pending.is_empty());
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "srun: error: node01: task 1: Exited with exit code 7\nsrun: error: node02: tasks 2-3: Terminated\n"
        );
    }

    fn plan(ntasks: Option<u32>, nodes: Option<u32>) -> StepPlan {
        StepPlan {
            ntasks,
            nodes,
            ..Default::default()
        }
    }

    #[test]
    fn node_selection_follows_srun() {
        let names = vec!["node01".to_string(), "node02".to_string()];
        let cpus = [2, 2];
        // Inside `sbatch -N2 -n4`: the step inherits both counts.
        let s = select_nodes(&plan(Some(4), Some(2)), &names, &cpus, 10).unwrap();
        assert_eq!((s.nodes, s.ntasks), (vec![0, 1], 4));
        // -n 1 -w node02 with -N 2 inherited: srun's warning, one node.
        let mut p = plan(Some(1), Some(2));
        p.nodelist = Some("node02".into());
        let s = select_nodes(&p, &names, &cpus, 10).unwrap();
        assert_eq!(s.nodes, vec![1]);
        assert_eq!(
            s.warnings,
            ["can't run 1 processes on 2 nodes, setting nnodes to 1"]
        );
        // -n 2 -N 2 -w node02: the required node and another.
        p.ntasks = Some(2);
        assert_eq!(
            select_nodes(&p, &names, &cpus, 10).unwrap().nodes,
            vec![0, 1]
        );
        // -x node01 with -N 2 inherited.
        let mut p = plan(Some(2), Some(2));
        p.exclude = Some("node01".into());
        assert_eq!(
            select_nodes(&p, &names, &cpus, 10).unwrap_err(),
            "Only allocated 1 nodes asked for 2\nAre required nodes explicitly excluded?"
        );
        assert_eq!(
            select_nodes(&plan(None, Some(3)), &names, &cpus, 11).unwrap_err(),
            "Only allocated 2 nodes asked for 3"
        );
        let mut p = plan(None, None);
        p.nodelist = Some("node03".into());
        assert_eq!(
            select_nodes(&p, &names, &cpus, 11).unwrap_err(),
            "Unable to create step for job 11: Requested node configuration is not available"
        );
        // -N 1 with -n 4 inherited on 2-CPU nodes.
        assert_eq!(
            select_nodes(&plan(Some(4), Some(1)), &names, &cpus, 10).unwrap_err(),
            "Unable to create step for job 10: More processors requested than permitted"
        );
        // --ntasks-per-node=1 against an inherited -n 4.
        let mut p = plan(Some(4), Some(2));
        p.ntasks_per_node = Some(1);
        let s = select_nodes(&p, &names, &cpus, 10).unwrap();
        assert_eq!((s.ntasks, s.per_node), (4, None));
        assert_eq!(
            s.warnings,
            [
                "can't honor --ntasks-per-node set to 1 which doesn't match the requested tasks 4 with the number of requested nodes 2. Ignoring --ntasks-per-node."
            ]
        );
        // What Open MPI's mpirun runs to start its daemons: one per node.
        let mut p = plan(Some(2), Some(2));
        p.ntasks_per_node = Some(1);
        p.nodelist = Some("node[01-02]".into());
        let s = select_nodes(&p, &names, &cpus, 10).unwrap();
        assert_eq!(
            layout(s.ntasks, 2, s.per_node, false),
            vec![vec![0], vec![1]]
        );
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn run_lengths_expand() {
        assert_eq!(expand_run_length("2(x3),1"), Some(vec![2, 2, 2, 1]));
        assert_eq!(expand_run_length("4"), Some(vec![4]));
        assert_eq!(expand_run_length("x"), None);
    }
}
