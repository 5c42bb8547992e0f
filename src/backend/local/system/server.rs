//! `bai-slurm service`: the system mode's service. It runs as root, owns the state
//! directory (/var/lib/bai-slurm), and answers every user's commands on its socket, one
//! thread per connection. Who asks is what the kernel says of the connection
//! (SO_PEERCRED): the uid acts on jobs with Slurm's rules (owners and root), a launcher's
//! records are taken only from the job's user and, once claimed, its launcher process.
//! The queue runner is the local backend's own, started by the service as root; it
//! starts each job's launcher as the job's user.

use super::wire::{Call, Failure, Reply, read_message, write_message};
use crate::backend::local::ledger::{self, LedgerCall};
use crate::backend::local::{LocalCluster, LocalSettings, procs};
use crate::backend::{BackendError, Cluster, SlurmErrno};
use crate::config::AccountsConfig;
use serde_json::value::RawValue;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Connections served at once; more are told the service is busy.
const MAX_CONNECTIONS: usize = 256;
/// How long a connection may take to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Who is on the other end of a connection, as the kernel says.
#[derive(Debug, Clone, Copy)]
pub struct Peer {
    pub pid: i32,
    pub uid: u32,
}

/// What each connection's thread needs to open the cluster.
#[derive(Clone)]
struct Site {
    state_dir: PathBuf,
    settings: LocalSettings,
    accounts: AccountsConfig,
}

impl Site {
    fn cluster(&self) -> Result<LocalCluster, BackendError> {
        let mut c = LocalCluster::with_settings(self.state_dir.clone(), self.settings.clone())?;
        c.accounts = self.accounts.clone();
        Ok(c)
    }
}

/// Runs the service until it is killed. Returns an exit status when it cannot start.
pub fn serve(cluster: &LocalCluster) -> Result<(), String> {
    if !nix::unistd::geteuid().is_root() {
        return Err("the service must run as root: it starts each job as its user".into());
    }
    let Some(socket) = cluster.settings.service_socket.clone() else {
        return Err("the local backend is not in system mode: set [local] mode = \"system\" in /etc/bai-slurm/config.toml".into());
    };
    // What the service and its runner create is theirs alone unless made otherwise.
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    prepare_state_dir(&cluster.state_dir)?;
    let listener = bind(&socket)?;
    let site = Site {
        state_dir: cluster.state_dir.clone(),
        settings: cluster.settings.clone(),
        accounts: cluster.accounts.clone(),
    };
    // Jobs left by a service that died (or a reboot) are looked at now.
    cluster.wake_runner();
    eprintln!(
        "bai-slurm service: listening on {} (state in {})",
        socket.display(),
        cluster.state_dir.display()
    );
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            let mut stream = stream;
            let _ = write_message(
                &mut stream,
                &failure(BackendError::Other("the bai-slurm service is busy".into())),
            );
            continue;
        }
        let site = site.clone();
        let open = Arc::clone(&open);
        let spawned = std::thread::Builder::new().spawn(move || {
            serve_connection(&site, stream);
            open.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            // No thread to spare: the connection is closed, the client says so.
        }
    }
    Ok(())
}

/// The state directory: root's, its database private, and the way to the job directories
/// open (not readable) to the launchers, which run as the jobs' users.
fn prepare_state_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let traverse = std::fs::Permissions::from_mode(0o711);
    std::fs::set_permissions(dir, traverse.clone())
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    // The database holds every user's scripts and environments: root's only, whatever
    // mode an earlier version or an administrator left on it.
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o600));
        }
    }
    let jobs = dir.join("jobs");
    match std::fs::create_dir(&jobs) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("{}: {e}", jobs.display())),
    }
    std::fs::set_permissions(&jobs, traverse).map_err(|e| format!("{}: {e}", jobs.display()))
}

/// Binds the socket, world-connectable (the kernel tells who connects). A socket file
/// left by a service that died is replaced; one that answers means a service runs.
fn bind(socket: &Path) -> Result<UnixListener, String> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = socket.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    if UnixStream::connect(socket).is_ok() {
        return Err(format!(
            "another bai-slurm service already listens on {}",
            socket.display()
        ));
    }
    let _ = std::fs::remove_file(socket);
    let listener = UnixListener::bind(socket).map_err(|e| format!("{}: {e}", socket.display()))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o666))
        .map_err(|e| format!("{}: {e}", socket.display()))?;
    Ok(listener)
}

fn failure(e: BackendError) -> Reply {
    Reply {
        result: Err(Failure::Backend(e)),
        warnings: Vec::new(),
        notes: Vec::new(),
    }
}

fn serve_connection(site: &Site, mut stream: UnixStream) {
    let peer =
        match nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials) {
            Ok(c) => Peer {
                pid: c.pid(),
                uid: c.uid(),
            },
            Err(_) => return,
        };
    let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
    let _ = stream.set_write_timeout(Some(REQUEST_TIMEOUT));
    let reply = match read_message::<Call>(&mut stream) {
        Ok(call) => match site.cluster() {
            Ok(cluster) => {
                // A request that makes the service panic fails alone.
                let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    answer(&cluster, peer, call)
                }));
                let result = answer.unwrap_or_else(|_| {
                    Err(Failure::Backend(BackendError::Other(
                        "the bai-slurm service failed on this request".into(),
                    )))
                });
                Reply {
                    result,
                    warnings: cluster.warnings(),
                    notes: cluster.notes(),
                }
            }
            Err(e) => failure(e),
        },
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            failure(BackendError::Other(format!("malformed request: {e}")))
        }
        // The client went away or said nothing in time.
        Err(_) => return,
    };
    let _ = write_message(&mut stream, &reply);
}

