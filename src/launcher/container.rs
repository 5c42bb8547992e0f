//! The launcher inside a Backend.AI session (`bai-slurm __bai-launch <meta>`, the session's
//! startup command): rebuilds the batch step from the job's metadata and environ, runs it
//! with the batch wrapper, and prints the result as the console's last line, where sacct
//! finds it (Backend.AI keeps only SUCCESS/FAILURE).

use super::admission::Limits;
use super::batch::{self, BatchPlan, Ending};
use super::env::{BatchEnvFacts, batch_env};
use super::gate;
use super::jobfile::JobFile;
use super::meta::{self, JobMeta, LaunchResult, ResultKind};
use super::step_proto;
use super::stepd::{CountingRegistry, StepEnd, StepRegistry, StepServer, StepdProcess};
use crate::model::fname::{FnameContext, expand};
use crate::model::job::StepRecord;
use crate::model::{ExitStatus, JobState, MemoryRequest, StepId};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::ToSocketAddrs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The node names of the session, main first (BACKENDAI_CLUSTER_HOSTS lists them unordered).
fn cluster_hosts(env: &BTreeMap<String, String>, this: &str) -> Vec<String> {
    let mut hosts: Vec<String> = env
        .get("BACKENDAI_CLUSTER_HOSTS")
        .map(|h| {
            h.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if hosts.is_empty() {
        hosts.push(this.to_string());
    }
    hosts.sort_by_key(|h| {
        (
            !h.starts_with("main"),
            h.trim_start_matches(char::is_alphabetic)
                .parse::<u32>()
                .unwrap_or(0),
            h.clone(),
        )
    });
    hosts
}

/// How node 0's launcher reaches the other containers of its session: their SSH servers
/// (port 2200, the session's cluster keypair, as Backend.AI prepares them).
#[derive(Debug, Clone)]
pub struct Ssh {
    pub program: String,
    pub args: Vec<String>,
    /// Where the other containers' SSH servers listen.
    pub port: u16,
    /// How long to wait for them to listen (`BAI_SLURM_SSH_WAIT` seconds, default 120).
    pub wait: Duration,
}

/// Waits until `host:port` takes connections (or `limit` passes; ssh then says why not).
fn wait_for_port(host: &str, port: u16, limit: Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        let up = (host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .is_some_and(|addr| {
                std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
            });
        if up {
            return;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

impl Ssh {
    pub fn from_env(env: &BTreeMap<String, String>) -> Ssh {
        let mut args: Vec<String> = [
            "-p",
            "2200",
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ConnectTimeout=20",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // OpenSSH reads the passwd entry's ~/.ssh/config, not $HOME's; the cluster keys are
        // set up in the work user's home (/home/work), so name that config when it is not ours.
        let home = env.get("HOME").cloned().unwrap_or_default();
        let work_config = std::path::Path::new("/home/work/.ssh/config");
        if !std::path::Path::new(&home).join(".ssh/config").is_file() && work_config.is_file() {
            args.insert(0, work_config.display().to_string());
            args.insert(0, "-F".into());
        }
        Ssh {
            program: env
                .get(crate::envvars::BAI_SLURM_SSH)
                .cloned()
                .unwrap_or_else(|| "ssh".into()),
            args,
            port: 2200,
            wait: Duration::from_secs(
                env.get(crate::envvars::BAI_SLURM_SSH_WAIT)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(120),
            ),
        }
    }
}

/// The step servers of a job's session, one per container.
struct JobStepServers {
    local: std::sync::Arc<StepServer>,
    remote: Vec<StepdProcess>,
    nodes: Vec<(String, String)>,
    secret: String,
    kill_wait: u32,
}

impl JobStepServers {
    /// `reached`: an allocation made from the login node, whose servers the login node
    /// reaches through Backend.AI's tunnel to this port, with the secret it gave.
    fn start(
        hosts: &[String],
        kill_wait: u32,
        ssh: &Ssh,
        reached: Option<&Reached>,
        registry: std::sync::Arc<dyn StepRegistry>,
    ) -> std::io::Result<JobStepServers> {
        let secret = reached.map_or_else(|| step_proto::random_hex(32), |r| r.secret.clone());
        let exe = crate::sys::own_executable()?;
        // This container's server listens on its address in the session's network only (a
        // job of one container, or a name that does not resolve: on loopback); an
        // allocation's on the port the tunnel leads to.
        let bind = if let Some(r) = reached {
            format!("0.0.0.0:{}", r.port)
        } else if hosts.len() > 1 {
            let own = format!("{}:0", hosts[0]);
            own.to_socket_addrs()
                .ok()
                .and_then(|mut a| a.next())
                .map_or_else(|| "127.0.0.1:0".to_string(), |a| a.to_string())
        } else {
            "127.0.0.1:0".to_string()
        };
        let listener = std::net::TcpListener::bind(&bind)?;
        let addr = listener.local_addr()?.to_string();
        let limits = if reached.is_some() {
            Limits::through_tunnel()
        } else {
            Limits::default()
        };
        let local = std::sync::Arc::new(
            StepServer::new(
                hosts[0].clone(),
                secret.as_bytes().to_vec(),
                registry,
                Box::new(std::io::stderr()),
            )
            .with_limits(limits),
        );
        let s = std::sync::Arc::clone(&local);
        std::thread::spawn(move || s.serve(listener));
        let mut nodes = vec![(hosts[0].clone(), addr)];
        let mut remote = Vec::new();
        for host in &hosts[1..] {
            // The containers of a session start together: the other's SSH server may not
            // listen yet when this one's startup command runs.
            wait_for_port(host, ssh.port, ssh.wait);
            let mut cmd = std::process::Command::new(&ssh.program);
            cmd.args(&ssh.args)
                .arg(host)
                .arg(exe.display().to_string())
                .arg("__stepd")
                .arg(host)
                .arg(format!("{host}:0"));
            if reached.is_some() {
                cmd.arg("--tunnel");
            }
            let started = StepdProcess::start(
                host,
                cmd,
                secret.as_bytes(),
                Duration::from_secs(60),
                Some(Box::new(std::io::stderr())),
            )
            .and_then(|p| StepdProcess::ping(&p.addr, secret.as_bytes()).map(|_| p));
            match started {
                Ok(p) => {
                    nodes.push((host.clone(), p.addr.clone()));
                    remote.push(p);
                }
                Err(e) => {
                    local.kill_all();
                    for p in remote {
                        p.stop();
                    }
                    return Err(std::io::Error::other(format!(
                        "cannot start the step server of {host}: {e}"
                    )));
                }
            }
        }
        // scancel reaches node 0 alone: its server passes signals to the steps on.
        local.pass_signals_to(nodes[1..].iter().map(|(_, a)| a.clone()).collect());
        if let Some(r) = reached {
            // The tunnel reaches this container only: node k's server through port + k.
            for (k, (_, addr)) in nodes.iter().enumerate().skip(1) {
                let port = r.port as usize + k;
                super::relay::start(&format!("0.0.0.0:{port}"), addr.clone())?;
            }
        }
        Ok(JobStepServers {
            local,
            remote,
            nodes,
            secret,
            kill_wait,
        })
    }

    /// What the job's processes read: the step servers, and the site's Slurm release
    /// (the container has no site configuration).
    fn job_file(&self, meta: &JobMeta) -> JobFile {
        JobFile {
            job_id: meta.job_id,
            nodes: self.nodes.clone(),
            secret: self.secret.clone(),
            kill_wait: self.kill_wait,
            remote: false,
            slurm_version: Some(meta.slurm_version),
        }
    }

    /// The job is over: its steps end on every node.
    fn stop(self) {
        self.local.kill_all();
        for p in self.remote {
            p.stop();
        }
    }
}

/// The Slurm commands (`srun` above all) are this launcher under their names: the job's
/// PATH, brought from the login node, need not lead to them in the container, so links to
/// this executable go in a directory of the container's own, at the end of PATH.
fn put_commands_on_path(env: &mut BTreeMap<String, String>, console: &mut dyn Write) {
    let made = (|| -> std::io::Result<std::path::PathBuf> {
        let exe = crate::sys::own_executable()?;
        // The container's own /tmp (the job's TMPDIR may name a login-node path).
        let dir = std::path::Path::new("/tmp/bai-slurm-commands");
        std::fs::create_dir_all(dir)?;
        for name in crate::model::release::SLURM_COMMANDS {
            let link = dir.join(name);
            if std::fs::read_link(&link).ok().as_deref() != Some(exe.as_path()) {
                let _ = std::fs::remove_file(&link);
                std::os::unix::fs::symlink(&exe, &link)?;
            }
        }
        Ok(dir.to_path_buf())
    })();
    match made {
        Ok(dir) => {
            let path = env.entry("PATH".into()).or_default();
            if !path.is_empty() {
                path.push(':');
            }
            path.push_str(&dir.display().to_string());
        }
        Err(e) => {
            let _ = writeln!(
                console,
                "bai-slurm launcher: cannot link the Slurm commands for the job: {e}"
            );
        }
    }
}

/// Runs the job; returns the launcher's exit status (the script's, so the session's result
/// agrees with the job).
pub fn run(encoded_meta: &str, mut env: BTreeMap<String, String>, console: &mut dyn Write) -> i32 {
    let launched = std::time::Instant::now();
    let in_session = env.contains_key("BACKENDAI_KERNEL_ID");
    // The job's own PATH (the session's environ carries it under another name, so that
    // the container's entrypoint ran with the image's).
    if let Some(path) = env.remove(meta::PATH_ENV) {
        env.insert("PATH".into(), path);
    }
    if let Some(names) = env.remove(meta::BLANK_ENV) {
        for name in names.lines().filter(|n| !n.is_empty()) {
            env.entry(name.to_string()).or_default();
        }
    }
    if in_session {
        put_commands_on_path(&mut env, console);
    }
    let signals = match signal_hook::iterator::Signals::new(batch::handled_signals()) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(console, "bai-slurm launcher: cannot handle signals: {e}");
            return 1;
        }
    };
    let Some(meta) = JobMeta::decode(encoded_meta) else {
        let _ = writeln!(console, "bai-slurm launcher: unreadable job description");
        return 1;
    };
    // First in the log, so the job's description outlives the session's environ.
    let _ = writeln!(console, "{}", meta::meta_line(encoded_meta.trim()));
    let script = env
        .get(meta::SCRIPT_ENV)
        .and_then(|s| meta::decode_script(s))
        .unwrap_or_default();
    let node = env
        .get("BACKENDAI_CLUSTER_HOST")
        .cloned()
        .unwrap_or_else(crate::sys::short_hostname);
    let hosts = cluster_hosts(&env, &node);
    // The step servers: this container's in this process, the others' over SSH. Their
    // stderr (refusals, failures) goes to ours: the session log.
    if meta.spec.interactive {
        return run_allocation(&meta, &hosts, env, signals, console);
    }
    let job_dir = meta.job_dir.as_deref().map(std::path::Path::new);
    if let (Some(dir), Some(gate)) = (job_dir, &meta.gate)
        && let Err(why) = gate::open(gate, dir, meta.uid)
    {
        let _ = writeln!(
            console,
            "bai-slurm launcher: job {}: dependency never satisfied: {why}",
            meta.job_id
        );
        let kind = ResultKind::DependencyNeverSatisfied;
        leave_result(&meta, dir, kind, ExitStatus::OK, console);
        report(
            console,
            kind,
            ExitStatus::OK,
            in_session.then_some(launched),
        );
        return 0;
    }
    // Sessions made by this release preopen node 0's port for `scancel` (and the
    // steps' servers behind it, as an allocation's); older ones did not.
    let reached = Reached::take(&mut env);
    let registry = std::sync::Arc::new(BatchRegistry::default());
    // An operator's scancel of another user's job comes as a mark (`signal_mark`).
    if let Some(dir) = meta.job_dir.as_deref() {
        let name = gate::result_name(meta.job_id, meta.array_task);
        let watched = std::sync::Arc::clone(&registry);
        super::signal_mark::watch(
            super::signal_mark::path(std::path::Path::new(dir), meta.uid, &name),
            super::signal_mark::POLL,
            move |req| {
                let _ = watched.signal_job(req);
            },
        );
    }
    let servers = JobStepServers::start(
        &hosts,
        meta.kill_wait.max(1),
        &Ssh::from_env(&env),
        reached.as_ref(),
        std::sync::Arc::clone(&registry) as std::sync::Arc<dyn StepRegistry>,
    );
    let ending = match (&servers, prepare(&meta, &script, env, console)) {
        // srun in the job finds the step servers in the job file we hold, not in the
        // job's environment.
        (Ok(servers), Ok(plan)) => match servers.job_file(&meta).hold() {
            Ok(_held) => batch::run(&plan, signals, |pid, err| {
                registry
                    .script
                    .store(pid, std::sync::atomic::Ordering::SeqCst);
                registry.messages.attach(err, &plan);
            }),
            Err(e) => {
                let _ = writeln!(console, "slurmstepd-{node}: error: {e}");
                Ending::LaunchFailed(ExitStatus::code(1))
            }
        },
        (Err(e), _) => {
            let _ = writeln!(console, "slurmstepd-{node}: error: {e}");
            Ending::LaunchFailed(ExitStatus::code(1))
        }
        (_, Err(e)) => {
            let _ = writeln!(console, "slurmstepd-{node}: error: {e}");
            Ending::LaunchFailed(ExitStatus::code(1))
        }
    };
    if let Ok(servers) = servers {
        servers.stop();
    }
    let (kind, exit) = result_of(ending);
    if let Some(dir) = job_dir {
        leave_result(&meta, dir, kind, exit, console);
    }
    let status = report(console, kind, exit, in_session.then_some(launched));
    // A task in a throttle's chain must not stop the tasks after it (Backend.AI starts a
    // dependent only after a success), nor may any job on a site with a job directory,
    // whose dependents' gates judge by its result file: the session succeeds, the result
    // line says how the script ended.
    let chained = meta.array_task.is_some()
        && meta
            .spec
            .array
            .as_ref()
            .is_some_and(|a| a.limiting_throttle().is_some());
    if chained || job_dir.is_some() {
        0
    } else {
        status
    }
}

/// Leaves the job's result in the job directory for the gates of the jobs that depend on
/// it; says so in the log when it cannot (those gates then find no result).
fn leave_result(
    meta: &JobMeta,
    dir: &std::path::Path,
    kind: ResultKind,
    exit: ExitStatus,
    console: &mut dyn Write,
) {
    let name = gate::result_name(meta.job_id, meta.array_task);
    let result = LaunchResult {
        kind,
        exit,
        end: Some(crate::sys::now()),
    };
    if let Err(e) = gate::write_result(dir, meta.uid, &name, &result) {
        let _ = writeln!(
            console,
            "bai-slurm launcher: cannot leave the result of job {name} in {}: {e}",
            dir.display()
        );
    }
}

fn result_of(ending: Ending) -> (ResultKind, ExitStatus) {
    match ending {
        Ending::Exited(s) => (ResultKind::Exited, s),
        Ending::TimedOut(s) => (ResultKind::TimedOut, s),
        Ending::Cancelled(s) => (ResultKind::Cancelled, s),
        Ending::LaunchFailed(s) => (ResultKind::LaunchFailed, s),
    }
}

/// Prints the result as the console's last line (where sacct finds it), outlives 23.09's
/// early-end window in a session (`linger`), and returns the launcher's exit status.
fn report(
    console: &mut dyn Write,
    kind: ResultKind,
    exit: ExitStatus,
    launched_in_session: Option<std::time::Instant>,
) -> i32 {
    let _ = writeln!(
        console,
        "{}",
        meta::result_line(&LaunchResult {
            kind,
            exit,
            end: Some(crate::sys::now()),
        })
    );
    let _ = console.flush();
    if let Some(launched) = launched_in_session {
        linger(launched);
    }
    if exit.signal != 0 {
        128 + exit.signal
    } else {
        exit.code
    }
}

/// How the login node reaches an allocation it made (salloc, srun outside a job): the port
/// of node 0 the session preopened for Backend.AI's tunnel (node k's server at port + k)
/// and the secret the login node derived for the job (`submit::allocation_secret`).
pub struct Reached {
    pub port: u16,
    pub secret: String,
}

impl Reached {
    fn take(env: &mut BTreeMap<String, String>) -> Option<Reached> {
        let port = env.remove(meta::STEP_PORT_ENV)?.parse().ok()?;
        let secret = env
            .remove(meta::STEP_SECRET_ENV)
            .filter(|s| !s.is_empty())?;
        Some(Reached { port, secret })
    }
}

/// Node 0's registry on Backend.AI: numbers steps and prints each one's start and end
/// into the console (`meta::step_line`), where sacct reads them once the job has ended.
#[derive(Default)]
struct ConsoleRegistry {
    numbers: CountingRegistry,
    started: std::sync::Mutex<BTreeMap<u32, StepRecord>>,
}

impl ConsoleRegistry {
    /// One whole line at a time on the launcher's stdout, the session's console.
    fn print(step: &StepRecord) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", meta::step_line(step));
        let _ = out.flush();
    }
}

impl StepRegistry for ConsoleRegistry {
    fn allocate(
        &self,
        name: &str,
        ntasks: u32,
        nnodes: u32,
        nodes: &str,
        cpus: u32,
    ) -> Result<u32, String> {
        let id = self.numbers.allocate(name, ntasks, nnodes, nodes, cpus)?;
        let step = StepRecord {
            step_id: StepId::Numbered(id),
            name: name.to_string(),
            state: JobState::Running,
            start_time: Some(crate::sys::now()),
            num_cpus: cpus,
            num_tasks: ntasks,
            num_nodes: nnodes,
            nodes: nodes.to_string(),
            ..Default::default()
        };
        Self::print(&step);
        self.started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, step);
        Ok(id)
    }

    fn finish(&self, step_id: u32, end: StepEnd<'_>) {
        let started = self
            .started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&step_id);
        let Some(mut step) = started else { return };
        step.state = JobState::parse(end.state).unwrap_or(JobState::Completed);
        step.exit_code = ExitStatus {
            code: end.code,
            signal: end.signal,
        };
        step.end_time = Some(crate::sys::now());
        step.cancelled_by = end.cancelled_by;
        Self::print(&step);
    }
}

/// Node 0's registry of a batch job: numbers and records steps, and takes `scancel`'s
/// requests from the login node, which this launcher carries out as slurmstepd does.
#[derive(Default)]
struct BatchRegistry {
    steps: ConsoleRegistry,
    /// The batch script's pid (its process group), once it runs.
    script: std::sync::atomic::AtomicI32,
    /// `scontrol notify`'s way into the job's error stream, once the script runs.
    messages: batch::StepdMessages,
}

impl StepRegistry for BatchRegistry {
    fn allocate(
        &self,
        name: &str,
        ntasks: u32,
        nnodes: u32,
        nodes: &str,
        cpus: u32,
    ) -> Result<u32, String> {
        self.steps.allocate(name, ntasks, nnodes, nodes, cpus)
    }
    fn finish(&self, step_id: u32, end: StepEnd<'_>) {
        self.steps.finish(step_id, end);
    }
    /// slurmstepd's `error("%s", message)` in the job's error stream.
    fn notify(&self, message: &str) -> Result<(), String> {
        self.messages.error(message)
    }
    /// A cancel, and TERM/KILL to the batch shell, go through this launcher's own signal
    /// handling (`batch::run`), which writes slurmstepd's CANCELLED line; other signals go
    /// straight to the shell (`-b`) or its process group (`-f`).
    fn signal_job(&self, req: step_proto::JobSignal) -> Result<(), String> {
        let own = std::process::id() as i32;
        let Some(sig) = req.signal else {
            // SAFETY: kill(2) of this very process, whose handler ends the job.
            unsafe { libc::kill(own, libc::SIGTERM) };
            return Ok(());
        };
        if let Some(relay) = batch::relay::for_signal(sig, req.full) {
            // SAFETY: as above; the relay signals are handled by `batch::run`.
            unsafe { libc::kill(own, relay.number()) };
            return Ok(());
        }
        let script = self.script.load(std::sync::atomic::Ordering::SeqCst);
        if script <= 0 {
            return Err("the batch script is not running".into());
        }
        // SAFETY: kill(2)/killpg(2) of the script this launcher started; the server is
        // stopped right after the script is reaped, so its pid is not another's.
        unsafe {
            if req.full {
                libc::killpg(script, sig);
            } else {
                libc::kill(script, sig);
            }
        }
        Ok(())
    }
}

/// Node 0's registry of an allocation: numbers and records steps, and takes the login
/// node's release.
#[derive(Default)]
struct AllocationRegistry {
    steps: ConsoleRegistry,
    released: std::sync::Mutex<Option<ExitStatus>>,
}

impl AllocationRegistry {
    fn released(&self) -> Option<ExitStatus> {
        *self.released.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl StepRegistry for AllocationRegistry {
    fn allocate(
        &self,
        name: &str,
        ntasks: u32,
        nnodes: u32,
        nodes: &str,
        cpus: u32,
    ) -> Result<u32, String> {
        self.steps.allocate(name, ntasks, nnodes, nodes, cpus)
    }
    fn finish(&self, step_id: u32, end: StepEnd<'_>) {
        self.steps.finish(step_id, end);
    }
    fn release(&self, exit: ExitStatus) -> Result<(), String> {
        let mut released = self.released.lock().unwrap_or_else(|e| e.into_inner());
        released.get_or_insert(exit);
        Ok(())
    }
}

/// An allocation made from the login node: no script; the step servers serve the login
/// node's srun through the tunnel until the allocation is given back (its exit status is
/// the job's), cancelled (the session ends), or past its time limit.
fn run_allocation(
    meta: &JobMeta,
    hosts: &[String],
    mut env: BTreeMap<String, String>,
    signals: signal_hook::iterator::Signals,
    console: &mut dyn Write,
) -> i32 {
    let launched = std::time::Instant::now();
    let node = hosts[0].clone();
    let registry = std::sync::Arc::new(AllocationRegistry::default());
    let servers = match Reached::take(&mut env) {
        Some(reached) => JobStepServers::start(
            hosts,
            meta.kill_wait.max(1),
            &Ssh::from_env(&env),
            Some(&reached),
            std::sync::Arc::clone(&registry) as std::sync::Arc<dyn StepRegistry>,
        ),
        None => Err(std::io::Error::other(
            "the allocation's port and secret are missing from the session's environment",
        )),
    };
    let (kind, exit) = match servers {
        Ok(servers) => {
            let limit = meta
                .spec
                .time_limit
                .and_then(|l| l.seconds())
                .map(|s| Duration::from_secs(s as u64));
            // srun in a task (a task's own steps) finds the step servers in it.
            let _job_file = servers.job_file(meta).hold();
            let held = || registry.released().is_none();
            let ending = batch::hold(limit, signals, held);
            servers.stop();
            match registry.released() {
                Some(exit) => (ResultKind::Exited, exit),
                None => result_of(ending),
            }
        }
        Err(e) => {
            let _ = writeln!(console, "slurmstepd-{node}: error: {e}");
            (ResultKind::LaunchFailed, ExitStatus::code(1))
        }
    };
    report(console, kind, exit, Some(launched))
}

/// How long the startup command lives at least.
const MIN_LIFETIME: std::time::Duration = std::time::Duration::from_secs(5);

/// Backend.AI 23.09 cannot end a session whose batch task finished before the manager
/// marked it RUNNING: the session then stays RUNNING (see `records::Session::batch_ended`,
/// which the views also handle). Outliving that window avoids it; the job's own end is
/// already recorded in the result line.
fn linger(launched: std::time::Instant) {
    if let Some(rest) = MIN_LIFETIME.checked_sub(launched.elapsed()) {
        std::thread::sleep(rest);
    }
}

fn prepare(
    meta: &JobMeta,
    script: &[u8],
    mut env: BTreeMap<String, String>,
    console: &mut dyn Write,
) -> std::io::Result<BatchPlan> {
    use std::os::unix::fs::OpenOptionsExt;
    // The job's environment holds only Slurm's variables (the metadata is in the log).
    env.remove(meta::SCRIPT_ENV);
    env.remove(meta::META_ENV);
    let spec = &meta.spec;
    let node = env
        .get("BACKENDAI_CLUSTER_HOST")
        .cloned()
        .unwrap_or_else(crate::sys::short_hostname);
    let hosts = cluster_hosts(&env, &node);
    // One directory per launcher: two launchers on one host (tests, or a retried job) must
    // never share a script file.
    let dir =
        std::env::temp_dir().join(format!("bai-slurm-{}-{}", meta.job_id, std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let script_path = dir.join("slurm_script");
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o700)
        .open(&script_path)?
        .write_all(script)?;
    let nodes = hosts.len() as u32;
    let cpus_per_node = spec.cpus().div_ceil(nodes.max(1)).max(1);
    let ntasks = spec.ntasks.or(spec.ntasks_per_node.map(|n| n * nodes));
    let tasks = ntasks.unwrap_or(nodes);
    let tasks_per_node: Vec<u32> = (0..nodes)
        .map(|i| tasks / nodes + u32::from(i < tasks % nodes))
        .collect();
    let facts = BatchEnvFacts {
        cluster_name: meta.cluster.clone(),
        job_id: meta.job_id,
        job_name: spec.name.clone(),
        partition: spec.partition.clone().unwrap_or_default(),
        account: spec.account.clone(),
        qos: Some(spec.qos.clone().unwrap_or_else(|| "normal".into())),
        nodelist: crate::model::hostlist::compress(&hosts),
        node_name: node.clone(),
        cpus_per_node: vec![cpus_per_node; nodes as usize],
        tasks_per_node,
        ntasks,
        cpus_per_task: spec.cpus_per_task,
        ntasks_per_node: spec.ntasks_per_node,
        memory: match (spec.mem_per_node, spec.mem_per_cpu) {
            (Some(mb), _) => Some(MemoryRequest::PerNode(mb)),
            (None, Some(mb)) => Some(MemoryRequest::PerCpu(mb)),
            _ => None,
        },
        user: meta.user.clone(),
        uid: meta.uid,
        gid: meta.gid,
        array: match (meta.array_task, &spec.array) {
            (Some(task), Some(a)) => Some(super::env::ArrayEnv {
                array_job_id: meta.job_id,
                task_id: task,
                count: a.tasks.len() as u32,
                min: a.tasks.iter().copied().min().unwrap_or(0),
                max: a.tasks.iter().copied().max().unwrap_or(0),
                step: a.step,
            }),
            _ => None,
        },
        dependency: spec.dependency_raw.clone(),
        restart_count: (meta.restarts > 0).then_some(meta.restarts),
        // Backend.AI itself sets the container's GPU variables.
        gpus: Vec::new(),
        working_cluster: None,
        release: meta.slurm_version.profile().job_env,
        start_time: crate::sys::now(),
        end_time: super::env::end_at_limit(
            crate::sys::now(),
            spec.time_limit.and_then(|t| t.seconds()),
        ),
    };
    let env = batch_env(&env, &facts);
    let ctx = FnameContext {
        job_id: meta.job_id,
        array: meta.array_task.map(|t| (meta.job_id, t)),
        node_name: &node,
        user: &meta.user,
        job_name: &spec.name,
        ..Default::default()
    };
    let default_out = if spec.array.is_some() {
        "slurm-%A_%a.out"
    } else {
        "slurm-%j.out"
    };
    let out_pat = spec.stdout.as_deref().unwrap_or(default_out);
    let mut warned = Vec::new();
    let mut reachable = |p: String| -> PathBuf {
        let path = PathBuf::from(&p);
        if path.parent().is_some_and(Path::is_dir) {
            return path;
        }
        // The submit directory is not mounted here: keep the output in the session log.
        if !warned.contains(&p) {
            let _ = writeln!(
                console,
                "bai-slurm: {p} is not reachable in the container; output goes to the session log"
            );
            let _ = console.flush();
            warned.push(p);
        }
        PathBuf::from("/dev/stdout")
    };
    let stdout = reachable(expand(out_pat, &ctx, &spec.work_dir));
    let stderr = reachable(expand(
        spec.stderr.as_deref().unwrap_or(out_pat),
        &ctx,
        &spec.work_dir,
    ));
    let stdin_path = expand(
        spec.stdin.as_deref().unwrap_or("/dev/null"),
        &ctx,
        &spec.work_dir,
    );
    Ok(BatchPlan {
        script: script_path,
        args: spec.script_args.clone(),
        env,
        // pyxis' --container-workdir: where the script starts inside the container.
        work_dir: PathBuf::from(spec.container.workdir.as_deref().unwrap_or(&spec.work_dir)),
        stdout,
        stderr,
        stdin: PathBuf::from(stdin_path),
        append: spec.open_mode == Some(crate::model::OpenMode::Append),
        umask: spec.umask,
        rlimits: spec.rlimits.clone(),
        time_limit: spec
            .time_limit
            .and_then(|l| l.seconds())
            .map(|s| Duration::from_secs(s as u64)),
        kill_wait: Duration::from_secs(u64::from(meta.kill_wait.max(1))),
        warn_signal: spec
            .signal
            .map(|w| (w.signal, w.seconds_before, w.batch_only)),
        // `scontrol update TimeLimit=` of the running job, left by the login side.
        limit_file: meta.job_dir.as_deref().map(|dir| {
            let name = gate::result_name(meta.job_id, meta.array_task);
            gate::limit_mark_path(std::path::Path::new(dir), meta.uid, &name)
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_comes_first() {
        let mut env = BTreeMap::new();
        env.insert(
            "BACKENDAI_CLUSTER_HOSTS".to_string(),
            "sub2,sub1,main1".to_string(),
        );
        assert_eq!(cluster_hosts(&env, "main1"), vec!["main1", "sub1", "sub2"]);
        assert_eq!(cluster_hosts(&BTreeMap::new(), "box"), vec!["box"]);
    }
}
