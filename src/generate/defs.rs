//! clap `Command` definitions of every command, derived from the tables the parsers use:
//! the option table (`options::table`) for sbatch, srun and salloc, and the getopt tables
//! (`SHORT`/`LONG`, `options::query`) of squeue, sacct, sinfo, scancel and scontrol. They exist only to
//! generate man pages and shell completions; the commands themselves parse with getopt.
//! Option descriptions come from Slurm 22.05's `--help` texts.

use super::help_text::{HelpEntry, HelpText};
use crate::model::release::SLURM_RELEASE;
use crate::options::getopt::{HasArg, LongOpt};
use crate::options::query::{sacct, scancel, scontrol, sinfo, squeue};
use crate::options::table::{self, Opt, SALLOC, SBATCH, SRUN, Support};
use clap::{Arg, ArgAction, Command, ValueHint};

/// What the dynamic completions fill in for an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dynamic {
    /// Job ids of the user's jobs that have not ended (`bai-slurm __complete jobs`).
    Jobs,
    /// Partition names (`bai-slurm __complete partitions`).
    Partitions,
}

/// A command's definition and what its man page says beyond the options.
pub struct Def {
    pub cmd: Command,
    /// Extra man page sections: (heading, paragraphs).
    pub sections: Vec<(&'static str, Vec<String>)>,
    /// Options (by long name) whose values are completed dynamically.
    pub dynamic: Vec<(&'static str, Dynamic)>,
}

pub use crate::model::release::SLURM_COMMANDS;

pub fn all() -> Vec<Def> {
    let mut defs: Vec<Def> = SLURM_COMMANDS.iter().map(|n| slurm_command(n)).collect();
    defs.push(tool());
    defs
}

pub fn slurm_command(name: &str) -> Def {
    match name {
        "sbatch" => table_command("sbatch", SBATCH),
        "srun" => table_command("srun", SRUN),
        "salloc" => table_command("salloc", SALLOC),
        "squeue" => getopt_command(&QUERY[0]),
        "sacct" => getopt_command(&QUERY[1]),
        "sinfo" => getopt_command(&QUERY[2]),
        "scancel" => getopt_command(&QUERY[3]),
        "scontrol" => scontrol_command(),
        other => panic!("no definition for {other}"),
    }
}

fn help_of(name: &str) -> &'static str {
    match name {
        "sbatch" => include_str!("../commands/text/sbatch_help.txt"),
        "srun" => include_str!("../commands/text/srun_help.txt"),
        "salloc" => include_str!("../commands/text/salloc_help.txt"),
        "squeue" => include_str!("../commands/text/squeue_help.txt"),
        "sacct" => include_str!("../commands/text/sacct_help.txt"),
        "sinfo" => include_str!("../commands/text/sinfo_help.txt"),
        "scancel" => include_str!("../commands/text/scancel_help.txt"),
        "scontrol" => include_str!("../commands/text/scontrol_help.txt"),
        _ => "",
    }
}

/// Descriptions of options that Slurm 22.05's `--help` does not list (pyxis' options,
/// spellings it leaves out), in the words of their own documentation.
fn extra_description(cmd: &str, long: &str) -> Option<&'static str> {
    Some(match (cmd, long) {
        (_, "container-image") => "[pyxis] the image to run the job in (enroot URI or name)",
        (_, "container-mounts") => "[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]",
        (_, "container-workdir") => "[pyxis] working directory inside the container",
        (_, "container-name") => "[pyxis] name the container, to reuse it across steps",
        (_, "container-save") => "[pyxis] save the container state to a squashfs file",
        (_, "container-mount-home") => "[pyxis] bind mount the user's home directory",
        (_, "no-container-mount-home") => "[pyxis] do not bind mount the user's home directory",
        (_, "container-remap-root") => "[pyxis] run as root inside the container",
        (_, "no-container-remap-root") => "[pyxis] do not run as root inside the container",
        (_, "container-entrypoint") => "[pyxis] run the image's entrypoint",
        (_, "no-container-entrypoint") => "[pyxis] do not run the image's entrypoint",
        (_, "container-writable") => "[pyxis] make the container file system writable",
        (_, "container-readonly") => "[pyxis] make the container file system read-only",
        (_, "container-env") => "[pyxis] variables to pass into the container as they are",
        (_, "cluster") => "the same as --clusters",
        (_, "cpu_bind") => "the same as --cpu-bind",
        (_, "pack-group") => "the same as --het-group",
        (_, "tasks-per-node") => "the same as --ntasks-per-node",
        (_, "threads") => "the number of threads srun uses to launch tasks",
        (_, "wait") if cmd != "sbatch" => "seconds to wait after the first task ends",
        (_, "wait") => "wait for the job to end; the exit status is the job's",
        (_, "kill-on-invalid-dep") => "yes|no: cancel the job if its dependency can never be met",
        (_, "debugger-test") => "debugger test mode",
        (_, "no-bell") => "do not ring the terminal bell when the job is allocated",
        (_, "use-min-nodes") => "prefer the smallest node count in a range",
        (_, "batch") => "node features the batch step needs",
        (_, "context") => "SELinux context of the job",
        (_, "ignore-pbs") => "ignore #PBS and #BSUB options in the batch script",
        (_, "help") => "show the help message",
        (_, "usage") => "display a brief usage message",
        (_, "version") => "output version information and exit",
        (_, "sib") => "the same as --sibling",
        ("sacct", "constraints") => {
            "only jobs that requested these node features (comma separated)"
        }
        ("sacct", "flags") => {
            "only jobs with these scheduling flags (SchedSubmit, SchedMain, SchedBackfill, StartReceived)"
        }
        ("sacct", "reason") => {
            "only jobs that were pending for one of these reasons (comma separated)"
        }
        ("sacct", "use-local-uid") => {
            "look user ids up locally by user name instead of using those stored in accounting"
        }
        ("sacct", "short-t") => "the same as -X (an old spelling)",
        ("scancel", "ctld") => "send the request to the controller rather than to the nodes",
        (_, "me") => "only the jobs of the user who runs the command",
        ("squeue", "priority") => "list pending jobs once per partition, in priority order",
        ("squeue", "short-U") => "the same as -A (an old spelling)",
        // Not in the recorded 22.05 --help (Slurm prints them only with some plugins);
        // worded after Slurm's man pages.
        (_, "hint") => {
            "bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread)"
        }
        (_, "mem-bind") => "bind memory to locality domains",
        (_, "cpu-bind") => "bind tasks to CPUs",
        (_, "accel-bind") => "bind tasks to accelerators (g, m, n, v)",
        (_, "network") => "network resources the job needs",
        (_, "ntasks-per-gpu") => "number of tasks to invoke for each GPU",
        (_, "ntasks-per-tres") => {
            "number of tasks to invoke for each GPU (or other trackable resource)"
        }
        (_, "open-mode") => "append|truncate: how to open the output and error files",
        (_, "prefer") => "node features to prefer, but not require",
        (_, "test-only") => {
            "validate the request and estimate when the job would start, without submitting it"
        }
        (_, "wait-all-nodes") => "0|1: start the job only when all its nodes are ready",
        (_, "interactive") => "run the step in interactive mode",
        (_, "msg-timeout") => "seconds to wait for messages from the job step",
        (_, "whole") => "use whole nodes for the step, even when the step needs less",
        (_, "no-shell") => "exit after the allocation is granted, without running a command",
        _ => return None,
    })
}

