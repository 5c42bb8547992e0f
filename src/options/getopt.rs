//! glibc `getopt_long` as Slurm's commands use it, message for message: short options with
//! bundling (`-HQ`, `-N2`, `-N 2`), long options with `=` or a separate argument, unique
//! prefixes (`--part=debug`), optional arguments only attached, `--` ending the options,
//! and the script name ending them too (the `+` of Slurm's optstrings).

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HasArg {
    No,
    Required,
    Optional,
}

/// One option getopt knows: a long name and/or a short letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec<Id> {
    pub long: Option<&'static str>,
    pub short: Option<char>,
    pub has_arg: HasArg,
    pub id: Id,
}

/// What the user typed, option by option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<Id> {
    pub id: Id,
    pub value: Option<String>,
    /// How it was spelled (`--time`, `-t`), for messages.
    pub spelled: String,
}

/// A getopt failure: glibc's message (without the `prog: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetoptError(pub String);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed<Id> {
    pub options: Vec<Found<Id>>,
    /// Index in `args` of the first argument that is not an option.
    pub rest: usize,
    /// Whether `--` ended the options.
    pub double_dash: bool,
}

/// Parses `args` (without argv[0]) up to the first argument that is not an option, as
/// the `+` at the start of Slurm's optstrings asks.
pub fn parse<Id: Copy + PartialEq>(
    args: &[String],
    specs: &[Spec<Id>],
) -> Result<Parsed<Id>, GetoptError> {
    let mut options = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            return Ok(Parsed {
                options,
                rest: i + 1,
                double_dash: true,
            });
        }
        if let Some(body) = arg.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let spec = find_long(specs, name, arg)?;
            let long = spec.long.unwrap_or(name);
            let value = match spec.has_arg {
                HasArg::No => {
                    if inline.is_some() {
                        return Err(GetoptError(format!(
                            "option '--{long}' doesn't allow an argument"
                        )));
                    }
                    None
                }
                HasArg::Optional => inline,
                HasArg::Required => match inline {
                    Some(v) => Some(v),
                    None => {
                        i += 1;
                        match args.get(i) {
                            Some(v) => Some(v.clone()),
                            None => {
                                return Err(GetoptError(format!(
                                    "option '--{long}' requires an argument"
                                )));
                            }
                        }
                    }
                },
            };
            options.push(Found {
                id: spec.id,
                value,
                spelled: format!("--{long}"),
            });
            i += 1;
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let chars: Vec<char> = arg.chars().skip(1).collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    return Err(GetoptError(format!("invalid option -- '{c}'")));
                };
                let attached: String = chars[j + 1..].iter().collect();
                match spec.has_arg {
                    HasArg::No => {
                        options.push(Found {
                            id: spec.id,
                            value: None,
                            spelled: format!("-{c}"),
                        });
                        j += 1;
                    }
                    HasArg::Optional => {
                        let value = (!attached.is_empty()).then_some(attached);
                        options.push(Found {
                            id: spec.id,
                            value,
                            spelled: format!("-{c}"),
                        });
                        break;
                    }
                    HasArg::Required => {
                        let value = if !attached.is_empty() {
                            attached
                        } else {
                            i += 1;
                            match args.get(i) {
                                Some(v) => v.clone(),
                                None => {
                                    return Err(GetoptError(format!(
                                        "option requires an argument -- '{c}'"
                                    )));
                                }
                            }
                        };
                        options.push(Found {
                            id: spec.id,
                            value: Some(value),
                            spelled: format!("-{c}"),
                        });
                        break;
                    }
                }
            }
            i += 1;
            continue;
        }
        // The first argument that is not an option ends them.
        break;
    }
    Ok(Parsed {
        options,
        rest: i,
        double_dash: false,
    })
}

/// Finds a long option by exact name or unique prefix, as glibc does: an exact match wins;
/// several prefix matches are ambiguous unless they are the same option.
fn find_long<'a, Id: Copy + PartialEq>(
    specs: &'a [Spec<Id>],
    name: &str,
    arg: &str,
) -> Result<&'a Spec<Id>, GetoptError> {
    let shown = arg.split_once('=').map_or(arg, |(n, _)| n);
    if name.is_empty() {
        return Err(GetoptError(format!("unrecognized option '{shown}'")));
    }
    if let Some(s) = specs.iter().find(|s| s.long == Some(name)) {
        return Ok(s);
    }
    let candidates: Vec<&Spec<Id>> = specs
        .iter()
        .filter(|s| s.long.is_some_and(|l| l.starts_with(name)))
        .collect();
    match candidates.as_slice() {
        [] => Err(GetoptError(format!("unrecognized option '{shown}'"))),
        [one] => Ok(one),
        [first, others @ ..] => {
            if others
                .iter()
                .all(|o| o.id == first.id && o.has_arg == first.has_arg)
            {
                return Ok(first);
            }
            let list: String = candidates
                .iter()
                .map(|c| format!(" '--{}'", c.long.unwrap_or("")))
                .collect();
            Err(GetoptError(format!(
                "option '{shown}' is ambiguous; possibilities:{list}"
            )))
        }
    }
}

