//! Reads Slurm 22.05's `--help` texts (src/commands/text/*_help.txt) into one entry per
//! option: its spellings, the value name it shows and its description. The man pages and
//! completions take their option descriptions from here, so they say what Slurm says.

use std::collections::BTreeMap;

/// One option as a `--help` text describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelpEntry {
    pub short: Option<char>,
    /// Every long spelling on the line (`-M, --cluster` has one; a few lines list two).
    pub longs: Vec<String>,
    /// `indexes` of `--array=indexes`, `names` of `--export[=names]`.
    pub value: Option<String>,
    /// The description, continuation lines joined with single spaces.
    pub text: String,
}

/// The options of one help text, found by long name or short letter.
#[derive(Debug, Default)]
pub struct HelpText {
    pub entries: Vec<HelpEntry>,
    by_long: BTreeMap<String, usize>,
    by_short: BTreeMap<char, usize>,
}

impl HelpText {
    pub fn parse(text: &str) -> HelpText {
        let mut entries: Vec<HelpEntry> = Vec::new();
        // Indentation of the open entry's option line; continuation lines are deeper.
        let mut open: Option<usize> = None;
        for raw in text.lines() {
            let line = expand_tabs(raw);
            let body = line.trim_start();
            let indent = line.len() - body.len();
            let body = body.trim_end();
            if body.is_empty() {
                open = None;
                continue;
            }
            if is_option_start(body)
                && let Some(entry) = parse_option_line(body)
            {
                entries.push(entry);
                open = Some(indent);
                continue;
            }
            match open {
                Some(ind) if indent > ind + 3 => {
                    let e = entries.last_mut().expect("open entry");
                    if !e.text.is_empty() {
                        e.text.push(' ');
                    }
                    e.text.push_str(&squash(body));
                }
                _ => open = None,
            }
        }
        let mut h = HelpText {
            entries,
            ..HelpText::default()
        };
        for (i, e) in h.entries.iter().enumerate() {
            for l in &e.longs {
                h.by_long.entry(l.clone()).or_insert(i);
            }
            if let Some(c) = e.short {
                h.by_short.entry(c).or_insert(i);
            }
        }
        h
    }

    pub fn long(&self, name: &str) -> Option<&HelpEntry> {
        self.by_long.get(name).map(|&i| &self.entries[i])
    }

    pub fn short(&self, c: char) -> Option<&HelpEntry> {
        self.by_short.get(&c).map(|&i| &self.entries[i])
    }

