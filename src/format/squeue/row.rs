//! One line of squeue's job view: a job record plus what squeue changes while preparing
//! it (the partition shown with `-P`, merged array tasks, the merged reason).

use crate::model::{ArrayPart, JobRecord};
use std::borrow::Cow;

#[derive(Debug, Clone)]
pub struct JobRow<'a> {
    pub job: &'a JobRecord,
    /// The partition this line shows (one of a multi-partition job's with `-P`).
    pub partition: Cow<'a, str>,
    /// That partition's PriorityTier, the first key of the priority sort.
    pub part_prio: u32,
    /// 0 when the job is not part of an array, as in Slurm.
    pub array_job_id: u32,
    /// `None` stands for NO_VAL: not an array task (or the pending meta record).
    pub array_task_id: Option<u32>,
    /// The pending meta record's task ranges (`0-3%2`).
    pub array_task_str: Option<String>,
    /// The meta record's pending task ids (its bitmap).
    pub tasks: Option<Vec<u32>>,
    /// State description or reason, merged over combined array tasks.
    pub reason: Cow<'a, str>,
    /// Copies of the record's fields the default sort (`P,t,-p` after start time) reads,
    /// kept in the row so that sorting many jobs stays within the cache.
    pub start_time: i64,
    pub pending: bool,
    pub priority: u32,
    pub state_compact: &'static str,
}

impl<'a> JobRow<'a> {
    pub fn new(job: &'a JobRecord) -> JobRow<'a> {
        let (array_job_id, array_task_id, array_task_str, tasks) = match &job.array {
            None => (0, None, None, None),
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }) => (*array_job_id, Some(*task_id), None, None),
            // A meta record whose every task was cancelled keeps no task string.
            Some(ArrayPart::Pending {
                array_job_id,
                tasks,
                ..
            }) if tasks.is_empty() => (*array_job_id, None, None, None),
            Some(ArrayPart::Pending {
                array_job_id,
                tasks,
                throttle,
            }) => (
                *array_job_id,
                None,
                Some(crate::model::array::pending_tasks_str(tasks, *throttle)),
                Some(tasks.clone()),
            ),
        };
        JobRow {
            job,
            partition: Cow::Borrowed(&job.partition),
            part_prio: 1,
            array_job_id,
            array_task_id,
            array_task_str,
            tasks,
            reason: Cow::Borrowed(&job.reason),
            start_time: job.start_time.unwrap_or(0),
            pending: job.state == crate::model::JobState::Pending,
            priority: job.priority,
            state_compact: crate::format::common::state_compact(job),
        }
    }

    /// The id used by squeue's `i` sort and `%A`-style lookups: the array id for tasks.
    pub fn is_array(&self) -> bool {
        self.array_task_str.is_some() || self.array_task_id.is_some()
    }
}
