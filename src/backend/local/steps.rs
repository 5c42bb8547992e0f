//! Job steps under the local backend: the step servers of a job run inside its launcher,
//! and node 0's numbers and records steps in the state database (sacct's `N.0` rows).

use super::LocalCluster;
use super::ledger::{Ledger, LedgerCall};
use crate::launcher::batch::StepdMessages;
use crate::launcher::jobfile::JobFile;
use crate::launcher::step_proto;
use crate::launcher::stepd::{StepEnd, StepRegistry, StepServer, StepdProcess};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

pub struct DbRegistry {
    /// Where the job's steps are recorded.
    pub ledger: Ledger,
    pub job_id: u32,
    /// `scontrol notify`'s way into the batch job's error stream.
    pub messages: Arc<StepdMessages>,
}

impl StepRegistry for DbRegistry {
    fn allocate(
        &self,
        name: &str,
        ntasks: u32,
        nnodes: u32,
        nodes: &str,
        cpus: u32,
    ) -> Result<u32, String> {
        let answer = self.ledger.call(LedgerCall::StepAllocate {
            job_id: self.job_id,
            name: name.to_string(),
            ntasks,
            nnodes,
            nodes: nodes.to_string(),
            cpus,
        })?;
        serde_json::from_value::<Option<u32>>(answer)
            .ok()
            .flatten()
            .ok_or_else(|| format!("job {} is not run by this launcher", self.job_id))
    }

    fn notify(&self, message: &str) -> Result<(), String> {
        self.messages.error(message)
    }

    fn finish(&self, step_id: u32, end: StepEnd<'_>) {
        let _ = self.ledger.call(LedgerCall::StepFinish {
            job_id: self.job_id,
            step_id,
            state: end.state.to_string(),
            code: end.code,
            signal: end.signal,
            cancelled_by: end.cancelled_by,
        });
    }
}

/// Has every node's step server of a running job deliver `signal` to its steps' tasks
/// (`scancel -s SIG` without `-b`), reaching them through the job file its launcher
/// holds. A job with no step running has nothing to signal.
pub fn signal_steps(launcher: i32, job_id: u32, signal: i32) {
    let Some(job) = crate::launcher::jobfile::held_by_process(launcher, job_id) else {
        return;
    };
    let ask = step_proto::Control::SignalJob(step_proto::JobSignal {
        signal: Some(signal),
        batch_only: false,
        full: false,
    });
    for (_, addr) in &job.nodes {
        let _ = step_proto::request(
            addr,
            job.secret.as_bytes(),
            step_proto::HANDSHAKE_TIMEOUT,
            &ask,
        );
    }
}

/// Has a running batch job's launcher write `scontrol notify`'s message into the job's
/// error stream (through node 0's step server, found in the job file the launcher holds).
pub fn notify(launcher: i32, job_id: u32, message: &str) -> Result<(), String> {
    let job = crate::launcher::jobfile::held_by_process(launcher, job_id)
        .ok_or("the job's launcher holds no job file")?;
    let (_, node0) = job.nodes.first().ok_or("the job has no step server")?;
    let ask = step_proto::Control::Notify {
        message: message.to_string(),
    };
    step_proto::request(
        node0,
        job.secret.as_bytes(),
        step_proto::HANDSHAKE_TIMEOUT,
        &ask,
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The running step servers of one job: node 0's in this process (it numbers and records
/// steps), the other (simulated) nodes' as `bai-slurm __stepd` processes of their own,
/// each on its node's loopback address and held by its lifeline.
pub struct StepServers {
    /// Where node 0's server puts `scontrol notify`'s messages (the launcher attaches the
    /// job's error stream once the script runs).
    pub messages: Arc<StepdMessages>,
    pub servers: Vec<Arc<StepServer>>,
    pub others: Vec<StepdProcess>,
    pub nodes: Vec<(String, String)>,
    pub secret: String,
    pub kill_wait: u32,
}

impl StepServers {
    /// Starts one step server per node of the job (`nodes`: names with the address each
    /// listens on).
    pub fn start(
        cluster: &LocalCluster,
        job_id: u32,
        nodes: &[(String, String)],
    ) -> std::io::Result<StepServers> {
        let secret = step_proto::random_hex(32);
        let messages = Arc::new(StepdMessages::default());
        let registry: Arc<dyn StepRegistry> = Arc::new(DbRegistry {
            ledger: Ledger::for_cluster(cluster),
            job_id,
            messages: Arc::clone(&messages),
        });
        let mut servers = Vec::new();
        let mut others = Vec::new();
        let mut addrs = Vec::new();
        for (i, (node, host)) in nodes.iter().enumerate() {
            if i == 0 {
                let listener = TcpListener::bind(format!("{host}:0"))?;
                let addr = listener.local_addr()?.to_string();
                let server = Arc::new(StepServer::new(
                    node.clone(),
                    secret.as_bytes().to_vec(),
                    Arc::clone(&registry),
                    Box::new(std::io::stderr()),
                ));
                let s = Arc::clone(&server);
                std::thread::spawn(move || s.serve(listener));
                servers.push(server);
                addrs.push((node.clone(), addr));
                continue;
            }
            let exe = crate::sys::own_executable()
                .map_err(|_| std::io::Error::other("cannot find bai-slurm's own path"))?;
            let mut cmd = std::process::Command::new(exe);
            cmd.arg("__stepd").arg(node).arg(format!("{host}:0"));
            let p = StepdProcess::start(
                node,
                cmd,
                secret.as_bytes(),
                std::time::Duration::from_secs(30),
                None,
            )
            .map_err(|e| std::io::Error::other(format!("step server of {node}: {e}")))?;
            // The servers check each other: node 0 makes sure this one is the job's own.
            StepdProcess::ping(&p.addr, secret.as_bytes())
                .map_err(|e| std::io::Error::other(format!("step server of {node}: {e}")))?;
            addrs.push((node.clone(), p.addr.clone()));
            others.push(p);
        }
        Ok(StepServers {
            messages,
            servers,
            others,
            nodes: addrs,
            secret,
            kill_wait: cluster.settings.kill_wait,
        })
    }

    /// What the job's processes need to reach them (`launcher::jobfile`).
    pub fn job_file(&self, job_id: u32) -> JobFile {
        JobFile {
            job_id,
            nodes: self.nodes.clone(),
            secret: self.secret.clone(),
            kill_wait: self.kill_wait,
            remote: false,
            slurm_version: None,
        }
    }

    /// Ends every step's tasks, on every node.
    pub fn kill_all(self) {
        for s in &self.servers {
            s.kill_all();
        }
        for p in self.others {
            p.stop();
        }
    }
}

/// What an interactive job's launcher publishes for srun/salloc: its step servers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllocationFile {
    pub nodes: Vec<(String, String)>,
    pub secret: String,
}

impl AllocationFile {
    pub fn path(job_dir: &std::path::Path) -> PathBuf {
        job_dir.join("allocation.json")
    }

    /// Written privately (it holds the job's secret), atomically.
    pub fn write(&self, job_dir: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(job_dir)?;
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::sys::replace_file(&Self::path(job_dir), &bytes, 0o600)
    }

    /// Never through a link: in system mode the service reads it as root from a
    /// directory the job's user owns, and gives what it says to the job's owner.
    pub fn read(job_dir: &std::path::Path) -> Option<AllocationFile> {
        serde_json::from_slice(&crate::sys::read_no_follow(&Self::path(job_dir)).ok()?).ok()
    }
}
