//! `--open-mode` (`arg_set_open_mode`, `src/common/slurm_opt.c`): only the first letter
//! counts, `a`/`A` for append and `t`/`T` for truncate (`apple` is append).

use super::ValueError;

/// How the job's output files are opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    Append,
    Truncate,
}

impl OpenMode {
    /// The letter `--verbose` echoes and SLURM_OPEN_MODE carries: `a` or `t`.
    pub fn letter(self) -> &'static str {
        match self {
            OpenMode::Append => "a",
            OpenMode::Truncate => "t",
        }
    }
}

/// `Invalid --open-mode specification` (exit 255) unless the value starts with a/A/t/T.
pub fn parse_open_mode(s: &str) -> Result<OpenMode, ValueError> {
    match s.as_bytes().first() {
        Some(b'a' | b'A') => Ok(OpenMode::Append),
        Some(b't' | b'T') => Ok(OpenMode::Truncate),
        _ => Err(ValueError::invalid_spec("--open-mode")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_letter_decides() {
        for s in ["append", "a", "A", "APPEND", "apple"] {
            assert_eq!(parse_open_mode(s), Ok(OpenMode::Append), "{s}");
        }
        for s in ["truncate", "t", "Trunc", "tx"] {
            assert_eq!(parse_open_mode(s), Ok(OpenMode::Truncate), "{s}");
        }
        for s in ["", " append", "x", "overwrite", "\0a"] {
            let e = parse_open_mode(s).unwrap_err();
            assert_eq!(e.message(), "Invalid --open-mode specification");
            assert_eq!(e.exit_code(1), 255);
        }
        assert_eq!(OpenMode::Append.letter(), "a");
        assert_eq!(OpenMode::Truncate.letter(), "t");
    }
}
