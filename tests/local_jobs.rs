//! Real jobs on the embedded local backend, driven through the installed command links:
//! output files, exit codes, time limits, cancellation, arrays, dependencies, holds,
//! concurrent submission and a queue runner killed mid-run.

mod harness;

use harness::{Cluster, secs, uid};
use std::time::{Duration, Instant};

const SH: &str = "#!/bin/bash\n";

#[test]
fn a_job_writes_its_output_file_and_is_accounted() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "hello.sh",
        &format!(
            "{SH}#SBATCH -J hello\necho \"out $SLURM_JOB_ID $SLURM_JOB_NAME\"\necho err >&2\n"
        ),
    );
    let r = c.run("sbatch", &["hello.sh"]).ok();
    assert_eq!(r.stdout, "Submitted batch job 1\n");
    assert_eq!(r.stderr, "");
    let rows = c.wait_done("1", secs(30));
    assert_eq!(
        rows,
        vec![
            ("1".into(), "COMPLETED".into(), "0:0".into()),
            ("1.batch".into(), "COMPLETED".into(), "0:0".into())
        ]
    );
    // stdout and stderr share slurm-%j.out by default.
    assert_eq!(c.read("slurm-1.out"), "out 1 hello\nerr\n");
}

#[test]
fn exit_codes_and_signals_are_recorded() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("ok.sh", &format!("{SH}true\n"));
    c.write_script("three.sh", &format!("{SH}exit 3\n"));
    c.write_script("term.sh", &format!("{SH}kill -TERM $$\nsleep 5\n"));
    let ok = c.submit(&["ok.sh"]);
    let three = c.submit(&["three.sh"]);
    let term = c.submit(&["term.sh"]);
    let get = |id: u32| c.wait_done(&id.to_string(), secs(30));
    assert_eq!(
        get(ok)[0],
        (ok.to_string(), "COMPLETED".into(), "0:0".into())
    );
    assert_eq!(
        get(three)[0],
        (three.to_string(), "FAILED".into(), "3:0".into())
    );
    assert_eq!(
        get(three)[1],
        (format!("{three}.batch"), "FAILED".into(), "3:0".into())
    );
    assert_eq!(
        get(term)[0],
        (term.to_string(), "FAILED".into(), "0:15".into())
    );
    assert_eq!(
        get(term)[1],
        (format!("{term}.batch"), "FAILED".into(), "0:15".into())
    );
}

#[test]
fn output_patterns_expand_like_slurmstepd() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("pat.sh", &format!("{SH}echo out\necho err >&2\n"));
    let user = harness::whoami();
    std::fs::create_dir_all(c.path("out")).unwrap();
    let id = c.submit(&[
        "-J",
        "pj",
        "-o",
        "out/%x-%j-%u-%N-%n-%%.txt",
        "-e",
        "%j.%4a.err",
        "pat.sh",
    ]);
    c.wait_done(&id.to_string(), secs(30));
    // %N is the node's host name, as slurmstepd's (the reference's node01 runs on a host
    // of another name, and %N gives the host's: tests/scenarios/step_output).
    let host = bai_slurm::sys::short_hostname();
    assert_eq!(
        c.read(&format!("out/pj-{id}-{user}-{host}-0-%.txt")),
        "out\n"
    );
    // `%a` of a job that is not an array task is NO_VAL, as in Slurm.
    assert_eq!(c.read(&format!("{id}.4294967294.err")), "err\n");
    let arr = c.submit(&["--array=7", "-o", "a-%A_%3a.out", "pat.sh"]);
    c.wait_done(&arr.to_string(), secs(30));
    assert_eq!(c.read(&format!("a-{arr}_007.out")), "out\nerr\n");
}

