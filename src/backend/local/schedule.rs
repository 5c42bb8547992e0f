//! The local scheduler's decision for one pass: which pending jobs start now and why the
//! others wait. Pure: the queue runner feeds it the records and applies the result.
//!
//! Policy (Slurm's main scheduler with one node, no backfill): pending jobs are taken in
//! priority order (job id breaks ties); the first job that does not fit blocks every
//! lower-priority job (reason `Priority`) so a big job is not starved. A job that could
//! never fit on the node at all does not block others.

use super::db::JobRow;
use super::deps::{self, DepOutcome};
use crate::model::{ArrayPart, JobState};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub cpus: u32,
    pub mem_mb: u64,
}

/// What a pending job needs and when it may start (from its submission).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub cpus: u32,
    pub mem_mb: u64,
    pub begin: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Start the job (for an array's meta record: start this many of its tasks).
    Start {
        tasks: u32,
    },
    Wait {
        reason: &'static str,
    },
}

pub mod reason {
    pub const NONE: &str = "None";
    pub const PRIORITY: &str = "Priority";
    pub const RESOURCES: &str = "Resources";
    pub const DEPENDENCY: &str = "Dependency";
    pub const DEPENDENCY_NEVER: &str = "DependencyNeverSatisfied";
    pub const BEGIN_TIME: &str = "BeginTime";
    pub const HELD_USER: &str = "JobHeldUser";
    pub const HELD_ADMIN: &str = "JobHeldAdmin";
    pub const ARRAY_TASK_LIMIT: &str = "JobArrayTaskLimit";
}

