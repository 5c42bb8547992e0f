//! Where jobs run. `Cluster` is everything a command needs from a scheduler; the local
//! backend and the Backend.AI backend implement it. Commands never know which one they have.

pub mod accounts;
pub mod backendai;
pub mod local;
pub mod support;
pub mod trusted_dir;

use crate::model::{JobRecord, JobSelector, JobSpec, NodeRecord, PartitionRecord};
use crate::sys::UserInfo;
use std::fmt;

/// A failure talking to the scheduler. Commands turn these into Slurm's own messages.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BackendError {
    /// The scheduler cannot be reached at all (Slurm: `Unable to contact slurm controller`).
    Unreachable(String),
    /// The scheduler answered with a refusal that has a Slurm errno text
    /// (e.g. `Invalid job id specified`, `Access/permission denied`).
    Slurm(SlurmErrno),
    /// Anything else, described in one line.
    Other(String),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::Unreachable(_) => {
                f.write_str("Unable to contact slurm controller (connect failure)")
            }
            BackendError::Slurm(e) => f.write_str(e.text()),
            BackendError::Other(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for BackendError {}

/// The Slurm errno values our commands report, with Slurm's text and numeric value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SlurmErrno {
    InvalidJobId,
    AlreadyDone,
    AccessDenied,
    InvalidPartitionName,
    InvalidArray,
    Dependency,
    CircularDependency,
    InvalidTimeLimit,
    RequestedNodeConfigUnavailable,
    JobNotPending,
    JobPending,
    InvalidNodeCount,
    TooManyRequestedCpus,
    InvalidGres,
    InvalidFeature,
    InvalidLicenses,
    ReservationInvalid,
    InvalidNodeName,
    InvalidNodeState,
    PathnameTooLong,
    UserIdMissing,
    BadTaskCount,
    NotSupported,
    Disabled,
    BatchOnly,
    JobHeld,
    InvalidAccount,
    InvalidTimeValue,
    InvalidQos,
    InvalidCpuCount,
    JobSuspended,
    JobFinished,
    JobNotRunning,
    JobNotSuspended,
    PrioResetFail,
    InvalidTimeMinLimit,
    JobScriptMissing,
}

