//! Commands about one job do work independent of the queue's size (issue 16): with 10,000
//! jobs queued, `scontrol show job ID`, `squeue -j ID`, `sacct -j ID` and `scancel ID` read
//! only that job's records from the state store. Counted, not timed: each command runs with
//! `BAI_SLURM_ROW_LOG`, where every process notes the job records it has read.

mod harness;

use harness::{Cluster, secs};
use std::process::Stdio;

const QUEUED: u32 = 10_000;

/// Copies job `template`'s record `n` times, with the ids after the last one: 10,000
/// sbatch runs would take minutes, and what is measured is reading, not submitting.
fn queue_copies(c: &Cluster, template: u32, n: u32) -> u32 {
    let conn = rusqlite::Connection::open(c.state.join("state.db")).expect("state.db");
    conn.busy_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('jobs')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let first: u32 = conn
        .query_row("SELECT MAX(job_id) + 1 FROM jobs", [], |r| r.get(0))
        .unwrap();
    let values: Vec<String> = columns
        .iter()
        .map(|c| match c.as_str() {
            "job_id" | "submission_id" => format!("{first} + n"),
            other => other.to_string(),
        })
        .collect();
    let seq = format!(
        "WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n + 1 < {n})"
    );
    // each copy with its own submission, as sbatch makes them
    let added = conn
        .execute(
            &format!(
                "{seq} INSERT INTO submissions (submission_id, spec, script)
                 SELECT {first} + n, spec, script FROM submissions, seq
                 WHERE submission_id = (SELECT submission_id FROM jobs WHERE job_id = {template})"
            ),
            [],
        )
        .expect("copy the held job's submission");
    assert_eq!(added, n as usize);
    let added = conn
        .execute(
            &format!(
                "{seq} INSERT INTO jobs ({}) SELECT {} FROM jobs, seq WHERE job_id = {template}",
                columns.join(", "),
                values.join(", ")
            ),
            [],
        )
        .expect("copy the held job");
    assert_eq!(added, n as usize);
    first
}

/// Runs a command with the row log; returns its exit code and the job records it read.
fn rows_read(c: &Cluster, name: &str, args: &[&str]) -> (i32, u64, String) {
    let (code, rows, _, shown) = logged_run(c, name, args);
    (code, rows, shown)
}

/// Runs a command with the row log; returns its exit code, the job records it read, the
/// times it opened the database (one line each) and what it printed.
fn logged_run(c: &Cluster, name: &str, args: &[&str]) -> (i32, u64, usize, String) {
    let mut tag = args.join("_").replace('/', "");
    tag.truncate(64);
    let log = c.path(&format!("rows-{name}-{tag}"));
    let mut cmd = c.cmd(name);
    cmd.args(args)
        .env("BAI_SLURM_ROW_LOG", &log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = std::time::Instant::now();
    let child = cmd.spawn().expect("run the command");
    let pid = child.id().to_string();
    let out = child.wait_with_output().unwrap();
    eprintln!("({name} {tag}: {:?})", started.elapsed());
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    // The command's own lines (a runner it woke writes its own pid).
    let own: Vec<u64> = text
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(p, _)| *p == pid)
        .filter_map(|(_, n)| n.parse::<u64>().ok())
        .collect();
    let rows = own.iter().copied().max().unwrap_or(0);
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), rows, own.len(), shown)
}

