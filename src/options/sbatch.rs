//! sbatch's option processing, in Slurm's order (src/sbatch/opt.c): a first pass over the
//! command line for the early options (help, usage, version, quiet, verbose, wrap) and the
//! script name; then the script's `#SBATCH` directives, the SBATCH_* variables and the
//! command line again, each later source overriding earlier ones; then verification; and
//! finally the typed JobSpec.

use super::getopt::{self, Event, HasArg};
use super::table::{self, SBATCH, Support};
use super::values::{self, ValueError};
use crate::model::jobspec::{ContainerRequest, GpuPer, GpuRequest};
use crate::model::{ArrayRequest, JobSpec, OpenMode, WarnSignal};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where an option's value came from (later sources override earlier ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Directive,
    Env,
    Cli,
}

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

/// The option values as typed, before the JobSpec is built (Slurm's `slurm_opt_t`).
#[derive(Debug, Default)]
struct Raw {
    /// Whether sbatch runs as root (`--uid`/`--gid` are root's options).
    root: bool,
    set_by: BTreeMap<&'static str, Source>,
    account: Option<String>,
    array: Option<values::array::ArraySpec>,
    array_raw: Option<String>,
    begin: Option<i64>,
    chdir: Option<String>,
    comment: Option<String>,
    cpus_per_task: Option<u32>,
    dependency: Option<String>,
    stdout: Option<String>,
    stderr: Option<String>,
    stdin: Option<String>,
    export: Option<values::export::ExportSpec>,
    export_raw: Option<String>,
    get_user_env: bool,
    gpus: Option<(GpuPer, Vec<values::gres::GresItem>)>,
    gres: Vec<values::gres::GresItem>,
    gres_help: bool,
    hold: bool,
    job_name: Option<String>,
    mem: Option<u64>,
    mem_per_cpu: Option<u64>,
    mem_per_gpu: Option<u64>,
    nice: Option<i32>,
    nodes: Option<values::nodes::NodeCount>,
    ntasks: Option<u32>,
    ntasks_per_node: Option<u32>,
    open_mode: Option<OpenMode>,
    parsable: bool,
    partition: Option<String>,
    priority: Option<u32>,
    qos: Option<String>,
    requeue: Option<bool>,
    signal: Option<WarnSignal>,
    time: Option<crate::model::TimeLimit>,
    time_min: Option<crate::model::TimeLimit>,
    wait: bool,
    exclusive: bool,
    nodelist: Option<String>,
    exclude: Option<String>,
    constraint: Option<String>,
    mail_type: Option<String>,
    mail_user: Option<String>,
    clusters: Option<String>,
    test_only: bool,
    kill_on_invalid_dep: Option<bool>,
    min_cpus: Option<u32>,
    reservation: Option<String>,
    licenses: Option<String>,
    export_file: Option<String>,
    container: ContainerRequest,
    /// Options accepted without effect, warned about once each.
    ignored: BTreeSet<&'static str>,
}

fn u32_of(v: i32) -> u32 {
    v.max(0) as u32
}

/// Flag-type input variables: empty, `yes` or a non-zero number set the flag.
fn env_flag(value: &str) -> bool {
    value.is_empty()
        || value.eq_ignore_ascii_case("yes")
        || value.parse::<i64>().is_ok_and(|n| n != 0)
}

