//! A change to a job, as `scontrol update JobId=...` sends it to the controller (Slurm's
//! `job_desc_msg_t` with only the changed fields set). scontrol has already checked each
//! value's form; the backend checks what the job's state and the requester allow and
//! applies the fields in slurmctld's order (`_update_job`).

use super::{Dependency, MemoryRequest, TimeLimit};

/// What one `scontrol update` changes. `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobUpdate {
    /// `ArrayTaskThrottle=` (0: no limit).
    pub array_throttle: Option<u32>,
    pub partition: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub comment: Option<String>,
    /// `NumCPUs=min[-max]`.
    pub min_cpus: Option<u32>,
    pub max_cpus: Option<u32>,
    /// `MinCPUsNode=`.
    pub pn_min_cpus: Option<u32>,
    /// `NumNodes=min[-max]`.
    pub min_nodes: Option<u32>,
    pub max_nodes: Option<u32>,
    /// `NumTasks=`.
    pub num_tasks: Option<u32>,
    /// The new limit, `+=`/`-=` already resolved against the job's limit by scontrol.
    /// `Minutes(0)` is a limit of zero minutes (Slurm keeps it; it is not "none").
    pub time_limit: Option<TimeLimit>,
    /// `Requeue=` (any non-zero is 1).
    pub requeue: Option<bool>,
    /// `Priority=` (u32::MAX, Slurm's INFINITE, releases a held job; 0 holds it).
    pub priority: Option<u32>,
    /// `Nice=` (a bare `Nice` is 100).
    pub nice: Option<i32>,
    /// `MinMemoryNode=` / `MinMemoryCPU=`, in MB.
    pub memory: Option<MemoryRequest>,
    /// `JobName=` / `Name=`.
    pub name: Option<String>,
    pub work_dir: Option<String>,
    pub std_out: Option<String>,
    /// `StdErr=` and `StdIn=` (24.11; empty: back to the default).
    pub std_err: Option<String>,
    pub std_in: Option<String>,
    /// `Dependency=`, as scontrol's controller parses it.
    pub dependency: Option<DependencyChange>,
    /// `StartTime=` / `EligibleTime=`, in Unix seconds (never before the request).
    pub begin_time: Option<i64>,
    /// Fields scontrol accepts that no backend here models (their words as typed, e.g.
    /// `Features=x`); a backend refuses an update that carries any.
    pub unmodelled: Vec<String>,
}

/// How `scontrol requeue` / `requeuehold` asks for a job to go back to the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RequeueRequest {
    /// `requeuehold`: the job waits held (`JobHeldUser`) instead of becoming eligible.
    pub hold: bool,
    /// `State=SpecialExit`: held, and marked SPECIAL_EXIT.
    pub special_exit: bool,
    /// `Incomplete`: only a job that is still running is requeued (others: nothing).
    pub incomplete: bool,
}

/// A new dependency: the parsed list (empty: none any more), or text the controller
/// refuses (`Job dependency problem`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DependencyChange {
    Set(Dependency),
    Invalid,
}
