//! Duration strings: Slurm's `time_str2secs` / `time_str2mins` (`src/common/parse_time.c`)
//! and the `--time`, `--time-min`, `--delay-boot` set functions (`src/common/slurm_opt.c`).
//!
//! Accepted: `-1`, `INFINITE`, `UNLIMITED` (any case) = infinite; `M`, `M:S`, `H:M:S`,
//! `D-H`, `D-H:M`, `D-H:M:S`. Only digits, `-` and `:` may appear, at most one `-` and two
//! `:`, no `-` after a `:`, and enough numbers for the colons (`_is_valid_timespec`).
//! The fields are read with `sscanf("%d")`, so `5-` is 5 days and `-3` is minus 3 days;
//! arithmetic is 32-bit and wraps as the C code does.

use super::ValueError;
use crate::model::TimeLimit;
use crate::model::cnum::{c_bytes, strtol};

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

/// `--time` / `--time-min` (`arg_set_time_limit`, `arg_set_time_min`): minutes, with `0`
/// meaning infinite. `option` is `--time` or `--time-min` and names the error:
/// `Invalid --time specification` (exit 255).
///
/// Slurm keeps a negative result (`-3` = minus 3 days) and sends it as an unsigned 32-bit
/// number of minutes; we do the same, so `-3` becomes a limit of 4294963016 minutes.
pub fn parse_time_limit(s: &str, option: &str) -> Result<TimeLimit, ValueError> {
    match time_str2mins(s) {
        None => Err(ValueError::invalid_spec(option)),
        Some(Duration::Infinite) | Some(Duration::Value(0)) => Ok(TimeLimit::Infinite),
        Some(Duration::Value(m)) => Ok(TimeLimit::Minutes(m as u32)),
    }
}

/// A seconds-valued option such as `--delay-boot` (`Invalid --delay-boot specification`).
pub fn parse_seconds(s: &str, option: &str) -> Result<Duration, ValueError> {
    time_str2secs(s).ok_or_else(|| ValueError::invalid_spec(option))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

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
    fn time_limit_option() {
        assert_eq!(parse_time_limit("10", "--time"), Ok(TimeLimit::Minutes(10)));
        assert_eq!(
            parse_time_limit("0:01", "--time"),
            Ok(TimeLimit::Minutes(1))
        );
        assert_eq!(parse_time_limit("0", "--time"), Ok(TimeLimit::Infinite));
        assert_eq!(parse_time_limit("0:00", "--time"), Ok(TimeLimit::Infinite));
        assert_eq!(parse_time_limit("-1", "--time"), Ok(TimeLimit::Infinite));
        assert_eq!(
            parse_time_limit("1-00:00:00", "--time"),
            Ok(TimeLimit::Minutes(1440))
        );
        assert_eq!(
            parse_time_limit("-3", "--time"),
            Ok(TimeLimit::Minutes(-4319i32 as u32))
        );
        let e = parse_time_limit("abc", "--time").unwrap_err();
        assert_eq!(e.message(), "Invalid --time specification");
        assert_eq!(e.exit_code(1), 255);
        assert_eq!(
            parse_time_limit("x", "--time-min").unwrap_err().message(),
            "Invalid --time-min specification"
        );
    }

    #[test]
    fn seconds_option() {
        assert_eq!(
            parse_seconds("2:00", "--delay-boot"),
            Ok(Duration::Value(120))
        );
        assert_eq!(
            parse_seconds("no", "--delay-boot").unwrap_err().message(),
            "Invalid --delay-boot specification"
        );
    }

    #[test]
    fn matches_real_slurm_22_05_8() {
        // `scontrol show job` on 22.05.8 showed TimeLimit=2982613-04:17:00 for --time=-3
        // and 2962905-21:49:00 for --time=30000-0.
        assert_eq!(
            parse_time_limit("-3", "--time"),
            Ok(TimeLimit::Minutes(2982613 * 1440 + 4 * 60 + 17))
        );
        assert_eq!(
            parse_time_limit("30000-0", "--time"),
            Ok(TimeLimit::Minutes(2962905 * 1440 + 21 * 60 + 49))
        );
        assert_eq!(
            parse_time_limit("5-", "--time"),
            Ok(TimeLimit::Minutes(5 * 1440))
        );
    }

    #[test]
    fn overflow_wraps_like_c() {
        // 30000 days overflows a 32-bit int of seconds and wraps.
        assert_eq!(secs("30000-0"), v(30000i32.wrapping_mul(86400)));
        assert!(secs("99999999999999999999").is_some());
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(7, "0123456789-:", 12, 20000) {
            let _ = time_str2mins(&s);
            let _ = parse_time_limit(&s, "--time");
        }
        for s in fuzz::strings(8, "0123456789-:INFTUL", 12, 5000) {
            let _ = time_str2secs(&s);
        }
    }
}
