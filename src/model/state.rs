//! Job states as Slurm names them (`job_state_string` / `_compact` in slurm_protocol_defs.c).

use serde::{Deserialize, Serialize};

/// The base state of a job or step. Flags such as COMPLETING live beside it in the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum JobState {
    #[default]
    Pending,
    Running,
    Suspended,
    Completed,
    Cancelled,
    Failed,
    Timeout,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    OutOfMemory,
}

/// Every state, in Slurm's enum order (used for `-t all` and for help texts).
pub const ALL_STATES: [JobState; 12] = [
    JobState::Pending,
    JobState::Running,
    JobState::Suspended,
    JobState::Completed,
    JobState::Cancelled,
    JobState::Failed,
    JobState::Timeout,
    JobState::NodeFail,
    JobState::Preempted,
    JobState::BootFail,
    JobState::Deadline,
    JobState::OutOfMemory,
];

impl JobState {
    pub fn long(self) -> &'static str {
        match self {
            JobState::Pending => "PENDING",
            JobState::Running => "RUNNING",
            JobState::Suspended => "SUSPENDED",
            JobState::Completed => "COMPLETED",
            JobState::Cancelled => "CANCELLED",
            JobState::Failed => "FAILED",
            JobState::Timeout => "TIMEOUT",
            JobState::NodeFail => "NODE_FAIL",
            JobState::Preempted => "PREEMPTED",
            JobState::BootFail => "BOOT_FAIL",
            JobState::Deadline => "DEADLINE",
            JobState::OutOfMemory => "OUT_OF_MEMORY",
        }
    }

    pub fn compact(self) -> &'static str {
        match self {
            JobState::Pending => "PD",
            JobState::Running => "R",
            JobState::Suspended => "S",
            JobState::Completed => "CD",
            JobState::Cancelled => "CA",
            JobState::Failed => "F",
            JobState::Timeout => "TO",
            JobState::NodeFail => "NF",
            JobState::Preempted => "PR",
            JobState::BootFail => "BF",
            JobState::Deadline => "DL",
            JobState::OutOfMemory => "OOM",
        }
    }

    /// Parses a long or compact name, case-insensitively, as squeue -t and sacct -s accept them.
    pub fn parse(s: &str) -> Option<JobState> {
        ALL_STATES
            .iter()
            .copied()
            .find(|st| st.long().eq_ignore_ascii_case(s) || st.compact().eq_ignore_ascii_case(s))
    }

    /// A job in this state has ended and will not run again.
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            JobState::Pending | JobState::Running | JobState::Suspended
        )
    }
}

/// The flag part of a job state that squeue shows in preference to the base state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum StateFlag {
    #[default]
    None,
    Completing,
    Configuring,
    /// `scontrol requeuehold State=SpecialExit`: held until released.
    SpecialExit,
}

impl StateFlag {
    pub fn long(self) -> Option<&'static str> {
        match self {
            StateFlag::None => None,
            StateFlag::Completing => Some("COMPLETING"),
            StateFlag::Configuring => Some("CONFIGURING"),
            StateFlag::SpecialExit => Some("SPECIAL_EXIT"),
        }
    }
    pub fn compact(self) -> Option<&'static str> {
        match self {
            StateFlag::None => None,
            StateFlag::Completing => Some("CG"),
            StateFlag::Configuring => Some("CF"),
            StateFlag::SpecialExit => Some("SE"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_long_and_compact_names_case_insensitively() {
        assert_eq!(JobState::parse("pd"), Some(JobState::Pending));
        assert_eq!(
            JobState::parse("Out_Of_Memory"),
            Some(JobState::OutOfMemory)
        );
        assert_eq!(JobState::parse("CA"), Some(JobState::Cancelled));
        assert_eq!(JobState::parse("nope"), None);
    }
}
