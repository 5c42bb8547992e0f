//! The step server: one per node of a job. `srun`, run inside the job, connects to the
//! server of every node the step uses, proves it knows the job's secret, and has the tasks
//! started there; their output and exit statuses stream back over the same connection.
//! Node 0's server also hands out step ids and records steps (for sacct).

use super::admission::{Door, Limits, Throttle};
use super::pmi::{NodePmi, PmiJob};
use super::step_proto::{self, Control, Frame, TaskSpec};
use super::task_scripts;
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where steps are numbered and recorded.
pub trait StepRegistry: Send + Sync {
    fn allocate(
        &self,
        name: &str,
        ntasks: u32,
        nnodes: u32,
        nodes: &str,
        cpus: u32,
    ) -> Result<u32, String>;
    /// Records how a step ended (and who cancelled it: sacct's `CANCELLED by <uid>`).
    fn finish(&self, step_id: u32, end: StepEnd<'_>);
    /// The allocation is given back (`Control::Release`): only an allocation's node 0
    /// takes it.
    fn release(&self, _exit: crate::model::ExitStatus) -> Result<(), String> {
        Err("this job is not an allocation".into())
    }
    /// `scancel`'s request for the job's batch part (`Control::SignalJob`): only a batch
    /// job's node 0 takes it; the server itself signals the steps.
    fn signal_job(&self, _req: step_proto::JobSignal) -> Result<(), String> {
        Err("this job has no batch script".into())
    }
    /// `scontrol notify`'s message (`Control::Notify`): only a batch job's node 0 takes it.
    fn notify(&self, _message: &str) -> Result<(), String> {
        Err(NO_MESSAGE_CHANNEL.into())
    }
}

/// What a job without a batch script (an allocation) answers `scontrol notify`.
pub const NO_MESSAGE_CHANNEL: &str = "this job has no batch script to tell";

/// How a step ended, as srun reports it.
#[derive(Debug, Clone, Copy)]
pub struct StepEnd<'a> {
    pub state: &'a str,
    pub code: i32,
    pub signal: i32,
    pub cancelled_by: Option<u32>,
}

/// Numbers steps in memory only (nodes other than 0, and tests).
#[derive(Default)]
pub struct CountingRegistry(Mutex<u32>);

impl StepRegistry for CountingRegistry {
    fn allocate(&self, _: &str, _: u32, _: u32, _: &str, _: u32) -> Result<u32, String> {
        let mut n = self
            .0
            .lock()
            .map_err(|_| "step counter poisoned".to_string())?;
        let id = *n;
        *n += 1;
        Ok(id)
    }
    fn finish(&self, _: u32, _: StepEnd<'_>) {}
}

pub struct StepServer {
    pub node: String,
    pub secret: Vec<u8>,
    pub registry: Arc<dyn StepRegistry>,
    /// Where refusals are logged (the launcher's log).
    pub log: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Process groups of every task started here, so the job's end can take them along.
    pub task_groups: Arc<Mutex<Vec<i32>>>,
    /// What peers that have not authenticated may cost ([`StepServer::with_limits`]).
    limits: Limits,
    /// How many connections are in their handshake (the door's count).
    waiting: AtomicUsize,
    /// Refused and dropped peers are logged through this, so a flood cannot fill the log.
    refusals: Mutex<Throttle>,
    /// The other nodes' step servers, on node 0 of a job whose login side reaches node 0
    /// alone (Backend.AI's tunnel): a signal to the steps is passed on to them.
    peers: std::sync::OnceLock<Vec<String>>,
}

impl StepServer {
    pub fn new(
        node: String,
        secret: Vec<u8>,
        registry: Arc<dyn StepRegistry>,
        log: Box<dyn Write + Send>,
    ) -> StepServer {
        let limits = Limits::default();
        StepServer {
            node,
            secret,
            registry,
            log: Arc::new(Mutex::new(log)),
            task_groups: Arc::default(),
            refusals: Mutex::new(Throttle::new(limits.log_every)),
            limits,
            waiting: AtomicUsize::new(0),
            peers: std::sync::OnceLock::new(),
        }
    }

    /// Makes this node 0's server pass signals to the steps on to the other nodes' servers
    /// (`addrs`), as slurmctld signals every node's slurmstepd.
    pub fn pass_signals_to(&self, addrs: Vec<String>) {
        let _ = self.peers.set(addrs);
    }

    /// Passes a signal to the steps on to the other nodes (their servers signal their own
    /// steps only, and pass nothing on); a node that does not answer is logged.
    fn signal_peers(&self, signal: i32) {
        let ask = Control::SignalJob(step_proto::JobSignal {
            signal: Some(signal),
            batch_only: false,
            full: false,
        });
        for addr in self.peers.get().into_iter().flatten() {
            if let Err(e) =
                step_proto::request(addr, &self.secret, step_proto::HANDSHAKE_TIMEOUT, &ask)
            {
                self.logf(&format!(
                    "step server {}: signal {signal} not passed on to {addr}: {e}",
                    self.node
                ));
            }
        }
    }

    /// Other limits for peers that have not authenticated (before serving).
    pub fn with_limits(mut self, limits: Limits) -> StepServer {
        self.refusals = Mutex::new(Throttle::new(limits.log_every));
        self.limits = limits;
        self
    }

