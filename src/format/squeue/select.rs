//! Which jobs squeue shows and as which lines: the filters of `_filter_job`, the `-P`
//! one-line-per-partition view, and the merging of pending array tasks into one line.

use super::row::JobRow;
use crate::model::state::FLAG_STATE_NAMES;
use crate::model::{JobRecord, JobState, StateFlag, hostlist};

/// A `-t` state: a base state matches only without flags; a flag matches whatever the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateSel {
    Base(JobState),
    Completing,
    Configuring,
    SpecialExit,
    /// A flag our records never carry (RESIZING, REQUEUED, STAGE_OUT, ...).
    OtherFlag,
}

impl StateSel {
    /// `job_state_num`: a long or compact name, case-insensitive.
    pub fn parse(name: &str) -> Option<StateSel> {
        if let Some(s) = JobState::parse(name) {
            return Some(StateSel::Base(s));
        }
        let (long, _) = FLAG_STATE_NAMES
            .iter()
            .find(|(l, c)| l.eq_ignore_ascii_case(name) || c.eq_ignore_ascii_case(name))?;
        Some(match *long {
            "COMPLETING" => StateSel::Completing,
            "CONFIGURING" => StateSel::Configuring,
            "SPECIAL_EXIT" => StateSel::SpecialExit,
            _ => StateSel::OtherFlag,
        })
    }

    fn matches(self, job: &JobRecord) -> bool {
        match self {
            StateSel::Base(s) => job.flag == StateFlag::None && job.state == s,
            StateSel::Completing => job.flag == StateFlag::Completing,
            StateSel::Configuring => job.flag == StateFlag::Configuring,
            StateSel::SpecialExit => job.flag == StateFlag::SpecialExit,
            StateSel::OtherFlag => false,
        }
    }
}

/// The list Slurm prints after `Invalid job state specified`.
pub fn valid_states_text() -> String {
    let mut names: Vec<&str> = crate::model::state::ALL_STATES
        .iter()
        .map(|s| s.long())
        .collect();
    names.extend(FLAG_STATE_NAMES.iter().map(|(l, _)| *l));
    names.join(",")
}

/// Which states to show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StateFilter {
    /// Pending, running, suspended, completing (and staging out).
    #[default]
    Active,
    All,
    List(Vec<StateSel>),
}

/// `-j` item: a job id and optional array task id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobIdSel {
    pub job_id: u32,
    pub task: Option<u32>,
}

/// Every filter of squeue's job view; `None` means "not filtered".
#[derive(Debug, Clone, Default)]
pub struct JobFilter {
    pub jobs: Option<Vec<JobIdSel>>,
    pub licenses: Option<Vec<String>>,
    pub accounts: Option<Vec<String>>,
    pub qos: Option<Vec<String>>,
    pub states: StateFilter,
    /// Expanded node names from `-w`.
    pub nodes: Option<Vec<String>>,
    pub users: Option<Vec<u32>>,
    /// 24.11's `--notme`: jobs of everyone but this user.
    pub not_user: Option<u32>,
    pub reservation: Option<String>,
    pub names: Option<Vec<String>>,
    pub partitions: Option<Vec<String>>,
}

fn any_ci(list: &[String], value: Option<&str>) -> bool {
    value.is_some_and(|v| list.iter().any(|x| x.eq_ignore_ascii_case(v)))
}