fn value_hint(long: &str) -> ValueHint {
    match long {
        "output" | "error" | "input" | "export-file" | "bbf" | "nodefile" | "file" => {
            ValueHint::FilePath
        }
        "chdir" | "container-workdir" => ValueHint::DirPath,
        "uid" | "user" | "users" => ValueHint::Username,
        "epilog" | "prolog" | "task-epilog" | "task-prolog" => ValueHint::CommandName,
        _ => ValueHint::Unknown,
    }
}

/// The value name clap shows, from Slurm's help where it has one (without the angle
/// brackets clap adds itself).
fn value_name(entry: Option<&HelpEntry>, long: &str) -> String {
    match entry.and_then(|e| e.value.clone()) {
        Some(v) if !v.is_empty() => v.replace(['<', '>'], ""),
        _ => long.replace('-', "_"),
    }
}

/// Slurm's own usage line, from the first line of its `--help`.
fn usage_line(name: &str) -> String {
    let first = help_of(name).lines().next().unwrap_or(name).trim();
    first.strip_prefix("Usage: ").unwrap_or(first).to_string()
}

fn with_arg(mut a: Arg, has: HasArg, value: String, long: &str) -> Arg {
    match has {
        HasArg::No => a = a.action(ArgAction::SetTrue),
        HasArg::Required => {
            a = a
                .action(ArgAction::Set)
                .num_args(1)
                .value_name(value)
                .value_hint(value_hint(long))
        }
        HasArg::Optional => {
            a = a
                .action(ArgAction::Set)
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .value_name(value)
                .value_hint(value_hint(long))
        }
    }
    a
}

