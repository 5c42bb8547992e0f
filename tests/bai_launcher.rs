//! The launcher that runs inside a Backend.AI session, run here as a session would run it:
//! the startup command with the job's metadata, the script and environment in the environ,
//! the cluster variables Backend.AI sets, and the console as stdout.

use bai_slurm::launcher::meta::{self, JobMeta, ResultKind};
use bai_slurm::model::{JobSpec, TimeLimit};
use std::process::Command;

/// Stands in for ssh to the other containers of a session: runs the command it is given on
/// this machine, with the step server on loopback instead of the container's name.
const FAKE_SSH: &str = r#"#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in -p|-o|-F) shift 2 ;; *) break ;; esac
done
shift
exec "$1" "$2" "$3" 127.0.0.1:0
"#;

fn fake_ssh() -> std::path::PathBuf {
    static PATH: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        // Beside the test binaries (nothing left in /tmp); written whole, then renamed.
        let dir = std::path::Path::new(env!("CARGO_BIN_EXE_bai-slurm"))
            .parent()
            .unwrap()
            .join("links");
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("fake-ssh");
        let tmp = dir.join(format!("fake-ssh.{}", std::process::id()));
        std::fs::write(&tmp, FAKE_SSH).unwrap();
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        p
    })
    .clone()
}

fn launch(meta: &JobMeta, script: &str, extra_env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_bai-slurm"));
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_bai-slurm"))
        .parent()
        .unwrap()
        .to_path_buf();
    let _ = std::fs::create_dir_all(bin.join("links"));
    let srun = bin.join("links/srun");
    // Several tests (and test binaries) may make it at once: only one link wins, all work.
    let _ = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_bai-slurm"), &srun);
    cmd.arg("__bai-launch")
        .arg(meta.encode())
        .env("BAI_SLURM_SSH", fake_ssh())
        // There is no sub1 here to wait for.
        .env("BAI_SLURM_SSH_WAIT", "0")
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.join("links").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env(meta::SCRIPT_ENV, meta::encode_script(script.as_bytes()));
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Each test its own job id: the launcher keeps the script under /tmp/bai-slurm-<id>.
fn meta_for(dir: &std::path::Path, spec: JobSpec, job_id: u32) -> JobMeta {
    JobMeta {
        v: 1,
        job_id,
        user: "alice".into(),
        uid: 1001,
        gid: 1001,
        cluster: "bai".into(),
        kill_wait: 1,
        spec: JobSpec {
            work_dir: dir.display().to_string(),
            name: "train".into(),
            ..spec
        },
        ..Default::default()
    }
}

#[test]
fn runs_the_script_writes_slurm_files_and_reports_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta_for(
        dir.path(),
        JobSpec {
            ntasks: Some(2),
            ..Default::default()
        },
        62000123,
    );
    let script = "#!/bin/bash\necho \"$SLURM_JOB_ID $SLURM_JOB_NAME $SLURM_JOB_NODELIST $SLURMD_NODENAME $SLURM_NTASKS $SLURM_TASKS_PER_NODE\"\nexit 3\n";
    let (rc, console) = launch(
        &m,
        script,
        &[
            ("BACKENDAI_CLUSTER_HOST", "main1"),
            ("BACKENDAI_CLUSTER_HOSTS", "sub1,main1"),
            // sbatch exports the job's name with the environment the session carries.
            ("SLURM_JOB_NAME", "train"),
        ],
    );
    assert_eq!(rc, 3);
    let out = std::fs::read_to_string(dir.path().join("slurm-62000123.out")).unwrap();
    assert_eq!(out, "62000123 train main1,sub1 main1 2 1(x2)\n");
    let r = meta::parse_result(&console).unwrap();
    assert_eq!(
        (r.kind, r.exit.code, r.exit.signal),
        (ResultKind::Exited, 3, 0)
    );
}

#[test]
fn a_time_limit_ends_the_job_with_slurms_signals() {
    let dir = tempfile::tempdir().unwrap();
    // One minute is Slurm's smallest limit; the script traps TERM to show it got it.
    let m = meta_for(
        dir.path(),
        JobSpec {
            time_limit: Some(TimeLimit::Minutes(1)),
            ..Default::default()
        },
        62000124,
    );
    let start = std::time::Instant::now();
    let (_, console) = launch(
        &m,
        "#!/bin/bash\ntrap 'echo term; exit 143' TERM\nwhile true; do sleep 0.2; done\n",
        &[],
    );
    assert!(start.elapsed().as_secs() >= 59);
    let r = meta::parse_result(&console).unwrap();
    assert_eq!(r.kind, ResultKind::TimedOut);
    let out = std::fs::read_to_string(dir.path().join("slurm-62000124.out")).unwrap();
    assert!(
        out.contains("DUE TO TIME LIMIT") && out.contains("term"),
        "{out}"
    );
}

#[test]
fn output_goes_to_the_session_log_when_the_directory_is_not_mounted() {
    let m = meta_for(
        std::path::Path::new("/nonexistent/submit/dir"),
        JobSpec::default(),
        62000125,
    );
    let (rc, console) = launch(&m, "#!/bin/sh\necho from-job\n", &[]);
    assert_eq!(rc, 0);
    assert!(
        console.contains("is not reachable in the container"),
        "{console}"
    );
    assert!(console.contains("from-job"), "{console}");
    assert_eq!(
        meta::parse_result(&console).unwrap().kind,
        ResultKind::Exited
    );
}

#[test]
fn srun_reaches_the_other_containers_step_servers() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta_for(
        dir.path(),
        JobSpec {
            nodes_min: Some(2),
            ntasks: Some(2),
            ..Default::default()
        },
        62000126,
    );
    let script = "#!/bin/bash\nsrun -l bash -c 'echo $SLURMD_NODENAME $SLURM_NODEID $SLURM_STEP_NODELIST'\n\
                  srun -N 2 -l bash -c 'exit $SLURM_NODEID'\necho rc=$?\n";
    let (rc, console) = launch(
        &m,
        script,
        &[
            ("BACKENDAI_CLUSTER_HOST", "main1"),
            ("BACKENDAI_CLUSTER_HOSTS", "sub1,main1"),
        ],
    );
    assert_eq!(rc, 0, "{console}");
    let out = std::fs::read_to_string(dir.path().join("slurm-62000126.out")).unwrap();
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "0: main1 0 main1,sub1",
            "1: sub1 1 main1,sub1",
            "rc=1",
            "srun: error: sub1: task 1: Exited with exit code 1",
        ],
        "{console}"
    );
}

#[test]
fn a_container_whose_step_server_cannot_start_fails_the_job_at_launch() {
    let dir = tempfile::tempdir().unwrap();
    let m = meta_for(
        dir.path(),
        JobSpec {
            nodes_min: Some(2),
            ..Default::default()
        },
        62000127,
    );
    let (rc, console) = launch(
        &m,
        "#!/bin/sh\necho ran\n",
        &[
            ("BACKENDAI_CLUSTER_HOST", "main1"),
            ("BACKENDAI_CLUSTER_HOSTS", "sub1,main1"),
            ("BAI_SLURM_SSH", "/bin/false"),
        ],
    );
    assert_eq!(rc, 1);
    assert!(
        console.contains(
            "slurmstepd-main1: error: cannot start the step server of sub1: it ended (exit status: 1)"
        ),
        "{console}"
    );
    assert_eq!(
        meta::parse_result(&console).unwrap().kind,
        ResultKind::LaunchFailed
    );
    assert!(!dir.path().join("slurm-62000127.out").exists());
}
