//! Backend.AI sessions -> Slurm job records (DESIGN.md §3.3 for states and reasons).

use super::jobid;
use crate::backend::HoldKind;
use crate::launcher::meta::{JobMeta, LaunchResult, ResultKind};
use crate::model::{
    ArrayPart, ExitStatus, JobRecord, JobState, MemoryRequest, StateFlag, StepId, StepRecord,
    TimeLimit,
};
use serde_json::Value;

/// The fields of a `compute_session_list` item that bai-slurm asks for, on every version.
pub const SESSION_FIELDS: &str = "id name tag status status_info status_data result created_at starts_at \
    terminated_at status_history occupied_slots scaling_group startup_command user_email access_key \
    cluster_size agent_ids image";

/// The fields to ask a manager of API major version `api_major` for: from v8 (24.03) a
/// session also has `requested_slots`, which 26.x keeps after the end, when its
/// `occupied_slots` has become `{}`.
pub fn session_fields(api_major: u32) -> String {
    if api_major >= 8 {
        format!("{SESSION_FIELDS} requested_slots")
    } else {
        SESSION_FIELDS.to_string()
    }
}

/// From API v9 (Backend.AI 25.x/26.x) the scheduler leaves a pending session's
/// `status_info` and `status_data` empty, and `starts_at` is the actual start (the
/// `--begin` time is kept where the legacy API does not show it).
const SILENT_SCHEDULER_API: u32 = 9;

/// A session this one waits for (Backend.AI's own `dependencies`, what afterok becomes).
/// The legacy GraphQL `dependencies` field cannot be used (26.9 fails it with `email` for
/// any session that has one): the views find these among the sessions they read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prerequisite {
    pub id: String,
    pub name: String,
    pub status: String,
    pub result: String,
}

impl Prerequisite {
    /// The session it is, as far as a dependent needs to know.
    pub fn of(s: &Session) -> Prerequisite {
        Prerequisite {
            id: s.id.clone(),
            name: s.name.clone(),
            status: if s.job_ended() && !s.is_finished() && s.result != "SUCCESS" {
                // ended without success all the same (its result is set, or it never
                // started); a success counts once the session is TERMINATED, as for the
                // manager
                "TERMINATED".into()
            } else {
                s.status.clone()
            },
            result: s.result.clone(),
        }
    }

    /// Ended without success: the session waiting for it will never start.
    pub fn failed(&self) -> bool {
        matches!(self.status.as_str(), "TERMINATED" | "CANCELLED" | "ERROR")
            && self.result != "SUCCESS"
    }

    pub fn succeeded(&self) -> bool {
        self.status == "TERMINATED" && self.result == "SUCCESS"
    }
}

/// A session as GraphQL returns it, with JSON-in-a-string fields decoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Session {
    pub id: String,
    pub name: String,
    pub tag: String,
    pub status: String,
    pub status_info: Option<String>,
    pub status_data: Value,
    pub result: String,
    pub created_at: Option<i64>,
    pub starts_at: Option<i64>,
    pub terminated_at: Option<i64>,
    /// Status -> the time it was entered.
    pub status_history: Vec<(String, i64)>,
    pub occupied_slots: Value,
    /// What the session asked for (API v8 and later; `Null` before).
    pub requested_slots: Value,
    pub scaling_group: String,
    pub startup_command: String,
    pub user_email: String,
    pub access_key: String,
    pub cluster_size: u32,
    pub agent_ids: Vec<String>,
    pub image: String,
    /// The sessions it waits for, as far as the views know them ([`Prerequisite`]).
    pub dependencies: Vec<Prerequisite>,
    /// The API major version of the manager that described it (0: not known), which
    /// says how to read `status_info` and `starts_at`.
    pub api_major: u32,
}

