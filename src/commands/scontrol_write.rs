//! `scontrol write batch_script <job_id> [file|-]` (scontrol.c's `write` keyword and
//! info_job.c's `scontrol_batch_script`); `write config` is refused, as there is no
//! slurm.conf here to save.

use super::common;
use crate::backend::{BackendError, Cluster};
use crate::cli::Invocation;
use crate::model::cnum::{strncasecmp_eq, strtol};
use std::io::Write;

/// Runs the `write` keyword (`argv[0]` is the keyword); returns scontrol's exit code.
/// A failed retrieval or an unwritable file leaves it 0, as Slurm's does.
pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster, argv: &[String], quiet: bool) -> i32 {
    let tag = &argv[0];
    let Some(what) = argv.get(1) else {
        common::raw_err(inv, &format!("too few arguments for keyword:{tag}"));
        return 1;
    };
    let is = |name: &str, min: usize| strncasecmp_eq(what, name, what.len().max(min));
    if is("batch_script", 5) {
        if argv.len() > 4 {
            common::raw_err(inv, &format!("too many arguments for keyword:{tag}"));
            return 1;
        }
        batch_script(inv, cluster, &argv[2..], quiet);
        0
    } else if is("config", 6) {
        inv.error(&format!(
            "{tag} {what} is not supported by this implementation (there is no slurm.conf to save)"
        ));
        1
    } else {
        common::raw_err(inv, &format!("invalid write argument:{what}"));
        1
    }
}

/// `scontrol_batch_script`: the file is opened (made empty) before the script is asked
/// for, and removed again when there is none; `-` is stdout.
fn batch_script(inv: &mut Invocation<'_>, cluster: &dyn Cluster, args: &[String], quiet: bool) {
    let Some(id) = args.first() else {
        return;
    };
    // atoll into a uint32_t
    let job_id = strtol(id.as_bytes()).value as u32;
    let name = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| format!("slurm-{job_id}.sh"));
    let path = inv.cwd.join(&name);
    let mut file = None;
    if name != "-" {
        match std::fs::File::create(&path) {
            Ok(f) => file = Some(f),
            Err(e) => {
                let why = crate::sys::strerror(e.raw_os_error().unwrap_or(0));
                common::raw_err(inv, &format!("failed to open file `{name}`: {why}"));
                return;
            }
        }
    }
    let script = cluster.batch_script(job_id, inv.user.uid);
    let written = match (&script, file.as_mut()) {
        (Ok(bytes), Some(f)) => f.write_all(bytes).map_err(|e| e.to_string()),
        (Ok(bytes), None) => {
            common::out(inv, bytes);
            Ok(())
        }
        (Err(_), _) => Ok(()),
    };
    match (script, written) {
        (Ok(_), Ok(())) => {
            if file.is_some() && !quiet {
                common::out(
                    inv,
                    format!("batch script for job {job_id} written to {name}\n").as_bytes(),
                );
            }
        }
        (Err(e), _) => {
            if file.is_some() {
                let _ = std::fs::remove_file(&path);
            }
            let why = match e {
                BackendError::Slurm(errno) => errno.text().to_string(),
                other => other.to_string(),
            };
            common::raw_err(inv, &format!("job script retrieval failed: {why}"));
        }
        (Ok(_), Err(why)) => {
            let _ = std::fs::remove_file(&path);
            common::raw_err(inv, &format!("job script retrieval failed: {why}"));
        }
    }
}
