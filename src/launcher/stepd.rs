//! The step server: one per node of a job. `srun`, run inside the job, connects to the
//! server of every node the step uses, proves it knows the job's secret, and has the tasks
//! started there; their output and exit statuses stream back over the same connection.
//! Node 0's server also hands out step ids and records steps (for sacct).

use super::step_proto::{self, Control, Frame, TaskSpec};
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

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
    fn finish(&self, step_id: u32, state: &str, code: i32, signal: i32);
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
    fn finish(&self, _: u32, _: &str, _: i32, _: i32) {}
}

pub struct StepServer {
    pub node: String,
    pub secret: Vec<u8>,
    pub registry: Arc<dyn StepRegistry>,
    /// Where refusals are logged (the launcher's log).
    pub log: Arc<Mutex<Box<dyn Write + Send>>>,
    /// Process groups of every task started here, so the job's end can take them along.
    pub task_groups: Arc<Mutex<Vec<i32>>>,
}

impl StepServer {
    pub fn new(
        node: String,
        secret: Vec<u8>,
        registry: Arc<dyn StepRegistry>,
        log: Box<dyn Write + Send>,
    ) -> StepServer {
        StepServer {
            node,
            secret,
            registry,
            log: Arc::new(Mutex::new(log)),
            task_groups: Arc::default(),
        }
    }

    /// Kills every task this server started (the job is over).
    pub fn kill_all(&self) {
        if let Ok(groups) = self.task_groups.lock() {
            for pg in groups.iter() {
                // SAFETY: killpg(2) on process groups this server created.
                unsafe { libc::killpg(*pg, libc::SIGKILL) };
            }
        }
    }

    /// Serves connections until the listener fails; each connection on its own thread.
    pub fn serve(self: Arc<Self>, listener: TcpListener) {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let me = Arc::clone(&self);
            std::thread::spawn(move || {
                let peer = conn.peer_addr().map(|a| a.to_string()).unwrap_or_default();
                if let Err(e) = me.handle(conn) {
                    me.logf(&format!(
                        "step server {}: connection from {peer}: {e}",
                        me.node
                    ));
                }
            });
        }
    }

    fn logf(&self, line: &str) {
        if let Ok(mut w) = self.log.lock() {
            let _ = writeln!(w, "{line}");
        }
    }

    fn handle(&self, conn: TcpStream) -> std::io::Result<()> {
        let mut reader = BufReader::new(conn.try_clone()?);
        let writer = Arc::new(Mutex::new(conn.try_clone()?));
        let nonce = step_proto::random_hex(16);
        send(
            &writer,
            &Control::Hello {
                nonce: nonce.clone(),
                node: self.node.clone(),
            },
        )?;
        match step_proto::read_frame(&mut reader)? {
            Some(Frame::Control(Control::Auth { mac }))
                if step_proto::verify(&self.secret, &nonce, &mac) => {}
            _ => {
                // Logged before answering: the job (and this process) may end right after.
                let peer = conn.peer_addr().map(|a| a.to_string()).unwrap_or_default();
                self.logf(&format!(
                    "step server {}: connection from {peer}: refused: it does not know the job's secret",
                    self.node
                ));
                let _ = send(
                    &writer,
                    &Control::Refused {
                        reason: "authentication failed".into(),
                    },
                );
                return Ok(());
            }
        }
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
                }) => {
                    self.registry.finish(step_id, &state, code, signal);
                    send(&writer, &Control::Ok)?;
                }
                Frame::Control(Control::Launch { tasks, .. }) => {
                    return run_tasks(tasks, reader, writer, &self.task_groups);
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

fn send(w: &Arc<Mutex<TcpStream>>, msg: &Control) -> std::io::Result<()> {
    let mut s = w
        .lock()
        .map_err(|_| std::io::Error::other("writer poisoned"))?;
    step_proto::write_control(&mut *s, msg)
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

enum Event {
    Output(u32, bool, Vec<u8>),
    /// One of a task's streams reached its end.
    Closed(u32),
    Exited(u32, i32),
}

/// Starts the tasks, streams their output and exits, forwards signals and stdin.
fn run_tasks(
    tasks: Vec<TaskSpec>,
    mut reader: BufReader<TcpStream>,
    writer: Arc<Mutex<TcpStream>>,
    all_groups: &Mutex<Vec<i32>>,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<Event>();
    let mut pids = Vec::new();
    let mut stdin_of_rank0 = None;
    let mut children: Vec<(u32, Child)> = Vec::new();
    let mut failed_to_start = Vec::new();
    for t in &tasks {
        let Some(program) = t.argv.first().and_then(|a| find_program(a, &t.env, &t.cwd)) else {
            let name = t.argv.first().cloned().unwrap_or_default();
            let msg = format!("slurmstepd: error: execve(): {name}: No such file or directory\n");
            failed_to_start.push((t.rank, msg));
            continue;
        };
        let mut cmd = Command::new("/bin/sh");
        // sh records the task's own pid (SLURM_TASK_PID), then becomes the task.
        cmd.arg("-c")
            .arg("SLURM_TASK_PID=$$; export SLURM_TASK_PID; exec \"$0\" \"$@\"")
            .arg(&program)
            .args(&t.argv[1..])
            .env_clear()
            .envs(&t.env)
            .current_dir(&t.cwd)
            .process_group(0);
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
        cmd.stdout(to_file(&t.stdout)?).stderr(to_file(&t.stderr)?);
        cmd.stdin(if t.rank == 0 {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                failed_to_start.push((
                    t.rank,
                    format!("slurmstepd: error: execve(): {}: {e}\n", program.display()),
                ));
                continue;
            }
        };
        pids.push((t.rank, child.id() as i32));
        if let Ok(mut g) = all_groups.lock() {
            g.push(child.id() as i32);
        }
        if t.rank == 0 {
            stdin_of_rank0 = child.stdin.take();
        }
        for (stream, is_err) in [
            (
                child
                    .stdout
                    .take()
                    .map(|s| Box::new(s) as Box<dyn Read + Send>),
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
    // Exits are reported only after the task's output ended, so srun sees output first.
    for (rank, mut child) in children {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let status = child
                .wait()
                .map(std::os::unix::process::ExitStatusExt::into_raw)
                .unwrap_or(1 << 8);
            let _ = tx.send(Event::Exited(rank, status));
        });
    }
    drop(tx);
    // Messages from srun: signals and stdin. When srun goes away, the step goes with it.
    let groups: Vec<i32> = pids.iter().map(|(_, p)| *p).collect();
    let control_groups = groups.clone();
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
                Ok(Some(Frame::Control(Control::Stdin { data }))) => {
                    if data.is_empty() {
                        stdin = None;
                    } else if let Some(s) = stdin.as_mut() {
                        let _ = s.write_all(&data);
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
            (
                t.rank,
                u32::from(t.stdout.is_none()) + u32::from(t.stderr.is_none()),
            )
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
