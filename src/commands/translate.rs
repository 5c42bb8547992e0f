//! `bai-slurm translate [sbatch options] [script [args]]`: what sbatch would submit, without
//! submitting it. The command line, `#SBATCH` directives and SBATCH_* variables are read
//! exactly as sbatch reads them; the output is the validated job spec and, on Backend.AI,
//! the session requests sbatch would send.

use super::sbatch::{parse_request, report_submit_error};
use crate::backend::Cluster;
use crate::cli::Invocation;

const USAGE: &str = "Usage: bai-slurm translate [sbatch options] [script [args...]]

Reads the options, #SBATCH directives and SBATCH_* variables exactly as sbatch does and
prints, as JSON, the job spec bai-slurm would submit and, on the Backend.AI backend, the
session requests it would send. Nothing is submitted.
";

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    if matches!(inv.args.first().map(String::as_str), Some("--help" | "-h")) {
        let _ = inv.out.write_all(USAGE.as_bytes());
        return 0;
    }
    // Every message is the one sbatch would print.
    inv.prog = "sbatch";
    let req = match parse_request(inv, cluster.max_array_size()) {
        Ok(req) => req,
        Err(code) => return code,
    };
    for m in &req.messages {
        let _ = writeln!(inv.err, "{m}");
    }
    let translation = match super::backend_warnings(inv, cluster, &req.spec, "sbatch")
        .and_then(|()| cluster.translate(&req.spec, &inv.user))
    {
        Ok(t) => t,
        Err(e) => {
            report_submit_error(inv, &e);
            return 1;
        }
    };
    let mut job_spec = serde_json::to_value(&req.spec).unwrap_or_default();
    // The script as text, as the user wrote it.
    job_spec["script"] =
        serde_json::Value::String(String::from_utf8_lossy(&req.spec.script).into());
    hide_secrets(&mut job_spec["environment"]);
    let mut requests = translation.requests;
    for r in &mut requests {
        hide_secrets(&mut r["body"]["config"]["environ"]);
    }
    let doc = serde_json::json!({
        "backend": translation.backend,
        "cluster": cluster.cluster_name(),
        "job_id": translation.job_id,
        "job_spec": job_spec,
        "requests": requests,
    });
    match serde_json::to_string_pretty(&doc) {
        Ok(text) => {
            let _ = writeln!(inv.out, "{text}");
            0
        }
        Err(e) => {
            inv.error(&format!("cannot print the job spec: {e}"));
            1
        }
    }
}

/// Values of variables named like credentials are shown as `(hidden)`: this output ends up
/// in terminals, tickets and CI logs.
fn hide_secrets(environ: &mut serde_json::Value) {
    let Some(map) = environ.as_object_mut() else {
        return;
    };
    for (name, value) in map.iter_mut() {
        if crate::envvars::looks_like_credential(name) {
            *value = serde_json::Value::String("(hidden)".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_hidden_and_the_rest_kept() {
        let mut env = serde_json::json!({
            "BACKEND_SECRET_KEY": "abc", "GITHUB_TOKEN": "t", "db_password": "p", "PATH": "/bin"
        });
        hide_secrets(&mut env);
        assert_eq!(
            env,
            serde_json::json!({
                "BACKEND_SECRET_KEY": "(hidden)", "GITHUB_TOKEN": "(hidden)",
                "db_password": "(hidden)", "PATH": "/bin"
            })
        );
    }
}
