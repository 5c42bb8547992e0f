//! What a job's launcher records about its job: the claim, the job's process group, its
//! steps and its end. In a user's own state directory the launcher writes the database
//! itself; in system mode (system/), where the database belongs to the service and the
//! launcher runs as the job's user, it asks the service, which checks that the asker is
//! the job's launcher (its uid and, after the claim, its pid) and applies the same code.

use super::db::{Db, DbResult, JobRow, StepRow, Tx};
use super::executor::{self, ResultFile};
use super::{LocalCluster, control};
use crate::model::{ExitStatus, JobSpec, JobState, StepId};
use std::path::PathBuf;

/// One record-keeping request of a launcher.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum LedgerCall {
    /// Takes a started job to run (answers `Option<(JobSpec, JobRow)>`).
    Claim { job_id: u32 },
    /// The GPU devices the scheduler gave the job (answers `Option<String>`).
    JobGpus { job_id: u32 },
    /// The batch step's process group, for signals.
    SetPgid { job_id: u32, pgid: i32 },
    /// How the job ended.
    RecordEnd { job_id: u32, result: ResultFile },
    /// A new step of the job (answers its number).
    StepAllocate {
        job_id: u32,
        name: String,
        ntasks: u32,
        nnodes: u32,
        nodes: String,
        cpus: u32,
    },
    /// How a step ended.
    StepFinish {
        job_id: u32,
        step_id: u32,
        state: String,
        code: i32,
        signal: i32,
        cancelled_by: Option<u32>,
    },
}

impl LedgerCall {
    pub fn job_id(&self) -> u32 {
        match self {
            LedgerCall::Claim { job_id }
            | LedgerCall::JobGpus { job_id }
            | LedgerCall::SetPgid { job_id, .. }
            | LedgerCall::RecordEnd { job_id, .. }
            | LedgerCall::StepAllocate { job_id, .. }
            | LedgerCall::StepFinish { job_id, .. } => *job_id,
        }
    }
}

/// The launcher process a request comes from.
#[derive(Debug, Clone, Copy)]
pub struct Launcher {
    pub pid: i32,
    pub start: Option<u64>,
    pub uid: u32,
}

/// Where a launcher's records go.
#[derive(Debug, Clone)]
pub enum Ledger {
    /// The state database, written directly (the per-user mode).
    Direct {
        state_dir: PathBuf,
        settings: Box<super::LocalSettings>,
    },
    /// The system service's socket.
    Service(PathBuf),
}

impl Ledger {
    pub fn for_cluster(cluster: &LocalCluster) -> Ledger {
        match &cluster.settings.service_socket {
            Some(socket) => Ledger::Service(socket.clone()),
            None => Ledger::Direct {
                state_dir: cluster.state_dir.clone(),
                settings: Box::new(cluster.settings.clone()),
            },
        }
    }

    /// Sends one request; the answer as JSON.
    pub fn call(&self, call: LedgerCall) -> Result<serde_json::Value, String> {
        match self {
            Ledger::Direct {
                state_dir,
                settings,
            } => {
                let cluster = LocalCluster::with_settings(state_dir.clone(), (**settings).clone())
                    .map_err(|e| e.to_string())?;
                let mut db = executor::open_waiting_for_space(&cluster, call.job_id())
                    .map_err(|e| e.to_string())?;
                let me = Launcher {
                    pid: std::process::id() as i32,
                    start: super::procs::start_time(std::process::id() as i32),
                    uid: nix::unistd::getuid().as_raw(),
                };
                // A full disk delays the launcher's records, it does not lose them.
                let answer = executor::while_disk_full(call.job_id(), || {
                    apply(&cluster, &mut db, &call, me)
                })
                .map_err(|e| e.to_string())?;
                if matches!(call, LedgerCall::RecordEnd { .. }) {
                    control::kick(state_dir);
                }
                Ok(answer)
            }
            Ledger::Service(socket) => super::system::client::ledger_call(socket, call),
        }
    }

    /// Wakes the queue runner (the service wakes it itself after a launcher's records).
    pub fn kick(&self) {
        if let Ledger::Direct { state_dir, .. } = self {
            control::kick(state_dir);
        }
    }

