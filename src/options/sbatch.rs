//! sbatch's option processing, in Slurm's order (src/sbatch/opt.c): a first pass over the
//! command line for the early options (help, usage, version, quiet, verbose, wrap) and the
//! script name; then the script's `#SBATCH` directives, the SBATCH_* variables and the
//! command line again, each later source overriding earlier ones; then verification; and
//! finally the typed JobSpec.

use super::getopt::{self, Event};
use super::job_opts::{self, BuildContext, Failure, JobOptions, Source};
use super::table::{self, SBATCH};
use super::values::ValueError;
use crate::model::JobSpec;
use crate::model::profile::Profile;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Everything sbatch needs from its surroundings.
pub struct SbatchInput<'a> {
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: &'a Path,
    pub stdin: &'a mut dyn Read,
    pub hostname: String,
    pub now: i64,
    pub umask: u32,
    pub max_array_size: u32,
    /// The Slurm release the site replaces: its option table and texts.
    pub profile: &'static Profile,
}

/// A request to submit, with how sbatch should behave around it.
#[derive(Debug, Clone, PartialEq)]
pub struct SbatchRequest {
    pub spec: JobSpec,
    pub parsable: bool,
    pub quiet: bool,
    pub wait: bool,
    pub verbose: u32,
    pub test_only: bool,
    /// `--clusters` value (accepted when it names this cluster).
    pub clusters: Option<String>,
    /// Lines for stderr before submitting (`sbatch: warning: ...`, `sbatch: error: ...`),
    /// complete with their prefix.
    pub messages: Vec<String>,
}

/// What the command line asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum SbatchOutcome {
    Submit(Box<SbatchRequest>),
    /// Print and exit without submitting (help, usage, version, or an error).
    Exit {
        stdout: String,
        stderr: String,
        code: i32,
    },
}

fn exit_err(stderr: String, code: i32) -> SbatchOutcome {
    SbatchOutcome::Exit {
        stdout: String::new(),
        stderr,
        code,
    }
}

/// `SLURM_EXIT_ERROR`: replaces the exit status of most failures.
fn error_exit(env: &BTreeMap<String, String>) -> Result<i32, String> {
    match env.get("SLURM_EXIT_ERROR") {
        None => Ok(1),
        Some(v) => match v.trim().parse::<i32>() {
            Ok(0) => Err("sbatch: error: SLURM_EXIT_ERROR has zero value\n".to_string()),
            Ok(n) => Ok(n),
            Err(_) => Ok(1),
        },
    }
}

impl From<Failure> for SbatchOutcome {
    fn from(f: Failure) -> Self {
        exit_err(f.stderr, f.code)
    }
}

/// `<prog>: error:` lines for a value error, and its exit code.
fn value_failure(e: &ValueError, error_exit: i32) -> SbatchOutcome {
    exit_err(
        e.render("sbatch", "Batch job submission failed: "),
        e.exit_code(error_exit),
    )
}

fn notice_line(n: &super::directives::Notice) -> String {
    match n {
        super::directives::Notice::Error(t) => format!("sbatch: error: {t}\n"),
        super::directives::Notice::Info(t) => format!("sbatch: {t}\n"),
    }
}

fn getopt_failure(line: &str) -> SbatchOutcome {
    exit_err(
        format!("{line}\nTry \"sbatch --help\" for more information\n"),
        255,
    )
}

