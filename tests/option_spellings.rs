//! Every option of the option table (`src/options/table.rs`), in every spelling Slurm 22.05
//! accepts, for every command that takes it (issue 3): `--long=V`, `--long V`, `-sV`,
//! `-s V`, the shortest prefix glibc's `getopt_long` resolves to it, the same words in an
//! `#SBATCH` directive, and each input variable (SBATCH_* for sbatch, srun's SLURM_*/SRUN_*
//! ones, salloc's SALLOC_* ones). Every spelling must parse to the same options, and to
//! something else than no option at all; then the precedence: command line > input
//! variable > `#SBATCH` directive (slurm-spec.md §1.1 and §1.11).
//!
//! Where Slurm itself treats a spelling differently, the expectation says so with a
//! comment: nothing is skipped silently.

use bai_slurm::options::getopt::HasArg;
use bai_slurm::options::job_opts::{JobOptions, Source};
use bai_slurm::options::salloc::{self, SALLOC_ENV, SallocOutcome};
use bai_slurm::options::sbatch::{self, SbatchInput};
use bai_slurm::options::srun::{self, SRUN_ENV, SrunOutcome};
use bai_slurm::options::table::{self, OPTIONS, Opt, SALLOC, SBATCH, SRUN, Support};
use std::collections::BTreeMap;
use std::path::Path;
use support::option_samples::{SAMPLES, companions, samples};

mod support;

const NOW: i64 = 1_700_000_000;
const COMMANDS: [u8; 3] = [SBATCH, SRUN, SALLOC];

fn name(cmd: u8) -> &'static str {
    match cmd {
        SBATCH => "sbatch",
        SRUN => "srun",
        _ => "salloc",
    }
}

/// The input variables of an option for one command, in the order the command reads them.
fn env_vars(cmd: u8, o: &Opt) -> Vec<&'static str> {
    match cmd {
        SBATCH => o.sbatch_env.to_vec(),
        SRUN => SRUN_ENV
            .iter()
            .filter(|(_, l)| *l == o.long)
            .map(|(v, _)| *v)
            .collect(),
        _ => SALLOC_ENV
            .iter()
            .filter(|(_, l)| *l == o.long)
            .map(|(v, _)| *v)
            .collect(),
    }
}

/// What one command line, environment and script parse to.
#[derive(Debug)]
struct Parsed {
    /// Everything the command was asked for, without where each option came from.
    view: String,
    /// Which source set each option last (empty when parsing ended early).
    sources: BTreeMap<&'static str, Source>,
    /// The log level (`-v`, SBATCH_DEBUG, ...), when parsing went on.
    verbose: Option<u32>,
    /// Parsing ended early: help, usage, version, or an error.
    exited: bool,
}

fn strip_sources(mut o: JobOptions) -> (JobOptions, BTreeMap<&'static str, Source>) {
    let sources = std::mem::take(&mut o.set_by);
    (o, sources)
}

fn parse(cmd: u8, args: &[String], env: &[(&str, &str)], directives: &[String]) -> Parsed {
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match cmd {
        SBATCH => {
            let mut script = String::from("#!/bin/sh\n");
            for d in directives {
                script.push_str(&format!("#SBATCH {d}\n"));
            }
            script.push_str("true\n");
            let mut stdin = std::io::Cursor::new(script.into_bytes());
            let mut input = SbatchInput {
                args,
                env: &env,
                cwd: Path::new("/"),
                stdin: &mut stdin,
                hostname: "host".into(),
                now: NOW,
                umask: 0o022,
                max_array_size: 1001,
                profile: bai_slurm::model::profile::Profile::default_profile(),
            };
            match sbatch::parse_options(&mut input) {
                Ok(o) => {
                    let (raw, sources) = strip_sources(o.raw);
                    Parsed {
                        verbose: Some(raw.verbose),
                        view: format!(
                            "{raw:?} quiet={} wrap={:?} script_args={:?} messages={:?} exit={}",
                            o.quiet, o.wrap, o.script_args, o.messages, o.error_exit
                        ),
                        sources,
                        exited: false,
                    }
                }
                Err(outcome) => exited(format!("{outcome:?}")),
            }
        }
        SRUN => {
            assert!(directives.is_empty());
            let mut args = args.to_vec();
            args.push("true".into());
            match srun::parse(&args, &env, NOW) {
                SrunOutcome::Run(r) => {
                    let (opts, sources) = strip_sources(r.opts);
                    Parsed {
                        verbose: Some(r.verbose),
                        view: format!("{opts:?} argv={:?} quiet={}", r.argv, r.quiet),
                        sources,
                        exited: false,
                    }
                }
                exit => exited(format!("{exit:?}")),
            }
        }
        _ => {
            assert!(directives.is_empty());
            match salloc::parse(args, &env, NOW) {
                SallocOutcome::Run(r) => {
                    let (opts, sources) = strip_sources(r.opts);
                    Parsed {
                        verbose: Some(opts.verbose),
                        view: format!("{opts:?} argv={:?}", r.argv),
                        sources,
                        exited: false,
                    }
                }
                exit => exited(format!("{exit:?}")),
            }
        }
    }
}