fn class_text(o: &Opt) -> String {
    match o.support {
        Support::Honoured => "[bai-slurm: honoured]".to_string(),
        Support::Ignored(why) => format!("[bai-slurm: ignored with a warning ({why})]"),
        Support::Rejected(why) => format!("[bai-slurm: rejected with an error ({why})]"),
        Support::Default(what) => format!("[bai-slurm: honoured, the default ({what})]"),
    }
}

/// sbatch, srun or salloc from the option table.
fn table_command(name: &'static str, bit: u8) -> Def {
    let help = HelpText::parse(help_of(name));
    // Slurm's help texts leave out some options one of the other two lists.
    let others: Vec<HelpText> = ["sbatch", "srun", "salloc"]
        .iter()
        .filter(|n| **n != name)
        .map(|n| HelpText::parse(help_of(n)))
        .collect();
    let mut cmd = base(name)
        .about(match bit {
            SBATCH => "Submit a batch script to Slurm",
            SRUN => "Run parallel jobs",
            _ => "Obtain a Slurm job allocation",
        })
        .long_about(match bit {
            SBATCH => {
                "sbatch submits a batch script. bai-slurm runs it as a Backend.AI batch \
                 session, or, with no Backend.AI endpoint configured, on this machine. Options \
                 are read from the command line, SBATCH_* environment variables and #SBATCH \
                 lines of the script, in Slurm's order of precedence. Each option below says \
                 what bai-slurm does with it: honoured (it has its Slurm meaning), ignored \
                 with a warning (it cannot mean anything here), or rejected with an error. \
                 Where a backend does something else with an honoured option (records it, \
                 has the launcher do it, warns, refuses), docs/COMPAT.md's local and \
                 Backend.AI columns say so, and sbatch prints the warning or error."
            }
            SRUN => {
                "srun runs parallel job steps: inside an allocation, on the job's nodes \
                 (through bai-slurm's step servers); outside one, it first obtains an \
                 allocation, runs the step in it and gives it back (on the local backend; the \
                 Backend.AI backend refuses interactive allocations for now). Each option \
                 below says what bai-slurm does with it; a step inside a job warns about the \
                 options it does not apply."
            }
            _ => {
                "salloc obtains an interactive allocation, runs the command (or the user's \
                 shell) in it with the allocation's SLURM_* environment, and gives the \
                 allocation back when the command ends (on the local backend; the Backend.AI \
                 backend refuses interactive allocations for now). Each option below says \
                 what bai-slurm does with it."
            }
        });
    let mut env_rows = Vec::new();
    for o in table::for_command(bit) {
        let entry = help
            .long(o.long)
            .or_else(|| o.short.and_then(|c| help.short(c)))
            .or_else(|| others.iter().find_map(|h| h.long(o.long)));
        let text = entry
            .filter(|e| !e.text.is_empty())
            .map(|e| e.text.clone())
            .or_else(|| extra_description(name, o.long).map(String::from))
            .unwrap_or_else(|| panic!("{name} --{}: no description", o.long));
        let mut a = Arg::new(o.long)
            .long(o.long)
            .help(format!("{text} {}", class_text(o)));
        if let Some(c) = o.short {
            a = a.short(c);
        }
        a = with_arg(a, o.arg, value_name(entry, o.long), o.long);
        cmd = cmd.arg(a);
        if bit == SBATCH {
            for var in o.sbatch_env {
                env_rows.push(format!("{var}: the same as --{}", o.long));
            }
        }
    }
    let mut sections = vec![];
    let positional = match bit {
        SBATCH => Arg::new("script")
            .value_name("script")
            .help("the batch script; read from standard input when absent")
            .value_hint(ValueHint::FilePath),
        SRUN => Arg::new("executable")
            .value_name("executable")
            .help("the program to run, and its arguments")
            .value_hint(ValueHint::CommandWithArguments),
        _ => Arg::new("command")
            .value_name("command")
            .help("the command to run in the allocation, and its arguments")
            .value_hint(ValueHint::CommandWithArguments),
    };
    cmd = cmd.arg(positional.num_args(1..).trailing_var_arg(true));
    if bit == SBATCH {
        env_rows.sort();
        env_rows.insert(
            0,
            "Input variables set options that the command line does not set; they \
             override #SBATCH lines."
                .to_string(),
        );
        sections.push(("INPUT ENVIRONMENT VARIABLES", env_rows));
    }
    sections.push(("BAI-SLURM", bai_slurm_paragraphs()));
    let dynamic = vec![("partition", Dynamic::Partitions)];
    Def {
        cmd,
        sections,
        dynamic,
    }
}