fn time_of(v: &Value) -> Option<i64> {
    let s = v.as_str()?;
    chrono::DateTime::parse_from_rfc3339(s)
        .or_else(|_| chrono::DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f%:z"))
        .ok()
        .map(|t| t.timestamp())
}

/// 23.09 returns some fields as JSON encoded in a string.
fn json_field(v: &Value) -> Value {
    match v {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        other => other.clone(),
    }
}

impl Session {
    pub fn from_json(v: &Value) -> Option<Session> {
        let s = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let history = match json_field(v.get("status_history").unwrap_or(&Value::Null)) {
            Value::Object(m) => {
                let mut h: Vec<(String, i64)> = m
                    .iter()
                    .filter_map(|(k, t)| Some((k.clone(), time_of(t)?)))
                    .collect();
                h.sort_by_key(|(_, t)| *t);
                h
            }
            _ => Vec::new(),
        };
        Some(Session {
            id: v.get("id")?.as_str()?.to_string(),
            name: s("name"),
            tag: s("tag"),
            status: s("status"),
            status_info: v
                .get("status_info")
                .and_then(Value::as_str)
                .map(str::to_string),
            status_data: json_field(v.get("status_data").unwrap_or(&Value::Null)),
            result: s("result"),
            created_at: v.get("created_at").and_then(time_of),
            starts_at: v.get("starts_at").and_then(time_of),
            terminated_at: v.get("terminated_at").and_then(time_of),
            status_history: history,
            occupied_slots: json_field(v.get("occupied_slots").unwrap_or(&Value::Null)),
            requested_slots: json_field(v.get("requested_slots").unwrap_or(&Value::Null)),
            scaling_group: s("scaling_group"),
            startup_command: s("startup_command"),
            user_email: s("user_email"),
            access_key: s("access_key"),
            cluster_size: v.get("cluster_size").and_then(Value::as_u64).unwrap_or(1) as u32,
            agent_ids: v
                .get("agent_ids")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            image: s("image"),
            dependencies: Vec::new(),
            api_major: 0,
        })
    }

    /// A resource slot (`cpu`, `mem` in bytes): what the session occupies, else (after
    /// the end on 26.x, where `occupied_slots` becomes `{}`; or before it starts) what it
    /// asked for.
    pub fn slot(&self, key: &str) -> Option<f64> {
        let read = |slots: &Value| {
            slots.get(key).and_then(|v| {
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|x| x.parse().ok()))
            })
        };
        read(&self.occupied_slots)
            .filter(|v| *v > 0.0)
            .or_else(|| read(&self.requested_slots))
            .or_else(|| read(&self.occupied_slots))
    }

    /// Whether the manager gives no pending reason and bai-slurm derives Slurm's.
    pub fn scheduler_is_silent(&self) -> bool {
        self.api_major >= SILENT_SCHEDULER_API
    }

    /// `starts_at` as a deferred start (`--begin`): only where it means that (before API
    /// v9; from 26.x it is the actual start).
    pub fn requested_start(&self) -> Option<i64> {
        if self.scheduler_is_silent() {
            None
        } else {
            self.starts_at
        }
    }

    /// When the session entered `status` (from its status history).
    pub fn entered(&self, status: &str) -> Option<i64> {
        self.status_history
            .iter()
            .find(|(s, _)| s == status)
            .map(|(_, t)| *t)
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.status.as_str(), "TERMINATED" | "CANCELLED" | "ERROR")
    }

    /// Backend.AI 23.09 records a batch task's result and then destroys its session; when
    /// the task ends before the manager has marked the session RUNNING (a job of a second
    /// or so), the destroy is refused ("Cannot destroy sessions in ... preparing ...
    /// status") and the session stays RUNNING for good with its result set. Its job has
    /// ended all the same.
    pub fn batch_ended(&self) -> bool {
        matches!(
            self.status.as_str(),
            "RUNNING" | "RUNNING_DEGRADED" | "RESTARTING"
        ) && matches!(self.result.as_str(), "SUCCESS" | "FAILURE")
    }

    /// A session on its way out whose batch task has a result: its job has ended, and a
    /// state once final never goes back to RUNNING (squeue and sacct showed a FAILED job as
    /// RUNNING again while its session was TERMINATING).
    pub fn terminating_with_result(&self) -> bool {
        self.status == "TERMINATING" && matches!(self.result.as_str(), "SUCCESS" | "FAILURE")
    }

    /// Backend.AI 26.9 moves a pending session through DEPRIORITIZING; one deleted then
    /// stays TERMINATING for good (its kernel PENDING, no container ever made). Its job was
    /// cancelled before it started.
    pub fn cancelled_before_start(&self) -> bool {
        const STARTED: [&str; 6] = [
            "SCHEDULED",
            "PREPARING",
            "PULLING",
            "PREPARED",
            "CREATING",
            "RUNNING",
        ];
        self.status == "TERMINATING"
            && matches!(
                self.status_info.as_deref(),
                Some("user-requested" | "force-terminated")
            )
            && self.agent_ids.iter().all(String::is_empty)
            && STARTED.iter().all(|st| self.entered(st).is_none())
    }

    /// Whether the job has ended, whatever became of its session.
    pub fn job_ended(&self) -> bool {
        self.is_finished()
            || self.batch_ended()
            || self.terminating_with_result()
            || self.cancelled_before_start()
    }

    /// Whether the job's launcher left a log to read its result from: it ended, and its
    /// container ran. A session ended before that has none (26.9 answers a 500 for it,
    /// every time).
    pub fn has_log(&self) -> bool {
        self.job_ended() && self.status != "CANCELLED" && self.ran()
    }

    /// Whether its container ran (the manager saw it RUNNING, or it has a result).
    pub fn ran(&self) -> bool {
        self.entered("RUNNING").is_some() || matches!(self.result.as_str(), "SUCCESS" | "FAILURE")
    }
}

/// The Slurm state of a session, with the flag squeue shows instead (CF, CG) and the
/// reason; `result` is what the launcher reported, when the log has been read.
pub fn state_of(s: &Session, result: Option<&LaunchResult>) -> (JobState, StateFlag, String) {
    state_with_begin(s, result, s.requested_start(), crate::sys::now())
}

/// [`state_of`] with the job's deferred start (`--begin`) as bai-slurm knows it.
fn state_with_begin(
    s: &Session,
    result: Option<&LaunchResult>,
    begin: Option<i64>,
    now: i64,
) -> (JobState, StateFlag, String) {
    let info = s.status_info.as_deref().unwrap_or("");
    match s.status.as_str() {
        "PENDING" | "RESERVED" | "RESCHEDULING" | "DEPRIORITIZING" => (
            JobState::Pending,
            StateFlag::None,
            pending_reason(s, begin, now),
        ),
        "SCHEDULED" | "PREPARING" | "PULLING" | "PREPARED" | "CREATING" => {
            (JobState::Running, StateFlag::Configuring, "None".into())
        }
        _ if s.batch_ended() || s.terminating_with_result() => ended_state(s, result, info),
        _ if s.cancelled_before_start() => (JobState::Cancelled, StateFlag::None, "None".into()),
        "RUNNING" | "RUNNING_DEGRADED" | "RESTARTING" => {
            (JobState::Running, StateFlag::None, "None".into())
        }
        "TERMINATING" => (JobState::Running, StateFlag::Completing, "None".into()),
        "PREEMPTED" => (JobState::Preempted, StateFlag::None, "None".into()),
        // A session the manager could not start is cancelled with `failed-to-start`.
        "CANCELLED" if info == "failed-to-start" => {
            (JobState::Failed, StateFlag::None, "JobLaunchFailure".into())
        }
        "CANCELLED" => (JobState::Cancelled, StateFlag::None, "None".into()),
        "ERROR" => {
            let lost = matches!(
                info,
                "agent-termination" | "terminated-unknown-container" | "container-not-found"
            );
            if lost {
                (JobState::NodeFail, StateFlag::None, "NodeDown".into())
            } else {
                (JobState::Failed, StateFlag::None, "JobLaunchFailure".into())
            }
        }
        _ => ended_state(s, result, info),
    }
}

/// The state of a job whose session has ended (TERMINATED, or see
/// [`Session::batch_ended`]): the launcher's own report is the truth when there is one.
fn ended_state(
    s: &Session,
    result: Option<&LaunchResult>,
    info: &str,
) -> (JobState, StateFlag, String) {
    if let Some(r) = result {
        return match r.kind {
            ResultKind::Exited if r.exit.is_success() => {
                (JobState::Completed, StateFlag::None, "None".into())
            }
            ResultKind::Exited if r.exit.signal != 0 => {
                (JobState::Failed, StateFlag::None, "RaisedSignal".into())
            }
            ResultKind::Exited => (JobState::Failed, StateFlag::None, "NonZeroExitCode".into()),
            ResultKind::TimedOut => (JobState::Timeout, StateFlag::None, "TimeLimit".into()),
            ResultKind::Cancelled => (JobState::Cancelled, StateFlag::None, "None".into()),
            ResultKind::LaunchFailed => {
                (JobState::Failed, StateFlag::None, "JobLaunchFailure".into())
            }
            // slurmctld's `kill_invalid_depend`: the job goes instead of waiting for ever.
            ResultKind::DependencyNeverSatisfied => (
                JobState::Cancelled,
                StateFlag::None,
                "DependencyNeverSatisfied".into(),
            ),
        };
    }
    match (s.result.as_str(), info) {
        (_, "user-requested" | "force-terminated" | "task-cancelled") => {
            (JobState::Cancelled, StateFlag::None, "None".into())
        }
        (_, "task-timeout" | "exec-timeout") => {
            (JobState::Timeout, StateFlag::None, "TimeLimit".into())
        }
        ("SUCCESS", _) => (JobState::Completed, StateFlag::None, "None".into()),
        ("FAILURE", _) => (JobState::Failed, StateFlag::None, "NonZeroExitCode".into()),
        _ => (JobState::Completed, StateFlag::None, "None".into()),
    }
}

