//! The local scheduler's decision for one pass: which pending jobs start now and why the
//! others wait. Pure: the queue runner feeds it the records and applies the result.
//!
//! Policy (Slurm's main scheduler, no backfill): pending jobs are taken in priority order
//! (job id breaks ties); the first job that does not fit blocks every lower-priority job
//! (reason `Priority`) so a big job is not starved. A job that could never fit at all does
//! not block others. With several (simulated) nodes, a job of N nodes takes the first N
//! nodes that each have its per-node share free (its CPUs and memory divided evenly, and
//! its GPUs per node). A job of more nodes than the partition has waits with
//! PartitionNodeLimit, blocking nobody.

use super::db::JobRow;
use super::deps::{self, DepOutcome};
use crate::model::{ArrayPart, JobState};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub cpus: u32,
    pub mem_mb: u64,
    /// GPUs free on the node (the runner leaves out those running jobs hold).
    pub gpus: u32,
    /// Not drained, failed or down: the scheduler may start jobs there.
    pub in_service: bool,
}

/// What a pending job needs and when it may start (from its submission). `cpus` and
/// `mem_mb` are the whole job's, over its `nodes`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    pub cpus: u32,
    pub mem_mb: u64,
    pub nodes: u32,
    /// GPUs on each of its nodes.
    pub gpus: u32,
    /// Its time limit is over its partition's MaxTime (it waits: EnforcePartLimits=NO).
    pub over_time_limit: bool,
    pub begin: Option<i64>,
    /// `--deadline`, with the time the job needs at least before it: its `--time-min`
    /// (one minute when it has neither that nor a time limit, as slurmctld sets it at
    /// submission), else its time limit ([`deadline_ok`]).
    pub deadline: Option<Deadline>,
    /// Nodes (indexes) the job must run on (`--nodelist`), and may not (`--exclude`).
    pub required: Vec<usize>,
    pub excluded: Vec<usize>,
    /// Those of the required nodes out of service (drained, down), as a host list.
    pub required_unavailable: Option<String>,
    /// What a new job says while too few of its partition's nodes are in service, as
    /// slurmctld's look at its submission words it (`ReqNodeNotAvail, ...`).
    pub unavailable: Option<String>,
}

