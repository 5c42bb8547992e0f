//! Which accounting records sacct shows: the conditions slurmdbd applies to a job query
//! (`as_mysql_jobacct_process.c`), evaluated here over the backend's records.

use crate::model::{ArrayPart, JobRecord, JobState, StepId};

/// One `-j` item: `123`, `123_4`, `123.batch`, `123_4.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selected {
    pub job_id: u32,
    pub task: Option<u32>,
    pub step: Option<StepId>,
}

/// The job condition after sacct's defaults are applied.
#[derive(Debug, Clone, Default)]
pub struct JobCond {
    /// Window start and end in unix seconds (`-S`/`-E` after defaults); start 0 = epoch.
    pub start: i64,
    pub end: i64,
    pub jobs: Option<Vec<Selected>>,
    pub states: Option<Vec<JobState>>,
    /// None = all users.
    pub users: Option<Vec<u32>>,
    pub gids: Option<Vec<u32>>,
    pub accounts: Option<Vec<String>>,
    pub partitions: Option<Vec<String>>,
    pub names: Option<Vec<String>>,
    pub qos: Option<Vec<String>>,
    pub wckeys: Option<Vec<String>>,
    pub reservations: Option<Vec<String>>,
    pub constraints: Option<Vec<String>>,
    /// Expanded node names from `-N`.
    pub nodes: Option<Vec<String>>,
    /// `-i`/`-I` ranges (min, max).
    pub node_range: Option<(u32, u32)>,
    pub cpu_range: Option<(u32, u32)>,
    /// `-k`/`-K` in minutes.
    pub timelimit_min: Option<u32>,
    pub timelimit_max: Option<u32>,
    /// `-T`: clip start and end times to the window.
    pub truncate: bool,
    /// `-M` names (lower-cased); None = every cluster (`-M all`, `-L`, or no `-M`: this
    /// backend keeps the records of its own cluster only).
    pub clusters: Option<Vec<String>>,
    /// `-D`: every run of a requeued job, not only its newest.
    pub duplicates: bool,
}

/// `slurmdb_job_cond_def_start_end`: defaults for the window.
/// `midnight` is local midnight of `now`'s day.
pub fn default_window(
    start: Option<i64>,
    end: Option<i64>,
    has_states: bool,
    has_jobs: bool,
    now: i64,
    midnight: i64,
) -> (i64, i64) {
    let mut s = start.unwrap_or(0);
    let mut e = end.unwrap_or(0);
    if has_states {
        if s == 0 && !has_jobs {
            s = now;
        }
        if s != 0 && e == 0 {
            e = s;
        }
    } else if !has_jobs && s == 0 {
        s = midnight;
    }
    if e == 0 {
        e = now;
    }
    (s, e)
}

fn t(v: Option<i64>) -> i64 {
    v.unwrap_or(0)
}

/// The array task id the database stores (NO_VAL for the pending meta record and plain jobs).
fn array_task(job: &JobRecord) -> Option<u32> {
    match &job.array {
        Some(ArrayPart::Task { task_id, .. }) => Some(*task_id),
        _ => None,
    }
}

/// `_state_time_string`: a job "was in" a state during the window.
fn in_state_during(job: &JobRecord, state: JobState, c: &JobCond) -> bool {
    let (s, e) = (c.start, c.end);
    let (start, end, elig) = (t(job.start_time), t(job.end_time), t(job.eligible_time));
    match state {
        JobState::Pending => {
            // Eligible, and pending at some point after S: started after S, ended
            // (cancelled) after S without starting, or still pending.
            let pending_after_start = match (start, end) {
                (0, 0) => job.state == JobState::Pending,
                (0, end) => s < end,
                (start, _) => s < start,
            };
            elig != 0 && pending_after_start && e > elig
        }
        JobState::Suspended => job.state == JobState::Suspended,
        JobState::Running => {
            start != 0 && (s < end || (end == 0 && job.state == JobState::Running)) && e > start
        }
        other => job.state == other && end != 0 && (s..=e).contains(&end),
    }
}

fn id_selected(job: &JobRecord, sel: &[Selected]) -> bool {
    sel.iter().any(|x| match x.task {
        None => job.job_id == x.job_id || (job.array.is_some() && job.array_job_id() == x.job_id),
        Some(task) => {
            job.array.is_some() && job.array_job_id() == x.job_id && array_task(job) == Some(task)
        }
    })
}

/// The database compares these names case-insensitively (sacct lower-cases its lists).
fn any_eq(list: &Option<Vec<String>>, v: Option<&str>) -> bool {
    match list {
        None => true,
        Some(l) => v.is_some_and(|v| l.iter().any(|x| x.eq_ignore_ascii_case(v))),
    }
}

