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
    /// The accounting database's record of an earlier run of a requeued job (slurmdbd
    /// keeps one record per run; sacct shows the older ones with `-D`).
    Requeued,
    /// States sacct's `-s` accepts as accounted ones, which no record here ever has (no
    /// job is resized, no federation revokes one).
    Resizing,
    Revoked,
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
            JobState::Requeued => "REQUEUED",
            JobState::Resizing => "RESIZING",
            JobState::Revoked => "REVOKED",
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
            JobState::Requeued => "RQ",
            JobState::Resizing => "RS",
            JobState::Revoked => "RV",
        }
    }

    /// Parses a long or compact name of a base state, case-insensitively, as squeue -t and
    /// sacct -s accept them.
    pub fn parse(s: &str) -> Option<JobState> {
        ALL_STATES
            .iter()
            .copied()
            .find(|st| st.long().eq_ignore_ascii_case(s) || st.compact().eq_ignore_ascii_case(s))
    }

    /// sacct -s (`job_state_num`, then its check): a base state, or one of the three flags
    /// the database stores as a record's state; another flag's name is `Err(true)` ("not
    /// supported / accounted"), anything else `Err(false)`.
    pub fn parse_accounted(s: &str) -> Result<JobState, bool> {
        if let Some(st) = JobState::parse(s) {
            return Ok(st);
        }
        let flag = FLAG_STATE_NAMES
            .iter()
            .find(|(l, c)| l.eq_ignore_ascii_case(s) || c.eq_ignore_ascii_case(s))
            .ok_or(false)?;
        [JobState::Requeued, JobState::Resizing, JobState::Revoked]
            .into_iter()
            .find(|st| st.long() == flag.0)
            .ok_or(true)
    }

    /// What `job_state_string_complete` prints for a state sacct -s holds: the three
    /// accounted flags have the base state PENDING under them.
    pub fn complete_name(self) -> &'static str {
        match self {
            JobState::Requeued => "PENDING,REQUEUED",
            JobState::Resizing => "PENDING,RESIZING",
            JobState::Revoked => "PENDING,REVOKED",
            other => other.long(),
        }
    }

    /// A job in this state has ended and will not run again.
    pub fn is_finished(self) -> bool {
        !matches!(
            self,
            JobState::Pending | JobState::Running | JobState::Suspended
        )
    }
}

/// The state flags `job_state_num` knows after the base states, in the order it tries
/// them: (long, compact).
pub const FLAG_STATE_NAMES: [(&str, &str); 12] = [
    ("COMPLETING", "CG"),
    ("CONFIGURING", "CF"),
    ("RESIZING", "RS"),
    ("RESV_DEL_HOLD", "RD"),
    ("REQUEUED", "RQ"),
    ("REQUEUE_FED", "RF"),
    ("REQUEUE_HOLD", "RH"),
    ("REVOKED", "RV"),
    ("SIGNALING", "SI"),
    ("SPECIAL_EXIT", "SE"),
    ("STAGE_OUT", "SO"),
    ("STOPPED", "ST"),
];

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
        assert_eq!(JobState::parse("RQ"), None);
    }

    #[test]
    fn sacct_accepts_the_three_accounted_flags_and_refuses_the_others() {
        assert_eq!(JobState::parse_accounted("rq"), Ok(JobState::Requeued));
        assert_eq!(JobState::parse_accounted("Revoked"), Ok(JobState::Revoked));
        assert_eq!(JobState::parse_accounted("RS"), Ok(JobState::Resizing));
        assert_eq!(JobState::parse_accounted("cd"), Ok(JobState::Completed));
        assert_eq!(JobState::parse_accounted("SE"), Err(true));
        assert_eq!(JobState::parse_accounted("requeue_hold"), Err(true));
        assert_eq!(JobState::parse_accounted("foo"), Err(false));
        assert_eq!(JobState::Requeued.complete_name(), "PENDING,REQUEUED");
    }
}
