//! Expected start times of pending jobs, as Slurm's backfill scheduler plans them and
//! squeue (`--start`, `%S`, `%Y`) and scontrol (`StartTime=`, `EndTime=`, `SchedNodeList=`)
//! show them: each job waiting for resources (reason Resources or Priority), in priority
//! order, is placed at the earliest time its CPUs and memory are free on enough nodes,
//! given the running jobs' ends (start + time limit) and the places already planned. A job
//! behind one that never ends (no time limit) gets no start time. As in backfill, a planned
//! job holds its place until its end rounded down to the minute (bf_resolution); the
//! running jobs' ends are exact. The controller's view only: slurmdbd keeps none of it.

use crate::model::{JobRecord, JobState, TimeLimit};
use std::collections::HashMap;

/// A waiting job's expected start, end (None: no time limit) and nodes, as the queue
/// runner plans them at each pass and stores them for the commands to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub start: i64,
    pub end: Option<i64>,
    pub nodes: String,
}

/// One node's capacity.
#[derive(Debug, Clone)]
pub struct NodeCapacity {
    pub name: String,
    pub cpus: u32,
    pub mem_mb: u64,
}

/// A use of one node from `start` to `end` (None: for ever).
#[derive(Debug, Clone, Copy)]
struct Use {
    start: i64,
    end: Option<i64>,
    cpus: u32,
    mem_mb: u64,
}

/// backfill's time resolution (bf_resolution, 60 s by default).
const RESOLUTION: i64 = 60;

/// backfill's queue depth (bf_max_job_test, 500 by default): the jobs after it in priority
/// order get no expected start, as in Slurm, and the plan's cost stays bounded however
/// long the queue.
pub const MAX_JOB_TEST: usize = 500;

/// Whether the plan gives a job an expected start: a pending job waiting for resources
/// (reason Resources or Priority).
pub fn is_planned(state: JobState, reason: &str) -> bool {
    state == JobState::Pending && matches!(reason, "Resources" | "Priority")
}

/// The plan for `records` (running jobs and those waiting), by job id.
pub fn planned(records: &mut [JobRecord], nodes: &[NodeCapacity], now: i64) -> HashMap<u32, Plan> {
    plan(records, nodes, now);
    records
        .iter()
        .filter(|r| is_planned(r.state, &r.reason))
        .filter_map(|r| {
            Some((
                r.job_id,
                Plan {
                    start: r.start_time?,
                    end: r.end_time,
                    nodes: r.sched_nodes.clone()?,
                },
            ))
        })
        .collect()
}

/// Shows a stored plan: the expected start of each record that still waits for resources.
pub fn apply(records: &mut [JobRecord], plans: &HashMap<u32, Plan>) {
    for r in records
        .iter_mut()
        .filter(|r| is_planned(r.state, &r.reason))
    {
        if let Some(p) = plans.get(&r.job_id) {
            r.start_time = Some(p.start);
            r.end_time = p.end;
            r.sched_nodes = Some(p.nodes.clone());
        }
    }
}

/// Sets `start_time`, `end_time` and `sched_nodes` of the pending jobs that wait for
/// resources.
pub fn plan(records: &mut [JobRecord], nodes: &[NodeCapacity], now: i64) {
    let mut uses: Vec<Vec<Use>> = vec![Vec::new(); nodes.len()];
    let index = |name: &str| nodes.iter().position(|n| n.name == name);
    for r in records.iter().filter(|r| r.state == JobState::Running) {
        let on: Vec<usize> = r
            .nodes
            .as_deref()
            .and_then(crate::model::hostlist::expand)
            .unwrap_or_default()
            .iter()
            .filter_map(|n| index(n))
            .collect();
        let n = on.len().max(1) as u32;
        for i in on {
            uses[i].push(Use {
                start: now,
                end: r.end_time,
                cpus: r.num_cpus.div_ceil(n),
                mem_mb: r.memory_per_node_mb(),
            });
        }
    }
    let mut order: Vec<usize> = (0..records.len())
        .filter(|&i| is_planned(records[i].state, &records[i].reason))
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(records[i].priority), records[i].job_id));
    order.truncate(MAX_JOB_TEST);
    for i in order {
        let r = &records[i];
        let want = r.num_nodes.max(1) as usize;
        let cpus = r.num_cpus.div_ceil(want as u32);
        let mem = r.memory_per_node_mb();
        let duration = match r.time_limit {
            TimeLimit::Infinite => None,
            TimeLimit::Minutes(m) => Some(i64::from(m) * 60),
        };
        let mut candidates: Vec<i64> = std::iter::once(now)
            .chain(uses.iter().flatten().filter_map(|u| u.end))
            .filter(|&t| t >= now)
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let placed = candidates.into_iter().find_map(|t| {
            let end = duration.map(|d| t + d);
            let free: Vec<usize> = (0..nodes.len())
                .filter(|&n| fits(&uses[n], &nodes[n], t, end, cpus, mem))
                .take(want)
                .collect();
            (free.len() == want).then_some((t, end, free))
        });
        let Some((start, end, on)) = placed else {
            continue;
        };
        for &n in &on {
            uses[n].push(Use {
                start,
                end: end.map(|e| e - e.rem_euclid(RESOLUTION)),
                cpus,
                mem_mb: mem,
            });
        }
        let names: Vec<&str> = on.iter().map(|&n| nodes[n].name.as_str()).collect();
        let r = &mut records[i];
        r.start_time = Some(start);
        r.end_time = end;
        r.sched_nodes = Some(crate::model::hostlist::compress(&names));
    }
}

