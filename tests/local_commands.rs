//! The commands around jobs on the local backend: every way sbatch takes a script, option
//! precedence, sbatch's own errors, `-W`, scancel's forms, unknown ids, and the default
//! squeue/sacct/sinfo/scontrol output compared with the layout of real Slurm's.

mod harness;

use harness::{Cluster, secs, uid, whoami};
use std::time::Duration;

const SH: &str = "#!/bin/bash\n";

#[test]
fn scripts_from_a_file_stdin_dev_stdin_and_wrap() {
    let c = Cluster::new(2, 4096, 2);
    let script = format!("{SH}echo \"name=$SLURM_JOB_NAME args=$*\"\n");
    c.write_script("f.sh", &script);
    let from_file = c.submit(&["f.sh", "a", "b"]);
    let r = c
        .run_with_stdin("sbatch", &["--parsable"], script.as_bytes())
        .ok();
    let from_stdin: u32 = r.stdout.trim().parse().unwrap();
    let r = c
        .run_with_stdin("sbatch", &["--parsable", "/dev/stdin"], script.as_bytes())
        .ok();
    let from_dev_stdin: u32 = r.stdout.trim().parse().unwrap();
    let wrapped = c.submit(&["--wrap", "echo wrapped $SLURM_JOB_NAME"]);
    for id in [from_file, from_stdin, from_dev_stdin, wrapped] {
        c.wait_done(&id.to_string(), secs(30));
    }
    assert_eq!(
        c.read(&format!("slurm-{from_file}.out")),
        "name=f.sh args=a b\n"
    );
    // The job is called `sbatch`, but sbatch exports no SLURM_JOB_NAME for a script read
    // from stdin (22.05.8: tests/scenarios/job_env.scn).
    assert_eq!(c.read(&format!("slurm-{from_stdin}.out")), "name= args=\n");
    assert_eq!(
        c.read(&format!("slurm-{from_dev_stdin}.out")),
        "name=stdin args=\n"
    );
    assert_eq!(c.read(&format!("slurm-{wrapped}.out")), "wrapped wrap\n");
}

#[test]
fn the_script_is_copied_at_submit_time() {
    let c = Cluster::new(1, 4096, 2);
    c.write_script("block.sh", &format!("{SH}sleep 2\n"));
    let first = c.submit(&["block.sh"]);
    let tmp = c.write_script("tmp.sh", &format!("{SH}echo original\n"));
    let id = c.submit(&["tmp.sh"]);
    // dask-jobqueue deletes its script as soon as sbatch returns.
    std::fs::remove_file(&tmp).unwrap();
    c.wait_done(&first.to_string(), secs(30));
    c.wait_done(&id.to_string(), secs(30));
    assert_eq!(c.read(&format!("slurm-{id}.out")), "original\n");
}

#[test]
fn command_line_beats_environment_beats_directives() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("p.sh", &format!("{SH}#SBATCH -J from_directive\n#SBATCH --output=dir.out\n#SBATCH --comment=from_directive\necho $SLURM_JOB_NAME\n"));
    let mut cmd = c.cmd("sbatch");
    cmd.env("SBATCH_JOB_NAME", "from_env")
        .env("SBATCH_OUTPUT", "env.out")
        .args(["--parsable", "-J", "from_cli", "p.sh"]);
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let id = String::from_utf8(o.stdout).unwrap().trim().to_string();
    c.wait_done(&id, secs(30));
    // -J from the command line; the output file from the environment.
    assert_eq!(c.read("env.out"), "from_cli\n");
    assert!(!c.path("dir.out").exists());
    let r = c
        .run("squeue", &["-h", "-t", "all", "-j", &id, "-o", "%j|%k"])
        .ok();
    assert_eq!(r.stdout, "from_cli|from_directive\n");
}