/// `_filter_job`: whether a job line is shown; may narrow a pending array to the
/// requested tasks.
fn keep(row: &mut JobRow, f: &JobFilter) -> bool {
    let job = row.job;
    if job.job_id == 0 {
        return false;
    }
    let mut partial: Option<Vec<u32>> = None;
    if let Some(sel) = &f.jobs {
        let mut found = false;
        for s in sel {
            let whole = s.task.is_none()
                && ((row.array_job_id != 0 && s.job_id == row.array_job_id)
                    || s.job_id == job.job_id);
            let task =
                s.task.is_some() && s.task == row.array_task_id && s.job_id == row.array_job_id;
            if whole || task {
                found = true;
                break;
            }
            if let (Some(t), Some(tasks)) = (s.task, &row.tasks)
                && s.job_id == row.array_job_id
                && tasks.contains(&t)
            {
                found = true;
                partial = Some(tasks.clone());
                break;
            }
        }
        if !found {
            return false;
        }
    }
    if f.not_user == Some(job.uid) {
        return false;
    }
    if let Some(lics) = &f.licenses {
        let have = job.licenses.as_deref().unwrap_or("");
        let hit = have
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|t| t.split(':').next().unwrap_or(""))
            .any(|name| lics.iter().any(|l| l == name));
        if !hit {
            return false;
        }
    }
    if let Some(accts) = &f.accounts
        && !any_ci(accts, job.account.as_deref())
    {
        return false;
    }
    if let Some(q) = &f.qos
        && !any_ci(q, job.qos.as_deref())
    {
        return false;
    }
    match &f.states {
        StateFilter::All => {}
        StateFilter::List(sels) => {
            if !sels.iter().any(|s| s.matches(job)) {
                return false;
            }
        }
        StateFilter::Active => {
            let active = matches!(
                job.state,
                JobState::Pending | JobState::Running | JobState::Suspended
            ) || job.flag == StateFlag::Completing;
            if !active {
                return false;
            }
        }
    }
    if let Some(wanted) = &f.nodes {
        let on = job
            .nodes
            .as_deref()
            .and_then(hostlist::expand)
            .unwrap_or_default();
        if !on.iter().any(|n| wanted.contains(n)) {
            return false;
        }
    }
    if let Some(users) = &f.users
        && !users.contains(&job.uid)
    {
        return false;
    }
    if let Some(resv) = &f.reservation
        && job.reservation.as_deref() != Some(resv.as_str())
    {
        return false;
    }
    if let Some(names) = &f.names
        && !any_ci(names, Some(&job.name))
    {
        return false;
    }
    if let Some(tasks) = partial {
        // Only the requested tasks of the pending array stay on its line.
        let asked: Vec<u32> = f
            .jobs
            .iter()
            .flatten()
            .filter(|s| s.job_id == row.array_job_id)
            .filter_map(|s| s.task)
            .filter(|t| tasks.contains(t))
            .collect();
        let mut kept: Vec<u32> = tasks.into_iter().filter(|t| asked.contains(t)).collect();
        kept.sort_unstable();
        kept.dedup();
        if kept.len() == 1 {
            row.array_task_id = Some(kept[0]);
            row.array_task_str = None;
            row.tasks = None;
        } else {
            row.array_task_str = Some(crate::model::array::ranges(&kept));
            row.tasks = Some(kept);
        }
    }
    true
}

/// `_filter_job_part`: a job passes when one of its partitions is wanted.
fn part_wanted(f: &JobFilter, partition: &str) -> bool {
    match &f.partitions {
        None => true,
        Some(parts) => partition
            .split(',')
            .filter(|p| !p.is_empty())
            .any(|p| parts.iter().any(|w| w == p)),
    }
}

/// The lines of squeue's job view before sorting: filtered, expanded per partition with
/// `-P`, and (unless `-r`) with pending array tasks merged into their meta record.
pub fn job_rows<'a>(
    jobs: &'a [JobRecord],
    f: &JobFilter,
    per_partition: bool,
    part_prio: &dyn Fn(&str) -> u32,
    merge_arrays: bool,
    array_unique: bool,
) -> Vec<JobRow<'a>> {
    let mut rows = Vec::new();
    for job in jobs {
        let mut row = JobRow::new(job);
        if !keep(&mut row, f) {
            continue;
        }
        if per_partition {
            for part in job.partition.split(',').filter(|p| !p.is_empty()) {
                if part_wanted(f, part) {
                    let mut r = row.clone();
                    r.partition = part.to_string().into();
                    r.part_prio = part_prio(part);
                    rows.push(r);
                }
            }
        } else if part_wanted(f, &job.partition) {
            rows.push(row);
        }
    }
    if merge_arrays {
        combine_pending_array_tasks(&mut rows, array_unique);
    }
    rows
}

