//! srun's option processing: the shared option table read from the command line and from
//! srun's input variables (`SLURM_NTASKS`, `SLURM_JOB_NUM_NODES`, ... — which is why a step
//! inherits the batch job's request), with srun's own options among them.

use super::getopt::{self, Event};
use super::job_opts::{JobOptions, Source};
use super::table::{self, SRUN};
use super::values::ValueError;
use crate::model::array::DEFAULT_MAX_ARRAY_SIZE;
use crate::model::profile::Profile;
use std::collections::BTreeMap;

/// srun's input variables (`env_vars[]` in src/srun/libsrun/opt.c), by option.
pub const SRUN_ENV: &[(&str, &str)] = &[
    ("SLURM_ACCOUNT", "account"),
    ("SLURM_ACCTG_FREQ", "acctg-freq"),
    ("SLURM_BCAST", "bcast"),
    ("SLURM_BCAST_EXCLUDE", "bcast-exclude"),
    ("SLURM_BURST_BUFFER", "bb"),
    ("SLURM_CLUSTERS", "clusters"),
    ("SLURM_CLUSTER_CONSTRAINT", "cluster-constraint"),
    ("SLURM_COMPRESS", "compress"),
    ("SLURM_CONSTRAINT", "constraint"),
    ("SLURM_CORE_SPEC", "core-spec"),
    ("SRUN_CPUS_PER_TASK", "cpus-per-task"),
    ("SLURM_CPU_BIND", "cpu-bind"),
    ("SLURM_CPU_FREQ_REQ", "cpu-freq"),
    ("SLURM_CPUS_PER_GPU", "cpus-per-gpu"),
    ("SLURM_DELAY_BOOT", "delay-boot"),
    ("SLURM_DEPENDENCY", "dependency"),
    ("SLURM_DISABLE_STATUS", "disable-status"),
    ("SLURM_DISTRIBUTION", "distribution"),
    ("SLURM_EPILOG", "epilog"),
    ("SLURM_EXACT", "exact"),
    ("SLURM_EXCLUSIVE", "exclusive"),
    ("SLURM_EXPORT_ENV", "export"),
    ("SRUN_EXPORT_ENV", "export"),
    ("SLURM_GPUS", "gpus"),
    ("SLURM_GPU_BIND", "gpu-bind"),
    ("SLURM_GPU_FREQ", "gpu-freq"),
    ("SLURM_GPUS_PER_NODE", "gpus-per-node"),
    ("SLURM_GPUS_PER_SOCKET", "gpus-per-socket"),
    ("SLURM_GPUS_PER_TASK", "gpus-per-task"),
    // 24.11: how a step inherits its job's CPUs per task (`-c` written into it by sbatch).
    ("SLURM_TRES_PER_TASK", "tres-per-task"),
    ("SLURM_GRES", "gres"),
    ("SLURM_GRES_FLAGS", "gres-flags"),
    ("SLURM_HINT", "hint"),
    ("SLURM_JOB_ID", "jobid"),
    ("SLURM_JOB_NAME", "job-name"),
    ("SLURM_JOB_NUM_NODES", "nodes"),
    ("SLURM_KILL_BAD_EXIT", "kill-on-bad-exit"),
    ("SLURM_LABELIO", "label"),
    ("SLURM_MEM_BIND", "mem-bind"),
    ("SLURM_MEM_PER_CPU", "mem-per-cpu"),
    ("SLURM_MEM_PER_GPU", "mem-per-gpu"),
    ("SLURM_MEM_PER_NODE", "mem"),
    ("SLURM_MPI_TYPE", "mpi"),
    ("SLURM_NCORES_PER_SOCKET", "cores-per-socket"),
    ("SLURM_NETWORK", "network"),
    ("SLURM_NO_KILL", "no-kill"),
    ("SLURM_NPROCS", "ntasks"),
    ("SLURM_NTASKS", "ntasks"),
    ("SLURM_NSOCKETS_PER_NODE", "sockets-per-node"),
    ("SLURM_NTASKS_PER_NODE", "ntasks-per-node"),
    ("SLURM_NTASKS_PER_GPU", "ntasks-per-gpu"),
    ("SLURM_NTASKS_PER_TRES", "ntasks-per-tres"),
    ("SLURM_OPEN_MODE", "open-mode"),
    ("SLURM_OVERCOMMIT", "overcommit"),
    ("SLURM_OVERLAP", "overlap"),
    ("SLURM_PARTITION", "partition"),
    ("SLURM_POWER", "power"),
    ("SLURM_PROFILE", "profile"),
    ("SLURM_PROLOG", "prolog"),
    ("SLURM_QOS", "qos"),
    ("SLURM_REMOTE_CWD", "chdir"),
    ("SLURM_RESERVATION", "reservation"),
    ("SLURM_RESV_PORTS", "resv-ports"),
    ("SLURM_SEND_LIBS", "send-libs"),
    ("SLURM_SIGNAL", "signal"),
    ("SLURM_SPREAD_JOB", "spread-job"),
    ("SLURM_SRUN_MULTI", "multi-prog"),
    ("SLURM_STDERRMODE", "error"),
    ("SLURM_STDINMODE", "input"),
    ("SLURM_STDOUTMODE", "output"),
    ("SLURM_TASK_EPILOG", "task-epilog"),
    ("SLURM_TASK_PROLOG", "task-prolog"),
    ("SLURM_THREAD_SPEC", "thread-spec"),
    ("SLURM_THREADS", "threads"),
    ("SLURM_THREADS_PER_CORE", "threads-per-core"),
    ("SLURM_TIMELIMIT", "time"),
    ("SLURM_UNBUFFEREDIO", "unbuffered"),
    ("SLURM_USE_MIN_NODES", "use-min-nodes"),
    ("SLURM_WAIT", "wait"),
    ("SLURM_WCKEY", "wckey"),
    ("SLURM_WORKING_DIR", "chdir"),
    ("SLURMD_DEBUG", "slurmd-debug"),
    ("SRUN_CONTAINER", "container"),
    ("SLURM_DEBUG", "verbose"),
];

