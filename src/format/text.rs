//! Byte-level emulation of the C `printf` idioms Slurm's clients use to lay out columns.
//! Everything works on bytes, as C does, so a truncated multi-byte name is cut exactly
//! where Slurm cuts it.

/// What glibc prints for a NULL `%s` argument: `(null)`, or nothing when a precision
/// below 6 is given.
fn null_text(precision: Option<usize>) -> &'static [u8] {
    match precision {
        Some(p) if p < 6 => b"",
        _ => b"(null)",
    }
}

/// squeue's and sinfo's `_print_str`: `width` 0 prints the value as is; a positive width
/// right-justifies (`%Ws`) or truncates and left-justifies (`%.Ws`), then pads to `width`.
/// Right-justified values longer than the width are cut only when `cut` is set.
/// `None` stands for a NULL C string.
pub fn print_str(out: &mut Vec<u8>, value: Option<&[u8]>, width: usize, right: bool, cut: bool) {
    if width == 0 {
        out.extend_from_slice(value.unwrap_or(null_text(None)));
        return;
    }
    let start = out.len();
    if right {
        let text = value.unwrap_or(null_text(None));
        for _ in text.len()..width {
            out.push(b' ');
        }
        out.extend_from_slice(text);
        if cut {
            out.truncate(start + width);
        }
    } else {
        let text = value.unwrap_or(null_text(Some(width)));
        out.extend_from_slice(&text[..text.len().min(width)]);
    }
    while out.len() - start < width {
        out.push(b' ');
    }
}

/// `print_str` for a value that is never NULL.
pub fn print_text(out: &mut Vec<u8>, value: &str, width: usize, right: bool, cut: bool) {
    print_str(out, Some(value.as_bytes()), width, right, cut);
}

/// C's `atoi`: optional leading whitespace and sign, then digits; anything else ends it.
pub fn atoi(s: &str) -> i64 {
    strtol(s).0
}

/// C's `strtol(s, &end, 10)`: the value and the number of bytes consumed (0 when no digits).
pub fn strtol(s: &str) -> (i64, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || (b'\t'..=b'\r').contains(&b[i])) {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut v: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(i64::from(b[i] - b'0'));
        i += 1;
    }
    if i == digits_start {
        return (0, 0);
    }
    (if neg { -v } else { v }, i)
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

    fn p(v: Option<&str>, w: usize, right: bool, cut: bool) -> String {
        let mut out = Vec::new();
        print_str(&mut out, v.map(str::as_bytes), w, right, cut);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn widths_and_justification() {
        assert_eq!(p(Some("abc"), 0, false, true), "abc");
        assert_eq!(p(Some("abc"), 5, false, true), "abc  ");
        assert_eq!(p(Some("abc"), 5, true, true), "  abc");
        assert_eq!(p(Some("abcdefgh"), 5, false, false), "abcde");
        assert_eq!(p(Some("abcdefgh"), 5, true, true), "abcde");
        assert_eq!(p(Some("abcdefgh"), 5, true, false), "abcdefgh");
    }

    #[test]
    fn null_strings_like_glibc() {
        assert_eq!(p(None, 0, false, true), "(null)");
        assert_eq!(p(None, 20, false, false), "(null)              ");
        assert_eq!(p(None, 4, false, true), "    ");
        assert_eq!(p(None, 8, true, true), "  (null)");
        assert_eq!(p(None, 4, true, true), "(nul");
    }

    #[test]
    fn c_number_parsing() {
        assert_eq!(strtol("12abc"), (12, 2));
        assert_eq!(strtol("abc"), (0, 0));
        assert_eq!(strtol(" -7"), (-7, 3));
        assert_eq!(atoi("30"), 30);
    }

    #[test]
    fn prefix_compare() {
        assert!(strncasecmp_eq("JobID", "jobid", 5));
        assert!(strncasecmp_eq("JobIDRaw", "jobid", 5));
        assert!(!strncasecmp_eq("JobID", "jobidx", 6));
        assert!(strncasecmp_eq("ALL", "a", 1));
    }
}
