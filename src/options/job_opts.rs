//! Option values shared by sbatch, srun and salloc (Slurm's `slurm_opt_t`): applying each
//! option as it is read (values are checked then, in source order), and turning the result
//! into the typed JobSpec every backend consumes.

use super::getopt::HasArg;
use super::table::{self, Support};
use super::values::{self, ValueError};
use crate::model::jobspec::{ContainerRequest, GpuPer, GpuRequest};
use crate::model::{ArrayRequest, JobSpec, OpenMode, WarnSignal};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where an option's value came from (later sources override earlier ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Directive,
    Env,
    Cli,
}

/// The cluster's GRES names (slurm.conf's GresTypes): both backends know GPUs only, so
/// sbatch refuses any other name itself, as Slurm's client does.
const GRES_TYPES: Option<&[&str]> = Some(&["gpu"]);

/// The option values as typed, before the JobSpec is built (Slurm's `slurm_opt_t`).
#[derive(Debug, Default)]
pub struct JobOptions {
    /// Whether sbatch runs as root (`--uid`/`--gid` are root's options).
    pub root: bool,
    pub set_by: BTreeMap<&'static str, Source>,
    /// Every option's value as last applied (`None`: a flag, or an optional argument left
    /// out), kept for the options bai-slurm ignores too, as `slurm_opt_t` keeps them.
    pub values: BTreeMap<&'static str, Option<String>>,
    pub account: Option<String>,
    pub array: Option<values::array::ArraySpec>,
    pub array_raw: Option<String>,
    pub begin: Option<i64>,
    pub deadline: Option<i64>,
    /// `--propagate[=LIST]` as given (checked when the job is built, as sbatch does).
    pub propagate: Option<String>,
    pub chdir: Option<String>,
    pub comment: Option<String>,
    pub cpus_per_task: Option<u32>,
    pub dependency: Option<String>,
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub stdin: Option<String>,
    pub export: Option<values::export::ExportSpec>,
    pub export_raw: Option<String>,
    pub get_user_env: bool,
    pub gpus: Option<(GpuPer, Vec<values::gres::GresItem>)>,
    pub gres: Vec<values::gres::GresItem>,
    pub gres_help: bool,
    /// `--tres-per-task` as given, then (`tres_per_task::settle`) the job's whole text.
    pub tres_per_task: Option<String>,
    pub hold: bool,
    pub job_name: Option<String>,
    pub mem: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    pub mem_per_gpu: Option<u64>,
    pub cpus_per_gpu: Option<u32>,
    pub nice: Option<i32>,
    pub nodes: Option<values::nodes::NodeCount>,
    pub ntasks: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub open_mode: Option<OpenMode>,
    pub parsable: bool,
    pub partition: Option<String>,
    pub priority: Option<u32>,
    pub qos: Option<String>,
    pub requeue: Option<bool>,
    pub signal: Option<WarnSignal>,
    pub time: Option<crate::model::TimeLimit>,
    pub time_min: Option<crate::model::TimeLimit>,
    pub wait: bool,
    pub exclusive: bool,
    pub nodelist: Option<String>,
    pub exclude: Option<String>,
    pub constraint: Option<String>,
    pub mail_type: Option<String>,
    pub mail_user: Option<String>,
    pub clusters: Option<String>,
    pub test_only: bool,
    pub kill_on_invalid_dep: Option<bool>,
    /// `--immediate[=secs]` (1 without a value, DEFAULT_IMMEDIATE).
    pub immediate: Option<u32>,
    pub min_cpus: Option<u32>,
    pub reservation: Option<String>,
    pub licenses: Option<String>,
    pub export_file: Option<String>,
    pub container: ContainerRequest,
    // srun's own options.
    pub label: bool,
    /// `srun --pty`: task 0 on a terminal.
    pub pty: bool,
    /// srun `--quit-on-interrupt` and `--disable-status` (how it takes a Ctrl-C).
    pub quit_on_interrupt: bool,
    pub disable_status: bool,
    /// srun `-W/--wait=secs`: how long after its first task ends the step may go on (0:
    /// for ever; a negative value is accepted and means the same).
    pub max_wait: u32,
    pub unbuffered: bool,
    pub kill_on_bad_exit: bool,
    /// `--multi-prog`: the command is a file giving each task rank its own program.
    pub multi_prog: bool,
    /// `--prolog`/`--epilog`: srun runs these around the step; `--task-prolog`/
    /// `--task-epilog`: the node runs these around each task.
    pub prolog: Option<String>,
    pub epilog: Option<String>,
    pub task_prolog: Option<String>,
    pub task_epilog: Option<String>,
    pub distribution: Option<String>,
    pub jobid: Option<u32>,
    pub preserve_env: bool,
    /// The log level: one per `-v`, or the level an input variable (SBATCH_DEBUG,
    /// SLURM_DEBUG, SALLOC_DEBUG) gives (`arg_set_verbose`).
    pub verbose: u32,
    /// Options accepted without effect, warned about once each.
    pub ignored: BTreeSet<&'static str>,
}

