//! Small facts several renderers share: state names with flags, time used, timestamps
//! cut to Slurm's buffer sizes, raw exit status words.

use crate::model::timestamp::format_time;
use crate::model::{ExitStatus, JobRecord, JobState, StateFlag, TimeFormat};

/// How timestamps are shown, and the moment "now" is.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    pub now: i64,
    pub time_format: TimeFormat,
}

impl Clock {
    /// `slurm_make_time_str` into a buffer of `size` bytes: 0 prints `Unknown`, longer
    /// results are cut to `size - 1` bytes.
    pub fn time_str(&self, t: Option<i64>, size: usize) -> String {
        let mut s = format_time(t, &self.time_format, self.now);
        if size > 0 && s.len() > size - 1 {
            let mut cut = size - 1;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        s
    }
}

/// `job_state_string`: a flag such as COMPLETING wins over the base state.
pub fn state_long(job: &JobRecord) -> &'static str {
    job.flag.long().unwrap_or_else(|| job.state.long())
}

/// `job_state_string_compact`.
pub fn state_compact(job: &JobRecord) -> &'static str {
    job.flag.compact().unwrap_or_else(|| job.state.compact())
}

pub fn is_completing(job: &JobRecord) -> bool {
    job.flag == StateFlag::Completing
}

/// squeue's and scontrol's `job_time_used`: seconds run, excluding suspended time.
pub fn time_used(job: &JobRecord, now: i64) -> i64 {
    let Some(start) = job.start_time.filter(|&s| s != 0) else {
        return 0;
    };
    match job.state {
        JobState::Pending => 0,
        JobState::Suspended => job.pre_sus_time,
        _ => {
            let end = if job.state == JobState::Running {
                now
            } else {
                job.end_time.filter(|&e| e != 0).unwrap_or(now)
            };
            match job.suspend_time.filter(|&s| s != 0) {
                Some(susp) => end.saturating_sub(susp).saturating_add(job.pre_sus_time),
                None => end.saturating_sub(start),
            }
        }
    }
}

/// The raw wait(2) status word Slurm stores for an exit status.
pub fn raw_exit(e: ExitStatus) -> i64 {
    if e.signal != 0 {
        i64::from(e.signal & 0x7f)
    } else {
        i64::from(e.code & 0xff) << 8
    }
}

/// The text Slurm shows for a state reason: the description when one was set, else the
/// reason name (both live in `JobRecord::reason`); empty means `None`.
pub fn reason_text(reason: &str) -> &str {
    if reason.is_empty() { "None" } else { reason }
}

/// A TRES request in the release's spelling: 24.11 writes GRES as TRES (`gres/gpu:2`)
/// where 22.05 wrote `gres:gpu:2`; records keep 22.05's, which 22.05 prints as it is.
pub fn gres_spelling(tres: &str, profile: &crate::model::profile::Profile) -> String {
    if profile.squeue.gres_tres_spelling {
        tres.replace("gres:", "gres/")
    } else {
        tres.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_used_by_state() {
        let mut j = JobRecord {
            state: JobState::Running,
            start_time: Some(100),
            ..Default::default()
        };
        assert_eq!(time_used(&j, 160), 60);
        j.state = JobState::Completed;
        j.end_time = Some(130);
        assert_eq!(time_used(&j, 160), 30);
        j.state = JobState::Pending;
        assert_eq!(time_used(&j, 160), 0);
    }

    #[test]
    fn raw_exit_words() {
        assert_eq!(raw_exit(ExitStatus::code(3)), 768);
        assert_eq!(raw_exit(ExitStatus::signal(15)), 15);
    }

    #[test]
    fn time_str_cuts_to_buffer() {
        let c = Clock {
            now: 0,
            time_format: TimeFormat::Standard,
        };
        assert_eq!(c.time_str(None, 32), "Unknown");
        assert_eq!(c.time_str(None, 4), "Unk");
        let full = c.time_str(Some(86400 * 365), 32);
        assert_eq!(c.time_str(Some(86400 * 365), 11), full[..10]);
    }
}