    /// Kills every task this server started (the job is over), and logs how many refusals
    /// the throttle held back since its last line.
    pub fn kill_all(&self) {
        if let Ok(groups) = self.task_groups.lock() {
            for pg in groups.iter() {
                // SAFETY: killpg(2) on process groups this server created.
                unsafe { libc::killpg(*pg, libc::SIGKILL) };
            }
        }
        let held = self.refusals.lock().map_or(0, |mut t| t.take_held());
        if held > 0 {
            self.logf(&format!(
                "step server {}: {held} more refused or dropped connections not logged",
                self.node
            ));
        }
    }

    /// The batch part of `scancel`'s request, which node 0's registry carries out; a
    /// signal to the steps alone (no `-b`/`-f`) has none, and any node takes it.
    fn registry_part(&self, req: step_proto::JobSignal) -> Result<(), String> {
        if req.signal.is_some() && !req.batch_only && !req.full {
            return Ok(());
        }
        self.registry.signal_job(req)
    }

    /// Delivers `signal` to the tasks of every step started here (slurmstepd signals
    /// each step's container); groups already gone are skipped.
    pub fn signal_steps(&self, signal: i32) {
        if let Ok(groups) = self.task_groups.lock() {
            for pg in groups.iter() {
                // SAFETY: killpg(2) on process groups this server created.
                unsafe { libc::killpg(*pg, signal) };
            }
        }
    }

    /// How many connections are in their handshake now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Serves connections until the listener fails. Handshakes all happen on this thread
    /// (`launcher::admission`, which says how strangers are kept from starving the job's
    /// srun); each peer that proves it knows the secret is served on a thread of its own.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        raise_backlog(&listener);
        let door = Door {
            node: &self.node,
            secret: &self.secret,
            limits: &self.limits,
            waiting: &self.waiting,
        };
        let admitted = |conn: TcpStream, peer: String| {
            let me = Arc::clone(&self);
            let who = peer.clone();
            let spawned = std::thread::Builder::new().spawn(move || {
                if let Err(e) = me.handle(conn) {
                    me.logf(&format!(
                        "step server {}: connection from {who}: {e}",
                        me.node
                    ));
                }
            });
            if let Err(e) = spawned {
                self.logf(&format!(
                    "step server {}: connection from {peer}: no thread for it: {e}",
                    self.node
                ));
            }
        };
        if let Err(e) = door.serve(&listener, &|peer, why| self.refused(peer, why), &admitted) {
            self.logf(&format!("step server {}: stopped: {e}", self.node));
        }
    }

    fn logf(&self, line: &str) {
        if let Ok(mut w) = self.log.lock() {
            let _ = writeln!(w, "{line}");
        }
    }

    /// Logs a peer refused or dropped before authenticating, at most one line per
    /// `limits.log_every`, with the count of those not logged since the last line.
    fn refused(&self, peer: &str, why: &str) {
        let Some(held) = self
            .refusals
            .lock()
            .ok()
            .and_then(|mut t| t.pass(Instant::now()))
        else {
            return;
        };
        let also = match held {
            0 => String::new(),
            n => format!(" ({n} more refused or dropped since the last such line)"),
        };
        self.logf(&format!(
            "step server {}: connection from {peer}: {why}{also}",
            self.node
        ));
    }

    /// An authenticated peer's requests.
    fn handle(&self, conn: TcpStream) -> std::io::Result<()> {
        let mut reader = BufReader::new(conn.try_clone()?);
        let writer = Arc::new(Mutex::new(conn.try_clone()?));
        loop {
            let Some(frame) = step_proto::read_frame(&mut reader)? else {
                return Ok(());
            };
            match frame {
                Frame::Control(Control::AllocateStep {
                    name,
                    ntasks,
                    nnodes,
                    nodes,
                    cpus,
                }) => match self.registry.allocate(&name, ntasks, nnodes, &nodes, cpus) {
                    Ok(step_id) => send(&writer, &Control::StepAllocated { step_id })?,
                    Err(reason) => send(&writer, &Control::Refused { reason })?,
                },
                Frame::Control(Control::FinishStep {
                    step_id,
                    state,
                    code,
                    signal,
                    cancelled_by,
                }) => {
                    let end = StepEnd {
                        state: &state,
                        code,
                        signal,
                        cancelled_by,
                    };
                    self.registry.finish(step_id, end);
                    send(&writer, &Control::Ok)?;
                }
                Frame::Control(Control::Ping) => send(&writer, &Control::Ok)?,
                Frame::Control(Control::Release { code, signal }) => {
                    match self
                        .registry
                        .release(crate::model::ExitStatus { code, signal })
                    {
                        Ok(()) => send(&writer, &Control::Ok)?,
                        Err(reason) => send(&writer, &Control::Refused { reason })?,
                    }
                }
                Frame::Control(Control::Notify { message }) => {
                    match self.registry.notify(&message) {
                        Ok(()) => send(&writer, &Control::Ok)?,
                        Err(reason) => send(&writer, &Control::Refused { reason })?,
                    }
                }
                Frame::Control(Control::SignalJob(req)) => match self.registry_part(req) {
                    Ok(()) => {
                        if let Some(sig) = req.signal.filter(|_| !req.batch_only) {
                            self.signal_steps(sig);
                            self.signal_peers(sig);
                        }
                        send(&writer, &Control::Ok)?
                    }
                    Err(reason) => send(&writer, &Control::Refused { reason })?,
                },
                Frame::Control(Control::Launch {
                    tasks, pmi, pty, ..
                }) => {
                    let io = TaskIo { pmi, pty };
                    return run_tasks(&self.node, tasks, io, reader, writer, &self.task_groups);
                }
                _ => {
                    send(
                        &writer,
                        &Control::Refused {
                            reason: "unexpected message".into(),
                        },
                    )?;
                    return Ok(());
                }
            }
        }
    }
}