/// Like [`parse`], but also collects the non-option arguments wherever they appear
/// (glibc's default permutation, used by squeue/sacct/scancel style commands).
pub fn parse_permuted<Id: Copy + PartialEq>(
    args: &[String],
    specs: &[Spec<Id>],
) -> Result<(Vec<Found<Id>>, Vec<String>), GetoptError> {
    let mut options = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let parsed = parse(&args[i..], specs)?;
        options.extend(parsed.options);
        i += parsed.rest;
        if parsed.double_dash {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(a) = args.get(i) {
            operands.push(a.clone());
            i += 1;
        }
    }
    Ok((options, operands))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum O {
        Nodes,
        NodeList,
        Hold,
        Quiet,
        Nice,
        Time,
        TimeMin,
    }

    const SPECS: &[Spec<O>] = &[
        Spec {
            long: Some("nodes"),
            short: Some('N'),
            has_arg: HasArg::Required,
            id: O::Nodes,
        },
        Spec {
            long: Some("nodelist"),
            short: Some('w'),
            has_arg: HasArg::Required,
            id: O::NodeList,
        },
        Spec {
            long: Some("hold"),
            short: Some('H'),
            has_arg: HasArg::No,
            id: O::Hold,
        },
        Spec {
            long: Some("quiet"),
            short: Some('Q'),
            has_arg: HasArg::No,
            id: O::Quiet,
        },
        Spec {
            long: Some("nice"),
            short: None,
            has_arg: HasArg::Optional,
            id: O::Nice,
        },
        Spec {
            long: Some("time"),
            short: Some('t'),
            has_arg: HasArg::Required,
            id: O::Time,
        },
        Spec {
            long: Some("time-min"),
            short: None,
            has_arg: HasArg::Required,
            id: O::TimeMin,
        },
    ];

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    fn ids_values(p: &Parsed<O>) -> Vec<(O, Option<&str>)> {
        p.options
            .iter()
            .map(|f| (f.id, f.value.as_deref()))
            .collect()
    }

    #[test]
    fn every_spelling_of_a_value() {
        for a in [
            &["-N2"][..],
            &["-N", "2"],
            &["--nodes=2"],
            &["--nodes", "2"],
            &["--node=2"],
        ] {
            let p = parse(&args(a), SPECS);
            // `--node` is a prefix of nodes and nodelist: ambiguous.
            if a == ["--node=2"] {
                assert_eq!(
                    p.unwrap_err().0,
                    "option '--node' is ambiguous; possibilities: '--nodes' '--nodelist'"
                );
                continue;
            }
            assert_eq!(
                ids_values(&p.unwrap()),
                vec![(O::Nodes, Some("2"))],
                "{a:?}"
            );
        }
        let p = parse(&args(&["--ti=5"]), SPECS).unwrap_err();
        assert!(p.0.contains("ambiguous"));
        let p = parse(&args(&["--time=5"]), SPECS).unwrap();
        assert_eq!(ids_values(&p), vec![(O::Time, Some("5"))]);
    }

    #[test]
    fn bundles_flags_and_stops_at_the_script() {
        let p = parse(&args(&["-HQ", "-t10", "job.sh", "-N", "3"]), SPECS).unwrap();
        assert_eq!(
            ids_values(&p),
            vec![(O::Hold, None), (O::Quiet, None), (O::Time, Some("10"))]
        );
        assert_eq!(p.rest, 2);
        let p = parse(&args(&["-H", "--", "-N"]), SPECS).unwrap();
        assert_eq!(p.rest, 2);
    }

    #[test]
    fn optional_arguments_only_attach() {
        let p = parse(&args(&["--nice", "5"]), SPECS).unwrap();
        assert_eq!(ids_values(&p), vec![(O::Nice, None)]);
        assert_eq!(p.rest, 1);
        let p = parse(&args(&["--nice=5", "--nice="]), SPECS).unwrap();
        assert_eq!(
            ids_values(&p),
            vec![(O::Nice, Some("5")), (O::Nice, Some(""))]
        );
    }

    #[test]
    fn glibc_messages() {
        let e = |a: &[&str]| parse(&args(a), SPECS).unwrap_err().0;
        assert_eq!(
            e(&["--bogus-option"]),
            "unrecognized option '--bogus-option'"
        );
        assert_eq!(e(&["--bogus=1"]), "unrecognized option '--bogus'");
        assert_eq!(e(&["-z"]), "invalid option -- 'z'");
        assert_eq!(e(&["-N"]), "option requires an argument -- 'N'");
        assert_eq!(e(&["--nodes"]), "option '--nodes' requires an argument");
        assert_eq!(
            e(&["--hold=yes"]),
            "option '--hold' doesn't allow an argument"
        );
    }

    #[test]
    fn permuted_operands() {
        let (o, rest) = parse_permuted(&args(&["12", "-H", "13", "--", "-N"]), SPECS).unwrap();
        assert_eq!(o.len(), 1);
        assert_eq!(rest, args(&["12", "13", "-N"]));
    }
}
