//! scontrol's job-control verbs: hold, uhold (holdu), release.

use crate::backend::{BackendError, Cluster, HoldKind};
use crate::cli::Invocation;
use crate::model::JobSelector;

/// Runs `scontrol <verb> <args...>`; returns scontrol's exit code.
pub fn run(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    verb: &str,
    args: &[String],
    quiet: bool,
) -> i32 {
    let verb_lc = verb.to_ascii_lowercase();
    let kind = if verb_lc.starts_with("uhold") || verb_lc.starts_with("holdu") {
        Some(HoldKind::User)
    } else if verb_lc.starts_with("hold") {
        // Only an operator's hold is an administrator hold; anybody else's is their own.
        Some(if inv.user.uid == 0 {
            HoldKind::Admin
        } else {
            HoldKind::User
        })
    } else if verb_lc.starts_with("release") {
        None
    } else {
        // requeue, suspend, resume, top, update, notify, wait_job: not yet offered.
        inv.error(&format!("{verb} is not supported by bai-slurm yet"));
        return 1;
    };
    if args.is_empty() {
        let _ = writeln!(inv.err, "Too few arguments for keyword:{verb}");
        return 1;
    }
    let mut code = 0;
    for arg in args {
        let arg = strip_prefix_ci(arg, "JobID=")
            .or_else(|| strip_prefix_ci(arg, "Job="))
            .unwrap_or(arg);
        for id in arg.split([',', ' ']).filter(|s| !s.is_empty()) {
            let Some(sel) = JobSelector::parse(id) else {
                code = 1;
                if !quiet {
                    let _ = writeln!(inv.err, "Invalid job id specified for job {id}");
                }
                continue;
            };
            if let Err(e) = cluster.hold(&sel, kind, inv.user.uid) {
                code = 1;
                if !quiet {
                    let text = match &e {
                        BackendError::Slurm(errno) => errno.text().to_string(),
                        other => other.to_string(),
                    };
                    let _ = writeln!(inv.err, "{text} for job {id}");
                }
            }
        }
    }
    code
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    (s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix))
        .then(|| &s[prefix.len()..])
}