fn exited(view: String) -> Parsed {
    Parsed {
        view,
        sources: BTreeMap::new(),
        verbose: None,
        exited: true,
    }
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

fn cli(cmd: u8, w: &[&str]) -> Parsed {
    parse(cmd, &words(w), &[], &[])
}

fn none(cmd: u8) -> Parsed {
    parse(cmd, &[], &[], &[])
}

/// The shortest proper prefix of the option's name that `getopt_long` resolves to it: no
/// other option of the command starts with it (every option of a command reports its own
/// value, so any other match is ambiguous, and an exact match would win).
fn shortest_prefix(cmd: u8, o: &Opt) -> Option<&'static str> {
    (1..o.long.len())
        .map(|n| &o.long[..n])
        .find(|p| table::for_command(cmd).all(|x| x.long == o.long || !x.long.starts_with(p)))
}

/// Options with no proper prefix of their own: every shorter start of the name also
/// starts another option (`--mem` and `--mem-bind`: ambiguous) or is another option's
/// whole name (`--bb` for `--bbf`: that option), so only the full name reaches them.
const NO_PREFIX: &[(u8, &[&str])] = &[
    (
        SBATCH,
        &[
            "bb",
            "bbf",
            "cluster",
            "clusters",
            "container",
            "container-env",
            "container-mounts",
            "export",
            "gpus",
            "gres",
            "mem",
            "nodes",
            "ntasks",
            "time",
            "wait",
        ],
    ),
    (
        SRUN,
        &[
            "bb",
            "bbf",
            "bcast",
            "cluster",
            "clusters",
            "container",
            "container-env",
            "container-mounts",
            "gpus",
            "gres",
            "mem",
            "nodes",
            "ntasks",
            "threads",
            "time",
        ],
    ),
    (
        SALLOC,
        &[
            "bb",
            "bbf",
            "cluster",
            "clusters",
            "container",
            "container-env",
            "container-mounts",
            "gpus",
            "gres",
            "mem",
            "nodes",
            "ntasks",
            "time",
        ],
    ),
];

/// One way of writing an option and what it must equal.
struct Case {
    label: String,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    directives: Vec<String>,
    expect: Expect,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// The same as `--long=V` (or `--long` for a flag, or an optional argument left out).
    Given,
    /// The same as `--long` without its optional argument.
    GivenBare,
    /// The same as no option at all.
    Nothing,
}

