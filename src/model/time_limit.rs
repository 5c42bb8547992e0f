//! Time limits, how Slurm reads a duration (`time_str2secs` / `time_str2mins`,
//! `src/common/parse_time.c`) and the three ways it prints one (slurm-spec.md §0.2).
//!
//! Accepted: `-1`, `INFINITE`, `UNLIMITED` (any case) = infinite; `M`, `M:S`, `H:M:S`,
//! `D-H`, `D-H:M`, `D-H:M:S`. Only digits, `-` and `:` may appear, at most one `-` and two
//! `:`, no `-` after a `:`, and enough numbers for the colons (`_is_valid_timespec`).
//! The fields are read with `sscanf("%d")`, so `5-` is 5 days and `-3` is minus 3 days;
//! arithmetic is 32-bit and wraps as the C code does. The options (`--time`), sacct's
//! `-k`/`-K` and the backends (a partition's MaxTime and DefaultTime) all read durations
//! here.

use super::cnum::{c_bytes, strtol};
use serde::{Deserialize, Serialize};

/// A job's time limit in whole minutes, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TimeLimit {
    #[default]
    Infinite,
    Minutes(u32),
}

impl TimeLimit {
    /// A limit as `--time` and slurm.conf's `MaxTime`/`DefaultTime` read it:
    /// [`time_str2mins`], with 0 and `INFINITE` meaning no limit. Slurm keeps a negative
    /// result (`-3` = minus 3 days) and sends it as an unsigned 32-bit number of minutes;
    /// so do we, so `-3` becomes a limit of 4294963016 minutes. None when invalid.
    pub fn parse(s: &str) -> Option<TimeLimit> {
        match time_str2mins(s)? {
            Duration::Infinite | Duration::Value(0) => Some(TimeLimit::Infinite),
            Duration::Value(m) => Some(TimeLimit::Minutes(m as u32)),
        }
    }

    pub fn seconds(self) -> Option<i64> {
        match self {
            TimeLimit::Infinite => None,
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
        }
    }
}

/// A partition's time limits, as slurm.conf's `MaxTime` and `DefaultTime` give them: the
/// one rule both backends apply to a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionTimes {
    pub max_time: TimeLimit,
    pub default_time: Option<TimeLimit>,
}

/// A job asked for more time than its partition's MaxTime (`ESLURM_INVALID_TIME_LIMIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceedsMaxTime;

impl PartitionTimes {
    /// At submission (slurmctld's `_part_access_check`): a limit of more minutes than
    /// MaxTime is refused. No limit, or no MaxTime, passes.
    pub fn check(self, requested: Option<TimeLimit>) -> Result<(), ExceedsMaxTime> {
        match (requested, self.max_time) {
            (Some(TimeLimit::Minutes(want)), TimeLimit::Minutes(max)) if want > max => {
                Err(ExceedsMaxTime)
            }
            _ => Ok(()),
        }
    }

    /// The limit the job runs with (`select_nodes`): its own, else DefaultTime, else
    /// MaxTime.
    pub fn job_limit(self, requested: Option<TimeLimit>) -> TimeLimit {
        requested.or(self.default_time).unwrap_or(self.max_time)
    }

    /// Both at once, as a backend settles a new job: [`check`](Self::check), then
    /// [`job_limit`](Self::job_limit).
    pub fn apply(self, requested: Option<TimeLimit>) -> Result<TimeLimit, ExceedsMaxTime> {
        self.check(requested)?;
        Ok(self.job_limit(requested))
    }
}

/// Slurm's `INFINITE` as the C `int` a duration function returns.
const INFINITE_INT: i32 = -1; // 0xffffffff
/// Slurm's `NO_VAL` (0xfffffffe) as an `int`: the error result.
const NO_VAL_INT: i32 = -2;

/// A parsed duration: infinite, or a count (seconds or minutes, per the function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duration {
    Infinite,
    Value(i32),
}