fn base(name: &'static str) -> Command {
    let usage = usage_line(name);
    Command::new(name)
        .override_usage(usage)
        .version(SLURM_RELEASE.text())
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
}

fn bai_slurm_paragraphs() -> Vec<String> {
    vec![
        format!(
            "This command is provided by bai-slurm, which reimplements Slurm {}'s commands \
             on Backend.AI (or, with nothing configured, on this machine). Output is Slurm's, \
             byte for byte; docs/COMPAT.md in the bai-slurm sources lists every difference.",
            SLURM_RELEASE.series()
        ),
        "Configuration: /etc/bai-slurm/config.toml, ~/.config/bai-slurm/config.toml and \
         the environment; bai-slurm doctor shows what is in force. See bai-slurm(1)."
            .to_string(),
    ]
}

/// A query command as its getopt tables describe it.
pub struct GetoptDef {
    pub name: &'static str,
    pub about: &'static str,
    pub short: &'static str,
    pub long: &'static [LongOpt],
    /// Options that do not have their Slurm meaning: (long name, class text).
    pub classes: &'static [(&'static str, &'static str)],
    pub dynamic: &'static [(&'static str, Dynamic)],
}

pub const QUERY: [GetoptDef; 4] = [
    GetoptDef {
        name: "squeue",
        about: "View information about jobs in the scheduling queue",
        short: squeue::SHORT,
        long: squeue::LONG,
        classes: &[],
        dynamic: &[("partitions", Dynamic::Partitions), ("jobs", Dynamic::Jobs)],
    },
    GetoptDef {
        name: "sacct",
        about: "Display accounting data for jobs and job steps",
        short: sacct::SHORT,
        long: sacct::LONG,
        classes: &[],
        dynamic: &[("partition", Dynamic::Partitions), ("jobs", Dynamic::Jobs)],
    },
    GetoptDef {
        name: "sinfo",
        about: "View information about nodes and partitions",
        short: sinfo::SHORT,
        long: sinfo::LONG,
        classes: &[],
        dynamic: &[("partition", Dynamic::Partitions)],
    },
    GetoptDef {
        name: "scancel",
        about: "Signal or cancel jobs, job arrays or job steps",
        short: scancel::SHORT,
        long: scancel::LONG,
        classes: &[],
        dynamic: &[
            ("partition", Dynamic::Partitions),
            ("job_id", Dynamic::Jobs),
        ],
    },
];

fn short_arg(short: &str, c: char) -> Option<HasArg> {
    let s = short.trim_start_matches(['+', '-']);
    let i = s.find(c)?;
    let rest = &s[i + 1..];
    Some(if rest.starts_with("::") {
        HasArg::Optional
    } else if rest.starts_with(':') {
        HasArg::Required
    } else {
        HasArg::No
    })
}