impl SlurmErrno {
    pub fn text(self) -> &'static str {
        match self {
            SlurmErrno::InvalidJobId => "Invalid job id specified",
            SlurmErrno::AlreadyDone => "Job/step already completing or completed",
            SlurmErrno::AccessDenied => "Access/permission denied",
            SlurmErrno::InvalidPartitionName => "Invalid partition name specified",
            SlurmErrno::InvalidArray => "Invalid job array specification",
            SlurmErrno::Dependency => "Job dependency problem",
            SlurmErrno::CircularDependency => "Circular job dependency",
            SlurmErrno::InvalidTimeLimit => {
                "Requested time limit is invalid (missing or exceeds some limit)"
            }
            SlurmErrno::RequestedNodeConfigUnavailable => {
                "Requested node configuration is not available"
            }
            SlurmErrno::JobNotPending => "Job is no longer pending execution",
            SlurmErrno::JobPending => "Job is pending execution",
            SlurmErrno::InvalidNodeCount => "Node count specification invalid",
            SlurmErrno::TooManyRequestedCpus => "More processors requested than permitted",
            SlurmErrno::InvalidGres => "Invalid generic resource (gres) specification",
            SlurmErrno::InvalidFeature => "Invalid feature specification",
            SlurmErrno::InvalidLicenses => "Invalid license specification",
            SlurmErrno::ReservationInvalid => "Requested reservation is invalid",
            SlurmErrno::InvalidNodeName => "Invalid node name specified",
            SlurmErrno::InvalidNodeState => "Invalid node state specified",
            SlurmErrno::PathnameTooLong => {
                "Pathname of a file, directory or other parameter too long"
            }
            SlurmErrno::UserIdMissing => "Invalid user id",
            SlurmErrno::BadTaskCount => "Task count specification invalid",
            SlurmErrno::NotSupported => "Requested operation not supported on this system",
            SlurmErrno::Disabled => "Requested operation is presently disabled",
            SlurmErrno::BatchOnly => "Only batch jobs are accepted or processed",
            SlurmErrno::JobHeld => "Job is in held state, pending scheduler release",
            SlurmErrno::InvalidAccount => {
                "Invalid account or account/partition combination specified"
            }
            SlurmErrno::InvalidTimeValue => "Invalid time specified",
            SlurmErrno::InvalidQos => "Invalid qos specification",
            SlurmErrno::InvalidCpuCount => "CPU count specification invalid",
            SlurmErrno::JobSuspended => "Job is current suspended, requested operation disabled",
            SlurmErrno::JobFinished => "Job has already finished",
            SlurmErrno::JobNotRunning => "Job is not running",
            SlurmErrno::JobNotSuspended => "Job is not suspended",
            SlurmErrno::PrioResetFail => {
                "Changes to job priority are not persistent, change nice instead"
            }
            SlurmErrno::InvalidTimeMinLimit => {
                "Invalid time-min specification (exceeds job's time or other limits)"
            }
            SlurmErrno::JobScriptMissing => "Job script not specified",
        }
    }

    /// Slurm's numeric errno (slurm_errno.h); scancel uses it, truncated, as its exit status.
    pub fn number(self) -> i32 {
        match self {
            SlurmErrno::InvalidJobId => 2017,
            SlurmErrno::AlreadyDone => 2021,
            SlurmErrno::AccessDenied => 2002,
            SlurmErrno::InvalidPartitionName => 2000,
            SlurmErrno::InvalidArray => 2081,
            SlurmErrno::Dependency => 2038,
            SlurmErrno::CircularDependency => 2071,
            SlurmErrno::InvalidTimeLimit => 2051,
            SlurmErrno::RequestedNodeConfigUnavailable => 2014,
            SlurmErrno::JobNotPending => 2073,
            SlurmErrno::JobPending => 2024,
            SlurmErrno::InvalidNodeCount => 2006,
            SlurmErrno::TooManyRequestedCpus => 2005,
            SlurmErrno::InvalidGres => 2072,
            SlurmErrno::InvalidFeature => 2029,
            SlurmErrno::InvalidLicenses => 2048,
            SlurmErrno::ReservationInvalid => 2053,
            SlurmErrno::InvalidNodeName => 2018,
            SlurmErrno::InvalidNodeState => 2028,
            SlurmErrno::PathnameTooLong => 2012,
            // The values of slurm_errno.h (22.05) for the errors of job control.
            SlurmErrno::UserIdMissing => 2010,
            SlurmErrno::BadTaskCount => 2025,
            SlurmErrno::NotSupported => 2036,
            SlurmErrno::Disabled => 2037,
            SlurmErrno::BatchOnly => 2039,
            SlurmErrno::JobHeld => 2042,
            SlurmErrno::InvalidAccount => 2045,
            SlurmErrno::InvalidTimeValue => 2054,
            SlurmErrno::InvalidQos => 2066,
            SlurmErrno::InvalidCpuCount => 2069,
            SlurmErrno::JobSuspended => 2077,
            SlurmErrno::JobFinished => 2084,
            SlurmErrno::JobNotRunning => 2085,
            SlurmErrno::JobNotSuspended => 2087,
            SlurmErrno::PrioResetFail => 2095,
            SlurmErrno::InvalidTimeMinLimit => 2124,
            SlurmErrno::JobScriptMissing => 2009,
        }
    }
}

/// Slurm's default `max_script_size` (SchedulerParameters): 4 MiB.
pub const MAX_SCRIPT_SIZE: u64 = 4 << 20;

/// slurmctld refuses a batch script longer than `max_script_size` bytes.
pub fn check_script_size(spec: &JobSpec, limit: u64) -> Result<(), SubmitError> {
    if spec.script.len() as u64 > limit {
        return Err(SubmitError::errno(SlurmErrno::PathnameTooLong));
    }
    Ok(())
}

/// What `sacct` asks for; backends may use it to narrow their query, sacct filters exactly.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct AccountingQuery {
    /// Job ids named with -j (empty = all).
    pub job_ids: Vec<u32>,
    /// Only these uids (empty = all users).
    pub uids: Vec<u32>,
    /// Time window [start, end) in unix seconds.
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// A refused submission: the `sbatch: error:` lines that explain it, then the errno line
/// `Batch job submission failed: <text>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubmitError {
    pub details: Vec<String>,
    pub errno: Option<SlurmErrno>,
    /// When the scheduler could not be reached or failed, this replaces the errno text.
    pub failure: Option<BackendError>,
}