#[test]
fn an_output_file_that_cannot_be_opened_fails_the_job() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("pat.sh", &format!("{SH}echo out\n"));
    let id = c.submit(&["-o", "missing-dir/%j.out", "pat.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(30));
    // As slurmd records a batch job it could not set up (recorded: stepd_messages).
    assert_eq!(rows[0], (id.to_string(), "FAILED".into(), "0:53".into()));
}

/// A lowered limit moves the end, and `--signal`'s warning with it (as slurmctld's end
/// time does: seen on 22.05, the warning came 22 s after the start of a 5-minute job
/// lowered to 1 minute with `@50`).
#[test]
fn a_lowered_time_limit_brings_the_warning_signal_forward() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "warned.sh",
        &format!("{SH}trap 'echo got USR1' USR1\nsleep 300 & wait\nsleep 300 & wait\n"),
    );
    let id = c
        .submit(&["-t", "5", "--signal=B:USR1@50", "warned.sh"])
        .to_string();
    c.wait_state(&id, "RUNNING", secs(30));
    c.run(
        "scontrol",
        &["update", &format!("JobId={id}"), "TimeLimit=1"],
    )
    .ok();
    let rows = c.wait_done(&id, secs(120));
    assert_eq!(rows[0], (id.clone(), "TIMEOUT".into(), "0:0".into()));
    let out = c.read(&format!("slurm-{id}.out"));
    assert!(out.starts_with("got USR1\n"), "{out}");
}

#[test]
fn a_time_limit_ends_the_job_as_timeout() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("long.sh", &format!("{SH}echo started\nsleep 300\n"));
    let started = Instant::now();
    let id = c.submit(&["--time=1", "long.sh"]);
    let rows = c.wait_done(&id.to_string(), secs(120));
    assert!(
        started.elapsed() >= Duration::from_secs(59),
        "ended too early: {:?}",
        started.elapsed()
    );
    assert_eq!(rows[0], (id.to_string(), "TIMEOUT".into(), "0:0".into()));
    assert_eq!(
        rows[1],
        (format!("{id}.batch"), "CANCELLED".into(), "0:15".into())
    );
    let out = c.read(&format!("slurm-{id}.out"));
    assert!(out.starts_with("started\n"), "{out}");
    assert!(
        out.contains(&format!("*** JOB {id} ON node01 CANCELLED AT"))
            && out.contains("DUE TO TIME LIMIT ***"),
        "{out}"
    );
}

#[test]
fn cancelling_running_and_pending_jobs() {
    let c = Cluster::new(1, 4096, 2);
    c.write_script("sleep.sh", &format!("{SH}echo up\nsleep 300\n"));
    let running = c.submit(&["sleep.sh"]);
    let pending = c.submit(&["sleep.sh"]);
    c.wait_state(&running.to_string(), "RUNNING", secs(30));
    // Wait until the script itself is running so the signal reaches it.
    let start = Instant::now();
    while !std::fs::read_to_string(c.path(&format!("slurm-{running}.out")))
        .unwrap_or_default()
        .contains("up")
    {
        assert!(start.elapsed() < secs(20));
        std::thread::sleep(Duration::from_millis(50));
    }
    let r = c.run("scancel", &[&pending.to_string()]);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let r = c.run("scancel", &[&running.to_string()]);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let by = format!("CANCELLED by {}", uid());
    let rows = c.wait_done(&running.to_string(), secs(30));
    assert_eq!(rows[0], (running.to_string(), by.clone(), "0:0".into()));
    assert_eq!(
        rows[1],
        (
            format!("{running}.batch"),
            "CANCELLED".into(),
            "0:15".into()
        )
    );
    let rows = c.wait_done(&pending.to_string(), secs(30));
    assert_eq!(rows, vec![(pending.to_string(), by, "0:0".into())]);
    // A cancelled pending job never ran: no output file.
    assert!(!c.path(&format!("slurm-{pending}.out")).exists());
    // Cancelling again, or an unknown id, says nothing and succeeds (Slurm 22.05).
    for id in [running.to_string(), "999999".to_string()] {
        let r = c.run("scancel", &[&id]);
        assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    }
}

/// Each task records when it ran; with `%1` no two intervals may overlap.
#[test]
fn an_array_throttled_to_one_never_runs_two_tasks_at_once() {
    let c = Cluster::new(4, 4096, 2);
    c.write_script(
        "task.sh",
        &format!("{SH}echo \"$SLURM_ARRAY_TASK_ID start $(date +%s%N)\" >> spans\nsleep 0.6\necho \"$SLURM_ARRAY_TASK_ID end $(date +%s%N)\" >> spans\n"),
    );
    let id = c.submit(&["--array=1-4%1", "-o", "task-%A_%a.out", "task.sh"]);
    c.wait_done(&id.to_string(), secs(60));
    let spans = c.read("spans");
    let mut events: Vec<(u128, i32)> = spans
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[2].parse().unwrap(), if f[1] == "start" { 1 } else { -1 })
        })
        .collect();
    events.sort();
    let mut running = 0;
    for (_, d) in &events {
        running += d;
        assert!(running <= 1, "two tasks overlapped: {spans}");
    }
    assert_eq!(events.len(), 8, "{spans}");
    let rows = c.acct(&id.to_string());
    let tasks: Vec<&str> = rows
        .iter()
        .map(|r| r.0.as_str())
        .filter(|r| !r.contains('.'))
        .collect();
    assert_eq!(
        tasks,
        vec![
            format!("{id}_1"),
            format!("{id}_2"),
            format!("{id}_3"),
            format!("{id}_4")
        ]
    );
    assert!(rows.iter().all(|r| r.1 == "COMPLETED"), "{rows:?}");
}

