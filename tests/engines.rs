//! Real workflow engines driving bai-slurm's commands on the local backend, through the
//! command links in a private bin directory (as tests/harness sets up). Each engine runs a
//! Python driver (tests/engines/*.py) with the pinned engines of
//! tests/engines/requirements.txt, installed by scripts/engines-venv.sh into
//! target/engines-venv (or $BAI_SLURM_ENGINES_VENV). A test fails unless its job really
//! ran: the engine's work must report the job's own SLURM_JOB_ID, and sacct must know
//! the job and how it ended.
//!
//! Without the venv these tests fail (never skip); scripts/test.sh creates it first.

mod harness;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn venv() -> PathBuf {
    let dir = std::env::var_os("BAI_SLURM_ENGINES_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/engines-venv"));
    let dir = if dir.is_relative() {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir)
    } else {
        dir
    };
    if dir.join("bin/python").exists() {
        return dir;
    }
    panic!(
        "the engines venv {} is missing; run scripts/engines-venv.sh (scripts/test.sh does)",
        dir.display()
    );
}

/// What a driver printed last: one JSON object.
struct Outcome {
    json: serde_json::Value,
    seconds: f64,
}

/// Runs `tests/engines/<driver>` with the venv's Python, the cluster's environment and the
/// command links first on PATH; fails after `limit`.
fn run_driver(
    c: &harness::Cluster,
    venv: &std::path::Path,
    driver: &str,
    limit: Duration,
) -> Outcome {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines")
        .join(driver);
    let mut env = c.env.clone();
    let path = format!(
        "{}:{}:{}",
        c.bin.display(),
        venv.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    env.insert("PATH".into(), path);
    let started = Instant::now();
    let mut child = Command::new(venv.join("bin/python"))
        .arg(&script)
        .arg(&c.work)
        .env_clear()
        .envs(&env)
        .current_dir(&c.work)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the driver");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{driver}: no result after {limit:?}\nstderr:\n{}\nrunner log:\n{}",
                err_reader.join().unwrap(),
                c.runner_log()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let seconds = started.elapsed().as_secs_f64();
    let stdout = reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    assert!(
        status.success(),
        "{driver} failed ({status}):\nstdout:\n{stdout}\nstderr:\n{stderr}\nrunner log:\n{}",
        c.runner_log()
    );
    let last = stdout.lines().last().unwrap_or_default();
    let json = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("{driver}: last line is not JSON ({e}): {stdout}\n{stderr}"));
    Outcome { json, seconds }
}

