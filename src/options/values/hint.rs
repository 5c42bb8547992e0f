//! `--hint`: Slurm's `verify_hint` (`src/common/proc_args.c`), run from `_opt_verify`.
//!
//! A list of `compute_bound`, `memory_bound`, `multithread`, `nomultithread` (any case).
//! Commas split the list except when followed by a digit. `help` prints the help text;
//! both `help` and an unknown word end the command with `error_exit` (1).

use super::ValueError;
use crate::model::cnum::c_bytes;

/// One `--hint` word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    ComputeBound,
    MemoryBound,
    Multithread,
    NoMultithread,
}

/// The text `--hint=help` prints to stdout.
pub const HINT_HELP: &str = "Application hint options:
    --hint=             Bind tasks according to application hints
        compute_bound   use all cores in each socket
        memory_bound    use only one core in each socket
        [no]multithread [don't] use extra threads with in-core multi-threading
        help            show this help message
";

/// What a `--hint` value asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintRequest {
    Hints(Vec<Hint>),
    /// `help` appeared: print [`HINT_HELP`] to stdout, then exit with `error_exit`.
    Help,
}

/// `verify_hint`. An unknown word gives
/// `unrecognized --hint argument "<word>", see --hint=help` (exit `error_exit`).
pub fn parse_hint(s: &str) -> Result<HintRequest, ValueError> {
    let b = c_bytes(s);
    let mut hints = Vec::new();
    let mut start = 0;
    // strsep on ';' after ',' not followed by a digit became ';'.
    for i in 0..=b.len() {
        let split = i == b.len() || (b[i] == b',' && !b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !split {
            continue;
        }
        let tok = String::from_utf8_lossy(&b[start..i]).into_owned();
        start = i + 1;
        let hint = match tok.to_ascii_lowercase().as_str() {
            "help" => return Ok(HintRequest::Help),
            "compute_bound" => Hint::ComputeBound,
            "memory_bound" => Hint::MemoryBound,
            "multithread" => Hint::Multithread,
            "nomultithread" => Hint::NoMultithread,
            _ => {
                return Err(ValueError::Fatal(format!(
                    "unrecognized --hint argument \"{tok}\", see --hint=help"
                )));
            }
        };
        hints.push(hint);
    }
    Ok(HintRequest::Hints(hints))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn words() {
        assert_eq!(
            parse_hint("compute_bound"),
            Ok(HintRequest::Hints(vec![Hint::ComputeBound]))
        );
        assert_eq!(
            parse_hint("Memory_Bound,nomultithread"),
            Ok(HintRequest::Hints(vec![
                Hint::MemoryBound,
                Hint::NoMultithread
            ]))
        );
        assert_eq!(parse_hint("multithread,help"), Ok(HintRequest::Help));
        assert_eq!(parse_hint("HELP"), Ok(HintRequest::Help));
    }

    #[test]
    fn unknown_words() {
        for (s, word) in [
            ("bogus", "bogus"),
            ("", ""),
            ("multithread,", ""),
            ("multithread,2", "multithread,2"),
            (" multithread", " multithread"),
        ] {
            let e = parse_hint(s).unwrap_err();
            assert_eq!(
                e.message(),
                format!("unrecognized --hint argument \"{word}\", see --hint=help"),
                "{s:?}"
            );
            assert_eq!(e.exit_code(1), 1);
        }
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(29, "compute_boundmemorymultithread,0123", 30, 5000) {
            let _ = parse_hint(&s);
        }
    }
}