/// One option as typed: which one, and its value.
type Typed = (&'static table::Opt, Option<String>);

/// Runs getopt over `args` with sbatch's table: the options in order and where the
/// operands (script name and arguments) start, or glibc's error line.
fn sbatch_getopt(args: &[String], profile: &Profile) -> Result<(Vec<Typed>, usize), String> {
    let (short, long) = table::getopt_tables_in(SBATCH, profile.version);
    let parsed = getopt::parse("sbatch", args, &short, &long);
    let mut options = Vec::new();
    for e in parsed.events {
        match e {
            Event::Error(line) => return Err(line),
            Event::Opt(val, value) => {
                if let Some(opt) = table::by_getopt_val(SBATCH, val) {
                    options.push((opt, value));
                }
            }
        }
    }
    Ok((options, args.len() - parsed.operands.len()))
}

/// Finds the script as sbatch does: a path with a `/` as is, else the working directory,
/// else PATH.
fn resolve_script(name: &str, chdir: Option<&Path>, env: &BTreeMap<String, String>) -> PathBuf {
    let p = Path::new(name);
    if name.contains('/') || p.is_absolute() {
        return p.to_path_buf();
    }
    if let Some(d) = chdir {
        let c = d.join(name);
        if c.is_file() {
            return c;
        }
    }
    if p.is_file() {
        return p.to_path_buf();
    }
    if let Some(path) = env.get("PATH") {
        for dir in path.split(':').filter(|d| !d.is_empty()) {
            let c = Path::new(dir).join(name);
            if c.is_file() {
                return c;
            }
        }
    }
    p.to_path_buf()
}

/// sbatch's sanity checks of a script (`_get_script_buffer`).
pub fn check_script(body: &[u8]) -> Result<(), Vec<&'static str>> {
    if body.is_empty() {
        return Err(vec!["Batch script is empty!"]);
    }
    // The C checks stop at the first NUL, as strings do.
    let text = body.split(|&b| b == 0).next().unwrap_or(&[]);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(vec!["Batch script contains only whitespace!"]);
    }
    if !body.starts_with(b"#!") {
        return Err(vec![
            "This does not look like a batch script.  The first",
            "line must start with #! followed by the path to an interpreter.",
            "For instance: #!/bin/sh",
        ]);
    }
    if body.contains(&0) {
        return Err(vec![
            "The Slurm controller does not allow scripts that",
            "contain a NULL character '\\0'.",
        ]);
    }
    if body.windows(2).any(|w| w == b"\r\n") {
        return Err(vec![
            "Batch script contains DOS line breaks (\\r\\n)",
            "instead of expected UNIX line breaks (\\n).",
        ]);
    }
    Ok(())
}

/// sbatch's options after Slurm's two passes, as `slurm_opt_t` is when `_opt_verify`
/// starts: the early options of the first pass, the script, and every other option applied
/// from the `#SBATCH` directives, the SBATCH_* variables and the command line, in that order.
#[derive(Debug)]
pub struct SbatchOptions {
    pub raw: JobOptions,
    pub quiet: bool,
    pub wrap: Option<String>,
    pub script: Vec<u8>,
    pub script_path: Option<PathBuf>,
    /// The script name and its arguments (empty with `--wrap` or a script on stdin).
    pub script_args: Vec<String>,
    /// Directive notices to print, complete with their prefix.
    pub messages: Vec<String>,
    pub error_exit: i32,
}

/// Processes sbatch's command line, script and environment.
pub fn parse(mut input: SbatchInput<'_>) -> SbatchOutcome {
    match parse_options(&mut input) {
        Ok(options) => verify_and_build(options, &input),
        Err(outcome) => outcome,
    }
}

/// Applies the command line's early options (`early`) or all the others, in order.
fn apply_command_line(
    raw: &mut JobOptions,
    options: &[Typed],
    early: bool,
    input: &SbatchInput<'_>,
) -> Result<(), ValueError> {
    for (opt, value) in options
        .iter()
        .filter(|(o, _)| o.sbatch_early_pass() == early)
    {
        raw.apply(
            opt,
            value.as_deref(),
            Source::Cli,
            input.now,
            input.max_array_size,
        )?;
    }
    Ok(())
}