fn valid_timespec(b: &[u8]) -> bool {
    let (mut digits, mut dashes, mut colons) = (0, 0, 0);
    let mut in_digit = false;
    for &c in b {
        match c {
            b'0'..=b'9' => {
                if !in_digit {
                    digits += 1;
                    in_digit = true;
                }
            }
            b'-' => {
                in_digit = false;
                dashes += 1;
                if colons > 0 {
                    return false;
                }
            }
            b':' => {
                in_digit = false;
                colons += 1;
            }
            _ => return false,
        }
    }
    if digits == 0 || dashes > 1 || colons > 2 {
        return false;
    }
    let need = match (dashes, colons) {
        (0, 1) => 2,
        (0, 2) => 3,
        (1, 1) => 3,
        (1, 2) => 4,
        _ => 0,
    };
    digits >= need
}

/// `sscanf(s, fmt)` where `fmt` is `%d` fields separated by the literal bytes in `seps`:
/// fills fields until one fails to match; returns how many were assigned.
fn scan_ints(b: &[u8], seps: &[u8], out: &mut [i32]) -> usize {
    let mut pos = 0;
    for (i, slot) in out.iter_mut().enumerate() {
        if i > 0 {
            if b.get(pos) != Some(&seps[i - 1]) {
                return i;
            }
            pos += 1;
        }
        let p = strtol(&b[pos..]);
        if !p.digits {
            return i;
        }
        *slot = p.value as i32;
        pos += p.end;
    }
    out.len()
}

/// `time_str2secs`: seconds, `Infinite`, or `None` for an invalid string (Slurm's NO_VAL).
pub fn time_str2secs(s: &str) -> Option<Duration> {
    let b = c_bytes(s);
    if b.is_empty() {
        return None;
    }
    if b == b"-1" || b.eq_ignore_ascii_case(b"INFINITE") || b.eq_ignore_ascii_case(b"UNLIMITED") {
        return Some(Duration::Infinite);
    }
    if !valid_timespec(b) {
        return None;
    }
    let total = if b.contains(&b'-') {
        let mut f = [0i32; 4];
        scan_ints(b, b"-::", &mut f);
        let [d, h, m, s] = f;
        d.wrapping_mul(86400)
            .wrapping_add(h.wrapping_mul(3600))
            .wrapping_add(m.wrapping_mul(60))
            .wrapping_add(s)
    } else {
        let mut f = [0i32; 3];
        if scan_ints(b, b"::", &mut f) == 3 {
            let [h, m, s] = f;
            h.wrapping_mul(3600)
                .wrapping_add(m.wrapping_mul(60))
                .wrapping_add(s)
        } else {
            // minutes[:seconds]
            let [m, s, _] = f;
            m.wrapping_mul(60).wrapping_add(s)
        }
    };
    // The C caller cannot tell a computed -1/-2 from INFINITE/NO_VAL.
    match total {
        INFINITE_INT => Some(Duration::Infinite),
        NO_VAL_INT => None,
        v => Some(Duration::Value(v)),
    }
}

