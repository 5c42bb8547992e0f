//! srun inside an allocation: lays the step's tasks out on the job's nodes, has each
//! node's step server start them, prints their output (with `-l` labels), reports task
//! failures in Slurm's words and returns srun's exit status.

use super::step_proto::{self, Control, Frame, TaskSpec};
use crate::model::hostlist;
use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;

/// Variables that tell job processes where the step servers are and the job's secret.
pub const STEPD_ENV: &str = "BAI_SLURM_STEPD";
pub const SECRET_ENV: &str = "BAI_SLURM_JOB_SECRET";

/// The allocation a step runs in, as the job's environment describes it.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub job_id: u32,
    /// Node names in allocation order, with their step server addresses.
    pub nodes: Vec<(String, String)>,
    pub secret: Vec<u8>,
    pub cpus_per_node: u32,
}

impl Allocation {
    /// Reads `BAI_SLURM_STEPD` (`node=host:port,...`) and the secret from the environment.
    pub fn from_env(env: &BTreeMap<String, String>) -> Option<Allocation> {
        let job_id = env.get("SLURM_JOB_ID")?.parse().ok()?;
        let nodes: Vec<(String, String)> = env
            .get(STEPD_ENV)?
            .split(',')
            .filter_map(|e| {
                e.split_once('=')
                    .map(|(n, a)| (n.to_string(), a.to_string()))
            })
            .collect();
        if nodes.is_empty() {
            return None;
        }
        let cpus_per_node = env
            .get("SLURM_JOB_CPUS_PER_NODE")
            .and_then(|v| v.split(['(', ',']).next()?.parse().ok())
            .unwrap_or(1);
        Some(Allocation {
            job_id,
            nodes,
            secret: env.get(SECRET_ENV)?.as_bytes().to_vec(),
            cpus_per_node,
        })
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
    /// Whether srun runs inside a job it did not create itself (sbatch, salloc): Slurm then
    /// also sets SLURM_DISTRIBUTION and SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0 (the goldens
    /// of both cases show the difference).
    pub in_existing_job: bool,
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

/// The environment of one task (`env_array_for_step` / `setup_env` in Slurm), plus what
/// PyTorch-style launchers read.
#[allow(clippy::too_many_arguments)]
fn task_env(
    plan: &StepPlan,
    alloc: &Allocation,
    step_id: u32,
    step_nodes: &[(String, String)],
    tasks: &[Vec<u32>],
    node_index: usize,
    rank: u32,
    local_rank: u32,
) -> BTreeMap<String, String> {
    let mut env = plan.env.clone();
    let ntasks: u32 = tasks.iter().map(|t| t.len() as u32).sum();
    let names: Vec<&str> = step_nodes.iter().map(|(n, _)| n.as_str()).collect();
    let step_nodelist = hostlist::compress(&names);
    let per_node: Vec<u32> = tasks.iter().map(|t| t.len() as u32).collect();
    let per_node_str = hostlist::run_length(&per_node);
    let (node, addr) = &step_nodes[node_index];
    let launch_host = addr
        .rsplit_once(':')
        .map_or("127.0.0.1", |(h, _)| h)
        .to_string();
    let port = addr.rsplit_once(':').map_or("0", |(_, p)| p).to_string();
    let mut set = |k: &str, v: String| {
        env.insert(k.to_string(), v);
    };
    set("SLURM_STEP_ID", step_id.to_string());
    set("SLURM_STEPID", step_id.to_string());
    set("SLURM_STEP_NODELIST", step_nodelist.clone());
    set("SLURM_STEP_NUM_NODES", step_nodes.len().to_string());
    set("SLURM_STEP_NUM_TASKS", ntasks.to_string());
    set("SLURM_STEP_TASKS_PER_NODE", per_node_str.clone());
    set("SLURM_STEP_LAUNCHER_PORT", port.clone());
    set("SLURM_SRUN_COMM_HOST", launch_host.clone());
    set("SLURM_SRUN_COMM_PORT", port);
    set("SLURM_LAUNCH_NODE_IPADDR", launch_host);
    set("SLURM_PROCID", rank.to_string());
    set("SLURM_LOCALID", local_rank.to_string());
    set("SLURM_NODEID", node_index.to_string());
    set(
        "SLURM_GTIDS",
        tasks[node_index]
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
    );
    set("SLURM_CPUS_ON_NODE", alloc.cpus_per_node.to_string());
    if plan.in_existing_job {
        set(
            "SLURM_DISTRIBUTION",
            if plan.cyclic { "cyclic" } else { "block" }.to_string(),
        );
    }
    set("SLURM_UMASK", format!("{:04o}", plan.umask));
    set("SLURMD_NODENAME", node.clone());
    set("SLURM_TOPOLOGY_ADDR", node.clone());
    set("SLURM_NNODES", step_nodes.len().to_string());
    set("SLURM_NTASKS", ntasks.to_string());
    set("SLURM_NPROCS", ntasks.to_string());
    set("SLURM_TASKS_PER_NODE", per_node_str);
    set("SLURM_NODELIST", step_nodelist);
    set("SLURM_TOPOLOGY_ADDR_PATTERN", "node".to_string());
    if plan.in_existing_job
        && let Some(v) = env_get(&plan.env, "SLURM_JOB_CPUS_PER_NODE")
    {
        set("SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", v);
    }
    if let Some(c) = plan.cpus_per_task {
        set("SLURM_CPUS_PER_TASK", c.to_string());
    }
    if plan.label {
        set("SLURM_LABELIO", "1".to_string());
    }
    // What torch.distributed and friends read: rank 0's node is the rendezvous point.
    let master = step_nodes[0]
        .1
        .rsplit_once(':')
        .map_or("127.0.0.1", |(h, _)| h)
        .to_string();
    set("MASTER_ADDR", master);
    set(
        "MASTER_PORT",
        (20000 + alloc.job_id % 20000 + step_id % 100).to_string(),
    );
    set("WORLD_SIZE", ntasks.to_string());
    set("RANK", rank.to_string());
    set("LOCAL_RANK", local_rank.to_string());
    set("LOCAL_WORLD_SIZE", tasks[node_index].len().to_string());
    env
}

fn env_get(env: &BTreeMap<String, String>, k: &str) -> Option<String> {
    env.get(k).cloned()
}

/// Connects to a step server and proves the job's secret.
fn connect(addr: &str, secret: &[u8]) -> std::io::Result<(BufReader<TcpStream>, TcpStream)> {
    let stream = TcpStream::connect(addr)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    match step_proto::read_frame(&mut reader)? {
        Some(Frame::Control(Control::Hello { nonce, .. })) => {
            step_proto::write_control(
                &mut writer,
                &Control::Auth {
                    mac: step_proto::answer(secret, &nonce),
                },
            )?;
        }
        _ => return Err(std::io::Error::other("the step server did not greet")),
    }
    Ok((reader, writer))
}

/// Asks node 0's server for something and waits for its answer.
fn ask(addr: &str, secret: &[u8], msg: &Control) -> std::io::Result<Control> {
    let (mut r, mut w) = connect(addr, secret)?;
    step_proto::write_control(&mut w, msg)?;
    match step_proto::read_frame(&mut r)? {
        Some(Frame::Control(Control::Refused { reason })) => Err(std::io::Error::other(reason)),
        Some(Frame::Control(c)) => Ok(c),
        _ => Err(std::io::Error::other("no answer from the step server")),
    }
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
    Lost {
        node: usize,
        error: String,
    },
}

/// Runs the step; returns srun's exit status.
pub fn run(plan: &StepPlan, alloc: &Allocation, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // Nodes of the step: -w picks, -x removes, -N takes the first N, else as many as tasks need.
    let mut candidates: Vec<(String, String)> = alloc.nodes.clone();
    if let Some(w) = plan.nodelist.as_deref().and_then(hostlist::expand) {
        candidates.retain(|(n, _)| w.contains(n));
    }
    if let Some(x) = plan.exclude.as_deref().and_then(hostlist::expand) {
        candidates.retain(|(n, _)| !x.contains(n));
    }
    if candidates.is_empty() {
        let _ = writeln!(
            err,
            "srun: error: Unable to create step for job {}: Requested node configuration is not available",
            alloc.job_id
        );
        return 1;
    }
    let ntasks = plan.ntasks.unwrap_or_else(|| {
        plan.nodes.unwrap_or(candidates.len() as u32) * plan.ntasks_per_node.unwrap_or(1)
    });
    let nnodes = plan
        .nodes
        .unwrap_or_else(|| (candidates.len() as u32).min(ntasks.max(1)))
        .min(candidates.len() as u32)
        .max(1);
    let step_nodes: Vec<(String, String)> = candidates.into_iter().take(nnodes as usize).collect();
    let tasks = layout(ntasks, nnodes, plan.ntasks_per_node, plan.cyclic);
    let names: Vec<&str> = step_nodes.iter().map(|(n, _)| n.as_str()).collect();
    let step_id = match ask(
        &alloc.nodes[0].1,
        &alloc.secret,
        &Control::AllocateStep {
            name: plan.name.clone(),
            ntasks,
            nnodes,
            nodes: hostlist::compress(&names),
            cpus: ntasks * plan.cpus_per_task.unwrap_or(1),
        },
    ) {
        Ok(Control::StepAllocated { step_id }) => step_id,
        Ok(_) | Err(_) => {
            let _ = writeln!(
                err,
                "srun: error: Unable to create step for job {}: Unable to contact slurm controller (connect failure)",
                alloc.job_id
            );
            return 1;
        }
    };
    let (tx, rx) = mpsc::channel::<Event>();
    let mut writers: Vec<TcpStream> = Vec::new();
    for (i, (node, addr)) in step_nodes.iter().enumerate() {
        let specs: Vec<TaskSpec> = tasks[i]
            .iter()
            .enumerate()
            .map(|(local, &rank)| TaskSpec {
                rank,
                local_rank: local as u32,
                argv: plan.argv.clone(),
                env: task_env(
                    plan,
                    alloc,
                    step_id,
                    &step_nodes,
                    &tasks,
                    i,
                    rank,
                    local as u32,
                ),
                cwd: plan.cwd.clone(),
                stdout: plan
                    .stdout
                    .as_ref()
                    .map(|p| expand_io(p, alloc.job_id, step_id, rank, i, node, &plan.cwd)),
                stderr: plan
                    .stderr
                    .as_ref()
                    .map(|p| expand_io(p, alloc.job_id, step_id, rank, i, node, &plan.cwd)),
            })
            .collect();
        if specs.is_empty() {
            continue;
        }
        let (mut reader, mut writer) = match connect(addr, &alloc.secret) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(
                    err,
                    "srun: error: Task launch for StepId={}.{step_id} failed on node {node}: {e}",
                    alloc.job_id
                );
                return 1;
            }
        };
        if step_proto::write_control(
            &mut writer,
            &Control::Launch {
                step_id,
                tasks: specs,
            },
        )
        .is_err()
        {
            let _ = writeln!(
                err,
                "srun: error: Task launch for StepId={}.{step_id} failed on node {node}",
                alloc.job_id
            );
            return 1;
        }
        if let Ok(w) = writer.try_clone() {
            writers.push(w);
        }
        let tx = tx.clone();
        std::thread::spawn(move || {
            loop {
                match step_proto::read_frame(&mut reader) {
                    Ok(Some(Frame::Output { rank, stderr, data })) => {
                        let _ = tx.send(Event::Output { rank, stderr, data });
                    }
                    Ok(Some(Frame::Control(Control::Exited { rank, status }))) => {
                        let _ = tx.send(Event::Exited { rank, status });
                    }
                    Ok(Some(Frame::Control(Control::Refused { reason }))) => {
                        let _ = tx.send(Event::Lost {
                            node: i,
                            error: reason,
                        });
                        break;
                    }
                    Ok(Some(_)) => {}
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
    forward_stdin(&writers, &tasks, &step_nodes);
    let width = ntasks.saturating_sub(1).to_string().len();
    let mut partial: BTreeMap<(u32, bool), Vec<u8>> = BTreeMap::new();
    let mut exits: BTreeMap<u32, i32> = BTreeMap::new();
    let mut killed = false;
    let node_of = |rank: u32| tasks.iter().position(|t| t.contains(&rank)).unwrap_or(0);
    for event in rx {
        match event {
            Event::Output { rank, stderr, data } => {
                let sink: &mut dyn Write = if stderr { &mut *err } else { &mut *out };
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
                flush_partial(out, err, &mut partial, rank, plan.label, width);
                exits.insert(rank, status);
                if exits.len() as u32 == ntasks {
                    break;
                }
                let bad = libc::WIFSIGNALED(status) || libc::WEXITSTATUS(status) != 0;
                if bad && plan.kill_on_bad_exit && !killed && (exits.len() as u32) < ntasks {
                    killed = true;
                    for w in writers.iter_mut() {
                        let _ = step_proto::write_control(
                            w,
                            &Control::Signal {
                                signal: libc::SIGKILL,
                            },
                        );
                    }
                }
            }
            Event::Lost { node, error } => {
                let _ = writeln!(
                    err,
                    "srun: error: {}: lost contact with the step server: {error}",
                    step_nodes[node].0
                );
            }
        }
    }
    let _ = out.flush();
    report(err, &exits, &step_nodes, node_of, ntasks)
        .inspect(|&code| {
            let (state, c, s) = step_end(&exits, code);
            let _ = ask(
                &alloc.nodes[0].1,
                &alloc.secret,
                &Control::FinishStep {
                    step_id,
                    state: state.into(),
                    code: c,
                    signal: s,
                },
            );
        })
        .unwrap_or(1)
}

/// Streams srun's stdin to task 0, as Slurm does.
fn forward_stdin(writers: &[TcpStream], tasks: &[Vec<u32>], _nodes: &[(String, String)]) {
    let Some(node0) = tasks.iter().position(|t| t.contains(&0)) else {
        return;
    };
    let Some(w) = writers.get(node0).and_then(|w| w.try_clone().ok()) else {
        return;
    };
    std::thread::spawn(move || {
        let mut w = w;
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 8192];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = step_proto::write_control(&mut w, &Control::Stdin { data: Vec::new() });
                    break;
                }
                Ok(n) => {
                    if step_proto::write_control(
                        &mut w,
                        &Control::Stdin {
                            data: buf[..n].to_vec(),
                        },
                    )
                    .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
}

fn expand_io(
    pattern: &str,
    job: u32,
    step: u32,
    rank: u32,
    node_index: usize,
    node: &str,
    cwd: &str,
) -> String {
    let ctx = crate::model::fname::FnameContext {
        job_id: job,
        step_id: Some(step),
        node_id: node_index as u32,
        node_name: node,
        task_id: rank,
        ..Default::default()
    };
    crate::model::fname::expand(pattern, &ctx, cwd)
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

/// srun's error lines for failed tasks and its exit status: the highest exit code, or
/// 128 + the highest signal when a task was signalled (src/srun/srun_job.c).
fn report(
    err: &mut dyn Write,
    exits: &BTreeMap<u32, i32>,
    nodes: &[(String, String)],
    node_of: impl Fn(u32) -> usize,
    ntasks: u32,
) -> Option<i32> {
    // Group the failures by what happened, then by node.
    let mut groups: BTreeMap<(String, usize), Vec<u32>> = BTreeMap::new();
    let mut code = 0;
    let mut signal = 0;
    for (&rank, &status) in exits {
        let what = if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            signal = signal.max(sig);
            signal_text(sig)
        } else {
            let c = libc::WEXITSTATUS(status);
            code = code.max(c);
            if c == 0 {
                continue;
            }
            format!("Exited with exit code {c}")
        };
        groups.entry((what, node_of(rank))).or_default().push(rank);
    }
    for ((what, node), ranks) in &groups {
        let label = if ranks.len() == 1 { "task" } else { "tasks" };
        let _ = writeln!(
            err,
            "srun: error: {}: {label} {}: {what}",
            nodes[*node].0,
            crate::model::array::ranges(ranks)
        );
    }
    let lost = ntasks as usize - exits.len();
    if lost > 0 {
        return Some(1);
    }
    Some(if signal > 0 { 128 + signal } else { code })
}

/// The state and exit status a step is accounted with.
fn step_end(exits: &BTreeMap<u32, i32>, code: i32) -> (&'static str, i32, i32) {
    let signal = exits
        .values()
        .filter(|s| libc::WIFSIGNALED(**s))
        .map(|s| libc::WTERMSIG(*s))
        .max()
        .unwrap_or(0);
    if signal > 0 {
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
        let mut err = Vec::new();
        let code = report(&mut err, &exits, &nodes, |r| (r / 2) as usize, 4).unwrap();
        assert_eq!(code, 128 + 9);
        let text = String::from_utf8(err).unwrap();
        assert!(
            text.contains("srun: error: node01: task 1: Exited with exit code 7\n"),
            "{text}"
        );
        assert!(
            text.contains("srun: error: node02: task 2: Exited with exit code 7\n"),
            "{text}"
        );
        assert!(
            text.contains("srun: error: node02: task 3: Killed\n"),
            "{text}"
        );
    }
}
