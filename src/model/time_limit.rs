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
    /// Slurm's `time_str2mins`: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`, seconds
    /// rounded up; `-1`, `INFINITE` and `UNLIMITED` give `u32::MAX`. None when invalid.
    pub fn parse_minutes(s: &str) -> Option<u32> {
        if s == "-1" || s.eq_ignore_ascii_case("INFINITE") || s.eq_ignore_ascii_case("UNLIMITED") {
            return Some(u32::MAX);
        }
        if !valid_timespec(s) {
            return None;
        }
        let nums = |t: &str| -> Vec<i64> { t.split(':').map(|n| n.parse().unwrap_or(0)).collect() };
        // Weighted sum of the parts; absurdly large inputs saturate and are rejected below.
        let sum = |parts: &[(i64, i64)]| {
            parts
                .iter()
                .fold(0i64, |acc, (v, w)| acc.saturating_add(v.saturating_mul(*w)))
        };
        let secs = match s.split_once('-') {
            Some((d, rest)) => {
                let d: i64 = d.parse().unwrap_or(i64::MAX);
                let v = nums(rest);
                sum(&[
                    (d, 86400),
                    (v.first().copied().unwrap_or(0), 3600),
                    (v.get(1).copied().unwrap_or(0), 60),
                    (v.get(2).copied().unwrap_or(0), 1),
                ])
            }
            None => match nums(s).as_slice() {
                [h, m, sec] => sum(&[(*h, 3600), (*m, 60), (*sec, 1)]),
                [m, sec] => sum(&[(*m, 60), (*sec, 1)]),
                [m] => sum(&[(*m, 60)]),
                _ => return None,
            },
        };
        u32::try_from(secs.saturating_add(59) / 60).ok()
    }

    pub fn seconds(self) -> Option<i64> {
        match self {
            TimeLimit::Infinite => None,
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
        }
    }
}

/// `_is_valid_timespec`: digits, at most one `-` (before any `:`), at most two `:`,
/// and enough numbers for the separators used.
fn valid_timespec(s: &str) -> bool {
    let (mut digits, mut dashes, mut colons) = (0, 0, 0);
    let mut in_digit = false;
    for c in s.chars() {
        match c {
            '0'..='9' => {
                if !in_digit {
                    digits += 1;
                    in_digit = true;
                }
            }
            '-' => {
                in_digit = false;
                dashes += 1;
                if colons > 0 {
                    return false;
                }
            }
            ':' => {
                in_digit = false;
                colons += 1;
            }
            _ => return false,
        }
    }
    if digits == 0 || dashes > 1 || colons > 2 {
        return false;
    }
    let needed = match (dashes, colons) {
        (1, 1) => 3,
        (1, 2) => 4,
        (0, 1) => 2,
        (0, 2) => 3,
        _ => 1,
    };
    digits >= needed
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
    fn parses_time_limits() {
        assert_eq!(TimeLimit::parse_minutes("10"), Some(10));
        assert_eq!(TimeLimit::parse_minutes("1:30"), Some(2));
        assert_eq!(TimeLimit::parse_minutes("1-00:00:00"), Some(1440));
        assert_eq!(TimeLimit::parse_minutes("2-3"), Some(2 * 1440 + 180));
        assert_eq!(TimeLimit::parse_minutes("UNLIMITED"), Some(u32::MAX));
        assert_eq!(TimeLimit::parse_minutes("abc"), None);
        assert_eq!(TimeLimit::parse_minutes("1:2:3:4"), None);
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
