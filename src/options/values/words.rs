//! Small keyword values of options bai-slurm ignores, checked as their Slurm 22.05.8 set
//! functions check them (`src/common/slurm_opt.c`, `src/common/proc_args.c`,
//! `src/common/slurm_acct_gather_profile.c`). Every failure here is a set function's
//! `SLURM_ERROR` (or `exit(-1)`): one `error:` line, exit 255.

use super::ValueError;
use crate::model::cnum::{c_bytes, strtol};

/// `--gres-flags` (`arg_set_gres_flags`): `disable-binding` or `enforce-binding`, any case.
pub fn parse_gres_flags(s: &str) -> Result<(), ValueError> {
    let v = String::from_utf8_lossy(c_bytes(s)).to_ascii_lowercase();
    match v.as_str() {
        "disable-binding" | "enforce-binding" => Ok(()),
        _ => Err(ValueError::invalid_spec("--gres-flags")),
    }
}

/// `-k/--no-kill[=set|off|no]` (`arg_set_no_kill`): no value or `set` sets it, `off` or
/// `no` clears it (any case). Returns whether the flag is set.
pub fn parse_no_kill(s: Option<&str>) -> Result<bool, ValueError> {
    let Some(s) = s else { return Ok(true) };
    match String::from_utf8_lossy(c_bytes(s))
        .to_ascii_lowercase()
        .as_str()
    {
        "set" => Ok(true),
        "off" | "no" => Ok(false),
        _ => Err(ValueError::invalid_spec("--no-kill")),
    }
}

/// `--get-user-env[=timeout][mode]` (`arg_set_get_user_env`): a `strtol` number (maybe
/// none at all) and then nothing, or `s`/`S`/`l`/`L` followed by anything.
pub fn parse_get_user_env(s: Option<&str>) -> Result<(), ValueError> {
    let Some(s) = s else { return Ok(()) };
    let b = c_bytes(s);
    let p = strtol(b);
    match b.get(p.end) {
        None | Some(b's' | b'S' | b'l' | b'L') => Ok(()),
        Some(_) => Err(ValueError::invalid_spec("--get-user-env")),
    }
}

/// `--accel-bind` (`arg_set_accel_bind_type`): valid when it contains `v`, `g` or `n`
/// anywhere (case matters).
pub fn parse_accel_bind(s: &str) -> Result<(), ValueError> {
    if c_bytes(s).iter().any(|c| matches!(c, b'v' | b'g' | b'n')) {
        Ok(())
    } else {
        Err(ValueError::invalid_spec("--accel-bind"))
    }
}

/// `--send-libs[=yes|no]` (`parse_send_libs`): `yes`/`y`/`no`/`n`, any case, or nothing.
pub fn parse_send_libs(s: Option<&str>) -> Result<bool, ValueError> {
    let Some(s) = s else { return Ok(true) };
    match String::from_utf8_lossy(c_bytes(s))
        .to_ascii_lowercase()
        .as_str()
    {
        "yes" | "y" => Ok(true),
        "no" | "n" => Ok(false),
        _ => Err(ValueError::invalid_spec("--send-libs")),
    }
}

/// `--profile` (`acct_gather_profile_from_string`): valid when it *contains* (any case)
/// `none`, `all`, `energy`, `task`, `lustre` or `network`; otherwise
/// `invalid --profile=<value> option`.
pub fn parse_profile(s: &str) -> Result<(), ValueError> {
    let v = String::from_utf8_lossy(c_bytes(s)).to_ascii_lowercase();
    let known = ["none", "all", "energy", "task", "lustre", "network"];
    if known.iter().any(|k| v.contains(k)) {
        Ok(())
    } else {
        Err(ValueError::invalid(format!("invalid --profile={s} option")))
    }
}

/// `--wait-all-nodes` (`arg_set_wait_all_nodes`): a `parse_int` number (exit 1 when not a
/// number), kept in 16 bits, that must then be 0 or 1.
pub fn parse_wait_all_nodes(s: &str) -> Result<bool, ValueError> {
    let n = super::int::parse_int("--wait-all-nodes", s, false)? as u16;
    if n > 1 {
        return Err(ValueError::invalid_spec("--wait-all-nodes"));
    }
    Ok(n == 1)
}

