//! The commands' side of system mode: a `Cluster` whose every method is one request to
//! the service. A service that does not answer is slurmctld down: `Unable to contact
//! slurm controller`.

use super::wire::{Call, Failure, Reply, read_message, write_message};
use crate::backend::local::ledger::LedgerCall;
use crate::backend::{
    AccountingQuery, AllocationDetails, BackendError, Cluster, HoldKind, JobReply, SignalRequest,
    SubmitError, Translation, WillRun, support,
};
use crate::model::{
    ExitStatus, JobRecord, JobSelector, JobSpec, JobUpdate, NodeRecord, PartitionRecord,
    RequeueRequest,
};
use crate::sys::UserInfo;
use std::cell::RefCell;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a command waits for the service's answer (slurmctld's clients wait
/// MessageTimeout, 10 s by default, then retry; a busy queue of ours answers in far less).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// Sends one request and reads the answer.
fn exchange(socket: &Path, call: &Call) -> Result<Reply, BackendError> {
    let unreachable =
        |e: std::io::Error| BackendError::Unreachable(format!("{}: {e}", socket.display()));
    let mut stream = UnixStream::connect(socket).map_err(unreachable)?;
    stream
        .set_read_timeout(Some(ANSWER_TIMEOUT))
        .map_err(unreachable)?;
    write_message(&mut stream, call).map_err(unreachable)?;
    read_message(&mut stream).map_err(unreachable)
}

/// How long a launcher waits for a service that does not answer (restarting, upgraded)
/// before it gives up on a record; the job's result file still holds its end.
const LEDGER_PATIENCE: Duration = Duration::from_secs(600);

/// A launcher's record-keeping request (ledger.rs). A service that is down is waited for:
/// a restart of the service must not fail the jobs that run meanwhile.
pub fn ledger_call(socket: &Path, call: LedgerCall) -> Result<serde_json::Value, String> {
    let call = Call::Ledger(call);
    let give_up = std::time::Instant::now() + LEDGER_PATIENCE;
    let mut delay = Duration::from_millis(200);
    let mut told = false;
    let reply = loop {
        match exchange(socket, &call) {
            Err(BackendError::Unreachable(why)) if std::time::Instant::now() < give_up => {
                if !told {
                    eprintln!(
                        "bai-slurm launcher: the bai-slurm service does not answer ({why}); waiting for it"
                    );
                    told = true;
                }
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_secs(5));
            }
            Err(BackendError::Unreachable(why)) => {
                return Err(format!("cannot reach the bai-slurm service: {why}"));
            }
            Err(other) => return Err(other.to_string()),
            Ok(reply) => break reply,
        }
    };
    let raw = reply
        .result
        .map_err(|f| BackendError::from(f).to_string())?;
    serde_json::from_str(raw.get()).map_err(|e| format!("unexpected answer: {e}"))
}

pub struct SystemCluster {
    socket: PathBuf,
    warnings: RefCell<Vec<String>>,
    notes: RefCell<Vec<String>>,
}

impl SystemCluster {
    pub fn new(socket: PathBuf) -> SystemCluster {
        SystemCluster {
            socket,
            warnings: RefCell::default(),
            notes: RefCell::default(),
        }
    }

    fn ask<T: serde::de::DeserializeOwned>(&self, call: Call) -> Result<T, Failure> {
        let reply = exchange(&self.socket, &call)?;
        self.warnings.borrow_mut().extend(reply.warnings);
        self.notes.borrow_mut().extend(reply.notes);
        let raw = reply.result?;
        serde_json::from_str(raw.get()).map_err(|e| {
            Failure::Backend(BackendError::Other(format!(
                "unexpected answer from the bai-slurm service: {e}"
            )))
        })
    }

    fn backend<T: serde::de::DeserializeOwned>(&self, call: Call) -> Result<T, BackendError> {
        self.ask(call).map_err(BackendError::from)
    }

    fn submission<T: serde::de::DeserializeOwned>(&self, call: Call) -> Result<T, SubmitError> {
        self.ask(call).map_err(SubmitError::from)
    }
}

/// [`Translation`] as it travels (its backend name is the local one's).
#[derive(serde::Deserialize)]
struct TranslationWire {
    job_id: Option<u32>,
    requests: Vec<serde_json::Value>,
}

