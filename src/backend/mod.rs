//! Where jobs run. `Cluster` is everything a command needs from a scheduler; the local
//! backend and the Backend.AI backend implement it. Commands never know which one they have.

use crate::model::{JobRecord, NodeRecord, PartitionRecord};
use std::fmt;

/// A failure talking to the scheduler. Commands turn these into Slurm's own messages.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    InvalidNodeCount,
    TooManyRequestedCpus,
    InvalidGres,
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
            SlurmErrno::InvalidNodeCount => "Node count specification invalid",
            SlurmErrno::TooManyRequestedCpus => "More processors requested than permitted",
            SlurmErrno::InvalidGres => "Invalid generic resource (gres) specification",
        }
    }

    /// Slurm's numeric errno (slurm_errno.h); scancel uses it, truncated, as its exit status.
    pub fn number(self) -> i32 {
        match self {
            SlurmErrno::InvalidJobId => 2017,
            SlurmErrno::AlreadyDone => 2021,
            SlurmErrno::AccessDenied => 2002,
            SlurmErrno::InvalidPartitionName => 2000,
            SlurmErrno::InvalidArray => 2091,
            SlurmErrno::Dependency => 2031,
            SlurmErrno::CircularDependency => 2090,
            SlurmErrno::InvalidTimeLimit => 2051,
            SlurmErrno::RequestedNodeConfigUnavailable => 2014,
            SlurmErrno::JobNotPending => 2020,
            SlurmErrno::InvalidNodeCount => 2006,
            SlurmErrno::TooManyRequestedCpus => 2032,
            SlurmErrno::InvalidGres => 2072,
        }
    }
}

/// What `sacct` asks for; backends may use it to narrow their query, sacct filters exactly.
#[derive(Debug, Clone, Default)]
pub struct AccountingQuery {
    /// Job ids named with -j (empty = all).
    pub job_ids: Vec<u32>,
    /// Only these uids (empty = all users).
    pub uids: Vec<u32>,
    /// Time window [start, end) in unix seconds.
    pub start: Option<i64>,
    pub end: Option<i64>,
}

/// The scheduler, seen from the commands.
pub trait Cluster {
    /// The cluster's name (SLURM_CLUSTER_NAME, sacct Cluster).
    fn cluster_name(&self) -> String;
    /// Every job the controller still holds: pending, running, and finished ones not yet
    /// purged, each with its steps.
    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError>;
    /// Accounting records (finished jobs are kept forever), with steps.
    fn accounting(&self, query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError>;
    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError>;
    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError>;
    /// slurm.conf-style settings the backend can state truthfully, for
    /// `scontrol show config` (e.g. `("MinJobAge", "300 sec")`: how long finished jobs stay
    /// in [`Cluster::jobs`]). Nothing by default.
    fn config(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}