impl Request {
    /// What the job takes on each of its nodes.
    pub fn per_node(&self) -> Capacity {
        let n = self.nodes.max(1);
        Capacity {
            cpus: self.cpus.div_ceil(n),
            mem_mb: self.mem_mb.div_ceil(u64::from(n)),
            gpus: self.gpus,
            in_service: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub at: i64,
    /// Seconds the job needs at least (None: an unlimited time limit, never too late).
    pub needs: Option<i64>,
    /// Checked for a held, deferred or dependent job too (24.11's periodic look at every
    /// pending job), not only when the scheduler could start it (22.05).
    pub while_waiting: bool,
}

/// `deadline_ok` (job_scheduler.c): whether the job can still end by its deadline if it
/// starts now.
pub fn deadline_ok(d: &Deadline, now: i64) -> bool {
    d.needs.is_none_or(|n| now + n <= d.at)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Start the job (for an array's meta record: start this many of its tasks), each
    /// started task on the nodes (indexes) given.
    Start {
        tasks: u32,
        placements: Vec<Vec<usize>>,
    },
    Wait {
        reason: std::borrow::Cow<'static, str>,
    },
    /// It can no longer end by its deadline: it ends DEADLINE (reason DeadLine).
    Deadline,
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
    /// A held requeued job's reason: slurmctld's state_desc, shown instead of JobHeldUser.
    pub const REQUEUED_HELD: &str = "job requeued in held state";
    pub const ARRAY_TASK_LIMIT: &str = "JobArrayTaskLimit";
    pub const PARTITION_NODE_LIMIT: &str = "PartitionNodeLimit";
    pub const PARTITION_TIME_LIMIT: &str = "PartitionTimeLimit";
    /// What a job over its partition's limits shows until the scheduler has looked at it.
    pub const PARTITION_CONFIG: &str = "PartitionConfig";
    /// FAIL_DEADLINE: the reason of a job ended at its deadline.
    pub const DEADLINE: &str = "DeadLine";
    /// FAIL_BAD_CONSTRAINTS: the reason of an `--immediate` job that could not start at once.
    pub const BAD_CONSTRAINTS: &str = "BadConstraints";
    /// Fewer of the partition's nodes in service than the job needs: slurmctld's
    /// state_desc for WAIT_RESOURCES then (squeue shows it in place of `Resources`).
    pub const NODES_UNAVAILABLE: &str = "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions";
    /// WAIT_NODE_NOT_AVAIL's name; its state_desc names the nodes after it.
    pub const NODE_NOT_AVAIL: &str = "ReqNodeNotAvail";

    /// The reason's name (`job_reason_string`) when `text` is a state description the
    /// scheduler wrote in its place: what accounting stores and `--json` calls
    /// `state_reason`. None when `text` is itself the name.
    pub fn code_of(text: &str) -> Option<&'static str> {
        if text == NODES_UNAVAILABLE {
            Some(RESOURCES)
        } else if text.starts_with("ReqNodeNotAvail, ") {
            Some(NODE_NOT_AVAIL)
        } else {
            None
        }
    }
}

/// A job still waiting after a pass, as another job's submission sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    pub job_id: u32,
    pub priority: u32,
    pub submit_time: i64,
    /// The reason it shows.
    pub reason: String,
}

/// The reason 24.11's submission leaves a job over its partition's time limit with: its
/// single-partition placement test (`_select_nodes_base`, test only) succeeds and keeps
/// the reason `_top_priority` gave (22.05's `_select_nodes_parts` said PartitionConfig):
/// Priority when another pending job comes first, None when none does. `others`: the
/// other pending jobs with the reasons they show. A job counts unless it is held, waits
/// for a dependency or its begin time (`job_independent`), or waits for a partition, QOS
/// or association limit or unavailable nodes (`JSR_PART | JSR_QOS_ASSOC | JSR_MISC`);
/// it comes first by priority, then submission, then id (`_higher_precedence`). The
/// local backend's partitions all span every node, so they always overlap.
pub fn over_time_limit_reason_24(job: &JobRow, others: &[Queued]) -> &'static str {
    let stopped = |why: &str| {
        let why = reason::code_of(why).unwrap_or(why);
        matches!(
            why,
            reason::PARTITION_NODE_LIMIT
                | reason::PARTITION_TIME_LIMIT
                | "PartitionDown"
                | "PartitionInactive"
                | reason::NODE_NOT_AVAIL
                | "InvalidAccount"
                | "InvalidQOS"
                | reason::DEPENDENCY
                | reason::DEPENDENCY_NEVER
                | reason::BEGIN_TIME
        ) || why.starts_with("QOS")
            || why.starts_with("Assoc")
    };
    let key = |priority: u32, submit: i64, id: u32| {
        (priority, std::cmp::Reverse(submit), std::cmp::Reverse(id))
    };
    let mine = key(job.priority, job.submit_time, job.job_id);
    let behind = others.iter().any(|o| {
        o.job_id != job.job_id
            && o.priority > 0
            && !stopped(&o.reason)
            && key(o.priority, o.submit_time, o.job_id) > mine
    });
    if behind {
        reason::PRIORITY
    } else {
        reason::NONE
    }
}

