//! Pure parsers for Slurm option values, one small file per kind of value.
//!
//! Each parser mirrors one Slurm 22.05.8 function (named in its file's doc comment) and
//! returns a typed value or a [`ValueError`] that knows Slurm's exact message text and the
//! exit status the command ends with. Quirks of the C code (what `strtol` accepts, silent
//! truncation, and the like) are reproduced on purpose; where we differ, the function's doc
//! comment says so.

pub mod acctg_freq;
pub mod array;
pub mod begin;
pub mod cpu_freq;
pub mod dependency;
pub mod distribution;
pub mod duration;
pub mod export;
pub mod extra_node_info;
pub mod gres;
pub mod hint;
pub mod int;
pub mod mail_type;
pub mod mem_bind;
pub mod memory;
pub mod nodes;
pub mod open_mode;
pub mod signal;
pub mod tres;
pub mod words;

use std::fmt;

/// A line Slurm prints to stderr before the final message of a [`ValueError::Invalid`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Printed through `error()`: `<prog>: error: <text>`.
    Error(String),
    /// Printed with a bare `fprintf(stderr, ...)`: the text as is, no program prefix.
    Raw(String),
}

/// Why the controller refuses a job at submission (`slurm_strerror` text).
///
/// Some values (`--array`, `--dependency`, `--gres`) are not checked by sbatch itself but by
/// slurmctld when the job is submitted; the command then prints
/// `sbatch: error: Batch job submission failed: <text>` (srun: `Unable to allocate
/// resources: <text>`; salloc: `Job submit/allocate failed: <text>`) and exits with
/// `error_exit` (1 unless `SLURM_EXIT_ERROR` says otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// ESLURM_INVALID_ARRAY.
    InvalidArray,
    /// ESLURM_DEPENDENCY.
    Dependency,
    /// ESLURM_INVALID_GRES (sbatch normally finds these itself; see `gres`).
    InvalidGres,
    /// ESLURM_INVALID_TRES.
    InvalidTres,
    /// ESLURM_INVALID_LICENSES.
    InvalidLicenses,
    /// ESLURM_NOT_SUPPORTED (e.g. `expand:` without `permit_job_expansion`).
    NotSupported,
    /// ESLURM_PATHNAME_TOO_LONG (a string field over the controller's length limit).
    PathnameTooLong,
}

impl Rejection {
    /// The `slurm_strerror()` text.
    pub fn text(self) -> &'static str {
        match self {
            Rejection::InvalidArray => "Invalid job array specification",
            Rejection::Dependency => "Job dependency problem",
            Rejection::InvalidGres => "Invalid generic resource (gres) specification",
            Rejection::InvalidTres => "Invalid Trackable RESource (TRES) specification",
            Rejection::InvalidLicenses => "Invalid license specification",
            Rejection::NotSupported => "Requested operation not supported on this system",
            Rejection::PathnameTooLong => {
                "Pathname of a file, directory or other parameter too long"
            }
        }
    }
}

/// A rejected option value, with everything needed to report it the way Slurm does.
///
/// | variant | Slurm path | stderr | exit |
/// |---|---|---|---|
/// | `Invalid` | option's set function fails, `slurm_process_option_or_exit` → `exit(-1)` | `notes`, then `error: <message>` | 255 |
/// | `Numeric` | `parse_int()` → `exit(1)` | `error: <message>` | 1 |
/// | `Fatal` | checked in `_opt_verify`, `exit(error_exit)` | `error: <message>` | `error_exit` |
/// | `Rejected` | refused by slurmctld at submit | `error: Batch job submission failed: <text>` | `error_exit` |
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    Invalid { notes: Vec<Note>, message: String },
    Numeric(String),
    Fatal(String),
    Rejected(Rejection),
}

impl ValueError {
    /// The common case: one `error:` line, exit 255.
    pub fn invalid(message: impl Into<String>) -> Self {
        ValueError::Invalid {
            notes: Vec::new(),
            message: message.into(),
        }
    }

