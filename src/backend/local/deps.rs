//! Dependency evaluation, as slurmctld's `test_job_dependency` does it: each item becomes
//! fulfilled or failed once and stays so (its `status`); `,` needs all items, `?` needs one.

use super::db::JobRow;
use crate::model::{ArrayPart, DepItem, DepKind, DepStatus, DepTarget, JobState};

/// What the dependency as a whole means for scheduling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepOutcome {
    None,
    Satisfied,
    Waiting,
    NeverSatisfied,
}

/// Facts about the job(s) a dependency item points at.
#[derive(Debug, Clone, Copy)]
struct TargetState {
    /// Every record finished COMPLETED (exit 0).
    complete: bool,
    /// Every record finished, in any state.
    completed: bool,
    /// Some record is still pending.
    pending: bool,
    /// Earliest start among the records.
    start: Option<i64>,
}

fn target_state(records: &[&JobRow]) -> TargetState {
    TargetState {
        complete: records.iter().all(|r| r.state == JobState::Completed),
        completed: records.iter().all(|r| r.state.is_finished()),
        pending: records.iter().any(|r| r.state == JobState::Pending),
        start: records.iter().filter_map(|r| r.start_time).min(),
    }
}

/// Looks up the records an item names. Empty means the job is gone (dependency lifted).
fn target_records<'a>(target: DepTarget, jobs: &'a [JobRow]) -> Vec<&'a JobRow> {
    let array_members = |id: u32| -> Vec<&'a JobRow> {
        jobs.iter()
            .filter(|j| j.array.as_ref().is_some_and(|a| a.array_job_id() == id))
            .collect()
    };
    match target {
        DepTarget::Job(id) => match jobs.iter().find(|j| j.job_id == id) {
            // A plain id naming an array's own id means the whole array.
            Some(j) if j.array.as_ref().is_some_and(|a| a.array_job_id() == id) => {
                array_members(id)
            }
            Some(j) => vec![j],
            None => Vec::new(),
        },
        DepTarget::WholeArray(id) => array_members(id),
        DepTarget::Task(id, task) => array_members(id)
            .into_iter()
            .filter(|j| match &j.array {
                Some(ArrayPart::Task { task_id, .. }) => *task_id == task,
                Some(ArrayPart::Pending { tasks, .. }) => tasks.contains(&task),
                None => false,
            })
            .collect(),
    }
}

fn test_item(item: &DepItem, job: &JobRow, jobs: &[JobRow], now: i64) -> DepStatus {
    if item.kind == DepKind::Singleton {
        let blocked = jobs.iter().any(|q| {
            q.job_id != job.job_id
                && q.uid == job.uid
                && q.name == job.name
                && (matches!(q.state, JobState::Running | JobState::Suspended)
                    || (q.state == JobState::Pending && q.job_id < job.job_id))
        });
        return if blocked {
            DepStatus::Unfulfilled
        } else {
            DepStatus::Fulfilled
        };
    }
    let Some(target) = item.target else {
        return DepStatus::Failed;
    };
    let mut records = target_records(target, jobs);
    if item.kind == DepKind::AfterCorr {
        // aftercorr: task N waits for task N of the other array when that task exists.
        // A meta record is judged by the task it would start next.
        let mine = match &job.array {
            Some(ArrayPart::Task { task_id, .. }) => Some(*task_id),
            Some(ArrayPart::Pending { tasks, .. }) => tasks.iter().min().copied(),
            None => None,
        };
        if let Some(t) = mine {
            let corr = target_records(DepTarget::Task(target.job_id(), t), jobs);
            if !corr.is_empty() {
                records = corr;
            }
        }
    }
    if records.is_empty() {
        return DepStatus::Fulfilled;
    }
    let t = target_state(&records);
    match item.kind {
        DepKind::After => {
            let delay = i64::from(item.delay_minutes) * 60;
            if !t.pending && (delay == 0 || t.start.is_some_and(|s| now - s >= delay)) {
                DepStatus::Fulfilled
            } else {
                DepStatus::Unfulfilled
            }
        }
        DepKind::AfterAny
        | DepKind::AfterBurstBuffer
        | DepKind::AfterNotOk
        | DepKind::AfterOk
        | DepKind::AfterCorr => {
            crate::model::dependency::end_condition(item.kind, t.completed, t.complete)
        }
        // Growing a running job is not something the local backend can do.
        DepKind::Expand => DepStatus::Failed,
        DepKind::Singleton => unreachable!("handled above"),
    }
}

/// Updates the status of every item still unfulfilled and returns the overall outcome.
pub fn evaluate(job: &mut JobRow, jobs: &[JobRow], now: i64) -> DepOutcome {
    let Some(mut dep) = job.dependency.take() else {
        return DepOutcome::None;
    };
    if dep.items.is_empty() {
        job.dependency = Some(dep);
        return DepOutcome::None;
    }
    for item in dep.items.iter_mut() {
        if item.status == DepStatus::Unfulfilled {
            item.status = test_item(item, job, jobs, now);
        }
    }
    let has = |s: DepStatus| dep.items.iter().any(|i| i.status == s);
    let outcome = if dep.any {
        if has(DepStatus::Fulfilled) {
            DepOutcome::Satisfied
        } else if has(DepStatus::Unfulfilled) {
            DepOutcome::Waiting
        } else {
            DepOutcome::NeverSatisfied
        }
    } else if has(DepStatus::Failed) {
        DepOutcome::NeverSatisfied
    } else if has(DepStatus::Unfulfilled) {
        DepOutcome::Waiting
    } else {
        DepOutcome::Satisfied
    };
    job.dependency = Some(dep);
    outcome
}