fn start_end(c: &Cluster, id: u32) -> (String, String) {
    let r = c
        .run(
            "sacct",
            &["-X", "-P", "-n", "-o", "Start,End", "-j", &id.to_string()],
        )
        .ok();
    let line = r.stdout.lines().next().unwrap_or_default().to_string();
    let (s, e) = line.split_once('|').unwrap();
    (s.to_string(), e.to_string())
}

#[test]
fn dependencies_order_jobs() {
    let c = Cluster::new(4, 4096, 2);
    c.write_script("ok.sh", &format!("{SH}sleep 1\n"));
    c.write_script("bad.sh", &format!("{SH}sleep 1\nexit 1\n"));
    c.write_script("mark.sh", &format!("{SH}echo ran\n"));
    let ok = c.submit(&["ok.sh"]);
    let bad = c.submit(&["bad.sh"]);
    let after_ok = c.submit(&[&format!("--dependency=afterok:{ok}"), "mark.sh"]);
    let after_notok = c.submit(&[&format!("--dependency=afternotok:{bad}"), "mark.sh"]);
    let after_any = c.submit(&["-d", &format!("afterany:{ok}:{bad}"), "mark.sh"]);
    let never = c.submit(&[&format!("--dependency=afterok:{bad}"), "mark.sh"]);
    let either = c.submit(&[
        &format!("--dependency=afterok:{bad}?afterok:{ok}"),
        "mark.sh",
    ]);
    for id in [after_ok, after_notok, after_any, either] {
        c.wait_done(&id.to_string(), secs(60));
    }
    let (_, ok_end) = start_end(&c, ok);
    let (_, bad_end) = start_end(&c, bad);
    assert!(start_end(&c, after_ok).0 >= ok_end);
    assert!(start_end(&c, after_notok).0 >= bad_end);
    assert!(start_end(&c, after_any).0 >= ok_end.clone().max(bad_end));
    // afterok on a failed job can never be satisfied: it stays pending with that reason.
    let r = c
        .run(
            "squeue",
            &["-h", "-j", &never.to_string(), "-o", "%t %r %E"],
        )
        .ok();
    assert_eq!(
        r.stdout,
        format!("PD DependencyNeverSatisfied afterok:{bad}(failed)\n")
    );
}

#[test]
fn singleton_runs_one_job_of_a_name_at_a_time() {
    let c = Cluster::new(4, 4096, 2);
    c.write_script(
        "s.sh",
        &format!("{SH}echo \"$SLURM_JOB_ID start $(date +%s%N)\" >> spans\nsleep 0.8\necho \"$SLURM_JOB_ID end $(date +%s%N)\" >> spans\n"),
    );
    let ids: Vec<u32> = (0..3)
        .map(|_| c.submit(&["-J", "single", "--dependency=singleton", "s.sh"]))
        .collect();
    for id in &ids {
        c.wait_done(&id.to_string(), secs(60));
    }
    let spans = c.read("spans");
    let order: Vec<String> = spans
        .lines()
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    let expected: Vec<String> = ids
        .iter()
        .flat_map(|id| [format!("{id} start"), format!("{id} end")])
        .collect();
    assert_eq!(order, expected, "{spans}");
}

#[test]
fn a_held_job_runs_only_after_release() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("mark.sh", &format!("{SH}echo ran\n"));
    let id = c.submit(&["-H", "mark.sh"]);
    std::thread::sleep(Duration::from_secs(2));
    let r = c
        .run("squeue", &["-h", "-j", &id.to_string(), "-o", "%t %r %p"])
        .ok();
    assert_eq!(r.stdout, "PD JobHeldUser 0.00000000000000\n");
    assert!(!c.path(&format!("slurm-{id}.out")).exists());
    c.run("scontrol", &["release", &id.to_string()]).ok();
    c.wait_done(&id.to_string(), secs(30));
    assert_eq!(c.read(&format!("slurm-{id}.out")), "ran\n");
    // Holding again after the fact is refused as Slurm 22.05.8 refuses it (checked live:
    // `_update_job` refuses a finished job first), and scontrol adds its
    // `slurm_perror("slurm_suspend error")` line.
    let r = c.run("scontrol", &["hold", &id.to_string()]);
    assert_eq!(
        (r.code, r.stderr),
        (
            1,
            format!(
                "Job has already finished for job {id}\n\
                 slurm_suspend error: Job has already finished\n"
            )
        )
    );
}

