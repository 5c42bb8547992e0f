//! glibc `getopt_long` as Slurm's query commands use it: short option clusters (`-hl`,
//! `-ofmt`), `--long=value` and `--long value`, unambiguous long prefixes, optional
//! arguments (`-j123`, `--jobs=123`), argument permutation and `--`, and glibc's own error
//! lines (`squeue: unrecognized option '--bogus'`).

/// Whether an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    /// Only attached: `-j123` or `--jobs=123`.
    Optional,
}

/// A long option: its name, argument kind and the value reported for it.
#[derive(Debug, Clone, Copy)]
pub struct LongOpt {
    pub name: &'static str,
    pub has_arg: HasArg,
    pub val: i32,
}

/// Shorthand for building option tables.
pub const fn long(name: &'static str, has_arg: HasArg, val: i32) -> LongOpt {
    LongOpt { name, has_arg, val }
}

/// One step of option parsing, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An option: its value (the short letter, or the long option's id) and argument.
    Opt(i32, Option<String>),
    /// What glibc prints for a bad option (without newline); the caller decides what
    /// happens next, as Slurm's `case '?'` does.
    Error(String),
}

/// The options in order, and the operands (non-options) in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    pub events: Vec<Event>,
    pub operands: Vec<String>,
}

/// Parses `args` (without the program name) like `getopt_long(argc, argv, shortopts,
/// longopts)`; `prog` is used in error messages as glibc uses `argv[0]`.
pub fn parse(prog: &str, args: &[String], shortopts: &str, longopts: &[LongOpt]) -> Parsed {
    let in_order = shortopts.starts_with('+');
    let shortopts = shortopts.trim_start_matches(['+', '-']);
    let mut p = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = arg.strip_prefix("--") {
            p.events
                .push(long_option(prog, body, args, &mut i, longopts));
        } else if arg.len() > 1 && arg.starts_with('-') {
            short_cluster(prog, &arg[1..], args, &mut i, shortopts, &mut p.events);
        } else if in_order {
            p.operands.extend(args[i - 1..].iter().cloned());
            break;
        } else {
            p.operands.push(arg.clone());
        }
    }
    p
}

fn long_option(
    prog: &str,
    body: &str,
    args: &[String],
    next: &mut usize,
    longopts: &[LongOpt],
) -> Event {
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let found = match longopts.iter().find(|o| o.name == name) {
        Some(o) => o,
        None => {
            let matches: Vec<&LongOpt> = longopts
                .iter()
                .filter(|o| o.name.starts_with(name))
                .collect();
            let Some(&first) = matches.first() else {
                return Event::Error(format!("{prog}: unrecognized option '--{body}'"));
            };
            let differing: Vec<&&LongOpt> = matches
                .iter()
                .skip(1)
                .filter(|o| o.has_arg != first.has_arg || o.val != first.val)
                .collect();
            if !differing.is_empty() {
                let mut msg = format!("{prog}: option '--{body}' is ambiguous; possibilities:");
                // glibc lists the first match and every later one that differs from it.
                for o in longopts {
                    let listed =
                        std::ptr::eq(o, first) || differing.iter().any(|d| std::ptr::eq(**d, o));
                    if listed {
                        msg.push_str(&format!(" '--{}'", o.name));
                    }
                }
                return Event::Error(msg);
            }
            first
        }
    };
    match (found.has_arg, value) {
        (HasArg::No, Some(_)) => Event::Error(format!(
            "{prog}: option '--{}' doesn't allow an argument",
            found.name
        )),
        (HasArg::No, None) | (HasArg::Optional, None) => Event::Opt(found.val, None),
        (_, Some(v)) => Event::Opt(found.val, Some(v.to_string())),
        (HasArg::Required, None) => match args.get(*next) {
            Some(v) => {
                *next += 1;
                Event::Opt(found.val, Some(v.clone()))
            }
            None => Event::Error(format!(
                "{prog}: option '--{}' requires an argument",
                found.name
            )),
        },
    }
}

/// What a short option letter takes, from the optstring.
fn short_kind(shortopts: &str, c: char) -> Option<HasArg> {
    if c == ':' {
        return None;
    }
    let at = shortopts.find(c)?;
    let rest = &shortopts[at + c.len_utf8()..];
    Some(if rest.starts_with("::") {
        HasArg::Optional
    } else if rest.starts_with(':') {
        HasArg::Required
    } else {
        HasArg::No
    })
}