#[test]
fn single_job_commands_read_only_their_job_with_10000_queued() {
    let c = Cluster::new(2, 4096, 2);
    let done = c.submit(&["--wrap", "true"]);
    c.wait_done(&done.to_string(), secs(30));
    // A job waiting for resources behind one that holds both CPUs: its expected start is
    // the queue runner's plan, stored, not planned again by each command.
    let blocker = c.submit(&["-c", "2", "-t", "10", "--wrap", "sleep 300"]);
    c.wait_state(&blocker.to_string(), "RUNNING", secs(30));
    let waiting = c.submit(&["-t", "5", "--wrap", "true"]).to_string();
    let held = c.submit(&["--hold", "--wrap", "true"]);
    let first = queue_copies(&c, held, QUEUED);
    let pending = (first + QUEUED / 2).to_string();
    let other = (first + QUEUED / 2 + 1).to_string();
    let done = done.to_string();

    // The whole queue is read where it must be: the counter counts.
    let (code, all, shown) = rows_read(&c, "squeue", &["-h"]);
    assert_eq!(code, 0, "{shown}");
    assert!(all > u64::from(QUEUED), "squeue read {all} records");

    let planned_start = || {
        let (_, _, shown) = rows_read(&c, "squeue", &["-h", "-j", &waiting, "-o", "%S"]);
        shown.trim().to_string()
    };
    let deadline = std::time::Instant::now() + secs(30);
    while planned_start() == "N/A" && std::time::Instant::now() < deadline {
        std::thread::sleep(secs(1) / 4);
    }
    let (code, rows, shown) = rows_read(&c, "scontrol", &["show", "job", &waiting]);
    assert_eq!(code, 0, "{shown}");
    println!("scontrol show job (waiting for resources): {rows} job records read");
    assert!(
        rows <= 4,
        "read {rows} job records with {QUEUED} queued: {shown}"
    );
    assert!(
        shown.contains("SchedNodeList=") && !shown.contains("StartTime=Unknown"),
        "the runner's plan shows: {shown}"
    );
    for (name, args) in [
        ("scontrol", vec!["show", "job", done.as_str()]),
        ("scontrol", vec!["show", "job", pending.as_str()]),
        ("squeue", vec!["-h", "-t", "all", "-j", done.as_str()]),
        ("squeue", vec!["-h", "-j", pending.as_str()]),
        ("sacct", vec!["-n", "-X", "-j", done.as_str()]),
        (
            "scontrol",
            vec!["update", &format!("JobId={other}"), "Comment=x"],
        ),
        ("scontrol", vec!["release", other.as_str()]),
        ("scancel", vec![pending.as_str()]),
    ] {
        let (code, rows, shown) = rows_read(&c, name, &args);
        assert_eq!(code, 0, "{name} {args:?}: {shown}");
        println!("{name} {}: {rows} job records read", args.join(" "));
        assert!(
            rows <= 4,
            "{name} {args:?} read {rows} job records with {QUEUED} queued: {shown}"
        );
    }
    // and the cancel took
    let (_, _, shown) = rows_read(
        &c,
        "squeue",
        &["-h", "-t", "all", "-j", &pending, "-o", "%T"],
    );
    assert_eq!(shown, "CANCELLED\n");
    // A long list of ids is answered from one load of the queue, not a lookup each (the
    // command fuzzer found a hold of thousands of ids taking seconds).
    let unknown: Vec<String> = (1..=5000)
        .map(|i| (first + QUEUED + i).to_string())
        .collect();
    let list = unknown.join(",");
    for verb in ["hold", "uhold", "release", "suspend", "resume"] {
        let (code, _, opens, shown) = logged_run(&c, "scontrol", &[verb, &list]);
        assert_eq!(
            code,
            1,
            "scontrol {verb}: {}",
            &shown[..shown.len().min(500)]
        );
        assert_eq!(
            shown.lines().filter(|l| l.contains(" for job ")).count(),
            5000,
            "scontrol {verb}: one line per id"
        );
        println!("scontrol {verb} of 5000 unknown ids: {opens} database opens");
        assert!(
            opens <= 20,
            "scontrol {verb} of 5000 ids opened the database {opens} times"
        );
    }
    // The copies go as they came (the harness's `scancel -u` at the end would cancel them
    // one by one).
    let conn = rusqlite::Connection::open(c.state.join("state.db")).expect("state.db");
    conn.busy_timeout(std::time::Duration::from_secs(60))
        .unwrap();
    conn.execute_batch(&format!(
        "DELETE FROM jobs WHERE job_id >= {first}; DELETE FROM submissions WHERE submission_id >= {first};"
    ))
    .expect("remove the copies");
}

/// An array of 100,000 tasks is one sbatch that writes one job record (as slurmctld keeps
/// one record until tasks start), under the site's MaxArraySize; beyond it sbatch says
/// what slurmctld says. Counted, not timed.
#[test]
fn a_100000_task_array_is_one_record_within_max_array_size() {
    let c = Cluster::with_config(2, 4096, 2, "max_array_size = 100001\n");
    let (code, _, shown) = rows_read(&c, "sbatch", &["-H", "--array=0-99999", "--wrap", "true"]);
    assert_eq!(code, 0, "{shown}");
    let id = shown.trim().rsplit(' ').next().unwrap().to_string();
    let r = c.run("squeue", &["-h", "-o", "%i %t %r"]);
    assert_eq!(
        r.stdout,
        format!("{id}_[0-99999] PD JobHeldUser\n"),
        "{r:?}"
    );
    let (_, rows, shown) = rows_read(&c, "squeue", &["-h", "-j", &id]);
    assert_eq!(rows, 1, "the array is one record: {shown}");
    let r = c.run("sbatch", &["-H", "--array=0-100001", "--wrap", "true"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "sbatch: error: Batch job submission failed: Invalid job array specification\n"
        ),
        "{r:?}"
    );
    // Slurm's default MaxArraySize is 1001.
    let d = Cluster::new(1, 1024, 2);
    let r = d.run("sbatch", &["-H", "--array=0-1001", "--wrap", "true"]);
    assert_eq!(r.code, 1, "{r:?}");
    let r = d.run("sbatch", &["-H", "--array=0-1000", "--wrap", "true"]);
    assert_eq!(r.code, 0, "{r:?}");
}
