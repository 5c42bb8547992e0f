//! Slurm's concepts, shared by parsers, renderers and backends.

pub mod array;
pub mod cnum;
pub mod exit;
pub mod hostlist;
pub mod job;
pub mod jobid;
pub mod node_state;
pub mod profile;
pub mod release;
pub mod rlimit;
pub mod state;
pub mod time_limit;
pub mod timestamp;
pub mod tres;
pub mod units;

pub use array::ArrayPart;
pub use exit::ExitStatus;
pub use job::{
    JobRecord, MemoryRequest, NodeAllocation, NodeRecord, NodeState, PartitionRecord, StepId,
    StepRecord,
};
pub use jobid::{JobSelector, TaskSelector};
pub use state::{JobState, StateFlag};
pub use time_limit::{PartitionTimes, TimeLimit};
pub use timestamp::TimeFormat;
pub mod dependency;
pub mod job_update;
pub mod jobspec;
pub mod multi_prog;
pub mod node_update;
pub use dependency::{DepItem, DepKind, DepStatus, DepTarget, Dependency};
pub use job_update::{DependencyChange, JobUpdate, RequeueRequest};
pub use jobspec::{ArrayRequest, JobSpec, OpenMode, WarnSignal};
pub use node_update::{NodeStateChange, NodeUpdate};
pub mod fname;
