//! `--cpu-freq`: Slurm's `cpu_freq_verify_cmdline` with `_cpu_freq_check_gov` and
//! `_cpu_freq_check_freq` (`src/common/cpu_frequency.c`).
//!
//! Forms: `p1`, `p1-p2`, `p1-p2:p3`. `p1` is a governor or a frequency; `p2` a frequency
//! not below `p1`; `p3` a governor (only after `p2`, and not when `p1` is one). Governors
//! go by their prefix (`co`nservative, `perf`ormance, `pow`ersave, `user`space,
//! `onde`mand, `sche`dutil, any case) and must be allowed by the cluster's
//! CpuFreqGovernors (by default OnDemand, Performance and UserSpace). Frequencies are
//! `lo`w, `him1`/`highm1`, `hi`gh, `med`ium (prefixes again) or a non-zero `strtoul`
//! number (anything may follow it). Each failure prints its own `error:` line (except
//! `governor cannot be ...` cases, which print one) and then
//! `Invalid --cpu-freq argument`; exit 255.

use super::{Note, ValueError};
use crate::model::cnum::{c_bytes, strtoull};

const RANGE_FLAG: u32 = 0x8000_0000;
const LOW: u32 = 0x8000_0001;
const MEDIUM: u32 = 0x8000_0002;
const HIGH: u32 = 0x8000_0003;
const HIGHM1: u32 = 0x8000_0004;
const CONSERVATIVE: u32 = 0x8800_0000;
const ONDEMAND: u32 = 0x8400_0000;
const PERFORMANCE: u32 = 0x8200_0000;
const POWERSAVE: u32 = 0x8100_0000;
const USERSPACE: u32 = 0x8080_0000;
const SCHEDUTIL: u32 = 0x8040_0000;

/// Slurm's default CpuFreqGovernors (OnDemand, Performance, UserSpace).
pub const DEFAULT_GOVERNORS: u32 = ONDEMAND | PERFORMANCE | USERSPACE;

fn prefix_ci(s: &[u8], p: &str) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

/// `_cpu_freq_check_gov(arg, 0)`: a governor's flag, or 0.
fn check_gov(s: &[u8]) -> u32 {
    let table = [
        ("co", CONSERVATIVE),
        ("perf", PERFORMANCE),
        ("pow", POWERSAVE),
        ("user", USERSPACE),
        ("onde", ONDEMAND),
        ("sche", SCHEDUTIL),
    ];
    table
        .iter()
        .find(|(p, _)| prefix_ci(s, p))
        .map_or(0, |(_, g)| g | RANGE_FLAG)
}

/// `_cpu_freq_check_freq`: a frequency or synonym, or the error line and 0.
fn check_freq(s: &[u8], notes: &mut Vec<Note>) -> u32 {
    if prefix_ci(s, "lo") {
        return LOW;
    } else if prefix_ci(s, "him1") || prefix_ci(s, "highm1") {
        return HIGHM1;
    } else if prefix_ci(s, "hi") {
        return HIGH;
    } else if prefix_ci(s, "med") {
        return MEDIUM;
    }
    // `strtoul` into a uint32_t: the low 32 bits.
    let f = strtoull(s).value as u32;
    if f != 0 {
        return f;
    }
    notes.push(Note::Error(format!(
        "unrecognized --cpu-freq argument \"{}\"",
        String::from_utf8_lossy(s)
    )));
    0
}

