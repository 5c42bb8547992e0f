//! `--acctg-freq`: Slurm's `validate_acctg_freq` (`src/common/proc_args.c`) with
//! `acct_gather_parse_freq` (`src/common/slurm_acct_gather.c`).
//!
//! A comma list; each item must give a frequency for some data type: a number at its
//! start (the task frequency, old style), or a number right after `energy=`, `task=`,
//! `filesystem=` or `network=` found anywhere in it (any case). Numbers are read by
//! `strtol` into an `int` (anything may follow them); `-1` counts as no number. Every bad
//! item prints `Invalid --acctg-freq specification: <item>`; exit 255.

use super::{Note, ValueError};
use crate::model::cnum::{c_bytes, strtol};

/// `_get_int`: `(int) strtol`, or -1 when no digit was read.
fn get_int(b: &[u8]) -> i32 {
    let p = strtol(b);
    if p.digits { p.value as i32 } else { -1 }
}

fn find_ci(hay: &[u8], needle: &str) -> Option<usize> {
    let n = needle.as_bytes();
    hay.windows(n.len()).position(|w| w.eq_ignore_ascii_case(n))
}

fn valid_item(tok: &[u8]) -> bool {
    let after = |key: &str| find_ci(tok, key).map_or(-1, |i| get_int(&tok[i + key.len()..]));
    after("energy=") != -1
        || get_int(tok) != -1
        || after("task=") != -1
        || after("filesystem=") != -1
        || after("network=") != -1
}

pub fn parse_acctg_freq(s: &str) -> Result<(), ValueError> {
    let mut lines: Vec<String> = c_bytes(s)
        .split(|&c| c == b',')
        .filter(|t| !t.is_empty() && !valid_item(t))
        .map(|t| {
            format!(
                "Invalid --acctg-freq specification: {}",
                String::from_utf8_lossy(t)
            )
        })
        .collect();
    match lines.pop() {
        None => Ok(()),
        Some(message) => Err(ValueError::Invalid {
            notes: lines.into_iter().map(Note::Error).collect(),
            message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn accepted() {
        for ok in [
            "30",
            "task=30",
            "Energy=5,network=0",
            "10x",
            "xtask=3",
            "",
            ",",
            " 5",
        ] {
            assert_eq!(parse_acctg_freq(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn rejected() {
        let e = parse_acctg_freq("x").unwrap_err();
        assert_eq!(
            e.render("sbatch", ""),
            "sbatch: error: Invalid --acctg-freq specification: x\n"
        );
        assert_eq!(e.exit_code(1), 255);
        assert_eq!(
            parse_acctg_freq("a,5,task=-1,b")
                .unwrap_err()
                .render("srun", ""),
            "srun: error: Invalid --acctg-freq specification: a\n\
             srun: error: Invalid --acctg-freq specification: task=-1\n\
             srun: error: Invalid --acctg-freq specification: b\n"
        );
        // 2^32 - 1 is -1 as an int.
        assert!(parse_acctg_freq("4294967295").is_err());
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(53, "taskenergy=network0123,-", 24, 5000) {
            let _ = parse_acctg_freq(&s);
        }
    }
}
