//! The two format languages of squeue and sinfo: `-o "%.18i %9P"` (letters) and
//! `-O "JobID:10 ,Name"` (names), parsed exactly as their `parse_format` and
//! `parse_long_format` do.

use crate::model::cnum::strtol;

/// One element of a parsed format: a field with its layout, or literal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<F> {
    /// Text printed as is: a prefix before the first `%`, or an unknown field
    /// (Slurm prints the unknown token back, `%` included, for `-o`).
    Text(String),
    Field {
        field: F,
        /// 0 = natural width.
        width: usize,
        right: bool,
        /// Text printed right after the field.
        suffix: String,
    },
}

/// The widest column we lay out. C's printf would pad to any width (and Slurm's int
/// would overflow first); beyond this a format is a mistake, not a layout, and honouring it
/// would only exhaust memory.
pub const MAX_WIDTH: usize = 65_536;

/// A parsed format and the unknown letters or names found in it (Slurm reports each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<F> {
    pub items: Vec<Item<F>>,
    /// The unknown letters (as one-character strings; empty when a `%` ends the format)
    /// or names, in order.
    pub unknown: Vec<String>,
}

/// How letters and names map to fields.
pub struct Lookup<'a, F> {
    pub letter: &'a dyn Fn(char) -> Option<F>,
    pub name: &'a dyn Fn(&str) -> Option<F>,
    /// Text after each upper-case letter in the `%all` expansion (sinfo adds a space).
    pub all_upper_suffix: &'a str,
}

/// `-o`: literal prefix, then `%[.][width]<letter><suffix>` items separated by `%`.
/// Runs of `%` count as one separator (Slurm splits with `strtok`), and `%all` expands to
/// every letter separated by `|`.
pub fn parse_letters<F>(format: &str, lookup: &Lookup<F>) -> Parsed<F> {
    let mut items = Vec::new();
    let mut unknown = Vec::new();
    let (prefix, rest) = match format.find('%') {
        None => (Some(format), ""),
        Some(0) => (None, format),
        Some(i) => (Some(&format[..i]), &format[i..]),
    };
    if let Some(p) = prefix {
        items.push(Item::Text(p.to_string()));
    }
    // Slurm compares after cutting the prefix off, so `x%all` expands too.
    let format_all = rest.eq_ignore_ascii_case("%all");
    let expanded;
    let body = if format_all {
        let letters: Vec<String> = ('a'..='z')
            .map(|c| format!("%{c}"))
            .chain(('A'..='Z').map(|c| format!("%{c}{}", lookup.all_upper_suffix)))
            .collect();
        expanded = letters.join("|");
        expanded.as_str()
    } else {
        rest
    };
    for token in body.split('%').filter(|t| !t.is_empty()) {
        let (field_char, width, right, suffix) = parse_token(token);
        match field_char.and_then(|c| (lookup.letter)(c)) {
            Some(field) => items.push(Item::Field {
                field,
                width,
                right,
                suffix: suffix.to_string(),
            }),
            None if format_all => {}
            None => {
                items.push(Item::Text(format!("%{token}")));
                unknown.push(field_char.map(String::from).unwrap_or_default());
            }
        }
    }
    Parsed { items, unknown }
}

/// `_parse_token`: `.` for right-justify, decimal width, the field letter, the rest.
fn parse_token(token: &str) -> (Option<char>, usize, bool, &str) {
    let bytes = token.as_bytes();
    let mut i = 0;
    let right = bytes.first() == Some(&b'.');
    if right {
        i += 1;
    }
    let mut width: usize = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        width = width
            .saturating_mul(10)
            .saturating_add(usize::from(bytes[i] - b'0'));
        i += 1;
    }
    let width = width.min(MAX_WIDTH);
    match token[i..].chars().next() {
        None => (None, width, right, ""),
        Some(c) => (Some(c), width, right, &token[i + c.len_utf8()..]),
    }
}

/// `-O`: comma-separated `name[:[.]width][suffix]`; no `:width` means width 20, left.
pub fn parse_names<F>(format: &str, lookup: &Lookup<F>) -> Parsed<F> {
    let mut items = Vec::new();
    let mut unknown = Vec::new();
    for token in format.split(',').filter(|t| !t.is_empty()) {
        let (name, width, right, suffix) = parse_long_token(token);
        match (lookup.name)(name) {
            Some(field) => items.push(Item::Field {
                field,
                width,
                right,
                suffix,
            }),
            None => {
                items.push(Item::Text(suffix));
                unknown.push(name.to_string());
            }
        }
    }
    Parsed { items, unknown }
}

/// `_parse_long_token`: the name, the width (C `strtol`, so `:x` gives 0), justification,
/// and the text after the width as suffix.
pub fn parse_long_token(token: &str) -> (&str, usize, bool, String) {
    match token.split_once(':') {
        None => (token, 20, false, String::new()),
        Some((name, spec)) => {
            let (right, spec) = match spec.strip_prefix('.') {
                Some(s) => (true, s),
                None => (false, spec),
            };
            let (width, used) = strtol(spec.as_bytes()).value_and_end();
            // A negative width would make printf left-justify; Slurm never documents it,
            // and a zero width (natural size) is the safe reading.
            let width = usize::try_from(width).unwrap_or(0).min(MAX_WIDTH);
            (name, width, right, spec[used..].to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup() -> Lookup<'static, char> {
        Lookup {
            letter: &|c| {
                if c.is_ascii_lowercase() {
                    Some(c)
                } else {
                    None
                }
            },
            name: &|n| n.chars().next().filter(|_| n.eq_ignore_ascii_case("jobid")),
            all_upper_suffix: "",
        }
    }

    fn field(f: char, width: usize, right: bool, suffix: &str) -> Item<char> {
        Item::Field {
            field: f,
            width,
            right,
            suffix: suffix.to_string(),
        }
    }

    #[test]
    fn letters_with_prefix_width_and_suffix() {
        let p = parse_letters("ID:%.18i %9j|", &lookup());
        assert_eq!(
            p.items,
            vec![
                Item::Text("ID:".into()),
                field('i', 18, true, " "),
                field('j', 9, false, "|"),
            ]
        );
        assert!(p.unknown.is_empty());
    }

    #[test]
    fn unknown_letter_is_printed_back_and_reported() {
        let p = parse_letters("%i %5Q!", &lookup());
        assert_eq!(
            p.items,
            vec![field('i', 0, false, " "), Item::Text("%5Q!".into())]
        );
        assert_eq!(p.unknown, vec!["Q"]);
    }

    #[test]
    fn text_without_percent_is_all_prefix() {
        let p = parse_letters("hello", &lookup());
        assert_eq!(p.items, vec![Item::Text("hello".into())]);
    }

    #[test]
    fn double_percent_is_one_separator() {
        let p = parse_letters("%%i", &lookup());
        assert_eq!(p.items, vec![field('i', 0, false, "")]);
    }

    #[test]
    fn all_expands_and_ignores_unknown() {
        let p = parse_letters("%ALL", &lookup());
        assert_eq!(p.items.len(), 26);
        assert!(p.unknown.is_empty());
    }

    #[test]
    fn names_with_width_and_suffix() {
        let p = parse_names("jobid:.18 ,JOBID,jobid:5x,,nope:3|", &lookup());
        assert_eq!(
            p.items,
            vec![
                field('j', 18, true, " "),
                field('J', 20, false, ""),
                field('j', 5, false, "x"),
                Item::Text("|".into()),
            ]
        );
        assert_eq!(p.unknown, vec!["nope"]);
    }
}