/// One clap argument per getopt value: the short letter and every long spelling of it.
fn getopt_args(name: &str, short: &str, long: &[LongOpt], help: &HelpText) -> Vec<(String, Arg)> {
    let mut groups: Vec<(i32, Vec<&LongOpt>)> = Vec::new();
    for l in long {
        match groups.iter_mut().find(|(v, _)| *v == l.val) {
            Some((_, g)) => g.push(l),
            None => groups.push((l.val, vec![l])),
        }
    }
    let mut args = Vec::new();
    for (val, spellings) in &groups {
        let letter =
            char::from_u32(*val as u32).filter(|c| *val < 0x100 && short_arg(short, *c).is_some());
        // The spelling Slurm's help shows is the main one; the others are aliases.
        let main = spellings
            .iter()
            .find(|l| help.long(l.name).is_some())
            .unwrap_or(&spellings[0]);
        let entry = help
            .long(main.name)
            .or_else(|| letter.and_then(|c| help.short(c)));
        let text = entry
            .filter(|e| !e.text.is_empty())
            .map(|e| e.text.clone())
            .or_else(|| extra_description(name, main.name).map(String::from))
            .unwrap_or_else(|| panic!("{name} --{}: no description", main.name));
        let mut a = Arg::new(main.name).long(main.name).help(text);
        let aliases: Vec<&str> = spellings
            .iter()
            .filter(|l| l.name != main.name)
            .map(|l| l.name)
            .collect();
        if !aliases.is_empty() {
            a = a.visible_aliases(aliases);
        }
        if let Some(c) = letter {
            a = a.short(c);
        }
        a = with_arg(a, main.has_arg, value_name(entry, main.name), main.name);
        args.push((main.name.to_string(), a));
    }
    // Short letters without a long spelling.
    for c in short.trim_start_matches(['+', '-']).chars() {
        if c == ':' || groups.iter().any(|(v, _)| *v == c as i32) {
            continue;
        }
        let has = short_arg(short, c).expect("letter of the optstring");
        let entry = help.short(c);
        let id = format!("short-{c}");
        let text = entry
            .map(|e| e.text.clone())
            .or_else(|| extra_description(name, &id).map(String::from))
            .unwrap_or_else(|| panic!("{name} -{c}: no description"));
        let a = Arg::new(id.clone()).short(c).help(text);
        args.push((id.clone(), with_arg(a, has, value_name(entry, "value"), "")));
    }
    args
}

fn getopt_command(g: &GetoptDef) -> Def {
    let help = HelpText::parse(help_of(g.name));
    let mut cmd = base(g.name).about(g.about).long_about(format!(
        "{}. bai-slurm reads the same options as Slurm {}'s {} and prints the same \
         output. Every option has its Slurm meaning unless it says otherwise below.",
        g.about,
        SLURM_RELEASE.series(),
        g.name
    ));
    for (id, mut a) in getopt_args(g.name, g.short, g.long, &help) {
        let class = g
            .classes
            .iter()
            .find(|(l, _)| *l == id)
            .map(|(_, c)| *c)
            .unwrap_or("honoured");
        let text = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        a = a.help(format!("{text} [bai-slurm: {class}]"));
        cmd = cmd.arg(a);
    }
    if g.name == "scancel" {
        cmd = cmd.arg(
            Arg::new("job_id")
                .value_name("job_id[_array_id][.step_id]")
                .num_args(1..)
                .help("the jobs to signal or cancel"),
        );
    }
    Def {
        cmd,
        sections: vec![("BAI-SLURM", bai_slurm_paragraphs())],
        dynamic: g.dynamic.to_vec(),
    }
}

/// scontrol's keywords, as subcommands: (keyword, arguments as its help shows them,
/// arguments' value name, whether bai-slurm supports it, dynamic completion).
type Keyword = (
    &'static str,
    &'static str,
    Option<&'static str>,
    bool,
    Option<Dynamic>,
);