/// Decides every pending job. `jobs` holds all records (for dependencies and running load);
/// pending rows get their dependency states updated in place.
pub fn plan(
    jobs: &mut [JobRow],
    request_of: impl Fn(&JobRow) -> Request,
    node: Capacity,
    now: i64,
) -> Vec<(u32, Decision)> {
    let used_cpus: u32 = jobs
        .iter()
        .filter(|j| j.state == JobState::Running)
        .map(|j| j.alloc_cpus)
        .sum();
    let used_mem: u64 = jobs
        .iter()
        .filter(|j| j.state == JobState::Running)
        .map(|j| j.alloc_mem_mb)
        .sum();
    let mut free_cpus = node.cpus.saturating_sub(used_cpus);
    let mut free_mem = node.mem_mb.saturating_sub(used_mem);

    let mut order: Vec<usize> = (0..jobs.len())
        .filter(|&i| jobs[i].state == JobState::Pending)
        .collect();
    order.sort_by(|&a, &b| {
        jobs[b]
            .priority
            .cmp(&jobs[a].priority)
            .then(jobs[a].job_id.cmp(&jobs[b].job_id))
    });

    let snapshot: Vec<JobRow> = jobs.to_vec();
    let mut blocked = false;
    let mut out = Vec::with_capacity(order.len());
    for i in order {
        let req = request_of(&jobs[i]);
        let job = &mut jobs[i];
        let decision = 'decide: {
            if job.held {
                break 'decide Decision::Wait {
                    reason: if job.reason == reason::HELD_ADMIN {
                        reason::HELD_ADMIN
                    } else {
                        reason::HELD_USER
                    },
                };
            }
            if req.begin.is_some_and(|b| b > now) {
                break 'decide Decision::Wait {
                    reason: reason::BEGIN_TIME,
                };
            }
            match deps::evaluate(job, &snapshot, now) {
                DepOutcome::Waiting => {
                    break 'decide Decision::Wait {
                        reason: reason::DEPENDENCY,
                    };
                }
                DepOutcome::NeverSatisfied => {
                    break 'decide Decision::Wait {
                        reason: reason::DEPENDENCY_NEVER,
                    };
                }
                DepOutcome::None | DepOutcome::Satisfied => {}
            }
            let mut wanted = 1;
            if let Some(ArrayPart::Pending {
                array_job_id,
                tasks,
                throttle,
            }) = &job.array
            {
                let running = snapshot
                    .iter()
                    .filter(|j| {
                        j.state == JobState::Running
                            && matches!(&j.array, Some(ArrayPart::Task { array_job_id: a, .. }) if a == array_job_id)
                    })
                    .count() as u32;
                let allowed = throttle.map_or(u32::MAX, |t| t.saturating_sub(running));
                if allowed == 0 {
                    break 'decide Decision::Wait {
                        reason: reason::ARRAY_TASK_LIMIT,
                    };
                }
                wanted = allowed.min(tasks.len() as u32);
            }
            if req.cpus > node.cpus || req.mem_mb > node.mem_mb {
                break 'decide Decision::Wait {
                    reason: reason::RESOURCES,
                };
            }
            if blocked {
                break 'decide Decision::Wait {
                    reason: reason::PRIORITY,
                };
            }
            let mut started = 0;
            while started < wanted && req.cpus <= free_cpus && req.mem_mb <= free_mem {
                free_cpus -= req.cpus;
                free_mem -= req.mem_mb;
                started += 1;
            }
            if started == 0 {
                blocked = true;
                break 'decide Decision::Wait {
                    reason: reason::RESOURCES,
                };
            }
            if started < wanted {
                blocked = true;
            }
            Decision::Start { tasks: started }
        };
        out.push((job.job_id, decision));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DepItem, DepKind, DepStatus, DepTarget, Dependency, ExitStatus};

    fn row(id: u32, state: JobState) -> JobRow {
        JobRow {
            job_id: id,
            submission_id: id,
            array: None,
            name: format!("j{id}"),
            uid: 1000,
            state,
            flag: Default::default(),
            reason: "None".into(),
            priority: 0xFFFF_0000 - id,
            held: false,
            dependency: None,
            submit_time: 0,
            eligible_time: None,
            start_time: None,
            end_time: None,
            last_sched_eval: None,
            exit: ExitStatus::OK,
            cancelled_by: None,
            alloc_cpus: 1,
            alloc_mem_mb: 100,
            node: None,
            launcher_pid: None,
            launcher_start: None,
            job_pgid: None,
        }
    }

    fn req(_: &JobRow) -> Request {
        Request {
            cpus: 1,
            mem_mb: 100,
            begin: None,
        }
    }

    const NODE: Capacity = Capacity {
        cpus: 2,
        mem_mb: 1000,
    };

    #[test]
    fn fills_the_node_then_blocks_by_priority() {
        let mut jobs = vec![
            row(1, JobState::Pending),
            row(2, JobState::Pending),
            row(3, JobState::Pending),
            row(4, JobState::Pending),
        ];
        let d = plan(&mut jobs, req, NODE, 0);
        assert_eq!(d[0], (1, Decision::Start { tasks: 1 }));
        assert_eq!(d[1], (2, Decision::Start { tasks: 1 }));
        assert_eq!(
            d[2],
            (
                3,
                Decision::Wait {
                    reason: reason::RESOURCES
                }
            )
        );
        assert_eq!(
            d[3],
            (
                4,
                Decision::Wait {
                    reason: reason::PRIORITY
                }
            )
        );
    }

    #[test]
    fn held_and_begin_time_and_dependency_reasons() {
        let mut held = row(2, JobState::Pending);
        held.held = true;
        held.priority = 0;
        let mut dep = row(3, JobState::Pending);
        dep.dependency = Some(Dependency {
            items: vec![DepItem {
                kind: DepKind::AfterOk,
                target: Some(DepTarget::Job(1)),
                delay_minutes: 0,
                status: DepStatus::Unfulfilled,
            }],
            any: false,
        });
        let mut never = row(4, JobState::Pending);
        never.dependency = Some(Dependency {
            items: vec![DepItem {
                kind: DepKind::AfterOk,
                target: Some(DepTarget::Job(5)),
                delay_minutes: 0,
                status: DepStatus::Unfulfilled,
            }],
            any: false,
        });
        let mut failed = row(5, JobState::Failed);
        failed.exit = ExitStatus::code(3);
        let mut jobs = vec![row(1, JobState::Running), held, dep, never, failed];
        let d = plan(&mut jobs, req, NODE, 0);
        let reason_of = |id| d.iter().find(|(j, _)| *j == id).unwrap().1.clone();
        assert_eq!(
            reason_of(2),
            Decision::Wait {
                reason: reason::HELD_USER
            }
        );
        assert_eq!(
            reason_of(3),
            Decision::Wait {
                reason: reason::DEPENDENCY
            }
        );
        assert_eq!(
            reason_of(4),
            Decision::Wait {
                reason: reason::DEPENDENCY_NEVER
            }
        );
        assert_eq!(
            jobs[3].dependency.as_ref().unwrap().items[0].status,
            DepStatus::Failed
        );
    }

    #[test]
    fn array_throttle_limits_running_tasks() {
        let mut meta = row(10, JobState::Pending);
        meta.array = Some(ArrayPart::Pending {
            array_job_id: 10,
            tasks: vec![1, 2, 3],
            throttle: Some(1),
        });
        let mut running = row(11, JobState::Running);
        running.array = Some(ArrayPart::Task {
            array_job_id: 10,
            task_id: 0,
        });
        let mut jobs = vec![meta.clone(), running];
        assert_eq!(
            plan(&mut jobs, req, NODE, 0)[0],
            (
                10,
                Decision::Wait {
                    reason: reason::ARRAY_TASK_LIMIT
                }
            )
        );
        let mut jobs = vec![meta];
        assert_eq!(
            plan(&mut jobs, req, NODE, 0)[0],
            (10, Decision::Start { tasks: 1 })
        );
    }

    #[test]
    fn a_job_that_never_fits_does_not_block_others() {
        let mut jobs = vec![row(1, JobState::Pending), row(2, JobState::Pending)];
        let big = |j: &JobRow| Request {
            cpus: if j.job_id == 1 { 64 } else { 1 },
            mem_mb: 1,
            begin: None,
        };
        let d = plan(&mut jobs, big, NODE, 0);
        assert_eq!(
            d[0],
            (
                1,
                Decision::Wait {
                    reason: reason::RESOURCES
                }
            )
        );
        assert_eq!(d[1], (2, Decision::Start { tasks: 1 }));
    }
}