/// Whether a person (the owner or an administrator) ended the session, not the manager.
/// A deleted pending session is CANCELLED, and its status_info may still be the
/// scheduler's last word (seen on 23.09: `predicate-checks-failed` after an admin's delete).
fn cancelled_by_a_user(s: &Session) -> bool {
    let info = s.status_info.as_deref().unwrap_or("");
    match s.status.as_str() {
        "CANCELLED" => !matches!(info, "failed-to-start" | "pending-timeout"),
        _ => matches!(
            info,
            "user-requested" | "force-terminated" | "task-cancelled"
        ),
    }
}

/// Why a session waits, in Slurm's words. The 23.09 scheduler says it (`status_info`, the
/// failed predicates of `status_data`); 26.x says nothing, so the reason is derived from
/// what bai-slurm knows, in slurmctld's order: a deferred start not reached is
/// `BeginTime`, a dependency that ended without success `DependencyNeverSatisfied` (on
/// every version: Backend.AI keeps such a session pending for good), one not ended yet
/// `Dependency`, else the job waits for resources (`Resources`; [`rank_waiting`] turns
/// those behind another into `Priority`).
fn pending_reason(s: &Session, begin: Option<i64>, now: i64) -> String {
    if begin.is_some_and(|b| b > now) {
        return "BeginTime".into();
    }
    if s.dependencies.iter().any(Prerequisite::failed) {
        return "DependencyNeverSatisfied".into();
    }
    let failed: Vec<String> = s
        .status_data
        .pointer("/scheduler/failed_predicates")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if failed.iter().any(|n| n == "dependencies") {
        return "Dependency".into();
    }
    if failed.iter().any(|n| n == "reserved_time") {
        return "BeginTime".into();
    }
    if failed.iter().any(|n| n == "concurrency") {
        return "QOSMaxJobsPerUserLimit".into();
    }
    if failed.iter().any(|n| n.ends_with("resource_limit")) {
        return "AssocGrpCpuLimit".into();
    }
    if !s.dependencies.iter().all(Prerequisite::succeeded) {
        return "Dependency".into();
    }
    match s.status_info.as_deref() {
        Some("no-available-instances") => "Resources".into(),
        Some(_) if !failed.is_empty() => "Resources".into(),
        None if s.scheduler_is_silent() => "Resources".into(),
        _ => "None".into(),
    }
}

/// Slurm shows `Resources` for the first job of a partition that waits for resources and
/// `Priority` for those queued behind it (same priority: the older first); Backend.AI
/// 23.09 says `no-available-instances` of each, 26.x nothing.
pub fn rank_waiting(recs: &mut [JobRecord]) {
    let mut waiting: Vec<&mut JobRecord> = recs
        .iter_mut()
        .filter(|r| r.state == JobState::Pending && r.reason == "Resources")
        .collect();
    waiting.sort_by(|a, b| {
        (&a.partition, a.submit_time, a.job_id).cmp(&(&b.partition, b.submit_time, b.job_id))
    });
    let mut first: Option<String> = None;
    for r in waiting {
        if first.as_deref() == Some(r.partition.as_str()) {
            r.reason = "Priority".into();
        } else {
            first = Some(r.partition.clone());
        }
    }
}

/// squeue `%E`: what is left of an afterok dependency, each item as its sessions stand
/// (`afterok:12(failed)` once one of them ended without success, as slurmctld shows it).
/// `gated`: the job's launcher judges its dependency (`launcher::gate`); then a session's
/// success says only that it ended, and the item stays unfulfilled until the job starts.
fn dependency_left(
    dep: &crate::model::Dependency,
    sessions: &[Prerequisite],
    gated: bool,
) -> Option<String> {
    use crate::model::{DepKind, DepStatus};
    let status = |item: &crate::model::DepItem| {
        let Some(target) = item
            .target
            .filter(|_| item.kind == DepKind::AfterOk || gated)
        else {
            return item.status;
        };
        let mine: Vec<&Prerequisite> = sessions
            .iter()
            .filter(|p| {
                jobid::parse_session_name(&p.name)
                    .is_some_and(|(id, task)| jobid::names_target(id, task, target))
            })
            .collect();
        if mine.iter().any(|p| p.failed()) {
            DepStatus::Failed
        } else if !gated && !mine.is_empty() && mine.iter().all(|p| p.succeeded()) {
            DepStatus::Fulfilled
        } else {
            item.status
        }
    };
    crate::model::dependency::render_remaining(dep.items.iter().map(|i| (i, status(i))), dep.any)
}