/// Whether `cpus` and `mem` are free on a node throughout `[start, end)`.
fn fits(
    uses: &[Use],
    node: &NodeCapacity,
    start: i64,
    end: Option<i64>,
    cpus: u32,
    mem: u64,
) -> bool {
    let covers = |u: &Use, t: i64| u.start <= t && u.end.is_none_or(|e| e > t);
    // Use changes only where a use begins: check the window's start and those within it.
    std::iter::once(start)
        .chain(
            uses.iter()
                .map(|u| u.start)
                .filter(|&s| s > start && end.is_none_or(|e| s < e)),
        )
        .all(|t| {
            let (c, m) = uses
                .iter()
                .filter(|u| covers(u, t))
                .fold((0u32, 0u64), |(c, m), u| (c + u.cpus, m + u.mem_mb));
            c + cpus <= node.cpus && m + mem <= node.mem_mb
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::MemoryRequest;

    fn job(id: u32, state: JobState, cpus: u32, limit: Option<u32>) -> JobRecord {
        JobRecord {
            job_id: id,
            state,
            num_cpus: cpus,
            num_nodes: 1,
            priority: 1000 - id,
            memory: MemoryRequest::PerCpu(100),
            time_limit: limit.map_or(TimeLimit::Infinite, TimeLimit::Minutes),
            reason: "Resources".into(),
            ..Default::default()
        }
    }

    #[test]
    fn pending_jobs_start_when_the_running_ones_end() {
        let node = NodeCapacity {
            name: "node01".into(),
            cpus: 2,
            mem_mb: 4000,
        };
        let mut running = job(1, JobState::Running, 2, Some(10));
        running.nodes = Some("node01".into());
        running.end_time = Some(1_000_630);
        let mut after = job(2, JobState::Pending, 1, Some(5));
        after.reason = "Resources".into();
        let mut last = job(3, JobState::Pending, 2, None);
        last.reason = "Priority".into();
        let held = {
            let mut j = job(4, JobState::Pending, 1, None);
            j.reason = "JobHeldUser".into();
            j
        };
        let mut all = vec![running, after, last, held];
        plan(&mut all, &[node], 1_000_000);
        assert_eq!(all[1].start_time, Some(1_000_630));
        assert_eq!(all[1].end_time, Some(1_000_930));
        assert_eq!(all[1].sched_nodes.as_deref(), Some("node01"));
        // Job 2 holds its place until its end rounded down to the minute.
        assert_eq!(all[2].start_time, Some(1_000_920));
        assert_eq!(all[2].end_time, None);
        assert_eq!(all[3].start_time, None);
        assert_eq!(all[3].sched_nodes, None);
    }

    #[test]
    fn nothing_is_planned_behind_a_job_without_end() {
        let node = NodeCapacity {
            name: "n".into(),
            cpus: 1,
            mem_mb: 1000,
        };
        let mut running = job(1, JobState::Running, 1, None);
        running.nodes = Some("n".into());
        let mut all = vec![running, job(2, JobState::Pending, 1, Some(5))];
        plan(&mut all, &[node], 100);
        assert_eq!(all[1].start_time, None);
    }

    #[test]
    fn only_the_first_bf_max_job_test_jobs_are_planned() {
        let node = NodeCapacity {
            name: "n".into(),
            cpus: 1,
            mem_mb: 1_000_000,
        };
        let mut running = job(1, JobState::Running, 1, Some(1));
        running.nodes = Some("n".into());
        running.end_time = Some(160);
        let mut all = vec![running];
        // priority falls with the id, so the queue's order is the ids' order
        all.extend((2..=MAX_JOB_TEST as u32 + 11).map(|id| {
            let mut j = job(id, JobState::Pending, 1, Some(1));
            j.priority = 100_000 - id;
            j
        }));
        plan(&mut all, &[node], 100);
        let planned = all.iter().filter(|j| j.start_time.is_some()).count();
        assert_eq!(planned, MAX_JOB_TEST);
        assert!(all[MAX_JOB_TEST].start_time.is_some());
        assert!(all[MAX_JOB_TEST + 1].start_time.is_none());
    }
}
