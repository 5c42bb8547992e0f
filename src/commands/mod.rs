//! The commands: argv[0] (or `bai-slurm <command>`) picks one; each gets an Invocation and
//! returns its exit status. This is glue: parsing lives in `options`, printing in `format`,
//! scheduling in `backend`.

pub mod allocate;
mod common;
pub mod doctor;
pub mod generate;
pub mod install_links;
pub mod internal;
pub mod login;
pub mod sacct;
pub mod salloc;
pub mod sbatch;
pub mod scancel;
pub mod scontrol;
pub mod scontrol_control;
pub mod scontrol_node;
pub mod scontrol_update;
pub mod scontrol_write;
pub mod sinfo;
pub mod squeue;
pub mod srun;
pub mod translate;

#[cfg(test)]
mod testkit;

use crate::backend::Cluster;
use crate::backend::local::LocalCluster;
use crate::cli::Invocation;
use crate::config::{BackendKind, Loaded};
use std::ffi::OsString;
use std::io::Write;

type Run = fn(&mut Invocation<'_>) -> i32;

/// Every command, by the name it is installed under.
pub const COMMANDS: &[(&str, Run)] = &[
    ("sbatch", |inv| with_cluster(inv, sbatch::run)),
    ("squeue", |inv| with_cluster(inv, squeue::run)),
    ("scancel", |inv| with_cluster(inv, scancel::run)),
    ("srun", srun::run),
    ("salloc", |inv| with_cluster(inv, salloc::run)),
    ("sinfo", |inv| with_cluster(inv, sinfo::run)),
    ("sacct", |inv| with_cluster(inv, sacct::run)),
    ("scontrol", |inv| with_cluster(inv, scontrol::run)),
];

/// bai-slurm's own commands (`bai-slurm <name>`).
pub const TOOL_COMMANDS: &[(&str, Run)] = &[
    ("install-links", install_links::run),
    ("doctor", doctor::run),
    ("login", login::login),
    ("logout", login::logout),
    ("translate", |inv| with_cluster(inv, translate::run)),
    ("service", internal::service),
];

/// Commands the local backend runs itself; not for people.
pub const INTERNAL_COMMANDS: &[(&str, Run)] = &[
    ("__local-runner", internal::runner),
    ("__launch", internal::launch),
    ("__bai-launch", internal::bai_launch),
    ("__stepd", internal::stepd),
    (
        crate::launcher::task_scripts::TASK_PROLOG_COMMAND,
        internal::task_prolog,
    ),
    ("__generate", generate::generate),
    ("__complete", generate::complete),
];

/// Opens the configured backend and runs `f` with it; configuration problems end the
/// command with a Slurm-style error.
pub fn with_cluster(
    inv: &mut Invocation<'_>,
    f: impl FnOnce(&mut Invocation<'_>, &dyn Cluster) -> i32,
) -> i32 {
    match open_cluster(inv) {
        Ok(c) => {
            let code = f(inv, c.as_ref());
            for w in c.warnings() {
                inv.error(&w);
            }
            code
        }
        Err(msg) => {
            inv.error(&msg);
            1
        }
    }
}

/// Prints the warnings of the backend for parts of the request it cannot act on
/// (`prog: warning: ...`), or returns its refusal.
pub fn backend_warnings(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    spec: &crate::model::JobSpec,
    prog: &str,
) -> Result<(), crate::backend::SubmitError> {
    for w in cluster.accepts(spec)? {
        let _ = writeln!(inv.err, "{prog}: warning: {w}");
    }
    Ok(())
}

pub fn open_cluster(inv: &Invocation<'_>) -> Result<Box<dyn Cluster>, String> {
    let loaded = Loaded::load(&inv.env).map_err(|e| e.to_string())?;
    match loaded.backend_kind() {
        BackendKind::Local => match loaded.config.local.system_socket() {
            Some(socket) => Ok(Box::new(
                crate::backend::local::system::client::SystemCluster::new(socket),
            )),
            None => Ok(Box::new(
                LocalCluster::open(&loaded, &inv.env).map_err(|e| e.to_string())?,
            )),
        },
        BackendKind::BackendAi => Ok(Box::new(
            crate::backend::backendai::cluster::BackendAiCluster::open(&loaded, &inv.env)
                .map_err(|e| e.to_string())?,
        )),
    }
}

/// Picks the command from argv[0] (longest name suffix wins, so `bai-slurm-sbatch` works)
/// or from the first argument of `bai-slurm <command>`.
pub fn resolve(argv0: &str, args: &[String]) -> Option<(&'static str, Run, usize)> {
    let base = argv0.rsplit('/').next().unwrap_or(argv0);
    let mut best: Option<(&'static str, Run)> = None;
    for &(name, run) in COMMANDS {
        if (base == name || base.ends_with(&format!("-{name}")))
            && best.is_none_or(|(b, _)| name.len() > b.len())
        {
            best = Some((name, run));
        }
    }
    if let Some((name, run)) = best {
        return Some((name, run, 0));
    }
    let first = args.first()?;
    COMMANDS
        .iter()
        .chain(TOOL_COMMANDS)
        .chain(INTERNAL_COMMANDS)
        .find(|(name, _)| name == first)
        .map(|&(name, run)| (name, run, 1))
}

fn tool_usage(out: &mut dyn Write) {
    let _ = writeln!(out, "Usage: bai-slurm <command> [arguments]\n");
    let _ = writeln!(
        out,
        "Slurm commands (also installed as links named after them):"
    );
    for (name, _) in COMMANDS {
        let _ = writeln!(out, "  {name}");
    }
    let _ = writeln!(out, "\nbai-slurm commands:");
    let _ = writeln!(
        out,
        "  install-links DIR   make the Slurm command links in DIR, with man pages and completions"
    );
    let _ = writeln!(
        out,
        "  doctor              show the backend and configuration in force, and check them"
    );
    let _ = writeln!(
        out,
        "  login               store your Backend.AI keypair (OS keyring, else a 0600 file)"
    );
    let _ = writeln!(out, "  logout              remove the keypair login stored");
    let _ = writeln!(
        out,
        "  service             the local backend's system-mode service (root; systemd runs it)"
    );
    let _ = writeln!(
        out,
        "  translate [sbatch options] [script]\n                      print the job sbatch would submit, without submitting it"
    );
}

/// The process entry point: builds the Invocation from the real process and runs.
pub fn main_with(argv: Vec<OsString>) -> i32 {
    // Bytes that are not UTF-8 survive as characters that print back as those bytes.
    let argv: Vec<String> = argv.into_iter().map(crate::cli::arg_string).collect();
    let argv0 = argv.first().cloned().unwrap_or_else(|| "bai-slurm".into());
    let rest: Vec<String> = argv.iter().skip(1).cloned().collect();
    // Unlocked handles: the launcher's threads (step servers) log to stderr too, and a lock
    // held for the whole command would block them forever.
    let mut out = crate::cli::RawBytes::new(std::io::LineWriter::new(std::io::stdout()));
    let mut err = crate::cli::RawBytes::new(std::io::stderr());
    let mut input = std::io::stdin();
    let Some((name, run, skip)) = resolve(&argv0, &rest) else {
        match rest.first().map(String::as_str) {
            Some("--version") | Some("-V") => {
                let _ = writeln!(out, "bai-slurm {}", env!("CARGO_PKG_VERSION"));
                return 0;
            }
            None | Some("--help") | Some("-h") | Some("help") => {
                tool_usage(&mut out);
                return 0;
            }
            Some("--list") => {
                for (name, _) in COMMANDS.iter().chain(TOOL_COMMANDS) {
                    let _ = writeln!(out, "{name}");
                }
                return 0;
            }
            Some(other) => {
                let _ = writeln!(err, "bai-slurm: unknown command '{other}'");
                tool_usage(&mut err);
                return 1;
            }
        }
    };
    if matches!(name, "squeue" | "sacct" | "scontrol" | "sinfo") {
        crate::sys::prefer_huge_pages();
    }
    let env: std::collections::BTreeMap<String, String> = std::env::vars_os()
        .map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        })
        .collect();
    let profile = profile_of(&env);
    let mut inv = Invocation {
        prog: name,
        args: rest[skip..].to_vec(),
        env,
        now: crate::sys::now(),
        user: crate::sys::UserInfo::current(),
        cwd: std::env::current_dir().unwrap_or_else(|_| "/".into()),
        stdin: &mut input,
        out: &mut out,
        err: &mut err,
        users: &crate::cli::OsUsers,
        profile,
    };
    let code = run(&mut inv);
    let _ = out.flush();
    code
}

/// The Slurm release the command presents: inside a job whose job file names it (a
/// Backend.AI container, which has no site configuration), the one the job was submitted
/// under; else the configuration's. A config that cannot be read is reported by the command
/// when it opens its backend; until then it follows the default profile.
fn profile_of(
    env: &std::collections::BTreeMap<String, String>,
) -> &'static crate::model::profile::Profile {
    let in_job = env
        .get("SLURM_JOB_ID")
        .and_then(|id| id.parse().ok())
        .and_then(crate::launcher::jobfile::JobFile::find)
        .and_then(|f| f.slurm_version);
    if let Some(version) = in_job {
        return version.profile();
    }
    Loaded::load(env).map_or_else(
        |_| crate::model::profile::Profile::default_profile(),
        |l| l.config.profile(),
    )
}