/// `arg_set_cpu_freq` with the cluster's allowed governors (`governors`, a mask of the
/// flags above; [`DEFAULT_GOVERNORS`] unless slurm.conf sets CpuFreqGovernors).
pub fn parse_cpu_freq(arg: &str, governors: u32) -> Result<(), ValueError> {
    let a = c_bytes(arg);
    let colon = a.iter().position(|&c| c == b':');
    let dash = a.iter().position(|&c| c == b'-');
    let p3 = colon.map(|c| &a[c + 1..]);
    let (p1, p2) = match dash {
        Some(d) => {
            // `xstrndup(posdash + 1, poscolon - posdash - 1)`: a colon before the dash
            // gives a negative length, which xstrndup turns into an empty string... in
            // practice a huge size_t; Slurm then copies to the end of the string.
            let end = match colon {
                Some(c) if c > d => c,
                _ => a.len(),
            };
            (&a[..d], Some(&a[d + 1..end]))
        }
        None => (&a[..colon.unwrap_or(a.len())], None),
    };
    let mut notes = Vec::new();
    let mut gov: Option<u32> = None;
    let mut ok = (|| {
        let mut max = 0u32;
        let f = check_gov(p1);
        if f != 0 {
            if let Some(p3) = p3 {
                notes.push(Note::Error(format!(
                    "governor cannot be specified twice {}{{-}}:{} in --cpu-freq",
                    String::from_utf8_lossy(p1),
                    String::from_utf8_lossy(p3)
                )));
                return false;
            }
            gov = Some(f);
        } else {
            let f = check_freq(p1, &mut notes);
            if f == 0 {
                return false;
            }
            max = f;
        }
        if let Some(p2) = p2 {
            let f = check_freq(p2, &mut notes);
            if f == 0 {
                return false;
            }
            // With a governor as p1, the minimum is NO_VAL.
            let min = if gov.is_some() { u32::MAX - 1 } else { max };
            if f < min {
                notes.push(Note::Error(format!(
                    "min cpu-frec ({}) must be < max cpu-freq ({})",
                    String::from_utf8_lossy(p1),
                    String::from_utf8_lossy(p2)
                )));
                return false;
            }
        }
        if let Some(p3) = p3 {
            if p2.is_none() {
                notes.push(Note::Error(format!(
                    "gov on cpu-frec ({}) illegal without max",
                    String::from_utf8_lossy(p3)
                )));
                return false;
            }
            let f = check_gov(p3);
            if f == 0 {
                notes.push(Note::Error(format!(
                    "illegal governor: {} on --cpu-freq",
                    String::from_utf8_lossy(p3)
                )));
                return false;
            }
            gov = Some(f);
        }
        true
    })();
    if let Some(g) = gov
        && (g & governors) & !RANGE_FLAG == 0
    {
        notes.push(Note::Error(format!(
            "governor of {} is not allowed in slurm.conf",
            String::from_utf8_lossy(a)
        )));
        ok = false;
    }
    if ok {
        Ok(())
    } else {
        Err(ValueError::Invalid {
            notes,
            message: "Invalid --cpu-freq argument".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn render(s: &str) -> String {
        parse_cpu_freq(s, DEFAULT_GOVERNORS)
            .unwrap_err()
            .render("sbatch", "")
    }

    #[test]
    fn accepted() {
        for s in [
            "2400000",
            "low",
            "High",
            "highm1",
            "medium",
            "performance",
            "OnDemand",
            "userspace",
            "low-high",
            "1000-2000",
            "1000-high:performance",
            "12abc",
        ] {
            assert_eq!(parse_cpu_freq(s, DEFAULT_GOVERNORS), Ok(()), "{s}");
        }
    }

    #[test]
    fn rejected() {
        assert_eq!(
            render("bogus"),
            "sbatch: error: unrecognized --cpu-freq argument \"bogus\"\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render(""),
            "sbatch: error: unrecognized --cpu-freq argument \"\"\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("2000-1000"),
            "sbatch: error: min cpu-frec (2000) must be < max cpu-freq (1000)\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("1000:performance"),
            "sbatch: error: gov on cpu-frec (performance) illegal without max\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("1000-2000:bogus"),
            "sbatch: error: illegal governor: bogus on --cpu-freq\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("conservative"),
            "sbatch: error: governor of conservative is not allowed in slurm.conf\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("performance:userspace"),
            "sbatch: error: governor cannot be specified twice performance{-}:userspace in --cpu-freq\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        // A leading dash leaves an empty first part.
        assert_eq!(
            render("-5"),
            "sbatch: error: unrecognized --cpu-freq argument \"\"\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("performance-high"),
            "sbatch: error: min cpu-frec (performance) must be < max cpu-freq (high)\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(
            render("1000:perf-x"),
            "sbatch: error: unrecognized --cpu-freq argument \"x\"\n\
             sbatch: error: Invalid --cpu-freq argument\n"
        );
        assert_eq!(parse_cpu_freq("x", 0).unwrap_err().exit_code(1), 255);
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(43, "lowhighmedperfuser0123-:", 20, 5000) {
            let _ = parse_cpu_freq(&s, DEFAULT_GOVERNORS);
        }
    }
}
