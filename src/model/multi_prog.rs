//! `srun --multi-prog`: a configuration file that gives each task rank its own program and
//! arguments (Slurm's MPMD file: `RANKS PROGRAM ARGS...`, `%t` the task's rank, `%o` its
//! offset within its line's ranks).
//!
//! Slurm reads the file twice, with two readers that differ in small ways, and both are
//! followed here as written: srun checks it before anything runs (`verify_multi_name`,
//! src/srun/libsrun/multi_prog.c), and each node reads every task's command line from it
//! (`multi_prog_get_argv`, src/slurmd/slurmstepd/multi_prog.c).

/// `_load_multi`: srun refuses a bigger file.
pub const MAX_FILE_SIZE: u64 = 60000;
/// srun reads the file with fgets into a buffer of Slurm's BUF_SIZE.
const LINE_BUFFER: usize = 16 * 1024;
/// slurmstepd's `MAX_ARGC`: a task gets at most this many arguments less one.
const MAX_ARGC: usize = 128;
/// A rank beyond which srun would ask for more tasks than any allocation can have; Slurm
/// sizes a bitmap by it, which must not take this process's memory.
const MAX_RANK: i64 = 1 << 20;

/// What srun's check found: the task count (grown to the highest rank when no count was
/// given), or its error lines (each printed as `srun: error: ...`, exit 1).
pub fn verify(text: &[u8], fname: &str, ntasks: u32, ntasks_set: bool) -> Result<u32, Vec<String>> {
    let mut v = Verifier {
        ntasks: i64::from(ntasks),
        ntasks_set,
        grown_here: false,
        has_asterisk: false,
        mask: vec![false; ntasks as usize],
    };
    if ntasks == 0 {
        return Err(vec![format!("Invalid task count {ntasks}")]);
    }
    let text = until_nul(text);
    let mut continued = Lines::default();
    for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        let line_num = i + 1;
        if line.len() >= LINE_BUFFER - 1 {
            return Err(vec![format!(
                "Line {line_num} of configuration file {fname} too long"
            )]);
        }
        let line_break = line.ends_with(b"\\") || line.ends_with(b"\\\n");
        let Some(p) = continued.content(line, line_break) else {
            continue;
        };
        let mut tokens = p
            .split(|b| matches!(b, b' ' | b'\t' | b'\n'))
            .filter(|t| !t.is_empty());
        let (Some(ranks), Some(_program)) = (tokens.next(), tokens.next()) else {
            return Err(vec![format!(
                "Line {line_num} of configuration file {fname} invalid"
            )]);
        };
        if let Err(e) = v.ranks(ranks) {
            return Err(vec![
                e,
                format!("Line {line_num} of configuration file {fname} invalid"),
            ]);
        }
    }
    if let Some(missing) = v.mask.iter().position(|set| !set) {
        return Err(vec![format!(
            "Configuration file {fname} invalid, no record for task id {missing}"
        )]);
    }
    Ok(v.ntasks as u32)
}

/// srun's state while it checks the file (`_validate_ranks`, `_update_task_mask`).
struct Verifier {
    ntasks: i64,
    ntasks_set: bool,
    /// Whether this check grew the task count (it may grow it again).
    grown_here: bool,
    has_asterisk: bool,
    mask: Vec<bool>,
}

impl Verifier {
    fn ranks(&mut self, ranks: &[u8]) -> Result<(), String> {
        if ranks == b"*" {
            self.ntasks_set = true;
            self.has_asterisk = true;
            return self.mark(0, self.ntasks - 1, true);
        }
        for range in ranks.split(|&b| b == b',').filter(|r| !r.is_empty()) {
            let digits = range.iter().take_while(|b| b.is_ascii_digit()).count();
            let (low, high) = if self.has_asterisk {
                return Err("Task range specification with asterisk must be last".into());
            } else if digits == range.len() {
                (atoi(range), atoi(range))
            } else if range[digits] == b'-' {
                let upper = &range[digits + 1..];
                if !upper.iter().all(u8::is_ascii_digit) {
                    return Err("Invalid task range specification".into());
                }
                (atoi(range), atoi(upper))
            } else {
                return Err(format!(
                    "Invalid task range specification ({})",
                    String::from_utf8_lossy(range)
                ));
            };
            self.mark(low, high, false)?;
        }
        Ok(())
    }

