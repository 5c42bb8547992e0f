//! Memory sizes: Slurm's `str_to_mbytes` and `mbytes_to_str` (`src/common/proc_args.c`),
//! used by `--mem`, `--mem-per-cpu`, `--mem-per-gpu` and `--tmp`.
//!
//! A number (read by `strtoll`, so leading blanks and a `+` are allowed) with an optional
//! `K`, `M`, `G` or `T` in either case, itself optionally followed by `B`/`b`. No suffix
//! means megabytes; kilobytes round up to whole megabytes. Anything else is rejected.

use super::ValueError;
use crate::model::cnum::{c_bytes, strtol};

/// Slurm's `NO_VAL64`: `str_to_mbytes`'s error value, which a computed size can also hit.
const NO_VAL64: u64 = u64::MAX - 1;

/// `str_to_mbytes`: the size in megabytes, or `None` when Slurm says NO_VAL64.
///
/// The multiplication is 64-bit and wraps as in C (`9000000000000T` is accepted with a
/// wrapped value), exactly like Slurm.
pub fn str_to_mbytes(s: &str) -> Option<u64> {
    let b = c_bytes(s);
    let p = strtol(b);
    if p.overflow || !p.digits || p.value < 0 {
        return None;
    }
    let rest = &b[p.end..];
    let ends_on_byte = |r: &[u8]| match r.len() {
        1 => true,
        2 => r[1] == b'B' || r[1] == b'b',
        _ => false,
    };
    let n = p.value;
    let mb = match rest.first() {
        None => n,
        Some(b'k' | b'K') if ends_on_byte(rest) => n.wrapping_add(1023) / 1024,
        Some(b'm' | b'M') if ends_on_byte(rest) => n,
        Some(b'g' | b'G') if ends_on_byte(rest) => n.wrapping_mul(1024),
        Some(b't' | b'T') if ends_on_byte(rest) => n.wrapping_mul(1024 * 1024),
        _ => return None,
    } as u64;
    (mb != NO_VAL64).then_some(mb)
}

/// A memory option's set function: `Invalid <option> specification` (exit 255) on error.
/// `option` is `--mem`, `--mem-per-cpu`, `--mem-per-gpu` or `--tmp`.
pub fn parse_mbytes(s: &str, option: &str) -> Result<u64, ValueError> {
    str_to_mbytes(s).ok_or_else(|| ValueError::invalid_spec(option))
}

/// `mbytes_to_str`: the largest exact unit, megabytes without a suffix (`4096` → `4G`,
/// `1000` → `1000`). Slurm's loop runs past `P` for zero and for multiples of 1024 PiB,
/// printing `0?` and `1?`; we print the same.
pub fn mbytes_to_str(mbytes: u64) -> String {
    const UNITS: [u8; 5] = [b'M', b'G', b'T', b'P', b'?'];
    let mut n = mbytes;
    let mut i = 0;
    while UNITS[i] != b'?' {
        if n != 0 && !n.is_multiple_of(1024) {
            break;
        }
        n /= 1024;
        i += 1;
    }
    if UNITS[i] == b'M' {
        n.to_string()
    } else {
        format!("{n}{}", UNITS[i] as char)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    #[test]
    fn accepted_forms() {
        assert_eq!(str_to_mbytes("100"), Some(100));
        assert_eq!(str_to_mbytes("0"), Some(0));
        assert_eq!(str_to_mbytes("100M"), Some(100));
        assert_eq!(str_to_mbytes("100m"), Some(100));
        assert_eq!(str_to_mbytes("100MB"), Some(100));
        assert_eq!(str_to_mbytes("100mb"), Some(100));
        assert_eq!(str_to_mbytes("2G"), Some(2048));
        assert_eq!(str_to_mbytes("2gB"), Some(2048));
        assert_eq!(str_to_mbytes("4GB"), Some(4096));
        assert_eq!(str_to_mbytes("1T"), Some(1024 * 1024));
        assert_eq!(str_to_mbytes("1tb"), Some(1024 * 1024));
        assert_eq!(str_to_mbytes("1K"), Some(1));
        assert_eq!(str_to_mbytes("1024K"), Some(1));
        assert_eq!(str_to_mbytes("1025k"), Some(2));
        assert_eq!(str_to_mbytes("0K"), Some(0));
        assert_eq!(str_to_mbytes("1KB"), Some(1));
        // strtoll skips leading blanks and takes a sign.
        assert_eq!(str_to_mbytes(" 5"), Some(5));
        assert_eq!(str_to_mbytes("+5G"), Some(5120));
        assert_eq!(str_to_mbytes("-0"), Some(0));
    }

    #[test]
    fn rejected_forms() {
        for s in [
            "",
            "G",
            "abc",
            "-1",
            "-1G",
            "1.5G",
            "1P",
            "1GiB",
            "1Gb ",
            "5 ",
            "1GBB",
            "1BG",
            "1 G",
            "0x10",
            "99999999999999999999",
        ] {
            assert_eq!(str_to_mbytes(s), None, "{s:?}");
        }
    }

    #[test]
    fn option_error_text() {
        let e = parse_mbytes("lots", "--mem").unwrap_err();
        assert_eq!(e.message(), "Invalid --mem specification");
        assert_eq!(e.exit_code(1), 255);
        assert_eq!(
            parse_mbytes("x", "--mem-per-cpu").unwrap_err().message(),
            "Invalid --mem-per-cpu specification"
        );
        assert_eq!(parse_mbytes("2G", "--mem"), Ok(2048));
    }

    #[test]
    fn echo() {
        assert_eq!(mbytes_to_str(4096), "4G");
        assert_eq!(mbytes_to_str(1000), "1000");
        assert_eq!(mbytes_to_str(1536), "1536");
        assert_eq!(mbytes_to_str(1024 * 1024), "1T");
        assert_eq!(mbytes_to_str(1024 * 1024 * 1024), "1P");
        assert_eq!(mbytes_to_str(3 * 1024 * 1024 * 1024 * 1024), "3?");
        assert_eq!(mbytes_to_str(0), "0?");
        assert_eq!(mbytes_to_str(1), "1");
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(11, "0123456789kKmMgGtTbB", 24, 20000) {
            if let Some(mb) = str_to_mbytes(&s) {
                let _ = mbytes_to_str(mb);
            }
        }
    }
}
