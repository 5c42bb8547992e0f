//! `print_fields_*` from `src/common/print_fields.c`: one cell of sacct's output in fixed
//! width (`%*.*s `, `+` marking a cut string) or parsable (`|`-delimited) mode.

/// How cells are laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Fixed-width columns, each followed by one space.
    Fixed,
    /// `-p`: delimiter after every field, the last one included.
    Parsable { delimiter: String },
    /// `-P`: delimiter between fields only.
    Parsable2 { delimiter: String },
}

impl Layout {
    pub fn is_parsable(&self) -> bool {
        !matches!(self, Layout::Fixed)
    }

    /// What follows a parsable cell: the delimiter, or nothing after `-P`'s last field.
    fn ending(&self, last: bool) -> &str {
        match self {
            Layout::Fixed => "",
            Layout::Parsable { delimiter } => delimiter,
            Layout::Parsable2 { delimiter } => {
                if last {
                    ""
                } else {
                    delimiter
                }
            }
        }
    }
}

/// `printf("%*.*s ", len, abs(len), text)`: right-justified for a positive width,
/// left-justified for a negative one, cut to the width.
fn fixed(out: &mut Vec<u8>, len: i32, text: &[u8]) {
    let w = len.unsigned_abs() as usize;
    let t = &text[..text.len().min(w)];
    if len >= 0 {
        out.resize(out.len() + (w - t.len()), b' ');
        out.extend_from_slice(t);
    } else {
        out.extend_from_slice(t);
        out.resize(out.len() + (w - t.len()), b' ');
    }
    out.push(b' ');
}

/// `printf("%*s ", len, text)`: padded, never cut.
fn padded(out: &mut Vec<u8>, len: i32, text: &[u8]) {
    let w = len.unsigned_abs() as usize;
    let pad = w.saturating_sub(text.len());
    if len >= 0 {
        out.resize(out.len() + pad, b' ');
        out.extend_from_slice(text);
    } else {
        out.extend_from_slice(text);
        out.resize(out.len() + pad, b' ');
    }
    out.push(b' ');
}

/// A header cell: the name, cut to the width without a `+`.
pub fn header(out: &mut Vec<u8>, layout: &Layout, len: i32, name: &str, last: bool) {
    if layout.is_parsable() {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(layout.ending(last).as_bytes());
    } else {
        fixed(out, len, name.as_bytes());
    }
}

/// `print_fields_str`: NULL prints a blank; a value longer than the width is cut and its
/// last visible character replaced by `+`.
pub fn string(out: &mut Vec<u8>, layout: &Layout, len: i32, value: Option<&str>, last: bool) {
    if layout.is_parsable() {
        out.extend_from_slice(value.unwrap_or("").as_bytes());
        out.extend_from_slice(layout.ending(last).as_bytes());
        return;
    }
    let w = len.unsigned_abs() as usize;
    match value {
        None => fixed(out, len, b" "),
        Some(v) => {
            let b = v.as_bytes();
            if b.len() > w && w > 0 {
                let mut cut = b[..w].to_vec();
                cut[w - 1] = b'+';
                fixed(out, len, &cut);
            } else {
                fixed(out, len, b);
            }
        }
    }
}

/// `print_fields_uint32`/`uint64`: unset prints a blank; numbers are never cut.
pub fn number(out: &mut Vec<u8>, layout: &Layout, len: i32, value: Option<u64>, last: bool) {
    match value {
        None => {
            if layout.is_parsable() {
                out.extend_from_slice(layout.ending(last).as_bytes());
            } else {
                padded(out, len, b" ");
            }
        }
        Some(n) => text_uncut(out, layout, len, &n.to_string(), last),
    }
}

/// A value printed with `%*s` (durations): padded, never cut.
pub fn text_uncut(out: &mut Vec<u8>, layout: &Layout, len: i32, text: &str, last: bool) {
    if layout.is_parsable() {
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(layout.ending(last).as_bytes());
    } else {
        padded(out, len, text.as_bytes());
    }
}

/// `print_fields_date`: the timestamp was already cut to the width by its buffer.
pub fn date(out: &mut Vec<u8>, layout: &Layout, len: i32, text: &str, last: bool) {
    if layout.is_parsable() {
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(layout.ending(last).as_bytes());
    } else {
        fixed(out, len, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(layout: &Layout, len: i32, v: Option<&str>, last: bool) -> String {
        let mut out = Vec::new();
        string(&mut out, layout, len, v, last);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn fixed_strings_cut_with_plus() {
        assert_eq!(s(&Layout::Fixed, 10, Some("ok_job"), false), "    ok_job ");
        assert_eq!(
            s(&Layout::Fixed, 10, Some("interactive"), false),
            "interacti+ "
        );
        assert_eq!(
            s(&Layout::Fixed, -12, Some("1.batch"), false),
            "1.batch      "
        );
        assert_eq!(s(&Layout::Fixed, 10, None, false), "           ");
        assert_eq!(
            s(&Layout::Fixed, 10, Some("CANCELLED by 1001"), false),
            "CANCELLED+ "
        );
    }

    #[test]
    fn parsable_modes() {
        let p = Layout::Parsable {
            delimiter: "|".into(),
        };
        let p2 = Layout::Parsable2 {
            delimiter: "|".into(),
        };
        assert_eq!(s(&p, 10, Some("interactive"), true), "interactive|");
        assert_eq!(s(&p2, 10, Some("x"), true), "x");
        assert_eq!(s(&p2, 10, None, false), "|");
    }

    #[test]
    fn numbers_and_blanks() {
        let mut out = Vec::new();
        number(&mut out, &Layout::Fixed, 10, Some(1), false);
        number(&mut out, &Layout::Fixed, 8, None, false);
        number(&mut out, &Layout::Fixed, 2, Some(12345), false);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "         1          12345 "
        );
    }

    #[test]
    fn headers() {
        let mut out = Vec::new();
        header(&mut out, &Layout::Fixed, -12, "JobID", false);
        header(&mut out, &Layout::Fixed, 8, "ExitCode", true);
        header(&mut out, &Layout::Fixed, 4, "AllocCPUS", true);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "JobID        ExitCode Allo "
        );
    }
}