/// The records the database returns for the condition, in the order given: those its
/// query matches and, of the runs of one job (slurmdbd keeps a record per run of a
/// requeued job), only the newest unless `-D` (`_cluster_get_jobs` reads the rows by
/// job id, newest submission first, and skips the later rows of an id); the node filter
/// (`-N`) comes after that choice, as there.
pub fn selected<'a>(records: &'a [JobRecord], c: &JobCond) -> Vec<&'a JobRecord> {
    let mut rows: Vec<&JobRecord> = records.iter().filter(|j| matches_query(j, c)).collect();
    if !c.duplicates {
        // A record is its job id and array task: slurmdbd's id_job is each task's own
        // (Backend.AI's tasks share the array's id). An earlier run's record and the new
        // one's can share a submit second.
        let id = |j: &JobRecord| (j.job_id, array_task(j));
        let key = |j: &JobRecord| (j.submit_time, j.state != JobState::Requeued);
        let mut newest = std::collections::HashMap::new();
        for (i, j) in rows.iter().enumerate() {
            let at = newest.entry(id(j)).or_insert((key(j), i));
            if key(j) > at.0 {
                *at = (key(j), i);
            }
        }
        let kept: std::collections::HashSet<usize> = newest.values().map(|&(_, i)| i).collect();
        rows = rows
            .into_iter()
            .enumerate()
            .filter(|(i, _)| kept.contains(i))
            .map(|(_, j)| j)
            .collect();
    }
    rows.retain(|j| on_nodes(j, c));
    rows
}

/// `-N`: the job ran on one of the nodes named.
fn on_nodes(job: &JobRecord, c: &JobCond) -> bool {
    let Some(wanted) = &c.nodes else {
        return true;
    };
    let on = job
        .nodes
        .as_deref()
        .and_then(crate::model::hostlist::expand)
        .unwrap_or_default();
    on.iter().any(|n| wanted.contains(n))
}

/// The query's own conditions (all but the node filter).
fn matches_query(job: &JobRecord, c: &JobCond) -> bool {
    if let Some(sel) = &c.jobs
        && !id_selected(job, sel)
    {
        return false;
    }
    if let Some(users) = &c.users
        && !users.contains(&job.uid)
    {
        return false;
    }
    if let Some(g) = &c.gids
        && !g.contains(&job.gid)
    {
        return false;
    }
    if !any_eq(&c.clusters, Some(&job.cluster))
        || !any_eq(&c.accounts, job.account.as_deref())
        || !any_eq(&c.partitions, Some(&job.partition))
        || !any_eq(&c.names, Some(&job.name))
        || !any_eq(&c.qos, job.qos.as_deref())
        || !any_eq(&c.wckeys, job.wckey.as_deref())
        || !any_eq(&c.reservations, job.reservation.as_deref())
        || !any_eq(&c.constraints, job.features.as_deref())
    {
        return false;
    }
    if let Some((lo, hi)) = c.node_range
        && !(lo..=hi).contains(&job.num_nodes)
    {
        return false;
    }
    if let Some((lo, hi)) = c.cpu_range
        && !(lo..=hi).contains(&job.num_cpus)
    {
        return false;
    }
    if let Some(min) = c.timelimit_min {
        let limit = match job.time_limit {
            crate::model::TimeLimit::Infinite => u32::MAX,
            crate::model::TimeLimit::Minutes(m) => m,
        };
        let ok = match c.timelimit_max {
            Some(max) => (min..=max).contains(&limit),
            None => limit == min,
        };
        if !ok {
            return false;
        }
    }
    match &c.states {
        Some(states) => states.iter().any(|s| in_state_during(job, *s, c)),
        None => {
            let (start, end) = (c.start, c.end);
            let job_end = t(job.end_time);
            if c.jobs.is_some() {
                // Named jobs are shown even when never eligible (held, dependent).
                job.submit_time < end && (job_end >= start || job_end == 0)
            } else {
                let elig = t(job.eligible_time);
                elig != 0 && elig < end && (job_end >= start || job_end == 0)
            }
        }
    }
}

/// The steps of a job that a `-j job.step` selection keeps, and whether the job's own
/// line is shown (`show_full`).
pub fn step_selection(job: &JobRecord, c: &JobCond) -> (bool, Option<Vec<StepId>>) {
    let Some(sel) = &c.jobs else {
        return (true, None);
    };
    let mut steps = Vec::new();
    for x in sel {
        let id_ok =
            x.job_id == job.job_id || (job.array.is_some() && x.job_id == job.array_job_id());
        if !id_ok || (x.task.is_some() && x.task != array_task(job)) {
            continue;
        }
        match x.step {
            None => return (true, None),
            Some(s) => steps.push(s),
        }
    }
    if steps.is_empty() {
        (true, None)
    } else {
        (false, Some(steps))
    }
}

