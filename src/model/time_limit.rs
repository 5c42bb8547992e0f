//! Time limits and the three ways Slurm prints a duration (slurm-spec.md §0.2).

use serde::{Deserialize, Serialize};

/// A job's time limit in whole minutes, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TimeLimit {
    #[default]
    Infinite,
    Minutes(u32),
}

impl TimeLimit {
    pub fn seconds(self) -> Option<i64> {
        match self {
            TimeLimit::Infinite => None,
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
        }
    }
}

const YEAR_SECONDS: i64 = 365 * 24 * 3600;

/// squeue's `_print_secs`: `M:SS`, `H:MM:SS`, `D-HH:MM:SS`; `INVALID` out of range.
pub fn squeue_duration(secs: i64) -> String {
    if !(0..=YEAR_SECONDS).contains(&secs) {
        return "INVALID".to_string();
    }
    let (days, hours, mins, s) = split(secs);
    if days > 0 {
        format!("{days}-{hours:02}:{mins:02}:{s:02}")
    } else if hours > 0 {
        format!("{hours}:{mins:02}:{s:02}")
    } else {
        format!("{mins}:{s:02}")
    }
}

/// `secs2time_str` as sacct and scontrol use it: `HH:MM:SS`, `D-HH:MM:SS`.
pub fn long_duration(secs: i64) -> String {
    if secs < 0 {
        return "INVALID".to_string();
    }
    let (days, hours, mins, s) = split(secs);
    if days > 0 {
        format!("{days}-{hours:02}:{mins:02}:{s:02}")
    } else {
        format!("{hours:02}:{mins:02}:{s:02}")
    }
}

/// squeue's rendering of a limit: `UNLIMITED` or [`squeue_duration`].
pub fn squeue_limit(limit: TimeLimit) -> String {
    match limit {
        TimeLimit::Infinite => "UNLIMITED".to_string(),
        TimeLimit::Minutes(m) => squeue_duration(i64::from(m) * 60),
    }
}

/// sinfo's rendering of a limit: `infinite` or [`squeue_duration`].
pub fn sinfo_limit(limit: TimeLimit) -> String {
    match limit {
        TimeLimit::Infinite => "infinite".to_string(),
        TimeLimit::Minutes(m) => squeue_duration(i64::from(m) * 60),
    }
}

/// sacct/scontrol rendering of a limit: `UNLIMITED` or [`long_duration`].
pub fn long_limit(limit: TimeLimit) -> String {
    match limit {
        TimeLimit::Infinite => "UNLIMITED".to_string(),
        TimeLimit::Minutes(m) => long_duration(i64::from(m) * 60),
    }
}

fn split(secs: i64) -> (i64, i64, i64, i64) {
    (
        secs / 86400,
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_shapes() {
        assert_eq!(squeue_duration(0), "0:00");
        assert_eq!(squeue_duration(307), "5:07");
        assert_eq!(squeue_duration(3723), "1:02:03");
        assert_eq!(squeue_duration(86400), "1-00:00:00");
        assert_eq!(squeue_duration(-1), "INVALID");
        assert_eq!(squeue_limit(TimeLimit::Minutes(10)), "10:00");
    }

    #[test]
    fn long_shapes() {
        assert_eq!(long_duration(72), "00:01:12");
        assert_eq!(long_duration(86400 + 3723), "1-01:02:03");
        assert_eq!(long_limit(TimeLimit::Minutes(1)), "00:01:00");
        assert_eq!(sinfo_limit(TimeLimit::Minutes(1440)), "1-00:00:00");
        assert_eq!(sinfo_limit(TimeLimit::Infinite), "infinite");
    }
}