const SCONTROL_KEYWORDS: &[Keyword] = &[
    ("abort", "", None, false, None),
    ("all", "", None, true, None),
    ("cancel_reboot", "<nodelist>", Some("nodelist"), false, None),
    ("cluster", "", Some("cluster_name"), false, None),
    ("completing", "", None, false, None),
    (
        "create",
        "<SPECIFICATIONS>",
        Some("SPECIFICATIONS"),
        false,
        None,
    ),
    ("details", "", None, true, None),
    (
        "delete",
        "<SPECIFICATIONS>",
        Some("SPECIFICATIONS"),
        false,
        None,
    ),
    ("errnumstr", "<ERRNO>", Some("ERRNO"), false, None),
    ("exit", "", None, true, None),
    ("help", "", None, true, None),
    (
        "hold",
        "<job_list>",
        Some("job_list"),
        true,
        Some(Dynamic::Jobs),
    ),
    (
        "holdu",
        "<job_list>",
        Some("job_list"),
        true,
        Some(Dynamic::Jobs),
    ),
    ("hide", "", None, true, None),
    ("listpids", "<job_id<.step>>", Some("job_id"), false, None),
    (
        "notify",
        "<job_id> msg",
        Some("job_id"),
        true,
        Some(Dynamic::Jobs),
    ),
    ("oneliner", "", None, true, None),
    ("pidinfo", "<pid>", Some("pid"), false, None),
    ("ping", "", None, false, None),
    ("quiet", "", None, true, None),
    ("quit", "", None, true, None),
    ("reconfigure", "", None, false, None),
    (
        "release",
        "<job_list>",
        Some("job_list"),
        true,
        Some(Dynamic::Jobs),
    ),
    (
        "requeue",
        "<job_id>",
        Some("job_id"),
        true,
        Some(Dynamic::Jobs),
    ),
    (
        "requeuehold",
        "<job_id>",
        Some("job_id"),
        true,
        Some(Dynamic::Jobs),
    ),
    (
        "resume",
        "<jobid_list>",
        Some("jobid_list"),
        false,
        Some(Dynamic::Jobs),
    ),
    ("show", "<ENTITY> [<ID>]", None, true, None),
    (
        "suspend",
        "<job_list>",
        Some("job_list"),
        false,
        Some(Dynamic::Jobs),
    ),
    (
        "top",
        "<job_list>",
        Some("job_list"),
        false,
        Some(Dynamic::Jobs),
    ),
    ("takeover", "", None, false, None),
    (
        "uhold",
        "<jobid_list>",
        Some("jobid_list"),
        true,
        Some(Dynamic::Jobs),
    ),
    (
        "update",
        "<SPECIFICATIONS>",
        Some("SPECIFICATIONS"),
        true,
        None,
    ),
    ("verbose", "", None, true, None),
    ("version", "", None, true, None),
    (
        "wait_job",
        "<job_id>",
        Some("job_id"),
        true,
        Some(Dynamic::Jobs),
    ),
];

/// What `scontrol show` can show; bai-slurm renders the first group.
pub const SHOW_ENTITIES: &[&str] = &[
    "config",
    "hostlist",
    "hostlistsorted",
    "hostnames",
    "job",
    "node",
    "partition",
];
const SHOW_UNSUPPORTED: &[&str] = &[
    "aliases",
    "assoc_mgr",
    "bbstat",
    "burstBuffer",
    "daemons",
    "dwstat",
    "federation",
    "frontend",
    "licenses",
    "reservation",
    "slurmd",
    "step",
    "topology",
];

/// The scontrol keywords whose arguments are job ids.
pub fn scontrol_job_keywords() -> impl Iterator<Item = &'static str> {
    SCONTROL_KEYWORDS
        .iter()
        .filter(|k| k.4 == Some(Dynamic::Jobs))
        .map(|k| k.0)
}