/// std listens with a backlog of 128: a burst of strangers' connections overflows it, and a
/// legitimate SYN dropped there waits a whole second for its retransmission. listen(2)
/// again raises it (the kernel caps it at somaxconn); the door accepting fast does the rest.
fn raise_backlog(listener: &TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen(2) on a socket this listener owns, which is already listening.
    unsafe { libc::listen(listener.as_raw_fd(), 4096) };
}

fn send(w: &Arc<Mutex<TcpStream>>, msg: &Control) -> std::io::Result<()> {
    let mut s = w
        .lock()
        .map_err(|_| std::io::Error::other("writer poisoned"))?;
    step_proto::write_control(&mut *s, msg)
}

fn pmi_size(p: &Option<Arc<NodePmi>>) -> u32 {
    p.as_ref().map_or(0, |p| p.size())
}

/// Finds a program the way execvp would, in the task's PATH.
fn find_program(
    argv0: &str,
    env: &std::collections::BTreeMap<String, String>,
    cwd: &str,
) -> Option<std::path::PathBuf> {
    if argv0.contains('/') {
        let p = std::path::Path::new(cwd).join(argv0);
        return p.exists().then_some(p);
    }
    let path = env
        .get("PATH")
        .map(String::as_str)
        .unwrap_or("/usr/local/bin:/usr/bin:/bin");
    path.split(':')
        .map(|d| std::path::Path::new(if d.is_empty() { "." } else { d }).join(argv0))
        .find(|p| p.is_file())
}

/// A task epilog's environment: the task's, without what slurmstepd sets only for the
/// task's own start.
fn epilog_env(t: &TaskSpec) -> std::collections::BTreeMap<String, String> {
    let mut env = t.env.clone();
    for k in ["SLURM_GTIDS", "SLURM_CPUS_ON_NODE"] {
        env.remove(k);
    }
    env
}

enum Event {
    Output(u32, bool, Vec<u8>),
    /// One of a task's streams reached its end.
    Closed(u32),
    Exited(u32, i32),
}

/// Starts the tasks, streams their output and exits, forwards signals and stdin.
/// What a step's tasks are connected to beyond their pipes: a PMI server, and for
/// `srun --pty` a terminal for task 0.
struct TaskIo {
    pmi: Option<PmiJob>,
    pty: Option<crate::launcher::pty::WindowSize>,
}

