//! The `#SBATCH` directive lexer: Slurm 22.05's `_opt_batch_script`, `next_line` and
//! `get_argument` (`src/sbatch/opt.c`).
//!
//! Rules, all from that code:
//! - Lines are split at `\n` (a final line without one counts; a NUL ends a line's text).
//! - A directive line *starts* (column 0, case-sensitive) with the magic word `#SBATCH`;
//!   nothing needs to follow it, so `#SBATCH--time=5` is the directive `--time=5`.
//!   `#SLURM` is accepted too, with the error line `Change from #SLURM to #SBATCH in your
//!   script and verify the options are valid in sbatch` once per scan.
//! - Other lines are skipped while their first non-space character is `#` or they are
//!   blank; the first other line ends the scan.
//! - After the magic word, blanks are skipped; the rest splits like a small shell:
//!   whitespace separates, `'...'` and `"..."` group (quotes removed), `\` makes the next
//!   character literal (also inside quotes), and an unquoted `#` ends the line. A `\`
//!   before a blank does *not* join words (the blank still ends the word). A word that
//!   comes out empty (`""`) ends the line: the rest of it is ignored.
//! - `hetjob` (or the deprecated `packjob`, with an info line), any case, at the start of
//!   a directive separates heterogeneous-job components; at the start of any later word it
//!   silently ends the line.
//! - An unmatched quote is fatal: `<file>: line <n>: Unmatched `<q>` in [<rest>]`, and so
//!   is a word starting with `:`: `<file>: line <n>: Unexpected `:` in [<rest>]`, where
//!   `<rest>` is the line from the end of the previous word (exit 1).
//!
//! Turning the words into options (and `Invalid directive found in batch script: <word>`
//! for a word that is not an option) is the option parser's job.
//!
//! Non-UTF-8 bytes in a directive are replaced (U+FFFD) in the returned words.

use std::fmt;

/// Which comment lines are directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The magic word, e.g. `#SBATCH`.
    pub magic: &'static str,
    /// A deprecated magic word still accepted, and the error line printed once for it.
    pub legacy: Option<(&'static str, &'static str)>,
}

/// sbatch's directives: `#SBATCH`, and `#SLURM` with a warning.
pub const SBATCH: Dialect = Dialect {
    magic: "#SBATCH",
    legacy: Some((
        "#SLURM",
        "Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch",
    )),
};

/// PBS's directives, which Slurm's sbatch also reads (bai-slurm only notices them).
pub const PBS: Dialect = Dialect {
    magic: "#PBS",
    legacy: None,
};

/// The words of one directive line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// 1-based line number in the script.
    pub line: usize,
    pub args: Vec<String>,
}

/// A message the lexer asks the command to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Through `error()`: `<prog>: error: <text>`.
    Error(String),
    /// Through `info()`: `<prog>: <text>`. Slurm prints the packjob notice once per
    /// process, so a caller scanning several components should print it once.
    Info(String),
}

const PACKJOB_NOTICE: &str = "Warning: the \"packjob\" component separator is being deprecated. Please, use \"hetjob\" instead.";

/// The directives of one heterogeneous-job component.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    pub directives: Vec<Directive>,
    /// To print before applying the directives, in order.
    pub notices: Vec<Notice>,
    /// A later `hetjob` separator was found: scan again with the next component index.
    pub more_components: bool,
}

impl Scan {
    /// All words, in order, as the option parser's argv (after `argv[0]`).
    pub fn args(&self) -> Vec<String> {
        self.directives
            .iter()
            .flat_map(|d| d.args.iter().cloned())
            .collect()
    }
}

/// What made the lexer stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectiveErrorKind {
    UnmatchedQuote(char),
    UnexpectedColon,
}

/// A fatal lexing error, printed as `<prog>: fatal: <message>`; exit status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectiveError {
    pub kind: DirectiveErrorKind,
    pub file: String,
    pub line: usize,
    /// The rest of the line from where the failing word's scan began.
    pub text: String,
    /// Notices gathered before the error; print them first.
    pub notices: Vec<Notice>,
}

impl DirectiveError {
    pub fn message(&self) -> String {
        match self.kind {
            DirectiveErrorKind::UnmatchedQuote(q) => format!(
                "{}: line {}: Unmatched `{q}` in [{}]",
                self.file, self.line, self.text
            ),
            DirectiveErrorKind::UnexpectedColon => format!(
                "{}: line {}: Unexpected `:` in [{}]",
                self.file, self.line, self.text
            ),
        }
    }

