//! A process-level fuzzer over every command: sbatch, srun, salloc, `bai-slurm translate`,
//! scontrol (every keyword, `show` of every entity, and its interactive mode on stdin),
//! scancel, squeue, sinfo, sacct and the `bai-slurm` dispatcher itself, run with generated
//! argument vectors (option tables drawn from [`fuzzgen`], job ids in every form, numbers at
//! every limit, non-ASCII text, bytes that are not UTF-8, empty and very long words, random
//! edits of valid command lines), input variables and stdin (`#SBATCH` scripts, scontrol
//! command lines).
//!
//! Each run is its own process, so a panic shows as exit status 101 (or an abort) and a
//! hang as a process that outlives its deadline: FUZZ_COMMANDS_DEADLINE seconds of CPU
//! (default 5) since it last wrote to stdout, or twelve times that in all without a
//! write, so that a long run on a busy machine, or one writing the gigabytes a huge
//! format asks for, is not taken for one. This binary is a fork server
//! (`harness = false`): for each run it forks a child that takes a private stdin (a memfd
//! holding the generated input), stdout on /dev/null, stderr in a memfd, a cleared
//! environment with the local backend's directories pointing into its slot (a private
//! HOME, BAI_SLURM_STATE_DIR, BAI_SLURM_CONFIG, a missing BAI_SLURM_SYSTEM_CONFIG), and
//! calls `bai_slurm::commands::main_with`. A few children run at once, one per slot; a
//! slot's state persists for a while so that later runs see the jobs earlier ones
//! submitted, and is wiped every [`SLOT_RESET`] runs.
//!
//! Nothing ever runs: the local backend starts its queue runner as
//! `current_exe() __local-runner <dir>`, which is this binary, whose `main` ends at once
//! for that (and the other internal commands), so submitted jobs stay pending. In fact no
//! runner is even started: each slot's fork server holds the runner's socket address, so
//! the backend's kick finds "a runner" that never acts.
//!
//! srun and salloc outside a job wait for their allocation forever, as Slurm's do, and
//! bai-slurm ignores `--immediate`. Such a run is ended as soon as it is provably waiting:
//! it has printed `queued and waiting for resources`, which `allocate::obtain` prints only
//! from inside its wait loop. It is counted apart, never as a hang. sbatch `--wait`, and
//! squeue's and sinfo's `--iterate`, which also never end by design, are not drawn.
//!
//! FUZZ_COMMANDS_RUNS (default [`DEFAULT_RUNS`]), FUZZ_COMMANDS_SEED, FUZZ_COMMANDS_JOBS
//! (children at once), FUZZ_COMMANDS_DEADLINE (seconds), FUZZ_COMMANDS_ONLY (some of the
//! commands, e.g. `scontrol,scancel`) and FUZZ_COMMANDS_SLURM_VERSION (the config's
//! `slurm_version`, default 22.05) tune a run. Any panic, abort,
//! crash or hang fails the test, with the reproducer (a shell command line) and the
//! child's stderr.

mod fuzzgen;

use bai_slurm::backend::local::control::Listener;
use bai_slurm::options::getopt::{HasArg, LongOpt};
use bai_slurm::options::table::{self, Opt};
use bai_slurm::options::{salloc as salloc_opts, srun as srun_opts};
use fuzzgen::formats::{
    SINFO_LETTERS, SINFO_NAMES, SQUEUE_LETTERS, SQUEUE_NAMES, letters_format, names_format,
    sacct_format, time_format,
};
use fuzzgen::options::{
    argv as option_argv, clean_env, clean_options, duration_value, env_vars, generic_value,
    host_list, option_words, script,
};
use fuzzgen::{NOISE, Rng, mutate, num, time_spec};
use std::collections::BTreeMap;
use std::ffi::{CString, OsString};
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Runs of a plain `cargo test`: about a minute in a debug build on 2 busy CPUs.
const DEFAULT_RUNS: u64 = 40_000;
/// A slot's state is wiped after this many runs.
const SLOT_RESET: u64 = 400;
/// Stderr a run may write before it is stopped (RLIMIT_FSIZE).
const STDERR_LIMIT: u64 = 64 << 20;
/// Address space of a run (RLIMIT_AS): an input that makes a command allocate without
/// bound ends in an allocation failure (an abort), not in a machine out of memory.
const MEMORY_LIMIT: u64 = 2 << 30;
/// The message `allocate::obtain` prints once it waits for an allocation.
const WAITING: &[u8] = b"queued and waiting for resources";
/// How long a run that keeps writing to stdout may go on (gigabytes asked for by a huge
/// format or hostlist): it is stopped then and counted apart, not as a hang.
const WRITING_LIMIT: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------
// Cases.

/// One run: the command it counts under, argv (argv[0] first), environment and stdin.
#[derive(Clone, Debug)]
struct Case {
    cmd: &'static str,
    argv: Vec<Vec<u8>>,
    env: Vec<(String, Vec<u8>)>,
    stdin: Vec<u8>,
}

/// Everything the generators need that is computed once.
struct Tables {
    sbatch: Vec<&'static Opt>,
    sbatch_clean: Vec<&'static Opt>,
    sbatch_env: Vec<(&'static str, &'static str)>,
    sbatch_clean_env: Vec<(&'static str, &'static str)>,
    srun: Vec<&'static Opt>,
    srun_clean: Vec<&'static Opt>,
    srun_clean_env: Vec<(&'static str, &'static str)>,
    salloc: Vec<&'static Opt>,
    salloc_clean: Vec<&'static Opt>,
    salloc_clean_env: Vec<(&'static str, &'static str)>,
}

impl Tables {
    fn new() -> Tables {
        // `--wait` makes sbatch wait for its job, which never runs here.
        let no_wait = |o: &&Opt| o.long != "wait";
        let sbatch: Vec<&'static Opt> = table::for_command(table::SBATCH).filter(no_wait).collect();
        let sbatch_clean: Vec<&'static Opt> = clean_options(table::SBATCH)
            .into_iter()
            .filter(no_wait)
            .collect();
        let sbatch_env: Vec<(&str, &str)> = sbatch
            .iter()
            .flat_map(|o| o.sbatch_env.iter().map(move |v| (*v, o.long)))
            .collect();
        let sbatch_clean_env = clean_env(&sbatch_env, &sbatch_clean);
        let srun_clean = clean_options(table::SRUN);
        let salloc_clean = clean_options(table::SALLOC);
        Tables {
            srun: table::for_command(table::SRUN).collect(),
            srun_clean_env: clean_env(srun_opts::SRUN_ENV, &srun_clean),
            srun_clean,
            salloc: table::for_command(table::SALLOC).collect(),
            salloc_clean_env: clean_env(salloc_opts::SALLOC_ENV, &salloc_clean),
            salloc_clean,
            sbatch,
            sbatch_clean,
            sbatch_env,
            sbatch_clean_env,
        }
    }
}

/// Words that are not what any grammar expects.
const ODD_WORDS: &[&str] = &[
    "",
    " ",
    "日本語",
    "1_日本",
    "é",
    "\u{feff}",
    "\u{10ffff}",
    "\u{202e}abc",
    "e\u{301}",
    "🦀",
    "\u{0}",
    "\t\n",
    "-",
    "--",
    "=",
    "%",
    "\\",
    "'",
    "\"",
];