fn scontrol_command() -> Def {
    let text = help_of("scontrol");
    let help = HelpText::parse(text);
    let mut cmd = base("scontrol")
        .about("View or modify Slurm configuration and state")
        .long_about(format!(
            "View or modify Slurm configuration and state. bai-slurm's scontrol shows jobs, \
             nodes, partitions and the configuration in Slurm {}'s layout, and holds and \
             releases jobs; the keywords it does not support end with an error saying so. \
             Keywords may also be typed at scontrol's interactive prompt.",
            SLURM_RELEASE.series()
        ))
        .subcommand_value_name("COMMAND")
        .subcommand_help_heading("COMMANDS");
    for (id, mut a) in getopt_args("scontrol", scontrol::SHORT, scontrol::LONG, &help) {
        let text = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        a = a.help(format!("{text} [bai-slurm: honoured]"));
        a = a.global(false);
        let _ = id;
        cmd = cmd.arg(a);
    }
    for &(kw, args, value, supported, dynamic) in SCONTROL_KEYWORDS {
        let head = if args.is_empty() {
            kw.to_string()
        } else {
            format!("{kw} {args}")
        };
        let desc = HelpText::keyword(text, &head)
            .unwrap_or_else(|| panic!("scontrol help has no line for {head}"));
        let class = if supported {
            "honoured"
        } else {
            "rejected with an error (not supported yet)"
        };
        let mut sub = Command::new(kw)
            .override_usage(head.clone())
            .about(format!("{desc} [bai-slurm: {class}]"))
            .disable_help_flag(true);
        if kw == "show" {
            let mut entities: Vec<&str> = SHOW_ENTITIES.to_vec();
            entities.extend(SHOW_UNSUPPORTED);
            sub = sub
                .arg(
                    Arg::new("ENTITY")
                        .value_parser(entities)
                        .help(format!(
                            "what to show; bai-slurm shows {}",
                            SHOW_ENTITIES.join(", ")
                        ))
                        .required(false),
                )
                .arg(Arg::new("ID").help("job id, node name, partition name, host list..."));
        } else if let Some(v) = value {
            let id = if dynamic == Some(Dynamic::Jobs) {
                "job_ids"
            } else {
                "args"
            };
            sub = sub.arg(Arg::new(id).value_name(v).num_args(1..));
        }
        cmd = cmd.subcommand(sub);
    }
    Def {
        cmd,
        sections: vec![("BAI-SLURM", bai_slurm_paragraphs())],
        dynamic: vec![],
    }
}