    fn mark(&mut self, low: i64, high: i64, ignore_duplicates: bool) -> Result<(), String> {
        if low > high {
            return Err(format!("Invalid task range, {low}-{high}"));
        }
        if low < 0 {
            return Err(format!("Invalid task id, {low} < 0"));
        }
        if high >= self.ntasks {
            if (self.ntasks_set && !self.grown_here) || high >= MAX_RANK {
                return Err(format!("Invalid task id, {high} >= ntasks"));
            }
            self.ntasks = high + 1;
            self.ntasks_set = true;
            self.grown_here = true;
            self.mask.resize(self.ntasks as usize, false);
        }
        for i in low..=high {
            let slot = &mut self.mask[i as usize];
            if *slot {
                if ignore_duplicates {
                    continue;
                }
                return Err(format!("Duplicate record for task {i}"));
            }
            *slot = true;
        }
        Ok(())
    }
}

/// The command line of task `rank`, as its node reads it from the file: the program and
/// its arguments, then srun's own arguments after the file's name (`extra`). None when the
/// file gives the task nothing to run (slurmstepd then ends the task: `No executable
/// program specified for this task`, exit 2).
pub fn task_argv(text: &[u8], rank: u32, extra: &[String]) -> Option<Vec<String>> {
    let text = until_nul(text);
    // strtok_r over "\n": empty lines are no lines at all.
    let mut lines = text.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let mut continued = Lines::default();
    let rank = i64::from(rank);
    while let Some(line) = lines.next() {
        let Some(p) = continued.content(line, line.ends_with(b"\\")) else {
            continue;
        };
        let spec_len = p.iter().take_while(|b| !is_space(**b)).count();
        if spec_len == p.len() {
            // "Invalid MPMD configuration line N".
            return None;
        }
        let Some(offset) = in_range(rank, &p[..spec_len]) else {
            continue;
        };
        let args = trim_leading_space(&p[spec_len + 1..]);
        let mut argv = arguments(args, &mut lines, rank, offset)?;
        for e in extra {
            if argv.len() + 1 >= MAX_ARGC {
                break;
            }
            argv.push(e.clone());
        }
        return Some(argv);
    }
    // "Program for task rank N not specified."
    None
}

/// Whether `rank` is among `spec`'s ranks, and its offset among them (`_in_range`).
fn in_range(rank: i64, spec: &[u8]) -> Option<i64> {
    if spec == b"*" {
        return Some(rank);
    }
    let mut passed = 0;
    for range in spec.split(|&b| b == b',').filter(|r| !r.is_empty()) {
        let digits = range.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == range.len() {
            if rank == atoi(range) {
                return Some(passed);
            }
            passed += 1;
        } else if range[digits] == b'-' {
            let upper = &range[digits + 1..];
            // Anything else is "ignored" (logged on the node only).
            if !upper.iter().all(u8::is_ascii_digit) {
                continue;
            }
            let (low, high) = (atoi(range), atoi(upper));
            if (low..=high).contains(&rank) {
                return Some(passed + rank - low);
            }
            passed += 1 + high - low;
        }
    }
    None
}