/// Byte sequences that are not UTF-8.
const RAW: &[&[u8]] = &[
    b"\xff",
    b"\xfe\xff",
    b"\x80",
    b"\xc3",
    b"\xe6\x97",
    b"\xf4\x90\x80\x80",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf4\x8f\xbe",
];

/// A word as bytes: usually the word, now and then with bytes that are not UTF-8 in it,
/// replaced by an odd word, or made very long.
fn raw_word(r: &mut Rng, word: String) -> Vec<u8> {
    let mut b = word.into_bytes();
    match r.below(100) {
        0..=2 => {
            let at = b.len().min(r.below(b.len() + 1));
            let raw = RAW[r.below(RAW.len())];
            b.splice(at..at, raw.iter().copied());
        }
        3 => b = RAW[r.below(RAW.len())].to_vec(),
        4 => b = r.pick(ODD_WORDS).as_bytes().to_vec(),
        5 if r.chance(30) => {
            let unit = if b.is_empty() {
                b"9".to_vec()
            } else {
                b.clone()
            };
            let n = [1_000, 10_000, 100_000][r.below(3)] / unit.len().max(1) + 1;
            b = unit.repeat(n);
        }
        _ => {}
    }
    b
}

fn words(r: &mut Rng, argv: Vec<String>) -> Vec<Vec<u8>> {
    argv.into_iter().map(|w| raw_word(r, w)).collect()
}

/// A job id in one of the forms the commands read, aimed at the jobs a slot has (small
/// numbers), with limits and noise.
fn job_id(r: &mut Rng) -> String {
    let mut s = match r.below(12) {
        0..=5 => r.range(1, 40).to_string(),
        6 => num(r),
        7 => "0".to_string(),
        8 => r.pick(ODD_WORDS).to_string(),
        9 => r.range(1, 4_294_967_297).to_string(),
        10 => format!("[{}-{}]", r.below(30), r.below(40)),
        _ => format!("{}", r.range(1, 40) + (1 << 32)),
    };
    match r.below(14) {
        0 => s.push_str(&format!("_{}", r.below(20))),
        1 => s.push_str("_*"),
        2 => s.push_str(&format!("_[{}-{}]", r.below(10), r.below(20))),
        3 => s.push_str(".batch"),
        4 => s.push_str(&format!(".{}", r.below(5))),
        5 => s.push_str(&format!("+{}", r.below(3))),
        6 => s.push(','),
        7 => s.push_str(&format!(",{}", r.range(1, 40))),
        8 => s.push_str(&format!("_[{},{}]", r.below(10), num(r))),
        9 => s.push_str(r.pick(&["_[1-3:2]", "_[3-1]", "_[]", "_", "_[1-3", "_1]", "_1-3"])),
        10 => s.push_str(&format!(" {}", r.range(1, 40))),
        11 => s.push_str(&format!("_{}", num(r))),
        _ => {}
    }
    mutate(r, s)
}

/// A list of job ids, comma-separated or not.
fn job_ids(r: &mut Rng) -> String {
    let n = 1 + r.below(3);
    (0..n).map(|_| job_id(r)).collect::<Vec<_>>().join(",")
}

const USERS: &[&str] = &[
    "root",
    "0",
    "nosuchuser",
    "65534",
    "nobody",
    "4294967295",
    "-1",
    "root,nobody",
    "",
];
const PARTITIONS: &[&str] = &["debug", "gpu", "nosuch", "debug,gpu", "", "DEBUG", "all"];
const STATES: &[&str] = &[
    "pending",
    "PD",
    "R",
    "running",
    "all",
    "CD",
    "completed",
    "cancelled",
    "F",
    "bogus",
    "pd,r",
    "SUSPENDED",
    "requeued",
    "",
    "idle",
    "down",
    "mix",
    "drain",
    "alloc",
];

/// A value for an option of a query command, chosen by the option's name.
fn query_value(r: &mut Rng, prog: &str, name: &str) -> String {
    let v = match (prog, name) {
        ("squeue", "format") => letters_format(r, SQUEUE_LETTERS),
        ("squeue", "Format") => names_format(r, SQUEUE_NAMES),
        ("sinfo", "format") => letters_format(r, SINFO_LETTERS),
        ("sinfo", "Format") => names_format(r, SINFO_NAMES),
        ("sacct", "format" | "fields") => sacct_format(r),
        (_, "sort") => {
            let letters: Vec<char> = if prog == "sinfo" {
                SINFO_LETTERS.chars().collect()
            } else {
                SQUEUE_LETTERS.chars().collect()
            };
            (0..=r.below(3))
                .map(|_| {
                    let sign = r.pick(&["", "-", "+", "#"]);
                    format!("{sign}{}", letters[r.below(letters.len())])
                })
                .collect::<Vec<_>>()
                .join(",")
        }
        (_, "states" | "state") => r.pick(STATES).to_string(),
        (_, "jobs" | "jobname") if prog != "sacct" || name == "jobs" => job_ids(r),
        (_, "user" | "users" | "uid" | "gid" | "group") => r.pick(USERS).to_string(),
        (_, "partition" | "partitions") => r.pick(PARTITIONS).to_string(),
        (_, "node" | "nodes" | "nodelist") => host_list(r),
        (_, "starttime" | "endtime" | "start" | "end") => time_spec(r),
        (_, "cluster" | "clusters") => r.pick(&["fuzzcluster", "all", "other", ""]).to_string(),
        (_, "timelimit-min" | "timelimit-max") => duration_value(r),
        (_, "units") => r.pick(&["K", "M", "G", "T", "P", "x", ""]).to_string(),
        (_, "delimiter") => r.pick(NOISE).to_string(),
        (_, "signal") => r
            .pick(&["TERM", "9", "USR1", "KILL", "0", "x", "SIGHUP"])
            .to_string(),
        (_, "name" | "account" | "accounts" | "qos" | "reservation" | "wckey" | "wckeys") => r
            .pick(&["job", "root", "normal", "nosuch", "a,b", "", "my job"])
            .to_string(),
        _ => generic_value(r),
    };
    mutate(r, v)
}

/// One option of a query command, drawn from its getopt tables: long (whole or
/// abbreviated, `=value` or separate) or short (alone or clustered), with a value.
fn query_option(
    r: &mut Rng,
    prog: &str,
    long: &[LongOpt],
    short: &str,
    skip: &[&str],
) -> Vec<String> {
    let opts: Vec<&LongOpt> = long.iter().filter(|o| !skip.contains(&o.name)).collect();
    let o = opts[r.below(opts.len())];
    let value = query_value(r, prog, o.name);
    let letter = u8::try_from(o.val)
        .ok()
        .map(char::from)
        .filter(|c| c.is_ascii_alphanumeric() && short.contains(*c));
    let mut name = format!("--{}", o.name);
    if r.chance(15) {
        name.truncate((3 + r.below(o.name.len())).min(name.len()));
    }
    match (o.has_arg, letter.filter(|_| r.chance(50))) {
        (HasArg::No, Some(c)) => vec![format!("-{c}")],
        (HasArg::No, None) => vec![name],
        (HasArg::Optional, Some(c)) if r.chance(50) => vec![format!("-{c}{value}")],
        (HasArg::Optional, Some(c)) => vec![format!("-{c}")],
        (HasArg::Optional, None) if r.chance(50) => vec![format!("{name}={value}")],
        (HasArg::Optional, None) => vec![name],
        (HasArg::Required, Some(c)) if r.chance(50) => vec![format!("-{c}{value}")],
        (HasArg::Required, Some(c)) => vec![format!("-{c}"), value],
        (HasArg::Required, None) if r.chance(50) => vec![format!("{name}={value}")],
        (HasArg::Required, None) => vec![name, value],
    }
}

