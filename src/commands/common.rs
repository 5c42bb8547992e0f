//! Glue shared by the query commands: version text, Slurm's message prefixes, the clock,
//! and `-M`/SLURM_CLUSTERS handling.

use crate::cli::Invocation;
use crate::format::common::Clock;
use crate::model::TimeFormat;

/// `print_slurm_version`: `--version`/`-V` of every command, the profile's release.
pub fn print_version(inv: &mut Invocation) {
    let _ = writeln!(inv.out, "{}", inv.profile.release.version_line());
}

/// `--json[=data_parser]`/`--yaml[=data_parser]` under the profile. 22.05 has one fixed
/// document (openapi/v0.0.38): Ok(None). A release with data_parser plugins lists them for
/// `list` (the header on stderr, as `data_parser_g_new` prints it) and ends, and otherwise
/// names the plugin asked for (the default when none is). The Err is the exit status.
pub fn data_parser(
    inv: &mut Invocation,
    arg: &str,
) -> Result<Option<crate::format::openapi::data_parser::Parser>, i32> {
    use crate::format::openapi::data_parser::Parser;
    let parsers = inv.profile.data_parsers;
    let Some(default) = parsers.first() else {
        return Ok(None);
    };
    if arg == "list" {
        raw_err(inv, "Possible data_parser plugins:");
        let mut listed = format!("data_parser/{default}\n");
        let mut rest: Vec<&str> = parsers[1..].to_vec();
        rest.sort_unstable();
        for p in rest {
            listed.push_str(&format!("data_parser/{p}\n"));
        }
        out(inv, listed.as_bytes());
        return Err(0);
    }
    let wanted = arg.strip_prefix("data_parser/").unwrap_or(arg);
    let wanted = if wanted.is_empty() { *default } else { wanted };
    match Parser::parse(wanted).filter(|_| parsers.contains(&wanted)) {
        Some(p) => Ok(Some(p)),
        None => {
            inv.error(&format!(
                "Unable to find data_parser plugin \"{wanted}\" (use --json=list)"
            ));
            Err(1)
        }
    }
}

/// The command line as typed: the program and its arguments.
pub fn command_line(inv: &Invocation) -> Vec<String> {
    let mut words = vec![inv.prog.to_string()];
    words.extend(inv.args.iter().cloned());
    words
}

/// A data_parser document's `meta`: who runs the command, its command line `words` (as
/// 24.11 keeps them, [`command_words`]), the cluster and its default partition.
///
/// [`command_words`]: crate::format::openapi::data_parser::command_words
pub fn data_parser_client<'a>(
    inv: &'a Invocation,
    parser: crate::format::openapi::data_parser::Parser,
    words: &'a [String],
    cluster: &'a str,
    default_partition: Option<&'a str>,
) -> crate::format::openapi::data_parser::Client<'a> {
    crate::format::openapi::data_parser::Client {
        release: inv.profile.release,
        parser,
        user: &inv.user.name,
        group: &inv.user.group,
        argv: crate::format::openapi::data_parser::command_words(words),
        cluster,
        default_partition,
        now: inv.now,
    }
}

/// A data_parser document bai-slurm does not build yet: said, not faked (22.05's shape
/// would be misread by a 24.11 client).
pub fn data_parser_not_produced(
    inv: &mut Invocation,
    parser: crate::format::openapi::data_parser::Parser,
) -> i32 {
    inv.error(&format!(
        "{} documents of this command (Slurm {}) are not produced by bai-slurm yet",
        parser.name(),
        inv.profile.release.series()
    ));
    1
}

/// Writes bytes to stdout. A closed pipe (`squeue | head`) is not an error worth reporting.
pub fn out(inv: &mut Invocation, bytes: &[u8]) {
    let _ = inv.out.write_all(bytes);
}