pub fn u32_of(v: i32) -> u32 {
    v.max(0) as u32
}

/// Flag-type input variables: empty, `yes` or a non-zero number (read by `strtol`, to the
/// end of the value) set the flag; anything else resets it (`slurm_process_option`).
pub fn env_flag(value: &str) -> bool {
    let b = crate::model::cnum::c_bytes(value);
    let n = crate::model::cnum::strtol(b);
    b.is_empty() || value.eq_ignore_ascii_case("yes") || (n.value != 0 && n.end == b.len())
}

impl JobOptions {
    /// Applies an input variable as `slurm_process_option(..., set_by_env = true)` does: a
    /// flag is set by an empty value, `yes` or a non-zero number and reset by anything
    /// else ([`env_flag`]); an empty value of an optional argument counts as no argument.
    pub fn apply_env(
        &mut self,
        opt: &'static table::Opt,
        value: &str,
        now: i64,
        max_array: u32,
    ) -> Result<(), ValueError> {
        match opt.arg {
            HasArg::No if !env_flag(value) => {
                self.reset(opt);
                Ok(())
            }
            // An input variable gives the log level itself (`SBATCH_DEBUG=2`).
            HasArg::No if opt.long == "verbose" => {
                self.apply(opt, Some(value), Source::Env, now, max_array)
            }
            HasArg::No => self.apply(opt, None, Source::Env, now, max_array),
            HasArg::Optional if value.is_empty() => {
                self.apply(opt, None, Source::Env, now, max_array)
            }
            _ => self.apply(opt, Some(value), Source::Env, now, max_array),
        }
    }

    /// A flag's `reset_func`: back to its default, as if it had not been given.
    pub fn reset(&mut self, opt: &'static table::Opt) {
        let name = opt.long;
        self.set_by.remove(name);
        self.values.remove(name);
        self.ignored.remove(name);
        match name {
            "requeue" | "no-requeue" => self.requeue = None,
            "wait" => self.wait = false,
            "hold" => self.hold = false,
            "parsable" => self.parsable = false,
            "test-only" => self.test_only = false,
            "label" => self.label = false,
            "pty" => self.pty = false,
            "multi-prog" => self.multi_prog = false,
            "unbuffered" => self.unbuffered = false,
            "preserve-env" => self.preserve_env = false,
            "verbose" => self.verbose = 0,
            _ => {}
        }
    }

