//! Job array task sets, printed as Slurm prints its task bitmaps (`0-3`, `1,3,5-7`).

use serde::{Deserialize, Serialize};

/// Slurm's default MaxArraySize: array task ids are below it unless the site says otherwise.
pub const DEFAULT_MAX_ARRAY_SIZE: u32 = 1001;

/// Which array a record belongs to, and which of its tasks it stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArrayPart {
    /// One task that has been split off to run (or ran) on its own.
    Task { array_job_id: u32, task_id: u32 },
    /// The array's meta record, holding every task that has not started yet.
    Pending {
        array_job_id: u32,
        tasks: Vec<u32>,
        throttle: Option<u32>,
    },
}

impl ArrayPart {
    pub fn array_job_id(&self) -> u32 {
        match self {
            ArrayPart::Task { array_job_id, .. } | ArrayPart::Pending { array_job_id, .. } => {
                *array_job_id
            }
        }
    }

    /// The task part of an id: `4`, or `[0-3%2]` for the pending meta record.
    pub fn task_display(&self) -> String {
        match self {
            ArrayPart::Task { task_id, .. } => task_id.to_string(),
            ArrayPart::Pending {
                tasks, throttle, ..
            } => format!("[{}]", pending_tasks_str(tasks, *throttle)),
        }
    }
}

/// `0-3%2`: the pending tasks as ranges with the throttle, as squeue %K and scontrol show them.
pub fn pending_tasks_str(tasks: &[u32], throttle: Option<u32>) -> String {
    let mut s = ranges(tasks);
    if let Some(t) = throttle {
        s.push_str(&format!("%{t}"));
    }
    s
}

/// Compresses sorted task ids into `a-b,c` ranges.
pub fn ranges(tasks: &[u32]) -> String {
    let mut sorted = tasks.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compress() {
        assert_eq!(ranges(&[0, 1, 2, 3]), "0-3");
        assert_eq!(ranges(&[1, 3, 5, 6, 7]), "1,3,5-7");
        assert_eq!(ranges(&[0, 4, 8]), "0,4,8");
        assert_eq!(pending_tasks_str(&[1, 2, 3], Some(2)), "1-3%2");
    }
}