impl SubmitError {
    pub fn errno(errno: SlurmErrno) -> Self {
        SubmitError {
            details: Vec::new(),
            errno: Some(errno),
            failure: None,
        }
    }
    pub fn with_detail(mut self, line: impl Into<String>) -> Self {
        self.details.push(line.into());
        self
    }
    /// The refusal in one phrase: the errno's text, or the failure's.
    pub fn reason(&self) -> String {
        match (&self.errno, &self.failure) {
            (Some(errno), _) => errno.text().to_string(),
            (None, Some(f)) => f.to_string(),
            (None, None) => "Unspecified error".to_string(),
        }
    }
}

impl From<BackendError> for SubmitError {
    fn from(e: BackendError) -> Self {
        match e {
            BackendError::Slurm(errno) => SubmitError::errno(errno),
            other => SubmitError {
                details: Vec::new(),
                errno: None,
                failure: Some(other),
            },
        }
    }
}

/// A signal (or cancellation) sent to a job, as scancel asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SignalRequest {
    /// None: cancel the job (Slurm's default SIGKILL semantics).
    pub signal: Option<i32>,
    /// `-b`: only the batch shell.
    pub batch_only: bool,
    /// `-f`: the batch shell, its children and every step.
    pub full: bool,
    /// Uid of whoever asks (owners and root may signal a job).
    pub requester: u32,
}

impl SignalRequest {
    /// A plain cancel (`scancel ID`) asked for by `requester`.
    pub fn cancel(requester: u32) -> SignalRequest {
        SignalRequest {
            signal: None,
            batch_only: false,
            full: false,
            requester,
        }
    }
}

/// Kinds of hold: `scontrol hold` asks for an administrator's (`Admin`), which a backend
/// gives only to an operator (anybody else's is their own); `uhold`/`sbatch -H` the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HoldKind {
    User,
    Admin,
}

/// The controller's answer to a job-control request (update, requeue) for one id.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum JobReply {
    /// A plain job (or one task named as a job id): its result.
    Job(Result<(), SlurmErrno>),
    /// An id that named an array or tasks of one: each task's result, in any order.
    Tasks(Vec<(u32, Result<(), SlurmErrno>)>),
}

/// A granted allocation, as srun and salloc need it to run steps.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AllocationDetails {
    /// The allocation's nodes with their step server addresses.
    pub nodes: Vec<(String, String)>,
    /// The job's secret for its step servers.
    pub secret: String,
    pub cpus_per_node: u32,
    /// GPU devices the job holds on its first node.
    pub gpus: Vec<u32>,
    pub record: JobRecord,
    /// The nodes are containers reached through the platform's tunnel.
    pub remote: bool,
}

/// What `--test-only` tells: `Job N to start at T using C processors on nodes L in
/// partition P`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WillRun {
    pub job_id: u32,
    pub start: i64,
    pub cpus: u32,
    pub nodes: String,
    pub partition: String,
}

/// A submission made but not sent: the backend, the id the job would get (where the
/// backend chooses it before submitting) and the requests it would send.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Translation {
    pub backend: &'static str,
    pub job_id: Option<u32>,
    pub requests: Vec<serde_json::Value>,
}

/// The scheduler, seen from the commands.
pub trait Cluster {
    /// The cluster's name (SLURM_CLUSTER_NAME, sacct Cluster).
    fn cluster_name(&self) -> String;
    /// Every job the controller still holds: pending, running, and finished ones not yet
    /// purged, each with its steps.
    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError>;
    /// When the backfill scheduler last ran a cycle with jobs to test (squeue --json's
    /// `last_backfill`); 0 for none, and for a backend without one.
    fn last_backfill(&self) -> Result<i64, BackendError> {
        Ok(0)
    }
    /// The jobs of [`Cluster::jobs`] with one of `ids` as job id or array job id. A backend
    /// that can look them up by id does, so the cost does not grow with the queue.
    fn jobs_with_ids(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        let mut jobs = self.jobs()?;
        jobs.retain(|j| j.named_by(ids));
        Ok(jobs)
    }
    /// Accounting records (finished jobs are kept forever), with steps.
    /// The jobs of `ids` as a command about to act on them checks what exists. A backend
    /// that hides other users' jobs from the views (PrivateData) still lists them here, with
    /// nothing but what names them, as slurmctld still finds them for a control request.
    fn jobs_to_act_on(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        self.jobs_with_ids(ids)
    }
    fn accounting(&self, query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError>;
    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError>;
    /// The partitions squeue sorts by (their priority tiers). A backend may answer from
    /// what it knows without asking its scheduler.
    fn queue_partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        self.partitions()
    }
    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError>;