#[test]
fn sbatch_errors_match_slurm() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("ok.sh", &format!("{SH}true\n"));
    c.write_script("noshebang.sh", "echo hi\n");
    c.write_script("empty.sh", "");
    c.write_script("crlf.sh", "#!/bin/sh\r\necho hi\r\n");
    c.write_script("quote.sh", &format!("{SH}#SBATCH -J \"oops\necho\n"));
    c.write_script(
        "bad_directive.sh",
        &format!("{SH}#SBATCH -J x stray\ntrue\n"),
    );
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["--bogus-option", "ok.sh"],
            255,
            "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n",
        ),
        (
            &["/nonexistent/script.sh"],
            1,
            "sbatch: error: Unable to open file /nonexistent/script.sh\n",
        ),
        (
            &["noshebang.sh"],
            1,
            "sbatch: error: This does not look like a batch script.  The first\nsbatch: error: line must start with #! followed by the path to an interpreter.\nsbatch: error: For instance: #!/bin/sh\n",
        ),
        (&["empty.sh"], 1, "sbatch: error: Batch script is empty!\n"),
        (
            &["crlf.sh"],
            1,
            "sbatch: error: Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).\n",
        ),
        (
            &["--time=abc", "ok.sh"],
            255,
            "sbatch: error: Invalid --time specification\n",
        ),
        (
            &["-n", "x", "ok.sh"],
            1,
            "sbatch: error: Invalid numeric value \"x\" for --ntasks.\n",
        ),
        (
            &["-p", "nosuch", "ok.sh"],
            1,
            "sbatch: error: invalid partition specified: nosuch\nsbatch: error: Batch job submission failed: Invalid partition name specified\n",
        ),
        (
            &["--mem=999G", "ok.sh"],
            1,
            "sbatch: error: Memory specification can not be satisfied\nsbatch: error: Batch job submission failed: Requested node configuration is not available\n",
        ),
        (
            &["--array=abc", "ok.sh"],
            1,
            "sbatch: error: Batch job submission failed: Invalid job array specification\n",
        ),
        (
            &["--gres=gpu:1", "ok.sh"],
            1,
            "sbatch: error: Batch job submission failed: Requested node configuration is not available\n",
        ),
        (
            &["--dependency=bogus:1", "ok.sh"],
            1,
            "sbatch: error: Batch job submission failed: Job dependency problem\n",
        ),
        (
            &["--wrap", "true", "ok.sh"],
            1,
            "sbatch: error: Script arguments not permitted with --wrap option\n",
        ),
        (
            &["quote.sh"],
            1,
            "sbatch: fatal: quote.sh: line 2: Unmatched `\"` in [ \"oops]\n",
        ),
        (
            &["bad_directive.sh"],
            255,
            "sbatch: error: Invalid directive found in batch script: stray\n",
        ),
        (
            &["--mem=1G", "--mem-per-cpu=1G", "ok.sh"],
            1,
            "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n",
        ),
    ];
    for (args, code, stderr) in cases {
        let r = c.run("sbatch", args);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (*code, "", *stderr),
            "sbatch {args:?}"
        );
    }
    // Nothing was submitted by any of them.
    let r = c.run("squeue", &["-h", "-t", "all"]).ok();
    assert_eq!(r.stdout, "");
}

#[test]
fn sbatch_wait_returns_the_job_exit_code() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script("seven.sh", &format!("{SH}exit 7\n"));
    let r = c.run("sbatch", &["-W", "seven.sh"]);
    assert_eq!((r.code, r.stdout.as_str()), (7, "Submitted batch job 1\n"));
    let r = c.run("sbatch", &["--wait", "--parsable", "--wrap", "true"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "2\n"));
}

#[test]
fn begin_time_defers_a_job() {
    let c = Cluster::new(2, 4096, 2);
    // Before sbatch: its `now` is at least this second.
    let submitted = harness::now();
    let id = c.submit(&["--begin=now+3", "--wrap", "date +%s"]);
    let r = c
        .run("squeue", &["-h", "-j", &id.to_string(), "-o", "%t %r"])
        .ok();
    assert!(
        r.stdout == "PD BeginTime\n" || r.stdout == "PD None\n",
        "{r:?}"
    );
    c.wait_done(&id.to_string(), secs(30));
    let ran: i64 = c.read(&format!("slurm-{id}.out")).trim().parse().unwrap();
    assert!(ran >= submitted + 3, "ran at {ran}, submitted {submitted}");
}