    /// Applies one option, as `slurm_process_option` does: values are checked when set.
    pub fn apply(
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
        // A flag has no value; only an input variable passes one, which `verbose` reads.
        let typed = value.filter(|_| opt.arg != HasArg::No);
        self.values.insert(name, typed.map(str::to_string));
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
            "deadline" => {
                self.deadline = Some(values::begin::parse_deadline(v, now)?);
            }
            "chdir" => self.chdir = Some(v.to_string()),
            "propagate" => self.propagate = Some(value.unwrap_or("ALL").to_string()),
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
            "get-user-env" => {
                values::words::parse_get_user_env(value)?;
                self.get_user_env = true;
            }
            "gpus" => self.gpus = Some((GpuPer::Job, values::gres::parse_gpus(v, GRES_TYPES)?)),
            "gpus-per-node" => {
                self.gpus = Some((GpuPer::Node, values::gres::parse_gpus(v, GRES_TYPES)?))
            }
            "gpus-per-task" => {
                self.gpus = Some((GpuPer::Task, values::gres::parse_gpus(v, GRES_TYPES)?))
            }
            "gres" => match values::gres::parse_gres(v, GRES_TYPES)? {
                values::gres::GresSpec::Help => self.gres_help = true,
                values::gres::GresSpec::None => self.gres.clear(),
                values::gres::GresSpec::Items(items) => self.gres = items,
            },
            "tres-per-task" => self.tres_per_task = Some(v.to_string()),
            "cpus-per-gpu" => {
                self.cpus_per_gpu = Some(u32_of(values::gres::parse_cpus_per_gpu(v)?))
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
                    Some(s) => crate::model::cnum::strtol(s.as_bytes()).value,
                };
                // `llabs(tmp_nice) > NICE_OFFSET - 3`; for LLONG_MIN (what strtoll gives
                // for a huge negative number) llabs is undefined in C: out of range here.
                if n.unsigned_abs() > 2_147_483_645 {
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
                    let n = crate::model::cnum::strtol(v.as_bytes()).value;
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
            // sbatch's `-W/--wait` is a flag; srun's `-W/--wait=seconds` a number.
            "wait" if opt.arg == HasArg::Required => {
                self.max_wait = values::int::parse_int("--wait", v, false)?.max(0) as u32;
            }
            "wait" => self.wait = true,
            // `arg_set_exclusive`: `user` and `mcs` keep other users' jobs off the node,
            // which the whole node does too; `oversubscribe` shares it.
            "exclusive" => {
                self.exclusive = match value.map(str::to_ascii_lowercase).as_deref() {
                    None | Some("exclusive" | "user" | "mcs") => true,
                    Some("oversubscribe") => false,
                    Some(_) => return Err(ValueError::invalid_spec("--exclusive")),
                }
            }
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
            "quit-on-interrupt" => self.quit_on_interrupt = true,
            "disable-status" => self.disable_status = true,
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
            "label" => self.label = true,
            "pty" => self.pty = true,
            "multi-prog" => self.multi_prog = true,
            "prolog" => self.prolog = Some(v.to_string()),
            "epilog" => self.epilog = Some(v.to_string()),
            "task-prolog" => self.task_prolog = Some(v.to_string()),
            "task-epilog" => self.task_epilog = Some(v.to_string()),
            "unbuffered" => self.unbuffered = true,
            "kill-on-bad-exit" => {
                self.kill_on_bad_exit = value.is_none_or(|v| !matches!(v.parse::<i64>(), Ok(0)))
            }
            "jobid" => self.jobid = Some(u32_of(values::int::parse_int("--jobid", v, true)?)),
            "preserve-env" => self.preserve_env = true,
            "container-image" => self.container.image = Some(v.to_string()),
            "container-mounts" => self
                .container
                .mounts
                .extend(v.split(',').filter(|m| !m.is_empty()).map(str::to_string)),
            "container-workdir" => self.container.workdir = Some(v.to_string()),
            "container-name" => self.container.name = Some(v.to_string()),
            "distribution" => {
                values::distribution::parse_distribution(v, None)?;
                self.distribution = Some(v.to_string());
            }
            "mincpus" => {
                self.min_cpus = Some(u32_of(values::int::parse_int("--mincpus", v, true)?))
            }
            "reservation" => self.reservation = Some(v.to_string()),
            "licenses" => self.licenses = Some(v.to_string()),
            "export-file" => self.export_file = Some(v.to_string()),
            // Options bai-slurm ignores, with their values checked as Slurm's set functions
            // check them (the warning comes later, only for values that pass).
            "core-spec" => {
                values::int::parse_int("--core-spec", v, false)?;
            }
            "thread-spec" | "sockets-per-node" | "cores-per-socket" | "threads-per-core"
            | "ntasks-per-core" | "ntasks-per-socket" | "ntasks-per-tres" | "ntasks-per-gpu"
            | "msg-timeout" => {
                values::int::parse_int(&format!("--{name}"), v, true)?;
            }
            "threads" => {
                values::int::parse_int("--threads", v, true)?;
            }
            "relative" => {
                values::int::parse_int("--relative", v, false)?;
            }
            "resv-ports" => {
                if let Some(v) = value {
                    values::int::parse_int("--resv-port", v, false)?;
                }
            }
            "immediate" => {
                self.immediate = Some(match value {
                    Some(v) => u32_of(values::int::parse_int("immediate", v, false)?),
                    None => 1,
                });
            }
            "switches" => {
                values::words::parse_switches(v)?;
            }
            "wait-all-nodes" => {
                values::words::parse_wait_all_nodes(v)?;
            }
            "delay-boot" => {
                values::duration::parse_seconds(v, "--delay-boot")?;
            }
            "tmp" => {
                values::memory::parse_mbytes(v, "--tmp")?;
            }
            "gres-flags" => values::words::parse_gres_flags(v)?,
            "no-kill" => {
                values::words::parse_no_kill(value)?;
            }
            "accel-bind" => values::words::parse_accel_bind(v)?,
            "send-libs" => {
                values::words::parse_send_libs(value)?;
            }
            "profile" => values::words::parse_profile(v)?,
            "acctg-freq" => values::acctg_freq::parse_acctg_freq(v)?,
            "extra-node-info" => values::extra_node_info::parse_extra_node_info(v)?,
            "gpu-bind" => values::tres::parse_gpu_bind(v)?,
            "mem-bind" => values::mem_bind::parse_mem_bind(v)?,
            "gpu-freq" => values::tres::parse_gpu_freq(v)?,
            "cpu-freq" => values::cpu_freq::parse_cpu_freq(v, values::cpu_freq::DEFAULT_GOVERNORS)?,
            "uid" | "gid" if !self.root => {
                return Err(ValueError::invalid(format!(
                    "--{name} only permitted by root user"
                )));
            }
            "verbose" => match value {
                None => self.verbose += 1,
                Some(v) => self.verbose = u32_of(values::int::parse_int("--verbose", v, false)?),
            },
            // Acted on where they are parsed (sbatch's first pass, srun, salloc).
            "help" | "usage" | "version" | "quiet" | "wrap" | "ignore-pbs" => {}
            _ => {}
        }
        match opt.support {
            Support::Honoured | Support::Default(_) => {}
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

impl JobOptions {
    /// `validate_hint_option` and then `verify_hint`, as `_opt_verify` runs them: `--hint`
    /// is dropped without a word when `--ntasks-per-core`, `--threads-per-core`, `-B` or
    /// `--cpu-bind` (other than `verbose`) come from the same kind of source (a directive
    /// counts as the command line); otherwise its words are checked. `Ok(true)`: `help`
    /// was asked for (print [`values::hint::HINT_HELP`] and exit with `error_exit`).
    pub fn verify_hint(&mut self) -> Result<bool, ValueError> {
        let by_cli = |o: &str| matches!(self.set_by.get(o), Some(Source::Cli | Source::Directive));
        let by_env = |o: &str| self.set_by.get(o) == Some(&Source::Env);
        let cpu_bind_binds = !matches!(
            self.values.get("cpu-bind").map(|v| v.as_deref().unwrap_or("").to_ascii_lowercase()),
            Some(ref v) if v == "v" || v == "verbose"
        );
        let others = |by: &dyn Fn(&str) -> bool, strict: bool| {
            ["ntasks-per-core", "threads-per-core", "extra-node-info"]
                .iter()
                .any(|o| by(o))
                || (by("cpu-bind") && (!strict || cpu_bind_binds))
        };
        let check = if by_cli("hint") {
            !others(&by_cli, true)
        } else if others(&by_cli, false) {
            false
        } else if by_env("hint") {
            !others(&by_env, false)
        } else {
            false
        };
        if !check {
            if self.set_by.contains_key("hint") {
                self.set_by.remove("hint");
                self.values.remove("hint");
                self.ignored.remove("hint");
            }
            return Ok(false);
        }
        let hint = self
            .values
            .get("hint")
            .cloned()
            .flatten()
            .unwrap_or_default();
        Ok(values::hint::parse_hint(&hint)? == values::hint::HintRequest::Help)
    }
}

pub fn make_absolute(path: &str, dir: &Path) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{}", dir.display(), path)
    }
}

/// A command that cannot go on: what it prints and its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub stderr: String,
    pub code: i32,
}

