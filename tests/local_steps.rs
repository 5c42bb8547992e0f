//! srun inside jobs of the local backend: step environment, output labels, exit codes and
//! their messages, --kill-on-bad-exit, steps in sacct, and a caller without the job's
//! secret refused by the step server.

mod harness;

use harness::{Cluster, secs};

const SH: &str = "#!/bin/bash\n";

#[test]
fn steps_get_slurms_task_environment() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "env.sh",
        &format!("{SH}#SBATCH -n 2\nsrun -l -n 2 bash -c 'env | grep ^SLURM | sort'\n"),
    );
    let id = c.submit(&["env.sh"]);
    c.wait_done(&id.to_string(), secs(60));
    let out = c.read(&format!("slurm-{id}.out"));
    let golden = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/env-sbatch-srunstep-0.txt"
    ))
    .unwrap();
    // The same variables as a real Slurm step, except those that name a slurm.conf or a
    // controller we do not have.
    let not_ours = ["SLURM_CONF", "SLURM_WORKING_CLUSTER", "SLURM_JOB_ACCOUNT"];
    let keys = |text: &str, prefix: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
            .filter(|k| !not_ours.contains(&k.as_str()))
            .collect()
    };
    let mut want = keys(&golden, "");
    want.push("SLURM_LABELIO".to_string());
    want.sort();
    assert_eq!(keys(&out, "0: "), want, "{out}");
    let value = |rank: &str, k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{rank}: {k}=")).map(str::to_string))
            .unwrap_or_else(|| panic!("{k} missing for rank {rank}:\n{out}"))
    };
    assert_eq!(value("0", "SLURM_PROCID"), "0");
    assert_eq!(value("1", "SLURM_PROCID"), "1");
    assert_eq!(value("1", "SLURM_LOCALID"), "1");
    assert_eq!(value("0", "SLURM_GTIDS"), "0,1");
    assert_eq!(value("0", "SLURM_STEP_NUM_TASKS"), "2");
    assert_eq!(value("0", "SLURM_STEP_ID"), "0");
    assert_eq!(value("0", "SLURM_JOB_ID"), id.to_string());
    assert_eq!(value("0", "SLURM_STEP_NODELIST"), "node01");
}

#[test]
fn task_failures_are_reported_and_accounted() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "fail.sh",
        &format!(
            "{SH}#SBATCH -n 2\nsrun -n 1 bash -c 'exit 7'\necho rc=$?\nsrun -n 1 bash -c 'kill -9 $$'\necho rc=$?\n\
             srun -n 2 --kill-on-bad-exit bash -c 'if [ $SLURM_PROCID = 1 ]; then exit 5; fi; sleep 30'\necho rc=$?\nsrun nosuchprogram\necho rc=$?\n"
        ),
    );
    let id = c.submit(&["fail.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(60));
    let out = c.read(&format!("slurm-{id}.out"));
    assert!(
        out.contains("srun: error: node01: task 0: Exited with exit code 7\nrc=7\n"),
        "{out}"
    );
    assert!(
        out.contains("srun: error: node01: task 0: Killed\nrc=137\n"),
        "{out}"
    );
    // --kill-on-bad-exit: task 1's failure ends task 0 long before its 30 s sleep.
    assert!(
        out.contains("srun: error: node01: task 1: Exited with exit code 5"),
        "{out}"
    );
    assert!(out.contains("srun: error: node01: task 0: Killed"), "{out}");
    assert!(
        out.contains("slurmstepd: error: execve(): nosuchprogram: No such file or directory"),
        "{out}"
    );
    let states: Vec<(String, String, String)> = rows
        .into_iter()
        .filter(|r| r.0.contains(&format!("{id}.")))
        .collect();
    assert_eq!(
        states[1],
        (format!("{id}.0"), "FAILED".into(), "7:0".into()),
        "{states:?}"
    );
    assert_eq!(
        states[2],
        (format!("{id}.1"), "FAILED".into(), "0:9".into()),
        "{states:?}"
    );
}

#[test]
fn output_patterns_and_unbuffered_streams() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("io.sh", &format!("{SH}#SBATCH -n 2\nsrun -n 2 -o 'task-%j-%t.out' bash -c 'echo rank $SLURM_PROCID'\nsrun -u -n 1 echo unbuffered\n"));
    let id = c.submit(&["io.sh"]);
    c.wait_done(&id.to_string(), secs(60));
    assert_eq!(c.read(&format!("task-{id}-0.out")), "rank 0\n");
    assert_eq!(c.read(&format!("task-{id}-1.out")), "rank 1\n");
    assert_eq!(c.read(&format!("slurm-{id}.out")), "unbuffered\n");
}

#[test]
fn a_caller_without_the_job_secret_is_refused() {
    let c = Cluster::new(2, 4096, 2);
    // The job prints where its step server listens, then tries with a wrong secret.
    c.write_script(
        "probe.sh",
        &format!("{SH}echo \"$BAI_SLURM_STEPD\" > stepd.txt\nBAI_SLURM_JOB_SECRET=wrong srun -n 1 true\necho rc=$?\nsrun -n 1 echo fine\n"),
    );
    let id = c.submit(&["probe.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(60));
    let out = c.read(&format!("slurm-{id}.out"));
    eprintln!("{rows:?} {out:?} {}", c.runner_log());
    assert!(out.contains("rc=1") && out.ends_with("fine\n"), "{out}");
    let log = c.runner_log();
    assert!(
        log.contains("refused: it does not know the job's secret"),
        "{log}"
    );
}