fn run_tasks(
    node: &str,
    tasks: Vec<TaskSpec>,
    io: TaskIo,
    mut reader: BufReader<TcpStream>,
    writer: Arc<Mutex<TcpStream>>,
    all_groups: &Mutex<Vec<i32>>,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<Event>();
    // The tasks' PMI server: a fence goes to srun over this connection.
    let node_pmi = io.pmi.map(|job| {
        let w = Arc::clone(&writer);
        NodePmi::new(
            job,
            tasks.len(),
            Box::new(move |kvs| {
                let _ = send(&w, &Control::PmiFence { kvs });
            }),
        )
    });
    let mut pids = Vec::new();
    let mut stdin_of_rank0: Option<Box<dyn Write + Send>> = None;
    let mut terminal: Option<Arc<crate::launcher::pty::TaskPty>> = None;
    let mut children: Vec<(u32, Child)> = Vec::new();
    let mut failed_to_start = Vec::new();
    let mut launch_failed = Vec::new();
    for t in &tasks {
        let Some(name) = t.argv.first() else {
            // `--multi-prog` gave this rank nothing to run.
            let msg = format!(
                "slurmstepd-{node}: error: No executable program specified for this task\n"
            );
            failed_to_start.push((t.rank, msg));
            continue;
        };
        let Some(program) = find_program(name, &t.env, &t.cwd) else {
            let msg =
                format!("slurmstepd-{node}: error: execve(): {name}: No such file or directory\n");
            failed_to_start.push((t.rank, msg));
            continue;
        };
        // A directory that is not there: slurmstepd says so (twice: setting the step
        // up, and in the task) and runs the task in /tmp.
        let cwd = if std::path::Path::new(&t.cwd).is_dir() {
            t.cwd.clone()
        } else {
            let msg = format!(
                "slurmstepd-{node}: error: couldn't chdir to `{}': No such file or directory: going to /tmp instead\n",
                t.cwd
            );
            if let Ok(mut w) = writer.lock() {
                let _ = step_proto::write_output(&mut *w, t.rank, true, msg.repeat(2).as_bytes());
            }
            "/tmp".to_string()
        };
        let mut cmd = match &t.prolog {
            // The task's own process runs its prolog, then becomes the task.
            Some(prolog) => {
                let mut c = Command::new(crate::sys::own_executable()?);
                c.arg(task_scripts::TASK_PROLOG_COMMAND)
                    .arg(task_scripts::qualified_wording(t.messages_24))
                    .arg(prolog);
                c
            }
            // sh records the task's own pid (SLURM_TASK_PID), then becomes the task.
            None => {
                let mut c = Command::new("/bin/sh");
                c.arg("-c")
                    .arg("SLURM_TASK_PID=$$; export SLURM_TASK_PID; exec \"$0\" \"$@\"");
                c
            }
        };
        cmd.arg(&program)
            .args(&t.argv[1..])
            .env_clear()
            .envs(&t.env)
            .current_dir(&cwd);
        let on_terminal = io.pty.is_some() && t.rank == 0;
        if !on_terminal {
            // (A task on a terminal leads a session of its own instead: see TaskPty.)
            cmd.process_group(0);
        }
        let to_file = |p: &Option<String>| -> std::io::Result<Stdio> {
            match p {
                None => Ok(Stdio::piped()),
                Some(path) => Ok(Stdio::from(
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)?,
                )),
            }
        };
        let (Ok(stdout), Ok(stderr)) = (to_file(&t.stdout), to_file(&t.stderr)) else {
            // A task's own file that cannot be opened: the task is not started, and srun
            // says so as Slurm's does (its exit status is not counted).
            launch_failed.push(t.rank);
            continue;
        };
        // One pipe for both streams when they end in one file (see TaskSpec::merged).
        let mut merged = None;
        if t.merged && t.stdout.is_none() && t.stderr.is_none() {
            let (r, w) = std::io::pipe()?;
            cmd.stdout(w.try_clone()?).stderr(w);
            merged = Some(r);
        } else {
            cmd.stdout(stdout).stderr(stderr);
        }
        // PMI: one end of a socket pair stays open across exec as PMI_FD.
        let mut pmi_conn = None;
        if node_pmi.is_some() {
            let (ours, theirs) = std::os::unix::net::UnixStream::pair()?;
            use std::os::fd::IntoRawFd;
            let fd = theirs.into_raw_fd();
            cmd.env("PMI_FD", fd.to_string())
                .env("PMI_RANK", t.rank.to_string())
                .env("PMI_SIZE", pmi_size(&node_pmi).to_string());
            // SAFETY: only fcntl(2) on a descriptor this process owns, between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::fcntl(fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            pmi_conn = Some((ours, fd));
        }
        if !t.rlimits.is_empty() {
            let limits = super::batch::SoftLimits::of(&t.rlimits);
            // SAFETY: getrlimit/setrlimit only, between fork and exec, on `limits` made
            // before the fork.
            unsafe {
                cmd.pre_exec(move || {
                    limits.set();
                    Ok(())
                });
            }
        }
        cmd.stdin(if t.rank == 0 {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut pty = match io.pty {
            Some(size) if on_terminal => {
                let pty = crate::launcher::pty::TaskPty::open(size)?;
                pty.attach(&mut cmd)?;
                Some(pty)
            }
            _ => None,
        };
        let spawned = cmd.spawn();
        // The command holds copies of a terminal's side: they go with it, now.
        drop(cmd);
        if let Some(p) = pty.as_mut() {
            p.started();
        }
        if let Some((ours, fd)) = pmi_conn {
            // SAFETY: the task's end, now inherited by the task; ours no longer needs it.
            unsafe { libc::close(fd) };
            if spawned.is_ok()
                && let Some(p) = &node_pmi
            {
                let p = Arc::clone(p);
                std::thread::spawn(move || p.serve(ours));
            }
        }
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                failed_to_start.push((
                    t.rank,
                    format!(
                        "slurmstepd-{node}: error: execve(): {}: {e}\n",
                        program.display()
                    ),
                ));
                continue;
            }
        };
        pids.push((t.rank, child.id() as i32));
        if let Ok(mut g) = all_groups.lock() {
            g.push(child.id() as i32);
        }
        if let Some(p) = pty {
            let master = p.master()?;
            stdin_of_rank0 = Some(Box::new(p.master()?));
            let tx = tx.clone();
            let rank = t.rank;
            std::thread::spawn(move || {
                crate::launcher::pty::read_output(master, |data| {
                    tx.send(Event::Output(rank, false, data.to_vec())).is_ok()
                });
                let _ = tx.send(Event::Closed(rank));
            });
            terminal = Some(Arc::new(p));
        } else if t.rank == 0 {
            stdin_of_rank0 = child
                .stdin
                .take()
                .map(|s| Box::new(s) as Box<dyn Write + Send>);
        }
        for (stream, is_err) in [
            (
                child
                    .stdout
                    .take()
                    .map(|s| Box::new(s) as Box<dyn Read + Send>)
                    .or_else(|| merged.take().map(|r| Box::new(r) as Box<dyn Read + Send>)),
                false,
            ),
            (
                child
                    .stderr
                    .take()
                    .map(|s| Box::new(s) as Box<dyn Read + Send>),
                true,
            ),
        ] {
            if let Some(mut s) = stream {
                let tx = tx.clone();
                let rank = t.rank;
                std::thread::spawn(move || {
                    let mut buf = [0u8; 8192];
                    while let Ok(n) = s.read(&mut buf) {
                        if n == 0
                            || tx
                                .send(Event::Output(rank, is_err, buf[..n].to_vec()))
                                .is_err()
                        {
                            break;
                        }
                    }
                    let _ = tx.send(Event::Closed(rank));
                });
            }
        }
        children.push((t.rank, child));
    }
    send(&writer, &Control::Started { pids: pids.clone() })?;
    for rank in launch_failed {
        send(
            &writer,
            &Control::LaunchFailed {
                rank,
                error: "Slurmd could not connect IO".into(),
            },
        )?;
    }
    for (rank, msg) in failed_to_start {
        let mut w = writer
            .lock()
            .map_err(|_| std::io::Error::other("writer poisoned"))?;
        step_proto::write_output(&mut *w, rank, true, msg.as_bytes())?;
        drop(w);
        send(
            &writer,
            &Control::Exited {
                rank,
                status: 2 << 8,
            },
        )?;
    }
    // Exits are reported only after the task's output ended, so srun sees output first;
    // a task's epilog runs before its exit is reported, as slurmstepd runs it.
    let first_rank = tasks.first().map_or(0, |t| t.rank);
    for (rank, mut child) in children {
        let tx = tx.clone();
        let epilog = tasks.iter().find(|t| t.rank == rank).and_then(|t| {
            Some((
                t.epilog.clone()?,
                epilog_env(t),
                t.cwd.clone(),
                t.messages_24,
            ))
        });
        let node = node.to_string();
        std::thread::spawn(move || {
            let status = child
                .wait()
                .map(std::os::unix::process::ExitStatusExt::into_raw)
                .unwrap_or(1 << 8);
            // slurmstepd's own stderr is the stderr of the node's first task: what the
            // epilog and slurmstepd say about it arrives there (labelled so with -l).
            if let Some((path, env, cwd, messages_24)) = epilog {
                for line in task_scripts::run_task_epilog(&path, &env, &cwd, &node, messages_24) {
                    let _ = tx.send(Event::Output(first_rank, true, format!("{line}\n").into()));
                }
            }
            let _ = tx.send(Event::Exited(rank, status));
        });
    }
    drop(tx);
    // Messages from srun: signals and stdin. When srun goes away, the step goes with it.
    let groups: Vec<i32> = pids.iter().map(|(_, p)| *p).collect();
    let control_groups = groups.clone();
    let control_writer = Arc::clone(&writer);
    let control_pmi = node_pmi.clone();
    let node = node.to_string();
    std::thread::spawn(move || {
        let mut stdin = stdin_of_rank0;
        loop {
            match step_proto::read_frame(&mut reader) {
                Ok(Some(Frame::Control(Control::Signal { signal }))) => {
                    for pg in &control_groups {
                        // SAFETY: killpg(2) on the process groups of this step's tasks.
                        unsafe { libc::killpg(*pg, signal) };
                    }
                }
                Ok(Some(Frame::Control(Control::Cancel {
                    job_id,
                    step_id,
                    kill_wait,
                    at_once,
                }))) => {
                    // As slurmstepd cancels a step: say so, SIGCONT + SIGTERM, then SIGKILL
                    // (at once when srun aborts a step it could not start).
                    let alive: Vec<i32> = control_groups
                        .iter()
                        .copied()
                        // SAFETY: signal 0 only checks that the group still exists.
                        .filter(|pg| unsafe { libc::killpg(*pg, 0) } == 0)
                        .collect();
                    if alive.is_empty() {
                        continue;
                    }
                    let at = chrono::Local::now().format("%Y-%m-%dT%H:%M:%S");
                    let _ = send(
                        &control_writer,
                        &Control::Message {
                            text: format!(
                                "slurmstepd-{node}: error: *** STEP {job_id}.{step_id} ON {node} CANCELLED AT {at} ***"
                            ),
                        },
                    );
                    for pg in &alive {
                        // SAFETY: killpg(2) on this step's own process groups.
                        unsafe {
                            if at_once {
                                libc::killpg(*pg, libc::SIGKILL);
                            } else {
                                libc::killpg(*pg, libc::SIGCONT);
                                libc::killpg(*pg, libc::SIGTERM);
                            }
                        }
                    }
                    std::thread::spawn(move || {
                        std::thread::sleep(std::time::Duration::from_secs(u64::from(kill_wait)));
                        for pg in alive {
                            // SAFETY: as above; what did not stop in time is killed.
                            unsafe { libc::killpg(pg, libc::SIGKILL) };
                        }
                    });
                }
                Ok(Some(Frame::Control(Control::PmiFenceDone { kvs }))) => {
                    if let Some(p) = &control_pmi {
                        p.fence_done(kvs);
                    }
                }
                Ok(Some(Frame::Control(Control::Stdin { data }))) => {
                    if data.is_empty() {
                        stdin = None;
                    } else if let Some(s) = stdin.as_mut() {
                        let _ = s.write_all(&data);
                    }
                }
                Ok(Some(Frame::Control(Control::Resize { size }))) => {
                    if let Some(t) = &terminal {
                        let _ = t.resize(size);
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    for pg in &control_groups {
                        // SAFETY: as above; srun is gone, so is its step.
                        unsafe { libc::killpg(*pg, libc::SIGKILL) };
                    }
                    break;
                }
            }
        }
    });
    // A task's exit is reported once its streamed output has ended, so srun prints all of
    // a task's output before its error line, as Slurm's does.
    let mut open: std::collections::BTreeMap<u32, u32> = tasks
        .iter()
        .map(|t| {
            // A task on a terminal has one stream, the terminal; so has one whose streams
            // are merged.
            let streams = if (io.pty.is_some() && t.rank == 0)
                || (t.merged && t.stdout.is_none() && t.stderr.is_none())
            {
                1
            } else {
                u32::from(t.stdout.is_none()) + u32::from(t.stderr.is_none())
            };
            (t.rank, streams)
        })
        .collect();
    let mut exited: std::collections::BTreeMap<u32, i32> = std::collections::BTreeMap::new();
    for event in rx {
        let rank = match event {
            Event::Output(rank, is_err, data) => {
                let mut w = writer
                    .lock()
                    .map_err(|_| std::io::Error::other("writer poisoned"))?;
                step_proto::write_output(&mut *w, rank, is_err, &data)?;
                continue;
            }
            Event::Closed(rank) => {
                if let Some(n) = open.get_mut(&rank) {
                    *n = n.saturating_sub(1);
                }
                rank
            }
            Event::Exited(rank, status) => {
                exited.insert(rank, status);
                rank
            }
        };
        if open.get(&rank).copied().unwrap_or(0) == 0
            && let Some(status) = exited.remove(&rank)
        {
            send(&writer, &Control::Exited { rank, status })?;
        }
    }
    // The step is over: end the connection (srun and our reader of it both see the end).
    if let Ok(w) = writer.lock() {
        let _ = w.shutdown(std::net::Shutdown::Both);
    }
    // Whatever the tasks left behind goes with them.
    for pg in groups {
        // SAFETY: killpg(2) on this step's own process groups.
        unsafe { libc::killpg(pg, libc::SIGKILL) };
    }
    Ok(())
}