/// A result as the answer carries it (serde_json cannot fail on our types; were it to,
/// the answer says so).
fn to_value<T: serde::Serialize>(v: T) -> Result<Box<RawValue>, Failure> {
    serde_json::value::to_raw_value(&v)
        .map_err(|e| BackendError::Other(format!("cannot encode the answer: {e}")).into())
}

/// Answers one request of `peer`. Every requester the methods take is the peer's uid.
pub fn answer(cluster: &LocalCluster, peer: Peer, call: Call) -> Result<Box<RawValue>, Failure> {
    let uid = peer.uid;
    // PrivateData=jobs: a user's views hold their own jobs only.
    let hidden = |j: &crate::model::JobRecord| {
        cluster.settings.private_jobs && j.uid != uid && !cluster.is_operator(uid)
    };
    let visible = |mut jobs: Vec<crate::model::JobRecord>| {
        jobs.retain(|j| !hidden(j));
        jobs
    };
    match call {
        Call::ClusterName => to_value(cluster.cluster_name()),
        Call::Jobs => to_value(visible(cluster.jobs()?)),
        Call::JobsWithIds(ids) => to_value(visible(cluster.jobs_with_ids(&ids)?)),
        // A hidden job is there to act on (and be refused), and shows nothing but its ids.
        Call::JobsToActOn(ids) => {
            let mut jobs = cluster.jobs_with_ids(&ids)?;
            for j in jobs.iter_mut().filter(|j| hidden(j)) {
                *j = crate::model::JobRecord {
                    job_id: j.job_id,
                    array: j.array.clone(),
                    uid: j.uid,
                    state: j.state,
                    ..Default::default()
                };
            }
            to_value(jobs)
        }
        Call::Accounting(q) => to_value(visible(cluster.accounting(&q)?)),
        Call::Partitions => to_value(cluster.partitions()?),
        Call::QueuePartitions => to_value(cluster.queue_partitions()?),
        Call::Nodes => to_value(cluster.nodes()?),
        Call::Accepts(spec) => to_value(cluster.accepts(&spec)?),
        Call::Submit(spec) => to_value(cluster.submit(&spec, &user_of(uid)?)?),
        Call::Translate(spec) => {
            let t = cluster.translate(&spec, &user_of(uid)?)?;
            to_value(serde_json::json!({ "job_id": t.job_id, "requests": t.requests }))
        }
        Call::WillRun(spec) => to_value(cluster.will_run(&spec, &user_of(uid)?)?),
        Call::Signal(target, mut req) => {
            req.requester = uid;
            to_value(cluster.signal(&target, &req)?)
        }
        Call::Hold(target, kind) => to_value(cluster.hold(&target, kind, uid)?),
        Call::Update(target, change) => to_value(cluster.update(&target, &change, uid)?),
        Call::Requeue(target, how) => to_value(cluster.requeue(&target, how, uid)?),
        Call::Notify(job, message) => to_value(cluster.notify(job, &message, uid)?),
        Call::BatchScript(job) => to_value(cluster.batch_script(job, uid)?),
        Call::UpdateNodes(update) => to_value(cluster.update_nodes(&update, uid)?),
        Call::Suspend(target, resume) => to_value(cluster.suspend(&target, resume, uid)?),
        Call::Top(targets) => to_value(cluster.top(&targets, uid)?),
        Call::MaxArraySize => to_value(cluster.max_array_size()),
        Call::Allocation(job) => {
            // The allocation carries the job's secret: its owner's (and root's) only.
            own_job(cluster, job, uid)?;
            to_value(cluster.allocation(job)?)
        }
        Call::Release(job, exit) => {
            own_job(cluster, job, uid)?;
            to_value(cluster.release(job, exit)?)
        }
        Call::Config => to_value(cluster.config()),
        Call::Ledger(call) => to_value(ledger_request(cluster, peer, call)?),
    }
}

fn user_of(uid: u32) -> Result<crate::sys::UserInfo, Failure> {
    crate::sys::lookup_user_by_uid(uid).ok_or(Failure::Backend(BackendError::Slurm(
        SlurmErrno::UserIdMissing,
    )))
}

/// Refuses `uid` a job that is not theirs (root may act on any).
fn own_job(cluster: &LocalCluster, job_id: u32, uid: u32) -> Result<(), Failure> {
    if uid == 0 {
        return Ok(());
    }
    let jobs = cluster.jobs_with_ids(&[job_id])?;
    match jobs.iter().find(|j| j.job_id == job_id) {
        Some(j) if j.uid != uid => Err(BackendError::Slurm(SlurmErrno::AccessDenied).into()),
        _ => Ok(()),
    }
}

fn ledger_request(
    cluster: &LocalCluster,
    peer: Peer,
    call: LedgerCall,
) -> Result<serde_json::Value, Failure> {
    let me = ledger::Launcher {
        pid: peer.pid,
        start: procs::start_time(peer.pid),
        uid: peer.uid,
    };
    let mut db = cluster.db()?;
    let answer = ledger::apply(cluster, &mut db, &call, me)
        .map_err(|e| BackendError::Other(e.to_string()))?;
    // The runner acts on a job that ended (or was never to run) at once.
    let claimed_nothing = matches!(call, LedgerCall::Claim { .. }) && answer.is_null();
    if claimed_nothing || matches!(call, LedgerCall::RecordEnd { .. }) {
        crate::backend::local::control::kick(&cluster.state_dir);
    }
    Ok(answer)
}