fn short_cluster(
    prog: &str,
    cluster: &str,
    args: &[String],
    next: &mut usize,
    shortopts: &str,
    events: &mut Vec<Event>,
) {
    for (pos, c) in cluster.char_indices() {
        let rest = &cluster[pos + c.len_utf8()..];
        match short_kind(shortopts, c) {
            None => events.push(Event::Error(format!("{prog}: invalid option -- '{c}'"))),
            Some(HasArg::No) => events.push(Event::Opt(c as i32, None)),
            Some(HasArg::Optional) => {
                let arg = if rest.is_empty() {
                    None
                } else {
                    Some(rest.to_string())
                };
                events.push(Event::Opt(c as i32, arg));
                return;
            }
            Some(HasArg::Required) => {
                if !rest.is_empty() {
                    events.push(Event::Opt(c as i32, Some(rest.to_string())));
                } else if let Some(v) = args.get(*next) {
                    *next += 1;
                    events.push(Event::Opt(c as i32, Some(v.clone())));
                } else {
                    events.push(Event::Error(format!(
                        "{prog}: option requires an argument -- '{c}'"
                    )));
                }
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONGS: &[LongOpt] = &[
        long("format", HasArg::Required, 'o' as i32),
        long("Format", HasArg::Required, 'O' as i32),
        long("jobs", HasArg::Optional, 'j' as i32),
        long("long", HasArg::No, 'l' as i32),
        long("user", HasArg::Required, 'u' as i32),
        long("users", HasArg::Required, 'u' as i32),
        long("usage", HasArg::No, 0x101),
    ];

    fn run(args: &[&str]) -> Parsed {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse("squeue", &args, "hj::lo:O:u:", LONGS)
    }

    fn opt(c: char, arg: Option<&str>) -> Event {
        Event::Opt(c as i32, arg.map(String::from))
    }

    #[test]
    fn short_clusters_and_attached_arguments() {
        let p = run(&["-hl", "-o%i", "-o", "%j", "-j12", "-j", "13"]);
        assert_eq!(
            p.events,
            vec![
                opt('h', None),
                opt('l', None),
                opt('o', Some("%i")),
                opt('o', Some("%j")),
                opt('j', Some("12")),
                opt('j', None),
            ]
        );
        assert_eq!(p.operands, vec!["13"]);
    }

    #[test]
    fn long_options_prefixes_and_values() {
        let p = run(&["--form=%i", "--jobs", "--jobs=5", "--us", "bob", "--lo"]);
        assert_eq!(
            p.events,
            vec![
                opt('o', Some("%i")),
                opt('j', None),
                opt('j', Some("5")),
                Event::Error(
                    "squeue: option '--us' is ambiguous; possibilities: '--user' '--usage'".into()
                ),
                opt('l', None),
            ]
        );
        assert_eq!(p.operands, vec!["bob"]);
    }

    #[test]
    fn same_target_prefixes_are_not_ambiguous() {
        let p = run(&["--use", "x"]);
        assert_eq!(p.events, vec![opt('u', Some("x"))]);
        let p = run(&["--user", "x", "--users=y"]);
        assert_eq!(p.events, vec![opt('u', Some("x")), opt('u', Some("y"))]);
    }

    #[test]
    fn glibc_error_texts() {
        assert_eq!(
            run(&["--bogus"]).events,
            vec![Event::Error("squeue: unrecognized option '--bogus'".into())]
        );
        assert_eq!(
            run(&["-z"]).events,
            vec![Event::Error("squeue: invalid option -- 'z'".into())]
        );
        assert_eq!(
            run(&["-o"]).events,
            vec![Event::Error(
                "squeue: option requires an argument -- 'o'".into()
            )]
        );
        assert_eq!(
            run(&["--format"]).events,
            vec![Event::Error(
                "squeue: option '--format' requires an argument".into()
            )]
        );
        assert_eq!(
            run(&["--long=1"]).events,
            vec![Event::Error(
                "squeue: option '--long' doesn't allow an argument".into()
            )]
        );
    }

    #[test]
    fn double_dash_ends_options() {
        let p = run(&["a", "--", "-h"]);
        assert!(p.events.is_empty());
        assert_eq!(p.operands, vec!["a", "-h"]);
    }
}