/// What srun was asked to do.
#[derive(Debug)]
pub struct SrunRequest {
    pub opts: JobOptions,
    /// The command and its arguments.
    pub argv: Vec<String>,
    pub verbose: u32,
    pub quiet: bool,
    /// Options given on the command line (not inherited through SLURM_* variables).
    pub from_cli: Vec<&'static str>,
}

#[derive(Debug)]
pub enum SrunOutcome {
    Run(Box<SrunRequest>),
    Exit {
        stdout: String,
        stderr: String,
        code: i32,
    },
}

fn failure(e: &ValueError) -> SrunOutcome {
    SrunOutcome::Exit {
        stdout: String::new(),
        stderr: e.render("srun", "Unable to allocate resources: "),
        code: e.exit_code(1),
    }
}

/// Parses srun's command line and input variables under the default profile.
pub fn parse(args: &[String], env: &BTreeMap<String, String>, now: i64) -> SrunOutcome {
    parse_for(Profile::default_profile(), args, env, now)
}

/// Parses srun's command line and input variables as the site's Slurm release does.
pub fn parse_for(
    profile: &'static Profile,
    args: &[String],
    env: &BTreeMap<String, String>,
    now: i64,
) -> SrunOutcome {
    let (short, long) = table::getopt_tables_in(SRUN, profile.version);
    let parsed = getopt::parse("srun", args, &short, &long);
    let mut cli = Vec::new();
    for e in parsed.events {
        match e {
            Event::Error(line) => {
                return SrunOutcome::Exit {
                    stdout: String::new(),
                    stderr: format!("{line}\nTry \"srun --help\" for more information\n"),
                    code: 255,
                };
            }
            Event::Opt(val, value) => {
                if let Some(opt) = table::by_getopt_val(SRUN, val) {
                    cli.push((opt, value));
                }
            }
        }
    }
    let mut quiet = false;
    for (opt, _) in &cli {
        match opt.long {
            "help" => {
                return SrunOutcome::Exit {
                    stdout: super::texts::help(profile, "srun").into(),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "usage" => {
                return SrunOutcome::Exit {
                    stdout: super::texts::usage(profile, "srun").into(),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "version" => {
                return SrunOutcome::Exit {
                    stdout: format!("{}\n", profile.release.version_line()),
                    stderr: String::new(),
                    code: 0,
                };
            }
            "quiet" => quiet = true,
            _ => {}
        }
    }
    let mut opts = JobOptions {
        root: nix::unistd::getuid().is_root(),
        ..JobOptions::default()
    };
    for (var, long) in SRUN_ENV {
        let (Some(value), Some(opt)) = (env.get(*var), table::find(SRUN, long)) else {
            continue;
        };
        if !table::offered(opt, SRUN, profile.version) {
            continue;
        }
        if let Err(e) = opts.apply_env(opt, value, now, DEFAULT_MAX_ARRAY_SIZE) {
            return failure(&e);
        }
    }
    let mut from_cli = Vec::new();
    for (opt, value) in &cli {
        if let Err(e) = opts.apply(
            opt,
            value.as_deref(),
            Source::Cli,
            now,
            DEFAULT_MAX_ARRAY_SIZE,
        ) {
            return failure(&e);
        }
        from_cli.push(opt.long);
    }
    match opts.verify_hint() {
        Ok(false) => {}
        Ok(true) => {
            return SrunOutcome::Exit {
                stdout: super::values::hint::HINT_HELP.into(),
                stderr: String::new(),
                code: 1,
            };
        }
        Err(e) => return failure(&e),
    }
    // srun --jobid (or inside a job) makes a step, not an allocation.
    let creates_allocation = opts.jobid.is_none();
    if let Err(e) =
        super::tres_per_task::settle(&mut opts, profile.submit.new_options, creates_allocation)
    {
        let (stderr, code) = e.render("srun", "Unable to allocate resources: ", 1);
        return SrunOutcome::Exit {
            stdout: String::new(),
            stderr,
            code,
        };
    }
    let argv: Vec<String> = parsed.operands.clone();
    if argv.is_empty() {
        return SrunOutcome::Exit {
            stdout: String::new(),
            stderr: "srun: fatal: No command given to execute.\n".into(),
            code: 1,
        };
    }
    // (opt.c `_opt_verify`; Slurm's srun asks this with or without a terminal)
    if opts.pty && (opts.stdout.is_some() || opts.stderr.is_some() || opts.stdin.is_some()) {
        return SrunOutcome::Exit {
            stdout: String::new(),
            stderr: "srun: error: --error/--input/--output are incompatible with --pty\n".into(),
            code: 1,
        };
    }
    SrunOutcome::Run(Box::new(SrunRequest {
        verbose: opts.verbose,
        opts,
        argv,
        quiet,
        from_cli,
    }))
}

impl SrunRequest {
    /// The warnings for options given on srun's own command line that do nothing here
    /// (none with `--quiet`). A step does not repeat them for options it inherits through
    /// SLURM_* variables: those were the allocation's, warned about when it was made.
    pub fn step_warnings(&self) -> Vec<String> {
        if self.quiet {
            return Vec::new();
        }
        let mut out = table::ignored_warnings(
            "srun",
            self.opts
                .ignored
                .iter()
                .copied()
                .filter(|o| self.from_cli.contains(o)),
        );
        // Options a job request honours but a step inside the allocation does not: the
        // step runs with the job's resources and limits.
        // `--input=none` is applied (no stdin for the tasks); a file or a task number is not.
        let input_none = self
            .opts
            .stdin
            .as_deref()
            .is_some_and(|i| i.eq_ignore_ascii_case("none"));
        for o in &self.from_cli {
            let honoured = table::find(table::command_named("srun"), o)
                .is_some_and(|opt| opt.support == table::Support::Honoured);
            if honoured && !STEP_OPTIONS.contains(o) && !(*o == "input" && input_none) {
                out.push(format!(
                    "srun: warning: --{o} is not applied to a step here (steps run with the job's resources and limits) and is ignored"
                ));
            }
        }
        out
    }
}

/// srun's options that shape a step inside an allocation (`StepPlan`, commands/srun.rs),
/// or that act in srun itself.
pub const STEP_OPTIONS: &[&str] = &[
    "job-name",
    // The step's GPUs: as many of the job's as it asks for.
    "gres",
    "gpus",
    "ntasks",
    "nodes",
    "ntasks-per-node",
    "tasks-per-node",
    "cpus-per-task",
    "distribution",
    "nodelist",
    "exclude",
    "label",
    "unbuffered",
    "pty",
    "kill-on-bad-exit",
    "multi-prog",
    // Steps do not wait for the job's CPUs here: a step always starts at once.
    "immediate",
    "prolog",
    "epilog",
    "task-prolog",
    "task-epilog",
    "chdir",
    "output",
    "error",
    "export",
    "jobid",
    "quiet",
    "verbose",
    "help",
    "usage",
    "version",
    // Whole-job options that an srun inside a job inherits from the allocation anyway.
    "account",
    "partition",
    "qos",
    "clusters",
    "cluster",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_warns_about_what_it_does_not_apply() {
        let env = BTreeMap::new();
        let SrunOutcome::Run(r) = parse(
            &args(&["--mem=1G", "-t", "5", "-l", "-n2", "true"]),
            &env,
            0,
        ) else {
            panic!()
        };
        let w = r.step_warnings();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with("srun: warning: --mem is not applied to a step here"),
            "{w:?}"
        );
        assert!(
            w[1].starts_with("srun: warning: --time is not applied"),
            "{w:?}"
        );
        // Inherited from the job (SLURM_* variables), not asked for: nothing to say.
        let mut env = BTreeMap::new();
        env.insert("SLURM_MEM_PER_CPU".to_string(), "100".to_string());
        let SrunOutcome::Run(r) = parse(&args(&["true"]), &env, 0) else {
            panic!()
        };
        assert!(r.step_warnings().is_empty());
    }

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_command_ends_the_options_and_the_batch_request_is_inherited() {
        let mut env = BTreeMap::new();
        env.insert("SLURM_NTASKS".to_string(), "4".to_string());
        let SrunOutcome::Run(r) = parse(&args(&["-l", "hostname", "-n", "2"]), &env, 0) else {
            panic!()
        };
        assert_eq!(r.argv, args(&["hostname", "-n", "2"]));
        assert!(r.opts.label);
        assert_eq!(r.opts.ntasks, Some(4));
        let SrunOutcome::Run(r) = parse(&args(&["-n", "2", "true"]), &env, 0) else {
            panic!()
        };
        assert_eq!(r.opts.ntasks, Some(2), "the command line wins");
    }

    /// Every variable of srun's `env_vars[]` that stands for an option of the table.
    #[test]
    fn input_variables_of_ignored_and_rejected_options() {
        let mut env = BTreeMap::new();
        env.insert("SLURM_NSOCKETS_PER_NODE".to_string(), "2".to_string());
        env.insert("SLURMD_DEBUG".to_string(), "3".to_string());
        let SrunOutcome::Run(r) = parse(&args(&["true"]), &env, 0) else {
            panic!()
        };
        assert!(r.opts.ignored.contains("sockets-per-node"));
        assert!(r.opts.ignored.contains("slurmd-debug"));
        let mut env = BTreeMap::new();
        env.insert("SLURM_SRUN_MULTI".to_string(), "1".to_string());
        env.insert("SLURM_TASK_PROLOG".to_string(), "/bin/true".to_string());
        let SrunOutcome::Run(r) = parse(&args(&["x.conf"]), &env, 0) else {
            panic!()
        };
        assert!(r.opts.multi_prog);
        assert_eq!(r.opts.task_prolog.as_deref(), Some("/bin/true"));
    }

    #[test]
    fn errors_as_slurm_prints_them() {
        let SrunOutcome::Exit { stderr, code, .. } =
            parse(&args(&["--bogus", "x"]), &BTreeMap::new(), 0)
        else {
            panic!()
        };
        assert_eq!(
            (stderr.as_str(), code),
            (
                "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n",
                255
            )
        );
        let SrunOutcome::Exit { stderr, code, .. } =
            parse(&args(&["-n", "1"]), &BTreeMap::new(), 0)
        else {
            panic!()
        };
        assert_eq!(
            (stderr.as_str(), code),
            ("srun: fatal: No command given to execute.\n", 1)
        );
    }

    #[test]
    fn a_step_warns_about_ignored_options_from_its_command_line() {
        // snakemake-executor-plugin-slurm-jobstep's step: `srun -n1 --cpu-bind=q ...`.
        let mut env = BTreeMap::new();
        env.insert("SLURM_GPU_BIND".to_string(), "closest".to_string());
        let SrunOutcome::Run(r) = parse(
            &args(&[
                "-n1",
                "--cpu-bind=q",
                "--cpus-per-task=1",
                "--nodes=1",
                "true",
            ]),
            &env,
            0,
        ) else {
            panic!()
        };
        assert_eq!(
            r.step_warnings(),
            [
                "srun: warning: --cpu-bind does nothing here: tasks are not bound to CPUs and is ignored"
            ]
        );
        let SrunOutcome::Run(r) = parse(&args(&["-Q", "--cpu-bind=q", "true"]), &env, 0) else {
            panic!()
        };
        assert!(r.step_warnings().is_empty());
    }
}
