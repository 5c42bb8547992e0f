//! salloc's option processing: the shared option table, from the command line and from
//! salloc's input variables (`SALLOC_*`).

use super::getopt::{self, Event};
use super::job_opts::{JobOptions, Source};
use super::table::{self, SALLOC};
use crate::model::profile::Profile;
use std::collections::BTreeMap;

/// salloc's input variables (`env_vars[]` in src/salloc/opt.c), by option.
pub const SALLOC_ENV: &[(&str, &str)] = &[
    ("SALLOC_ACCOUNT", "account"),
    ("SALLOC_ACCTG_FREQ", "acctg-freq"),
    ("SALLOC_BELL", "bell"),
    ("SALLOC_BURST_BUFFER", "bb"),
    ("SALLOC_CLUSTER_CONSTRAINT", "cluster-constraint"),
    ("SALLOC_CLUSTERS", "clusters"),
    ("SLURM_CLUSTERS", "clusters"),
    ("SALLOC_CONTAINER", "container"),
    ("SALLOC_CONSTRAINT", "constraint"),
    ("SALLOC_CORE_SPEC", "core-spec"),
    ("SALLOC_CPU_FREQ_REQ", "cpu-freq"),
    ("SALLOC_CPUS_PER_GPU", "cpus-per-gpu"),
    ("SALLOC_DEBUG", "verbose"),
    ("SALLOC_DELAY_BOOT", "delay-boot"),
    ("SALLOC_EXCLUSIVE", "exclusive"),
    ("SALLOC_GPUS", "gpus"),
    ("SALLOC_GPU_BIND", "gpu-bind"),
    ("SALLOC_GPU_FREQ", "gpu-freq"),
    ("SALLOC_GPUS_PER_NODE", "gpus-per-node"),
    ("SALLOC_GPUS_PER_SOCKET", "gpus-per-socket"),
    ("SALLOC_GPUS_PER_TASK", "gpus-per-task"),
    ("SALLOC_TRES_PER_TASK", "tres-per-task"),
    ("SALLOC_GRES", "gres"),
    ("SALLOC_GRES_FLAGS", "gres-flags"),
    ("SALLOC_IMMEDIATE", "immediate"),
    ("SALLOC_HINT", "hint"),
    ("SLURM_HINT", "hint"),
    ("SALLOC_KILL_CMD", "kill-command"),
    ("SALLOC_MEM_BIND", "mem-bind"),
    ("SALLOC_MEM_PER_CPU", "mem-per-cpu"),
    ("SALLOC_MEM_PER_GPU", "mem-per-gpu"),
    ("SALLOC_MEM_PER_NODE", "mem"),
    ("SALLOC_NETWORK", "network"),
    ("SALLOC_NO_BELL", "no-bell"),
    ("SALLOC_NO_KILL", "no-kill"),
    ("SALLOC_OVERCOMMIT", "overcommit"),
    ("SALLOC_PARTITION", "partition"),
    ("SALLOC_POWER", "power"),
    ("SALLOC_PROFILE", "profile"),
    ("SALLOC_QOS", "qos"),
    ("SALLOC_RESERVATION", "reservation"),
    ("SALLOC_SIGNAL", "signal"),
    ("SALLOC_SPREAD_JOB", "spread-job"),
    ("SALLOC_THREAD_SPEC", "thread-spec"),
    ("SALLOC_THREADS_PER_CORE", "threads-per-core"),
    ("SALLOC_TIMELIMIT", "time"),
    ("SALLOC_USE_MIN_NODES", "use-min-nodes"),
    ("SALLOC_WAIT_ALL_NODES", "wait-all-nodes"),
    ("SALLOC_WCKEY", "wckey"),
];

#[derive(Debug)]
pub struct SallocRequest {
    pub opts: JobOptions,
    /// The command to run in the allocation (empty: the user's shell).
    pub argv: Vec<String>,
}

#[derive(Debug)]
pub enum SallocOutcome {
    Run(Box<SallocRequest>),
    Exit {
        stdout: String,
        stderr: String,
        code: i32,
    },
}

pub fn parse(args: &[String], env: &BTreeMap<String, String>, now: i64) -> SallocOutcome {
    parse_for(Profile::default_profile(), args, env, now)
}

/// [`parse`] as the site's Slurm release does.
pub fn parse_for(
    profile: &'static Profile,
    args: &[String],
    env: &BTreeMap<String, String>,
    now: i64,
) -> SallocOutcome {
    let (short, long) = table::getopt_tables_in(SALLOC, profile.version);
    let parsed = getopt::parse("salloc", args, &short, &long);
    let mut cli = Vec::new();
    for e in parsed.events {
        match e {
            Event::Error(line) => {
                return SallocOutcome::Exit {
                    stdout: String::new(),
                    stderr: format!("{line}\nTry \"salloc --help\" for more information\n"),
                    code: 1,
                };
            }
            Event::Opt(val, value) => {
                if let Some(opt) = table::by_getopt_val(SALLOC, val) {
                    cli.push((opt, value));
                }
            }
        }
    }
    for (opt, _) in &cli {
        let text = match opt.long {
            "help" => super::texts::help(profile, "salloc").to_string(),
            "usage" => super::texts::usage(profile, "salloc").to_string(),
            "version" => format!("{}\n", profile.release.version_line()),
            _ => continue,
        };
        return SallocOutcome::Exit {
            stdout: text,
            stderr: String::new(),
            code: 0,
        };
    }
    let mut opts = JobOptions {
        root: nix::unistd::getuid().is_root(),
        ..JobOptions::default()
    };
    let fail = |e: super::values::ValueError| SallocOutcome::Exit {
        stdout: String::new(),
        stderr: e.render("salloc", "Job submit/allocate failed: "),
        code: e.exit_code(1),
    };
    for (var, long) in SALLOC_ENV {
        let (Some(value), Some(opt)) = (env.get(*var), table::find(SALLOC, long)) else {
            continue;
        };
        if !table::offered(opt, SALLOC, profile.version) {
            continue;
        }
        if let Err(e) = opts.apply_env(opt, value, now, 1001) {
            return fail(e);
        }
    }
    for (opt, value) in &cli {
        if let Err(e) = opts.apply(opt, value.as_deref(), Source::Cli, now, 1001) {
            return fail(e);
        }
    }
    match opts.verify_hint() {
        Ok(false) => {}
        Ok(true) => {
            return SallocOutcome::Exit {
                stdout: super::values::hint::HINT_HELP.into(),
                stderr: String::new(),
                code: 1,
            };
        }
        Err(e) => return fail(e),
    }
    if let Err(e) = super::tres_per_task::settle(&mut opts, profile.submit.new_options, true) {
        let (stderr, code) = e.render("salloc", "Job submit/allocate failed: ", 1);
        return SallocOutcome::Exit {
            stdout: String::new(),
            stderr,
            code,
        };
    }
    SallocOutcome::Run(Box::new(SallocRequest {
        opts,
        argv: parsed.operands,
    }))
}
