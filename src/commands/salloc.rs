//! salloc: obtain an allocation, run a command in it (default: your shell), give it back.

use super::allocate;
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::launcher::env::AllocationUser;
use crate::model::ExitStatus;
use crate::options::salloc::{self, SallocOutcome};

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    let immediate_exit = allocate::immediate_exit(inv);
    let args = inv.args.clone();
    let req = match salloc::parse_for(inv.profile, &args, &inv.env, inv.now) {
        SallocOutcome::Exit {
            stdout,
            stderr,
            code,
        } => return inv.finish(&stdout, &stderr, code),
        SallocOutcome::Run(req) => req,
    };
    let (spec, messages) =
        match allocate::allocation_spec(inv, &req.opts, "salloc", "interactive".into()) {
            Ok(s) => s,
            Err(f) => {
                let _ = inv.err.write_all(f.stderr.as_bytes());
                return f.code;
            }
        };
    for m in messages {
        let _ = writeln!(inv.err, "{m}");
    }
    let (id, details) = match allocate::obtain(inv, cluster, &spec, "salloc", immediate_exit) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let _ = writeln!(inv.err, "salloc: Granted job allocation {id}");
    if inv.profile.job_env.salloc_nodes_ready_line {
        let nodes: Vec<String> = details.nodes.iter().map(|(n, _)| n.clone()).collect();
        let _ = writeln!(
            inv.err,
            "salloc: Nodes {} are ready for job",
            crate::model::hostlist::compress(&nodes)
        );
    }
    let env = allocate::env_of(inv, id, &details, &spec, AllocationUser::Salloc);
    // srun in the command finds the allocation's step servers in the file we hold.
    let _held = match allocate::job_file(cluster, id, &details).hold() {
        Ok(h) => Some(h),
        Err(e) => {
            inv.error(&format!("cannot hold the job file of job {id}: {e}"));
            None
        }
    };
    let argv = if req.argv.is_empty() {
        vec![
            inv.var_nonempty("SHELL")
                .map_or_else(|| inv.user.shell.clone(), str::to_string),
        ]
    } else {
        req.argv.clone()
    };
    let spawned = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .envs(&env)
        .current_dir(&inv.cwd)
        .spawn();
    let mut revoked = false;
    let status = spawned.and_then(|child| wait_watching(inv, cluster, id, child, &mut revoked));
    let (code, exit) = match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(c), _) => (c, ExitStatus::code(c)),
                (None, Some(sig)) => (128 + sig, ExitStatus::signal(sig)),
                _ => (1, ExitStatus::code(1)),
            }
        }
        Err(e) => {
            inv.error(&format!("Unable to exec command \"{}\": {e}", argv[0]));
            (1, ExitStatus::code(1))
        }
    };
    // A revoked allocation is not given back: it is over already (salloc.c, REVOKED).
    if revoked {
        return code;
    }
    let _ = writeln!(inv.err, "salloc: Relinquishing job allocation {id}");
    if let Err(e) = cluster.release(id, exit) {
        inv.error(&format!("Unable to release job allocation {id}: {e}"));
    }
    code
}

/// How often salloc asks whether its allocation still stands while the command runs
/// (slurmctld tells salloc; here it asks).
const REVOKE_POLL: std::time::Duration = std::time::Duration::from_secs(5);

/// Waits for the command; meanwhile, when the job ends under it (scancel, its time limit),
/// says so as salloc does (`_job_complete_handler`) and lets the command go on: salloc
/// kills it only when built with SALLOC_KILL_CMD, which Slurm's default build is not.
fn wait_watching(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    id: u32,
    mut child: std::process::Child,
    revoked: &mut bool,
) -> std::io::Result<std::process::ExitStatus> {
    let mut asked = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if !*revoked && asked.elapsed() >= REVOKE_POLL {
            asked = std::time::Instant::now();
            let ended = cluster.jobs_with_ids(&[id]).ok().and_then(|jobs| {
                jobs.into_iter()
                    .find(|j| j.job_id == id && j.array.is_none())
                    .map(|j| j.state)
                    .filter(|s| s.is_finished())
            });
            if let Some(state) = ended {
                *revoked = true;
                let _ = if state == crate::model::JobState::Timeout {
                    writeln!(
                        inv.err,
                        "salloc: Job {id} has exceeded its time limit and its allocation has been revoked."
                    )
                } else {
                    writeln!(inv.err, "salloc: Job allocation {id} has been revoked.")
                };
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