/// Decides every pending job. `jobs` holds all records (for dependencies and running load);
/// pending rows get their dependency states updated in place. `nodes` are the nodes'
/// capacities; `placed_on` gives the node indexes a running job holds.
pub fn plan(
    jobs: &mut [JobRow],
    request_of: impl Fn(&JobRow) -> Request,
    nodes: &[Capacity],
    placed_on: impl Fn(&JobRow) -> Vec<usize>,
    now: i64,
) -> Vec<(u32, Decision)> {
    let mut free: Vec<Capacity> = nodes.to_vec();
    for j in jobs.iter().filter(|j| j.state == JobState::Running) {
        let on = placed_on(j);
        let share = Request {
            cpus: j.alloc_cpus,
            mem_mb: j.alloc_mem_mb,
            nodes: on.len().max(1) as u32,
            begin: None,
            ..Default::default()
        }
        .per_node();
        for i in on {
            if let Some(f) = free.get_mut(i) {
                f.cpus = f.cpus.saturating_sub(share.cpus);
                f.mem_mb = f.mem_mb.saturating_sub(share.mem_mb);
            }
        }
    }

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
            if req
                .deadline
                .is_some_and(|d| d.while_waiting && !deadline_ok(&d, now))
            {
                break 'decide Decision::Deadline;
            }
            if job.held {
                break 'decide Decision::Wait {
                    reason: if job.reason == reason::HELD_ADMIN {
                        reason::HELD_ADMIN
                    } else if job.reason == reason::REQUEUED_HELD {
                        reason::REQUEUED_HELD
                    } else {
                        reason::HELD_USER
                    }
                    .into(),
                };
            }
            // Over the partition's limits: it waits until they change.
            if req.nodes as usize > nodes.len() {
                break 'decide Decision::Wait {
                    reason: reason::PARTITION_NODE_LIMIT.into(),
                };
            }
            if req.over_time_limit {
                break 'decide Decision::Wait {
                    reason: reason::PARTITION_TIME_LIMIT.into(),
                };
            }
            if req.begin.is_some_and(|b| b > now) {
                break 'decide Decision::Wait {
                    reason: reason::BEGIN_TIME.into(),
                };
            }
            match deps::evaluate(job, &snapshot, now) {
                DepOutcome::Waiting => {
                    break 'decide Decision::Wait {
                        reason: reason::DEPENDENCY.into(),
                    };
                }
                DepOutcome::NeverSatisfied => {
                    break 'decide Decision::Wait {
                        reason: reason::DEPENDENCY_NEVER.into(),
                    };
                }
                DepOutcome::None | DepOutcome::Satisfied => {}
            }
            // The scheduler's look at a job it could start (held, deferred and dependent
            // jobs are not in its queue, so their deadlines wait).
            if req.deadline.is_some_and(|d| !deadline_ok(&d, now)) {
                break 'decide Decision::Deadline;
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
                        reason: reason::ARRAY_TASK_LIMIT.into(),
                    };
                }
                wanted = allowed.min(tasks.len() as u32);
            }
            // `_schedule`: too few of the partition's nodes in service (drained, down)
            // for the job. The jobs after it are passed over (the partition has failed)
            // and keep their reason; a new one (None yet) the one slurmctld's look at its
            // submission gives it.
            let in_service = nodes.iter().filter(|c| c.in_service).count();
            if (req.nodes.max(1) as usize) > in_service {
                let first = !std::mem::replace(&mut blocked, true);
                break 'decide Decision::Wait {
                    reason: if first {
                        reason::NODES_UNAVAILABLE.into()
                    } else if job.reason == reason::NONE
                        && let Some(text) = &req.unavailable
                    {
                        text.clone().into()
                    } else {
                        job.reason.clone().into()
                    },
                };
            }
            // select_nodes' ESLURM_NODE_NOT_AVAIL: a node it must have is out of service.
            if let Some(list) = &req.required_unavailable {
                break 'decide Decision::Wait {
                    reason: format!("ReqNodeNotAvail, UnavailableNodes:{list}").into(),
                };
            }
            let share = req.per_node();
            let fits = |c: &Capacity| {
                share.cpus <= c.cpus && share.mem_mb <= c.mem_mb && share.gpus <= c.gpus
            };
            let want = req.nodes.max(1) as usize;
            let may_use = |i: usize| !req.excluded.contains(&i) && nodes[i].in_service;
            let could_ever = req
                .required
                .iter()
                .all(|&i| i < nodes.len() && fits(&nodes[i]))
                && (0..nodes.len())
                    .filter(|&i| may_use(i) && fits(&nodes[i]))
                    .count()
                    >= want;
            if !could_ever {
                break 'decide Decision::Wait {
                    reason: reason::RESOURCES.into(),
                };
            }
            if blocked {
                break 'decide Decision::Wait {
                    reason: reason::PRIORITY.into(),
                };
            }
            let mut started = 0;
            let mut placements = Vec::new();
            while started < wanted {
                // The nodes asked for by name first, then the first others with room.
                if !req.required.iter().all(|&i| fits(&free[i])) {
                    break;
                }
                let chosen: Vec<usize> =
                    req.required
                        .iter()
                        .copied()
                        .chain((0..free.len()).filter(|i| {
                            !req.required.contains(i) && may_use(*i) && fits(&free[*i])
                        }))
                        .take(want)
                        .collect();
                if chosen.len() < want {
                    break;
                }
                for &i in &chosen {
                    free[i].cpus -= share.cpus;
                    free[i].mem_mb -= share.mem_mb;
                    free[i].gpus -= share.gpus;
                }
                placements.push(chosen);
                started += 1;
            }
            if started == 0 {
                blocked = true;
                break 'decide Decision::Wait {
                    reason: reason::RESOURCES.into(),
                };
            }
            if started < wanted {
                blocked = true;
            }
            Decision::Start {
                tasks: started,
                placements,
            }
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
            restarts: 0,
            requeue: None,
            reason_prev: "None".into(),
            acct_reason: None,
            acct_tasks: None,
        }
    }

    #[test]
    fn a_job_over_its_time_limit_waits_behind_the_jobs_24_11_puts_first() {
        let job = |id: u32, priority: u32| JobRow {
            priority,
            submit_time: 100,
            ..row(id, JobState::Pending)
        };
        let queued = |id: u32, priority: u32, why: &str| Queued {
            job_id: id,
            priority,
            submit_time: 100,
            reason: why.into(),
        };
        // The first over the limit (58 has the same priority, a later id): None.
        let first = job(57, 1);
        assert_eq!(
            over_time_limit_reason_24(&first, &[queued(58, 1, "None")]),
            "None"
        );
        // The second is behind it.
        let second = job(58, 1);
        let others = [queued(57, 1, "None"), queued(59, 0, "JobHeldUser")];
        assert_eq!(over_time_limit_reason_24(&second, &others), "Priority");
        // Held, dependent, deferred or limit-stopped jobs do not come first.
        for why in [
            "PartitionTimeLimit",
            "Dependency",
            "BeginTime",
            "QOSMaxJobsPerUserLimit",
        ] {
            assert_eq!(
                over_time_limit_reason_24(&second, &[queued(57, 1, why)]),
                "None"
            );
        }
        assert_eq!(
            over_time_limit_reason_24(&second, &[queued(57, 0, "None")]),
            "None"
        );
        // A higher priority comes first whatever its id; an earlier submission at equal one.
        assert_eq!(
            over_time_limit_reason_24(&first, &[queued(60, 5, "Resources")]),
            "Priority"
        );
        let earlier = Queued {
            submit_time: 99,
            ..queued(60, 1, "Priority")
        };
        assert_eq!(over_time_limit_reason_24(&first, &[earlier]), "Priority");
    }

    fn req(_: &JobRow) -> Request {
        Request {
            cpus: 1,
            mem_mb: 100,
            nodes: 1,
            begin: None,
            ..Default::default()
        }
    }

    const NODE: &[Capacity] = &[Capacity {
        cpus: 2,
        mem_mb: 1000,
        gpus: 0,
        in_service: true,
    }];

    fn on_node0(_: &JobRow) -> Vec<usize> {
        vec![0]
    }

    fn start(tasks: u32, on: &[&[usize]]) -> Decision {
        Decision::Start {
            tasks,
            placements: on.iter().map(|p| p.to_vec()).collect(),
        }
    }

    #[test]
    fn jobs_of_several_nodes_take_the_first_nodes_with_room() {
        let nodes = [Capacity {
            cpus: 2,
            mem_mb: 1000,
            gpus: 0,
            in_service: true,
        }; 3];
        let mut running = row(1, JobState::Running);
        running.alloc_cpus = 2;
        let two = |j: &JobRow| Request {
            cpus: if j.job_id == 2 { 4 } else { 2 },
            mem_mb: 200,
            nodes: if j.job_id == 2 { 2 } else { 1 },
            begin: None,
            ..Default::default()
        };
        let mut jobs = vec![
            running,
            row(2, JobState::Pending),
            row(3, JobState::Pending),
        ];
        let d = plan(
            &mut jobs,
            two,
            &nodes,
            |j| if j.job_id == 1 { vec![1] } else { vec![] },
            0,
        );
        assert_eq!(d[0], (2, start(1, &[&[0, 2]])));
        assert_eq!(
            d[1],
            (
                3,
                Decision::Wait {
                    reason: reason::RESOURCES.into()
                }
            )
        );
        // More nodes than the partition has: waits for ever, blocks nobody.
        let many = |j: &JobRow| Request {
            cpus: 1,
            mem_mb: 1,
            nodes: if j.job_id == 2 { 4 } else { 1 },
            begin: None,
            ..Default::default()
        };
        let mut jobs = vec![row(2, JobState::Pending), row(3, JobState::Pending)];
        let d = plan(&mut jobs, many, &nodes, |_| vec![], 0);
        assert_eq!(
            d[0],
            (
                2,
                Decision::Wait {
                    reason: reason::PARTITION_NODE_LIMIT.into()
                }
            )
        );
        assert_eq!(d[1], (3, start(1, &[&[0]])));
    }

    #[test]
    fn named_nodes_are_used_and_excluded_ones_are_not() {
        let nodes = [
            Capacity {
                cpus: 2,
                mem_mb: 1000,
                gpus: 0,
                in_service: true,
            },
            Capacity {
                cpus: 2,
                mem_mb: 1000,
                gpus: 0,
                in_service: true,
            },
            Capacity {
                cpus: 2,
                mem_mb: 1000,
                gpus: 0,
                in_service: true,
            },
        ];
        let mut jobs = vec![
            row(1, JobState::Pending),
            row(2, JobState::Pending),
            row(3, JobState::Pending),
        ];
        let placed = |j: &JobRow| Request {
            cpus: 1,
            mem_mb: 1,
            nodes: 1,
            required: if j.job_id == 1 { vec![2] } else { vec![] },
            excluded: if j.job_id == 2 { vec![0, 1] } else { vec![] },
            ..Default::default()
        };
        let d = plan(&mut jobs, placed, &nodes, |_| vec![], 0);
        assert_eq!(d[0], (1, start(1, &[&[2]])));
        assert_eq!(d[1], (2, start(1, &[&[2]])));
        assert_eq!(d[2], (3, start(1, &[&[0]])));
        // A job whose named node can never hold it waits without blocking the rest.
        let mut jobs = vec![row(1, JobState::Pending), row(2, JobState::Pending)];
        let big = |j: &JobRow| Request {
            cpus: if j.job_id == 1 { 3 } else { 1 },
            mem_mb: 1,
            nodes: 1,
            required: if j.job_id == 1 { vec![0] } else { vec![] },
            ..Default::default()
        };
        let d = plan(&mut jobs, big, &nodes, |_| vec![], 0);
        assert_eq!(
            d[0].1,
            Decision::Wait {
                reason: reason::RESOURCES.into()
            }
        );
        assert_eq!(d[1], (2, start(1, &[&[0]])));
    }

    #[test]
    fn fills_the_node_then_blocks_by_priority() {
        let mut jobs = vec![
            row(1, JobState::Pending),
            row(2, JobState::Pending),
            row(3, JobState::Pending),
            row(4, JobState::Pending),
        ];
        let d = plan(&mut jobs, req, NODE, on_node0, 0);
        assert_eq!(d[0], (1, start(1, &[&[0]])));
        assert_eq!(d[1], (2, start(1, &[&[0]])));
        assert_eq!(
            d[2],
            (
                3,
                Decision::Wait {
                    reason: reason::RESOURCES.into()
                }
            )
        );
        assert_eq!(
            d[3],
            (
                4,
                Decision::Wait {
                    reason: reason::PRIORITY.into()
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
        let d = plan(&mut jobs, req, NODE, on_node0, 0);
        let reason_of = |id| d.iter().find(|(j, _)| *j == id).unwrap().1.clone();
        assert_eq!(
            reason_of(2),
            Decision::Wait {
                reason: reason::HELD_USER.into()
            }
        );
        assert_eq!(
            reason_of(3),
            Decision::Wait {
                reason: reason::DEPENDENCY.into()
            }
        );
        assert_eq!(
            reason_of(4),
            Decision::Wait {
                reason: reason::DEPENDENCY_NEVER.into()
            }
        );
        assert_eq!(
            jobs[3].dependency.as_ref().unwrap().items[0].status,
            DepStatus::Failed
        );
    }

    /// `deadline_ok`: a job the scheduler could start ends DEADLINE once it can no longer
    /// end in time; a held one is not looked at, and one with room to spare starts.
    #[test]
    fn deadline_ends_only_jobs_the_scheduler_looks_at() {
        let with = |at: i64, needs: i64| {
            move |r: &JobRow| Request {
                deadline: Some(Deadline {
                    at: at + i64::from(r.job_id),
                    needs: Some(needs),
                    while_waiting: false,
                }),
                ..req(r)
            }
        };
        let mut held = row(2, JobState::Pending);
        held.held = true;
        let mut jobs = vec![row(1, JobState::Pending), held];
        // Deadlines at 100+id, 60 s needed: at 41 both could still end in time.
        let d = plan(&mut jobs, with(100, 60), NODE, on_node0, 41);
        assert_eq!(d[0], (1, start(1, &[&[0]])));
        let mut jobs = vec![row(1, JobState::Pending), jobs[1].clone()];
        // At 50 neither could: the held one waits all the same.
        let d = plan(&mut jobs, with(100, 60), NODE, on_node0, 50);
        assert_eq!(d[0], (1, Decision::Deadline));
        assert_eq!(
            d[1],
            (
                2,
                Decision::Wait {
                    reason: reason::HELD_USER.into()
                }
            )
        );
        // Unlimited: never too late.
        assert!(deadline_ok(
            &Deadline {
                at: 0,
                needs: None,
                while_waiting: false
            },
            1_000
        ));
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
            plan(&mut jobs, req, NODE, on_node0, 0)[0],
            (
                10,
                Decision::Wait {
                    reason: reason::ARRAY_TASK_LIMIT.into()
                }
            )
        );
        let mut jobs = vec![meta];
        assert_eq!(
            plan(&mut jobs, req, NODE, on_node0, 0)[0],
            (10, start(1, &[&[0]]))
        );
    }

    #[test]
    fn a_job_waits_while_the_gpus_are_taken() {
        let nodes = [Capacity {
            cpus: 4,
            mem_mb: 1000,
            gpus: 2,
            in_service: true,
        }];
        let gpus = |_: &JobRow| Request {
            cpus: 1,
            mem_mb: 1,
            nodes: 1,
            gpus: 1,
            begin: None,
            ..Default::default()
        };
        let mut jobs = vec![
            row(1, JobState::Pending),
            row(2, JobState::Pending),
            row(3, JobState::Pending),
        ];
        let d = plan(&mut jobs, gpus, &nodes, |_| vec![], 0);
        assert_eq!(d[0], (1, start(1, &[&[0]])));
        assert_eq!(d[1], (2, start(1, &[&[0]])));
        assert_eq!(
            d[2],
            (
                3,
                Decision::Wait {
                    reason: reason::RESOURCES.into()
                }
            )
        );
    }

    #[test]
    fn a_job_that_never_fits_does_not_block_others() {
        let mut jobs = vec![row(1, JobState::Pending), row(2, JobState::Pending)];
        let big = |j: &JobRow| Request {
            cpus: if j.job_id == 1 { 64 } else { 1 },
            mem_mb: 1,
            nodes: 1,
            begin: None,
            ..Default::default()
        };
        let d = plan(&mut jobs, big, NODE, on_node0, 0);
        assert_eq!(
            d[0],
            (
                1,
                Decision::Wait {
                    reason: reason::RESOURCES.into()
                }
            )
        );
        assert_eq!(d[1], (2, start(1, &[&[0]])));
    }

    #[test]
    fn nodes_out_of_service_are_not_used() {
        let drained = Capacity {
            in_service: false,
            ..NODE[0]
        };
        // Every node drained: the first job says why, the next waits by priority.
        let mut jobs = vec![row(1, JobState::Pending), row(2, JobState::Pending)];
        let all_drained = |j: &JobRow| Request {
            unavailable: Some("ReqNodeNotAvail, UnavailableNodes:n1".into()),
            ..req(j)
        };
        let d = plan(&mut jobs, all_drained, &[drained], on_node0, 0);
        let wait = |r: &str| Decision::Wait {
            reason: r.to_string().into(),
        };
        assert_eq!(d[0], (1, wait(reason::NODES_UNAVAILABLE)));
        assert_eq!(d[1], (2, wait("ReqNodeNotAvail, UnavailableNodes:n1")));
        assert_eq!(
            reason::code_of(reason::NODES_UNAVAILABLE),
            Some("Resources")
        );
        // A job the scheduler has looked at before keeps its reason.
        jobs[1].reason = reason::PRIORITY.into();
        let d = plan(&mut jobs, all_drained, &[drained], on_node0, 0);
        assert_eq!(d[1], (2, wait(reason::PRIORITY)));
        // One of two drained: jobs go to the other; one that must have the drained one
        // names it.
        let mut jobs = vec![row(1, JobState::Pending), row(2, JobState::Pending)];
        let pinned = |j: &JobRow| Request {
            required: if j.job_id == 1 { vec![1] } else { vec![] },
            required_unavailable: (j.job_id == 1).then(|| "n2".to_string()),
            ..req(j)
        };
        let d = plan(&mut jobs, pinned, &[NODE[0], drained], |_| vec![], 0);
        assert_eq!(d[0], (1, wait("ReqNodeNotAvail, UnavailableNodes:n2")));
        assert_eq!(d[1], (2, start(1, &[&[0]])));
    }
}
