//! Signals: Slurm's `sig_name2num`, `sig_num2name`, `get_signal_opts` and
//! `signal_opts_to_cmdline` (`src/common/proc_args.c`), used by `--signal` and by scancel.
//!
//! Signal names come from a fixed table of 16 (HUP INT QUIT ABRT KILL ALRM TERM USR1 USR2
//! URG CONT STOP TSTP TTIN TTOU XCPU), with or without `SIG`, in any case, surrounded by
//! blanks; numbers are read with `strtol`.

use super::ValueError;
use crate::model::cnum::{c_bytes, is_space, is_whitespace, starts_with_ci, strtol};
use std::fmt;

/// Slurm's signal table (`signals_mapping`), with Linux's numbers.
const SIGNALS: [(&str, i32); 16] = [
    ("HUP", libc::SIGHUP),
    ("INT", libc::SIGINT),
    ("QUIT", libc::SIGQUIT),
    ("ABRT", libc::SIGABRT),
    ("KILL", libc::SIGKILL),
    ("ALRM", libc::SIGALRM),
    ("TERM", libc::SIGTERM),
    ("USR1", libc::SIGUSR1),
    ("USR2", libc::SIGUSR2),
    ("URG", libc::SIGURG),
    ("CONT", libc::SIGCONT),
    ("STOP", libc::SIGSTOP),
    ("TSTP", libc::SIGTSTP),
    ("TTIN", libc::SIGTTIN),
    ("TTOU", libc::SIGTTOU),
    ("XCPU", libc::SIGXCPU),
];

/// `sig_name2num`: the signal number, or 0 when the name is unknown. A number is taken as
/// is (any value, even negative) when only blanks follow it.
pub fn sig_name2num(name: &str) -> i32 {
    sig_name2num_bytes(c_bytes(name))
}

fn sig_name2num_bytes(b: &[u8]) -> i32 {
    let p = strtol(b);
    if p.digits {
        return if is_whitespace(&b[p.end..]) {
            p.value as i32
        } else {
            0
        };
    }
    let mut rest = b;
    while let Some((&c, tail)) = rest.split_first() {
        if !is_space(c) {
            break;
        }
        rest = tail;
    }
    if starts_with_ci(rest, "SIG") {
        rest = &rest[3..];
    }
    for (name, num) in SIGNALS {
        if starts_with_ci(rest, name) && is_whitespace(&rest[name.len()..]) {
            return num;
        }
    }
    0
}

/// `sig_num2name`: the table name without `SIG` (`TERM`), or the number as text.
pub fn sig_num2name(signal: i32) -> String {
    SIGNALS
        .iter()
        .find(|(_, n)| *n == signal)
        .map(|(name, _)| name.to_string())
        .unwrap_or_else(|| signal.to_string())
}

/// A parsed `--signal=[{R|B}:]sig[@secs]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalSpec {
    /// The signal number (Slurm keeps it as 16 bits).
    pub signal: u16,
    /// Seconds before the time limit; 60 when no `@` is given.
    pub seconds: u16,
    /// `R`: also signal when the job's reservation ends (KILL_JOB_RESV).
    pub reservation: bool,
    /// `B`: signal only the batch shell, not the steps (KILL_JOB_BATCH; sbatch only).
    pub batch_only: bool,
}

impl fmt::Display for SignalSpec {
    /// `signal_opts_to_cmdline`: `[R][B][:]NAME[@secs]`, omitting `@60`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reservation {
            f.write_str("R")?;
        }
        if self.batch_only {
            f.write_str("B")?;
        }
        if self.reservation || self.batch_only {
            f.write_str(":")?;
        }
        f.write_str(&sig_num2name(i32::from(self.signal)))?;
        if self.seconds != 60 {
            write!(f, "@{}", self.seconds)?;
        }
        Ok(())
    }
}