    pub fn claim(&self, job_id: u32) -> Result<Option<(JobSpec, JobRow)>, String> {
        decode(self.call(LedgerCall::Claim { job_id })?)
    }

    pub fn job_gpus(&self, job_id: u32) -> Option<String> {
        self.call(LedgerCall::JobGpus { job_id })
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .flatten()
    }
}

fn decode<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| format!("unexpected answer: {e}"))
}

/// Applies one request of launcher `me` to the database. Every request but the claim is
/// refused unless `me` is the job's claimed launcher; the claim, unless `me` runs as the
/// job's user.
pub fn apply(
    cluster: &LocalCluster,
    db: &mut Db,
    call: &LedgerCall,
    me: Launcher,
) -> DbResult<serde_json::Value> {
    let now = crate::sys::now();
    let job_id = call.job_id();
    if let LedgerCall::Claim { .. } = call {
        let claimed = db.write(|tx| executor::claim(tx, cluster, job_id, me, now))?;
        return Ok(serde_json::to_value(claimed).unwrap_or_default());
    }
    let own = |tx: &Tx<'_>| -> DbResult<Option<JobRow>> {
        Ok(tx
            .job(job_id)?
            .filter(|r| r.uid == me.uid && r.launcher_pid == Some(me.pid)))
    };
    let value = match call {
        LedgerCall::Claim { .. } => unreachable!("answered above"),
        LedgerCall::JobGpus { .. } => {
            let gpus = db.read(|tx| match own(tx)? {
                Some(_) => tx.job_gpus(job_id),
                None => Ok(None),
            })?;
            serde_json::to_value(gpus).unwrap_or_default()
        }
        LedgerCall::SetPgid { pgid, .. } => {
            db.write(|tx| {
                if let Some(mut r) = own(tx)? {
                    r.job_pgid = Some(*pgid);
                    tx.update_job(&r)?;
                }
                Ok(())
            })?;
            serde_json::Value::Null
        }
        LedgerCall::RecordEnd { result, .. } => {
            db.write(|tx| {
                if let Some(mut r) = own(tx)?
                    && !r.state.is_finished()
                {
                    executor::finalize(tx, &mut r, *result)?;
                }
                Ok(())
            })?;
            serde_json::Value::Null
        }
        LedgerCall::StepAllocate {
            name,
            ntasks,
            nnodes,
            nodes,
            cpus,
            ..
        } => {
            let n = db.write(|tx| {
                if own(tx)?.is_none() {
                    return Ok(None);
                }
                let next = tx
                    .steps_of(job_id)?
                    .iter()
                    .filter_map(|s| match s.step {
                        StepId::Numbered(n) => Some(n + 1),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0);
                tx.upsert_step(&StepRow {
                    job_id,
                    step: StepId::Numbered(next),
                    name: name.clone(),
                    state: JobState::Running,
                    start_time: Some(now),
                    end_time: None,
                    exit: ExitStatus::OK,
                    ncpus: *cpus,
                    ntasks: *ntasks,
                    nnodes: *nnodes,
                    nodes: nodes.clone(),
                    pgid: None,
                    cancelled_by: None,
                })?;
                Ok(Some(next))
            })?;
            serde_json::to_value(n).unwrap_or_default()
        }
        LedgerCall::StepFinish {
            step_id,
            state,
            code,
            signal,
            cancelled_by,
            ..
        } => {
            db.write(|tx| {
                if own(tx)?.is_none() {
                    return Ok(());
                }
                if let Some(mut s) = tx
                    .steps_of(job_id)?
                    .into_iter()
                    .find(|s| s.step == StepId::Numbered(*step_id))
                {
                    s.state = JobState::parse(state).unwrap_or(JobState::Completed);
                    s.exit = ExitStatus {
                        code: *code,
                        signal: *signal,
                    };
                    s.cancelled_by = *cancelled_by;
                    s.end_time = Some(now);
                    tx.upsert_step(&s)?;
                }
                Ok(())
            })?;
            serde_json::Value::Null
        }
    };
    Ok(value)
}
