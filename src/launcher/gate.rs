//! A Backend.AI job's dependency gate, for sites with a job directory (`[backendai]
//! job_dir`, storage that the login nodes and every job container see at one path).
//!
//! Backend.AI knows one kind of dependency: a session starts once the sessions it names
//! have ended with success. On such a site every batch launcher ends its session with
//! success (the job's true end is in its result line and in its result file here), so a
//! session's `dependencies` mean "these have ended", and the launcher of the dependent job
//! decides at its start, from the results its dependencies left in the job directory,
//! whether Slurm's condition (`afterok`, `afternotok`, `afterany`, `aftercorr`, joined by
//! `,` or `?`) holds. When it does not, the job ends at once without running its script, as
//! slurmctld ends a job whose dependency can never be satisfied under
//! `kill_invalid_depend`: CANCELLED, reason DependencyNeverSatisfied.

use super::meta::{LaunchResult, ResultKind};
use crate::model::dependency::end_condition;
use crate::model::{DepKind, DepStatus};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a job's launcher checks before it runs the script.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Gate {
    /// `?`: one satisfied item is enough (otherwise every item must be).
    pub any: bool,
    pub items: Vec<GateItem>,
}

/// One `--dependency` item and the jobs (`123`, `123_4`: every task of an array it names)
/// whose results decide it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateItem {
    pub kind: DepKind,
    pub jobs: Vec<String>,
}

/// The name a job's (or array task's) result has in the job directory.
pub fn result_name(job_id: u32, task: Option<u32>) -> String {
    match task {
        Some(t) => format!("{job_id}_{t}"),
        None => job_id.to_string(),
    }
}

/// `<job_dir>/<uid>/<name>.result`.
pub fn result_path(job_dir: &Path, uid: u32, name: &str) -> PathBuf {
    job_dir.join(uid.to_string()).join(format!("{name}.result"))
}

/// `<job_dir>/<uid>.running`: what the login side changed about the owner's running jobs
/// (`backend::backendai::marks`).
pub fn running_dir(job_dir: &Path, uid: u32) -> PathBuf {
    job_dir.join(format!("{uid}.running"))
}

/// `<job_dir>/<uid>.running/<name>.limit`: a running job's time limit changed after it
/// started (seconds or `infinite`, as the local backend's limit file), written by the
/// login side, polled by the job's launcher.
pub fn limit_mark_path(job_dir: &Path, uid: u32, name: &str) -> PathBuf {
    running_dir(job_dir, uid).join(format!("{name}.limit"))
}

/// Leaves the job's result for the jobs that depend on it (written whole, then renamed, so
/// a reader never sees half of it).
pub fn write_result(
    job_dir: &Path,
    uid: u32,
    name: &str,
    result: &LaunchResult,
) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let path = result_path(job_dir, uid, name);
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let tmp = path.with_extension(format!("result.{}", std::process::id()));
    std::fs::write(&tmp, format!("{}\n", result.words()))?;
    std::fs::rename(&tmp, &path)
}

/// The result a job's launcher left, if it has ended.
pub fn read_result(job_dir: &Path, uid: u32, name: &str) -> Option<LaunchResult> {
    let text = std::fs::read_to_string(result_path(job_dir, uid, name)).ok()?;
    LaunchResult::from_words(&text)
}

/// Whether the job may run. `Err` says why it never will (the dependencies' results, or
/// their absence, make the condition false).
pub fn open(gate: &Gate, job_dir: &Path, uid: u32) -> Result<(), String> {
    let mut why = Vec::new();
    let statuses: Vec<DepStatus> = gate
        .items
        .iter()
        .map(|item| {
            let results: Vec<Option<LaunchResult>> = item
                .jobs
                .iter()
                .map(|j| read_result(job_dir, uid, j))
                .collect();
            // Backend.AI started us, so they ended; one that left no result never ran
            // (cancelled while it waited, or its session failed to start): an end
            // without success, as slurmctld counts a cancelled job.
            let missing: Vec<&str> = item
                .jobs
                .iter()
                .zip(&results)
                .filter(|(_, r)| r.is_none())
                .map(|(j, _)| j.as_str())
                .collect();
            let complete = missing.is_empty()
                && results
                    .iter()
                    .flatten()
                    .all(|r| r.kind == ResultKind::Exited && r.exit.is_success());
            let status = end_condition(item.kind, true, complete);
            if status == DepStatus::Failed {
                why.push(format!(
                    "{}:{} {}",
                    item.kind.name(),
                    item.jobs.join(":"),
                    if complete {
                        "completed".to_string()
                    } else if !missing.is_empty() {
                        format!(
                            "did not complete (no result of {}: never ran)",
                            missing.join(",")
                        )
                    } else {
                        "did not complete".to_string()
                    }
                ));
            }
            status
        })
        .collect();
    let satisfied = if gate.any {
        statuses.is_empty() || statuses.contains(&DepStatus::Fulfilled)
    } else {
        statuses.iter().all(|s| *s == DepStatus::Fulfilled)
    };
    if satisfied {
        Ok(())
    } else {
        Err(why.join("; "))
    }
}