#[test]
fn twenty_concurrent_submissions_get_distinct_ids_and_all_complete() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("q.sh", &format!("{SH}echo $SLURM_JOB_ID\n"));
    let children: Vec<_> = (0..20)
        .map(|_| {
            c.cmd("sbatch")
                .args(["--parsable", "q.sh"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids: Vec<u32> = children
        .into_iter()
        .map(|ch| {
            let o = ch.wait_with_output().unwrap();
            assert!(o.status.success(), "{o:?}");
            String::from_utf8(o.stdout).unwrap().trim().parse().unwrap()
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=20).collect::<Vec<u32>>());
    for id in ids {
        let rows = c.wait_done(&id.to_string(), secs(90));
        assert_eq!(rows[0].1, "COMPLETED");
        assert_eq!(c.read(&format!("slurm-{id}.out")), format!("{id}\n"));
    }
}

#[test]
fn killing_the_queue_runner_loses_no_job() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("w.sh", &format!("{SH}sleep 2\necho done\n"));
    let ids: Vec<u32> = (0..6).map(|_| c.submit(&["w.sh"])).collect();
    c.wait_state(&ids[0].to_string(), "RUNNING", secs(30));
    let killed = kill_runner(&c);
    assert!(killed > 0, "no runner was running");
    // Any command brings a new runner; every job completes and is accounted.
    for id in &ids {
        let rows = c.wait_done(&id.to_string(), secs(90));
        assert_eq!(rows[0].1, "COMPLETED", "job {id}: {rows:?}");
        assert_eq!(c.read(&format!("slurm-{id}.out")), "done\n");
    }
}

fn kill_runner(c: &Cluster) -> usize {
    let pids = runner_pids(c);
    for &pid in &pids {
        // SAFETY: plain kill(2) of the runner this test's commands started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    pids.len()
}

/// The queue runners of this test's state directory.
fn runner_pids(c: &Cluster) -> Vec<i32> {
    let mut pids = Vec::new();
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = p.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(
            &std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default(),
        )
        .into_owned();
        if cmdline.contains("__local-runner") && cmdline.contains(&*c.state.to_string_lossy()) {
            pids.push(pid);
        }
    }
    pids
}

/// A job that ignores SIGTERM is killed with SIGKILL once KillWait has passed.
#[test]
fn a_job_ignoring_sigterm_is_killed_after_kill_wait() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "stubborn.sh",
        &format!("{SH}trap 'echo got TERM' TERM\necho up\nwhile true; do sleep 0.1; done\n"),
    );
    let id = c.submit(&["stubborn.sh"]);
    c.wait_state(&id.to_string(), "RUNNING", secs(30));
    let start = Instant::now();
    while !std::fs::read_to_string(c.path(&format!("slurm-{id}.out")))
        .unwrap_or_default()
        .contains("up")
    {
        assert!(start.elapsed() < secs(20));
        std::thread::sleep(Duration::from_millis(50));
    }
    let cancelled = Instant::now();
    c.run("scancel", &[&id.to_string()]).ok();
    let rows = c.wait_done(&id.to_string(), secs(30));
    assert!(
        cancelled.elapsed() >= Duration::from_secs(2),
        "killed before KillWait"
    );
    assert_eq!(
        rows[1],
        (format!("{id}.batch"), "CANCELLED".into(), "0:9".into())
    );
    assert!(c.read(&format!("slurm-{id}.out")).contains("got TERM"));
}