/// A command line for a query command: options from its tables, noise, operands.
fn query_argv(
    r: &mut Rng,
    prog: &str,
    long: &[LongOpt],
    short: &str,
    skip: &[&str],
    operand: fn(&mut Rng) -> String,
) -> Vec<String> {
    let mut args = Vec::new();
    for _ in 0..r.below(6) {
        if r.chance(6) {
            args.push(
                r.pick(&[
                    "-", "--", "--bogus", "-?", "-é", "--=", "-h", "--help", "--usage",
                ])
                .to_string(),
            );
        } else {
            args.extend(query_option(r, prog, long, short, skip));
        }
    }
    if r.chance(15) {
        args.push(operand(r));
    }
    args
}

/// Input variables of the query commands, with generators for their values.
fn query_env(r: &mut Rng, prog: &str) -> Vec<(String, String)> {
    let vars: &[&str] = match prog {
        "squeue" => &[
            "SQUEUE_FORMAT",
            "SQUEUE_FORMAT2",
            "SQUEUE_SORT",
            "SQUEUE_STATES",
            "SQUEUE_USERS",
            "SQUEUE_PARTITION",
            "SQUEUE_ACCOUNT",
            "SQUEUE_ALL",
            "SQUEUE_NAMES",
            "SQUEUE_PRIORITY",
            "SQUEUE_QOS",
            "SQUEUE_ARRAY",
            "SQUEUE_SORT",
        ],
        "sinfo" => &["SINFO_FORMAT", "SINFO_SORT", "SINFO_PARTITION", "SINFO_ALL"],
        "sacct" => &["SACCT_FORMAT", "SACCT_FEDERATION", "SACCT_LOCAL"],
        "scancel" => &[
            "SCANCEL_ACCOUNT",
            "SCANCEL_BATCH",
            "SCANCEL_FULL",
            "SCANCEL_INTERACTIVE",
            "SCANCEL_NAME",
            "SCANCEL_PARTITION",
            "SCANCEL_QOS",
            "SCANCEL_STATE",
            "SCANCEL_USER",
            "SCANCEL_VERBOSE",
            "SCANCEL_WCKEY",
        ],
        _ => &["SLURM_CONF"],
    };
    let mut env = Vec::new();
    for _ in 0..r.below(3) {
        let var = vars[r.below(vars.len())];
        let value = match var {
            "SQUEUE_FORMAT" => letters_format(r, SQUEUE_LETTERS),
            "SQUEUE_FORMAT2" => names_format(r, SQUEUE_NAMES),
            "SINFO_FORMAT" => letters_format(r, SINFO_LETTERS),
            "SACCT_FORMAT" => sacct_format(r),
            v if v.ends_with("STATES") || v.ends_with("STATE") => r.pick(STATES).to_string(),
            v if v.ends_with("USERS") || v.ends_with("USER") => r.pick(USERS).to_string(),
            v if v.ends_with("PARTITION") => r.pick(PARTITIONS).to_string(),
            _ => r
                .pick(&["true", "false", "1", "", "yes", "x", "job", "-t"])
                .to_string(),
        };
        env.push((var.to_string(), value));
    }
    if r.chance(8) {
        env.push(("SLURM_TIME_FORMAT".into(), time_format(r)));
    }
    if r.chance(3) {
        env.push((
            "SLURM_CLUSTERS".into(),
            r.pick(&["fuzzcluster", "all", "other", ""]).to_string(),
        ));
    }
    env
}

fn env_bytes(
    r: &mut Rng,
    env: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, Vec<u8>)> {
    env.into_iter()
        .map(|(k, v)| {
            let v = if r.chance(5) {
                raw_word(r, v)
            } else {
                v.into_bytes()
            };
            (k, v)
        })
        .collect()
}

/// sbatch, srun, salloc and `bai-slurm translate`: command lines from the option table
/// (a share drawn clean, so that jobs get submitted), input variables, and for sbatch and
/// translate a script on stdin or in a file.
fn job_command(r: &mut Rng, t: &Tables, cmd: &'static str) -> Case {
    r.clean = r.chance(40);
    type Vars<'a> = &'a [(&'static str, &'static str)];
    let (opts, clean_opts, vars, clean_vars): (&[&Opt], &[&Opt], Vars, Vars) = match cmd {
        "srun" => (
            &t.srun,
            &t.srun_clean,
            srun_opts::SRUN_ENV,
            &t.srun_clean_env,
        ),
        "salloc" => (
            &t.salloc,
            &t.salloc_clean,
            salloc_opts::SALLOC_ENV,
            &t.salloc_clean_env,
        ),
        _ => (
            &t.sbatch,
            &t.sbatch_clean,
            &t.sbatch_env,
            &t.sbatch_clean_env,
        ),
    };
    let operands: &[&str] = match (cmd, r.clean) {
        ("srun", true) => &["hostname", "true"],
        ("srun", false) => &["hostname", "true", "--", "-n"],
        ("salloc", true) => &["true"],
        ("salloc", false) => &["true", "--", "-c"],
        (_, true) => &["job.sh", "empty.sh"],
        (_, false) => &[
            "job.sh",
            "/tmp/bai-fuzz-nonexistent/job.sh",
            "bai-fuzz-nonexistent.sh",
            "日本.sh",
        ],
    };
    let used = if r.clean { clean_opts } else { opts };
    let operands = if r.chance(60) { operands } else { &[] };
    let mut args = option_argv(r, used, operands);
    let env = env_vars(r, if r.clean { clean_vars } else { vars });
    let stdin = if matches!(cmd, "sbatch" | "translate") {
        let mut words = |r: &mut Rng| -> String {
            let w = option_words(r, used);
            if w.len() == 2 && w[0].starts_with("--") {
                format!("{}={}", w[0], w[1])
            } else {
                w.concat()
            }
        };
        script(r, &mut words)
    } else {
        Vec::new()
    };
    let clean = r.clean;
    r.clean = false;
    let mut argv0 = vec![cmd.as_bytes().to_vec()];
    if cmd == "translate" {
        argv0 = vec![b"bai-slurm".to_vec(), b"translate".to_vec()];
    } else if r.chance(10) {
        argv0 = vec![b"bai-slurm".to_vec(), cmd.as_bytes().to_vec()];
    }
    if !clean && r.chance(10) {
        // An edit of the whole command line: a word dropped, doubled or swapped.
        match r.below(3) {
            0 if !args.is_empty() => {
                let i = r.below(args.len());
                args.remove(i);
            }
            1 if !args.is_empty() => {
                let i = r.below(args.len());
                let w = args[i].clone();
                args.insert(i, w);
            }
            _ if args.len() > 1 => {
                let (i, j) = (r.below(args.len()), r.below(args.len()));
                args.swap(i, j);
            }
            _ => {}
        }
    }
    let mut env: Vec<(String, String)> = env.into_iter().collect();
    if cmd == "srun" && r.chance(5) {
        // Inside an allocation whose step servers are not there.
        env.push(("SLURM_JOB_ID".into(), r.range(1, 40).to_string()));
        env.push(("BAI_SLURM_STEPD".into(), "node01=127.0.0.1:9".into()));
        env.push(("BAI_SLURM_JOB_SECRET".into(), "x".into()));
    }
    let argv: Vec<Vec<u8>> = if clean {
        argv0
            .into_iter()
            .chain(args.into_iter().map(String::into_bytes))
            .collect()
    } else {
        argv0.into_iter().chain(words(r, args)).collect()
    };
    Case {
        cmd,
        argv,
        env: env_bytes(r, env),
        stdin,
    }
}