/// `get_signal_opts` behind `--signal` (`Invalid --signal specification`, exit 255).
///
/// `sbatch` must be true for sbatch, where the `B` flag exists; srun and salloc only know
/// `R`. A leading `R`/`B` letter is always taken as a flag, and the signal number is cast
/// to 16 bits before the range check, so `65537` is accepted as signal 1, as in Slurm.
pub fn parse_signal_opts(arg: &str, sbatch: bool) -> Result<SignalSpec, ValueError> {
    let err = || ValueError::invalid_spec("--signal");
    let mut b = c_bytes(arg);
    let mut spec = SignalSpec {
        signal: 0,
        seconds: 60,
        reservation: false,
        batch_only: false,
    };
    let take = |b: &mut &[u8], letter: u8| {
        if b.first().map(|c| c.to_ascii_uppercase()) == Some(letter) {
            *b = &b[1..];
            true
        } else {
            false
        }
    };
    if take(&mut b, b'R') {
        spec.reservation = true;
    }
    if sbatch {
        if take(&mut b, b'B') {
            spec.batch_only = true;
        }
        if take(&mut b, b'R') {
            spec.reservation = true;
        }
    }
    if b.first() == Some(&b':') {
        b = &b[1..];
    }
    let at = b.iter().position(|&c| c == b'@');
    let name = &b[..at.unwrap_or(b.len())];
    let num = i64::from(sig_name2num_bytes(name) as u16);
    if !(1..=0xffff).contains(&num) {
        return Err(err());
    }
    spec.signal = num as u16;
    if let Some(at) = at {
        let rest = &b[at + 1..];
        let p = strtol(rest);
        if !(0..=0xffff).contains(&p.value) {
            return Err(err());
        }
        // Only the end of the string may follow (with no digits, C's endptr is the start).
        if p.end != rest.len() {
            return Err(err());
        }
        spec.seconds = p.value as u16;
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn names_and_numbers() {
        assert_eq!(sig_name2num("TERM"), 15);
        assert_eq!(sig_name2num("SIGTERM"), 15);
        assert_eq!(sig_name2num("sigterm"), 15);
        assert_eq!(sig_name2num("term"), 15);
        assert_eq!(sig_name2num("  USR1  "), 10);
        assert_eq!(sig_name2num("SigUsr2"), 12);
        assert_eq!(sig_name2num("KILL"), 9);
        assert_eq!(sig_name2num("XCPU"), 24);
        assert_eq!(sig_name2num("9"), 9);
        assert_eq!(sig_name2num(" 9 "), 9);
        assert_eq!(sig_name2num("-3"), -3);
        assert_eq!(sig_name2num("9x"), 0);
        assert_eq!(sig_name2num("SIG9"), 0);
        assert_eq!(sig_name2num("TERMX"), 0);
        assert_eq!(sig_name2num("SIGSIGTERM"), 0);
        assert_eq!(sig_name2num("WINCH"), 0);
        assert_eq!(sig_name2num(""), 0);
    }

    #[test]
    fn names_back() {
        assert_eq!(sig_num2name(15), "TERM");
        assert_eq!(sig_num2name(10), "USR1");
        assert_eq!(sig_num2name(28), "28");
    }

    fn sig(s: &str) -> SignalSpec {
        parse_signal_opts(s, true).unwrap()
    }

    #[test]
    fn signal_option_forms() {
        let s = sig("USR1");
        assert_eq!(
            (s.signal, s.seconds, s.reservation, s.batch_only),
            (10, 60, false, false)
        );
        assert_eq!(sig("USR1@90").seconds, 90);
        assert_eq!(sig("10@0").seconds, 0);
        assert_eq!(sig("10@").seconds, 0);
        assert_eq!(sig("10@ 5").seconds, 5);
        let s = sig("B:USR1@30");
        assert_eq!(
            (s.signal, s.seconds, s.batch_only, s.reservation),
            (10, 30, true, false)
        );
        let s = sig("R:TERM");
        assert!(s.reservation && !s.batch_only);
        let s = sig("RB:2");
        assert!(s.reservation && s.batch_only);
        let s = sig("br:2");
        assert!(s.reservation && s.batch_only);
        assert!(sig("BUSR1").batch_only);
        assert_eq!(sig("SIGINT").signal, 2);
        assert_eq!(sig("65537").signal, 1);
        assert_eq!(sig("-1").signal, 65535);
    }

    #[test]
    fn srun_has_no_batch_flag() {
        assert!(parse_signal_opts("B:USR1", false).is_err());
        assert!(parse_signal_opts("R:USR1", false).unwrap().reservation);
    }

    #[test]
    fn signal_option_errors() {
        for s in [
            "",
            "FOO",
            "0",
            "65536",
            "USR1@-1",
            "USR1@65536",
            "USR1@5x",
            "USR1@5 ",
            "B:",
            "::USR1",
            "USR1@@5",
            "X:USR1",
        ] {
            let e = parse_signal_opts(s, true).unwrap_err();
            assert_eq!(e.message(), "Invalid --signal specification", "{s:?}");
            assert_eq!(e.exit_code(1), 255);
        }
    }

    #[test]
    fn echo() {
        assert_eq!(sig("USR1").to_string(), "USR1");
        assert_eq!(sig("B:USR1@30").to_string(), "B:USR1@30");
        assert_eq!(sig("RB:2@60").to_string(), "RB:INT");
        assert_eq!(sig("40").to_string(), "40");
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(17, "RBrb:@0123456789SIGTERMUSR", 16, 20000) {
            let _ = parse_signal_opts(&s, true);
            let _ = parse_signal_opts(&s, false);
        }
    }
}