/// `_sort_desc_submit_time`: submit time, array id (0 for plain jobs), task id (NO_VAL
/// for plain jobs and the pending meta record), job id.
pub fn sort_key(job: &JobRecord) -> (i64, u32, u32, u32) {
    let array_job = match &job.array {
        Some(a) => a.array_job_id(),
        None => 0,
    };
    (
        job.submit_time,
        array_job,
        array_task(job).unwrap_or(0xffff_fffe),
        job.job_id,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the database would return this one job for the condition.
    fn matches(job: &JobRecord, c: &JobCond) -> bool {
        matches_query(job, c) && on_nodes(job, c)
    }

    fn job(state: JobState, elig: i64, start: i64, end: i64) -> JobRecord {
        JobRecord {
            job_id: 1,
            state,
            submit_time: elig,
            eligible_time: Some(elig).filter(|&e| e != 0),
            start_time: Some(start).filter(|&s| s != 0),
            end_time: Some(end).filter(|&e| e != 0),
            ..Default::default()
        }
    }

    #[test]
    fn default_window_rules() {
        assert_eq!(
            default_window(None, None, false, false, 500, 100),
            (100, 500)
        );
        assert_eq!(default_window(None, None, false, true, 500, 100), (0, 500));
        assert_eq!(
            default_window(None, None, true, false, 500, 100),
            (500, 500)
        );
        assert_eq!(default_window(None, None, true, true, 500, 100), (0, 500));
    }

    #[test]
    fn eligible_jobs_in_window() {
        let c = JobCond {
            start: 100,
            end: 500,
            ..Default::default()
        };
        assert!(matches(&job(JobState::Completed, 150, 160, 170), &c));
        assert!(matches(&job(JobState::Running, 50, 60, 0), &c));
        assert!(!matches(&job(JobState::Completed, 20, 30, 40), &c));
        assert!(
            !matches(&job(JobState::Pending, 0, 0, 0), &c),
            "never eligible"
        );
    }

    #[test]
    fn only_the_newest_run_of_a_job_unless_duplicates_are_asked_for() {
        let run = |id: u32, state, submit: i64, node: &str| JobRecord {
            job_id: id,
            nodes: Some(node.into()),
            ..job(state, submit, submit + 1, submit + 2)
        };
        let records = vec![
            run(7, JobState::Requeued, 150, "a"),
            run(8, JobState::Completed, 151, "a"),
            run(7, JobState::Completed, 160, "b"),
        ];
        let mut c = JobCond {
            start: 100,
            end: 500,
            ..Default::default()
        };
        let shown = |c: &JobCond| {
            selected(&records, c)
                .iter()
                .map(|j| (j.job_id, j.state))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            shown(&c),
            [(8, JobState::Completed), (7, JobState::Completed)]
        );
        // The query's conditions choose among the runs first: -s RQ finds the earlier one.
        c.states = Some(vec![JobState::Requeued]);
        assert_eq!(shown(&c), [(7, JobState::Requeued)]);
        c.states = None;
        // -N comes after the choice: the newest run ran elsewhere, so the job is not shown.
        c.nodes = Some(vec!["a".into()]);
        assert_eq!(shown(&c), [(8, JobState::Completed)]);
        c.nodes = None;
        c.duplicates = true;
        assert_eq!(shown(&c).len(), 3);
        // The tasks of an array are records of their own, whatever id they carry.
        let task = |t: u32| JobRecord {
            array: Some(ArrayPart::Task {
                array_job_id: 20,
                task_id: t,
            }),
            ..run(20, JobState::Completed, 150, "a")
        };
        let tasks = vec![task(0), task(1), task(2)];
        c.duplicates = false;
        assert_eq!(selected(&tasks, &c).len(), 3);
        // A new run submitted within the second of the earlier one's submission is newer.
        let tie = vec![
            run(9, JobState::Pending, 150, "a"),
            run(9, JobState::Requeued, 150, "a"),
        ];
        c.duplicates = false;
        let kept = selected(&tie, &c);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].state, JobState::Pending);
    }

    #[test]
    fn state_queries() {
        let c = JobCond {
            start: 100,
            end: 500,
            states: Some(vec![JobState::Completed]),
            ..Default::default()
        };
        assert!(matches(&job(JobState::Completed, 150, 160, 170), &c));
        assert!(!matches(&job(JobState::Failed, 150, 160, 170), &c));
    }

    #[test]
    fn cluster_list_filters_by_the_job_cluster() {
        let mut j = job(JobState::Completed, 150, 160, 170);
        j.cluster = "testcluster".into();
        let mut c = JobCond {
            start: 100,
            end: 500,
            ..Default::default()
        };
        assert!(matches(&j, &c));
        c.clusters = Some(vec!["testcluster".into()]);
        assert!(matches(&j, &c));
        c.clusters = Some(vec!["other".into(), "TestCluster".into()]);
        assert!(matches(&j, &c));
        c.clusters = Some(vec!["other".into()]);
        assert!(!matches(&j, &c));
    }
}