// scontrol ------------------------------------------------------------------------------

/// Every keyword scontrol reads (src/commands/scontrol.rs, scontrol_control.rs).
const SCONTROL_KEYWORDS: &[&str] = &[
    "all",
    "details",
    "exit",
    "quit",
    "help",
    "hide",
    "oneliner",
    "quiet",
    "\\q",
    "show",
    "verbose",
    "version",
    "hold",
    "holdu",
    "uhold",
    "release",
    "requeue",
    "requeuehold",
    "suspend",
    "resume",
    "top",
    "wait_job",
    "update",
    "notify",
    "abort",
    "cancel_reboot",
    "completing",
    "cluster",
    "create",
    "errnumstr",
    "errnostr",
    "gethost",
    "hash_file",
    "hash",
    "pidinfo",
    "ping",
    "reboot_nodes",
    "reconfigure",
    "token",
    "setdebugflags",
    "fsdampeningfactor",
    "setdebug",
    "schedloglevel",
    "write",
    "takeover",
    "shutdown",
    "delete",
    "listpids",
    "getent",
    "callerid",
    "bogus",
];

const SHOW_ENTITIES: &[&str] = &[
    "job",
    "jobs",
    "jobid",
    "node",
    "nodes",
    "partition",
    "partitions",
    "partitionname",
    "config",
    "hostnames",
    "hostlist",
    "hostlistsorted",
    "aliases",
    "assoc_mgr",
    "bbstat",
    "burstbuffer",
    "cache",
    "daemons",
    "dwstat",
    "federation",
    "frontend",
    "licenses",
    "reservation",
    "reservations",
    "slurmd",
    "step",
    "steps",
    "topology",
    "bogus",
];

const UPDATE_TAGS: &[&str] = &[
    "JobId",
    "Job",
    "JobName",
    "Name",
    "TimeLimit",
    "Partition",
    "Priority",
    "Nice",
    "NumNodes",
    "UserID",
    "NodeName",
    "PartitionName",
    "ReservationName",
    "StepId",
    "SlurmctldDebug",
    "Comment",
    "Bogus",
];

/// A keyword as typed: whole, abbreviated, or in another case.
fn keyword(r: &mut Rng, word: &str) -> String {
    match r.below(10) {
        0 => word[..1 + r.below(word.len())].to_string(),
        1 => word.to_uppercase(),
        _ => word.to_string(),
    }
}

/// A hostlist argument, or (for `show hostlist`) the path of a file of names.
fn host_arg(r: &mut Rng) -> String {
    if r.chance(10) {
        r.pick(&[
            "/tmp/bai-fuzz-nonexistent/hosts",
            "/dev/null",
            "/",
            "hosts.txt",
        ])
        .to_string()
    } else {
        host_list(r)
    }
}

/// One scontrol command: a keyword and the words it takes.
fn scontrol_words(r: &mut Rng) -> Vec<String> {
    let kw = r.pick(SCONTROL_KEYWORDS);
    let mut w = vec![keyword(r, kw)];
    match kw {
        "show" => {
            let entity = r.pick(SHOW_ENTITIES);
            let ent = keyword(r, entity);
            let value = match entity {
                "job" | "jobs" | "jobid" | "step" | "steps" => job_id(r),
                "node" | "nodes" | "hostnames" | "hostlist" | "hostlistsorted" => host_arg(r),
                "partition" | "partitions" | "partitionname" => r.pick(PARTITIONS).to_string(),
                "config" => r
                    .pick(&["MaxArraySize", "ClusterName", "x", ""])
                    .to_string(),
                _ => generic_value(r),
            };
            match r.below(4) {
                0 => w.push(ent),
                1 => w.push(format!("{ent}={value}")),
                2 if r.chance(20) => {
                    w.push(ent);
                    w.push(value);
                    w.push(generic_value(r));
                }
                _ => {
                    w.push(ent);
                    w.push(value);
                }
            }
        }
        "hold" | "holdu" | "uhold" | "release" | "requeue" | "requeuehold" | "suspend"
        | "resume" | "top" | "wait_job" => {
            if kw.starts_with("requeue") && r.chance(20) {
                w.push(
                    r.pick(&["state=se", "State=SpecialExit", "state=x"])
                        .to_string(),
                );
            }
            for _ in 0..r.below(4) {
                let id = job_ids(r);
                w.push(match r.below(10) {
                    0 => format!("JobID={id}"),
                    1 => format!("Job={id}"),
                    2 => format!("Name={}", r.pick(&["job", "arr", "x", ""])),
                    _ => id,
                });
            }
        }
        "write" => {
            // `write batch_script <id> [file|-]`: files only in the slot's own directory.
            if r.chance(80) {
                w.push(keyword(r, "batch_script"));
                for _ in 0..r.below(4) {
                    w.push(if w.len() == 2 {
                        job_id(r)
                    } else {
                        r.pick(&["-", "out.sh", "/nonexistent/x.sh", ""])
                            .to_string()
                    });
                }
            } else {
                w.push(r.pick(&["config", "conf", "x"]).to_string());
            }
        }
        "notify" => {
            for _ in 0..r.below(4) {
                w.push(if w.len() == 1 {
                    job_id(r)
                } else {
                    generic_value(r)
                });
            }
        }
        "update" => {
            for _ in 0..r.below(5) {
                let tag = r.pick(UPDATE_TAGS);
                let tag = keyword(r, tag);
                let value = match tag.to_ascii_lowercase().as_str() {
                    "jobid" | "job" => job_ids(r),
                    "timelimit" => duration_value(r),
                    "nodename" => host_list(r),
                    "userid" => r.pick(USERS).to_string(),
                    _ => generic_value(r),
                };
                match r.below(8) {
                    0 => w.push(tag),
                    1 => {
                        w.push(tag);
                        w.push(value);
                    }
                    2 => w.push(format!("{tag}+={value}")),
                    _ => w.push(format!("{tag}={value}")),
                }
            }
        }
        _ => {
            for _ in 0..r.below(3) {
                w.push(if r.chance(50) {
                    num(r)
                } else {
                    generic_value(r)
                });
            }
        }
    }
    w.into_iter().map(|s| mutate(r, s)).collect()
}