impl Cluster for SystemCluster {
    fn cluster_name(&self) -> String {
        self.backend(Call::ClusterName).unwrap_or_default()
    }
    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError> {
        self.backend(Call::Jobs)
    }
    fn jobs_with_ids(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        self.backend(Call::JobsWithIds(ids.to_vec()))
    }
    fn jobs_to_act_on(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        self.backend(Call::JobsToActOn(ids.to_vec()))
    }
    fn accounting(&self, query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError> {
        self.backend(Call::Accounting(query.clone()))
    }
    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        self.backend(Call::Partitions)
    }
    fn queue_partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        self.backend(Call::QueuePartitions)
    }
    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError> {
        self.backend(Call::Nodes)
    }
    fn handling(&self, field: crate::model::jobspec::Field) -> support::Handling {
        crate::backend::local::handling::handling(field)
    }
    fn accepts(&self, spec: &JobSpec) -> Result<Vec<String>, SubmitError> {
        self.submission(Call::Accepts(Box::new(spec.clone())))
    }
    /// `_user` is who this process runs as; the service takes the kernel's word for it.
    fn submit(&self, spec: &JobSpec, _user: &UserInfo) -> Result<u32, SubmitError> {
        self.submission(Call::Submit(Box::new(spec.clone())))
    }
    fn translate(&self, spec: &JobSpec, _user: &UserInfo) -> Result<Translation, SubmitError> {
        let t: TranslationWire = self.submission(Call::Translate(Box::new(spec.clone())))?;
        Ok(Translation {
            backend: "local",
            job_id: t.job_id,
            requests: t.requests,
        })
    }
    fn will_run(&self, spec: &JobSpec, _user: &UserInfo) -> Result<WillRun, SubmitError> {
        self.submission(Call::WillRun(Box::new(spec.clone())))
    }
    fn signal(&self, target: &JobSelector, req: &SignalRequest) -> Result<(), BackendError> {
        self.backend(Call::Signal(target.clone(), *req))
    }
    fn hold(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        _requester: u32,
    ) -> Result<(), BackendError> {
        self.backend(Call::Hold(target.clone(), kind))
    }
    fn update(
        &self,
        target: &JobSelector,
        change: &JobUpdate,
        _requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.backend(Call::Update(target.clone(), Box::new(change.clone())))
    }
    fn requeue(
        &self,
        target: &JobSelector,
        how: RequeueRequest,
        _requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.backend(Call::Requeue(target.clone(), how))
    }
    fn notify(&self, job_id: u32, message: &str, _requester: u32) -> Result<(), BackendError> {
        self.backend(Call::Notify(job_id, message.to_string()))
    }
    fn batch_script(&self, job_id: u32, _requester: u32) -> Result<Vec<u8>, BackendError> {
        self.backend(Call::BatchScript(job_id))
    }
    fn update_nodes(
        &self,
        update: &crate::model::NodeUpdate,
        _requester: u32,
    ) -> Result<(), BackendError> {
        self.backend(Call::UpdateNodes(Box::new(update.clone())))
    }
    fn suspend(
        &self,
        target: &JobSelector,
        resume: bool,
        _requester: u32,
    ) -> Result<(), BackendError> {
        self.backend(Call::Suspend(target.clone(), resume))
    }
    fn top(&self, targets: &[JobSelector], _requester: u32) -> Result<(), BackendError> {
        self.backend(Call::Top(targets.to_vec()))
    }
    fn max_array_size(&self) -> u32 {
        self.backend(Call::MaxArraySize)
            .unwrap_or(crate::model::array::DEFAULT_MAX_ARRAY_SIZE)
    }
    fn allocation(&self, job_id: u32) -> Result<Option<AllocationDetails>, BackendError> {
        self.backend(Call::Allocation(job_id))
    }
    fn release(&self, job_id: u32, exit: ExitStatus) -> Result<(), BackendError> {
        self.backend(Call::Release(job_id, exit))
    }
    fn warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.warnings.borrow_mut())
    }
    fn notes(&self) -> Vec<String> {
        std::mem::take(&mut self.notes.borrow_mut())
    }
    fn config(&self) -> Vec<(String, String)> {
        self.backend(Call::Config).unwrap_or_default()
    }
}