    pub fn exit_code(&self) -> i32 {
        1
    }
}

impl fmt::Display for DirectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for DirectiveError {}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `word` (any case) at the start of `s`, followed by the end or a space.
fn separator_word(s: &[u8], word: &str) -> bool {
    let n = word.len();
    s.len() >= n
        && s[..n].eq_ignore_ascii_case(word.as_bytes())
        && s.get(n).is_none_or(|&c| is_space(c))
}

enum Word {
    Arg(Vec<u8>, usize),
    End,
}

/// `get_argument` on `line`: the next word and how many bytes were consumed.
fn get_argument(line: &[u8], notices: &mut Vec<Notice>) -> Result<Word, DirectiveErrorKind> {
    let mut p = 0;
    while p < line.len() && is_space(line[p]) {
        p += 1;
    }
    let here = &line[p..];
    if separator_word(here, "packjob") {
        notices.push(Notice::Info(PACKJOB_NOTICE.to_string()));
        return Ok(Word::End);
    }
    if separator_word(here, "hetjob") {
        return Ok(Word::End);
    }
    match line.get(p) {
        None => return Ok(Word::End),
        Some(b':') => return Err(DirectiveErrorKind::UnexpectedColon),
        Some(_) => {}
    }
    let mut arg: Vec<u8> = Vec::new();
    let mut quote: Option<u8> = None;
    let mut escape = false;
    while let Some(&c) = line.get(p) {
        if (quote.is_none() && is_space(c)) || c == b'\n' {
            break;
        }
        if escape {
            escape = false;
        } else if c == b'\\' {
            escape = true;
            p += 1;
            continue;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
                p += 1;
                continue;
            }
        } else if c == b'"' || c == b'\'' {
            quote = Some(c);
            p += 1;
            continue;
        } else if c == b'#' {
            // An unquoted, unescaped `#`: the rest of the line is a comment.
            break;
        }
        arg.push(c);
        p += 1;
    }
    if let Some(q) = quote {
        return Err(DirectiveErrorKind::UnmatchedQuote(q as char));
    }
    Ok(if arg.is_empty() {
        Word::End
    } else {
        Word::Arg(arg, p)
    })
}

/// Scans `script` for the directives of heterogeneous-job component `het_index` (0 for
/// an ordinary job). `file_label` names the script in error messages: its basename, or
/// `stdin`.
pub fn scan_component(
    script: &[u8],
    file_label: &str,
    dialect: &Dialect,
    het_index: usize,
) -> Result<Scan, DirectiveError> {
    let mut scan = Scan::default();
    let mut warned = false;
    let mut het_scan = 0usize;
    let mut lines: Vec<&[u8]> = script.split(|&c| c == b'\n').collect();
    if script.ends_with(b"\n") || script.is_empty() {
        lines.pop();
    }
    for (idx, raw) in lines.into_iter().enumerate() {
        let lineno = idx + 1;
        let line = &raw[..raw.iter().position(|&c| c == 0).unwrap_or(raw.len())];
        let rest = if let Some(r) = line.strip_prefix(dialect.magic.as_bytes()) {
            r
        } else if let Some((legacy, warning)) = dialect.legacy
            && let Some(r) = line.strip_prefix(legacy.as_bytes())
        {
            if !warned {
                scan.notices.push(Notice::Error(warning.to_string()));
                warned = true;
            }
            r
        } else {
            match line.iter().find(|&&c| !is_space(c)) {
                None | Some(b'#') => continue,
                Some(_) => break,
            }
        };
        let start = rest
            .iter()
            .position(|&c| !is_space(c))
            .unwrap_or(rest.len());
        let rest = &rest[start..];
        if separator_word(rest, "packjob") || separator_word(rest, "hetjob") {
            het_scan += 1;
        }
        if het_scan < het_index {
            continue;
        }
        if het_scan > het_index {
            scan.more_components = true;
            break;
        }
        let mut args = Vec::new();
        let mut pos = 0;
        loop {
            match get_argument(&rest[pos..], &mut scan.notices) {
                Ok(Word::Arg(arg, used)) => {
                    args.push(String::from_utf8_lossy(&arg).into_owned());
                    pos += used;
                }
                Ok(Word::End) => break,
                Err(kind) => {
                    return Err(DirectiveError {
                        kind,
                        file: file_label.to_string(),
                        line: lineno,
                        text: String::from_utf8_lossy(&rest[pos..]).into_owned(),
                        notices: std::mem::take(&mut scan.notices),
                    });
                }
            }
        }
        if !args.is_empty() {
            scan.directives.push(Directive { line: lineno, args });
        }
    }
    Ok(scan)
}

