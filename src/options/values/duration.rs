//! The `--time`, `--time-min` and `--delay-boot` set functions (`src/common/slurm_opt.c`):
//! Slurm's `time_str2mins` / `time_str2secs` (in [`crate::model::time_limit`], where the
//! backends read a partition's limits with them too) and the error each option gives.

use super::ValueError;
use crate::model::TimeLimit;
use crate::model::time_limit::{Duration, time_str2secs};

/// `--time` / `--time-min` (`arg_set_time_limit`, `arg_set_time_min`): minutes, with `0`
/// meaning infinite. `option` is `--time` or `--time-min` and names the error:
/// `Invalid --time specification` (exit 255).
/// A negative result is kept as Slurm keeps it ([`TimeLimit::parse`]).
pub fn parse_time_limit(s: &str, option: &str) -> Result<TimeLimit, ValueError> {
    TimeLimit::parse(s).ok_or_else(|| ValueError::invalid_spec(option))
}

/// A seconds-valued option such as `--delay-boot` (`Invalid --delay-boot specification`).
pub fn parse_seconds(s: &str, option: &str) -> Result<Duration, ValueError> {
    time_str2secs(s).ok_or_else(|| ValueError::invalid_spec(option))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::time_limit::time_str2mins;
    use crate::options::values::fuzz;

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