/// Whether a `?` gate already holds before every job it names has ended: one of its items
/// has the results of all its jobs and is satisfied by them (its session can then start
/// at once, and [`open`] passes it on that item whatever the others left).
pub fn an_alternative_holds(gate: &Gate, job_dir: &Path, uid: u32) -> bool {
    gate.any
        && gate.items.iter().any(|item| {
            let results: Option<Vec<LaunchResult>> = item
                .jobs
                .iter()
                .map(|j| read_result(job_dir, uid, j))
                .collect();
            results.is_some_and(|rs| {
                let complete = rs
                    .iter()
                    .all(|r| r.kind == ResultKind::Exited && r.exit.is_success());
                !item.jobs.is_empty()
                    && end_condition(item.kind, true, complete) == DepStatus::Fulfilled
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ExitStatus;

    fn leave(dir: &Path, name: &str, kind: ResultKind, code: i32) {
        let r = LaunchResult {
            kind,
            exit: ExitStatus::code(code),
            end: Some(1_764_000_000),
        };
        write_result(dir, 1001, name, &r).unwrap();
    }

    fn item(kind: DepKind, jobs: &[&str]) -> GateItem {
        GateItem {
            kind,
            jobs: jobs.iter().map(|j| j.to_string()).collect(),
        }
    }

    #[test]
    fn the_gate_reads_each_type_from_the_results_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        leave(d, "10", ResultKind::Exited, 0);
        leave(d, "11", ResultKind::Exited, 3);
        leave(d, "12_0", ResultKind::Exited, 0);
        leave(d, "12_1", ResultKind::TimedOut, 0);
        let gate = |any, items: Vec<GateItem>| Gate { any, items };
        assert!(open(&gate(false, vec![item(DepKind::AfterOk, &["10"])]), d, 1001).is_ok());
        let why = open(&gate(false, vec![item(DepKind::AfterOk, &["11"])]), d, 1001).unwrap_err();
        assert_eq!(why, "afterok:11 did not complete");
        assert!(
            open(
                &gate(false, vec![item(DepKind::AfterNotOk, &["11"])]),
                d,
                1001
            )
            .is_ok()
        );
        assert!(
            open(
                &gate(false, vec![item(DepKind::AfterNotOk, &["10"])]),
                d,
                1001
            )
            .is_err()
        );
        assert!(
            open(
                &gate(false, vec![item(DepKind::AfterAny, &["11"])]),
                d,
                1001
            )
            .is_ok()
        );
        // A whole array: every task must have completed.
        assert!(
            open(
                &gate(false, vec![item(DepKind::AfterOk, &["12_0", "12_1"])]),
                d,
                1001
            )
            .is_err()
        );
        assert!(
            open(
                &gate(false, vec![item(DepKind::AfterCorr, &["12_0"])]),
                d,
                1001
            )
            .is_ok()
        );
        // `,` needs all, `?` one.
        let both = vec![
            item(DepKind::AfterOk, &["10"]),
            item(DepKind::AfterOk, &["11"]),
        ];
        assert!(open(&gate(false, both.clone()), d, 1001).is_err());
        assert!(open(&gate(true, both), d, 1001).is_ok());
        // Another user's directory holds none of these.
        assert!(open(&gate(false, vec![item(DepKind::AfterOk, &["10"])]), d, 1002).is_err());
    }

    #[test]
    fn a_job_that_left_no_result_ended_without_success() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let one = |kind| Gate {
            any: false,
            items: vec![item(kind, &["7"])],
        };
        let why = open(&one(DepKind::AfterOk), d, 1001).unwrap_err();
        assert_eq!(
            why,
            "afterok:7 did not complete (no result of 7: never ran)"
        );
        assert!(open(&one(DepKind::AfterNotOk), d, 1001).is_ok());
        assert!(open(&one(DepKind::AfterAny), d, 1001).is_ok());
    }

    #[test]
    fn an_alternative_holds_once_one_item_is_decided_and_satisfied() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let gate = |any| Gate {
            any,
            items: vec![
                item(DepKind::AfterOk, &["20"]),
                item(DepKind::AfterOk, &["21", "22"]),
            ],
        };
        // Nothing has ended yet.
        assert!(!an_alternative_holds(&gate(true), d, 1001));
        // One job of the second item ended: it is not decided yet.
        leave(d, "21", ResultKind::Exited, 0);
        assert!(!an_alternative_holds(&gate(true), d, 1001));
        // The first ended without success: that item fails, the other still waits.
        leave(d, "20", ResultKind::Exited, 1);
        assert!(!an_alternative_holds(&gate(true), d, 1001));
        leave(d, "22", ResultKind::Exited, 0);
        assert!(an_alternative_holds(&gate(true), d, 1001));
        // `,` needs every item: not this question.
        assert!(!an_alternative_holds(&gate(false), d, 1001));
        assert!(open(&gate(true), d, 1001).is_ok());
    }
}
