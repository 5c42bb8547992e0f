//! Job id arguments as squeue -j, scancel and sacct -j accept them:
//! `123`, `123_4`, `123_[1-3,7]`, `123_*`, `123.batch`, `123_4.0`.

use super::job::{JobRecord, StepId};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TaskSelector {
    /// A plain id: the job with that id, or every task of the array with that id.
    Whole,
    /// `_*`: every task of the array.
    AllTasks,
    /// `_4` or `_[1-3,7]`.
    Tasks(Vec<u32>),
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobSelector {
    pub job_id: u32,
    pub tasks: TaskSelector,
    pub step: Option<StepId>,
}

impl JobSelector {
    /// The whole job (every task of an array), no step.
    pub fn whole(job_id: u32) -> JobSelector {
        JobSelector {
            job_id,
            tasks: TaskSelector::Whole,
            step: None,
        }
    }

    /// Parses one id; `None` when it is not one of Slurm's forms (or the id is 0).
    pub fn parse(s: &str) -> Option<JobSelector> {
        let (job_part, step) = match s.split_once('.') {
            Some((j, st)) => (j, Some(StepId::parse(st)?)),
            None => (s, None),
        };
        let (id, tasks) = match job_part.split_once('_') {
            None => (job_part, TaskSelector::Whole),
            Some((id, "*")) => (id, TaskSelector::AllTasks),
            Some((id, t)) => {
                let inner = t
                    .strip_prefix('[')
                    .and_then(|t| t.strip_suffix(']'))
                    .unwrap_or(t);
                (id, TaskSelector::Tasks(parse_task_list(inner)?))
            }
        };
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let job_id: u32 = id.parse().ok()?;
        if job_id == 0 {
            return None;
        }
        Some(JobSelector {
            job_id,
            tasks,
            step,
        })
    }

    /// Whether a job record is (part of) what this selector names.
    pub fn matches(&self, job: &JobRecord) -> bool {
        match &self.tasks {
            TaskSelector::Whole => {
                job.job_id == self.job_id
                    || job.array_job_id() == self.job_id && job.array.is_some()
            }
            TaskSelector::AllTasks => job.array_job_id() == self.job_id,
            TaskSelector::Tasks(ids) => {
                job.array_job_id() == self.job_id
                    && match &job.array {
                        Some(super::array::ArrayPart::Task { task_id, .. }) => {
                            ids.contains(task_id)
                        }
                        Some(super::array::ArrayPart::Pending { tasks, .. }) => {
                            tasks.iter().any(|t| ids.contains(t))
                        }
                        None => false,
                    }
            }
        }
    }
}

/// `1-3,7` (ranges with optional `:step`) into task ids.
pub fn parse_task_list(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let (range, step) = match part.split_once(':') {
            Some((r, st)) => (r, st.parse::<u32>().ok().filter(|&v| v > 0)?),
            None => (part, 1),
        };
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?),
            None => {
                let v = range.parse::<u32>().ok()?;
                (v, v)
            }
        };
        if b < a || b - a > 10_000_000 {
            return None;
        }
        out.extend((a..=b).step_by(step as usize));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_slurm_forms() {
        assert_eq!(
            JobSelector::parse("123").unwrap().tasks,
            TaskSelector::Whole
        );
        assert_eq!(
            JobSelector::parse("123_4").unwrap().tasks,
            TaskSelector::Tasks(vec![4])
        );
        assert_eq!(
            JobSelector::parse("123_[1-3,7]").unwrap().tasks,
            TaskSelector::Tasks(vec![1, 2, 3, 7])
        );
        assert_eq!(
            JobSelector::parse("123_*").unwrap().tasks,
            TaskSelector::AllTasks
        );
        assert_eq!(
            JobSelector::parse("123.batch").unwrap().step,
            Some(StepId::Batch)
        );
        assert_eq!(
            JobSelector::parse("123_4.0").unwrap().step,
            Some(StepId::Numbered(0))
        );
        for bad in ["abc", "", "0", "12a", "1_x", "1.x", "-5", "1_[3-1]"] {
            assert!(JobSelector::parse(bad).is_none(), "{bad}");
        }
    }
}