/// Slurm's option passes (`process_options_first_pass`, the script, then
/// `process_options_second_pass`): what sbatch was asked for, or how it ends early (help,
/// usage, version, or an error).
pub fn parse_options(input: &mut SbatchInput<'_>) -> Result<SbatchOptions, SbatchOutcome> {
    let error_exit = match error_exit(input.env) {
        Ok(c) => c,
        Err(msg) => return Err(exit_err(msg, 1)),
    };
    // First pass: every option is recognised, only the early ones act.
    let (first, rest) = match sbatch_getopt(input.args, input.profile) {
        Ok(p) => p,
        Err(line) => return Err(getopt_failure(&line)),
    };
    let mut quiet = false;
    let mut wrap: Option<String> = None;
    let mut chdir_first: Option<String> = None;
    for (opt, value) in &first {
        match opt.long {
            "help" => {
                return Err(SbatchOutcome::Exit {
                    stdout: super::texts::help(input.profile, "sbatch").into(),
                    stderr: String::new(),
                    code: 0,
                });
            }
            "usage" => {
                return Err(SbatchOutcome::Exit {
                    stdout: super::texts::usage(input.profile, "sbatch").into(),
                    stderr: String::new(),
                    code: 0,
                });
            }
            "version" => {
                return Err(SbatchOutcome::Exit {
                    stdout: format!("{}\n", input.profile.release.version_line()),
                    stderr: String::new(),
                    code: 0,
                });
            }
            "quiet" => quiet = true,
            "wrap" => wrap = value.clone(),
            "chdir" => chdir_first = value.clone(),
            _ => {}
        }
    }
    let script_args: Vec<String> = input.args[rest..].to_vec();
    if wrap.is_some() && !script_args.is_empty() {
        return Err(exit_err(
            "sbatch: error: Script arguments not permitted with --wrap option\n".into(),
            error_exit,
        ));
    }

    // The script: --wrap, a file, or stdin. It is copied now; the file may vanish later.
    let chdir_path = chdir_first.as_deref().map(|d| input.cwd.join(d));
    let (script, script_path, file_label) = if let Some(cmd) = &wrap {
        (
            format!("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n{cmd}\n")
                .into_bytes(),
            None,
            "stdin".to_string(),
        )
    } else if let Some(name) = script_args.first() {
        let path = resolve_script(name, chdir_path.as_deref(), input.env);
        match std::fs::read(&path) {
            Ok(b) => {
                let label = Path::new(name)
                    .file_name()
                    .map_or(name.clone(), |f| f.to_string_lossy().into_owned());
                (b, Some(path), label)
            }
            Err(_) => {
                return Err(exit_err(
                    format!("sbatch: error: Unable to open file {name}\n"),
                    error_exit,
                ));
            }
        }
    } else {
        let mut b = Vec::new();
        if input.stdin.read_to_end(&mut b).is_err() {
            return Err(exit_err(
                "sbatch: error: Unable to open file stdin\n".into(),
                error_exit,
            ));
        }
        (b, None, "stdin".to_string())
    };
    if let Err(lines) = check_script(&script) {
        let text: String = lines
            .iter()
            .map(|l| format!("sbatch: error: {l}\n"))
            .collect();
        return Err(exit_err(text, error_exit));
    }

    // The early options as the first pass set them (one level per `-v`, ...).
    let mut raw = JobOptions {
        root: nix::unistd::getuid().is_root(),
        ..JobOptions::default()
    };
    apply_command_line(&mut raw, &first, true, input).map_err(|e| value_failure(&e, error_exit))?;
    // Second pass: directives, then environment, then the command line. SBATCH_DEBUG
    // sets the log level itself, after the `-v`s were counted and before the second
    // pass, which skips them: `SBATCH_DEBUG=2 sbatch -v` logs at level 2.
    let scan = match super::directives::scan(&script, &file_label, &super::directives::SBATCH) {
        Ok(s) => s,
        Err(e) => {
            let mut text: String = e.notices.iter().map(notice_line).collect();
            text.push_str(&format!("sbatch: fatal: {e}\n"));
            return Err(exit_err(text, e.exit_code()));
        }
    };
    // Notices print as they happen, before anything else can fail.
    let mut messages: Vec<String> = scan
        .notices
        .iter()
        .map(|n| notice_line(n).trim_end().to_string())
        .collect();
    // Slurm's sbatch also reads #PBS directives (unless --ignore-pbs); bai-slurm does not,
    // and says so rather than drop them silently.
    let ignore_pbs = first.iter().any(|(o, _)| o.long == "ignore-pbs");
    if !ignore_pbs
        && super::directives::scan(&script, &file_label, &super::directives::PBS)
            .is_ok_and(|pbs| !pbs.directives.is_empty())
    {
        messages.push(
            "sbatch: warning: the script's #PBS directives are not read: bai-slurm reads #SBATCH only (--ignore-pbs silences this)"
                .to_string(),
        );
    }
    let directive_args = scan.args();
    let (parsed, rest) = match sbatch_getopt(&directive_args, input.profile) {
        Ok(p) => p,
        Err(line) => return Err(getopt_failure(&line)),
    };
    if let Some(bad) = directive_args.get(rest) {
        return Err(exit_err(
            format!("sbatch: error: Invalid directive found in batch script: {bad}\n"),
            255,
        ));
    }
    // The second pass skips the early options, in directives as on the command line.
    for (opt, value) in parsed.iter().filter(|(o, _)| !o.sbatch_early_pass()) {
        if let Err(e) = raw.apply(
            opt,
            value.as_deref(),
            Source::Directive,
            input.now,
            input.max_array_size,
        ) {
            return Err(value_failure(&e, error_exit));
        }
    }
    for opt in table::for_command_in(SBATCH, input.profile.version) {
        for var in opt.sbatch_env {
            let Some(value) = input.env.get(*var) else {
                continue;
            };
            if let Err(e) = raw.apply_env(opt, value, input.now, input.max_array_size) {
                return Err(value_failure(&e, error_exit));
            }
        }
    }
    apply_command_line(&mut raw, &first, false, input)
        .map_err(|e| value_failure(&e, error_exit))?;

    Ok(SbatchOptions {
        raw,
        quiet,
        wrap,
        script,
        script_path,
        script_args,
        messages,
        error_exit,
    })
}