/// The command-line spellings of an option: (words, what they give).
fn cli_spellings(cmd: u8, o: &Opt, v: &str) -> Vec<(Vec<String>, Expect)> {
    let long = format!("--{}", o.long);
    let mut names = vec![long];
    if let Some(p) = shortest_prefix(cmd, o) {
        names.push(format!("--{p}"));
    }
    let short = o.short.map(|c| format!("-{c}"));
    let mut out = Vec::new();
    match o.arg {
        HasArg::Required => {
            for n in &names {
                out.push((vec![format!("{n}={v}")], Expect::Given));
                out.push((vec![n.clone(), v.to_string()], Expect::Given));
            }
            if let Some(s) = &short {
                out.push((vec![format!("{s}{v}")], Expect::Given));
                out.push((vec![s.clone(), v.to_string()], Expect::Given));
            }
        }
        HasArg::No => {
            for n in names.iter().chain(&short) {
                out.push((vec![n.clone()], Expect::Given));
            }
        }
        HasArg::Optional => {
            for n in &names {
                out.push((vec![format!("{n}={v}")], Expect::Given));
                out.push((vec![n.clone()], Expect::GivenBare));
            }
            if let Some(s) = &short {
                out.push((vec![format!("{s}{v}")], Expect::Given));
                out.push((vec![s.clone()], Expect::GivenBare));
            }
        }
    }
    out
}

fn cases(cmd: u8, o: &Opt) -> Vec<Case> {
    let v = match o.arg {
        HasArg::No => "",
        _ => samples(o)[0],
    };
    let mut out = Vec::new();
    for (args, expect) in cli_spellings(cmd, o, v) {
        let line = args.join(" ");
        if cmd == SBATCH {
            // The second pass skips the early options (help, usage, version, quiet,
            // verbose, wrap), in directives too: slurm-spec.md §1.1 (only the first pass
            // over the command line acts on them), `slurm_process_option` in slurm_opt.c.
            let in_directive = if o.sbatch_early_pass() {
                Expect::Nothing
            } else {
                expect
            };
            out.push(Case {
                label: format!("#SBATCH {line}"),
                args: Vec::new(),
                env: Vec::new(),
                directives: vec![line.clone()],
                expect: in_directive,
            });
        }
        out.push(Case {
            label: line,
            args,
            env: Vec::new(),
            directives: Vec::new(),
            expect,
        });
    }
    for var in env_vars(cmd, o) {
        let values: Vec<(String, Expect)> = match o.arg {
            HasArg::Required => vec![(v.to_string(), Expect::Given)],
            // An empty value of an optional argument is no argument (slurm_opt.c).
            HasArg::Optional => vec![
                (v.to_string(), Expect::Given),
                (String::new(), Expect::GivenBare),
            ],
            // `--verbose` reads its variable as the log level itself (`arg_set_verbose`),
            // so only `1` equals one `-v`; the levels are checked in verbose_variables.
            HasArg::No if o.long == "verbose" => vec![("1".into(), Expect::Given)],
            // Flags: empty, `yes` or a non-zero number set it, anything else resets it
            // (slurm-spec.md §1.11).
            HasArg::No => vec![
                (String::new(), Expect::Given),
                ("yes".into(), Expect::Given),
                ("YES".into(), Expect::Given),
                ("1".into(), Expect::Given),
                (" 7".into(), Expect::Given),
                ("no".into(), Expect::Nothing),
                ("0".into(), Expect::Nothing),
                ("1x".into(), Expect::Nothing),
            ],
        };
        for (value, expect) in values {
            out.push(Case {
                label: format!("{var}={value:?}"),
                args: Vec::new(),
                env: vec![(var, value)],
                directives: Vec::new(),
                expect,
            });
        }
    }
    out
}

fn run(cmd: u8, c: &Case) -> Parsed {
    let env: Vec<(&str, &str)> = c.env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    parse(cmd, &c.args, &env, &c.directives)
}

#[test]
fn every_option_has_sample_values() {
    for o in OPTIONS.iter().filter(|o| o.arg != HasArg::No) {
        let s = samples(o);
        let mut distinct = s.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "--{}: three different samples", o.long);
    }
    for (name, _) in SAMPLES {
        assert!(
            OPTIONS
                .iter()
                .any(|o| o.long == *name && o.arg != HasArg::No),
            "SAMPLES has --{name}, which is no option taking an argument"
        );
    }
}

