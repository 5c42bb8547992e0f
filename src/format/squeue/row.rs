//! One line of squeue's job view: a job record plus what squeue changes while preparing
//! it (the partition shown with `-P`, merged array tasks, the merged reason).

use crate::model::{ArrayPart, JobRecord};

#[derive(Debug, Clone)]
pub struct JobRow<'a> {
    pub job: &'a JobRecord,
    /// The partition this line shows (one of a multi-partition job's with `-P`).
    pub partition: String,
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
    pub reason: String,
}

impl<'a> JobRow<'a> {
    pub fn new(job: &'a JobRecord) -> JobRow<'a> {
        let (array_job_id, array_task_id, array_task_str, tasks) = match &job.array {
            None => (0, None, None, None),
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }) => (*array_job_id, Some(*task_id), None, None),
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
            partition: job.partition.clone(),
            part_prio: 1,
            array_job_id,
            array_task_id,
            array_task_str,
            tasks,
            reason: job.reason.clone(),
        }
    }

    /// The id used by squeue's `i` sort and `%A`-style lookups: the array id for tasks.
    pub fn is_array(&self) -> bool {
        self.array_task_str.is_some() || self.array_task_id.is_some()
    }
}
