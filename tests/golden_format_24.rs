//! Golden tests of the 24.11 profile: every capture of squeue, sacct, sinfo and scontrol
//! that real Slurm 24.11.5 produced (tests/golden/24.11/INDEX.md, the same scenario as the
//! 22.05 set plus 12 captures only 24.11 has), reproduced in-process under
//! `slurm_version = "24.11"` from the recorded cluster state of that run and compared byte
//! for byte (stdout, stderr, exit code).
//!
//! It prints `golden 24.11 <prog>: N/M identical` per command and `golden 24.11: N/M
//! identical` over all of them, and fails when the set of differing cases is not exactly
//! the known list below (with the reason of each), so the score can only go up.

mod support;

use support::golden::{Set, report_in};

/// Cases that differ, and why.
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn golden_24_11() {
    let mut differ = Vec::new();
    let mut total = 0;
    for prog in ["squeue", "sacct", "sinfo", "scontrol"] {
        let (d, n) = report_in(Set::V24_11, prog);
        assert!(n > 0, "no 24.11 golden cases for {prog}");
        differ.extend(d);
        total += n;
    }
    println!(
        "golden 24.11: {}/{total} identical (squeue, sacct, sinfo, scontrol)",
        total - differ.len()
    );
    let mut want: Vec<String> = KNOWN.iter().map(|(n, _)| n.to_string()).collect();
    want.sort();
    differ.sort();
    assert_eq!(
        differ, want,
        "the 24.11 cases that differ from real Slurm changed"
    );
}