/// Each sample value is valid: it parses (only rejected options end in an error).
#[test]
fn sample_values_are_valid() {
    for cmd in COMMANDS {
        for o in table::for_command(cmd).filter(|o| o.arg != HasArg::No) {
            for v in samples(o) {
                let option = format!("--{}={v}", o.long);
                let mut words = vec![option.as_str()];
                words.extend_from_slice(companions(o));
                let p = cli(cmd, &words);
                let rejected = matches!(o.support, Support::Rejected(_));
                assert_eq!(
                    p.exited,
                    rejected,
                    "{} --{}={v}: {}",
                    name(cmd),
                    o.long,
                    p.view
                );
            }
        }
    }
}

#[test]
fn prefixes_are_computed_as_getopt_resolves_them() {
    for (cmd, expected) in NO_PREFIX {
        let mut without: Vec<&str> = table::for_command(*cmd)
            .filter(|o| shortest_prefix(*cmd, o).is_none())
            .map(|o| o.long)
            .collect();
        without.sort_unstable();
        assert_eq!(&without, expected, "{}", name(*cmd));
        // Without a prefix of its own, the name less its last letter is ambiguous, or
        // is another option.
        for long in *expected {
            let cut = &long[..long.len() - 1];
            if table::find(*cmd, cut).is_some() {
                continue;
            }
            let p = cli(*cmd, &[&format!("--{cut}")]);
            assert!(
                p.view.contains(&format!("option '--{cut}' is ambiguous")),
                "{} --{cut}: {}",
                name(*cmd),
                p.view
            );
        }
    }
}

