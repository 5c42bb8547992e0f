//! Behaviour the golden captures do not cover, checked against the recorded P2 cluster:
//! error paths, options without a capture, environment variables, and robustness
//! against arbitrary format strings. Expected texts follow Slurm 22.05.8's source.

mod support;

use support::golden::{Outcome, run_line};

const P2_NOW: i64 = 1_796_048_340;

fn run(argv: &[&str]) -> Outcome {
    run_line(argv, "alice", "P2", P2_NOW, &[])
}

fn run_env(argv: &[&str], env: &[(&str, &str)]) -> Outcome {
    run_line(argv, "alice", "P2", P2_NOW, env)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn squeue_bad_state_lists_valid_states() {
    let o = run(&["squeue", "-t", "bogus"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "squeue: error: Invalid job state specified: bogus\n\
         squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED\n\n"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn squeue_bad_sort_prints_header_then_fails() {
    let o = run(&["squeue", "-S", "Z"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "squeue: error: Invalid sort specification: Z\n"
    );
    assert!(text(&o.stdout).starts_with("             JOBID PARTITION"));
}

#[test]
fn squeue_format_and_long_conflict() {
    let o = run(&["squeue", "-l", "-o", "%i"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n"
    );
}

#[test]
fn squeue_unknown_letter_is_reported_and_echoed() {
    let o = run(&["squeue", "-h", "-j", "10", "-o", "%i:%5!x"]);
    assert_eq!(o.rc, 0);
    assert_eq!(text(&o.stdout), "10:%5!x\n");
    assert_eq!(
        text(&o.stderr),
        "squeue: error: Invalid job format specification: !\n"
    );
}

#[test]
fn squeue_env_format_and_sort() {
    let o = run_env(
        &["squeue", "-h"],
        &[("SQUEUE_FORMAT", "%i %t"), ("SQUEUE_SORT", "i")],
    );
    assert_eq!(
        text(&o.stdout),
        "10 R\n11 R\n12 PD\n13_[0-3%2] PD\n14 PD\n15 PD\n16 PD\n17 PD\n18 PD\n"
    );
}

#[test]
fn squeue_array_task_selection() {
    let o = run(&["squeue", "-h", "-j", "13_2", "-o", "%i %K"]);
    assert_eq!(text(&o.stdout), "13_2 2\n");
    let o = run(&["squeue", "-h", "-j", "13_1,13_3", "-o", "%i"]);
    assert_eq!(text(&o.stdout), "13_[1,3]\n");
}

#[test]
fn squeue_filters() {
    let o = run(&["squeue", "-h", "-o", "%i", "-n", "DEP_JOB,held_job"]);
    assert_eq!(text(&o.stdout), "14\n16\n");
    let o = run(&["squeue", "-h", "-o", "%i", "-w", "node01"]);
    assert_eq!(text(&o.stdout), "10\n11\n");
    let o = run(&[
        "squeue", "-h", "-o", "%i", "-A", "RESEARCH", "-q", "normal", "-p", "gpu",
    ]);
    assert_eq!(text(&o.stdout), "17\n");
    let o = run(&["squeue", "-w", "nosuchnode"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "squeue: error: Invalid node name nosuchnode\n"
    );
}

#[test]
fn squeue_steps_view() {
    let o = run(&["squeue", "-s"]);
    assert_eq!(o.rc, 0);
    assert_eq!(
        text(&o.stdout),
        "         STEPID     NAME PARTITION     USER      TIME NODELIST\n\
         \x20      10.batch    batch     debug    alice      0:04 node01\n\
         \x20      11.batch    batch     debug    alice      0:04 node01\n"
    );
}

#[test]
fn squeue_extra_operand() {
    let o = run(&["squeue", "foo"]);
    assert_eq!(o.rc, 1);
    assert!(text(&o.stderr).starts_with("squeue: error: Unrecognized option: foo\n"));
    assert!(text(&o.stdout).starts_with("Usage: squeue"));
}

#[test]
fn sacct_states_and_window() {
    // Jobs that ended FAILED today, any user.
    // With -s and -S but no -E, the window is the instant -S: nothing ended then.
    let o = run(&[
        "sacct",
        "-X",
        "-n",
        "-a",
        "-s",
        "F",
        "-S",
        "midnight",
        "-o",
        "JobID,State",
    ]);
    assert_eq!(text(&o.stdout), "");
    let o = run(&[
        "sacct",
        "-X",
        "-n",
        "-a",
        "-s",
        "F",
        "-S",
        "midnight",
        "-E",
        "now",
        "-o",
        "JobID,State",
    ]);
    assert_eq!(o.rc, 0);
    assert_eq!(
        text(&o.stdout),
        "2                FAILED \n9                FAILED \n"
    );
    let o = run(&["sacct", "-S", "now", "-E", "midnight"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "sacct: error: Start time (2026-11-30T14:19:00) requested is after end time (2026-11-30T00:00:00).\n"
    );
}

#[test]
fn sacct_step_selection_and_delimiter() {
    let o = run(&[
        "sacct",
        "-j",
        "3.0,3.batch",
        "-p",
        "--delimiter=,",
        "-o",
        "jobid,jobname",
    ]);
    assert_eq!(o.rc, 0);
    assert_eq!(
        text(&o.stdout),
        "JobID,JobName,\n3.batch,batch,\n3.0,bash,\n"
    );
}

#[test]
fn sacct_options_without_meaning_here_are_honoured_or_warned_about() {
    let plain = run(&["sacct", "-j", "3", "-X", "-n", "-P", "-o", "jobid,state"]);
    assert_eq!(text(&plain.stdout), "3|COMPLETED\n");
    // No id is reused and there are no hetjobs: the same records.
    for extra in [["-D"], ["--use-local-uid"], ["--whole-hetjob"]] {
        let mut argv = vec!["sacct", "-j", "3", "-X", "-n", "-P", "-o", "jobid,state"];
        argv.extend(extra);
        let o = run(&argv);
        assert_eq!(
            (o.rc, o.stdout.as_slice()),
            (0, plain.stdout.as_slice()),
            "{extra:?}"
        );
        assert!(o.stderr.is_empty(), "{extra:?}");
    }
    for (opt, name) in [
        ("-x5", "--associations"),
        ("-Fx", "--flags"),
        ("--reason=x", "--reason"),
    ] {
        let o = run(&[
            "sacct",
            opt,
            "-j",
            "3",
            "-X",
            "-n",
            "-P",
            "-o",
            "jobid,state",
        ]);
        assert_eq!(o.rc, 0);
        assert_eq!(o.stdout, plain.stdout);
        assert_eq!(
            text(&o.stderr),
            format!("sacct: warning: {name} has no effect here and is ignored\n")
        );
    }
}

#[test]
fn sacct_units_and_noconvert() {
    let o = run(&[
        "sacct",
        "-X",
        "-n",
        "-j",
        "18",
        "-P",
        "-o",
        "ReqMem,AllocTRES,ReqTRES",
    ]);
    assert_eq!(text(&o.stdout), "2G||billing=2,cpu=2,mem=2G,node=1\n");
    let o = run(&[
        "sacct",
        "-X",
        "-n",
        "-j",
        "18",
        "-P",
        "--noconvert",
        "-o",
        "ReqMem",
    ]);
    assert_eq!(text(&o.stdout), "2048M\n");
    let o = run(&[
        "sacct",
        "-X",
        "-n",
        "-j",
        "18",
        "-P",
        "--units=K",
        "-o",
        "ReqMem",
    ]);
    assert_eq!(text(&o.stdout), "2097152K\n");
}

#[test]
fn sacct_errors() {
    let o = run(&["sacct", "-s", "bogus"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "sacct: fatal: unrecognized job state value 'bogus'\n"
    );
    let o = run(&["sacct", "-j", "abc"]);
    assert_eq!(
        text(&o.stderr),
        "sacct: fatal: Bad job/step specified: abc\n"
    );
    let o = run(&["sacct", "-l", "-o", "jobid"]);
    assert_eq!(o.rc, 1);
    let o = run(&["sacct", "extra"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "sacct: error: Unknown arguments:\nsacct: error:  extra\n"
    );
    let o = run(&["sacct", "-S", "yesterday"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "Invalid time specification (pos=0): yesterday\n"
    );
}

#[test]
fn sacct_format_env() {
    let o = run_env(
        &["sacct", "-n", "-X", "-j", "1"],
        &[("SACCT_FORMAT", "jobid,state%12")],
    );
    assert_eq!(text(&o.stdout), "1               COMPLETED \n");
}

#[test]
fn sinfo_views() {
    let o = run(&["sinfo", "-R"]);
    assert_eq!(
        text(&o.stdout),
        "REASON               USER      TIMESTAMP           NODELIST\n"
    );
    let o = run(&["sinfo", "-h", "-o", "%R %c %m %C %F %z %G"]);
    assert_eq!(
        text(&o.stdout),
        "debug 2 16000 2/0/0/2 1/0/0/1 1:2:1 gpu:2\ngpu 2 16000 2/0/0/2 1/0/0/1 1:2:1 gpu:2\n"
    );
    let o = run(&["sinfo", "-t", "idle"]);
    assert_eq!(
        text(&o.stdout),
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\ndebug*       up   infinite      0    n/a \ngpu          up 1-00:00:00      0    n/a \n"
    );
    let o = run(&["sinfo", "-t", "bogus"]);
    assert_eq!(o.rc, 1);
    assert!(text(&o.stderr).starts_with("sinfo: error: Bad state string: \"bogus\"\nsinfo: error: valid states: unknown,down,idle,allocated,"));
}

#[test]
fn sinfo_summarize_without_partition_column() {
    let o = run(&["sinfo", "-h", "-o", "%N %T"]);
    assert_eq!(text(&o.stdout), "node01 allocated\n");
}

#[test]
fn scontrol_entities() {
    let o = run(&["scontrol", "show", "partition", "nosuch"]);
    assert_eq!(o.rc, 1);
    assert_eq!(text(&o.stdout), "Partition nosuch not found\n");
    let o = run(&["scontrol", "show", "hostnames", "node[01-03],login"]);
    assert_eq!(text(&o.stdout), "node01\nnode02\nnode03\nlogin\n");
    let o = run(&["scontrol", "show", "hostlist", "node01,node02,node03"]);
    assert_eq!(text(&o.stdout), "node[01-03]\n");
    let o = run(&["scontrol", "-o", "show", "partition", "gpu"]);
    assert!(text(&o.stdout).starts_with("PartitionName=gpu AllowGroups=ALL"));
    assert!(text(&o.stdout).ends_with("TRES=cpu=2,mem=16000M,node=1,billing=2,gres/gpu=2\n"));
    let o = run(&["scontrol", "show", "job", "abc"]);
    assert_eq!(o.rc, 1);
    assert_eq!(
        text(&o.stderr),
        "scontrol_print_job error: Invalid job id specified\n"
    );
    let o = run(&["scontrol", "show", "job", "13_2"]);
    assert!(text(&o.stdout).starts_with(
        "JobId=13 ArrayJobId=13 ArrayTaskId=2 ArrayTaskThrottle=2 JobName=array_job\n"
    ));
    let o = run(&["scontrol", "bogus"]);
    assert_eq!(o.rc, 1);
    assert_eq!(text(&o.stderr), "invalid keyword: bogus\n");
    let o = run(&["scontrol", "show", "config"]);
    assert!(text(&o.stdout).contains("ClusterName             = refcluster\n"));
    let o = run(&["scontrol", "hold", "12"]);
    assert_eq!(o.rc, 1);
}

#[test]
fn unknown_cluster_is_refused() {
    let o = run(&["squeue", "-M", "other"]);
    assert_eq!(o.rc, 1);
    assert!(text(&o.stderr).contains("'other' can't be reached now"));
    let o = run(&["squeue", "-h", "-M", "refcluster", "-j", "10", "-o", "%i"]);
    assert_eq!(text(&o.stdout), "10\n");
}

/// Format strings are user input: none may panic, whatever they contain.
#[test]
fn arbitrary_formats_do_not_panic() {
    let formats = [
        "%",
        "%%",
        "%.",
        "%.%",
        "%999999999999999999999i",
        "%0i",
        "x%",
        "%all",
        "x%ALL",
        "%ü",
        "ü%i",
        "%-5i",
        "%.18",
        "%5",
        "%N%R%Y%E%b%s",
    ];
    for f in formats {
        run(&["squeue", "-o", f]);
        run(&["squeue", "-s", "-o", f]);
        run(&["sinfo", "-o", f]);
    }
    let long = [
        "",
        ",",
        ":",
        "jobid:",
        "jobid:.",
        "jobid:x",
        "jobid:99999999999999999999",
        "all",
        "ü:3",
        "name:-5",
        "jobid:.5 ,,name",
    ];
    for f in long {
        run(&["squeue", "-O", f]);
        run(&["sinfo", "-O", f]);
    }
    let sacct = [
        "",
        ",",
        "%",
        "jobid%",
        "jobid%-5",
        "a%3",
        "ü",
        "jobid%999999999999",
        " ,jobid",
    ];
    for f in sacct {
        run(&["sacct", "-a", "-o", f]);
    }
}

/// Time specifications and option spellings are user input too.
#[test]
fn arbitrary_times_and_options_do_not_panic() {
    let times = [
        "",
        "now+",
        "now-9999999999999999999weeks",
        "now+99999999999999weeks",
        "uts",
        "uts1",
        "2026-13-01",
        "9999-12-31T23:59:59",
        "12/31/99-23:59",
        "1:",
        "1:2:3:4",
        "noon tomorrow",
        "ü",
        "T",
        "-",
        "00:00 pm",
        "12:00am",
        "0229",
    ];
    for t in times {
        run(&["sacct", "-S", t]);
        run(&["sacct", "-E", t]);
    }
    let args: [&[&str]; 10] = [
        &["squeue", "-"],
        &["squeue", "--"],
        &["squeue", "-j"],
        &["squeue", "--jobs="],
        &["squeue", "-j", ",,"],
        &["squeue", "-u", ",,,"],
        &["sacct", "-j", "1_x"],
        &["sacct", "-j", "1.x"],
        &["sinfo", "-t", "&,&"],
        &["scontrol", "show", "job", "_+"],
    ];
    for a in args {
        run(a);
    }
}
