//! Node counts for `-N/--nodes`: Slurm 22.05's `verify_node_count` (`src/common/proc_args.c`).
//!
//! Forms: `N` or `min-max`, each number read by `strtol` and optionally followed by `k`
//! (×1024) and then `m` (×1048576), then only blanks. An empty minimum means 1 (`-5` is
//! `1-5`); a maximum of 0 means "no maximum". Node-count *lists* (`1,4,8`, `2-8:2`) came
//! in later Slurm versions; 22.05 rejects them with `"1,4,8" is not a valid node count`.

use super::ValueError;
use crate::model::cnum::{c_bytes, is_whitespace, strtol};
use std::fmt;

/// A `-N` request. `max == 0` means no maximum (Slurm's reset state is `1`/`0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeCount {
    pub min: i32,
    pub max: i32,
}

impl fmt::Display for NodeCount {
    /// `arg_get_nodes`: `N` or `min-max`, as `--verbose` echoes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min != self.max {
            write!(f, "{}-{}", self.min, self.max)
        } else {
            write!(f, "{}", self.min)
        }
    }
}

/// `_str_to_nodes`: the number (or -1 when there are no digits) and the unparsed rest.
fn str_to_nodes(b: &[u8]) -> (i32, &[u8]) {
    let p = strtol(b);
    if !p.digits {
        return (-1, b);
    }
    let mut num = p.value;
    let mut rest = &b[p.end..];
    if let Some(b'k' | b'K') = rest.first() {
        num = num.wrapping_mul(1024);
        rest = &rest[1..];
    }
    if let Some(b'm' | b'M') = rest.first() {
        num = num.wrapping_mul(1024 * 1024);
        rest = &rest[1..];
    }
    (num as i32, rest)
}

fn not_valid(part: &[u8]) -> ValueError {
    ValueError::invalid(format!(
        "\"{}\" is not a valid node count",
        String::from_utf8_lossy(part)
    ))
}

/// `verify_node_count` for `-N`. Errors (exit 255):
/// `"<x>" is not a valid node count` (naming the bad half of a range) and
/// `Maximum node count <max> is less than minimum node count <min>`.
pub fn parse_node_count(s: &str) -> Result<NodeCount, ValueError> {
    let b = c_bytes(s);
    let (min, max) = if let Some(dash) = b.iter().position(|&c| c == b'-') {
        let (min_str, max_str) = (&b[..dash], &b[dash + 1..]);
        let (mut min, rest) = str_to_nodes(min_str);
        if !is_whitespace(rest) {
            return Err(not_valid(min_str));
        }
        if min < 0 {
            min = 1;
        }
        let (max, rest) = str_to_nodes(max_str);
        if !is_whitespace(rest) {
            return Err(not_valid(max_str));
        }
        (min, max)
    } else {
        let (n, rest) = str_to_nodes(b);
        if !is_whitespace(rest) || n < 0 {
            return Err(not_valid(b));
        }
        (n, n)
    };
    if max != 0 && max < min {
        return Err(ValueError::invalid(format!(
            "Maximum node count {max} is less than minimum node count {min}"
        )));
    }
    Ok(NodeCount { min, max })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn ok(s: &str) -> (i32, i32) {
        let n = parse_node_count(s).unwrap();
        (n.min, n.max)
    }
    fn err(s: &str) -> String {
        let e = parse_node_count(s).unwrap_err();
        assert_eq!(e.exit_code(1), 255);
        e.message().to_string()
    }

    #[test]
    fn accepted_forms() {
        assert_eq!(ok("2"), (2, 2));
        assert_eq!(ok("0"), (0, 0));
        assert_eq!(ok("2-4"), (2, 4));
        assert_eq!(ok("2-0"), (2, 0));
        assert_eq!(ok("-5"), (1, 5));
        assert_eq!(ok("0-5"), (0, 5));
        assert_eq!(ok("1k"), (1024, 1024));
        assert_eq!(ok("1K-2k"), (1024, 2048));
        assert_eq!(ok("1m"), (1048576, 1048576));
        assert_eq!(ok(" 3 "), (3, 3));
        assert_eq!(ok("+3"), (3, 3));
        assert_eq!(ok("3-3"), (3, 3));
    }

    #[test]
    fn rejected_forms() {
        assert_eq!(err(""), "\"\" is not a valid node count");
        assert_eq!(err("abc"), "\"abc\" is not a valid node count");
        assert_eq!(err("1,4,8"), "\"1,4,8\" is not a valid node count");
        assert_eq!(err("2x"), "\"2x\" is not a valid node count");
        assert_eq!(err("a-4"), "\"a\" is not a valid node count");
        assert_eq!(err("2-b"), "\"b\" is not a valid node count");
        assert_eq!(err("2-8:2"), "\"8:2\" is not a valid node count");
        assert_eq!(err("1.5"), "\"1.5\" is not a valid node count");
        assert_eq!(
            err("4-2"),
            "Maximum node count 2 is less than minimum node count 4"
        );
        assert_eq!(
            err("5-"),
            "Maximum node count -1 is less than minimum node count 5"
        );
        assert_eq!(
            err("--5"),
            "Maximum node count -5 is less than minimum node count 1"
        );
    }

    #[test]
    fn echo() {
        assert_eq!(NodeCount { min: 2, max: 2 }.to_string(), "2");
        assert_eq!(NodeCount { min: 2, max: 4 }.to_string(), "2-4");
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(5, "0123456789kKmM", 16, 20000) {
            let _ = parse_node_count(&s);
        }
    }
}