/// `sacct -X -P` State of a job, waiting up to `limit` for it to end.
fn final_state(c: &harness::Cluster, job: &str, limit: Duration) -> String {
    let started = Instant::now();
    loop {
        if let Some((_, state, _)) = c.job_row(job)
            && !matches!(state.as_str(), "PENDING" | "RUNNING" | "COMPLETING")
        {
            return state;
        }
        assert!(
            started.elapsed() < limit,
            "job {job} did not end: {:?}",
            c.job_row(job)
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn report(engine: &str, seconds: f64, detail: &str) {
    println!("engine {engine}: passed in {seconds:.1} s ({detail})");
}

/// dask-jobqueue: a SLURMCluster with one worker job computes a sum; closing the cluster
/// cancels the job (scancel), which sacct then shows as CANCELLED.
#[test]
fn dask_jobqueue_sum_and_cancel() {
    let venv = venv();
    let c = harness::Cluster::new(4, 8000, 2);
    let o = run_driver(&c, &venv, "dask_sum.py", Duration::from_secs(240));
    let jobs: Vec<String> = serde_json::from_value(o.json["job_ids"].clone()).unwrap();
    assert_eq!(jobs.len(), 1, "{}", o.json);
    let job = &jobs[0];
    assert_eq!(o.json["sum"], 500500, "{}", o.json);
    // The worker that computed ran inside the Slurm job, started by its launcher.
    assert_eq!(o.json["worker_slurm_job_id"].as_str(), Some(job.as_str()));
    assert_ne!(o.json["worker_pid"], o.json["driver_pid"]);
    let state = final_state(&c, job, Duration::from_secs(60));
    assert!(state.starts_with("CANCELLED"), "job {job}: {state}");
    // dask-jobqueue's worker log, written where its #SBATCH -e said (%J expanded).
    let log = c.work.join(format!("dask-logs/dask-worker-{job}.err"));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.contains("Registered to"), "{}: {text}", log.display());
    report(
        "dask-jobqueue 0.9.0",
        o.seconds,
        &format!("job {job}: sum 500500 by a worker in the job; sacct: {state}"),
    );
}

/// Parsl: an HTEX block submitted by SlurmProvider (single-node launcher) runs two
/// dependent apps; cleanup cancels the block.
#[test]
fn parsl_two_apps_in_one_block() {
    let venv = venv();
    let c = harness::Cluster::new(4, 8000, 2);
    let o = run_driver(&c, &venv, "parsl_sum.py", Duration::from_secs(240));
    let jobs: Vec<String> = serde_json::from_value(o.json["job_ids"].clone()).unwrap();
    assert_eq!(jobs.len(), 1, "{}", o.json);
    let job = &jobs[0];
    assert_eq!(o.json["result"], 1001000, "{}", o.json);
    let ran_in: Vec<String> = serde_json::from_value(o.json["app_slurm_job_ids"].clone()).unwrap();
    assert_eq!(ran_in, [job.clone(), job.clone()], "{}", o.json);
    let state = final_state(&c, job, Duration::from_secs(60));
    assert!(
        state.starts_with("CANCELLED") || state == "COMPLETED",
        "job {job}: {state}"
    );
    report(
        "parsl 2026.10.26",
        o.seconds,
        &format!("job {job}: two apps ran in the job; sacct: {state}"),
    );
}

/// Snakemake 9 with snakemake-executor-plugin-slurm: a workflow of two rules, the second
/// consuming the first's output, runs as two batch jobs (`sbatch --parsable --job-name
/// <run uuid> ... --wrap="python -m snakemake ... --executor slurm-jobstep"`, each rule then
/// under `srun` in its job), which the plugin follows with `sacct -X --parsable2 --clusters
/// all ... --name <run uuid>` until both are COMPLETED.
#[test]
fn snakemake_two_rules_as_two_jobs() {
    let venv = venv();
    let c = harness::Cluster::new(4, 8000, 2);
    let o = run_driver(&c, &venv, "snakemake_squares.py", Duration::from_secs(240));
    let j = &o.json;
    let run_uuid = j["run_uuid"].as_str().unwrap_or_default();
    assert!(!run_uuid.is_empty(), "{j}");
    let submitted: Vec<String> = serde_json::from_value(j["submitted_job_ids"].clone()).unwrap();
    // Each rule recorded the job and the step it ran in: step 0, the jobstep's srun.
    let first = j["squares_job"].as_str().unwrap_or_default().to_string();
    let second = j["total_job"].as_str().unwrap_or_default().to_string();
    assert_eq!(submitted, [first.clone(), second.clone()], "{j}");
    assert_ne!(first, second, "{j}");
    assert_eq!(j["squares_step"], "0", "{j}");
    assert_eq!(j["total_step"], "0", "{j}");
    // The second rule computed from the first's output: its squares and its job id.
    let squares: Vec<i64> = serde_json::from_value(j["squares"].clone()).unwrap();
    assert_eq!(
        squares,
        (1..=10).map(|i| i * i).collect::<Vec<i64>>(),
        "{j}"
    );
    assert_eq!(j["total_from_job"].as_str(), Some(first.as_str()), "{j}");
    assert_eq!(j["total_count"], 10, "{j}");
    assert_eq!(j["total_sum"], squares.iter().sum::<i64>(), "{j}");
    // Both through sbatch, as the plugin builds the call.
    let calls: Vec<String> = serde_json::from_value(j["sbatch_calls"].clone()).unwrap();
    assert_eq!(calls.len(), 2, "{j}");
    for (call, rule) in calls.iter().zip(["squares", "total"]) {
        assert!(
            call.starts_with(&format!("sbatch --parsable --job-name {run_uuid} "))
                && call.contains(&format!("--comment rule_{rule} "))
                && call.contains(" --wrap=\"")
                && call.contains("--executor slurm-jobstep"),
            "{call}"
        );
    }
    // The plugin's status checks all went through sacct, and none failed.
    let checks = j["status_checks"].as_array().cloned().unwrap_or_default();
    assert!(checks.len() >= 2, "{j}");
    for check in &checks {
        assert_eq!(check["command"], "sacct", "{j}");
        assert_eq!(check["failed_attempts"], 0, "{j}");
    }
    // sacct: the run's two jobs by name, each with its batch step and the rule's srun step.
    let r = c
        .run(
            "sacct",
            &[
                "-X",
                "-P",
                "-n",
                "-o",
                "JobID,JobName,State,ExitCode,Comment",
                "--name",
                run_uuid,
                "-E",
                "now+60",
            ],
        )
        .ok();
    assert_eq!(
        r.stdout,
        format!(
            "{first}|{run_uuid}|COMPLETED|0:0|rule_squares\n\
             {second}|{run_uuid}|COMPLETED|0:0|rule_total\n"
        )
    );
    for job in [&first, &second] {
        let rows = c.wait_done(job, Duration::from_secs(30));
        for step in [format!("{job}.batch"), format!("{job}.0")] {
            assert!(
                rows.contains(&(step.clone(), "COMPLETED".into(), "0:0".into())),
                "{step}: {rows:?}"
            );
        }
    }
    // The second job started only once the first had ended.
    let r = c
        .run(
            "sacct",
            &[
                "-X",
                "-P",
                "-n",
                "-o",
                "Start,End",
                "-j",
                &format!("{first},{second}"),
            ],
        )
        .ok();
    let times: Vec<Vec<&str>> = r.stdout.lines().map(|l| l.split('|').collect()).collect();
    assert!(
        times.len() == 2 && times[1][0] >= times[0][1],
        "{}",
        r.stdout
    );
    report(
        "snakemake 9.27.1 + snakemake-executor-plugin-slurm 2.8.0",
        o.seconds,
        &format!(
            "jobs {first} (rule squares) and {second} (rule total: sum {} of {first}'s output); sacct: COMPLETED, COMPLETED",
            j["total_sum"]
        ),
    );
}