    /// The description that follows `head` (a keyword and its arguments, as scontrol's
    /// help prints them) at the start of a line, with its continuation lines.
    pub fn keyword(text: &str, head: &str) -> Option<String> {
        let lines: Vec<String> = text.lines().map(expand_tabs).collect();
        let start = lines.iter().position(|l| {
            let t = l.trim_start();
            t.starts_with(head)
                && t[head.len()..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
                && l.len() - t.len() == 5
        })?;
        let mut desc = squash(lines[start].trim_start()[head.len()..].trim());
        for l in &lines[start + 1..] {
            let t = l.trim();
            let indent = l.len() - l.trim_start().len();
            if t.is_empty() || indent < 20 {
                break;
            }
            if !desc.is_empty() {
                desc.push(' ');
            }
            desc.push_str(&squash(t));
        }
        Some(desc)
    }
}

fn is_option_start(body: &str) -> bool {
    let mut ch = body.chars();
    ch.next() == Some('-')
        && ch
            .next()
            .is_some_and(|c| c == '-' || c.is_ascii_alphanumeric())
}

fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c == '\t' {
            let n = 8 - out.chars().count() % 8;
            out.extend(std::iter::repeat_n(' ', n));
        } else {
            out.push(c);
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `-a, --array=indexes         job array index values`, `--export[=names]  ...`,
/// `-u,--uid       ...`, `-c, --completion: Use job ...`, `-s, --signal=name | integer  ...`.
fn parse_option_line(body: &str) -> Option<HelpEntry> {
    let mut e = HelpEntry::default();
    let tokens: Vec<&str> = body.split(' ').collect();
    let mut i = 0;
    let mut saw_option = false;
    while i < tokens.len() {
        let tok = tokens[i];
        if tok.is_empty() {
            // Two spaces end the spellings.
            if saw_option {
                break;
            }
            i += 1;
            continue;
        }
        if !tok.starts_with('-') || (saw_option && e.value.is_some()) {
            break;
        }
        i += 1;
        for part in tok.split(',').filter(|p| !p.is_empty()) {
            let part = part.trim_end_matches(':');
            if let Some(long) = part.strip_prefix("--") {
                let (name, value) = split_value(long);
                if name.is_empty() {
                    continue;
                }
                e.longs.push(name.to_string());
                if let Some(mut v) = value {
                    // `(license names)`, `name | integer`: the value goes on until its
                    // brackets close or past `|`.
                    while i < tokens.len()
                        && !tokens[i].is_empty()
                        && (unbalanced(&v) || tokens[i] == "|" || v.ends_with('|'))
                    {
                        v.push(' ');
                        v.push_str(tokens[i]);
                        i += 1;
                    }
                    e.value = Some(v);
                }
            } else if let Some(s) = part.strip_prefix('-') {
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => e.short = Some(c),
                    _ => return None,
                }
            }
            saw_option = true;
        }
    }
    if !saw_option {
        return None;
    }
    e.text = squash(&tokens[i.min(tokens.len())..].join(" "));
    Some(e)
}

fn split_value(long: &str) -> (&str, Option<String>) {
    if let Some(p) = long.find("[=") {
        let v = long[p + 2..].trim_end_matches(']');
        return (&long[..p], Some(v.to_string()));
    }
    if let Some((n, v)) = long.split_once('=') {
        return (n, Some(v.to_string()));
    }
    (long, None)
}

fn unbalanced(v: &str) -> bool {
    let open = v.matches(['(', '[', '<']).count();
    let close = v.matches([')', ']', '>']).count();
    open > close
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbatch_lines() {
        let h = HelpText::parse(include_str!("../commands/text/sbatch_help.txt"));
        let a = h.long("array").unwrap();
        assert_eq!(a.short, Some('a'));
        assert_eq!(a.value.as_deref(), Some("indexes"));
        assert_eq!(a.text, "job array index values");
        let e = h.long("export").unwrap();
        assert_eq!(e.value.as_deref(), Some("names"));
        let f = h.long("cpu-freq").unwrap();
        assert_eq!(f.value.as_deref(), Some("min[-max[:gov]]"));
        assert_eq!(f.text, "requested cpu frequency (and governor)");
        let m = h.long("clusters").unwrap();
        assert!(
            m.text
                .starts_with("Comma separated list of clusters to issue commands to.")
        );
        assert!(m.text.ends_with("NOTE: SlurmDBD must up."));
    }

    #[test]
    fn other_layouts() {
        let s = HelpText::parse(include_str!("../commands/text/scancel_help.txt"));
        assert_eq!(
            s.long("signal").unwrap().value.as_deref(),
            Some("name | integer")
        );
        let q = HelpText::parse(include_str!("../commands/text/squeue_help.txt"));
        assert_eq!(
            q.long("licenses").unwrap().value.as_deref(),
            Some("(license names)")
        );
        let c = HelpText::parse(include_str!("../commands/text/scontrol_help.txt"));
        assert_eq!(c.short('u').unwrap().longs, ["uid"]);
        let a = HelpText::parse(include_str!("../commands/text/sacct_help.txt"));
        assert_eq!(
            a.long("completion").unwrap().text,
            "Use job completion instead of accounting data."
        );
        assert!(a.long("allusers").unwrap().text.starts_with("Display jobs"));
    }

    #[test]
    fn scontrol_keywords() {
        let t = include_str!("../commands/text/scontrol_help.txt");
        assert_eq!(
            HelpText::keyword(t, "show <ENTITY> [<ID>]").unwrap(),
            "display state of identified entity, default is all records."
        );
        assert_eq!(
            HelpText::keyword(t, "release <job_list>").unwrap(),
            "permit specified job to start (see hold)"
        );
    }
}