/// `--switches=count[@max-time]` (`arg_set_switches`): the count is a positive
/// `parse_int`; the time after `@` is read by `time_str2secs` and never refused.
pub fn parse_switches(s: &str) -> Result<i32, ValueError> {
    let count = s.split_once('@').map_or(s, |(c, _)| c);
    super::int::parse_int("--switches", count, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn gres_flags() {
        assert!(parse_gres_flags("Enforce-Binding").is_ok());
        assert!(parse_gres_flags("disable-binding").is_ok());
        let e = parse_gres_flags("enforce").unwrap_err();
        assert_eq!(e.message(), "Invalid --gres-flags specification");
        assert_eq!(e.exit_code(1), 255);
    }

    #[test]
    fn no_kill() {
        assert_eq!(parse_no_kill(None), Ok(true));
        assert_eq!(parse_no_kill(Some("SET")), Ok(true));
        assert_eq!(parse_no_kill(Some("off")), Ok(false));
        assert_eq!(parse_no_kill(Some("No")), Ok(false));
        for bad in ["", "yes", "x"] {
            let e = parse_no_kill(Some(bad)).unwrap_err();
            assert_eq!(e.message(), "Invalid --no-kill specification");
        }
    }

    #[test]
    fn get_user_env() {
        for ok in [
            None,
            Some(""),
            Some("10"),
            Some("10L"),
            Some("s"),
            Some("5Sx"),
            Some(" -3"),
        ] {
            assert!(parse_get_user_env(ok).is_ok(), "{ok:?}");
        }
        for bad in ["x", "10x", "10 ", "1.5"] {
            let e = parse_get_user_env(Some(bad)).unwrap_err();
            assert_eq!(e.message(), "Invalid --get-user-env specification");
            assert_eq!(e.exit_code(1), 255);
        }
    }

    #[test]
    fn accel_bind_and_send_libs() {
        assert!(parse_accel_bind("g").is_ok());
        assert!(parse_accel_bind("xxnxx").is_ok());
        assert!(parse_accel_bind("V").is_err());
        assert_eq!(parse_send_libs(Some("Y")), Ok(true));
        assert_eq!(parse_send_libs(Some("no")), Ok(false));
        assert_eq!(
            parse_send_libs(Some("x")).unwrap_err().message(),
            "Invalid --send-libs specification"
        );
    }

    #[test]
    fn profile() {
        for ok in ["none", "All", "task,energy", "xTaskx", "Network"] {
            assert!(parse_profile(ok).is_ok(), "{ok}");
        }
        let e = parse_profile("x").unwrap_err();
        assert_eq!(e.message(), "invalid --profile=x option");
        assert_eq!(e.exit_code(1), 255);
    }

    #[test]
    fn wait_all_nodes_and_switches() {
        assert_eq!(parse_wait_all_nodes("1"), Ok(true));
        assert_eq!(parse_wait_all_nodes("0"), Ok(false));
        // Kept in 16 bits: 65536 is 0.
        assert_eq!(parse_wait_all_nodes("65536"), Ok(false));
        let e = parse_wait_all_nodes("2").unwrap_err();
        assert_eq!(
            (e.message(), e.exit_code(1)),
            ("Invalid --wait-all-nodes specification", 255)
        );
        let e = parse_wait_all_nodes("x").unwrap_err();
        assert_eq!(e.exit_code(255), 1);
        assert_eq!(parse_switches("2@x"), Ok(2));
        assert_eq!(
            parse_switches("x@1").unwrap_err().message(),
            "Invalid numeric value \"x\" for --switches."
        );
        assert!(parse_switches("0").is_err());
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(41, "settaskenergy0123sSlL@,:-", 20, 3000) {
            let _ = parse_gres_flags(&s);
            let _ = parse_no_kill(Some(&s));
            let _ = parse_get_user_env(Some(&s));
            let _ = parse_profile(&s);
            let _ = parse_switches(&s);
            let _ = parse_wait_all_nodes(&s);
        }
    }
}