/// What building a JobSpec needs besides the options.
pub struct BuildContext<'a> {
    /// `sbatch`, `srun` or `salloc`, for messages.
    pub prog: &'static str,
    /// What a controller refusal is prefixed with (`Batch job submission failed: `).
    pub submit_prefix: &'static str,
    pub env: &'a BTreeMap<String, String>,
    pub cwd: &'a Path,
    pub hostname: String,
    pub umask: u32,
    pub max_array_size: u32,
    pub error_exit: i32,
    /// The job name when none was given (script name, `wrap`, `sbatch`, `interactive`, ...).
    pub default_name: String,
}

pub fn value_failure(e: &ValueError, prog: &str, submit_prefix: &str, error_exit: i32) -> Failure {
    Failure {
        stderr: e.render(prog, submit_prefix),
        code: e.exit_code(error_exit),
    }
}

/// The typed, validated JobSpec, and the warnings to print before submitting.
pub fn build(
    raw: &JobOptions,
    ctx: &BuildContext<'_>,
    script: Vec<u8>,
    script_path: Option<PathBuf>,
    script_args: Vec<String>,
) -> Result<(JobSpec, Vec<String>), Failure> {
    let input = ctx;
    let error_exit = ctx.error_exit;
    // `_opt_verify` of sbatch, salloc and srun.
    if let (Some(deadline), Some(begin)) = (raw.deadline, raw.begin)
        && deadline < begin
    {
        return Err(Failure {
            stderr: format!(
                "{}: error: Incompatible begin and deadline time specification\n",
                ctx.prog
            ),
            code: error_exit,
        });
    }
    // sbatch's `_set_rlimit_env`: the submitting process's soft limits, those `--propagate`
    // names (all without it: PropagateResourceLimits=ALL).
    let rlimits = match crate::model::rlimit::parse_propagate(
        raw.propagate.as_deref().unwrap_or("ALL"),
    ) {
        Ok(names) => crate::sys::soft_limits(&names),
        Err(bad) => {
            return Err(Failure {
                stderr: format!(
                    "{prog}: error: Bad rlimit name: {bad}\n{prog}: error: --propagate={} is not valid.\n",
                    raw.propagate.as_deref().unwrap_or_default(),
                    prog = ctx.prog
                ),
                code: error_exit,
            });
        }
    };
    let mut messages = Vec::new();
    let work_dir = match &raw.chdir {
        Some(d) => make_absolute(d, input.cwd),
        None => input.cwd.display().to_string(),
    };
    let work_path = PathBuf::from(&work_dir);
    let name = raw
        .job_name
        .clone()
        .unwrap_or_else(|| ctx.default_name.clone());
    let command = match &script_path {
        Some(p) => make_absolute(&p.display().to_string(), input.cwd),
        None => String::new(),
    };
    let rejected = |r: values::Rejection| Failure {
        stderr: format!("{}: error: {}{}\n", ctx.prog, ctx.submit_prefix, r.text()),
        code: error_exit,
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
            Err(e) => return Err(value_failure(&e, ctx.prog, ctx.submit_prefix, error_exit)),
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
                Err(msg) => {
                    return Err(Failure {
                        stderr: format!("{}: error: {msg}\n", ctx.prog),
                        code: error_exit,
                    });
                }
            };
            &file_env
        }
        None => input.env,
    };
    let mut environment =
        values::export::job_environment(raw.export.as_ref(), submit_env, raw.get_user_env);
    if let Some(values::export::ExportSpec::List { warnings, .. }) = &raw.export {
        messages.extend(warnings.iter().map(|w| {
            format!(
                "{}: error: Improperly formed environment variable ({w})",
                ctx.prog
            )
        }));
    }
    environment.insert("SLURM_SUBMIT_DIR".into(), input.cwd.display().to_string());
    environment.insert("SLURM_SUBMIT_HOST".into(), input.hostname.clone());
    environment.insert("SLURM_PRIO_PROCESS".into(), process_priority().to_string());
    // set_env_from_opts: sbatch and salloc pass the GPU options on to the job.
    if ctx.prog != "srun" {
        if let Some((per, items)) = &raw.gpus {
            let value = items
                .iter()
                .map(|g| match &g.gres_type {
                    Some(t) => format!("{t}:{}", g.count),
                    None => g.count.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",");
            let name = match per {
                GpuPer::Job => "SLURM_GPUS",
                GpuPer::Node => "SLURM_GPUS_PER_NODE",
                GpuPer::Task => "SLURM_GPUS_PER_TASK",
            };
            // A job's TRES per task text exists only under 24.11, whose set_env_from_opts
            // gives GPUs per task through it instead.
            let in_text = *per == GpuPer::Task && raw.tres_per_task.is_some();
            if !value.is_empty() && !in_text {
                environment.insert(name.into(), value);
            }
        }
        if let Some(c) = raw.cpus_per_gpu {
            environment.insert("SLURM_CPUS_PER_GPU".into(), c.to_string());
        }
        if let Some(m) = raw.mem_per_gpu {
            environment.insert("SLURM_MEM_PER_GPU".into(), m.to_string());
        }
        if let Some(t) = &raw.tres_per_task {
            environment.insert("SLURM_TRES_PER_TASK".into(), t.clone());
            let bind = match raw.values.get("tres-bind") {
                Some(Some(b)) => Some(b.clone()),
                _ => super::tres_per_task::implicit_binding(t),
            };
            if let Some(b) = bind {
                environment.insert("SLURM_TRES_BIND".into(), b);
            }
        }
    }
    let export_env = match &raw.export {
        Some(spec) if spec.sets_export_env() => raw
            .export_raw
            .as_deref()
            .map(values::export::without_credential_values),
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
    messages.extend(table::ignored_warnings(
        ctx.prog,
        raw.ignored.iter().copied(),
    ));
    let spec = JobSpec {
        name,
        script,
        script_args: script_args.iter().skip(1).cloned().collect(),
        command,
        work_dir: work_dir.clone(),
        submit_dir: input.cwd.display().to_string(),
        submit_host: input.hostname.clone(),
        submit_line: None,
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
        cpus_per_gpu: raw.cpus_per_gpu,
        mem_per_gpu: raw.mem_per_gpu,
        gpus,
        tres_per_task: raw.tres_per_task.clone(),
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
        interactive: false,
        made_by_srun: false,
        owner: None,
        begin: raw.begin,
        deadline: raw.deadline,
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
        total_cpus: None,
        kill_on_invalid_dep: raw.kill_on_invalid_dep,
        immediate: raw.immediate.filter(|&secs| secs > 0),
        reservation: raw.reservation.clone(),
        licenses: raw.licenses.clone(),
        container: raw.container.clone(),
        environment,
        export_env,
        umask: Some(input.umask),
        rlimits,
        submit_sid: crate::sys::session_id(),
        ignored: raw.ignored.iter().map(|s| s.to_string()).collect(),
    };
    Ok((spec, messages))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::table::SBATCH;

    fn opt(cmd: u8, long: &str) -> &'static table::Opt {
        table::find(cmd, long).unwrap()
    }

    #[test]
    fn flag_variables_are_read_as_strtol_reads_them() {
        for set in [
            "",
            "yes",
            "YES",
            "1",
            "-1",
            " 7",
            "+2",
            "99999999999999999999",
        ] {
            assert!(env_flag(set), "{set:?} sets");
        }
        for unset in ["no", "0", " 0", "1x", "true", "y"] {
            assert!(!env_flag(unset), "{unset:?} resets");
        }
    }

    /// `SBATCH_REQUEUE=no` after `#SBATCH --requeue`: the flag's reset_func runs.
    #[test]
    fn a_false_flag_variable_resets_what_a_directive_set() {
        let mut o = JobOptions::default();
        let requeue = opt(SBATCH, "requeue");
        o.apply(requeue, None, Source::Directive, 0, 1001).unwrap();
        assert_eq!(o.requeue, Some(true));
        o.apply_env(requeue, "no", 0, 1001).unwrap();
        assert_eq!(o.requeue, None);
        assert!(!o.set_by.contains_key("requeue") && !o.values.contains_key("requeue"));
        let wait = opt(SBATCH, "wait");
        o.apply(wait, None, Source::Directive, 0, 1001).unwrap();
        o.apply_env(wait, "0", 0, 1001).unwrap();
        assert!(!o.wait);
        // An ignored flag reset by its variable is no longer warned about.
        let overcommit = opt(SBATCH, "overcommit");
        o.apply_env(overcommit, "yes", 0, 1001).unwrap();
        assert!(o.ignored.contains("overcommit"));
        o.apply_env(overcommit, "off", 0, 1001).unwrap();
        assert!(!o.ignored.contains("overcommit"));
    }

    #[test]
    fn an_empty_optional_argument_variable_is_no_argument() {
        let mut o = JobOptions::default();
        o.apply_env(opt(SBATCH, "exclusive"), "", 0, 1001).unwrap();
        assert_eq!(o.values.get("exclusive"), Some(&None));
        assert_eq!(o.set_by.get("exclusive"), Some(&Source::Env));
    }

    #[test]
    fn exclusive_values_as_slurm_takes_them() {
        let exclusive = opt(SBATCH, "exclusive");
        let mut o = JobOptions::default();
        for (v, whole_node) in [
            (None, true),
            (Some("exclusive"), true),
            (Some("USER"), true),
            (Some("mcs"), true),
            (Some("OverSubscribe"), false),
        ] {
            o.apply(exclusive, v, Source::Cli, 0, 1001).unwrap();
            assert_eq!(o.exclusive, whole_node, "--exclusive={v:?}");
        }
        for bad in ["", "topo", "yes", "node"] {
            assert_eq!(
                o.apply(exclusive, Some(bad), Source::Cli, 0, 1001),
                Err(ValueError::invalid("Invalid --exclusive specification")),
                "--exclusive={bad}"
            );
        }
    }

    #[test]
    fn verbose_variables_give_the_level() {
        let verbose = opt(SBATCH, "verbose");
        let mut o = JobOptions::default();
        o.apply(verbose, None, Source::Cli, 0, 1001).unwrap();
        o.apply(verbose, None, Source::Cli, 0, 1001).unwrap();
        assert_eq!(o.verbose, 2);
        o.apply_env(verbose, "5", 0, 1001).unwrap();
        assert_eq!(o.verbose, 5);
        o.apply_env(verbose, "", 0, 1001).unwrap();
        assert_eq!(o.verbose, 0);
        o.apply_env(verbose, "3", 0, 1001).unwrap();
        o.apply_env(verbose, "no", 0, 1001).unwrap();
        assert_eq!(o.verbose, 0);
        assert_eq!(
            o.apply_env(verbose, "yes", 0, 1001),
            Err(ValueError::Numeric(
                "Invalid numeric value \"yes\" for --verbose.".into()
            ))
        );
    }

    fn nice(value: Option<&str>) -> Result<Option<i32>, ValueError> {
        let mut o = JobOptions::default();
        o.apply(opt(SBATCH, "nice"), value, Source::Cli, 0, 1001)?;
        Ok(o.nice)
    }

    /// Found by tests/fuzz_options.rs: strtol clamps a huge negative number to i64::MIN,
    /// whose absolute value overflowed (a panic; in release builds it passed as nice 0).
    #[test]
    fn nice_out_of_range_either_way() {
        assert_eq!(nice(None), Ok(Some(100)));
        assert_eq!(nice(Some("-5")), Ok(Some(-5)));
        assert_eq!(nice(Some("2147483645")), Ok(Some(2_147_483_645)));
        for v in [
            "2147483646",
            "-2147483646",
            "99999999999999999999999",
            "-99999999999999999999999",
            "-9223372036854775808",
        ] {
            assert_eq!(
                nice(Some(v)).unwrap_err().message(),
                "Invalid --nice value, out of range (+/- 2147483645)",
                "{v}"
            );
        }
    }
}