    /// What this backend does with each part of a job request (`support`).
    /// By default, a backend that takes no jobs refuses every part of one.
    fn handling(&self, _field: crate::model::jobspec::Field) -> support::Handling {
        support::Handling::Refused(support::Refusal::Unsupported(
            "cannot be used: this backend does not accept jobs",
        ))
    }
    /// Checks a request against [`Cluster::handling`]: the error for a refused field, else
    /// the warnings to print (without the `prog: warning: ` prefix). Submission and
    /// translation refuse the same way; the commands call this first for the warnings.
    fn accepts(&self, spec: &JobSpec) -> Result<Vec<String>, SubmitError> {
        support::check(spec, |f| self.handling(f))
    }

    /// Submits a batch job; returns its id.
    fn submit(&self, _spec: &JobSpec, _user: &UserInfo) -> Result<u32, SubmitError> {
        Err(BackendError::Other("this backend does not accept jobs".into()).into())
    }
    /// What [`Cluster::submit`] would do with the job, checked as a submission is, without
    /// submitting it (`bai-slurm translate`).
    fn translate(&self, _spec: &JobSpec, _user: &UserInfo) -> Result<Translation, SubmitError> {
        Err(BackendError::Other("this backend does not accept jobs".into()).into())
    }
    /// `--test-only`: when and where the job would start, without submitting it (Slurm's
    /// will_run). Like slurmctld, a backend may use up a job id for it.
    fn will_run(&self, _spec: &JobSpec, _user: &UserInfo) -> Result<WillRun, SubmitError> {
        Err(BackendError::Other("--test-only is not supported by this backend".into()).into())
    }
    /// Signals or cancels the job(s) one id names.
    fn signal(&self, _target: &JobSelector, _req: &SignalRequest) -> Result<(), BackendError> {
        Err(BackendError::Other(
            "this backend cannot signal jobs".into(),
        ))
    }
    /// Holds pending job(s) (priority 0) or releases them.
    fn hold(
        &self,
        _target: &JobSelector,
        _kind: Option<HoldKind>,
        _requester: u32,
    ) -> Result<(), BackendError> {
        Err(BackendError::Other("this backend cannot hold jobs".into()))
    }

    /// `scontrol update JobId=...`: applies `change` to the job(s) `target` names, as
    /// slurmctld's `update_job_str` does. A backend whose jobs cannot change after
    /// submission says so with Slurm's own "not supported".
    fn update(
        &self,
        target: &JobSelector,
        _change: &crate::model::JobUpdate,
        _requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.cannot_change(target)
    }
    /// `scontrol requeue` / `requeuehold`: a running or finished batch job goes back to
    /// the queue (`job_requeue2`).
    fn requeue(
        &self,
        target: &JobSelector,
        _how: crate::model::RequeueRequest,
        _requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.cannot_change(target)
    }