/// `_combine_pending_array_tasks`: pending tasks of an array with the same name and
/// partition join their meta record's line. Each meta line, in order, takes the matching
/// task lines that no earlier meta line took; candidates are found through an index by
/// array id, so this stays linear in the number of lines.
fn combine_pending_array_tasks(rows: &mut Vec<JobRow>, array_unique: bool) {
    if array_unique {
        return;
    }
    let mut by_array: std::collections::HashMap<u32, Vec<usize>> = std::collections::HashMap::new();
    for (j, r) in rows.iter().enumerate() {
        if r.job.state == JobState::Pending && r.array_task_id.is_some() {
            by_array.entry(r.array_job_id).or_default().push(j);
        }
    }
    if by_array.is_empty() {
        return;
    }
    let mut taken = vec![false; rows.len()];
    for i in 0..rows.len() {
        let is_meta = rows[i].job.state == JobState::Pending
            && rows[i].array_task_str.is_some()
            && rows[i].tasks.is_some();
        if !is_meta || taken[i] {
            continue;
        }
        let Some(candidates) = by_array.get(&rows[i].array_job_id) else {
            continue;
        };
        let size = rows[i]
            .tasks
            .as_ref()
            .map_or(0, |t| t.iter().max().map_or(0, |m| m + 1));
        let mut merged = 0;
        for &j in candidates {
            let joins = j != i
                && !taken[j]
                && rows[j].array_task_id.is_some_and(|t| t < size)
                && rows[j].job.name == rows[i].job.name
                && rows[j].partition == rows[i].partition;
            if !joins {
                continue;
            }
            taken[j] = true;
            merged += 1;
            let reason = std::mem::take(&mut rows[j].reason);
            let task = rows[j].array_task_id;
            merge_reason(&mut rows[i], &reason);
            if let (Some(tasks), Some(t)) = (rows[i].tasks.as_mut(), task) {
                tasks.push(t);
            }
        }
        if merged > 0 {
            let tasks = rows[i].tasks.as_mut().map(|t| {
                t.sort_unstable();
                t.dedup();
                t.clone()
            });
            rows[i].array_task_str = Some(crate::model::array::ranges(&tasks.unwrap_or_default()));
        }
    }
    let mut idx = 0;
    rows.retain(|_| {
        let keep = !taken[idx];
        idx += 1;
        keep
    });
}

/// `_merge_job_reason`: the meta line lists every distinct reason of its tasks.
fn merge_reason(meta: &mut JobRow, task_reason: &str) {
    if meta.reason == task_reason || meta.reason.contains(task_reason) {
        return;
    }
    meta.reason = format!("{},{}", meta.reason, task_reason).into();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ArrayPart;

    fn job(id: u32, state: JobState) -> JobRecord {
        JobRecord {
            job_id: id,
            state,
            partition: "debug".into(),
            name: "j".into(),
            ..Default::default()
        }
    }

    #[test]
    fn default_filter_hides_finished_jobs() {
        let jobs = vec![job(1, JobState::Completed), job(2, JobState::Running)];
        let rows = job_rows(&jobs, &JobFilter::default(), false, &|_| 1, true, false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].job.job_id, 2);
    }

    #[test]
    fn base_state_does_not_match_completing_job() {
        let mut j = job(1, JobState::Completed);
        j.flag = StateFlag::Completing;
        assert!(!StateSel::Base(JobState::Completed).matches(&j));
        assert!(StateSel::parse("cg").unwrap().matches(&j));
    }

    #[test]
    fn a_special_exit_is_selected_by_its_flag_not_as_pending() {
        let mut j = job(1, JobState::Pending);
        j.flag = StateFlag::SpecialExit;
        assert!(!StateSel::parse("PD").unwrap().matches(&j));
        assert!(StateSel::parse("se").unwrap().matches(&j));
        assert!(StateSel::parse("special_exit").unwrap().matches(&j));
        assert!(
            !StateSel::parse("se")
                .unwrap()
                .matches(&job(2, JobState::Pending))
        );
    }

    #[test]
    fn pending_tasks_merge_into_meta_record() {
        let mut meta = job(13, JobState::Pending);
        meta.array = Some(ArrayPart::Pending {
            array_job_id: 13,
            tasks: vec![1, 2],
            throttle: Some(2),
        });
        meta.reason = "Priority".into();
        let mut task = job(20, JobState::Pending);
        task.array = Some(ArrayPart::Task {
            array_job_id: 13,
            task_id: 0,
        });
        task.reason = "Resources".into();
        let jobs = vec![meta, task];
        let rows = job_rows(&jobs, &JobFilter::default(), false, &|_| 1, true, false);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].array_task_str.as_deref(), Some("0-2"));
        assert_eq!(rows[0].reason, "Priority,Resources");
    }

    #[test]
    fn job_selection_narrows_pending_array() {
        let mut meta = job(13, JobState::Pending);
        meta.array = Some(ArrayPart::Pending {
            array_job_id: 13,
            tasks: vec![0, 1, 2, 3],
            throttle: None,
        });
        let jobs = vec![meta];
        let f = JobFilter {
            jobs: Some(vec![JobIdSel {
                job_id: 13,
                task: Some(2),
            }]),
            ..Default::default()
        };
        let rows = job_rows(&jobs, &f, false, &|_| 1, true, false);
        assert_eq!(rows[0].array_task_id, Some(2));
        assert_eq!(rows[0].array_task_str, None);
    }
}