/// A task's arguments from the rest of its line: words split at white space, `'...'`
/// quoting, `\` escaping one character or, at the end of a line, continuing on the next,
/// `%t` and `%o` (any other `%x` is dropped). A word starts wherever Slurm's reader
/// starts one, so an escape or a quote after white space makes an empty word, as there.
fn arguments<'a>(
    line: &'a [u8],
    lines: &mut impl Iterator<Item = &'a [u8]>,
    rank: i64,
    offset: i64,
) -> Option<Vec<String>> {
    let mut argv: Vec<String> = Vec::new();
    let mut word: Option<Vec<u8>> = None;
    let mut s = line;
    let mut at = 0;
    'words: while at < s.len() {
        if let Some(w) = word.take() {
            argv.push(String::from_utf8_lossy(&w).into_owned());
        }
        if argv.len() + 1 >= MAX_ARGC {
            break;
        }
        // CONT in Slurm's reader: the rest of one word.
        loop {
            let start = at;
            while at < s.len() && !matches!(s[at], b'\\' | b'%' | b'\'') && !is_space(s[at]) {
                at += 1;
            }
            word.get_or_insert_with(Vec::new)
                .extend_from_slice(&s[start..at]);
            let Some(&c) = s.get(at) else {
                break 'words;
            };
            match c {
                b'%' => {
                    let w = word.get_or_insert_with(Vec::new);
                    match s.get(at + 1) {
                        Some(b't') => w.extend_from_slice(rank.to_string().as_bytes()),
                        Some(b'o') => w.extend_from_slice(offset.to_string().as_bytes()),
                        None => break 'words,
                        Some(_) => {}
                    }
                    at += 2;
                }
                b'\\' => {
                    at += 1;
                    if let Some(&escaped) = s.get(at) {
                        word.get_or_insert_with(Vec::new).push(escaped);
                        at += 1;
                    } else {
                        let Some(next) = lines.next() else {
                            break 'words;
                        };
                        s = next;
                        at = 0;
                    }
                }
                b'\'' => {
                    at += 1;
                    let quoted_from = at;
                    let first_line = s;
                    loop {
                        while at < s.len() && s[at] != b'\'' {
                            at += 1;
                        }
                        if at < s.len() {
                            break;
                        }
                        // No closing quote: a line that ends in `\` goes on, else the
                        // arguments are malformed.
                        if at > 0
                            && s[at - 1] == b'\\'
                            && let Some(next) = lines.next()
                        {
                            s = next;
                            at = 0;
                            continue;
                        }
                        return None;
                    }
                    // Slurm copies from the quote to the end of the quote's own line when
                    // the closing quote is on a later one (the text between is lost).
                    let w = word.get_or_insert_with(Vec::new);
                    if std::ptr::eq(first_line, s) {
                        w.extend_from_slice(&s[quoted_from..at]);
                    } else {
                        w.extend_from_slice(&first_line[quoted_from..]);
                    }
                    at += 1;
                }
                _ => {
                    while at < s.len() && is_space(s[at]) {
                        at += 1;
                    }
                    continue 'words;
                }
            }
        }
    }
    if let Some(w) = word {
        argv.push(String::from_utf8_lossy(&w).into_owned());
    }
    Some(argv)
}

/// What both readers skip: the line after one that ends in `\` (not read for ranks),
/// comments (`#` first) and blank lines; what remains starts at its first non-space.
#[derive(Default)]
struct Lines {
    last_line_break: bool,
}

impl Lines {
    fn content<'a>(&mut self, line: &'a [u8], line_break: bool) -> Option<&'a [u8]> {
        let after_break = std::mem::replace(&mut self.last_line_break, line_break);
        let p = trim_leading_space(line);
        (!after_break && p.first() != Some(&b'#') && !p.is_empty()).then_some(p)
    }
}

/// C's `isspace`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn trim_leading_space(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| is_space(**b)).count();
    &s[n..]
}

/// The file as the C string Slurm passes around: up to its first NUL.
pub fn until_nul(text: &[u8]) -> &[u8] {
    text.split(|&b| b == 0).next().unwrap_or_default()
}