fn scontrol_case(r: &mut Rng) -> Case {
    let mut args = Vec::new();
    for _ in 0..r.below(3) {
        args.extend(query_option(
            r,
            "scontrol",
            bai_slurm::options::query::scontrol::LONG,
            bai_slurm::options::query::scontrol::SHORT,
            &[],
        ));
    }
    let mut stdin = Vec::new();
    if r.chance(10) {
        // Interactive: commands on stdin, one a line, quoted now and then.
        for _ in 0..r.below(6) {
            let line = scontrol_words(r)
                .into_iter()
                .map(|w| {
                    if w.contains(' ') && r.chance(50) {
                        format!("\"{w}\"")
                    } else {
                        w
                    }
                })
                .collect::<Vec<_>>()
                .join(" ");
            stdin.extend(raw_word(r, line));
            stdin.push(b'\n');
        }
        if r.chance(50) {
            stdin.extend_from_slice(b"exit\n");
        }
    } else {
        args.extend(scontrol_words(r));
    }
    let env = query_env(r, "scontrol");
    Case {
        cmd: "scontrol",
        argv: [vec![b"scontrol".to_vec()], words(r, args)].concat(),
        env: env_bytes(r, env),
        stdin,
    }
}

// The others -----------------------------------------------------------------------------

fn query_case(r: &mut Rng, prog: &'static str) -> Case {
    use bai_slurm::options::query::{sacct, scancel, sinfo, squeue};
    type Operand = fn(&mut Rng) -> String;
    let (long, short, skip, operand): (&[LongOpt], &str, &[&str], Operand) = match prog {
        // `--iterate` repeats the report forever, by design.
        "squeue" => (squeue::LONG, squeue::SHORT, &["iterate"], |r| job_id(r)),
        "sinfo" => (sinfo::LONG, sinfo::SHORT, &["iterate"], |r| {
            generic_value(r)
        }),
        "sacct" => (sacct::LONG, sacct::SHORT, &[], |r| generic_value(r)),
        _ => (scancel::LONG, scancel::SHORT, &[], |r| job_ids(r)),
    };
    let mut args = query_argv(r, prog, long, short, skip, operand);
    if prog == "scancel" {
        for _ in 0..r.below(3) {
            args.push(job_ids(r));
        }
    }
    let stdin = if prog == "scancel" {
        r.pick(&["", "y\n", "n\ny\n", "yes\n"]).as_bytes().to_vec()
    } else {
        Vec::new()
    };
    let env = query_env(r, prog);
    Case {
        cmd: prog,
        argv: [vec![prog.as_bytes().to_vec()], words(r, args)].concat(),
        env: env_bytes(r, env),
        stdin,
    }
}

/// The dispatcher: argv[0] spelled every way, `bai-slurm` with odd first words.
fn dispatcher_case(r: &mut Rng) -> Case {
    let argv0 = r.pick(&[
        "bai-slurm",
        "/usr/bin/bai-slurm",
        "bai-slurm-squeue",
        "./x/sinfo",
        "squeue-",
        "日本",
        "",
        "-",
        "sacct.exe",
    ]);
    let mut args = vec![argv0.to_string()];
    if r.chance(80) {
        args.push(
            r.pick(&[
                "--version",
                "-V",
                "--help",
                "-h",
                "help",
                "--list",
                "bogus",
                "",
                "squeue",
                "sinfo",
                "sacct",
                "SQUEUE",
                "translate",
                "日本語",
            ])
            .to_string(),
        );
    }
    for _ in 0..r.below(3) {
        args.push(generic_value(r));
    }
    let argv = if r.chance(2) {
        Vec::new()
    } else {
        words(r, args)
    };
    Case {
        cmd: "bai-slurm",
        argv,
        env: Vec::new(),
        stdin: Vec::new(),
    }
}

/// The commands and how often each is drawn (out of 100).
const MIX: &[(&str, usize)] = &[
    ("sbatch", 15),
    ("srun", 7),
    ("salloc", 5),
    ("translate", 6),
    ("scontrol", 25),
    ("scancel", 9),
    ("squeue", 12),
    ("sinfo", 6),
    ("sacct", 12),
    ("bai-slurm", 3),
];

/// The case of run `index`: the same for a seed on every machine.
fn case(seed: u64, index: u64, t: &Tables, only: &[String]) -> Case {
    // splitmix64 of (seed, index): a well-mixed, never-zero xorshift state.
    let mut z = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let mut r = Rng::new(z | 1);
    let mix: Vec<(&'static str, usize)> = MIX
        .iter()
        .copied()
        .filter(|(name, _)| only.is_empty() || only.iter().any(|o| o == name))
        .collect();
    let mut pick = r.below(mix.iter().map(|m| m.1).sum());
    let mut cmd = mix[0].0;
    for &(name, weight) in &mix {
        if pick < weight {
            cmd = name;
            break;
        }
        pick -= weight;
    }
    match cmd {
        "sbatch" | "srun" | "salloc" | "translate" => job_command(&mut r, t, cmd),
        "scontrol" => scontrol_case(&mut r),
        "bai-slurm" => dispatcher_case(&mut r),
        other => query_case(&mut r, other),
    }
}

// ---------------------------------------------------------------------------------------
// The fork server.

/// Where a slot's runs live: HOME, the state directory and the working directory; and
/// the slot's stand-in for a queue runner.
struct Slot {
    home: PathBuf,
    state: PathBuf,
    work: PathBuf,
    runs: u64,
    busy: bool,
    /// Bound to the address the local backend kicks its runner at (a datagram per
    /// submission, hold, cancel, or look at unfinished jobs): with it there, no run
    /// starts a runner at all (one exec of this binary saved per run). Never answered.
    runner: Option<Listener>,
}

impl Slot {
    fn new(base: &Path, i: usize) -> Slot {
        let dir = base.join(format!("slot{i}"));
        let mut slot = Slot {
            home: dir.join("home"),
            state: dir.join("state"),
            work: dir.join("work"),
            runs: 0,
            busy: false,
            runner: None,
        };
        for d in [&slot.home, &slot.work] {
            std::fs::create_dir_all(d).unwrap();
        }
        slot.make_state();
        std::fs::write(
            slot.work.join("job.sh"),
            "#!/bin/sh\n#SBATCH -J fuzzjob\n#SBATCH --time=5\necho never\n",
        )
        .unwrap();
        std::fs::write(slot.work.join("empty.sh"), "").unwrap();
        std::fs::write(slot.work.join("hosts.txt"), "n1\nn2,n[3-4]\n").unwrap();
        slot
    }

    /// The state directory, private as the local backend makes it.
    /// The state directory, private as the local backend makes it, with the runner's
    /// socket bound in it (by this process, which never answers).
    fn make_state(&mut self) {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(&self.state)
            .unwrap();
        self.runner = Listener::bind(&self.state, nix::unistd::getuid().as_raw()).ok();
    }

    /// Wipes the slot's jobs (every [`SLOT_RESET`] runs).
    fn reset(&mut self) {
        self.runner = None;
        let _ = std::fs::remove_dir_all(&self.state);
        let _ = std::fs::remove_dir_all(self.home.join(".config"));
        self.make_state();
        self.runs = 0;
    }

    /// Reads the kicks waiting at the runner's socket.
    fn drain(&mut self) {
        if let Some(l) = &mut self.runner {
            l.drain();
        }
    }
}

/// The environment every run starts from (then the case's variables).
fn base_env(slot: &Slot, config: &Path, missing: &Path) -> Vec<(String, Vec<u8>)> {
    let p = |p: &Path| p.as_os_str().as_encoded_bytes().to_vec();
    vec![
        ("HOME".into(), p(&slot.home)),
        ("BAI_SLURM_STATE_DIR".into(), p(&slot.state)),
        ("BAI_SLURM_CONFIG".into(), p(config)),
        ("BAI_SLURM_SYSTEM_CONFIG".into(), p(missing)),
        ("PATH".into(), b"/usr/bin:/bin".to_vec()),
        ("TZ".into(), b"UTC".to_vec()),
        ("LANG".into(), b"C".to_vec()),
        ("USER".into(), b"root".to_vec()),
    ]
}

fn memfd(name: &str, content: &[u8]) -> RawFd {
    let cname = CString::new(name).unwrap();
    // SAFETY: memfd_create with a valid name; the fd is ours.
    let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
    assert!(fd >= 0, "memfd_create: {}", std::io::Error::last_os_error());
    let mut off = 0;
    while off < content.len() {
        // SAFETY: writing from a live slice.
        let n = unsafe { libc::write(fd, content[off..].as_ptr().cast(), content.len() - off) };
        assert!(n > 0, "write: {}", std::io::Error::last_os_error());
        off += n as usize;
    }
    // SAFETY: rewinding our own fd.
    unsafe { libc::lseek(fd, 0, libc::SEEK_SET) };
    fd
}

/// Everything written to a memfd so far.
fn read_all(fd: RawFd) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 65536];
    loop {
        // SAFETY: reading into a live buffer at an offset.
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), out.len() as i64) };
        if n <= 0 {
            break;
        }
        out.extend_from_slice(&buf[..n as usize]);
    }
    out
}