    /// `Invalid <option> specification`, Slurm's most common value error.
    pub fn invalid_spec(option: &str) -> Self {
        ValueError::invalid(format!("Invalid {option} specification"))
    }

    /// The last (main) line, without any program prefix.
    pub fn message(&self) -> &str {
        match self {
            ValueError::Invalid { message, .. } => message,
            ValueError::Numeric(m) | ValueError::Fatal(m) => m,
            ValueError::Rejected(r) => r.text(),
        }
    }

    /// The exit status. `error_exit` is 1 unless `SLURM_EXIT_ERROR` changed it.
    pub fn exit_code(&self, error_exit: i32) -> i32 {
        match self {
            ValueError::Invalid { .. } => 255,
            ValueError::Numeric(_) => 1,
            ValueError::Fatal(_) | ValueError::Rejected(_) => error_exit,
        }
    }

    /// The stderr text for a command named `prog`, every line newline-terminated.
    /// `submit_prefix` is what the command puts before a controller's refusal
    /// (`Batch job submission failed: ` for sbatch).
    pub fn render(&self, prog: &str, submit_prefix: &str) -> String {
        let mut out = String::new();
        if let ValueError::Invalid { notes, .. } = self {
            for n in notes {
                match n {
                    Note::Error(t) => out.push_str(&format!("{prog}: error: {t}\n")),
                    Note::Raw(t) => out.push_str(&format!("{t}\n")),
                }
            }
        }
        match self {
            ValueError::Rejected(r) => {
                out.push_str(&format!("{prog}: error: {submit_prefix}{}\n", r.text()))
            }
            _ => out.push_str(&format!("{prog}: error: {}\n", self.message())),
        }
        out
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ValueError {}

#[cfg(test)]
pub(crate) mod fuzz {
    //! A tiny deterministic random-string source for "never panics" tests.

    pub struct XorShift(u64);

    impl XorShift {
        pub fn new(seed: u64) -> Self {
            XorShift(seed | 1)
        }
        pub fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// `count` strings of length 0..=max_len drawn from `alphabet` (plus a few wild bytes).
    /// Set `BAI_FUZZ_MULT=N` to draw N times as many (e.g. in a release-mode soak run).
    pub fn strings(seed: u64, alphabet: &str, max_len: usize, count: usize) -> Vec<String> {
        let mult = std::env::var("BAI_FUZZ_MULT")
            .ok()
            .and_then(|m| m.parse::<usize>().ok())
            .unwrap_or(1);
        let count = count * mult;
        let mut rng = XorShift::new(seed);
        let chars: Vec<char> = alphabet.chars().chain(" \t\u{0}é-+:,%".chars()).collect();
        (0..count)
            .map(|_| {
                let len = rng.below(max_len + 1);
                (0..len).map(|_| chars[rng.below(chars.len())]).collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_slurm_path() {
        assert_eq!(ValueError::invalid_spec("--time").exit_code(1), 255);
        assert_eq!(ValueError::Numeric("x".into()).exit_code(7), 1);
        assert_eq!(ValueError::Fatal("x".into()).exit_code(7), 7);
        assert_eq!(
            ValueError::Rejected(Rejection::InvalidArray).exit_code(1),
            1
        );
    }

    #[test]
    fn render_prints_notes_then_message() {
        let e = ValueError::Invalid {
            notes: vec![
                Note::Raw("Invalid time specification (pos=0): x".into()),
                Note::Error("first".into()),
            ],
            message: "Invalid --begin specification".into(),
        };
        assert_eq!(
            e.render("sbatch", ""),
            "Invalid time specification (pos=0): x\nsbatch: error: first\n\
             sbatch: error: Invalid --begin specification\n"
        );
        assert_eq!(
            ValueError::Rejected(Rejection::InvalidArray)
                .render("sbatch", "Batch job submission failed: "),
            "sbatch: error: Batch job submission failed: Invalid job array specification\n"
        );
        assert_eq!(
            ValueError::invalid_spec("--time").to_string(),
            "Invalid --time specification"
        );
    }
}
