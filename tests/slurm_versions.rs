//! The site's `slurm_version` (DESIGN.md §3.11) end to end on the local backend: real
//! commands, real jobs. Under 24.11 the commands, the controller's records, the submit
//! checks and the job's environment follow Slurm 24.11.5; an unknown version stops every
//! command with an error naming where it was set. (Byte-exact comparisons with the real
//! 24.11.5 are in golden_format_24.rs and golden_sbatch.rs.)

mod harness;

use harness::{Cluster, secs};

const SH: &str = "#!/bin/bash\n";

fn cluster(version: &str) -> Cluster {
    let mut c = Cluster::new(2, 4096, 2);
    c.env
        .insert("BAI_SLURM_SLURM_VERSION".to_string(), version.to_string());
    c
}

#[test]
fn an_unknown_version_stops_every_command_naming_where_it_was_set() {
    let c = cluster("23.02");
    for cmd in [
        "sbatch", "squeue", "sinfo", "sacct", "scontrol", "scancel", "salloc",
    ] {
        let r = c.run(cmd, &["--version"]);
        assert_eq!(r.code, 1, "{cmd}: {r:?}");
        assert!(
            r.stderr.contains(
                "BAI_SLURM_SLURM_VERSION: slurm_version \"23.02\" is not a Slurm release"
            ) && r.stderr.contains("\"24.11\""),
            "{cmd}: {}",
            r.stderr
        );
    }
    // The config file's own setting is named by its path.
    let c = Cluster::new(2, 4096, 2);
    let file = c.work.join("site.toml");
    std::fs::write(&file, "slurm_version = \"24.10\"\n").unwrap();
    let mut c = c;
    c.env
        .insert("BAI_SLURM_CONFIG".to_string(), file.display().to_string());
    let r = c.run("squeue", &[]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("site.toml"), "{}", r.stderr);
}

#[test]
fn each_version_presents_its_release() {
    for (version, line) in [
        ("22.05", "slurm-wlm 22.05.8\n"),
        ("24.11", "slurm-wlm 24.11.5\n"),
    ] {
        let c = cluster(version);
        for cmd in [
            "sbatch", "srun", "salloc", "squeue", "sinfo", "sacct", "scontrol",
        ] {
            let r = c.run(cmd, &["--version"]);
            assert_eq!((r.code, r.stdout.as_str()), (0, line), "{cmd} {version}");
        }
        let r = c.tool(&["doctor"]);
        assert!(
            r.stdout.contains(&format!("slurm_version {version}")),
            "{}",
            r.stdout
        );
    }
    // 24.11's options exist only under 24.11.
    let old = cluster("22.05").run("squeue", &["--only-job-state"]);
    assert_eq!(old.code, 1);
    assert!(
        old.stderr
            .contains("unrecognized option '--only-job-state'")
    );
    let new = cluster("24.11").run("squeue", &["--only-job-state"]);
    assert_eq!(
        (new.code, new.stdout.as_str()),
        (0, "             JOBID ST\n")
    );
    let list = cluster("24.11").run("sacct", &["--json=list"]);
    assert_eq!(
        (list.code, list.stdout.as_str(), list.stderr.as_str()),
        (
            0,
            "data_parser/v0.0.42\ndata_parser/v0.0.40\ndata_parser/v0.0.41\n",
            "Possible data_parser plugins:\n"
        )
    );
    let sbatch_help = cluster("24.11").run("sbatch", &["--help"]);
    assert!(sbatch_help.stdout.contains("--oom-kill-step"));
}