/// `bai-slurm __stepd NODE BIND`: one node's step server as a process of its own, started
/// by the launcher of node 0 (directly for simulated nodes, over SSH in other containers).
///
/// The job's secret arrives as the first line of stdin (never on the command line, which
/// other users can read). The server answers `LISTENING <addr>` on stdout and then lets go
/// of stdout, so nothing it starts can hold its starter's pipes open. The rest of stdin is
/// its lifeline: when it ends (the launcher ended or dropped it), the server kills every
/// task it started and exits; so do SIGTERM, SIGHUP and SIGINT.
pub fn run_process(
    node: &str,
    bind: &str,
    limits: Limits,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    log: Box<dyn Write + Send>,
) -> i32 {
    let mut log = log;
    let mut lifeline = BufReader::new(stdin);
    let mut secret = String::new();
    if std::io::BufRead::read_line(&mut lifeline, &mut secret).is_err() || secret.trim().is_empty()
    {
        let _ = writeln!(log, "step server {node}: no job secret on stdin");
        return 2;
    }
    let listener = match TcpListener::bind(bind) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(log, "step server {node}: cannot listen on {bind}: {e}");
            return 1;
        }
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(log, "step server {node}: {e}");
            return 1;
        }
    };
    let server = Arc::new(
        StepServer::new(
            node.to_string(),
            secret.trim().as_bytes().to_vec(),
            Arc::new(CountingRegistry::default()),
            log,
        )
        .with_limits(limits),
    );
    if writeln!(stdout, "LISTENING {addr}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return 1;
    }
    let s = Arc::clone(&server);
    std::thread::spawn(move || s.serve(listener));
    let s = Arc::clone(&server);
    if let Ok(mut signals) =
        signal_hook::iterator::Signals::new([libc::SIGTERM, libc::SIGHUP, libc::SIGINT])
    {
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                s.kill_all();
                std::process::exit(128 + sig);
            }
        });
    }
    let mut buf = [0u8; 256];
    while matches!(lifeline.read(&mut buf), Ok(n) if n > 0) {}
    server.kill_all();
    0
}