/// `time_str2mins`: like [`time_str2secs`], with seconds rounded up to whole minutes.
pub fn time_str2mins(s: &str) -> Option<Duration> {
    match time_str2secs(s)? {
        Duration::Infinite => Some(Duration::Infinite),
        Duration::Value(secs) => match secs.wrapping_add(59) / 60 {
            INFINITE_INT => Some(Duration::Infinite),
            NO_VAL_INT => None,
            m => Some(Duration::Value(m)),
        },
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

    fn secs(s: &str) -> Option<Duration> {
        time_str2secs(s)
    }
    fn v(n: i32) -> Option<Duration> {
        Some(Duration::Value(n))
    }

    #[test]
    fn infinite_words() {
        for s in ["-1", "INFINITE", "infinite", "Unlimited", "UNLIMITED"] {
            assert_eq!(secs(s), Some(Duration::Infinite), "{s}");
        }
        assert_eq!(secs("infinity"), None);
    }

    #[test]
    fn every_accepted_form() {
        assert_eq!(secs("5"), v(300));
        assert_eq!(secs("5:30"), v(330));
        assert_eq!(secs("1:02:03"), v(3723));
        assert_eq!(secs("2-3"), v(2 * 86400 + 3 * 3600));
        assert_eq!(secs("2-3:04"), v(2 * 86400 + 3 * 3600 + 240));
        assert_eq!(secs("2-3:04:05"), v(2 * 86400 + 3 * 3600 + 245));
        assert_eq!(secs("0"), v(0));
        assert_eq!(secs("0:01"), v(1));
        assert_eq!(secs("90"), v(5400));
        assert_eq!(secs("007"), v(420));
        // One dash and no hours: sscanf stops after the days.
        assert_eq!(secs("5-"), v(5 * 86400));
        // A leading dash is read by %d as a sign.
        assert_eq!(secs("-3"), v(-3 * 86400));
        assert_eq!(secs("-0"), v(0));
    }

    #[test]
    fn every_rejected_form() {
        for s in [
            "", "abc", "1h", "1:", ":1", "1::2", "1:2:", "1:2:3:4", "1-2-3", "1:2-3", "-", "--5",
            "1-:2", "1-2:", "1-2::3", " 5", "5 ", "+5", "1.5", "-1:2", "-1:2:3", "-1:",
        ] {
            assert_eq!(secs(s), None, "{s:?}");
        }
    }

    #[test]
    fn minutes_round_up() {
        assert_eq!(time_str2mins("0:01"), v(1));
        assert_eq!(time_str2mins("0:59"), v(1));
        assert_eq!(time_str2mins("1:00"), v(1));
        assert_eq!(time_str2mins("1:01"), v(2));
        assert_eq!(time_str2mins("10"), v(10));
        assert_eq!(time_str2mins("1-0"), v(1440));
        assert_eq!(time_str2mins("UNLIMITED"), Some(Duration::Infinite));
        assert_eq!(time_str2mins("x"), None);
        // C division truncates toward zero: (-172800 + 59) / 60.
        assert_eq!(time_str2mins("-2"), v(-2879));
    }

    #[test]
    fn overflow_wraps_like_c() {
        // 30000 days overflows a 32-bit int of seconds and wraps.
        assert_eq!(secs("30000-0"), v(30000i32.wrapping_mul(86400)));
        assert!(secs("99999999999999999999").is_some());
    }

    #[test]
    fn parses_time_limits() {
        let m = |n| Some(TimeLimit::Minutes(n));
        assert_eq!(TimeLimit::parse("10"), m(10));
        assert_eq!(TimeLimit::parse("1:30"), m(2));
        assert_eq!(TimeLimit::parse("1-00:00:00"), m(1440));
        assert_eq!(TimeLimit::parse("2-3"), m(2 * 1440 + 180));
        assert_eq!(TimeLimit::parse("UNLIMITED"), Some(TimeLimit::Infinite));
        assert_eq!(TimeLimit::parse("0"), Some(TimeLimit::Infinite));
        assert_eq!(TimeLimit::parse("-3"), m(-4319i32 as u32));
        assert_eq!(TimeLimit::parse("abc"), None);
        assert_eq!(TimeLimit::parse("1:2:3:4"), None);
    }

    #[test]
    fn partition_limits_apply_to_a_job() {
        let m = TimeLimit::Minutes;
        let part = PartitionTimes {
            max_time: m(30),
            default_time: Some(m(10)),
        };
        assert_eq!(part.apply(None), Ok(m(10)));
        assert_eq!(part.apply(Some(m(30))), Ok(m(30)));
        assert_eq!(part.apply(Some(m(31))), Err(ExceedsMaxTime));
        assert_eq!(
            part.apply(Some(TimeLimit::Infinite)),
            Ok(TimeLimit::Infinite)
        );
        let no_default = PartitionTimes {
            default_time: None,
            ..part
        };
        assert_eq!(no_default.apply(None), Ok(m(30)));
        let open = PartitionTimes {
            max_time: TimeLimit::Infinite,
            default_time: None,
        };
        assert_eq!(open.apply(Some(m(u32::MAX - 1))), Ok(m(u32::MAX - 1)));
        assert_eq!(open.apply(None), Ok(TimeLimit::Infinite));
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