/// Upgrading bai-slurm under a running job: the queue runner becomes the new program (it
/// re-executes itself when its file is replaced) and must keep the launchers it started
/// before as launchers. It used to take them for orphans and kill them: the job ended
/// NODE_FAIL at every package upgrade.
#[test]
fn a_running_job_outlives_an_upgrade_of_bai_slurm() {
    use std::os::unix::fs::symlink;
    let c = Cluster::new(2, 4096, 2);
    // The commands run a copy of the program that the test can replace.
    let own = c.path("own");
    std::fs::create_dir_all(&own).unwrap();
    let program = own.join("bai-slurm");
    harness::copy_program(&program);
    for link in std::fs::read_dir(&c.bin).unwrap() {
        let link = link.unwrap().path();
        std::fs::remove_file(&link).unwrap();
        symlink(&program, &link).unwrap();
    }
    let job = c.submit(&["--wrap", "sleep 60"]).to_string();
    c.wait_state(&job, "RUNNING", secs(30));
    let runner_exe = || {
        let pid = *runner_pids(&c).first()?;
        std::fs::read_link(format!("/proc/{pid}/exe")).ok()
    };
    assert_eq!(runner_exe().as_deref(), Some(program.as_path()));
    // the upgrade: a new file under the same name, as a package manager installs it
    let next = own.join("bai-slurm.new");
    std::fs::copy(&program, &next).unwrap();
    std::fs::rename(&next, &program).unwrap();
    let deadline = Instant::now() + secs(20);
    // the runner runs the new file (not `... (deleted)`), with its inherited launchers
    while runner_exe().as_deref() != Some(program.as_path()) {
        assert!(
            Instant::now() < deadline,
            "the runner did not restart as the new program"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(secs(3)); // two housekeeping rounds of the new runner
    let r = c.run("squeue", &["-h", "-j", &job, "-o", "%T"]);
    assert_eq!(r.stdout, "RUNNING\n", "{}", c.runner_log());
    c.run("scancel", &[&job]);
    let rows = c.wait_done(&job, secs(30));
    assert_eq!(rows[0].1, format!("CANCELLED by {}", uid()), "{rows:?}");
}

/// This process's soft limit on open files.
fn nofile_soft() -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) }, 0);
    r.rlim_cur
}

#[test]
fn jobs_and_steps_take_the_submitting_shells_soft_limits() {
    use std::os::unix::process::CommandExt;
    let c = Cluster::new(2, 4096, 2);
    // The queue runner (and so every launcher) starts with this test's own limits.
    let first = c.submit(&["--wrap", "true"]);
    c.wait_done(&first.to_string(), secs(30));
    let ours = nofile_soft();
    assert!(
        ours > 200,
        "this test needs a soft NOFILE above 200, not {ours}"
    );
    // sbatch run as from a shell that did `ulimit -S -n 200`.
    let submit_at_200 = |args: &[&str]| -> u32 {
        let mut cmd = c.cmd("sbatch");
        cmd.arg("--parsable").args(args);
        // SAFETY: setrlimit between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let mut r = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
                r.rlim_cur = 200;
                libc::setrlimit(libc::RLIMIT_NOFILE, &r);
                Ok(())
            });
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap().trim().parse().unwrap()
    };
    let show = "ulimit -S -n; ulimit -S -n 150; srun sh -c 'ulimit -S -n'";
    let all = submit_at_200(&["-o", "all.txt", "--wrap", show]);
    let none = submit_at_200(&[
        "-o",
        "none.txt",
        "--propagate=NONE",
        "--wrap",
        "ulimit -S -n",
    ]);
    let core = submit_at_200(&[
        "-o",
        "core.txt",
        "--propagate=CORE",
        "--wrap",
        "ulimit -S -n",
    ]);
    let nofile = submit_at_200(&["-o", "nofile.txt", "--propagate", "--wrap", "ulimit -S -n"]);
    for id in [all, none, core, nofile] {
        c.wait_done(&id.to_string(), secs(30));
    }
    // Default (PropagateResourceLimits=ALL) and a bare --propagate: the shell's 200; a
    // step takes srun's own limits (150), as srun propagates them.
    assert_eq!(c.read("all.txt"), "200\n150\n");
    assert_eq!(c.read("nofile.txt"), "200\n");
    // NONE, or a list without NOFILE: the node's own.
    assert_eq!(c.read("none.txt"), format!("{ours}\n"));
    assert_eq!(c.read("core.txt"), format!("{ours}\n"));
    // A name Slurm does not know refuses the job, as sbatch does.
    let r = c.run("sbatch", &["--propagate=FOO,NOFILE", "--wrap", "true"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "sbatch: error: Bad rlimit name: FOO\nsbatch: error: --propagate=FOO,NOFILE is not valid.\n"
    );
}