/// A step server process that node 0's launcher started and holds by its lifeline.
pub struct StepdProcess {
    pub node: String,
    pub addr: String,
    child: Child,
    /// Dropping it (the launcher's end) ends the server and its tasks.
    lifeline: std::process::ChildStdin,
}

impl StepdProcess {
    /// Starts `cmd` (which runs `bai-slurm __stepd NODE BIND`, perhaps through ssh), hands
    /// it the secret and waits up to `timeout` for its address. Its stderr goes to `log`
    /// (else to ours).
    pub fn start(
        node: &str,
        mut cmd: Command,
        secret: &[u8],
        timeout: std::time::Duration,
        log: Option<Box<dyn Write + Send>>,
    ) -> std::io::Result<StepdProcess> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        cmd.stderr(if log.is_some() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
        let mut child = cmd.spawn()?;
        let mut stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        if let (Some(mut log), Some(mut err)) = (log, child.stderr.take()) {
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut err, &mut log);
            });
        }
        let started = stdin
            .write_all(secret)
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let mut r = BufReader::new(stdout);
            let got = std::io::BufRead::read_line(&mut r, &mut line).map(|_| line);
            let _ = tx.send(got);
            // Keep reading (and dropping) whatever else arrives, so the writer never blocks.
            let _ = std::io::copy(&mut r, &mut std::io::sink());
        });
        let fail = |child: &mut Child, why: String| {
            let _ = child.kill();
            let _ = child.wait();
            Err(std::io::Error::other(why))
        };
        // A failed write means it is gone already: its answer (none) and status tell more.
        let _ = started;
        let line = match rx.recv_timeout(timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return fail(&mut child, e.to_string()),
            Err(_) => return fail(&mut child, format!("no answer within {timeout:?}")),
        };
        let Some(addr) = line.trim().strip_prefix("LISTENING ") else {
            // It said nothing: give it a moment to end, to report how it ended.
            let mut status = None;
            for _ in 0..40 {
                status = child.try_wait().ok().flatten();
                if status.is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            return fail(
                &mut child,
                match status {
                    Some(s) => format!("it ended ({s})"),
                    None => format!("unexpected answer {:?}", line.trim()),
                },
            );
        };
        Ok(StepdProcess {
            node: node.to_string(),
            addr: addr.to_string(),
            child,
            lifeline: stdin,
        })
    }

    /// Checks that the server answers and knows the job's secret (and that it is not an
    /// impostor: the check is mutual).
    pub fn ping(addr: &str, secret: &[u8]) -> std::io::Result<String> {
        let (stream, node) = step_proto::connect(addr, secret)?;
        stream.set_read_timeout(Some(std::time::Duration::from_secs(30)))?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut writer = stream;
        step_proto::write_control(&mut writer, &Control::Ping)?;
        match step_proto::read_frame(&mut reader)? {
            Some(Frame::Control(Control::Ok)) => Ok(node),
            _ => Err(std::io::Error::other("no answer to ping")),
        }
    }

    /// Ends the server (and, through its lifeline, every task it runs).
    pub fn stop(mut self) {
        drop(self.lifeline);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::time::Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const SECRET: &[u8] = b"the-job-secret";

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Sink {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
        }
    }

    /// A real server on loopback with these limits: (server, its address, its log).
    fn server(limits: Limits) -> (Arc<StepServer>, String, Sink) {
        let log = Sink::default();
        let server = Arc::new(
            StepServer::new(
                "n0".into(),
                SECRET.to_vec(),
                Arc::new(CountingRegistry::default()),
                Box::new(log.clone()),
            )
            .with_limits(limits),
        );
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let s = Arc::clone(&server);
        std::thread::spawn(move || s.serve(l));
        (server, addr, log)
    }

    fn limits(timeout_ms: u64, max_pending: usize) -> Limits {
        Limits {
            handshake_timeout: Duration::from_millis(timeout_ms),
            max_pending,
            grace: Duration::ZERO,
            log_every: Duration::from_secs(60),
        }
    }

    /// Reads until the server ends the connection; how long that took.
    fn time_to_close(c: &mut TcpStream, within: Duration) -> Duration {
        let t0 = Instant::now();
        c.set_read_timeout(Some(within)).unwrap();
        let mut buf = [0u8; 4096];
        loop {
            match c.read(&mut buf) {
                Ok(0) => return t0.elapsed(),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                    return t0.elapsed();
                }
                Err(e) => panic!("still open after {:?}: {e}", t0.elapsed()),
            }
        }
    }

    fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
        let t0 = Instant::now();
        while !ok() {
            assert!(t0.elapsed() < Duration::from_secs(5), "never: {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn an_oversized_frame_before_authenticating_is_refused_from_its_header() {
        let (server, addr, log) = server(limits(5000, 8));
        let mut c = TcpStream::connect(&addr).unwrap();
        // A 16 MiB control frame announced, and a little garbage: refused at once, long
        // before the deadline, without waiting for (or keeping) the rest.
        c.write_all(&[0, 1, 0, 0, 0]).unwrap();
        c.write_all(&[b'x'; 1000]).unwrap();
        assert!(time_to_close(&mut c, Duration::from_secs(2)) < Duration::from_secs(1));
        wait_for("the refusal logged", || {
            log.text().contains("frame too large")
        });
        assert!(
            log.text()
                .contains("refused: frame too large (16777216 bytes, at most 4096)"),
            "{}",
            log.text()
        );
        wait_for("its slot given back", || server.waiting() == 0);
        // The server is still fine.
        assert_eq!(StepdProcess::ping(&addr, SECRET).unwrap(), "n0");
    }

    #[test]
    fn the_handshake_has_one_deadline_for_the_whole_exchange() {
        let (server, addr, log) = server(limits(400, 8));
        // Silent: dropped at the deadline.
        let mut idle = TcpStream::connect(&addr).unwrap();
        let t = time_to_close(&mut idle, Duration::from_secs(3));
        assert!(
            t >= Duration::from_millis(350) && t < Duration::from_millis(1500),
            "{t:?}"
        );
        // Trickling a byte every 100 ms gains nothing: each read is short, the sum is not.
        let mut slow = TcpStream::connect(&addr).unwrap();
        let mut w = slow.try_clone().unwrap();
        let trickle = std::thread::spawn(move || {
            for b in [0u8, 0, 0, 0, 200].iter().chain(&[b'{'; 40]) {
                if w.write_all(&[*b]).is_err() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let t = time_to_close(&mut slow, Duration::from_secs(3));
        assert!(t < Duration::from_millis(1500), "{t:?}");
        trickle.join().unwrap();
        wait_for("the timeout logged", || {
            log.text().contains("no handshake within")
        });
        wait_for("slots given back", || server.waiting() == 0);
        // A peer that authenticated has no deadline any more.
        let (s, _) = step_proto::connect(&addr, SECRET).unwrap();
        std::thread::sleep(Duration::from_millis(600));
        let mut r = BufReader::new(s.try_clone().unwrap());
        step_proto::write_control(&mut &s, &Control::Ping).unwrap();
        assert_eq!(
            step_proto::read_frame(&mut r).unwrap(),
            Some(Frame::Control(Control::Ok))
        );
    }

    #[test]
    fn a_server_behind_a_tunnel_waits_longer_for_the_handshake() {
        let (_server, addr, _log) = server(Limits::through_tunnel());
        let mut peer = TcpStream::connect(&addr).unwrap();
        // Past the usual deadline, the connection is still there (a tunnel's far end may
        // not have the greeting yet).
        let past = step_proto::HANDSHAKE_TIMEOUT + Duration::from_millis(700);
        peer.set_read_timeout(Some(past)).unwrap();
        let mut buf = [0u8; 4096];
        let t0 = Instant::now();
        loop {
            match peer.read(&mut buf) {
                Ok(0) => panic!("closed after {:?}", t0.elapsed()),
                Ok(_) => {}
                Err(e) => {
                    assert!(
                        matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ),
                        "{e}"
                    );
                    break;
                }
            }
        }
        assert!(t0.elapsed() >= past - Duration::from_millis(50));
    }

    #[test]
    fn strangers_cannot_hold_every_slot() {
        let (server, addr, log) = server(limits(10_000, 4));
        let mut idle: Vec<TcpStream> = (0..20)
            .map(|_| TcpStream::connect(&addr).unwrap())
            .collect();
        // Those beyond the cap were dropped, oldest first: bounded descriptors.
        for c in &mut idle[..16] {
            time_to_close(c, Duration::from_secs(2));
        }
        wait_for("the table full", || server.waiting() == 4);
        // With every slot held by an idle stranger, the job's own client gets in at once.
        let t0 = Instant::now();
        assert_eq!(StepdProcess::ping(&addr, SECRET).unwrap(), "n0");
        assert!(
            t0.elapsed() < Duration::from_millis(500),
            "{:?}",
            t0.elapsed()
        );
        wait_for("the ping out of the table", || server.waiting() == 3);
        // One line for the 17 dropped (16 strangers and the oldest after the ping came).
        wait_for("the drops logged", || log.text().contains("dropped"));
        assert_eq!(log.text().lines().count(), 1, "{}", log.text());
        assert!(
            log.text()
                .contains("dropped: 4 newer connections were waiting to authenticate"),
            "{}",
            log.text()
        );
    }

    #[test]
    fn a_waiting_connection_keeps_its_slot_for_its_grace() {
        let mut l = limits(10_000, 4);
        l.grace = Duration::from_millis(300);
        let (server, addr, log) = server(l);
        let mut first: Vec<TcpStream> =
            (0..4).map(|_| TcpStream::connect(&addr).unwrap()).collect();
        wait_for("the table full", || server.waiting() == 4);
        // Newcomers within the grace are turned away; those who came first keep their slot.
        let t0 = Instant::now();
        let mut late = TcpStream::connect(&addr).unwrap();
        time_to_close(&mut late, Duration::from_secs(2));
        assert!(t0.elapsed() < Duration::from_millis(250));
        assert_eq!(server.waiting(), 4);
        // srun's retries reach past the grace: then the oldest goes and it gets in.
        assert_eq!(StepdProcess::ping(&addr, SECRET).unwrap(), "n0");
        assert!(
            t0.elapsed() >= Duration::from_millis(250),
            "{:?}",
            t0.elapsed()
        );
        assert!(
            t0.elapsed() < Duration::from_millis(1500),
            "{:?}",
            t0.elapsed()
        );
        time_to_close(&mut first[0], Duration::from_secs(1));
        assert!(
            log.text()
                .contains("turned away: 4 connections are waiting to authenticate"),
            "{}",
            log.text()
        );
    }

    #[test]
    fn refusals_are_logged_at_most_once_per_interval() {
        let (server, addr, log) = server(limits(5000, 8));
        for _ in 0..30 {
            let e = step_proto::connect(&addr, b"wrong").unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        }
        let line = "step server n0: connection from 127.0.0.1:";
        wait_for("the first refusal logged", || log.text().contains(line));
        assert!(
            log.text()
                .ends_with(": refused: it does not know the job's secret\n"),
            "{}",
            log.text()
        );
        // What was held back is counted at the job's end.
        server.kill_all();
        assert_eq!(
            log.text().lines().nth(1),
            Some("step server n0: 29 more refused or dropped connections not logged"),
            "{}",
            log.text()
        );
    }

    #[test]
    fn after_authenticating_bigger_frames_are_fine() {
        let (_server, addr, _log) = server(limits(5000, 8));
        let (s, _) = step_proto::connect(&addr, SECRET).unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let name = "x".repeat(64 << 10);
        let ask = Control::AllocateStep {
            name,
            ntasks: 1,
            nnodes: 1,
            nodes: "n0".into(),
            cpus: 1,
        };
        step_proto::write_control(&mut &s, &ask).unwrap();
        assert_eq!(
            step_proto::read_frame(&mut r).unwrap(),
            Some(Frame::Control(Control::StepAllocated { step_id: 0 }))
        );
    }

    #[test]
    fn garbage_of_every_kind_leaves_the_server_serving() {
        let (server, addr, _log) = server(limits(300, 16));
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for i in 0..200 {
            let Ok(mut c) = TcpStream::connect(&addr) else {
                continue;
            };
            let n = (next() % 300) as usize;
            let mut bytes: Vec<u8> = (0..n).map(|_| next() as u8).collect();
            // Some well-formed headers with a hostile or broken body.
            if i % 3 == 0 && bytes.len() >= 5 {
                bytes[0] = (i % 2) as u8;
                bytes[1..5].copy_from_slice(&((n as u32).saturating_sub(5)).to_be_bytes());
            }
            let _ = c.write_all(&bytes);
        }
        assert_eq!(StepdProcess::ping(&addr, SECRET).unwrap(), "n0");
        wait_for("every slot given back", || server.waiting() == 0);
    }
}