/// The child: set up the process as a fresh command would have it, run the command, and
/// leave with its exit status, never returning into the fork server's code.
fn child(
    case: &Case,
    env: &[(String, Vec<u8>)],
    work: &Path,
    [stdin, stdout, stderr]: [RawFd; 3],
) -> ! {
    // SAFETY: after fork this process has one thread; these calls only change it.
    unsafe {
        libc::setpgid(0, 0);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        // As bai-slurm's main sets it for the commands.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        for (res, limit) in [
            (libc::RLIMIT_AS, MEMORY_LIMIT),
            (libc::RLIMIT_FSIZE, STDERR_LIMIT),
            (libc::RLIMIT_CORE, 0),
        ] {
            let l = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            libc::setrlimit(res, &l);
        }
        libc::dup2(stdin, 0);
        libc::dup2(stdout, 1);
        libc::dup2(stderr, 2);
        let dir = CString::new(work.as_os_str().as_encoded_bytes()).unwrap();
        libc::chdir(dir.as_ptr());
        for (k, _) in std::env::vars_os() {
            std::env::remove_var(k);
        }
        for (k, v) in env.iter().chain(&case.env) {
            if !k.is_empty() && !v.contains(&0) && !k.contains(['=', '\0']) {
                std::env::set_var(k, OsString::from_vec(v.clone()));
            }
        }
    }
    let argv: Vec<OsString> = case
        .argv
        .iter()
        .map(|a| OsString::from_vec(a.clone()))
        .collect();
    let code = std::panic::catch_unwind(|| bai_slurm::commands::main_with(argv)).unwrap_or(101);
    // SAFETY: ends this process without running the fork server's destructors.
    unsafe { libc::_exit(code) }
}

/// A run in progress.
struct Running {
    pid: libc::pid_t,
    slot: usize,
    index: u64,
    case: Case,
    started: Instant,
    stderr: RawFd,
    /// Our end of the pipe its stdout goes to: read and thrown away as it comes.
    stdout: RawFd,
    /// Bytes it has written to stdout.
    written: u64,
    /// When it last wrote to stdout, and its CPU time then: a run that keeps writing is
    /// not hung.
    progress: Instant,
    progress_cpu: Duration,
    checked: Instant,
    /// Ended by us: it waited for an allocation.
    waiting: bool,
    /// Ended by us: it outlived its deadline (why).
    hung: Option<String>,
    /// Ended by us: still writing after [`WRITING_LIMIT`].
    writing: bool,
}

/// The CPU time a process has used (utime + stime of /proc/<pid>/stat).
fn cpu_time(pid: libc::pid_t) -> Duration {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // Fields after the command name, which may hold spaces: state is the first, utime the
    // twelfth, stime the thirteenth.
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis(ticks * 1000 / hz)
}