/// `bai-slurm` itself: its own commands and every Slurm command under its name.
fn tool() -> Def {
    let mut cmd = Command::new("bai-slurm")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Slurm's commands on Backend.AI, or on this machine")
        .long_about(
            "bai-slurm is one program installed under the names of Slurm's commands (sbatch, \
             squeue, scancel, srun, salloc, sinfo, sacct, scontrol); it acts as the command \
             it is called as. It runs jobs as Backend.AI batch sessions when a Backend.AI \
             endpoint and keys are configured, and otherwise on this machine (the embedded \
             local backend). `bai-slurm COMMAND ...` runs a Slurm command by name too.",
        )
        .disable_help_subcommand(true)
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .help("list the commands"),
        )
        .subcommand(
            Command::new("install-links")
                .override_usage("install-links [--links-only] DIR")
                .about(
                    "Make the Slurm command names links to this program in DIR (files that \
                     are not links are never replaced), and install the man pages and the \
                     bash, zsh and fish completions where man and each shell find them for \
                     DIR on PATH (DIR/../share/man, the shells' user or system directories)",
                )
                .arg(
                    Arg::new("links-only")
                        .long("links-only")
                        .action(ArgAction::SetTrue)
                        .help("only the links, no man pages or completions"),
                )
                .arg(
                    Arg::new("DIR")
                        .required(true)
                        .value_hint(ValueHint::DirPath),
                ),
        )
        .subcommand(
            Command::new("doctor")
                .about("Show the backend and configuration in force, and check that they work"),
        )
        .subcommand(
            Command::new("login")
                .about(
                    "Check your Backend.AI keypair against the configured endpoint and store \
                     it: in the OS keyring (Secret Service) where there is one, else in \
                     ~/.config/bai-slurm/credentials (mode 0600); --no-verify stores it \
                     unchecked. The secret key is read \
                     from stdin (one line; the access key first unless --access-key is \
                     given), or asked for without echo on a terminal; never from the \
                     command line",
                )
                .arg(
                    Arg::new("access-key")
                        .long("access-key")
                        .value_name("KEY")
                        .help("the access key (else asked for, or the first line of stdin)"),
                )
                .arg(
                    Arg::new("no-verify")
                        .long("no-verify")
                        .action(ArgAction::SetTrue)
                        .help("store the keypair without checking it against the manager"),
                ),
        )
        .subcommand(Command::new("logout").about(
            "Remove the keypair login stored for the configured endpoint (keyring and file)",
        ))
        .subcommand(
            Command::new("translate")
                .override_usage("translate [sbatch options] [script [args...]]")
                .about(
                    "Print, as JSON, the job sbatch would submit: the job spec read from the \
                     options, #SBATCH directives and SBATCH_* variables exactly as sbatch \
                     reads them, checked as a submission is, and on the Backend.AI backend \
                     the session requests sbatch would send (with the job id it would get). \
                     Nothing is submitted. Values of variables named like credentials \
                     (SECRET, PASSWORD, TOKEN) are shown as (hidden)",
                )
                .arg(
                    Arg::new("ARGS")
                        .num_args(0..)
                        .trailing_var_arg(true)
                        .allow_hyphen_values(true)
                        .value_hint(ValueHint::FilePath),
                ),
        );
    for name in SLURM_COMMANDS {
        let sub = slurm_command(name).cmd;
        let about = format!(
            "{}; the same as running {name} (see {name}(1))",
            sub.get_about().map(|a| a.to_string()).unwrap_or_default()
        );
        let sub = sub.about(about).override_usage(format!("{name} ..."));
        cmd = cmd.subcommand(sub);
    }
    Def {
        cmd,
        sections: vec![
            (
                "FILES",
                vec![
                    "/etc/bai-slurm/config.toml: site-wide configuration (BAI_SLURM_SYSTEM_CONFIG \
                     names another file)."
                        .to_string(),
                    "~/.config/bai-slurm/config.toml: the user's configuration \
                     (BAI_SLURM_CONFIG names another file)."
                        .to_string(),
                    "~/.config/bai-slurm/credentials: the keypairs bai-slurm login stores \
                     when there is no OS keyring, one per endpoint; mode 0600, and refused \
                     when others may read it. A keypair in the configuration or in \
                     BACKEND_ACCESS_KEY and BACKEND_SECRET_KEY takes precedence over the \
                     keyring's, which takes precedence over this file's."
                        .to_string(),
                ],
            ),
            (
                "ENVIRONMENT",
                vec![
                    "BAI_SLURM_BACKEND (local or backend.ai), BAI_SLURM_STATE_DIR (the local \
                     backend's state), and the Backend.AI SDK's BACKEND_ENDPOINT, \
                     BACKEND_ACCESS_KEY, BACKEND_SECRET_KEY, BACKEND_DOMAIN, BACKEND_GROUP, \
                     BACKEND_SKIP_SSLCERT_VALIDATION."
                        .to_string(),
                ],
            ),
            (
                "SEE ALSO",
                vec![
                    SLURM_COMMANDS
                        .iter()
                        .map(|c| format!("{c}(1)"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ],
            ),
        ],
        dynamic: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_valid_clap() {
        for d in all() {
            d.cmd.clone().debug_assert();
        }
    }

    /// Every option of the table appears, with its short letter and its class.
    #[test]
    fn table_options_all_appear() {
        for (name, bit) in [("sbatch", SBATCH), ("srun", SRUN), ("salloc", SALLOC)] {
            let cmd = slurm_command(name).cmd;
            for o in table::for_command(bit) {
                let a = cmd
                    .get_arguments()
                    .find(|a| a.get_long() == Some(o.long))
                    .unwrap_or_else(|| panic!("{name} --{}", o.long));
                assert_eq!(a.get_short(), o.short, "{name} --{}", o.long);
                let help = a.get_help().unwrap().to_string();
                assert!(help.contains("[bai-slurm: "), "{name} --{}: {help}", o.long);
            }
        }
    }

    #[test]
    fn getopt_spellings_all_appear() {
        for g in &QUERY {
            let cmd = slurm_command(g.name).cmd;
            for l in g.long {
                assert!(
                    cmd.get_arguments().any(|a| a.get_long() == Some(l.name)
                        || a.get_all_aliases().is_some_and(|al| al.contains(&l.name))),
                    "{} --{}",
                    g.name,
                    l.name
                );
            }
        }
    }
}