/// `prog: fatal: msg`; Slurm's `fatal()` exits 1 afterwards.
pub fn fatal(inv: &mut Invocation, msg: &str) -> i32 {
    let _ = writeln!(inv.err, "{}: fatal: {msg}", inv.prog);
    1
}

/// `prog: msg`: Slurm's `info()` level.
pub fn info(inv: &mut Invocation, msg: &str) {
    let _ = writeln!(inv.err, "{}: {msg}", inv.prog);
}

/// A line without any prefix (`slurm_perror`, bare `fprintf(stderr, ...)`).
pub fn raw_err(inv: &mut Invocation, msg: &str) {
    let _ = writeln!(inv.err, "{msg}");
}

/// The clock for timestamps, honouring SLURM_TIME_FORMAT; reports a value Slurm rejects.
pub fn clock(inv: &mut Invocation) -> Clock {
    let (time_format, problem) = TimeFormat::from_env_value(inv.var("SLURM_TIME_FORMAT"));
    if let Some(p) = problem {
        inv.error(&p);
    }
    Clock {
        now: inv.now,
        time_format,
    }
}

/// `-M`/SLURM_CLUSTERS: only the cluster we talk to can be named (or `all`). Returns the
/// cluster names to report, or the error Slurm prints (`print_db_notok`).
pub fn clusters(list: &str, ours: &str, from_env: bool) -> Result<Vec<String>, String> {
    let names: Vec<&str> = list.split(',').filter(|s| !s.is_empty()).collect();
    let mut out = Vec::new();
    for name in &names {
        if name.eq_ignore_ascii_case("all") || *name == ours {
            if !out.iter().any(|o: &String| o == ours) {
                out.push(ours.to_string());
            }
        } else {
            return Err(format!(
                "'{list}' can't be reached now, or it is an invalid entry for {}.  Use 'sacctmgr list clusters' to see available clusters.",
                if from_env {
                    "SLURM_CLUSTERS"
                } else {
                    "--cluster"
                }
            ));
        }
    }
    if out.is_empty() {
        out.push(ours.to_string());
    }
    Ok(out)
}

/// Splits a comma list the way `strtok(str, ",")` does (empty items vanish).
pub fn comma_list(s: &str) -> Vec<String> {
    s.split(',')
        .filter(|t| !t.is_empty())
        .map(String::from)
        .collect()
}

/// The first of the comma-separated ranges inside one hostlist bracket that Slurm's
/// `_parse_single_range` refuses (it then logs "_parse_single_range: Invalid range:
/// `<range>'"): a start read by `strtoul` with nothing after it but `-` and an end read
/// the same way, no `x`, no second `-` right after the first, and start <= end.
pub fn bad_hostlist_range(inner: &str) -> Option<&str> {
    use crate::model::cnum::strtol;
    let ok = |r: &str| -> bool {
        if r.contains('x') {
            return false;
        }
        let (lo_s, hi_s) = match r.split_once('-') {
            Some((_, h)) if h.starts_with('-') => return false,
            Some((l, h)) => (l, Some(h)),
            None => (r, None),
        };
        let (lo, used) = strtol(lo_s.as_bytes()).value_and_end();
        if used == 0 || used != lo_s.len() || lo < 0 {
            return false;
        }
        match hi_s {
            None | Some("") => true,
            Some(h) => {
                let (hi, used) = strtol(h.as_bytes()).value_and_end();
                used != 0 && used == h.len() && hi >= lo
            }
        }
    };
    inner.split(',').find(|r| !ok(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostlist_ranges_slurm_refuses() {
        for (inner, bad) in [
            ("", Some("")),
            ("1-3", None),
            ("1-3,5", None),
            ("1-3:2", Some("1-3:2")),
            ("3-1", Some("3-1")),
            ("1,,2", Some("")),
            ("1--2", Some("1--2")),
            ("a", Some("a")),
            ("1-", None),
        ] {
            assert_eq!(bad_hostlist_range(inner), bad, "{inner:?}");
        }
    }
}