#[test]
fn a_24_11_job_runs_with_24_11_s_records_environment_and_checks() {
    let c = cluster("24.11");
    c.write_script(
        "env.sh",
        &format!("{SH}#SBATCH -J env_job -t 10\nenv | grep -E '^SLURM' | sort > env.txt\n"),
    );
    let id = c.submit(&["env.sh", "an_argument"]);
    c.wait_done(&id.to_string(), secs(60));
    let env = c.read("env.txt");
    let var = |k: &str| {
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .map(str::to_string)
    };
    let start: i64 = var("SLURM_JOB_START_TIME").expect(&env).parse().unwrap();
    let end: i64 = var("SLURM_JOB_END_TIME").expect(&env).parse().unwrap();
    assert_eq!(end - start, 600, "{env}");
    assert_eq!(var("SLURM_OOM_KILL_STEP").as_deref(), Some("0"));
    assert_eq!(var("SLURM_NODE_ALIASES"), None, "{env}");

    let show = c.run("scontrol", &["show", "job", &id.to_string()]);
    assert!(show.stdout.contains("   ReqTRES=cpu=1,"), "{}", show.stdout);
    assert!(
        show.stdout.contains("   AllocTRES=cpu=1,"),
        "{}",
        show.stdout
    );
    assert!(!show.stdout.contains("\n   TRES="), "{}", show.stdout);
    assert!(!show.stdout.contains("Power="), "{}", show.stdout);
    assert!(show.stdout.contains("/env.sh\n"), "{}", show.stdout);
    assert!(!show.stdout.contains("an_argument"), "{}", show.stdout);

    // A pending job: squeue -O STDOUT shows the pattern as submitted.
    let held = c.submit(&["-H", "env.sh"]);
    let q = c.run(
        "squeue",
        &["-h", "-O", "STDOUT:60", "-j", &held.to_string()],
    );
    assert_eq!(
        q.stdout.trim(),
        c.work.join("slurm-%j.out").display().to_string()
    );
    c.run("scancel", &[&held.to_string()]).ok();

    // What 24.11's controller refuses at submission, and 22.05's accepted.
    for (args, error) in [
        (
            &["-n", "64", "env.sh"][..],
            "Requested node configuration is not available",
        ),
        (
            &["--dependency=afterok:999999", "env.sh"][..],
            "Job dependency problem",
        ),
    ] {
        let r = c.run("sbatch", args);
        assert_eq!(r.code, 1, "{args:?}: {r:?}");
        assert_eq!(
            r.stderr,
            format!("sbatch: error: Batch job submission failed: {error}\n")
        );
        let old = cluster("22.05");
        old.write_script("env.sh", "#!/bin/bash\ntrue\n");
        let r = old.run("sbatch", args);
        assert_eq!(r.code, 0, "22.05 {args:?}: {r:?}");
        for id in r
            .stdout
            .split_whitespace()
            .filter_map(|w| w.parse::<u32>().ok())
        {
            old.run("scancel", &[&id.to_string()]).ok();
        }
    }
}

#[test]
fn salloc_says_the_nodes_are_ready_under_24_11_only() {
    for (version, ready) in [("22.05", false), ("24.11", true)] {
        let c = cluster(version);
        let r = c.run("salloc", &["-n", "1", "true"]);
        assert_eq!(r.code, 0, "{r:?}");
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert!(
            lines[0].starts_with("salloc: Granted job allocation "),
            "{lines:?}"
        );
        assert_eq!(
            lines.get(1) == Some(&"salloc: Nodes node01 are ready for job"),
            ready,
            "{version}: {lines:?}"
        );
    }
}

#[test]
fn srun_steps_carry_24_11_s_variables() {
    let show = "echo debug=${SLURMD_DEBUG:-unset} group=${SLURM_JOB_GROUP:-unset} \
                start=${SLURM_JOB_START_TIME:+set}";
    for (version, want) in [
        ("22.05", "debug=unset group=unset start=\n".to_string()),
        (
            "24.11",
            format!("debug=2 group={} start=set\n", harness_group()),
        ),
    ] {
        let c = cluster(version);
        let r = c.run("srun", &["-n", "1", "bash", "-c", show]);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (0, want.as_str()),
            "{version}: {r:?}"
        );
    }
}

/// A task whose own output file (a per-task pattern, opened on its node) cannot be opened
/// is not launched (`Slurmd could not connect IO`): 22.05's srun counts it as exited 0,
/// 24.11's exits 1 (scenario step_output, job 3, recorded from both releases).
#[test]
fn a_task_srun_could_not_launch_fails_srun_under_24_11_only() {
    for (version, code) in [("22.05", 0), ("24.11", 1)] {
        let c = cluster(version);
        let r = c.run(
            "srun",
            &["-n", "1", "-o", "/nonexistent/dir/t%t.out", "echo", "lost"],
        );
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (
                code,
                "srun: error: task 0 launch failed: Slurmd could not connect IO\n"
            ),
            "{version}: {r:?}"
        );
    }
}