/// Builds the job record of a session. `user_of` names the Unix user of a session that
/// bai-slurm did not create (from its Backend.AI user's email).
pub fn job_record(
    s: &Session,
    meta: Option<&JobMeta>,
    result: Option<&LaunchResult>,
    cluster: &str,
    user_of: impl Fn(&Session) -> String,
) -> JobRecord {
    let parsed = jobid::parse_session_name(&s.name);
    let facts = super::tag::parse_tag(&s.tag);
    let held = facts.as_ref().and_then(|t| t.hold);
    let awaits_start = facts.as_ref().is_some_and(|t| t.awaits_start);
    // The deferred start: the job's own, else its tag's, else (23.09) the session's (a
    // held session's far `startsAt` is the hold, not a start).
    let begin = meta
        .and_then(|m| m.spec.begin)
        .or_else(|| facts.as_ref().and_then(|t| t.begin))
        .or_else(|| {
            s.requested_start()
                .filter(|_| held.is_none() && !awaits_start)
        });
    let (mut state, mut flag, mut reason) = state_with_begin(s, result, begin, crate::sys::now());
    let held = held.filter(|_| state == JobState::Pending);
    if held.is_none() && awaits_start && state == JobState::Pending {
        // Its far `startsAt` waits for an `after` job's start, not for a time.
        reason = "Dependency".into();
    }
    if let Some(kind) = held {
        reason = match kind {
            // slurmctld's state_desc, which squeue shows for the reason
            _ if facts.as_ref().is_some_and(|t| t.requeue_held) => "job requeued in held state",
            HoldKind::User => "JobHeldUser",
            HoldKind::Admin => "JobHeldAdmin",
        }
        .into();
    }
    // A hold or a release made the session again: the job was submitted before it.
    let submitted = facts.as_ref().and_then(|t| t.submit).or(s.created_at);
    // A gated job's launcher judges its dependency once its container runs: until then
    // the dependency is not judged, and slurmctld would show the job pending for it.
    let gated = meta.is_some_and(|m| m.gate.as_ref().is_some_and(|g| !g.items.is_empty()));
    if gated && flag == StateFlag::Configuring {
        (state, flag, reason) = (JobState::Pending, StateFlag::None, "Dependency".into());
    }
    // A job its gate ended never ran: slurmctld starts and ends it in the same moment,
    // on no node.
    let never_ran = result.is_some_and(|r| r.kind == ResultKind::DependencyNeverSatisfied);
    let start = if never_ran {
        result.and_then(|r| r.end)
    } else {
        s.entered("RUNNING")
            .or_else(|| s.entered("PREPARING"))
            .or_else(|| s.entered("SCHEDULED"))
    };
    let nodes: Vec<String> = s
        .agent_ids
        .iter()
        .filter(|a| !a.is_empty())
        .cloned()
        .collect();
    let started = state != JobState::Pending && !nodes.is_empty() && !never_ran;
    let slot = |k: &str| s.slot(k);
    let exit = result.map_or_else(
        || match state {
            // Killed with its container before the launcher could report: slurmstepd's
            // SIGTERM is what Slurm records for a cancelled running job.
            JobState::Cancelled if start.is_some() => ExitStatus {
                code: 0,
                signal: libc::SIGTERM,
            },
            JobState::Failed | JobState::NodeFail => ExitStatus::code(1),
            _ if s.result == "FAILURE" => ExitStatus::code(1),
            _ => ExitStatus::OK,
        },
        |r| r.exit,
    );
    let mut rec = JobRecord {
        job_id: parsed.map_or_else(|| jobid::foreign_id(&s.id), |(id, _)| id),
        array: match (parsed, &meta) {
            (Some((id, Some(task))), _) => Some(ArrayPart::Task {
                array_job_id: id,
                task_id: task,
            }),
            _ => None,
        },
        name: s.name.clone(),
        user: user_of(s),
        partition: s.scaling_group.clone(),
        state,
        flag,
        reason,
        // slurmctld holds a job by giving it priority 0; it is not eligible meanwhile.
        priority: if held.is_some() { 0 } else { 1 },
        submit_time: submitted.unwrap_or(0),
        // A deferred start (--begin) is when the job becomes eligible.
        eligible_time: submitted
            .map(|c| begin.map_or(c, |b| b.max(c)))
            .filter(|_| held.is_none()),
        accrue_time: submitted.filter(|_| held.is_none()),
        start_time: if state == JobState::Pending {
            None
        } else {
            start.or(s.terminated_at)
        },
        end_time: if state.is_finished() {
            // The launcher's clock can be a second behind the manager's mark of RUNNING;
            // a job never ends before it starts.
            result
                .and_then(|r| r.end)
                .or(s.terminated_at)
                .or_else(|| s.entered("TERMINATING"))
                .or(start)
                .map(|end| start.map_or(end, |st| end.max(st)))
        } else {
            None
        },
        last_sched_eval: s.status_history.last().map(|(_, t)| *t),
        time_limit: TimeLimit::Infinite,
        num_nodes: s.cluster_size.max(1),
        num_cpus: slot("cpu").map_or(1, |c| c.ceil() as u32).max(1),
        num_tasks: Some(1),
        cpus_per_task: 1,
        memory: MemoryRequest::PerNode(slot("mem").map_or(0, |b| (b / 1_048_576.0) as u64)),
        nodes: started.then(|| crate::model::hostlist::compress(&nodes)),
        batch_host: started.then(|| nodes.first().cloned()).flatten(),
        command: s.startup_command.clone(),
        exit_code: exit,
        derived_exit_code: ExitStatus::OK,
        batch: true,
        requeue: true,
        alloc_node: String::new(),
        cluster: cluster.to_string(),
        qos: Some("normal".into()),
        ..Default::default()
    };
    // Without the job's metadata, its tag still names it, its owner and its time limit.
    if let (None, Some(t)) = (meta, super::tag::parse_tag(&s.tag)) {
        rec.name = t.name;
        rec.uid = t.uid;
        rec.time_limit = t.time_limit;
        if let Some(u) = crate::sys::lookup_user_by_uid(t.uid) {
            rec.user = u.name;
            rec.gid = u.gid;
            rec.group = u.group;
        }
    }
    if let Some(m) = meta {
        let spec = &m.spec;
        rec.name = spec.name.clone();
        rec.ntasks_requested = spec.task_count().is_some();
        rec.step_ended_after_job = spec.made_by_srun && started && state.is_finished();
        // Only the owner (or an administrator) can delete a session, or reach its
        // launcher to cancel the job.
        let launcher_cancelled = result.is_some_and(|r| r.kind == ResultKind::Cancelled);
        if state == JobState::Cancelled && (cancelled_by_a_user(s) || launcher_cancelled) {
            rec.cancelled_by = Some(m.uid);
        }
        if state == JobState::Pending && rec.reason == "None" && spec.dependency.is_some() {
            rec.reason = "Dependency".into();
        }
        if let Some(p) = &spec.partition {
            rec.partition = p.clone();
        }
        rec.user = m.user.clone();
        rec.uid = m.uid;
        rec.gid = m.gid;
        rec.group = m.group.clone();
        rec.account = spec.account.clone();
        rec.qos = Some(spec.qos.clone().unwrap_or_else(|| "normal".into()));
        rec.time_min = spec.time_min.and_then(|t| match t {
            crate::model::TimeLimit::Minutes(m) => Some(m),
            crate::model::TimeLimit::Infinite => None,
        });
        rec.time_limit = spec.time_limit.unwrap_or(TimeLimit::Infinite);
        rec.num_tasks = Some(spec.task_count().unwrap_or(1));
        rec.min_cpus_per_node = spec.min_cpus_per_node();
        rec.cpus_per_task = spec.cpus_per_task.unwrap_or(1);
        rec.ntasks_per_node = Some(spec.ntasks_per_node.unwrap_or(0));
        rec.num_cpus = spec.cpus();
        rec.memory = match (spec.mem_per_node, spec.mem_per_cpu) {
            (Some(mb), _) => MemoryRequest::PerNode(mb),
            (None, Some(mb)) => MemoryRequest::PerCpu(mb),
            _ => rec.memory,
        };
        if spec.exclusive {
            // slurmctld's record of a whole-node job: what was asked (ReqTRES) apart from
            // what it was given, here every CPU the session holds of its agent.
            rec.over_subscribe = Some("NO".into());
            rec.tres_req = Some(rec.tres());
            rec.num_cpus = slot("cpu").map_or(rec.num_cpus, |c| c.ceil() as u32);
        }
        rec.work_dir = spec.work_dir.clone();
        rec.comment = spec.comment.clone();
        rec.requeue = spec.requeue.unwrap_or(true);
        rec.restarts = m.restarts;
        rec.req_nodes = spec.nodelist.clone();
        rec.exc_nodes = spec.exclude.clone();
        rec.mail_user = spec
            .mail_user
            .clone()
            .or_else(|| spec.mail_type.as_ref().map(|_| m.user.clone()));
        rec.mail_type = spec.mail_type.clone();
        rec.kill_on_invalid_dep = spec.kill_on_invalid_dep;
        rec.tres_per_node = spec.tres_per_node();
        rec.tres_per_job = spec.gpus_tres(crate::model::jobspec::GpuPer::Job);
        rec.tres_per_task = spec.tres_per_task_shown();
        rec.cpus_per_tres = spec.cpus_per_gpu.map(|c| format!("gres:gpu:{c}"));
        rec.mem_per_tres = spec.mem_per_gpu.map(|m| format!("gres:gpu:{m}"));
        rec.nice = spec.nice.unwrap_or(0);
        // A task keeps its array's throttle (scontrol ArrayTaskThrottle).
        if matches!(rec.array, Some(ArrayPart::Task { .. })) {
            rec.array_throttle = spec.array.as_ref().and_then(|a| a.throttle);
        }
        rec.dependency = spec.dependency.as_ref().and_then(|d| {
            if state == JobState::Pending {
                dependency_left(d, &s.dependencies, m.job_dir.is_some())
            } else if never_ran {
                // What slurmctld shows of a job it ended for it: the items, failed.
                crate::model::dependency::render_remaining(
                    d.items.iter().map(|i| (i, crate::model::DepStatus::Failed)),
                    d.any,
                )
            } else {
                None
            }
        });
        rec.command = if spec.command.is_empty() {
            String::new()
        } else {
            spec.command.clone()
        };
        // The Slurm release the job was submitted under: 24.11 keeps no script arguments.
        let profile = m.slurm_version.profile();
        if profile.scontrol.command_with_args {
            for a in &spec.script_args {
                rec.command.push(' ');
                rec.command.push_str(a);
            }
        }
        rec.alloc_node = spec.submit_host.split('.').next().unwrap_or("").to_string();
        rec.alloc_sid = spec.submit_sid;
        rec.submit_time = m.submit_time.max(rec.submit_time.min(m.submit_time));
        // Slurm's job is eligible from its submission, not from when a busy manager got
        // round to creating the session; one waiting for a dependency is not eligible
        // yet (nor ever, when it never can be).
        rec.eligible_time = Some(begin.map_or(rec.submit_time, |b| b.max(rec.submit_time)));
        let waits = state == JobState::Pending
            && matches!(
                rec.reason.as_str(),
                "Dependency" | "DependencyNeverSatisfied"
            );
        if waits || never_ran || held.is_some() {
            rec.eligible_time = None;
            rec.accrue_time = None;
        }
        let ctx = crate::model::fname::FnameContext {
            job_id: m.job_id,
            array: m.array_task.map(|t| (m.job_id, t)),
            node_name: rec.batch_host.as_deref().unwrap_or(""),
            user: &m.user,
            job_name: &spec.name,
            ..Default::default()
        };
        let default_out = if spec.array.is_some() {
            "slurm-%A_%a.out"
        } else {
            "slurm-%j.out"
        };
        let out = spec.stdout.as_deref().unwrap_or(default_out);
        let absolute = |p: &str| {
            if p.starts_with('/') || spec.work_dir.is_empty() {
                p.to_string()
            } else {
                format!("{}/{p}", spec.work_dir.trim_end_matches('/'))
            }
        };
        rec.io_patterns = Some(crate::model::job::IoPatterns {
            std_out: absolute(out),
            std_err: absolute(spec.stderr.as_deref().unwrap_or(out)),
            std_in: absolute(spec.stdin.as_deref().unwrap_or("/dev/null")),
        });
        rec.std_out = crate::model::fname::expand(out, &ctx, &spec.work_dir);
        rec.std_err = crate::model::fname::expand(
            spec.stderr.as_deref().unwrap_or(out),
            &ctx,
            &spec.work_dir,
        );
        rec.std_in = crate::model::fname::expand(
            spec.stdin.as_deref().unwrap_or("/dev/null"),
            &ctx,
            &spec.work_dir,
        );
    }
    // Only a job that really started has a batch step (not one cancelled while pending),
    // and only a batch job: salloc's and srun's allocations have none (their steps are
    // logged, `add_logged_steps`).
    let batch = !meta.is_some_and(|m| m.spec.interactive);
    if let (true, Some(start), true, true) = (
        state.is_finished() || state == JobState::Running,
        rec.start_time,
        start.is_some() && !never_ran,
        batch,
    ) {
        rec.steps.push(StepRecord {
            step_id: StepId::Batch,
            name: "batch".into(),
            state: match state {
                JobState::Timeout | JobState::Cancelled => JobState::Cancelled,
                other => other,
            },
            exit_code: exit,
            start_time: Some(start),
            end_time: rec.end_time,
            num_cpus: rec.num_cpus,
            num_tasks: 1,
            num_nodes: 1,
            nodes: rec.batch_host.clone().unwrap_or_default(),
            ..Default::default()
        });
    }
    rec
}

