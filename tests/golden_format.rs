//! Golden tests: every text capture of squeue, sacct, sinfo and scontrol that real Slurm
//! 22.05.8 produced (tests/golden/INDEX.md), reproduced in-process from the recorded
//! cluster state and compared byte for byte (stdout, stderr, exit code).
//!
//! Each test prints `N/M identical` and a diff of every case that differs, and fails
//! when the set of differing cases is not exactly the known list below, so the score
//! can only go up (update the list when a case is fixed).

mod support;

use support::golden::report;

fn check(prog: &str, known: &[(&str, &str)]) {
    let known: Vec<&str> = known.iter().map(|(name, _why)| *name).collect();
    let (differ, total) = report(prog);
    assert!(total > 0, "no golden cases for {prog}");
    let mut want: Vec<String> = known.iter().map(|s| s.to_string()).collect();
    want.sort();
    let mut got = differ;
    got.sort();
    assert_eq!(
        got, want,
        "the cases of {prog} that differ from real Slurm changed"
    );
}

#[test]
fn golden_squeue() {
    check("squeue", &[]);
}

#[test]
fn golden_sacct() {
    check("sacct", &[]);
}

#[test]
fn golden_sinfo() {
    check("sinfo", &[]);
}

#[test]
fn golden_scontrol() {
    check("scontrol", &[]);
}

/// The `_records` of each phase are themselves real Slurm output: `squeue --json -t all`,
/// `squeue --yaml -t all`, `sinfo --json` and `sacct --json -a -S 2020-01-01T00:00:00 -E
/// now`, run as root (capture-golden.sh `snap`). Rendering the loaded records again must
/// give those bytes back — 16 more captures, covering arrays, time-outs, cancellations,
/// srun steps with usage statistics and a drained node.
#[test]
fn golden_records_round_trip() {
    support::golden::setup();
    let mut differ = Vec::new();
    let mut total = 0;
    for phase in ["P1", "P2", "P3", "drain"] {
        let dir = support::recorded::golden_dir().join("_records").join(phase);
        let now: i64 = std::fs::read_to_string(dir.join("now"))
            .expect("now")
            .trim()
            .parse()
            .expect("now");
        let sacct = [
            "sacct",
            "--json",
            "-a",
            "-S",
            "2020-01-01T00:00:00",
            "-E",
            "now",
        ];
        for (argv, file) in [
            (&["squeue", "--json", "-t", "all"][..], "squeue.json"),
            (&["squeue", "--yaml", "-t", "all"][..], "squeue.yaml"),
            (&["sinfo", "--json"][..], "sinfo.json"),
            (&sacct[..], "sacct.json"),
        ] {
            total += 1;
            let want = std::fs::read(dir.join(file)).expect(file);
            let got = support::golden::run_line(argv, "root", phase, now, &[]);
            if got.stdout != want || got.rc != 0 || !got.stderr.is_empty() {
                println!("  {phase}/{file}:");
                print!("{}", support::golden::diff(&want, &got.stdout));
                differ.push(format!("{phase}/{file}"));
            }
        }
    }
    println!("golden records: {}/{total} identical", total - differ.len());
    assert!(differ.is_empty(), "records not reproduced: {differ:?}");
}
