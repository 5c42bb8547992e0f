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
}
