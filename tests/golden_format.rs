//! Golden tests: every text capture of squeue, sacct, sinfo and scontrol that real Slurm
//! 22.05.8 produced (tests/golden/INDEX.md), reproduced in-process from the recorded
//! cluster state and compared byte for byte (stdout, stderr, exit code).
//!
//! Each test prints `N/M identical` and a diff of every case that differs, and fails
//! when the set of differing cases is not exactly the known list below, so the score
//! can only go up (update the list when a case is fixed).

mod support;

use support::golden::report;

fn check(prog: &str, known: &[&str]) {
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