/// A job held while it ran (`scontrol hold` of a running job): slurmctld gives it
/// priority 0 and the hold's reason, which it keeps when it ends unless its end gave one
/// (a time limit, a failure).
pub fn held_while_running(rec: &mut JobRecord, hold: Option<HoldKind>) {
    let Some(kind) = hold else {
        return;
    };
    rec.priority = 0;
    if rec.reason == "None" {
        rec.reason = match kind {
            HoldKind::User => "JobHeldUser",
            HoldKind::Admin => "JobHeldAdmin",
        }
        .into();
    }
}

/// The controller's record as slurmdbd keeps it (sacct): a job the controller ended
/// (cancel, time limit) has exit code 0:0, only its steps keep the signal; one ended for a
/// dependency that can never be satisfied keeps the reason it had while it waited
/// (`state_reason_prev_db`).
pub fn as_accounted(r: &mut JobRecord) {
    if matches!(r.state, JobState::Cancelled | JobState::Timeout) {
        r.exit_code = ExitStatus::OK;
    }
    if r.state == JobState::Cancelled && r.reason == "DependencyNeverSatisfied" {
        r.reason = "Dependency".into();
    }
}

/// An earlier run of a requeued job as slurmdbd keeps it: REQUEUED, with the exit code
/// the run's own record has (0:0 for a run the requeue stopped).
pub fn as_earlier_run(r: &mut JobRecord) {
    as_accounted(r);
    r.state = JobState::Requeued;
    r.flag = StateFlag::None;
}

