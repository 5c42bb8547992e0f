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
    // A task that died of SIGKILL or SIGTERM: srun says it forced the step's end, as a
    // real srun does (tests/golden/multinode/srun_N2_exits.stderr).
    assert!(
        out.contains(&format!(
            "srun: error: node01: task 0: Killed\nsrun: Force Terminated StepId={id}.1\nrc=137\n"
        )),
        "{out}"
    );
    // --kill-on-bad-exit: task 1's failure cancels the step (SIGTERM, as slurmstepd does),
    // which ends task 0 long before its 30 s sleep.
    assert!(
        out.contains(&format!(
            "srun: error: node01: task 1: Exited with exit code 5\n\
             srun: launch/slurm: _step_signal: Terminating StepId={id}.2\n\
             slurmstepd-node01: error: *** STEP {id}.2 ON node01 CANCELLED AT "
        )),
        "{out}"
    );
    assert!(
        out.contains("srun: error: node01: task 0: Terminated\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "slurmstepd-node01: error: execve(): nosuchprogram: No such file or directory"
        ),
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
        (format!("{id}.1"), "CANCELLED".into(), "0:9".into()),
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
        &format!("{SH}for f in /proc/$PPID/fd/*; do case \"$(readlink $f)\" in /memfd:bai-slurm-job*) cat $f;; esac; done | sed -E 's/.*\"nodes\":\\[\\[(.*)\\]\\],\"secret\".*/\\1/; s/\\],\\[/,/g; s/\"([^\"]*)\",\"([^\"]*)\"/\\1=\\2/g' > stepd.txt\nBAI_SLURM_JOB_SECRET=wrong srun -n 1 true\necho rc=$?\nsrun -n 1 echo fine\n"),
    );
    let id = c.submit(&["probe.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(60));
    assert_eq!(rows[0].1, "COMPLETED", "{rows:?}");
    let out = c.read(&format!("slurm-{id}.out"));
    assert!(out.contains("rc=1") && out.ends_with("fine\n"), "{out}");
    let log = c.runner_log();
    assert!(
        log.contains("refused: it does not know the job's secret"),
        "{log}"
    );
}

fn golden_keys(name: &str, prefix: &str, not_ours: &[&str]) -> Vec<String> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/golden/{name}.stdout",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    keys_of(&text, prefix, not_ours)
}

fn keys_of(text: &str, prefix: &str, not_ours: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_string()))
        .filter(|k| k.starts_with("SLURM") && !not_ours.contains(&k.as_str()))
        .collect();
    k.sort();
    k
}

/// Variables naming a slurm.conf, a controller or an accounting association we do not have.
const NOT_OURS: [&str; 3] = ["SLURM_CONF", "SLURM_WORKING_CLUSTER", "SLURM_JOB_ACCOUNT"];

#[test]
fn srun_outside_a_job_makes_its_own_allocation() {
    let c = Cluster::new(2, 4096, 2);
    let r = c.run("srun", &["-n", "2", "hostname"]).ok();
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    assert_eq!(r.stdout, format!("{host}\n{host}\n"));
    assert_eq!(r.stderr, "");
    let r = c.run("srun", &["-n", "1", "bash", "-c", "exit 3"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (3, "srun: error: node01: task 0: Exited with exit code 3\n")
    );
    let r = c
        .run(
            "srun",
            &["-l", "-n", "2", "bash", "-c", "env | grep ^SLURM | sort"],
        )
        .ok();
    let rank0: String = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("0: "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        keys_of(&rank0, "0: ", &NOT_OURS),
        golden_keys("srun_l_n2_env", "0: ", &NOT_OURS),
        "{rank0}"
    );
    let rows = c.acct("1");
    assert_eq!(rows[0], ("1".into(), "COMPLETED".into(), "0:0".into()));
    assert_eq!(rows[1], ("1.0".into(), "COMPLETED".into(), "0:0".into()));
    assert_eq!(c.acct("2")[0], ("2".into(), "FAILED".into(), "3:0".into()));
    // Slurm's own refusals.
    let r = c.run("srun", &["-p", "nosuch", "hostname"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "srun: error: invalid partition specified: nosuch\nsrun: error: Unable to allocate resources: Invalid partition name specified\n"
        )
    );
    let r = c.run("srun", &["--bogus", "hostname"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            255,
            "srun: unrecognized option '--bogus'\nTry \"srun --help\" for more information\n"
        )
    );
    // A --multi-prog file is read for as many bytes as its size says (`_load_multi`): a
    // device reads as empty, and no job is asked for.
    let r = c.run("srun", &["-n", "1", "--multi-prog", "/dev/zero"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "srun: error: Configuration file /dev/zero invalid, no record for task id 0\n"
        )
    );
}

#[test]
fn srun_says_when_it_had_to_wait() {
    let c = Cluster::new(1, 4096, 2);
    c.write_script("busy.sh", &format!("{SH}sleep 3\n"));
    let busy = c.submit(&["busy.sh"]);
    c.wait_state(&busy.to_string(), "RUNNING", secs(30));
    let r = c.run("srun", &["true"]).ok();
    let id = busy + 1;
    assert_eq!(
        r.stderr,
        format!(
            "srun: job {id} queued and waiting for resources\nsrun: job {id} has been allocated resources\n"
        )
    );
}

/// Without a command salloc runs the user's login shell from the passwd database, not
/// $SHELL (salloc.c `_get_shell`, both releases).
#[test]
fn salloc_without_a_command_runs_the_login_shell() {
    let mut c = Cluster::new(2, 4096, 2);
    c.env.insert("SHELL".into(), "/bin/false".into());
    let r = c.run_with_stdin("salloc", &["-n", "1"], b"echo \"$0\"; exit 3\n");
    let me = nix::unistd::User::from_uid(nix::unistd::getuid())
        .unwrap()
        .unwrap();
    assert_eq!(r.code, 3, "{r:?}");
    assert_eq!(r.stdout, format!("{}\n", me.shell.display()), "{r:?}");
}

#[test]
fn salloc_runs_a_command_in_an_allocation() {
    let c = Cluster::new(2, 4096, 2);
    let r = c.run(
        "salloc",
        &[
            "-n",
            "1",
            "bash",
            "-c",
            "env | grep ^SLURM | sort; srun hostname > step.out; exit 4",
        ],
    );
    assert_eq!(r.code, 4);
    assert_eq!(
        r.stderr,
        "salloc: Granted job allocation 1\nsalloc: Relinquishing job allocation 1\n"
    );
    let want = golden_keys("salloc_n1_env", "", &NOT_OURS);
    assert_eq!(keys_of(&r.stdout, "", &NOT_OURS), want, "{}", r.stdout);
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    assert_eq!(c.read("step.out"), format!("{host}\n"));
    let rows = c.acct("1");
    assert_eq!(rows[0], ("1".into(), "FAILED".into(), "4:0".into()));
    assert_eq!(rows[1], ("1.0".into(), "COMPLETED".into(), "0:0".into()));
}