impl Raw {
    /// Applies one option, as `slurm_process_option` does: values are checked when set.
    fn apply(
        &mut self,
        opt: &'static table::Opt,
        value: Option<&str>,
        source: Source,
        now: i64,
        max_array: u32,
    ) -> Result<(), ValueError> {
        let v = value.unwrap_or("");
        let name = opt.long;
        self.set_by.insert(name, source);
        match name {
            "account" => self.account = Some(v.to_string()),
            "array" => {
                self.array_raw = Some(v.to_string());
                self.array = values::array::parse_array(
                    v,
                    values::array::ArrayLimits {
                        max_array_size: max_array,
                        max_array_tasks: None,
                    },
                )?;
            }
            "begin" => {
                self.begin = Some(values::begin::parse_begin(v, now)?);
            }
            "chdir" => self.chdir = Some(v.to_string()),
            "comment" => self.comment = Some(v.to_string()),
            "cpus-per-task" => {
                self.cpus_per_task =
                    Some(u32_of(values::int::parse_int("--cpus-per-task", v, true)?))
            }
            "dependency" => self.dependency = Some(v.to_string()),
            "output" => self.stdout = Some(v.to_string()),
            "error" => self.stderr = Some(v.to_string()),
            "input" => self.stdin = Some(v.to_string()),
            "export" => {
                self.export_raw = Some(v.to_string());
                self.export = Some(values::export::parse_export(v));
            }
            "get-user-env" => self.get_user_env = true,
            "gpus" => self.gpus = Some((GpuPer::Job, values::gres::parse_gpus(v, None)?)),
            "gpus-per-node" => self.gpus = Some((GpuPer::Node, values::gres::parse_gpus(v, None)?)),
            "gpus-per-task" => self.gpus = Some((GpuPer::Task, values::gres::parse_gpus(v, None)?)),
            "gres" => match values::gres::parse_gres(v, None)? {
                values::gres::GresSpec::Help => self.gres_help = true,
                values::gres::GresSpec::None => self.gres.clear(),
                values::gres::GresSpec::Items(items) => self.gres = items,
            },
            "cpus-per-gpu" => {
                values::gres::parse_cpus_per_gpu(v)?;
            }
            "mem-per-gpu" => {
                self.mem_per_gpu = Some(values::gres::parse_mem_per_gpu(v)?);
            }
            "hold" => self.hold = true,
            "job-name" => self.job_name = Some(v.to_string()),
            "mem" => self.mem = Some(values::memory::parse_mbytes(v, "--mem")?),
            "mem-per-cpu" => {
                self.mem_per_cpu = Some(values::memory::parse_mbytes(v, "--mem-per-cpu")?)
            }
            "nice" => {
                let n: i64 = match value {
                    None => 100,
                    Some(s) => values::cnum::strtol(s.as_bytes()).value,
                };
                if n.abs() > 2_147_483_645 {
                    return Err(ValueError::invalid(
                        "Invalid --nice value, out of range (+/- 2147483645)",
                    ));
                }
                self.nice = Some(n as i32);
            }
            "nodes" => self.nodes = Some(values::nodes::parse_node_count(v)?),
            "ntasks" => self.ntasks = Some(u32_of(values::int::parse_int("--ntasks", v, true)?)),
            "ntasks-per-node" | "tasks-per-node" => {
                self.ntasks_per_node = Some(u32_of(values::int::parse_int(
                    "--ntasks-per-node",
                    v,
                    true,
                )?))
            }
            "open-mode" => {
                self.open_mode = Some(match values::open_mode::parse_open_mode(v)? {
                    values::open_mode::OpenMode::Append => OpenMode::Append,
                    values::open_mode::OpenMode::Truncate => OpenMode::Truncate,
                })
            }
            "parsable" => self.parsable = true,
            "partition" => self.partition = Some(v.to_string()),
            "priority" => {
                let p = if v.eq_ignore_ascii_case("TOP") {
                    u32::MAX - 1
                } else {
                    let n = values::cnum::strtol(v.as_bytes()).value;
                    if !(0..i64::from(u32::MAX - 1)).contains(&n) {
                        return Err(ValueError::invalid(format!(
                            "Priority must be >=0 and <{}",
                            u32::MAX - 1
                        )));
                    }
                    n as u32
                };
                self.priority = Some(p);
            }
            "qos" => self.qos = Some(v.to_string()),
            "requeue" => self.requeue = Some(true),
            "no-requeue" => self.requeue = Some(false),
            "signal" => {
                let s = values::signal::parse_signal_opts(v, true)?;
                self.signal = Some(WarnSignal {
                    signal: i32::from(s.signal),
                    seconds_before: u32::from(s.seconds),
                    batch_only: s.batch_only,
                });
            }
            "time" => self.time = Some(values::duration::parse_time_limit(v, "--time")?),
            "time-min" => {
                self.time_min = Some(values::duration::parse_time_limit(v, "--time-min")?)
            }
            "wait" => self.wait = true,
            "exclusive" => self.exclusive = true,
            "nodelist" => self.nodelist = Some(v.to_string()),
            "exclude" => self.exclude = Some(v.to_string()),
            "constraint" => self.constraint = Some(v.to_string()),
            "mail-type" => {
                values::mail_type::parse_mail_type(v)?;
                self.mail_type = Some(v.to_string());
            }
            "mail-user" => self.mail_user = Some(v.to_string()),
            "clusters" | "cluster" => self.clusters = Some(v.to_string()),
            "test-only" => self.test_only = true,
            "kill-on-invalid-dep" => {
                self.kill_on_invalid_dep = Some(match v.to_ascii_lowercase().as_str() {
                    "yes" => true,
                    "no" => false,
                    _ => {
                        return Err(ValueError::invalid(
                            "Invalid --kill-on-invalid-dep specification",
                        ));
                    }
                })
            }
            "container-image" => self.container.image = Some(v.to_string()),
            "container-mounts" => self
                .container
                .mounts
                .extend(v.split(',').filter(|m| !m.is_empty()).map(str::to_string)),
            "container-workdir" => self.container.workdir = Some(v.to_string()),
            "container-name" => self.container.name = Some(v.to_string()),
            "distribution" => {
                values::distribution::parse_distribution(v, None)?;
            }
            "mincpus" => {
                self.min_cpus = Some(u32_of(values::int::parse_int("--mincpus", v, true)?))
            }
            "reservation" => self.reservation = Some(v.to_string()),
            "licenses" => self.licenses = Some(v.to_string()),
            "export-file" => self.export_file = Some(v.to_string()),
            "uid" | "gid" if !self.root => {
                return Err(ValueError::invalid(format!(
                    "--{name} only permitted by root user"
                )));
            }
            // Early-pass options act in the first pass only.
            "help" | "usage" | "version" | "verbose" | "quiet" | "wrap" | "ignore-pbs" => {}
            _ => {}
        }
        match opt.support {
            Support::Honoured => {}
            Support::Ignored(_) => {
                self.ignored.insert(name);
            }
            Support::Rejected(why) => {
                return Err(ValueError::Fatal(format!(
                    "--{name} is not supported by bai-slurm: {why}"
                )));
            }
        }
        Ok(())
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
fn sbatch_getopt(args: &[String]) -> Result<(Vec<Typed>, usize), String> {
    let (short, long) = table::getopt_tables(SBATCH);
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

fn make_absolute(path: &str, dir: &Path) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{}", dir.display(), path)
    }
}

const HELP: &str = include_str!("../commands/text/sbatch_help.txt");
const USAGE: &str = include_str!("../commands/text/sbatch_usage.txt");

/// Processes sbatch's command line, script and environment.
pub fn parse(input: SbatchInput<'_>) -> SbatchOutcome {
    let error_exit = match error_exit(input.env) {
        Ok(c) => c,
        Err(msg) => return exit_err(msg, 1),
    };
    // First pass: every option is recognised, only the early ones act.
    let (first, rest) = match sbatch_getopt(input.args) {
        Ok(p) => p,
        Err(line) => return getopt_failure(&line),
    };
    let mut quiet = false;
    let mut verbose: u32 = input.env.get("SBATCH_DEBUG").map_or(0, |_| 1);
    let mut wrap: Option<String> = None;
    let mut chdir_first: Option<String> = None;
    for (opt, value) in &first {
        match opt.long {
            "help" => {
                return SbatchOutcome::Exit {
                    stdout: HELP.into(),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "usage" => {
                return SbatchOutcome::Exit {
                    stdout: USAGE.into(),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "version" => {
                return SbatchOutcome::Exit {
                    stdout: format!("{}\n", crate::commands::SLURM_VERSION_LINE),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "quiet" => quiet = true,
            "verbose" => verbose += 1,
            "wrap" => wrap = value.clone(),
            "chdir" => chdir_first = value.clone(),
            _ => {}
        }
    }
    let script_args: Vec<String> = input.args[rest..].to_vec();
    if wrap.is_some() && !script_args.is_empty() {
        return exit_err(
            "sbatch: error: Script arguments not permitted with --wrap option\n".into(),
            error_exit,
        );
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
                return exit_err(
                    format!("sbatch: error: Unable to open file {name}\n"),
                    error_exit,
                );
            }
        }
    } else {
        let mut b = Vec::new();
        if input.stdin.read_to_end(&mut b).is_err() {
            return exit_err(
                "sbatch: error: Unable to open file stdin\n".into(),
                error_exit,
            );
        }
        (b, None, "stdin".to_string())
    };
    if let Err(lines) = check_script(&script) {
        let text: String = lines
            .iter()
            .map(|l| format!("sbatch: error: {l}\n"))
            .collect();
        return exit_err(text, error_exit);
    }

    // Second pass: directives, then environment, then the command line.
    let mut raw = Raw {
        root: nix::unistd::getuid().is_root(),
        ..Raw::default()
    };
    let scan = match super::directives::scan(&script, &file_label, &super::directives::SBATCH) {
        Ok(s) => s,
        Err(e) => {
            let mut text: String = e.notices.iter().map(notice_line).collect();
            text.push_str(&format!("sbatch: fatal: {e}\n"));
            return exit_err(text, e.exit_code());
        }
    };
    // Notices print as they happen, before anything else can fail.
    let messages: Vec<String> = scan
        .notices
        .iter()
        .map(|n| notice_line(n).trim_end().to_string())
        .collect();
    let directive_args = scan.args();
    let (parsed, rest) = match sbatch_getopt(&directive_args) {
        Ok(p) => p,
        Err(line) => return getopt_failure(&line),
    };
    if let Some(bad) = directive_args.get(rest) {
        return exit_err(
            format!("sbatch: error: Invalid directive found in batch script: {bad}\n"),
            255,
        );
    }
    for (opt, value) in &parsed {
        if let Err(e) = raw.apply(
            opt,
            value.as_deref(),
            Source::Directive,
            input.now,
            input.max_array_size,
        ) {
            return value_failure(&e, error_exit);
        }
    }
    for opt in table::for_command(SBATCH) {
        for var in opt.sbatch_env {
            let Some(value) = input.env.get(*var) else {
                continue;
            };
            let result = if opt.arg == HasArg::No {
                if env_flag(value) {
                    raw.apply(opt, None, Source::Env, input.now, input.max_array_size)
                } else {
                    Ok(())
                }
            } else {
                raw.apply(
                    opt,
                    Some(value),
                    Source::Env,
                    input.now,
                    input.max_array_size,
                )
            };
            if let Err(e) = result {
                return value_failure(&e, error_exit);
            }
        }
    }
    for (opt, value) in &first {
        if let Err(e) = raw.apply(
            opt,
            value.as_deref(),
            Source::Cli,
            input.now,
            input.max_array_size,
        ) {
            return value_failure(&e, error_exit);
        }
    }

    if quiet && verbose > 0 {
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
    if raw.gres_help {
        return SbatchOutcome::Exit {
            stdout: "gpu\n".into(),
            stderr: String::new(),
            code: 0,
        };
    }

    match build(
        raw,
        input,
        script,
        script_path,
        script_args,
        wrap.is_some(),
        messages,
        error_exit,
    ) {
        Ok(mut req) => {
            req.quiet = quiet;
            req.verbose = verbose;
            SbatchOutcome::Submit(Box::new(req))
        }
        Err(outcome) => outcome,
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    raw: Raw,
    input: SbatchInput<'_>,
    script: Vec<u8>,
    script_path: Option<PathBuf>,
    script_args: Vec<String>,
    wrapped: bool,
    mut messages: Vec<String>,
    error_exit: i32,
) -> Result<SbatchRequest, SbatchOutcome> {
    let work_dir = match &raw.chdir {
        Some(d) => make_absolute(d, input.cwd),
        None => input.cwd.display().to_string(),
    };
    let work_path = PathBuf::from(&work_dir);
    let name = raw.job_name.clone().unwrap_or_else(|| {
        if wrapped {
            "wrap".into()
        } else {
            match script_args.first() {
                Some(s) => Path::new(s)
                    .file_name()
                    .map_or(s.clone(), |f| f.to_string_lossy().into_owned()),
                None => "sbatch".into(),
            }
        }
    });
    let command = match &script_path {
        Some(p) => make_absolute(&p.display().to_string(), input.cwd),
        None => String::new(),
    };
    let rejected = |r: values::Rejection| {
        exit_err(
            format!("sbatch: error: Batch job submission failed: {}\n", r.text()),
            error_exit,
        )
    };
    let array = raw.array.as_ref().map(|a| ArrayRequest {
        tasks: a.tasks.clone(),
        throttle: a.throttle,
        step: a.step.max(1) as u32,
    });
    let dependency = match &raw.dependency {
        Some(d) if !d.is_empty() => match values::dependency::parse_dependency(
            d,
            values::dependency::DependencyLimits {
                max_array_size: input.max_array_size,
                permit_job_expansion: false,
            },
        ) {
            Ok(dep) => Some(dep),
            Err(ValueError::Rejected(r)) => return Err(rejected(r)),
            Err(e) => return Err(value_failure(&e, error_exit)),
        },
        _ => None,
    };
    // The job's environment: --export applied to the submit environment (or to the
    // --export-file contents, which replace it), plus what sbatch adds.
    let file_env;
    let submit_env = match &raw.export_file {
        Some(f) => {
            file_env = match env_from_file(f, input.cwd) {
                Ok(e) => e,
                Err(msg) => return Err(exit_err(format!("sbatch: error: {msg}\n"), error_exit)),
            };
            &file_env
        }
        None => input.env,
    };
    let mut environment =
        values::export::job_environment(raw.export.as_ref(), submit_env, raw.get_user_env);
    if let Some(values::export::ExportSpec::List { warnings, .. }) = &raw.export {
        messages.extend(
            warnings
                .iter()
                .map(|w| format!("sbatch: error: Improperly formed environment variable ({w})")),
        );
    }
    environment.insert("SLURM_SUBMIT_DIR".into(), input.cwd.display().to_string());
    environment.insert("SLURM_SUBMIT_HOST".into(), input.hostname.clone());
    environment.insert("SLURM_PRIO_PROCESS".into(), process_priority().to_string());
    let export_env = match &raw.export {
        Some(spec) if spec.sets_export_env() => raw.export_raw.clone(),
        _ => None,
    };
    if let Some(e) = &export_env {
        environment.insert("SLURM_EXPORT_ENV".into(), e.clone());
    }
    let gpus = raw.gpus.as_ref().and_then(|(per, items)| {
        items.first().map(|g| GpuRequest {
            gpu_type: g.gres_type.clone(),
            count: g.count.as_f64(),
            per: *per,
        })
    });
    for opt in &raw.ignored {
        if let Some(table::Opt {
            support: Support::Ignored(why),
            ..
        }) = table::find(SBATCH, opt)
        {
            messages.push(format!("sbatch: warning: --{opt} {why} and is ignored"));
        }
    }
    let spec = JobSpec {
        name,
        script,
        script_args: script_args.iter().skip(1).cloned().collect(),
        command,
        work_dir: work_dir.clone(),
        submit_dir: input.cwd.display().to_string(),
        submit_host: input.hostname.clone(),
        stdout: raw.stdout.as_deref().map(|p| make_absolute(p, &work_path)),
        stderr: raw.stderr.as_deref().map(|p| make_absolute(p, &work_path)),
        stdin: Some(make_absolute(
            raw.stdin.as_deref().unwrap_or("/dev/null"),
            &work_path,
        )),
        open_mode: raw.open_mode,
        time_limit: raw.time,
        time_min: raw.time_min,
        nodes_min: raw.nodes.map(|n| u32_of(n.min)),
        nodes_max: raw.nodes.map(|n| u32_of(n.max)),
        ntasks: raw.ntasks,
        cpus_per_task: raw.cpus_per_task,
        ntasks_per_node: raw.ntasks_per_node,
        mem_per_node: raw.mem,
        mem_per_cpu: raw.mem_per_cpu,
        gpus,
        gres: raw.gres.iter().map(ToString::to_string).collect(),
        partition: raw.partition.clone(),
        account: raw.account.clone(),
        qos: raw.qos.clone(),
        comment: raw.comment.clone(),
        array,
        array_raw: raw.array_raw.clone(),
        dependency,
        dependency_raw: raw.dependency.clone().filter(|d| !d.is_empty()),
        hold: raw.hold,
        begin: raw.begin,
        nice: raw.nice,
        priority: raw.priority,
        requeue: raw.requeue,
        signal: raw.signal,
        mail_type: raw.mail_type.clone(),
        mail_user: raw.mail_user.clone(),
        nodelist: raw.nodelist.clone(),
        exclude: raw.exclude.clone(),
        constraint: raw.constraint.clone(),
        exclusive: raw.exclusive,
        min_cpus: raw.min_cpus,
        kill_on_invalid_dep: raw.kill_on_invalid_dep.unwrap_or(false),
        reservation: raw.reservation.clone(),
        licenses: raw.licenses.clone(),
        container: raw.container.clone(),
        environment,
        export_env,
        umask: Some(input.umask),
        submit_sid: crate::sys::session_id(),
        ignored: raw.ignored.iter().map(|s| s.to_string()).collect(),
    };
    Ok(SbatchRequest {
        spec,
        parsable: raw.parsable,
        quiet: false,
        wait: raw.wait,
        verbose: 0,
        test_only: raw.test_only,
        clusters: raw.clusters.clone(),
        messages,
    })
}

/// `--export-file`: NUL-separated `NAME=value` entries from a file or an open descriptor
/// (a number from 3 up), as `env_array_from_file` reads them; an unterminated last entry
/// is dropped as Slurm drops it.
fn env_from_file(name: &str, cwd: &Path) -> Result<BTreeMap<String, String>, String> {
    let bytes = match name.parse::<i32>() {
        Ok(fd) if fd >= 3 => std::fs::read(format!("/proc/self/fd/{fd}")),
        _ => std::fs::read(cwd.join(name)),
    }
    .map_err(|_| format!("Could not open user environment file {name}"))?;
    let mut env = BTreeMap::new();
    let mut entries: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
    entries.pop();
    for entry in entries {
        if entry.is_empty() {
            break;
        }
        let text = String::from_utf8_lossy(entry);
        if let Some((k, v)) = text.split_once('=') {
            env.insert(k.to_string(), v.to_string());
        }
    }
    Ok(env)
}

/// sbatch's SLURM_PRIO_PROCESS: the scheduling priority (nice value) it runs with.
fn process_priority() -> i32 {
    // SAFETY: getpriority has no memory-safety preconditions.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}