    /// The answer of a backend whose jobs cannot change: "Invalid job id specified" for
    /// what names no job (per task for task ids), "not supported" for the rest.
    fn cannot_change(&self, target: &JobSelector) -> Result<JobReply, BackendError> {
        let jobs = self.jobs()?;
        let exists = jobs.iter().any(|j| target.matches(j));
        Ok(match (&target.tasks, exists) {
            (crate::model::TaskSelector::Tasks(tasks), false) => JobReply::Tasks(
                tasks
                    .iter()
                    .map(|&t| (t, Err(SlurmErrno::InvalidJobId)))
                    .collect(),
            ),
            (_, false) => JobReply::Job(Err(SlurmErrno::InvalidJobId)),
            (_, true) => JobReply::Job(Err(SlurmErrno::NotSupported)),
        })
    }
    /// `scontrol notify`: a message to a running job (`srun_user_message`).
    /// `scontrol write batch_script`: the script of a batch job the controller still holds,
    /// for its owner or an operator (`Invalid user id` for others, `Job script not
    /// specified` for a job without one).
    fn batch_script(&self, job_id: u32, requester: u32) -> Result<Vec<u8>, BackendError> {
        let _ = (job_id, requester);
        Err(BackendError::Slurm(SlurmErrno::JobScriptMissing))
    }
    fn notify(&self, job_id: u32, _message: &str, _requester: u32) -> Result<(), BackendError> {
        let exists = self.jobs()?.iter().any(|j| j.job_id == job_id);
        Err(BackendError::Slurm(if exists {
            SlurmErrno::NotSupported
        } else {
            SlurmErrno::InvalidJobId
        }))
    }
    /// `scontrol update NodeName=...`: drain, resume, down (an operator's). Slurm checks
    /// the requester first: anyone else is told `Invalid user id`.
    fn update_nodes(
        &self,
        _update: &crate::model::NodeUpdate,
        requester: u32,
    ) -> Result<(), BackendError> {
        Err(BackendError::Slurm(if self.is_operator(requester) {
            SlurmErrno::NotSupported
        } else {
            SlurmErrno::UserIdMissing
        }))
    }
    /// `scontrol suspend` / `resume` (an operator's).
    fn suspend(
        &self,
        _target: &JobSelector,
        _resume: bool,
        requester: u32,
    ) -> Result<(), BackendError> {
        Err(BackendError::Slurm(if self.is_operator(requester) {
            SlurmErrno::NotSupported
        } else {
            SlurmErrno::AccessDenied
        }))
    }
    /// `scontrol top`: the job first among its user's pending jobs. Slurm allows it to
    /// operators only unless `SchedulerParameters=enable_user_top`.
    /// `targets`: every job the command names, in its order (slurmctld reads them all).
    fn top(&self, _targets: &[JobSelector], requester: u32) -> Result<(), BackendError> {
        Err(BackendError::Slurm(if self.is_operator(requester) {
            SlurmErrno::NotSupported
        } else {
            SlurmErrno::AccessDenied
        }))
    }

    /// Whether `uid` is one of the controller's operators (root, and those the site
    /// names), who may act on every job.
    fn is_operator(&self, uid: u32) -> bool {
        uid == 0
    }

    /// Slurm's MaxArraySize: array task ids must be below it (the controller's check,
    /// which sbatch's parse of `--array` applies).
    fn max_array_size(&self) -> u32 {
        crate::model::array::DEFAULT_MAX_ARRAY_SIZE
    }

    /// How long salloc/srun `--immediate` (no seconds given) waits for the job to leave
    /// PENDING before it cancels it. None: the backend's scheduler decides at its first look
    /// at the job, as slurmctld does (it fails the job, BadConstraints).
    fn immediate_patience(&self) -> Option<std::time::Duration> {
        None
    }

    /// The allocation of an interactive job once it runs (None while it waits).
    fn allocation(&self, _job_id: u32) -> Result<Option<AllocationDetails>, BackendError> {
        Err(BackendError::Other(
            "this backend cannot make interactive allocations".into(),
        ))
    }
    /// Gives an interactive allocation back; the job ends with `exit`.
    fn release(&self, _job_id: u32, _exit: crate::model::ExitStatus) -> Result<(), BackendError> {
        Err(BackendError::Other(
            "this backend cannot make interactive allocations".into(),
        ))
    }

    /// Problems met on the way that did not stop the command (one unreadable record
    /// skipped, say), each to be printed once after the command's output.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the backend changed in a request to make it fit (a memory request raised to
    /// an image's minimum, say), each line once; `sbatch -v` prints them.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// slurm.conf-style settings the backend can state truthfully, for
    /// `scontrol show config` (e.g. `("MinJobAge", "300 sec")`: how long finished jobs stay
    /// in [`Cluster::jobs`]). Nothing by default.
    fn config(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}