#[test]
fn scancel_by_array_element_range_name_state_and_user() {
    let c = Cluster::new(1, 4096, 2);
    c.write_script("s.sh", &format!("{SH}sleep 300\n"));
    let blocker = c.submit(&["-J", "blocker", "s.sh"]);
    c.wait_state(&blocker.to_string(), "RUNNING", secs(30));
    let arr = c.submit(&["--array=1-5", "-J", "arr", "s.sh"]);
    let named = c.submit(&["-J", "victim", "s.sh"]);
    c.run("scancel", &[&format!("{arr}_3")]).ok();
    c.run("scancel", &[&format!("{arr}_[1-2]")]).ok();
    let r = c.run("squeue", &["-h", "-r", "-o", "%i %t"]).ok();
    assert_eq!(
        r.stdout,
        format!("{arr}_4 PD\n{arr}_5 PD\n{named} PD\n{blocker} R\n"),
    );
    c.run("scancel", &["-n", "victim"]).ok();
    c.run("scancel", &["-t", "PENDING", "-u", &whoami()]).ok();
    let r = c.run("squeue", &["-h", "-o", "%i %t"]).ok();
    assert_eq!(r.stdout, format!("{blocker} R\n"));
    let rows = c.acct(&arr.to_string());
    let by = format!("CANCELLED by {}", uid());
    assert!(rows.iter().all(|r| r.1 == by), "{rows:?}");
    assert_eq!(rows.len(), 5, "{rows:?}");
    // scancel --signal=USR1 -b reaches the batch shell, which can trap it.
    c.write_script(
        "trap.sh",
        &format!(
            "{SH}trap 'echo got USR1; exit 0' USR1\necho ready\nwhile true; do sleep 0.1; done\n"
        ),
    );
    c.run("scancel", &[&blocker.to_string()]).ok();
    let t = c.submit(&["trap.sh"]);
    c.wait_state(&t.to_string(), "RUNNING", secs(30));
    let deadline = std::time::Instant::now() + secs(20);
    while !std::fs::read_to_string(c.path(&format!("slurm-{t}.out")))
        .unwrap_or_default()
        .contains("ready")
    {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(50));
    }
    c.run("scancel", &["--signal=USR1", "-b", &t.to_string()])
        .ok();
    let rows = c.wait_done(&t.to_string(), secs(30));
    assert_eq!(rows[0].1, "COMPLETED");
    assert_eq!(c.read(&format!("slurm-{t}.out")), "ready\ngot USR1\n");
}

#[test]
fn scancel_errors_match_slurm() {
    let c = Cluster::new(1, 4096, 2);
    let cases: &[(&[&str], i32, &str)] = &[
        (&["abc"], 1, "scancel: error: Invalid job id abc\n"),
        (&[], 1, "scancel: error: No job identification provided\n"),
        (
            &["--bogus"],
            1,
            "scancel: unrecognized option '--bogus'\nTry \"scancel --help\" for more information\n",
        ),
        (&["-s", "NOPE", "1"], 1, "Unknown job signal: NOPE\n"),
        (
            &["-u", "no_such_user_here"],
            1,
            "scancel: error: Invalid user name: no_such_user_here\n",
        ),
        (&["999999"], 0, ""),
    ];
    for (args, code, stderr) in cases {
        let r = c.run("scancel", args);
        assert_eq!(
            (r.code, r.stdout.as_str(), r.stderr.as_str()),
            (*code, "", *stderr),
            "scancel {args:?}"
        );
    }
}