/// Reads what is in a run's stdout pipe, without waiting; true when something came.
fn drain_stdout(run: &mut Running) -> bool {
    let mut buf = [0u8; 65536];
    let mut any = false;
    loop {
        // SAFETY: reading our non-blocking pipe end into a live buffer.
        let n = unsafe { libc::read(run.stdout, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            return any;
        }
        run.written += n as u64;
        any = true;
    }
}

/// How a run went wrong.
struct Failure {
    what: String,
    index: u64,
    case: Case,
    stderr: Vec<u8>,
    state: PathBuf,
    elapsed: Duration,
}

/// `$'...'` quoting, byte for byte.
fn shell_quote(b: &[u8]) -> String {
    if !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"-_./=:,+%@".contains(c))
    {
        return String::from_utf8_lossy(b).into_owned();
    }
    let mut s = String::from("$'");
    for &c in b {
        match c {
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            b' '..=b'~' => s.push(c as char),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            _ => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push('\'');
    s
}

fn reproducer(f: &Failure, config: &Path) -> String {
    let exe = env!("CARGO_BIN_EXE_bai-slurm");
    let mut s = String::new();
    if !f.case.stdin.is_empty() {
        s.push_str(&format!("printf '%s' {} | ", shell_quote(&f.case.stdin)));
    }
    s.push_str(&format!(
        "(cd \"$(mktemp -d)\" && env -i HOME=\"$(mktemp -d)\" BAI_SLURM_STATE_DIR={} BAI_SLURM_CONFIG={} BAI_SLURM_SYSTEM_CONFIG=/nonexistent PATH=/usr/bin:/bin TZ=UTC LANG=C",
        shell_quote(f.state.as_os_str().as_encoded_bytes()),
        shell_quote(config.as_os_str().as_encoded_bytes()),
    ));
    for (k, v) in &f.case.env {
        s.push_str(&format!(" {}={}", k, shell_quote(v)));
    }
    match f.case.argv.first() {
        Some(a0) => {
            s.push_str(&format!(
                " bash -c 'exec -a \"$0\" {exe} \"$@\"' {}",
                shell_quote(a0)
            ));
            for a in &f.case.argv[1..] {
                s.push(' ');
                s.push_str(&shell_quote(a));
            }
        }
        None => s.push_str(" (no argv at all: main_with(vec![]))"),
    }
    s.push(')');
    s
}

fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // The local backend starts its queue runner (and the runner its launchers) as this
    // executable: here they do nothing, so that no job ever runs.
    if let Some(a) = args.get(1)
        && a.starts_with("__")
    {
        std::process::exit(0);
    }
    // What `cargo test` may pass on to a test binary, honoured as libtest would for one
    // test named `fuzz_commands`.
    let mut words = args.iter().skip(1);
    while let Some(a) = words.next() {
        match a.as_str() {
            "--list" => {
                println!("fuzz_commands: test");
                return;
            }
            "--ignored" => return,
            "--skip"
                if words
                    .next()
                    .is_some_and(|s| "fuzz_commands".contains(s.as_str())) =>
            {
                return;
            }
            "--test-threads" | "--format" | "--color" | "--logfile" | "-Z" => {
                words.next();
            }
            f if !f.starts_with('-') && !"fuzz_commands".contains(f) => return,
            _ => {}
        }
    }
    let runs: u64 = env_num("FUZZ_COMMANDS_RUNS", DEFAULT_RUNS);
    let seed: u64 = env_num("FUZZ_COMMANDS_SEED", 0x5eed_c0de_u64);
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let jobs: usize = env_num("FUZZ_COMMANDS_JOBS", 6 * cpus).max(1);
    let deadline = Duration::from_secs_f64(env_num("FUZZ_COMMANDS_DEADLINE", 5.0f64));
    // Only these commands (of [`MIX`], comma-separated), to look at one closely.
    let only: Vec<String> = std::env::var("FUZZ_COMMANDS_ONLY")
        .unwrap_or_default()
        .split(',')
        .filter(|c| MIX.iter().any(|(name, _)| name == c))
        .map(String::from)
        .collect();
    // Orphans (a queue runner started by a run) come back to us to be reaped.
    // SAFETY: prctl on this process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };

    // In memory where there is a tmpfs: SQLite's fsyncs then cost nothing.
    let shm = Path::new("/dev/shm");
    let mut builder = tempfile::Builder::new();
    builder.prefix("fuzz-commands-");
    let base = if shm.is_dir() {
        builder.tempdir_in(shm)
    } else {
        builder.tempdir()
    }
    .unwrap();
    let config = base.path().join("config.toml");
    let version = std::env::var("FUZZ_COMMANDS_SLURM_VERSION").unwrap_or_else(|_| "22.05".into());
    std::fs::write(
        &config,
        format!("slurm_version = \"{version}\"\n")
            + "cluster_name = \"fuzzcluster\"\nbackend = \"local\"\n\
         [local]\nnode_name = \"node01\"\ncpus = 4\nmemory_mb = 8192\nkill_wait = 1\n\
         idle_exit = 1\nnodes = 2\n\
         [[partitions]]\nname = \"debug\"\ndefault = true\nmax_time = \"1:00:00\"\n\
         [[partitions]]\nname = \"gpu\"\n",
    )
    .unwrap();
    let missing = base.path().join("no-system-config.toml");
    // Twice as many slots as runs at once: srun and salloc runs that sleep in their wait
    // for an allocation do not count against `jobs` (see below).
    let mut slots: Vec<Slot> = (0..2 * jobs).map(|i| Slot::new(base.path(), i)).collect();
    let tables = Tables::new();

    // SIGCHLD is blocked here so that the loop can wait for it (on a signalfd); children
    // unblock it.
    // SAFETY: building a signal set and blocking it in this (single-threaded) process.
    let sigchld = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGCHLD);
        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    // SAFETY: a signalfd for that blocked set.
    let sigfd = unsafe { libc::signalfd(-1, &sigchld, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC) };
    assert!(sigfd >= 0, "signalfd: {}", std::io::Error::last_os_error());
    let mut drained = Instant::now();
    let started = Instant::now();
    let mut next: u64 = 0;
    let mut done: u64 = 0;
    let mut running: Vec<Running> = Vec::new();
    // Runs of each command, and how many of them exited 0.
    let mut counts: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
    let mut waited = 0u64;
    // Runs stopped while still writing after WRITING_LIMIT: (run, command, bytes).
    let mut writers: Vec<(u64, &'static str, u64)> = Vec::new();
    let mut failures: Vec<Failure> = Vec::new();
    let mut kept = 0;
    let mut last_report = Instant::now();

    while done < runs {
        // Start runs while fewer than `jobs` are busy. An srun or salloc past its first
        // 40 ms is most likely asleep in its wait for an allocation (which takes 0.35 s to
        // say so): it leaves its place to another run, up to one slot each.
        let now = Instant::now();
        let asleep = running
            .iter()
            .filter(|r| {
                matches!(r.case.cmd, "srun" | "salloc")
                    && now.duration_since(r.started) > Duration::from_millis(40)
            })
            .count()
            .min(jobs);
        while next < runs && running.len() < jobs + asleep {
            let slot = slots.iter().position(|s| !s.busy).unwrap();
            if slots[slot].runs >= SLOT_RESET {
                slots[slot].reset();
            }
            let case = case(seed, next, &tables, &only);
            let env = base_env(&slots[slot], &config, &missing);
            let stdin = memfd("stdin", &case.stdin);
            let stderr = memfd("stderr", b"");
            let mut pipe = [0; 2];
            // SAFETY: a pipe for the child's stdout, with a larger buffer, our end
            // non-blocking.
            unsafe {
                assert_eq!(libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC), 0);
                libc::fcntl(pipe[0], libc::F_SETPIPE_SZ, 1 << 20);
                libc::fcntl(pipe[0], libc::F_SETFL, libc::O_NONBLOCK);
            }
            // SAFETY: this process is single-threaded; the child only calls `child`.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork: {}", std::io::Error::last_os_error());
            if pid == 0 {
                child(&case, &env, &slots[slot].work, [stdin, pipe[1], stderr]);
            }
            // SAFETY: the child's group, and our copies of its stdin and pipe end.
            unsafe {
                libc::setpgid(pid, pid);
                libc::close(stdin);
                libc::close(pipe[1]);
            }
            slots[slot].busy = true;
            slots[slot].runs += 1;
            let now = Instant::now();
            running.push(Running {
                pid,
                slot,
                index: next,
                case,
                started: now,
                stderr,
                stdout: pipe[0],
                written: 0,
                progress: now,
                progress_cpu: Duration::ZERO,
                checked: now,
                waiting: false,
                hung: None,
                writing: false,
            });
            next += 1;
        }
        // Reap whatever has ended; orphans (a queue runner, should one be started) are
        // reaped and forgotten. A run's leftovers in its process group are killed while
        // its leader is still a zombie, so that its group id cannot have been reused.
        let mut reaped = false;
        loop {
            // SAFETY: a zeroed siginfo_t is valid; waitid fills it.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: peeking at any child of ours that has ended, leaving it unreaped.
            let rc = unsafe {
                libc::waitid(
                    libc::P_ALL,
                    0,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            // SAFETY: waitid filled `info` for a child (si_pid 0: none has ended).
            let pid = unsafe { info.si_pid() };
            if rc != 0 || pid <= 0 {
                break;
            }
            let known = running.iter().position(|r| r.pid == pid);
            if known.is_some() {
                // SAFETY: the group of our unreaped child.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
            }
            let mut status = 0;
            // SAFETY: reaping that child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            reaped = true;
            let Some(i) = known else {
                continue;
            };
            let mut run = running.swap_remove(i);
            drain_stdout(&mut run);
            // SAFETY: our pipe end.
            unsafe { libc::close(run.stdout) };
            slots[run.slot].busy = false;
            done += 1;
            let count = counts.entry(run.case.cmd).or_default();
            count.0 += 1;
            if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 && !run.waiting {
                count.1 += 1;
            }
            let err = read_all(run.stderr);
            // SAFETY: our copy of the memfd.
            unsafe { libc::close(run.stderr) };
            let what = if run.waiting {
                waited += 1;
                None
            } else if run.writing {
                writers.push((run.index, run.case.cmd, run.written));
                None
            } else if let Some(why) = run.hung {
                Some(format!("HANG ({why}, killed)"))
            } else if libc::WIFSIGNALED(status) {
                let sig = libc::WTERMSIG(status);
                Some(match sig {
                    libc::SIGXFSZ => format!("more than {STDERR_LIMIT} bytes on stderr"),
                    _ => format!("CRASH (killed by signal {sig})"),
                })
            } else if libc::WEXITSTATUS(status) == 101 {
                Some("PANIC (exit status 101)".to_string())
            } else if err.windows(11).any(|w| w == b"panicked at") {
                Some(format!(
                    "PANIC in a thread (exit status {})",
                    libc::WEXITSTATUS(status)
                ))
            } else {
                None
            };
            if let Some(what) = what {
                // The slot's state as the run left it, for the reproducer.
                kept += 1;
                let copy = base.path().join(format!("failure{kept}-state"));
                let _ = std::process::Command::new("cp")
                    .arg("-a")
                    .arg(&slots[run.slot].state)
                    .arg(&copy)
                    .status();
                failures.push(Failure {
                    what,
                    index: run.index,
                    case: run.case,
                    stderr: err,
                    state: copy,
                    elapsed: run.started.elapsed(),
                });
            }
        }
        // Runs that wait for an allocation end now. A run hangs when, since it last
        // wrote to stdout, it has used the deadline in CPU time (a busy loop), or twelve
        // times the deadline has passed (blocked for good). CPU time, so that a slow run
        // on a busy machine is not taken for a hang.
        let now = Instant::now();
        for run in running
            .iter_mut()
            .filter(|r| !r.waiting && r.hung.is_none() && !r.writing)
        {
            if matches!(run.case.cmd, "srun" | "salloc")
                && now.duration_since(run.checked) > Duration::from_millis(50)
            {
                run.checked = now;
                let err = read_all(run.stderr);
                if err.windows(WAITING.len()).any(|w| w == WAITING) {
                    run.waiting = true;
                    // SAFETY: signalling the run's own group.
                    unsafe { libc::kill(-run.pid, libc::SIGKILL) };
                    continue;
                }
            }
            let idle = now.duration_since(run.progress);
            let busy = if idle > deadline / 4 {
                cpu_time(run.pid).saturating_sub(run.progress_cpu)
            } else {
                Duration::ZERO
            };
            if busy > deadline || idle > deadline * 12 {
                run.hung = Some(format!(
                    "{:.1} s of CPU and {:.1} s since it last wrote to stdout",
                    busy.as_secs_f64(),
                    idle.as_secs_f64()
                ));
                // SAFETY: signalling the run's own group.
                unsafe { libc::kill(-run.pid, libc::SIGKILL) };
            } else if now.duration_since(run.started) > WRITING_LIMIT {
                run.writing = true;
                // SAFETY: signalling the run's own group.
                unsafe { libc::kill(-run.pid, libc::SIGKILL) };
            }
        }
        if now.duration_since(drained) > Duration::from_millis(5) {
            drained = now;
            for s in &mut slots {
                s.drain();
            }
        }
        if !reaped {
            // Until a child ends (SIGCHLD, read from a signalfd), writes to stdout, or
            // 2 ms pass.
            let mut fds: Vec<libc::pollfd> = std::iter::once(sigfd)
                .chain(running.iter().map(|r| r.stdout))
                .map(|fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            // SAFETY: polling our own descriptors.
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 2) };
            if fds[0].revents != 0 {
                let mut info = [0u8; 128];
                // SAFETY: reading pending SIGCHLDs from our non-blocking signalfd.
                while unsafe { libc::read(sigfd, info.as_mut_ptr().cast(), info.len()) } > 0 {}
            }
        }
        let now = Instant::now();
        for run in running.iter_mut() {
            if drain_stdout(run) {
                run.progress = now;
                if now.duration_since(run.started) > deadline / 4 {
                    run.progress_cpu = cpu_time(run.pid);
                }
            }
        }
        if last_report.elapsed() > Duration::from_secs(60) {
            last_report = Instant::now();
            eprintln!(
                "fuzz_commands: {done}/{runs} runs, {} failures, {:.0} s",
                failures.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    // SAFETY: getrusage fills the struct.
    let cpu = |who| unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut u);
        let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
        t(u.ru_utime) + t(u.ru_stime)
    };
    let (own_cpu, runs_cpu) = (cpu(libc::RUSAGE_SELF), cpu(libc::RUSAGE_CHILDREN));
    let by_cmd: Vec<String> = counts
        .iter()
        .map(|(c, (n, ok))| format!("{c} {n} ({ok} exit 0)"))
        .collect();
    let panics = failures
        .iter()
        .filter(|f| f.what.starts_with("PANIC"))
        .count();
    let hangs = failures
        .iter()
        .filter(|f| f.what.starts_with("HANG"))
        .count();
    println!(
        "fuzz_commands: {done} runs ({}), {panics} panics, {hangs} hangs, {} other failures, {waited} srun/salloc ended while waiting for an allocation, {secs:.0} s ({:.0} runs/s, {jobs} at once, CPU {runs_cpu:.0} s in the runs and {own_cpu:.0} s here, seed {seed:#x})",
        by_cmd.join(", "),
        failures.len() - panics - hangs,
        done as f64 / secs.max(1e-9),
    );
    if !writers.is_empty() {
        let list: Vec<String> = writers
            .iter()
            .take(10)
            .map(|(i, c, n)| format!("run {i} ({c}, {} MB)", n >> 20))
            .collect();
        println!(
            "fuzz_commands: {} runs still writing to stdout after {WRITING_LIMIT:?} were stopped (not hangs): {}",
            writers.len(),
            list.join(", ")
        );
    }
    if failures.is_empty() {
        return;
    }
    for f in failures.iter().take(20) {
        let text = String::from_utf8_lossy(&f.stderr);
        let shown: String = if text.len() > 4000 {
            // (str::floor_char_boundary is newer than rust-version.)
            let cut = (0..=4000)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}...", &text[..cut])
        } else {
            text.into_owned()
        };
        println!(
            "\n{} in run {} ({}, {:.1} s):\n  {}\n  stderr:\n{}",
            f.what,
            f.index,
            f.case.cmd,
            f.elapsed.as_secs_f64(),
            reproducer(f, &config),
            shown
                .lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    if failures.len() > 20 {
        println!("\n... and {} more", failures.len() - 20);
    }
    // Keep the states the reproducers name.
    let kept_dir = base.keep();
    println!(
        "\nfuzz_commands: run states kept under {}",
        kept_dir.display()
    );
    std::process::exit(1);
}
