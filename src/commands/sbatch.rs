//! sbatch: submit a batch script.

use crate::backend::{Cluster, SubmitError};
use crate::cli::Invocation;
use crate::model::JobSelector;
use crate::options::sbatch::{self, SbatchInput, SbatchOutcome, SbatchRequest};
use std::time::Duration;

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    let req = match parse_request(inv, cluster.max_array_size()) {
        Ok(req) => req,
        Err(code) => return code,
    };
    let error_exit = inv
        .var("SLURM_EXIT_ERROR")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for m in &req.messages {
        let _ = writeln!(inv.err, "{m}");
    }
    if let Some(c) = &req.clusters
        && !c
            .split(',')
            .any(|c| c == cluster.cluster_name() || c == "all")
    {
        inv.error(&format!("No cluster '{c}' known by database."));
        return error_exit;
    }
    if req.test_only {
        return super::allocate::report_will_run(inv, cluster, &req.spec, "sbatch");
    }
    let id = match super::backend_warnings(inv, cluster, &req.spec, "sbatch")
        .and_then(|()| cluster.submit(&req.spec, &inv.user))
    {
        Ok(id) => id,
        Err(e) => {
            report_submit_error(inv, &e);
            return error_exit;
        }
    };
    if req.verbose > 0 {
        for n in cluster.notes() {
            let _ = writeln!(inv.err, "sbatch: {n}");
        }
    }
    if !req.quiet {
        let cluster_suffix = req.clusters.as_ref().map(|_| cluster.cluster_name());
        let line = match (req.parsable, cluster_suffix) {
            (true, Some(c)) => format!("{id};{c}"),
            (true, None) => id.to_string(),
            (false, Some(c)) => format!("Submitted batch job {id} on cluster {c}"),
            (false, None) => format!("Submitted batch job {id}"),
        };
        let _ = writeln!(inv.out, "{line}");
        let _ = inv.out.flush();
    }
    if req.wait {
        wait_for(inv, cluster, id)
    } else {
        0
    }
}

/// Parses sbatch's command line, directives and environment. What ends the command before
/// a submission (help, usage, version, an error) is printed here; its exit status is the Err.
/// `max_array_size` is the backend's MaxArraySize.
pub fn parse_request(
    inv: &mut Invocation<'_>,
    max_array_size: u32,
) -> Result<Box<SbatchRequest>, i32> {
    let umask = crate::sys::umask();
    let args = inv.args.clone();
    let outcome = sbatch::parse(SbatchInput {
        args: &args,
        env: &inv.env,
        cwd: &inv.cwd,
        stdin: &mut *inv.stdin,
        hostname: crate::sys::hostname(),
        now: inv.now,
        umask,
        max_array_size,
        profile: inv.profile,
    });
    match outcome {
        SbatchOutcome::Exit {
            stdout,
            stderr,
            code,
        } => Err(inv.finish(&stdout, &stderr, code)),
        SbatchOutcome::Submit(mut req) => {
            // As sbatch records it: argv joined by spaces, quoting lost.
            let mut line = String::from("sbatch");
            for a in &args {
                line.push(' ');
                line.push_str(a);
            }
            req.spec.submit_line = Some(line);
            Ok(req)
        }
    }
}

pub fn report_submit_error(inv: &mut Invocation<'_>, e: &SubmitError) {
    for d in &e.details {
        inv.error(d);
    }
    inv.error(&format!("Batch job submission failed: {}", e.reason()));
}

/// `-W`: waits for the job (every task of an array) to finish; the exit status is the
/// highest exit code, 1 for a job ended by a signal (`_job_wait`).
fn wait_for(inv: &mut Invocation<'_>, cluster: &dyn Cluster, id: u32) -> i32 {
    let selector = JobSelector::whole(id);
    let mut sleep = Duration::from_millis(250);
    loop {
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_secs(2));
        // The controller's records carry the exit status as scontrol shows it; a job it
        // has already purged is looked up in accounting.
        let jobs = match cluster.jobs() {
            Ok(j) if j.iter().any(|j| selector.matches(j)) => j,
            Ok(_) => cluster
                .accounting(&crate::backend::AccountingQuery {
                    job_ids: vec![id],
                    ..Default::default()
                })
                .unwrap_or_default(),
            Err(e) => {
                inv.error(&format!(
                    "Currently unable to load job state information, retrying: {e}"
                ));
                continue;
            }
        };
        let mine: Vec<_> = jobs.iter().filter(|j| selector.matches(j)).collect();
        if mine.is_empty() {
            inv.error(&format!("Job {id} no longer found and exit code not found"));
            return 0;
        }
        if mine.iter().all(|j| j.state.is_finished()) {
            return mine
                .iter()
                .map(|j| {
                    if j.exit_code.signal != 0 {
                        1
                    } else {
                        j.exit_code.code
                    }
                })
                .max()
                .unwrap_or(0);
        }
    }
}