#[test]
fn every_spelling_parses_the_same() {
    let mut options = 0;
    let mut spellings = 0;
    let mut failures = Vec::new();
    for cmd in COMMANDS {
        let nothing = none(cmd);
        for o in table::for_command(cmd) {
            options += 1;
            let given = match o.arg {
                HasArg::No => cli(cmd, &[&format!("--{}", o.long)]),
                _ => cli(cmd, &[&format!("--{}={}", o.long, samples(o)[0])]),
            };
            let bare = cli(cmd, &[&format!("--{}", o.long)]);
            if given.view == nothing.view {
                failures.push(format!(
                    "{} --{}: parses the same as no option",
                    name(cmd),
                    o.long
                ));
            }
            for c in cases(cmd, o) {
                spellings += 1;
                let got = run(cmd, &c);
                let (want, what) = match c.expect {
                    Expect::Given => (&given, "the long option"),
                    Expect::GivenBare => (&bare, "the bare long option"),
                    Expect::Nothing => (&nothing, "no option"),
                };
                if got.view != want.view {
                    failures.push(format!(
                        "{} --{}: `{}` differs from {what}:\n    got  {}\n    want {}",
                        name(cmd),
                        o.long,
                        c.label,
                        got.view,
                        want.view
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} spellings differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!(
        "option spellings: {} options ({options} option-command pairs), {spellings} spellings, all equal",
        OPTIONS.len()
    );
}

/// The log level from an input variable replaces the count of `-v`s (`arg_set_verbose`):
/// an empty value is level 0 (still "set"), `yes` is not a number.
#[test]
fn verbose_variables() {
    for (cmd, var) in [
        (SBATCH, "SBATCH_DEBUG"),
        (SRUN, "SLURM_DEBUG"),
        (SALLOC, "SALLOC_DEBUG"),
    ] {
        let level = |v: &str, args: &[&str]| parse(cmd, &words(args), &[(var, v)], &[]);
        assert_eq!(level("2", &[]).verbose, Some(2), "{var}=2");
        assert_eq!(level("", &[]).verbose, Some(0), "{var}=");
        assert_eq!(level("no", &[]).verbose, Some(0), "{var}=no");
        let bad = level("yes", &[]);
        assert!(
            bad.exited
                && bad
                    .view
                    .contains(r#"Invalid numeric value \"yes\" for --verbose."#),
            "{var}=yes: {}",
            bad.view
        );
        // sbatch counts `-v` in its first pass and reads SBATCH_DEBUG after it (the
        // second pass skips `-v`): the variable wins. srun and salloc read their
        // variables first, and each `-v` adds one.
        let with_v = level("2", &["-v"]).verbose;
        assert_eq!(
            with_v,
            Some(if cmd == SBATCH { 2 } else { 3 }),
            "{var}=2 -v"
        );
        assert_eq!(
            level("no", &["-v"]).verbose,
            Some(if cmd == SBATCH { 0 } else { 1 }),
            "{var}=no -v"
        );
    }
}

/// Command line > input variable > directive, for every option and every variable.
#[test]
fn precedence() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut check = |label: String, got: &Parsed, want: &Parsed, source: Option<(&str, Source)>| {
        checked += 1;
        if got.view != want.view {
            failures.push(format!(
                "{label}:\n    got  {}\n    want {}",
                got.view, want.view
            ));
        }
        if let Some((long, s)) = source
            && !got.exited
            && got.sources.get(long) != Some(&s)
        {
            failures.push(format!(
                "{label}: set by {:?}, not {s:?}",
                got.sources.get(long)
            ));
        }
    };
    for cmd in COMMANDS {
        for o in table::for_command(cmd) {
            let long = o.long;
            if o.sbatch_early_pass() && cmd == SBATCH {
                // Directives cannot set them (every_spelling_parses_the_same), and
                // SBATCH_DEBUG against `-v` is verbose_variables' case.
                continue;
            }
            if o.arg == HasArg::No {
                let flag = format!("--{long}");
                let given = cli(cmd, &[&flag]);
                for var in env_vars(cmd, o) {
                    if long == "verbose" {
                        continue; // verbose_variables
                    }
                    if cmd == SBATCH {
                        // A directive sets the flag, the variable resets or sets it again.
                        let p = parse(cmd, &[], &[(var, "no")], std::slice::from_ref(&flag));
                        check(format!("#SBATCH {flag} + {var}=no"), &p, &none(cmd), None);
                        let p = parse(cmd, &[], &[(var, "1")], std::slice::from_ref(&flag));
                        check(
                            format!("#SBATCH {flag} + {var}=1"),
                            &p,
                            &given,
                            Some((long, Source::Env)),
                        );
                    }
                    let p = parse(cmd, &words(&[&flag]), &[(var, "no")], &[]);
                    check(
                        format!("{} {var}=no {flag}", name(cmd)),
                        &p,
                        &given,
                        Some((long, Source::Cli)),
                    );
                }
                continue;
            }
            let [a, b, c] = samples(o);
            let dir_a = format!("--{long}={a}");
            let cli_b = cli(cmd, &[&format!("--{long}={b}")]);
            let cli_c_words = words(&[&format!("--{long}={c}")]);
            let cli_c = parse(cmd, &cli_c_words, &[], &[]);
            if cmd == SBATCH {
                let p = parse(cmd, &cli_c_words, &[], std::slice::from_ref(&dir_a));
                let want = if long == "container-mounts" {
                    // pyxis adds each mount to a list (`add_mount` in its args.c): a
                    // directive's mounts stay when the command line adds more.
                    cli(cmd, &[&dir_a, &format!("--{long}={c}")])
                } else {
                    // pyxis refuses a second, different --container-image, -workdir,
                    // -name or -save; bai-slurm lets the later source win like every
                    // Slurm option (pyxis semantics: slurm-spec.md "Not established").
                    cli(cmd, &[&format!("--{long}={c}")])
                };
                check(
                    format!("#SBATCH {dir_a} + {}", cli_c_words[0]),
                    &p,
                    &want,
                    Some((long, Source::Cli)),
                );
            }
            let vars = env_vars(cmd, o);
            for var in &vars {
                if cmd == SBATCH {
                    let p = parse(cmd, &[], &[(var, b)], std::slice::from_ref(&dir_a));
                    check(
                        format!("#SBATCH {dir_a} + {var}={b}"),
                        &p,
                        &cli_b,
                        Some((long, Source::Env)),
                    );
                    let p = parse(cmd, &cli_c_words, &[(var, b)], std::slice::from_ref(&dir_a));
                    check(
                        format!("#SBATCH {dir_a} + {var}={b} + {}", cli_c_words[0]),
                        &p,
                        &cli_c,
                        Some((long, Source::Cli)),
                    );
                }
                let p = parse(cmd, &cli_c_words, &[(var, b)], &[]);
                check(
                    format!("{} {var}={b} {}", name(cmd), cli_c_words[0]),
                    &p,
                    &cli_c,
                    Some((long, Source::Cli)),
                );
            }
            // Two variables for one option: the command reads them in order, the later
            // wins (SBATCH_CLUSTERS then SLURM_CLUSTERS; SLURM_HINT then SBATCH_HINT).
            if let [first, second] = vars[..] {
                let p = parse(cmd, &[], &[(first, a), (second, b)], &[]);
                check(
                    format!("{} {first}={a} {second}={b}", name(cmd)),
                    &p,
                    &cli_b,
                    Some((long, Source::Env)),
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} precedence failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("option precedence: {checked} combinations, command line > variable > directive");
}

/// A rejected option fails whatever its source: the first source that sets it ends sbatch.
#[test]
fn rejected_options_fail_from_every_source() {
    for cmd in COMMANDS {
        for o in table::for_command(cmd).filter(|o| matches!(o.support, Support::Rejected(_))) {
            let v = match o.arg {
                HasArg::No => String::new(),
                _ => format!("={}", samples(o)[0]),
            };
            let word = format!("--{}{v}", o.long);
            let mut all = vec![cli(cmd, &[&word])];
            if cmd == SBATCH {
                all.push(parse(cmd, &[], &[], std::slice::from_ref(&word)));
            }
            for var in env_vars(cmd, o) {
                all.push(parse(cmd, &[], &[(var, v.trim_start_matches('='))], &[]));
            }
            for p in &all {
                assert!(p.exited, "{} {word}: {}", name(cmd), p.view);
            }
        }
    }
}

/// An optional argument is only ever attached (`--long=V`, `-sV`): a separate word is the
/// next operand, as after `--` (glibc getopt; slurm-spec.md §1.5 `--exclusive[=...]`).
#[test]
fn optional_arguments_are_only_attached() {
    for cmd in COMMANDS {
        // A rejected option (salloc's --kill-command) fails before operands matter.
        let optional = table::for_command(cmd)
            .filter(|o| o.arg == HasArg::Optional && !matches!(o.support, Support::Rejected(_)));
        for o in optional {
            let v = samples(o)[0];
            let attached = cli(cmd, &[&format!("--{}={v}", o.long)]);
            let names =
                std::iter::once(format!("--{}", o.long)).chain(o.short.map(|c| format!("-{c}")));
            for n in names {
                let separate = cli(cmd, &[&n, v]);
                let operand = cli(cmd, &[&n, "--", v]);
                assert_eq!(separate.view, operand.view, "{} {n} {v}", name(cmd));
                assert_ne!(separate.view, attached.view, "{} {n} {v}", name(cmd));
            }
        }
    }
}

/// Short options cluster: every flag letter of a command in one word, ending with an
/// option that takes the rest of the word as its argument (`-HOsn2`).
#[test]
fn short_options_cluster() {
    for cmd in COMMANDS {
        let letters: Vec<char> = table::for_command(cmd)
            .filter(|o| o.arg == HasArg::No && !matches!(o.support, Support::Rejected(_)))
            .filter(|o| !matches!(o.long, "help" | "usage" | "version"))
            .filter_map(|o| o.short)
            .collect();
        assert!(letters.len() >= 5, "{}: {letters:?}", name(cmd));
        let cluster: String = letters.iter().collect();
        let together = cli(cmd, &[&format!("-{cluster}n2")]);
        let mut apart: Vec<String> = letters.iter().map(|c| format!("-{c}")).collect();
        apart.extend(["-n".to_string(), "2".to_string()]);
        let apart = parse(cmd, &apart, &[], &[]);
        assert!(
            !together.exited,
            "{} -{cluster}n2: {}",
            name(cmd),
            together.view
        );
        assert_eq!(together.view, apart.view, "{} -{cluster}n2", name(cmd));
    }
}
