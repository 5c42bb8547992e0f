//! `--gpu-bind` and `--gpu-freq`: `arg_set_gpu_bind`/`arg_set_gpu_freq`
//! (`src/common/slurm_opt.c`), which prefix the value with `gpu:` and check it with
//! `tres_bind_verify_cmdline` (`src/common/tres_bind.c`) or `tres_freq_verify_cmdline`
//! (`src/common/tres_frequency.c`). The value may hold more `;`-separated `gpu:...`
//! parts. Failure: `Invalid --gpu-bind argument: gpu:<value>` (exit 255).

use super::{Note, ValueError};
use crate::model::cnum::{c_bytes, strtol_base};

fn prefix_ci(s: &[u8], p: &str) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

/// `_valid_num`: `strtol(arg, NULL, 0)` neither negative nor `LONG_MAX`.
fn valid_num(s: &[u8]) -> bool {
    let v = strtol_base(s, 0).0;
    v >= 0 && v != i64::MAX
}

/// `_valid_num_list`: comma-separated numbers (hex digits for masks, after an optional
/// `0x`), each optionally `*count`.
fn valid_num_list(s: &[u8], hex: bool, notes: &mut Vec<Note>) -> bool {
    for tok in s.split(|&c| c == b',').filter(|t| !t.is_empty()) {
        let tok = if hex && tok.starts_with(b"0x") {
            &tok[2..]
        } else {
            tok
        };
        if let Some(&c) = tok.iter().find(|&&c| {
            !(if hex {
                c.is_ascii_hexdigit()
            } else {
                c.is_ascii_digit()
            }) && c != b'*'
        }) {
            notes.push(Note::Error(format!(
                "Failed to validate {}, offending character is {}",
                String::from_utf8_lossy(tok),
                c as char
            )));
            return false;
        }
        let (v, end) = strtol_base(tok, if hex { 16 } else { 10 });
        let rest = &tok[end..];
        if v < 0 || v == i64::MAX || !(rest.is_empty() || rest[0] == b'*') {
            return false;
        }
        if !rest.is_empty() {
            let (v, end) = strtol_base(&rest[1..], 0);
            // No digits: `end_ptr` is back at the `*`.
            let end_ok = if end == 0 {
                rest.len() == 1
            } else {
                end == rest.len() - 1
            };
            if v < 0 || v == i64::MAX || !end_ok {
                return false;
            }
        }
    }
    true
}

/// `_valid_gpu_bind`.
fn valid_gpu_bind(a: &[u8], notes: &mut Vec<Note>) -> bool {
    let a = if prefix_ci(a, "verbose,") { &a[8..] } else { a };
    // `xstrncasecmp(arg, "closest", 1)`: only the first letter counts.
    if a.first().is_some_and(|c| c.eq_ignore_ascii_case(&b'c')) {
        true
    } else if prefix_ci(a, "map_gpu:") {
        valid_num_list(&a[8..], false, notes)
    } else if prefix_ci(a, "mask_gpu:") {
        valid_num_list(&a[9..], true, notes)
    } else if a.first().is_some_and(|c| c.eq_ignore_ascii_case(&b'n')) {
        true
    } else if prefix_ci(a, "per_task:") {
        valid_num(&a[9..])
    } else if prefix_ci(a, "single:") {
        valid_num(&a[7..])
    } else {
        false
    }
}

/// `_test_val`: a number starting with a digit (nothing after it), or `low`, `medium`,
/// `high`, `highm1` (exact case).
fn test_val(a: &[u8]) -> bool {
    match a.first() {
        None => false,
        Some(c) if c.is_ascii_digit() => {
            let (v, end) = strtol_base(a, 10);
            v != i64::MAX && v >= 0 && end == a.len()
        }
        Some(_) => matches!(a, b"low" | b"medium" | b"high" | b"highm1"),
    }
}

/// `_valid_gpu_freq`: comma-separated values, `verbose`, or `memory=<value>`.
fn valid_gpu_freq(a: &[u8]) -> bool {
    if a.is_empty() {
        return false;
    }
    a.split(|&c| c == b',')
        .filter(|t| !t.is_empty())
        .all(|tok| match tok.iter().position(|&c| c == b'=') {
            None => test_val(tok) || tok == b"verbose",
            Some(eq) => &tok[..eq] == b"memory" && test_val(&tok[eq + 1..]),
        })
}

/// `tres_*_verify_cmdline` over `gpu:<value>`: `;`-separated `gpu:<spec>` parts.
fn verify(tres: &[u8], part: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    tres.split(|&c| c == b';')
        .filter(|t| !t.is_empty())
        .all(|tok| match tok.iter().position(|&c| c == b':') {
            Some(colon) => &tok[..colon] == b"gpu" && part(&tok[colon + 1..]),
            None => false,
        })
}

/// `--gpu-bind`.
pub fn parse_gpu_bind(s: &str) -> Result<(), ValueError> {
    let tres = format!("gpu:{}", String::from_utf8_lossy(c_bytes(s)));
    let mut notes = Vec::new();
    if verify(tres.as_bytes(), &mut |p| valid_gpu_bind(p, &mut notes)) {
        Ok(())
    } else {
        Err(ValueError::Invalid {
            notes,
            message: format!("Invalid --gpu-bind argument: {tres}"),
        })
    }
}

/// `--gpu-freq`.
pub fn parse_gpu_freq(s: &str) -> Result<(), ValueError> {
    let tres = format!("gpu:{}", String::from_utf8_lossy(c_bytes(s)));
    if verify(tres.as_bytes(), &mut |p| valid_gpu_freq(p)) {
        Ok(())
    } else {
        Err(ValueError::invalid(format!(
            "Invalid --gpu-freq argument: {tres}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn gpu_bind() {
        for ok in [
            "closest",
            "c",
            "none",
            "verbose,closest",
            "map_gpu:0,1",
            "map_gpu:0*2,1",
            "mask_gpu:0x3,0x3",
            "single:2",
            "per_task:1",
            "closest;gpu:none",
        ] {
            assert_eq!(parse_gpu_bind(ok), Ok(()), "{ok}");
        }
        for bad in ["x", "", "single:-1", "closest;x", "map_gpu:1*0x"] {
            let e = parse_gpu_bind(bad).unwrap_err();
            assert_eq!(
                e.message(),
                format!("Invalid --gpu-bind argument: gpu:{bad}")
            );
            assert_eq!(e.exit_code(1), 255);
        }
        assert_eq!(
            parse_gpu_bind("map_gpu:1,a")
                .unwrap_err()
                .render("sbatch", ""),
            "sbatch: error: Failed to validate a, offending character is a\n\
             sbatch: error: Invalid --gpu-bind argument: gpu:map_gpu:1,a\n"
        );
    }

    #[test]
    fn gpu_freq() {
        for ok in [
            "high",
            "450",
            "medium,memory=high",
            "verbose",
            ",",
            "low;gpu:high",
        ] {
            assert_eq!(parse_gpu_freq(ok), Ok(()), "{ok}");
        }
        for bad in ["x", "", "High", "450x", "memory=x", "core=high"] {
            let e = parse_gpu_freq(bad).unwrap_err();
            assert_eq!(
                e.message(),
                format!("Invalid --gpu-freq argument: gpu:{bad}")
            );
        }
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(47, "closestmap_gpu:mask0x1*;,=highmemory", 24, 5000) {
            let _ = parse_gpu_bind(&s);
            let _ = parse_gpu_freq(&s);
        }
    }
}
