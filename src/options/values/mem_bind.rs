//! `--mem-bind`: Slurm's `slurm_verify_mem_bind` with `_isvalue` and `_expand_mult`
//! (`src/common/slurm_resource_info.c`).
//!
//! A list of `p`/`prefer`, `sort`, `nosort`, `q`/`quiet`, `v`/`verbose`, `no`/`none`,
//! `rank`, `local` (any case), `map_mem:<list>` or `mask_mem:<list>` (also `mapmem`,
//! `maskmem`, by prefix, with `:` or `=`). Commas split the list unless what follows
//! looks like a value (a digit, or hex digits up to the next comma or the end). The first
//! bad word prints its error line and the command exits with 255.
//!
//! **Not reproduced:** `help` prints Slurm's help text on stdout and exits 255; here it
//! is accepted like a valid word.

use super::ValueError;
use crate::model::cnum::c_bytes;

/// `_isvalue`.
fn is_value(b: &[u8]) -> bool {
    if b.first().is_some_and(u8::is_ascii_digit) {
        return true;
    }
    let n = b.iter().take_while(|c| c.is_ascii_hexdigit()).count();
    matches!(b.get(n), None | Some(b','))
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `_expand_mult` as a check: the error line, if any.
fn expand_mult(list: &[u8], kind: &str) -> Option<String> {
    let mask = kind.starts_with("mask");
    let ok = |c: u8| {
        if mask {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    for tok in list.split(|&c| c == b',').filter(|t| !t.is_empty()) {
        let tok = if mask && tok.starts_with(b"0x") {
            &tok[2..]
        } else {
            tok
        };
        let (num, ast) = match tok.iter().position(|&c| c == b'*') {
            Some(a) => (&tok[..a], Some(&tok[a..])),
            None => (tok, None),
        };
        if let Some(ast) = ast {
            if let Some(&c) = ast[1..].iter().find(|c| !c.is_ascii_digit()) {
                return Some(format!(
                    "Failed to validate number: {}, the offending character is {}",
                    lossy(ast),
                    c as char
                ));
            }
            let count = crate::model::cnum::strtol(&ast[1..]);
            if count.value <= 0 || count.value == i64::MAX || !count.digits {
                return Some(format!("Invalid {kind} multiplier: {}", lossy(&ast[1..])));
            }
        }
        if let Some(&c) = num.iter().find(|&&c| !ok(c)) {
            return Some(format!(
                "Failed to validate number: {}, the offending character is {}",
                lossy(num),
                c as char
            ));
        }
    }
    None
}

fn prefix_ci(s: &[u8], p: &str) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

pub fn parse_mem_bind(s: &str) -> Result<(), ValueError> {
    let mut buf = c_bytes(s).to_vec();
    for i in 0..buf.len() {
        if buf[i] == b',' && !is_value(&buf[i + 1..]) {
            buf[i] = b';';
        }
    }
    for tok in buf.split(|&c| c == b';') {
        let word = lossy(tok).to_ascii_lowercase();
        if matches!(
            word.as_str(),
            "help"
                | "p"
                | "prefer"
                | "nosort"
                | "sort"
                | "q"
                | "quiet"
                | "v"
                | "verbose"
                | "no"
                | "none"
                | "rank"
                | "local"
        ) {
            continue;
        }
        let kind = if prefix_ci(tok, "map_mem") || prefix_ci(tok, "mapmem") {
            "map_mem"
        } else if prefix_ci(tok, "mask_mem") || prefix_ci(tok, "maskmem") {
            "mask_mem"
        } else {
            return Err(ValueError::invalid(format!(
                "unrecognized --mem-bind argument \"{}\"",
                lossy(tok)
            )));
        };
        // `strsep(&tok, ":=")` twice: the list is the second piece.
        let mut pieces = tok.split(|&c| c == b':' || c == b'=');
        pieces.next();
        let err = match pieces.next() {
            Some(list) if !list.is_empty() => expand_mult(list, kind),
            _ => Some(format!("missing list for \"--mem-bind={kind}:<list>\"")),
        };
        if let Some(e) = err {
            return Err(ValueError::invalid(e));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn accepted() {
        for ok in [
            "local",
            "rank,v",
            "Verbose,map_mem:0,1",
            "mask_mem:0x3,0xc",
            "map_mem:1*4,2",
            "none",
        ] {
            assert_eq!(parse_mem_bind(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejected() {
        for (s, msg) in [
            ("x", "unrecognized --mem-bind argument \"x\""),
            ("", "unrecognized --mem-bind argument \"\""),
            ("local,ab", "unrecognized --mem-bind argument \"local,ab\""),
            ("map_mem", "missing list for \"--mem-bind=map_mem:<list>\""),
            (
                "map_mem:a",
                "Failed to validate number: a, the offending character is a",
            ),
            ("map_mem:1*0", "Invalid map_mem multiplier: 0"),
            (
                "mask_mem:1*x",
                "Failed to validate number: *x, the offending character is x",
            ),
        ] {
            let e = parse_mem_bind(s).unwrap_err();
            assert_eq!((e.message(), e.exit_code(1)), (msg, 255), "{s}");
        }
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(61, "map_mem:mask0x1*,=rankvlocal", 30, 5000) {
            let _ = parse_mem_bind(&s);
        }
    }
}