/// Adds the steps node 0's launcher logged, after the batch step. A step the job's end
/// caught running ends CANCELLED with the job, as slurmctld ends a killed job's steps.
pub fn add_logged_steps(rec: &mut JobRecord, logged: &[StepRecord]) {
    for step in logged {
        let mut step = step.clone();
        if step.state == JobState::Running && rec.state.is_finished() {
            step.state = JobState::Cancelled;
            step.end_time = rec.end_time;
        }
        rec.steps.push(step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn logged_steps_follow_the_batch_step_and_end_with_the_job() {
        let mut rec = JobRecord {
            state: JobState::Timeout,
            end_time: Some(200),
            steps: vec![StepRecord {
                step_id: StepId::Batch,
                ..Default::default()
            }],
            ..Default::default()
        };
        let done = StepRecord {
            step_id: StepId::Numbered(0),
            state: JobState::Completed,
            end_time: Some(150),
            ..Default::default()
        };
        let caught = StepRecord {
            step_id: StepId::Numbered(1),
            state: JobState::Running,
            ..Default::default()
        };
        add_logged_steps(&mut rec, &[done.clone(), caught]);
        let ids: Vec<_> = rec.steps.iter().map(|s| s.step_id).collect();
        assert_eq!(
            ids,
            [StepId::Batch, StepId::Numbered(0), StepId::Numbered(1)]
        );
        assert_eq!(rec.steps[1], done);
        assert_eq!(
            (rec.steps[2].state, rec.steps[2].end_time),
            (JobState::Cancelled, Some(200))
        );
    }

    fn item(status: &str, info: &str, result: &str) -> Session {
        Session::from_json(&json!({
            "id": "f6f3c6c8-0000-4000-8000-000000000000",
            "name": "j62000000",
            "status": status,
            "status_info": info,
            "status_data": "{\"scheduler\": {\"failed_predicates\": [{\"name\": \"dependencies\", \"msg\": \"x\"}]}}",
            "result": result,
            "created_at": "2026-11-30T14:00:00+00:00",
            "terminated_at": "2026-11-30T14:00:09.5+00:00",
            "status_history": "{\"PENDING\": \"2026-11-30T14:00:00+00:00\", \"RUNNING\": \"2026-11-30T14:00:03+00:00\"}",
            "occupied_slots": "{\"cpu\": \"2\", \"mem\": \"536870912\"}",
            "scaling_group": "default",
            "startup_command": null,
            "tag": "slurm:0:60 train",
            "cluster_size": 1,
            "agent_ids": ["i-agent1"],
        }))
        .unwrap()
    }

    #[test]
    fn states_follow_the_design_table() {
        let st = |s: &str, i: &str, r: &str| state_of(&item(s, i, r), None).0;
        assert_eq!(st("PENDING", "", "UNDEFINED"), JobState::Pending);
        assert_eq!(
            state_of(&item("PREPARING", "", ""), None).1,
            StateFlag::Configuring
        );
        assert_eq!(
            state_of(&item("TERMINATING", "", ""), None).1,
            StateFlag::Completing
        );
        assert_eq!(
            st("TERMINATED", "task-finished", "SUCCESS"),
            JobState::Completed
        );
        assert_eq!(
            st("TERMINATED", "task-finished", "FAILURE"),
            JobState::Failed
        );
        assert_eq!(
            st("TERMINATED", "task-timeout", "FAILURE"),
            JobState::Timeout
        );
        assert_eq!(
            st("CANCELLED", "user-requested", "UNDEFINED"),
            JobState::Cancelled
        );
        assert_eq!(
            st("TERMINATED", "user-requested", "UNDEFINED"),
            JobState::Cancelled
        );
        assert_eq!(st("ERROR", "agent-termination", ""), JobState::NodeFail);
        assert_eq!(st("PREEMPTED", "", ""), JobState::Preempted);
        assert_eq!(
            state_of(&item("PENDING", "predicate-checks-failed", ""), None).2,
            "Dependency"
        );
    }

    #[test]
    fn the_launcher_report_decides_exit_codes() {
        let r = LaunchResult {
            kind: ResultKind::Exited,
            exit: ExitStatus::code(3),
            end: None,
        };
        let rec = job_record(
            &item("TERMINATED", "task-finished", "FAILURE"),
            None,
            Some(&r),
            "c",
            |_| "u".into(),
        );
        assert_eq!(
            (rec.state, rec.exit_code),
            (JobState::Failed, ExitStatus::code(3))
        );
        assert_eq!(rec.job_id, 62_000_000);
        assert_eq!(rec.start_time, Some(1_796_047_203));
        assert_eq!(rec.end_time, Some(1_796_047_209));
        assert_eq!(rec.num_cpus, 2);
        assert_eq!(rec.steps.len(), 1);
        assert_eq!(rec.name, "train");
        // salloc's or srun's allocation has no batch step.
        let allocation = JobMeta {
            spec: crate::model::JobSpec {
                interactive: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let rec = job_record(
            &item("TERMINATED", "task-finished", "FAILURE"),
            Some(&allocation),
            Some(&r),
            "c",
            |_| "u".into(),
        );
        assert_eq!((rec.state, rec.steps.len()), (JobState::Failed, 0));
    }

    #[test]
    fn an_exclusive_job_asked_for_one_cpu_and_holds_its_whole_agent() {
        let exclusive = JobMeta {
            spec: crate::model::JobSpec {
                exclusive: true,
                mem_per_node: Some(512),
                ..Default::default()
            },
            ..Default::default()
        };
        let ran = item("TERMINATED", "task-finished", "SUCCESS");
        let rec = job_record(&ran, Some(&exclusive), None, "c", |_| "u".into());
        assert_eq!(
            (
                rec.over_subscribe.as_deref(),
                rec.tres_req.as_deref(),
                rec.num_cpus
            ),
            (Some("NO"), Some("cpu=1,mem=512M,node=1,billing=1"), 2)
        );
        let shared = job_record(&ran, None, None, "c", |_| "u".into());
        assert_eq!((shared.over_subscribe, shared.tres_req), (None, None));
    }

    #[test]
    fn a_job_held_while_it_ran_keeps_priority_0_and_the_reason_its_end_left() {
        let held = |state, reason: &str, kind| {
            let mut rec = JobRecord {
                state,
                reason: reason.into(),
                priority: 1,
                ..Default::default()
            };
            held_while_running(&mut rec, kind);
            (rec.priority, rec.reason)
        };
        let admin = Some(HoldKind::Admin);
        let user = Some(HoldKind::User);
        assert_eq!(
            held(JobState::Running, "None", admin),
            (0, "JobHeldAdmin".into())
        );
        assert_eq!(
            held(JobState::Completed, "None", user),
            (0, "JobHeldUser".into())
        );
        assert_eq!(
            held(JobState::Timeout, "TimeLimit", user),
            (0, "TimeLimit".into())
        );
        assert_eq!(held(JobState::Running, "None", None), (1, "None".into()));
    }

    #[test]
    fn a_gated_job_whose_container_starts_still_waits_for_its_dependency() {
        let dependency = crate::model::Dependency {
            items: vec![crate::model::DepItem {
                kind: crate::model::DepKind::AfterOk,
                target: Some(crate::model::DepTarget::Job(61999999)),
                delay_minutes: 0,
                status: crate::model::DepStatus::Unfulfilled,
            }],
            any: false,
        };
        let gated = JobMeta {
            spec: crate::model::JobSpec {
                dependency: Some(dependency),
                ..Default::default()
            },
            job_dir: Some("/shared/jobs".into()),
            gate: Some(crate::launcher::gate::Gate {
                any: false,
                items: vec![crate::launcher::gate::GateItem {
                    kind: crate::model::DepKind::AfterOk,
                    jobs: vec!["61999999".into()],
                }],
            }),
            ..Default::default()
        };
        let starting = item("PREPARING", "", "");
        let rec = job_record(&starting, Some(&gated), None, "c", |_| "u".into());
        assert_eq!(
            (
                rec.state,
                rec.flag,
                rec.reason.as_str(),
                rec.nodes,
                rec.start_time
            ),
            (JobState::Pending, StateFlag::None, "Dependency", None, None)
        );
        assert_eq!(
            rec.dependency.as_deref(),
            Some("afterok:61999999(unfulfilled)")
        );
        // Once the launcher runs, the gate has let it through (or ends it at once).
        let running = item("RUNNING", "", "");
        let rec = job_record(&running, Some(&gated), None, "c", |_| "u".into());
        assert_eq!((rec.state, rec.dependency), (JobState::Running, None));
        // A job without a dependency is configuring, as before.
        let rec = job_record(&starting, Some(&JobMeta::default()), None, "c", |_| {
            "u".into()
        });
        assert_eq!(rec.flag, StateFlag::Configuring);
    }

    #[test]
    fn a_held_session_waits_for_its_release_and_keeps_its_submission() {
        let mut held = item("PENDING", "", "UNDEFINED");
        held.tag = "slurm:1001:60:1800000000:h:s1796040000 train".into();
        held.starts_at = Some(4_102_444_800);
        let rec = job_record(&held, None, None, "c", |_| "u".into());
        assert_eq!(
            (rec.state, rec.reason.as_str(), rec.priority),
            (JobState::Pending, "JobHeldUser", 0)
        );
        assert_eq!(
            (rec.submit_time, rec.eligible_time, rec.accrue_time),
            (1_796_040_000, None, None)
        );
        held.tag = "slurm:1001:60:H x".into();
        let rec = job_record(&held, None, None, "c", |_| "u".into());
        assert_eq!(
            (rec.reason.as_str(), rec.submit_time),
            ("JobHeldAdmin", 1_796_047_200)
        );
        // Released: its deferred start is the tag's, not the held session's far one.
        held.tag = "slurm:1001:60:4000000000 x".into();
        let rec = job_record(&held, None, None, "c", |_| "u".into());
        assert_eq!((rec.reason.as_str(), rec.priority), ("BeginTime", 1));
        // Awaiting an `after` job's start: its far start is no deferred start.
        held.tag = "slurm:1001:60:w x".into();
        held.status_data =
            serde_json::json!({"scheduler": {"failed_predicates": [{"name": "reserved_time"}]}});
        let rec = job_record(&held, None, None, "c", |_| "u".into());
        assert_eq!(
            (rec.state, rec.reason.as_str()),
            (JobState::Pending, "Dependency")
        );
        assert_eq!(rec.start_time, None);
        // Held too: the hold is what squeue says.
        held.tag = "slurm:1001:60:h:w x".into();
        let rec = job_record(&held, None, None, "c", |_| "u".into());
        assert_eq!(rec.reason, "JobHeldUser");
    }

    #[test]
    fn a_terminating_session_with_a_result_stays_ended() {
        let mut going = item("TERMINATING", "", "FAILURE");
        going.terminated_at = None;
        assert!(going.job_ended() && !going.batch_ended());
        let r = LaunchResult {
            kind: ResultKind::Exited,
            exit: ExitStatus::code(5),
            end: Some(1_796_047_205),
        };
        assert_eq!(state_of(&going, Some(&r)).0, JobState::Failed);
        assert_eq!(state_of(&going, None).0, JobState::Failed);
        // Without a result (cancelled while running, say) it is still completing.
        let plain = item("TERMINATING", "", "UNDEFINED");
        assert_eq!(
            state_of(&plain, None),
            (JobState::Running, StateFlag::Completing, "None".into())
        );
    }

    #[test]
    fn a_pending_session_deleted_while_deprioritized_was_cancelled() {
        // 26.9: deleted while the scheduler re-queued it; TERMINATING for good.
        let stuck = Session::from_json(&json!({
            "id": "f6f3c6c8-0000-4000-8000-000000000001",
            "name": "j62000001",
            "status": "TERMINATING",
            "status_info": "user-requested",
            "result": "UNDEFINED",
            "created_at": "2026-11-30T14:00:00+00:00",
            "status_history": "{\"PENDING\": \"2026-11-30T14:00:00+00:00\", \"DEPRIORITIZING\": \"2026-11-30T14:00:05+00:00\", \"TERMINATING\": \"2026-11-30T14:00:06+00:00\"}",
            "agent_ids": [],
        }))
        .unwrap();
        assert!(stuck.cancelled_before_start() && stuck.job_ended());
        let rec = job_record(&stuck, None, None, "c", |_| "u".into());
        assert_eq!(
            (rec.state, rec.start_time, rec.end_time),
            (JobState::Cancelled, None, Some(1_796_047_206))
        );
        // One that started is still completing.
        let going = item("TERMINATING", "user-requested", "UNDEFINED");
        assert!(!going.cancelled_before_start());
        assert_eq!(state_of(&going, None).1, StateFlag::Completing);
    }

    #[test]
    fn statuses_of_26_9_and_its_silent_scheduler() {
        for st in ["PREPARED", "CREATING"] {
            assert_eq!(
                state_of(&item(st, "", ""), None),
                (JobState::Running, StateFlag::Configuring, "None".into())
            );
        }
        // a failed batch task: task-failed (23.09 said task-finished)
        assert_eq!(
            state_of(&item("TERMINATED", "task-failed", "FAILURE"), None).0,
            JobState::Failed
        );
        let mut waiting = item("PENDING", "", "UNDEFINED");
        waiting.status_info = None;
        waiting.status_data = Value::Null;
        // 23.09, not yet looked at by its scheduler: None, as Slurm before its first pass
        assert_eq!(state_of(&waiting, None).2, "None");
        waiting.api_major = 9;
        assert_eq!(state_of(&waiting, None).2, "Resources");
        // 26.x's starts_at is the actual start, never a deferred one
        waiting.starts_at = Some(crate::sys::now() + 3600);
        assert_eq!(state_of(&waiting, None).2, "Resources");
        assert_eq!(
            state_with_begin(
                &waiting,
                None,
                Some(crate::sys::now() + 3600),
                crate::sys::now()
            )
            .2,
            "BeginTime"
        );
        waiting.dependencies = vec![Prerequisite {
            id: "x".into(),
            name: "j61999999".into(),
            status: "RUNNING".into(),
            result: "UNDEFINED".into(),
        }];
        assert_eq!(state_of(&waiting, None).2, "Dependency");
        waiting.dependencies[0].status = "TERMINATED".into();
        waiting.dependencies[0].result = "FAILURE".into();
        assert_eq!(state_of(&waiting, None).2, "DependencyNeverSatisfied");
        waiting.dependencies[0].result = "SUCCESS".into();
        assert_eq!(state_of(&waiting, None).2, "Resources");
        // after the end 26.x keeps only what was asked for
        let mut ended = item("TERMINATED", "task-finished", "SUCCESS");
        ended.occupied_slots = json!({});
        ended.requested_slots = json!({"cpu": "2", "mem": "1073741824"});
        assert_eq!(
            (ended.slot("cpu"), ended.slot("mem")),
            (Some(2.0), Some(1_073_741_824.0))
        );
    }

    #[test]
    fn the_first_job_waiting_for_resources_has_them_the_others_priority() {
        let rec = |id: u32, t: i64, reason: &str| JobRecord {
            job_id: id,
            submit_time: t,
            partition: "p".into(),
            state: JobState::Pending,
            reason: reason.into(),
            ..Default::default()
        };
        let mut recs = vec![
            rec(3, 30, "Resources"),
            rec(1, 10, "BeginTime"),
            rec(2, 20, "Resources"),
        ];
        rank_waiting(&mut recs);
        let reasons: Vec<&str> = recs.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(reasons, ["Priority", "BeginTime", "Resources"]);
    }

    #[test]
    fn a_session_left_running_after_its_batch_task_ended_is_an_ended_job() {
        // Backend.AI 23.09: the task ended before the session was marked RUNNING, so its
        // destroy was refused; the result is set, terminated_at is not.
        let mut stuck = item("RUNNING", "", "SUCCESS");
        stuck.terminated_at = None;
        assert!(stuck.batch_ended() && stuck.job_ended() && !stuck.is_finished());
        assert!(!item("RUNNING", "", "UNDEFINED").batch_ended());
        assert_eq!(state_of(&stuck, None).0, JobState::Completed);
        let r = LaunchResult {
            kind: ResultKind::Exited,
            exit: ExitStatus::code(3),
            end: Some(1_796_047_205),
        };
        let rec = job_record(&stuck, None, Some(&r), "c", |_| "u".into());
        assert_eq!(
            (rec.state, rec.exit_code, rec.end_time),
            (JobState::Failed, ExitStatus::code(3), Some(1_796_047_205))
        );
        // Without the launcher's end time: its start.
        let rec = job_record(&stuck, None, None, "c", |_| "u".into());
        assert_eq!(
            (rec.state, rec.end_time),
            (JobState::Completed, Some(1_796_047_203))
        );
    }

    #[test]
    fn a_deleted_pending_session_was_cancelled_by_a_person_whatever_its_last_info() {
        for info in ["user-requested", "predicate-checks-failed", ""] {
            assert!(
                cancelled_by_a_user(&item("CANCELLED", info, "UNDEFINED")),
                "{info}"
            );
        }
        assert!(!cancelled_by_a_user(&item(
            "CANCELLED",
            "failed-to-start",
            "UNDEFINED"
        )));
        assert!(cancelled_by_a_user(&item(
            "TERMINATED",
            "user-requested",
            "UNDEFINED"
        )));
        assert!(!cancelled_by_a_user(&item(
            "TERMINATED",
            "task-finished",
            "SUCCESS"
        )));
    }
}
