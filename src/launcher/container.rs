//! The launcher inside a Backend.AI session (`bai-slurm __bai-launch <meta>`, the session's
//! startup command): rebuilds the batch step from the job's metadata and environ, runs it
//! with the batch wrapper, and prints the result as the console's last line, where sacct
//! finds it (Backend.AI keeps only SUCCESS/FAILURE).

use super::batch::{self, BatchPlan, Ending};
use super::env::{BatchEnvFacts, batch_env};
use crate::backend::backendai::meta::{self, JobMeta, LaunchResult, ResultKind};
use crate::model::fname::{FnameContext, expand};
use crate::model::{ExitStatus, MemoryRequest};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The node names of the session, main first (BACKENDAI_CLUSTER_HOSTS lists them unordered).
fn cluster_hosts(env: &BTreeMap<String, String>, this: &str) -> Vec<String> {
    let mut hosts: Vec<String> = env
        .get("BACKENDAI_CLUSTER_HOSTS")
        .map(|h| {
            h.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if hosts.is_empty() {
        hosts.push(this.to_string());
    }
    hosts.sort_by_key(|h| {
        (
            !h.starts_with("main"),
            h.trim_start_matches(char::is_alphabetic)
                .parse::<u32>()
                .unwrap_or(0),
            h.clone(),
        )
    });
    hosts
}

/// Runs the job; returns the launcher's exit status (the script's, so the session's result
/// agrees with the job).
pub fn run(encoded_meta: &str, env: BTreeMap<String, String>, console: &mut dyn Write) -> i32 {
    let signals = match signal_hook::iterator::Signals::new(batch::HANDLED_SIGNALS) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(console, "bai-slurm launcher: cannot handle signals: {e}");
            return 1;
        }
    };
    let Some(meta) = JobMeta::decode(encoded_meta) else {
        let _ = writeln!(console, "bai-slurm launcher: unreadable job description");
        return 1;
    };
    // First in the log, so the job's description outlives the session's environ.
    let _ = writeln!(console, "{}", meta::meta_line(encoded_meta.trim()));
    let script = env
        .get(meta::SCRIPT_ENV)
        .and_then(|s| meta::decode_script(s))
        .unwrap_or_default();
    let ending = match prepare(&meta, &script, env, console) {
        Ok(plan) => batch::run(&plan, signals, |_| {}),
        Err(e) => {
            let _ = writeln!(console, "slurmstepd: error: {e}");
            Ending::LaunchFailed(ExitStatus::code(1))
        }
    };
    let (kind, exit) = match ending {
        Ending::Exited(s) => (ResultKind::Exited, s),
        Ending::TimedOut(s) => (ResultKind::TimedOut, s),
        Ending::Cancelled(s) => (ResultKind::Cancelled, s),
        Ending::LaunchFailed(s) => (ResultKind::LaunchFailed, s),
    };
    let _ = writeln!(
        console,
        "{}",
        meta::result_line(&LaunchResult { kind, exit })
    );
    let _ = console.flush();
    if exit.signal != 0 {
        128 + exit.signal
    } else {
        exit.code
    }
}