/// C's `atoi` of digits: saturating, where Slurm's int would wrap (a rank that large is
/// refused either way).
fn atoi(digits: &[u8]) -> i64 {
    digits
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(text: &str, rank: u32) -> Option<Vec<String>> {
        task_argv(text.as_bytes(), rank, &[])
    }

    fn words(a: &[&str]) -> Option<Vec<String>> {
        Some(a.iter().map(|s| s.to_string()).collect())
    }

    /// What 22.05.8's tasks printed for these lines (checked live, `srun -l --multi-prog`).
    #[test]
    fn tasks_read_their_lines_as_slurmstepd_does() {
        let conf = "# a comment\n  # indented comment\n\n0 echo task %t offset %o\n\
                    1-2 echo 'quoted  arg' %t x%%y %q\n3,5 echo odd %o a\\ b\n\
                    4   printf [%s]\\n \"dq  x\" it\\'s\n* echo rest %t %o\n";
        assert_eq!(argv(conf, 0), words(&["echo", "task", "0", "offset", "0"]));
        assert_eq!(
            argv(conf, 2),
            words(&["echo", "quoted  arg", "2", "xy", ""])
        );
        assert_eq!(argv(conf, 5), words(&["echo", "odd", "1", "a b"]));
        assert_eq!(
            argv(conf, 4),
            words(&["printf", "[]n", "\"dq", "x\"", "it's"])
        );
        assert_eq!(argv(conf, 6), words(&["echo", "rest", "6", "6"]));
        // A line continued: the escape before the line's end starts an empty word.
        let conf = "0-1 echo first %t\n2 echo second \\\n  continued %t\n3 echo third\n";
        assert_eq!(
            argv(conf, 2),
            words(&["echo", "second", "", "continued", "2"])
        );
        assert_eq!(argv(conf, 3), words(&["echo", "third"]));
        assert_eq!(argv(conf, 1), words(&["echo", "first", "1"]));
        // An unterminated quote, a line without a program, a rank without a line.
        assert_eq!(argv("0 echo 'abc\n1 echo ok\n", 0), None);
        assert_eq!(argv("0 echo 'abc\n1 echo ok\n", 1), words(&["echo", "ok"]));
        assert_eq!(argv("0\n", 0), None);
        assert_eq!(argv("0 echo\n", 1), None);
        assert_eq!(argv("0 \n", 0), words(&[]));
        // A list's offsets count its ranks in the order written.
        assert_eq!(argv("1,0 echo %o\n", 0), words(&["echo", "1"]));
    }

    #[test]
    fn srun_arguments_after_the_file_go_to_every_task() {
        let extra = ["extra1".to_string(), "extra2".to_string()];
        assert_eq!(
            task_argv(b"* echo %t\n", 1, &extra),
            words(&["echo", "1", "extra1", "extra2"])
        );
    }

    /// srun's own check, with the messages 22.05.8 printed (checked live).
    #[test]
    fn srun_checks_the_file_first() {
        let v = |t: &str, n: u32, set: bool| verify(t.as_bytes(), "f.conf", n, set);
        assert_eq!(v("0 echo a\n1-2 echo b\n", 3, true), Ok(3));
        assert_eq!(
            v("0 echo a\n1\n", 2, true),
            Err(vec!["Line 2 of configuration file f.conf invalid".into()])
        );
        assert_eq!(
            v("0 echo a\nx-1 echo b\n", 2, true),
            Err(vec![
                "Invalid task range specification (x-1)".into(),
                "Line 2 of configuration file f.conf invalid".into()
            ])
        );
        assert_eq!(
            v("0-1 echo a\n1 echo b\n", 2, true).unwrap_err()[0],
            "Duplicate record for task 1"
        );
        assert_eq!(
            v("0 echo a\n2 echo b\n", 3, true),
            Err(vec![
                "Configuration file f.conf invalid, no record for task id 1".into()
            ])
        );
        // Without a task count the highest rank gives it; with one, a rank beyond is wrong.
        assert_eq!(v("0-3 echo t\n", 1, false), Ok(4));
        assert_eq!(
            v("0-3 echo t\n", 2, true).unwrap_err()[0],
            "Invalid task id, 3 >= ntasks"
        );
        assert_eq!(
            v("* echo a\n0 echo b\n", 2, true).unwrap_err()[0],
            "Task range specification with asterisk must be last"
        );
        assert_eq!(
            v("2-1 echo x\n", 2, true).unwrap_err()[0],
            "Invalid task range, 2-1"
        );
        assert_eq!(v("* echo a\n", 1, false), Ok(1));
        // A line after one that ends in `\` is not read for ranks.
        assert_eq!(v("0-1 echo a \\\n  continued\n", 1, false), Ok(2));
        assert_eq!(
            v("0-99999999999 echo a\n", 1, false).unwrap_err()[0],
            "Invalid task id, 99999999999 >= ntasks"
        );
    }
}
