//! The C library's number and character rules that Slurm's parsers inherit.
//!
//! Slurm parses numbers with `strtol`/`strtoll`/`strtoull`/`atoi` and tests characters
//! with `isspace`; what those accept (leading blanks, a sign, clamping on overflow) is part
//! of Slurm's behaviour, so every parser of the crate (option values, format strings, the
//! query commands' arguments, hostlists) uses these re-implementations instead of Rust's
//! stricter `str::parse`. This is their one home.

/// C `isspace` in the C locale.
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C `isblank`.
pub fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The bytes of `s` up to its first NUL, as a C function would see the string.
pub fn c_bytes(s: &str) -> &[u8] {
    let b = s.as_bytes();
    match b.iter().position(|&c| c == 0) {
        Some(n) => &b[..n],
        None => b,
    }
}

/// Byte `i` of `b`, or NUL past the end (reading a C string's terminator).
pub fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// Slurm's `xstring_is_whitespace`: true when every byte is a space (or there are none).
pub fn is_whitespace(b: &[u8]) -> bool {
    b.iter().all(|&c| is_space(c))
}

/// Case-insensitive ASCII prefix test, as `xstrncasecmp(s, prefix, strlen(prefix)) == 0`.
pub fn starts_with_ci(b: &[u8], prefix: &str) -> bool {
    b.len() >= prefix.len() && b[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The result of a `strto*` call: the value, where parsing stopped, and whether any digit
/// was read (when none was, `end` is 0, as C sets `endptr` back to the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed<T> {
    pub value: T,
    pub end: usize,
    pub digits: bool,
    pub overflow: bool,
}

impl<T> Parsed<T> {
    /// `(value, end)`: what a caller of `strtol(s, &end, 10)` keeps.
    pub fn value_and_end(self) -> (T, usize) {
        (self.value, self.end)
    }
}

/// What C's number parsers skip first: blanks, then one sign. (negative, where the
/// digits start)
fn blanks_and_sign(b: &[u8]) -> (bool, usize) {
    let mut i = 0;
    while i < b.len() && is_space(b[i]) {
        i += 1;
    }
    let neg = b.get(i) == Some(&b'-');
    if neg || b.get(i) == Some(&b'+') {
        i += 1;
    }
    (neg, i)
}

/// C `strtol` with a base (0: `0x` hex, `0` octal, else decimal): value (clamped to
/// `i64`) and where it stopped.
pub fn strtol_base(b: &[u8], base: u32) -> (i64, usize) {
    let (neg, mut i) = blanks_and_sign(b);
    let mut base = base;
    let hex_prefix = i + 2 < b.len() + 1
        && b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    if (base == 0 || base == 16) && hex_prefix {
        base = 16;
        i += 2;
    } else if base == 0 {
        base = if b.get(i) == Some(&b'0') { 8 } else { 10 };
    }
    let start = i;
    let mut v: i128 = 0;
    while let Some(d) = b.get(i).and_then(|&c| (c as char).to_digit(base)) {
        v = (v * i128::from(base) + i128::from(d)).min(i128::from(i64::MAX) + 1);
        i += 1;
    }
    if i == start {
        return (0, 0);
    }
    let v = if neg { -v } else { v };
    (
        v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64,
        i,
    )
}

/// Skips blanks and a sign, then reads decimal digits: (negative, magnitude or None on
/// u64 overflow, end, any digits).
fn scan(b: &[u8]) -> (bool, Option<u64>, usize, bool) {
    let (neg, mut i) = blanks_and_sign(b);
    let start = i;
    let mut mag: Option<u64> = Some(0);
    while i < b.len() && b[i].is_ascii_digit() {
        mag = mag
            .and_then(|m| m.checked_mul(10))
            .and_then(|m| m.checked_add(u64::from(b[i] - b'0')));
        i += 1;
    }
    if i == start {
        return (false, Some(0), 0, false);
    }
    (neg, mag, i, true)
}

/// C `strtol`/`strtoll` (64-bit `long`), base 10: clamps to `i64::MIN`/`i64::MAX`.
pub fn strtol(b: &[u8]) -> Parsed<i64> {
    let (neg, mag, end, digits) = scan(b);
    let (value, overflow) = match mag {
        None => (if neg { i64::MIN } else { i64::MAX }, true),
        Some(m) if neg => {
            if m > i64::MAX as u64 + 1 {
                (i64::MIN, true)
            } else {
                ((m as i64).wrapping_neg(), false)
            }
        }
        Some(m) => {
            if m > i64::MAX as u64 {
                (i64::MAX, true)
            } else {
                (m as i64, false)
            }
        }
    };
    Parsed {
        value,
        end,
        digits,
        overflow,
    }
}

/// `strtol(buf + pos, &end, 10)`: the value and the offset in `buf` where C's `endptr`
/// lands (`pos` itself when no digit was read); a NUL in `buf` stops it as in C.
pub fn strtol_at(buf: &[u8], pos: usize) -> (i64, usize) {
    let p = strtol(&buf[pos.min(buf.len())..]);
    (p.value, if p.digits { pos + p.end } else { pos })
}

/// C `strtoull`, base 10: a leading `-` negates modulo 2^64; overflow gives `u64::MAX`.
pub fn strtoull(b: &[u8]) -> Parsed<u64> {
    let (neg, mag, end, digits) = scan(b);
    let (value, overflow) = match mag {
        None => (u64::MAX, true),
        Some(m) if neg => (m.wrapping_neg(), false),
        Some(m) => (m, false),
    };
    Parsed {
        value,
        end,
        digits,
        overflow,
    }
}

/// C `atoi`: `(int) strtol(s, NULL, 10)`.
pub fn atoi(b: &[u8]) -> i32 {
    strtol(b).value as i32
}

/// Case-insensitive compare of the first `n` bytes, like `strncasecmp` (a shorter string
/// compares its terminating NUL).
pub fn strncasecmp_eq(a: &str, b: &str, n: usize) -> bool {
    let a = a.as_bytes();
    let b = b.as_bytes();
    for i in 0..n {
        let x = a.get(i).map_or(0, u8::to_ascii_lowercase);
        let y = b.get(i).map_or(0, u8::to_ascii_lowercase);
        if x != y {
            return false;
        }
        if x == 0 {
            return true;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_matches_c() {
        assert_eq!(strtol(b"  +42x").value, 42);
        assert_eq!(strtol(b"  +42x").end, 5);
        assert_eq!(strtol(b"-7").value, -7);
        let none = strtol(b" x");
        assert_eq!((none.value, none.end, none.digits), (0, 0, false));
        let sign_only = strtol(b"-");
        assert_eq!((sign_only.end, sign_only.digits), (0, false));
        let big = strtol(b"99999999999999999999");
        assert_eq!((big.value, big.overflow), (i64::MAX, true));
        assert_eq!(strtol(b"-99999999999999999999").value, i64::MIN);
        assert_eq!(strtol(b"-9223372036854775808").value, i64::MIN);
        assert!(!strtol(b"-9223372036854775808").overflow);
    }

    #[test]
    fn strtol_at_gives_where_endptr_lands() {
        assert_eq!(strtol_at(b"ab12c", 2), (12, 4));
        assert_eq!(strtol_at(b"ab:c", 2), (0, 2));
        assert_eq!(strtol_at(b"ab", 7), (0, 7));
    }

    #[test]
    fn strtol_reports_where_it_stopped() {
        let r = |b: &[u8]| strtol(b).value_and_end();
        assert_eq!(r(b"12abc"), (12, 2));
        assert_eq!(r(b"abc"), (0, 0));
        assert_eq!(r(b" -7"), (-7, 3));
        assert_eq!(atoi(b"30"), 30);
    }

    #[test]
    fn prefix_compare() {
        assert!(strncasecmp_eq("JobID", "jobid", 5));
        assert!(strncasecmp_eq("JobIDRaw", "jobid", 5));
        assert!(!strncasecmp_eq("JobID", "jobidx", 6));
        assert!(strncasecmp_eq("ALL", "a", 1));
    }

    #[test]
    fn strtoull_negates_and_clamps() {
        assert_eq!(strtoull(b"-1").value, u64::MAX);
        assert_eq!(strtoull(b"18446744073709551616").value, u64::MAX);
        assert_eq!(strtoull(b"12k").end, 2);
    }

    #[test]
    fn c_strings_stop_at_nul() {
        assert_eq!(c_bytes("ab\0cd"), b"ab");
        assert_eq!(at(b"ab", 5), 0);
        assert_eq!(atoi(b"4294967297"), 1);
    }
}