/// The group of the user running the tests.
fn harness_group() -> String {
    let out = std::process::Command::new("id")
        .arg("-gn")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// 24.11's `scontrol update` changes a waiting job's `StdErr=` and `StdIn=` (a relative
/// name under the job's directory, empty for the default again), and the job then reads
/// and writes them; 22.05 does not know the fields.
#[test]
fn a_waiting_job_s_stderr_and_stdin_are_changed_under_24_11_only() {
    let old = cluster("22.05");
    let held = old.submit(&["--hold", "--wrap", "true"]).to_string();
    let r = old.run(
        "scontrol",
        &["update", &format!("JobId={held}"), "StdErr=e.txt"],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "Update of this parameter is not supported: StdErr=e.txt\nRequest aborted\n"
        )
    );

    let c = cluster("24.11");
    std::fs::write(c.path("in.txt"), "from stdin\n").unwrap();
    let job = c
        .submit(&["--hold", "--wrap", "cat; echo to-stderr >&2"])
        .to_string();
    let id = format!("JobId={job}");
    let r = c.run(
        "scontrol",
        &["update", &id, "StdErr=e-%j.txt", "StdIn=in.txt"],
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let show = c.run("scontrol", &["show", "job", &job]).stdout;
    let work = c.work.display().to_string();
    assert!(
        show.contains(&format!("StdErr={work}/e-{job}.txt"))
            && show.contains(&format!("StdIn={work}/in.txt")),
        "{show}"
    );
    // Empty: the default again (the output file).
    let r = c.run("scontrol", &["update", &id, "StdErr="]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    let r = c.run("scontrol", &["update", &id, "StdErr=e-%j.txt"]);
    assert_eq!(r.code, 0);
    c.run("scontrol", &["release", &job]).ok();
    c.wait_done(&job, secs(30));
    assert_eq!(c.read(&format!("slurm-{job}.out")), "from stdin\n");
    assert_eq!(c.read(&format!("e-{job}.txt")), "to-stderr\n");
    // A job no longer waiting keeps them.
    let r = c.run("scontrol", &["update", &id, "StdIn=/dev/null"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!("Job has already finished for job {job}\n").as_str()
        )
    );
}

/// Each release's default `PriorityType` (read_config.h): 22.05 `priority/basic`, each job
/// one below the last under 0xFFFF0000, a nice change moving it at once; 24.11
/// `priority/multifactor` with every weight 0, each job 1 and an operator's negative nice
/// its priority. `[local] priority_type`
/// chooses either under either release. (The 24.11 scenarios replay the reference's
/// multifactor priorities and orders: scenario_replay.rs.)
#[test]
fn each_version_gives_priorities_as_its_default_priority_plugin() {
    let with = |version: &str, extra: &str| {
        let mut c = Cluster::with_config(2, 4096, 2, extra);
        c.env
            .insert("BAI_SLURM_SLURM_VERSION".to_string(), version.to_string());
        c
    };
    let basic = "priority_type = \"priority/basic\"\n";
    let multifactor = "priority_type = \"priority/multifactor\"\n";
    for (c, plugin) in [
        (with("22.05", ""), "priority/basic"),
        (with("24.11", ""), "priority/multifactor"),
        (with("24.11", basic), "priority/basic"),
        (with("22.05", multifactor), "priority/multifactor"),
    ] {
        let config = c.run("scontrol", &["show", "config"]).stdout;
        assert!(
            config.contains(&format!("\nPriorityType            = {plugin}\n")),
            "{config}"
        );
        assert_eq!(
            config.contains("\nPriorityWeightAge       = 0\n"),
            plugin == "priority/multifactor",
            "{config}"
        );
        let later = ["--begin=now+1hour", "--wrap", "true"];
        let (a, b) = (c.submit(&later), c.submit(&later));
        let r = c.run("scontrol", &["update", &format!("JobId={b}"), "Nice=-100"]);
        assert_eq!(r.code, 0, "{r:?}");
        let n = c.submit(&["--begin=now+1hour", "--nice=-50", "--wrap", "true"]);
        let r = c.run("squeue", &["-h", "-o", "%i %Q", "-S", "i"]);
        // multifactor gives the priority its nice gives at submission and at an update.
        let want = match plugin {
            "priority/basic" => format!(
                "{a} {}\n{b} {}\n{n} {}\n",
                0xFFFF_0000u32 - a,
                0xFFFF_0000u32 - a - 1 + 100,
                0xFFFF_0000u32 - a - 2 + 50
            ),
            _ => format!("{a} 1\n{b} 100\n{n} 50\n"),
        };
        assert_eq!(r.stdout, want, "{plugin}");
    }
    // A value Slurm does not know stops the commands.
    let c = with("24.11", "priority_type = \"priority/fair\"\n");
    let r = c.run("squeue", &[]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("priority/fair"), "{}", r.stderr);
}

/// 24.11's `squeue --json` says when the backfill scheduler last ran a cycle with jobs to
/// test (`last_backfill`): 0 while none waited, then a cycle of the queue runner's, which
/// come bf_interval (30 s) apart, as slurmctld's (backfill.c: `bf_when_last_cycle` is set
/// only by a cycle that had jobs to test).
#[test]
fn squeue_json_says_when_backfill_last_had_jobs_to_test() {
    let c = cluster("24.11");
    let epoch = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    };
    let last_backfill = || {
        let r = c.run("squeue", &["--json"]);
        assert_eq!(r.code, 0, "{r:?}");
        let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        doc["last_backfill"]["number"].as_i64().unwrap()
    };
    let started = epoch();
    let all_cpus = ["-c", "2", "--wrap", "sleep 300"];
    let running = c.submit(&all_cpus).to_string();
    c.wait_state(&running, "RUNNING", secs(30));
    std::thread::sleep(secs(32));
    assert_eq!(last_backfill(), 0, "no job waited for a cycle to test");
    let waiting = c.submit(&all_cpus).to_string();
    let deadline = std::time::Instant::now() + secs(45);
    let when = loop {
        let t = last_backfill();
        if t != 0 {
            break t;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no backfill cycle came"
        );
        std::thread::sleep(secs(1));
    };
    assert!(when >= started + 30 && when <= epoch(), "{when}");
    c.run("scancel", &[&running, &waiting]);
}

/// 24.11's job flags from what the job was: an allocation srun made for its own step
/// ends before that step's end reaches the controller (SKIP_TRES_STRING_ACCOUNTING, as
/// jobs 5, 6, 7 and 9 of the 24.11 golden records), salloc's and a batch job's do not; a
/// task count asked for is EXACT_TASK_COUNT_REQUESTED.
#[test]
fn json_job_flags_follow_what_each_job_was() {
    let c = cluster("24.11");
    assert_eq!(c.run("srun", &["-n", "1", "true"]).code, 0);
    assert_eq!(c.run("salloc", &["-n", "1", "true"]).code, 0);
    let batch = c.submit(&["--wrap", "true"]).to_string();
    c.wait_state(&batch, "COMPLETED", secs(30));
    let r = c.run("squeue", &["--json", "-t", "all"]);
    assert_eq!(r.code, 0, "{r:?}");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let job = |name: &str| -> (Vec<String>, String) {
        let j = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| j["name"] == name)
            .unwrap_or_else(|| panic!("no job {name}: {}", r.stdout));
        (
            serde_json::from_value(j["flags"].clone()).unwrap(),
            j["command"].as_str().unwrap().to_string(),
        )
    };
    // Their commands too: srun's program, 24.11 salloc's (22.05's salloc sends none).
    let (srun, command) = job("true");
    assert_eq!(command, "true");
    assert_eq!(
        srun[..2],
        ["SKIP_TRES_STRING_ACCOUNTING", "EXACT_TASK_COUNT_REQUESTED"],
        "{srun:?}"
    );
    let (salloc, command) = job("interactive");
    assert_eq!(command, "true");
    assert_eq!(salloc[0], "EXACT_TASK_COUNT_REQUESTED", "{salloc:?}");
    let (batch_flags, _) = job("wrap");
    assert!(
        !batch_flags
            .iter()
            .any(|f| f == "SKIP_TRES_STRING_ACCOUNTING" || f == "EXACT_TASK_COUNT_REQUESTED"),
        "{batch_flags:?}"
    );
    // 22.05's scontrol: srun's program, and salloc's none.
    let c = cluster("22.05");
    assert_eq!(c.run("srun", &["-n", "1", "true"]).code, 0);
    assert_eq!(c.run("salloc", &["-n", "1", "true"]).code, 0);
    let show = c.run("scontrol", &["show", "job"]).stdout;
    let commands: Vec<&str> = show
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Command="))
        .collect();
    assert_eq!(commands, ["true", "(null)"], "{show}");
}
