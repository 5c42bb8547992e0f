//! Integer option values: Slurm's `parse_int` (`src/common/proc_args.c`), used by `-n`,
//! `-c`, `--ntasks-per-node`, `--cpus-per-gpu`, `--mincpus`, `--threads-per-core`, ... .
//!
//! The value is read with `strtol`, so leading blanks and a sign are accepted (`" +4"` is
//! 4) but nothing may follow the digits. Negative values are refused; when `positive`,
//! zero is refused too. An empty string reads as 0. Errors end the command with exit
//! status 1, not the 255 of other option errors:
//! `Invalid numeric value "X" for --ntasks.`

use super::ValueError;
use crate::model::cnum::{c_bytes, strtol};

/// `parse_int(name, val, positive)`. `name` is how Slurm names the option in the message
/// (`--ntasks`, `--cpus-per-task`, ...).
///
/// A value above `i32::MAX` that still fits a C `long` is silently truncated to 32 bits,
/// as Slurm's `(int)` cast does (`4294967297` → 1); values over `i64::MAX` give Slurm's
/// `Numeric argument (9223372036854775807) to big for <name>.`
pub fn parse_int(name: &str, val: &str, positive: bool) -> Result<i32, ValueError> {
    let b = c_bytes(val);
    let p = strtol(b);
    let complete = if p.digits {
        p.end == b.len()
    } else {
        b.is_empty()
    };
    if !complete || p.value < 0 || (positive && p.value <= 0) {
        return Err(ValueError::Numeric(format!(
            "Invalid numeric value \"{val}\" for {name}."
        )));
    }
    if p.value == i64::MAX {
        return Err(ValueError::Numeric(format!(
            "Numeric argument ({}) to big for {name}.",
            i64::MAX
        )));
    }
    Ok(p.value as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn accepted() {
        assert_eq!(parse_int("--ntasks", "4", true), Ok(4));
        assert_eq!(parse_int("--ntasks", "  4", true), Ok(4));
        assert_eq!(parse_int("--ntasks", "+4", true), Ok(4));
        assert_eq!(parse_int("--ntasks", "0004", true), Ok(4));
        assert_eq!(parse_int("--core-spec", "0", false), Ok(0));
        assert_eq!(parse_int("--core-spec", "", false), Ok(0));
        assert_eq!(parse_int("--core-spec", "-0", false), Ok(0));
        assert_eq!(parse_int("--ntasks", "2147483647", true), Ok(i32::MAX));
        assert_eq!(parse_int("--ntasks", "4294967297", true), Ok(1));
    }

    #[test]
    fn rejected() {
        for (val, positive) in [
            ("0", true),
            ("", true),
            ("-1", true),
            ("-1", false),
            ("4 ", true),
            ("4x", true),
            ("x", false),
            ("1.5", true),
            ("0x10", true),
            ("+", false),
            (" ", false),
        ] {
            let e = parse_int("--ntasks", val, positive).unwrap_err();
            assert_eq!(
                e.message(),
                format!("Invalid numeric value \"{val}\" for --ntasks."),
                "{val:?}"
            );
            assert_eq!(e.exit_code(255), 1);
        }
    }

    #[test]
    fn too_big() {
        let e = parse_int("--ntasks", "99999999999999999999", true).unwrap_err();
        assert_eq!(
            e.message(),
            "Numeric argument (9223372036854775807) to big for --ntasks."
        );
        assert_eq!(e.exit_code(255), 1);
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(3, "0123456789", 24, 20000) {
            let _ = parse_int("-n", &s, true);
        }
    }
}