fn prepare(
    meta: &JobMeta,
    script: &[u8],
    mut env: BTreeMap<String, String>,
    console: &mut dyn Write,
) -> std::io::Result<BatchPlan> {
    use std::os::unix::fs::OpenOptionsExt;
    env.remove(meta::SCRIPT_ENV);
    let spec = &meta.spec;
    let node = env
        .get("BACKENDAI_CLUSTER_HOST")
        .cloned()
        .unwrap_or_else(crate::sys::short_hostname);
    let hosts = cluster_hosts(&env, &node);
    // One directory per launcher: two launchers on one host (tests, or a retried job) must
    // never share a script file.
    let dir =
        std::env::temp_dir().join(format!("bai-slurm-{}-{}", meta.job_id, std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let script_path = dir.join("slurm_script");
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o700)
        .open(&script_path)?
        .write_all(script)?;
    let nodes = hosts.len() as u32;
    let cpus_per_node = spec.cpus().div_ceil(nodes.max(1)).max(1);
    let ntasks = spec.ntasks.or(spec.ntasks_per_node.map(|n| n * nodes));
    let tasks = ntasks.unwrap_or(nodes);
    let tasks_per_node: Vec<u32> = (0..nodes)
        .map(|i| tasks / nodes + u32::from(i < tasks % nodes))
        .collect();
    let facts = BatchEnvFacts {
        cluster_name: meta.cluster.clone(),
        job_id: meta.job_id,
        job_name: spec.name.clone(),
        partition: spec.partition.clone().unwrap_or_default(),
        account: spec.account.clone(),
        qos: Some(spec.qos.clone().unwrap_or_else(|| "normal".into())),
        nodelist: crate::model::hostlist::compress(&hosts),
        node_name: node.clone(),
        cpus_per_node: vec![cpus_per_node; nodes as usize],
        tasks_per_node,
        ntasks,
        cpus_per_task: spec.cpus_per_task,
        ntasks_per_node: spec.ntasks_per_node,
        memory: match (spec.mem_per_node, spec.mem_per_cpu) {
            (Some(mb), _) => Some(MemoryRequest::PerNode(mb)),
            (None, Some(mb)) => Some(MemoryRequest::PerCpu(mb)),
            _ => None,
        },
        user: meta.user.clone(),
        uid: meta.uid,
        gid: meta.gid,
        array: match (meta.array_task, &spec.array) {
            (Some(task), Some(a)) => Some(super::env::ArrayEnv {
                array_job_id: meta.job_id,
                task_id: task,
                count: a.tasks.len() as u32,
                min: a.tasks.iter().copied().min().unwrap_or(0),
                max: a.tasks.iter().copied().max().unwrap_or(0),
                step: a.step,
            }),
            _ => None,
        },
        dependency: spec.dependency_raw.clone(),
        restart_count: None,
    };
    let env = batch_env(&env, &facts);
    let ctx = FnameContext {
        job_id: meta.job_id,
        array: meta.array_task.map(|t| (meta.job_id, t)),
        node_name: &node,
        user: &meta.user,
        job_name: &spec.name,
        ..Default::default()
    };
    let default_out = if spec.array.is_some() {
        "slurm-%A_%a.out"
    } else {
        "slurm-%j.out"
    };
    let out_pat = spec.stdout.as_deref().unwrap_or(default_out);
    let mut warned = Vec::new();
    let mut reachable = |p: String| -> PathBuf {
        let path = PathBuf::from(&p);
        if path.parent().is_some_and(Path::is_dir) {
            return path;
        }
        // The submit directory is not mounted here: keep the output in the session log.
        if !warned.contains(&p) {
            let _ = writeln!(
                console,
                "bai-slurm: {p} is not reachable in the container; output goes to the session log"
            );
            let _ = console.flush();
            warned.push(p);
        }
        PathBuf::from("/dev/stdout")
    };
    let stdout = reachable(expand(out_pat, &ctx, &spec.work_dir));
    let stderr = reachable(expand(
        spec.stderr.as_deref().unwrap_or(out_pat),
        &ctx,
        &spec.work_dir,
    ));
    let stdin_path = expand(
        spec.stdin.as_deref().unwrap_or("/dev/null"),
        &ctx,
        &spec.work_dir,
    );
    Ok(BatchPlan {
        script: script_path,
        args: spec.script_args.clone(),
        env,
        work_dir: PathBuf::from(&spec.work_dir),
        stdout,
        stderr,
        stdin: PathBuf::from(stdin_path),
        append: spec.open_mode == Some(crate::model::OpenMode::Append),
        umask: spec.umask,
        time_limit: spec
            .time_limit
            .and_then(|l| l.seconds())
            .map(|s| Duration::from_secs(s as u64)),
        kill_wait: Duration::from_secs(u64::from(meta.kill_wait.max(1))),
        warn_signal: spec
            .signal
            .map(|w| (w.signal, w.seconds_before, w.batch_only)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_comes_first() {
        let mut env = BTreeMap::new();
        env.insert(
            "BACKENDAI_CLUSTER_HOSTS".to_string(),
            "sub2,sub1,main1".to_string(),
        );
        assert_eq!(cluster_hosts(&env, "main1"), vec!["main1", "sub1", "sub2"]);
        assert_eq!(cluster_hosts(&BTreeMap::new(), "box"), vec!["box"]);
    }
}