#[test]
fn unknown_ids_behave_as_in_slurm() {
    let c = Cluster::new(1, 4096, 2);
    let r = c.run("squeue", &["-j", "999999"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (1, "", "slurm_load_jobs error: Invalid job id specified\n")
    );
    let r = c.run("sacct", &["-j", "999999"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
    );
    let r = c.run("scontrol", &["show", "job", "999999"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (1, "", "slurm_load_jobs error: Invalid job id specified\n")
    );
}

/// The golden headers, byte for byte, and rows laid out at the golden widths.
#[test]
fn default_views_have_the_layout_of_real_slurm() {
    let golden = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/tests/golden/{name}.stdout",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let c = Cluster::new(1, 4096, 2);
    c.write_script("s.sh", &format!("{SH}sleep 300\n"));
    let running = c.submit(&[
        "-J",
        "this_is_a_very_long_job_name_for_truncation_tests",
        "s.sh",
    ]);
    c.wait_state(&running.to_string(), "RUNNING", secs(30));
    let pending = c.submit(&["-J", "parsable_job", "s.sh"]);
    let held = c.submit(&["-H", "-J", "held_job", "s.sh"]);
    std::thread::sleep(Duration::from_millis(1500));
    let user = whoami();
    let u8w = format!("{:>8}", &user[..user.len().min(8)]);

    let squeue = c.run("squeue", &[]).ok().stdout;
    let header = golden("squeue").lines().next().unwrap().to_string();
    let lines: Vec<&str> = squeue.lines().collect();
    assert_eq!(lines[0], header);
    assert_eq!(
        lines[1],
        format!("{pending:>18}     local parsable {u8w} PD       0:00      1 (Resources)")
    );
    assert_eq!(
        lines[2],
        format!("{held:>18}     local held_job {u8w} PD       0:00      1 (JobHeldUser)")
    );
    assert!(
        lines[3].starts_with(&format!(
            "{running:>18}     local this_is_ {u8w}  R       0:0"
        )),
        "{squeue}"
    );
    assert!(lines[3].ends_with("      1 node01"), "{squeue}");
    assert_eq!(lines.len(), 4, "{squeue}");

    let long = c.run("squeue", &["-l"]).ok().stdout;
    let long_lines: Vec<&str> = long.lines().collect();
    assert_eq!(long_lines[1], golden("squeue_l").lines().nth(1).unwrap());
    assert_eq!(
        long_lines[2],
        format!(
            "{pending:>18}     local parsable {u8w}  PENDING       0:00 UNLIMITED      1 (Resources)"
        )
    );

    let sinfo = c.run("sinfo", &[]).ok().stdout;
    assert_eq!(
        sinfo,
        format!(
            "{}\nlocal*       up   infinite      1  alloc node01\n",
            golden("sinfo").lines().next().unwrap()
        )
    );

    c.run(
        "scancel",
        &[
            &running.to_string(),
            &pending.to_string(),
            &held.to_string(),
        ],
    )
    .ok();
    c.wait_done(&running.to_string(), secs(30));
    let sacct = c.run("sacct", &[]).ok().stdout;
    let g = golden("sacct");
    let mut gl = g.lines();
    let s: Vec<&str> = sacct.lines().collect();
    assert_eq!(s[0], gl.next().unwrap());
    assert_eq!(s[1], gl.next().unwrap());
    assert_eq!(
        s[2],
        format!("{running:<12} this_is_a+      local                     1 CANCELLED+      0:0 ")
    );
    assert_eq!(
        s[3],
        format!(
            "{:<12}      batch                                1  CANCELLED     0:15 ",
            format!("{running}.batch")
        )
    );
    assert_eq!(
        s[4],
        format!("{pending:<12} parsable_+      local                     1 CANCELLED+      0:0 ")
    );
}

#[test]
fn scontrol_show_job_has_slurms_layout() {
    let c = Cluster::new(1, 4096, 2);
    c.write_script("ok.sh", &format!("{SH}true\n"));
    let id = c.submit(&["-J", "ok_job", "ok.sh"]);
    c.wait_done(&id.to_string(), secs(30));
    let r = c.run("scontrol", &["show", "job", &id.to_string()]).ok();
    let keys: Vec<String> = r
        .stdout
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|kv| kv.split('=').next().unwrap().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let golden = std::fs::read_to_string(format!(
        "{}/tests/golden/scontrol_show_job_completed.stdout",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let golden_keys: Vec<String> = golden
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|kv| kv.split('=').next().unwrap().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(keys, golden_keys, "{}", r.stdout);
    assert!(
        r.stdout
            .starts_with(&format!("JobId={id} JobName=ok_job\n"))
    );
    assert!(
        r.stdout
            .contains("   JobState=COMPLETED Reason=None Dependency=(null)\n")
    );
    assert!(
        r.stdout
            .contains(&format!("   Command={}/ok.sh\n", c.work.display()))
    );
    assert!(
        r.stdout
            .contains(&format!("   StdOut={}/slurm-{id}.out\n", c.work.display()))
    );
}

#[test]
fn the_binary_dispatches_on_its_name_and_on_a_subcommand() {
    let c = Cluster::new(1, 4096, 2);
    let exe = env!("CARGO_BIN_EXE_bai-slurm");
    let o = std::process::Command::new(exe)
        .args(["sbatch", "--version"])
        .env_clear()
        .envs(&c.env)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "slurm-wlm 22.05.8\n");
    let alias = c.dir.path().join("bai-slurm-squeue");
    std::os::unix::fs::symlink(exe, &alias).unwrap();
    let o = std::process::Command::new(&alias)
        .arg("--version")
        .env_clear()
        .envs(&c.env)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "slurm-wlm 22.05.8\n");
    let o = c.cmd("sacct").arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "slurm-wlm 22.05.8\n");
    let o = std::process::Command::new(exe)
        .arg("frobnicate")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn doctor_reports_the_local_backend() {
    let c = Cluster::new(3, 2048, 2);
    let r = c.cmd("sbatch").output().unwrap();
    let _ = r;
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bai-slurm"))
        .arg("doctor")
        .env_clear()
        .envs(&c.env)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("backend: local"), "{out}");
    assert!(out.contains("node: node01 (3 CPUs, 2048 MB)"), "{out}");
    assert!(out.contains("status: OK"), "{out}");
}

#[test]
fn translate_prints_the_job_sbatch_would_submit_and_submits_nothing() {
    let c = Cluster::new(2, 4096, 2);
    c.write_script(
        "t.sh",
        &format!("{SH}#SBATCH -J from_directive\n#SBATCH --time=1:30:00 -n 2\necho hi\n"),
    );
    let o = c.tool(&[
        "translate",
        "--mem=1G",
        "-J",
        "from_cli",
        "--array=1-3%1",
        "t.sh",
        "x",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    assert_eq!(doc["backend"], "local");
    let spec = &doc["job_spec"];
    assert_eq!(spec["name"], "from_cli");
    assert_eq!(spec["ntasks"], 2);
    assert_eq!(spec["mem_per_node"], 1024);
    assert_eq!(spec["time_limit"]["Minutes"], 90);
    assert_eq!(spec["array"]["tasks"], serde_json::json!([1, 2, 3]));
    assert_eq!(spec["array"]["throttle"], 1);
    assert_eq!(spec["script_args"], serde_json::json!(["x"]));
    assert!(spec["script"].as_str().unwrap().ends_with("echo hi\n"));
    // The local backend sends nothing: its translation is the record the job starts as.
    let record = &doc["requests"][0]["record"];
    assert_eq!(record["name"], "from_cli");
    assert_eq!(record["state"], "Pending");
    assert_eq!(record["num_cpus"], 2);
    assert_eq!(record["time_limit"]["Minutes"], 90);
    // Nothing was submitted.
    let q = c.run("squeue", &["-h", "-t", "all"]).ok();
    assert_eq!(q.stdout, "");
    // Errors are sbatch's, with its exit codes.
    let bad = c.tool(&["translate", "--time=bogus", "t.sh"]);
    assert_eq!(
        (bad.code, bad.stderr.as_str()),
        (255, "sbatch: error: Invalid --time specification\n")
    );
    let part = c.tool(&["translate", "-p", "nope", "t.sh"]);
    assert_eq!(part.code, 1);
    assert_eq!(
        part.stderr,
        "sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n"
    );
}