/// [`scan_component`] for an ordinary (single-component) job.
pub fn scan(script: &[u8], file_label: &str, dialect: &Dialect) -> Result<Scan, DirectiveError> {
    scan_component(script, file_label, dialect, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn args(script: &str) -> Vec<String> {
        scan(script.as_bytes(), "job.sh", &SBATCH).unwrap().args()
    }
    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }
    fn fail(script: &str) -> String {
        scan(script.as_bytes(), "job.sh", &SBATCH)
            .unwrap_err()
            .message()
    }

    #[test]
    fn basic_directives() {
        let s = "#!/bin/bash\n#SBATCH -N 2 -t 10\n#SBATCH --job-name=x\n\necho hi\n#SBATCH -n 4\n";
        let sc = scan(s.as_bytes(), "job.sh", &SBATCH).unwrap();
        assert_eq!(
            sc.directives,
            vec![
                Directive {
                    line: 2,
                    args: v(&["-N", "2", "-t", "10"])
                },
                Directive {
                    line: 3,
                    args: v(&["--job-name=x"])
                },
            ]
        );
        assert!(sc.notices.is_empty());
        assert!(!sc.more_components);
    }

    #[test]
    fn scanning_stops_at_first_command() {
        assert_eq!(
            args("#!/bin/sh\n# comment\n   # indented comment\n\n \t\n#SBATCH -n1\nx\n#SBATCH -n2"),
            v(&["-n1"])
        );
        assert_eq!(args("#!/bin/sh\nset -e\n#SBATCH -n1\n"), v(&[]));
        // No trailing newline on the last line.
        assert_eq!(args("#!/bin/sh\n#SBATCH -n1"), v(&["-n1"]));
    }

    #[test]
    fn magic_word_rules() {
        // Case-sensitive, column 0 only.
        assert_eq!(args("#sbatch -n1\n#SBATCH -n2\n"), v(&["-n2"]));
        assert_eq!(args(" #SBATCH -n1\n#SBATCH -n2\n"), v(&["-n2"]));
        // Nothing has to follow the magic word.
        assert_eq!(args("#SBATCH--time=5\n"), v(&["--time=5"]));
        assert_eq!(args("#SBATCHfoo\n"), v(&["foo"]));
        assert_eq!(args("#SBATCH\n#SBATCH   \n"), v(&[]));
    }

    #[test]
    fn legacy_magic_word() {
        let sc = scan(b"#SLURM -n1\n#SLURM -n2\n#SBATCH -n3\n", "job.sh", &SBATCH).unwrap();
        assert_eq!(sc.args(), v(&["-n1", "-n2", "-n3"]));
        assert_eq!(
            sc.notices,
            vec![Notice::Error(
                "Change from #SLURM to #SBATCH in your script and verify the options are valid in sbatch".into()
            )]
        );
    }

    #[test]
    fn shell_like_words() {
        assert_eq!(args("#SBATCH -J \"my job\"\n"), v(&["-J", "my job"]));
        assert_eq!(args("#SBATCH -J 'my job'\n"), v(&["-J", "my job"]));
        assert_eq!(args("#SBATCH --comment=\"a b\"c\n"), v(&["--comment=a bc"]));
        assert_eq!(args("#SBATCH -J a\\\"b\n"), v(&["-J", "a\"b"]));
        assert_eq!(args("#SBATCH -J 'it\\'s'\n"), v(&["-J", "it's"]));
        assert_eq!(args("#SBATCH -J a\\#b\n"), v(&["-J", "a#b"]));
        assert_eq!(args("#SBATCH -J \"a#b\"\n"), v(&["-J", "a#b"]));
        assert_eq!(args("#SBATCH -J a\\\\b\n"), v(&["-J", "a\\b"]));
        assert_eq!(args("#SBATCH -o $HOME/x\n"), v(&["-o", "$HOME/x"]));
        // A backslash before a blank does not join the words.
        assert_eq!(args("#SBATCH -J a\\ b\n"), v(&["-J", "a", "b"]));
        // Tabs separate too.
        assert_eq!(args("#SBATCH\t-n\t2\n"), v(&["-n", "2"]));
    }

    #[test]
    fn comments_and_empty_words() {
        assert_eq!(args("#SBATCH -n 2 # two tasks\n"), v(&["-n", "2"]));
        assert_eq!(args("#SBATCH -J a#b -n 2\n"), v(&["-J", "a"]));
        assert_eq!(args("#SBATCH # -n 2\n#SBATCH -n 3\n"), v(&["-n", "3"]));
        // An empty word ends the line.
        assert_eq!(
            args("#SBATCH -J \"\" -n 2\n#SBATCH -c 1\n"),
            v(&["-J", "-c", "1"])
        );
        assert_eq!(args("#SBATCH \\\n"), v(&[]));
    }

    #[test]
    fn errors() {
        assert_eq!(
            fail("#SBATCH -J \"abc\n"),
            "job.sh: line 1: Unmatched `\"` in [ \"abc]"
        );
        assert_eq!(
            fail("#!/bin/sh\n#SBATCH   'abc\n"),
            "job.sh: line 2: Unmatched `'` in ['abc]"
        );
        assert_eq!(
            fail("#SBATCH -N 1 : -N 2\n"),
            "job.sh: line 1: Unexpected `:` in [ : -N 2]"
        );
        assert_eq!(fail("#SBATCH :\n"), "job.sh: line 1: Unexpected `:` in [:]");
        // A colon inside a word is fine.
        assert_eq!(args("#SBATCH -d afterok:1\n"), v(&["-d", "afterok:1"]));
        let e = scan(b"#SLURM 'x\n", "stdin", &SBATCH).unwrap_err();
        assert_eq!(e.message(), "stdin: line 1: Unmatched `'` in ['x]");
        assert_eq!(e.exit_code(), 1);
        assert_eq!(e.notices.len(), 1);
        // Errors after the scan stopped are never seen.
        assert_eq!(args("#SBATCH -n1\necho\n#SBATCH 'x\n"), v(&["-n1"]));
    }

    #[test]
    fn het_components() {
        let s = b"#!/bin/sh\n#SBATCH -n1\n#SBATCH hetjob\n#SBATCH -n2\n#SBATCH HetJob -x\n#SBATCH -n3\n";
        let c0 = scan_component(s, "j", &SBATCH, 0).unwrap();
        assert_eq!((c0.args(), c0.more_components), (v(&["-n1"]), true));
        let c1 = scan_component(s, "j", &SBATCH, 1).unwrap();
        assert_eq!((c1.args(), c1.more_components), (v(&["-n2"]), true));
        // The separator line's own words are dropped, as in Slurm.
        let c2 = scan_component(s, "j", &SBATCH, 2).unwrap();
        assert_eq!((c2.args(), c2.more_components), (v(&["-n3"]), false));
        let p = b"#SBATCH -n1\n#SBATCH packjob\n#SBATCH -n2\n";
        let c1 = scan_component(p, "j", &SBATCH, 1).unwrap();
        assert_eq!(c1.args(), v(&["-n2"]));
        assert_eq!(c1.notices, vec![Notice::Info(PACKJOB_NOTICE.into())]);
        // "hetjob" later on a line just ends that line.
        assert_eq!(args("#SBATCH -n1 hetjob -c2\n"), v(&["-n1"]));
        // Not a separator unless a word by itself.
        assert_eq!(args("#SBATCH hetjobs\n"), v(&["hetjobs"]));
    }

    #[test]
    fn nul_and_line_numbers() {
        let sc = scan(
            b"#!/bin/sh\n\n#SBATCH -n1\0junk\n#SBATCH -n2\n",
            "j",
            &SBATCH,
        )
        .unwrap();
        assert_eq!(
            sc.directives,
            vec![
                Directive {
                    line: 3,
                    args: v(&["-n1"])
                },
                Directive {
                    line: 4,
                    args: v(&["-n2"])
                }
            ]
        );
        assert_eq!(scan(b"", "j", &SBATCH).unwrap(), Scan::default());
    }

    #[test]
    fn other_dialects() {
        let pbs = Dialect {
            magic: "#PBS",
            legacy: None,
        };
        assert_eq!(
            scan(b"#PBS -l x\n#SLURM -n1\n", "j", &pbs).unwrap().args(),
            v(&["-l", "x"])
        );
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(47, "#SBATCHhetjob \"'\\:\n-n2x", 60, 20000) {
            let _ = scan_component(s.as_bytes(), "j", &SBATCH, 0);
            let _ = scan_component(s.as_bytes(), "j", &SBATCH, 1);
        }
    }
}
