//! `-B/--extra-node-info=S[:C[:T]]`: Slurm's `verify_socket_core_thread_count` with
//! `get_resource_arg_range` (`src/common/proc_args.c`).
//!
//! Up to three `:`-separated fields (anything after a third `:` is ignored), each empty,
//! `*`, `N` or `min-max`; numbers are `strtol` with an optional `k` (×1024) or `m`
//! (×1048576). The first bad field ends the command with exit 1:
//! `Invalid numeric value "<field>" for first arg of -B.` (or `second`, `third`), or
//! `Numeric argument (<n>) to big for first arg of -B.`

use super::ValueError;
use crate::model::cnum::{c_bytes, strtol};

/// One `get_resource_arg_range` number and suffix: (value, rest).
fn number(b: &[u8]) -> (i64, &[u8]) {
    let p = strtol(b);
    let (mut v, mut rest) = (p.value, &b[p.end..]);
    match rest.first() {
        Some(b'k' | b'K') => {
            v = v.wrapping_mul(1024);
            rest = &rest[1..];
        }
        Some(b'm' | b'M') => {
            v = v.wrapping_mul(1_048_576);
            rest = &rest[1..];
        }
        _ => {}
    }
    (v, rest)
}

/// `get_resource_arg_range(field, what, ..., isFatal = true)`.
fn range(field: &[u8], what: &str) -> Result<(), ValueError> {
    if field.is_empty() || field[0] == b'*' {
        return Ok(());
    }
    let bad = || {
        ValueError::Numeric(format!(
            "Invalid numeric value \"{}\" for {what}.",
            String::from_utf8_lossy(field)
        ))
    };
    let big = |n: i64| ValueError::Numeric(format!("Numeric argument ({n}) to big for {what}."));
    let (min, rest) = number(field);
    if !(rest.is_empty() || rest[0] == b'-') || min < 0 {
        return Err(bad());
    } else if min > i64::from(i32::MAX) {
        return Err(big(min));
    }
    let Some(rest) = rest.strip_prefix(b"-") else {
        return Ok(());
    };
    let (max, rest) = number(rest);
    if !(rest.is_empty() || rest[0] == b'-') || max <= 0 {
        return Err(bad());
    } else if max > i64::from(i32::MAX) {
        return Err(big(max));
    }
    Ok(())
}

pub fn parse_extra_node_info(s: &str) -> Result<(), ValueError> {
    let mut b = c_bytes(s);
    let mut fields: [&[u8]; 3] = [b"", b"", b""];
    for field in fields.iter_mut() {
        // At most 47 characters go into each field's buffer.
        let n = b
            .iter()
            .take(47)
            .position(|&c| c == b':')
            .unwrap_or(b.len().min(47));
        *field = &b[..n];
        if n == b.len() {
            break;
        }
        // The `:` (or, past 47 characters, whatever comes next) is skipped.
        b = &b[n + 1..];
    }
    range(fields[0], "first arg of -B")?;
    range(fields[1], "second arg of -B")?;
    range(fields[2], "third arg of -B")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn accepted() {
        for ok in [
            "2",
            "2:4",
            "2:4:2",
            "*:*:1",
            "1-2:2k:1m",
            "2:2:2:2",
            "",
            "2:",
            "1-2-",
        ] {
            assert_eq!(parse_extra_node_info(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejected() {
        for (s, msg) in [
            ("x", "Invalid numeric value \"x\" for first arg of -B."),
            ("2:x", "Invalid numeric value \"x\" for second arg of -B."),
            (
                "2:2:-1",
                "Invalid numeric value \"-1\" for third arg of -B.",
            ),
            ("2-0", "Invalid numeric value \"2-0\" for first arg of -B."),
            (
                "3000000k",
                "Numeric argument (3072000000) to big for first arg of -B.",
            ),
        ] {
            let e = parse_extra_node_info(s).unwrap_err();
            assert_eq!((e.message(), e.exit_code(255)), (msg, 1), "{s}");
        }
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(59, "0123456789:*-kKmMx", 80, 5000) {
            let _ = parse_extra_node_info(&s);
        }
    }
}