/// `_opt_verify` and the JobSpec: what to submit, or why not.
fn verify_and_build(options: SbatchOptions, input: &SbatchInput<'_>) -> SbatchOutcome {
    let SbatchOptions {
        mut raw,
        quiet,
        wrap,
        script,
        script_path,
        script_args,
        mut messages,
        error_exit,
    } = options;
    if quiet && raw.verbose > 0 {
        return exit_err(
            "sbatch: error: don't specify both --verbose (-v) and --quiet (-Q)\n".into(),
            error_exit,
        );
    }
    // `_validate_memory_options`: one memory option per source, the command line winning.
    let mem_opts = ["mem", "mem-per-cpu", "mem-per-gpu"];
    let by = |s: Source| {
        mem_opts
            .iter()
            .filter(|o| raw.set_by.get(*o) == Some(&s))
            .count()
    };
    if by(Source::Cli) > 1 {
        return exit_err(
            "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n"
                .into(),
            1,
        );
    } else if by(Source::Cli) == 1 {
        let keep = mem_opts
            .iter()
            .find(|o| raw.set_by.get(*o) == Some(&Source::Cli))
            .copied();
        if keep != Some("mem") {
            raw.mem = None;
        }
        if keep != Some("mem-per-cpu") {
            raw.mem_per_cpu = None;
        }
        if keep != Some("mem-per-gpu") {
            raw.mem_per_gpu = None;
        }
    } else if by(Source::Env) > 1 {
        return exit_err(
            "sbatch: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.\n".into(),
            1,
        );
    } else if raw.mem.is_some() && raw.mem_per_cpu.is_some() {
        // Both from directives: the one Slurm keeps is the per-node size.
        raw.mem_per_cpu = None;
    }
    match raw.verify_hint() {
        Ok(false) => {}
        Ok(true) => {
            return SbatchOutcome::Exit {
                stdout: super::values::hint::HINT_HELP.into(),
                stderr: String::new(),
                code: error_exit,
            };
        }
        Err(e) => return value_failure(&e, error_exit),
    }
    // `gres_job_state_validate`, when the job description is made: GPUs per socket need
    // a socket count.
    if let Some(Some(v)) = raw.values.get("gpus-per-socket") {
        match super::values::gres::parse_gpus(v, None) {
            Err(e) => return value_failure(&e, error_exit),
            Ok(items) if !items.is_empty() && !raw.set_by.contains_key("sockets-per-node") => {
                return exit_err(
                    "sbatch: error: --gpus-per-socket option requires --sockets-per-node specification\n\
                     sbatch: error: Invalid generic resource (gres) specification\n"
                        .into(),
                    error_exit,
                );
            }
            Ok(_) => {}
        }
    }
    // Memory per GPU without any GPU (`gres_job_state_validate` again).
    if let Some(mb) = raw.mem_per_gpu
        && raw.gpus.is_none()
        && !raw.gres.iter().any(|g| g.name == "gpu")
    {
        return exit_err(
            format!(
                "sbatch: error: Requested mem_per_tres=gres:gpu:{mb} but did not request any GPU.\n\
                 sbatch: error: Invalid generic resource (gres) specification\n"
            ),
            error_exit,
        );
    }
    if let Err(e) = super::tres_per_task::settle(&mut raw, input.profile.submit.new_options, true) {
        let (stderr, code) = e.render("sbatch", "Batch job submission failed: ", error_exit);
        return exit_err(stderr, code);
    }
    if raw.gres_help {
        return SbatchOutcome::Exit {
            stdout: "gpu\n".into(),
            stderr: String::new(),
            code: 0,
        };
    }

    // sbatch exports the job's name to the job (SLURM_JOB_NAME, opt.c) when it has one of
    // its own: -J, `wrap`, or the script's name; a script read from stdin is called
    // `sbatch` and the variable is left as it was.
    // 24.11 exports the name of a script read from stdin too.
    let named = raw.job_name.is_some()
        || wrap.is_some()
        || !script_args.is_empty()
        || input.profile.job_env.start_end_oom;
    let default_name = if wrap.is_some() {
        "wrap".to_string()
    } else {
        match script_args.first() {
            Some(s) => Path::new(s)
                .file_name()
                .map_or(s.clone(), |f| f.to_string_lossy().into_owned()),
            None => "sbatch".to_string(),
        }
    };
    let ctx = BuildContext {
        prog: "sbatch",
        submit_prefix: "Batch job submission failed: ",
        env: input.env,
        cwd: input.cwd,
        hostname: input.hostname.clone(),
        umask: input.umask,
        max_array_size: input.max_array_size,
        error_exit,
        default_name,
    };
    match job_opts::build(&raw, &ctx, script, script_path, script_args) {
        Ok((mut spec, warnings)) => {
            if named {
                spec.environment
                    .insert("SLURM_JOB_NAME".into(), spec.name.clone());
            }
            messages.extend(warnings);
            SbatchOutcome::Submit(Box::new(SbatchRequest {
                spec,
                parsable: raw.parsable,
                quiet,
                wait: raw.wait,
                verbose: raw.verbose,
                test_only: raw.test_only,
                clusters: raw.clusters.clone(),
                messages,
            }))
        }
        Err(f) => f.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// sbatch with a script on stdin: its outcome.
    fn sbatch(args: &[&str], env: &[(&str, &str)], directives: &[&str]) -> SbatchOutcome {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut script = String::from("#!/bin/sh\n");
        for d in directives {
            script.push_str(&format!("#SBATCH {d}\n"));
        }
        script.push_str("true\n");
        let mut stdin = std::io::Cursor::new(script.into_bytes());
        parse(SbatchInput {
            args: &args,
            env: &env,
            cwd: Path::new("/"),
            stdin: &mut stdin,
            hostname: "host".into(),
            now: 0,
            umask: 0o022,
            max_array_size: 1001,
            profile: Profile::default_profile(),
        })
    }

    fn request(o: SbatchOutcome) -> SbatchRequest {
        match o {
            SbatchOutcome::Submit(r) => *r,
            other => panic!("{other:?}"),
        }
    }

    /// SBATCH_DEBUG is a level: `0` (or anything not a number) resets it, so it does not
    /// clash with `-Q`; `2` replaces the first pass's count of `-v`.
    #[test]
    fn sbatch_debug_sets_the_level() {
        let r = request(sbatch(&["-Q"], &[("SBATCH_DEBUG", "0")], &[]));
        assert_eq!((r.quiet, r.verbose), (true, 0));
        assert_eq!(
            request(sbatch(&["-v"], &[("SBATCH_DEBUG", "2")], &[])).verbose,
            2
        );
        assert_eq!(request(sbatch(&["-vv"], &[], &[])).verbose, 2);
        assert_eq!(
            sbatch(&[], &[("SBATCH_DEBUG", "yes")], &[]),
            SbatchOutcome::Exit {
                stdout: String::new(),
                stderr: "sbatch: error: Invalid numeric value \"yes\" for --verbose.\n".into(),
                code: 1,
            }
        );
    }

    /// The second pass skips the early options: `#SBATCH -v`, `#SBATCH --wrap` do nothing.
    #[test]
    fn early_options_in_directives_do_nothing() {
        let r = request(sbatch(&[], &[], &["-v", "--wrap=hostname", "--quiet"]));
        assert_eq!((r.verbose, r.quiet), (0, false));
        assert_eq!(r.spec.name, "sbatch");
    }

    /// A flag's variable with a false value resets what a directive set.
    #[test]
    fn false_flag_variables_reset_directives() {
        let r = request(sbatch(&[], &[("SBATCH_REQUEUE", "no")], &["--requeue"]));
        assert_eq!(r.spec.requeue, None);
        let r = request(sbatch(&[], &[("SBATCH_REQUEUE", " 1")], &["--no-requeue"]));
        assert_eq!(r.spec.requeue, Some(true));
        let r = request(sbatch(&[], &[("SBATCH_WAIT", "0")], &["-W"]));
        assert!(!r.wait);
    }
}
