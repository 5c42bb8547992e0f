//! Holds on Backend.AI: `sbatch -H`, `scontrol hold`, `uhold` and `release`.
//!
//! A held job is a session whose `startsAt` is far away (the scheduler leaves it alone)
//! and whose tag says who holds it (`tag`: squeue shows JobHeldUser or JobHeldAdmin from
//! any login node). Backend.AI cannot change a waiting session, so a hold or a release
//! ends the job's session and makes it again under the same name, from the request kept
//! in the job directory (`stash`); the tag keeps the job's submission time. Sessions that
//! wait for it natively (its dependents, the later tasks of a throttle's chain) named the
//! old session's id, so they are made again too, naming the new one, as far as the change
//! reaches. Only the owner's jobs can be made again (their requests are theirs alone).

use super::BackendAiCluster;
use crate::backend::Cluster;
use crate::backend::backendai::records::Session;
use crate::backend::backendai::stash::{Bodies, Stash};
use crate::backend::backendai::{jobid, submission, submit, tag, views};
use crate::backend::{BackendError, HoldKind, SlurmErrno};
use crate::model::{JobSelector, TaskSelector};
use serde_json::{Value, json};
use std::collections::BTreeMap;

const NEEDS_JOB_DIR: &str = "holding and releasing jobs on Backend.AI needs [backendai] job_dir \
     (a held job is made again at its release from the request kept there)";

/// A session the scheduler has not taken yet: the only kind that can be made again.
fn waiting(s: &Session) -> bool {
    !s.job_ended() && matches!(s.status.as_str(), "PENDING" | "DEPRIORITIZING")
}

fn selector_of(job: u32, task: Option<u32>) -> JobSelector {
    JobSelector {
        job_id: job,
        tasks: task.map_or(TaskSelector::Whole, |t| TaskSelector::Tasks(vec![t])),
        step: None,
    }
}

/// Ends sessions and makes them again from their kept requests, remembering which
/// session ids were replaced by which.
struct Remaker<'a> {
    cluster: &'a BackendAiCluster,
    stash: Stash,
    kept: BTreeMap<u32, Bodies>,
    replaced: BTreeMap<String, String>,
}

impl Remaker<'_> {
    fn kept_body(&mut self, job: u32, name: &str) -> Result<Value, BackendError> {
        if !self.kept.contains_key(&job) {
            let bodies = self.stash.load(job).map_err(BackendError::Other)?;
            self.kept.insert(job, bodies);
        }
        self.kept[&job].get(name).cloned().ok_or_else(|| {
            BackendError::Other(format!(
                "the request of job {job} ({name}) is not kept in the job directory (submitted \
                 before [backendai] job_dir was set?): it cannot be held or released"
            ))
        })
    }

    /// Ends session `s` and makes it again, held (`hold`) or not, naming the new sessions
    /// of what it waits for.
    fn remake(&mut self, s: &Session, hold: Option<HoldKind>) -> Result<(), BackendError> {
        let (job, task) = jobid::parse_session_name(&s.name)
            .ok_or(BackendError::Slurm(SlurmErrno::NotSupported))?;
        let mut body = self.kept_body(job, &s.name)?;
        let now = tag::parse_tag(&s.tag);
        let mut facts = body["tag"]
            .as_str()
            .and_then(tag::parse_tag)
            .or(now.clone())
            .ok_or(BackendError::Slurm(SlurmErrno::NotSupported))?;
        facts.hold = hold;
        facts.submit = now.and_then(|t| t.submit).or(s.created_at);
        body["tag"] = json!(tag::render(&facts));
        match submit::starts_at(hold.is_some(), facts.begin) {
            Some(at) => body["startsAt"] = json!(at),
            None => {
                if let Some(b) = body.as_object_mut() {
                    b.remove("startsAt");
                }
            }
        }
        if let Some(deps) = body.get_mut("dependencies").and_then(Value::as_array_mut) {
            for d in deps.iter_mut() {
                if let Some(new) = d.as_str().and_then(|old| self.replaced.get(old)) {
                    *d = json!(new);
                }
            }
        }
        self.cluster
            .cancel_sticking(&selector_of(job, task), vec![s.clone()])?;
        let ctx = self.cluster.submission_context();
        let made = submission::create_again(&ctx, &body).map_err(|e| {
            BackendError::Other(format!(
                "job {}: its session was ended to be made again, and making it failed ({}); its request is kept in the job directory",
                s.name.trim_start_matches('j'),
                e.reason()
            ))
        })?;
        self.replaced.insert(s.id.clone(), made);
        if let Some(bodies) = self.kept.get_mut(&job) {
            bodies.insert(s.name.clone(), body.clone());
        }
        self.stash
            .put(job, &s.name, body)
            .map_err(BackendError::Other)
    }

    /// Makes again the owner's waiting sessions that name a replaced session natively,
    /// until none does (a dependent made again has dependents of its own). One query of
    /// the owner's live sessions; requests of jobs no longer waiting are let go.
    fn repoint_dependents(&mut self, uid: u32) -> Result<(), BackendError> {
        let live = views::sessions_paged(
            &self.cluster.client,
            Some(&views::alive()),
            self.cluster.page_size(),
        )
        .map_err(super::backend_error)?;
        let mine: Vec<&Session> = live
            .iter()
            .filter(|s| tag::parse_tag(&s.tag).is_some_and(|t| t.uid == uid))
            .filter(|s| waiting(s))
            .collect();
        let waiting_jobs: std::collections::BTreeSet<u32> = mine
            .iter()
            .filter_map(|s| jobid::parse_session_name(&s.name).map(|(j, _)| j))
            .collect();
        self.stash.prune(|id| waiting_jobs.contains(&id));
        loop {
            let mut next = None;
            for s in &mine {
                if self.replaced.contains_key(&s.id) {
                    continue;
                }
                let Some((job, _)) = jobid::parse_session_name(&s.name) else {
                    continue;
                };
                let Ok(body) = self.kept_body(job, &s.name) else {
                    continue;
                };
                let names_replaced = body["dependencies"].as_array().is_some_and(|deps| {
                    deps.iter()
                        .filter_map(Value::as_str)
                        .any(|d| self.replaced.contains_key(d))
                });
                if names_replaced {
                    next = Some(*s);
                    break;
                }
            }
            let Some(s) = next else {
                return Ok(());
            };
            let hold = tag::parse_tag(&s.tag).and_then(|t| t.hold);
            self.remake(s, hold)?;
        }
    }
}

impl BackendAiCluster {
    /// `scontrol hold/uhold` (`kind`) and `release` (None) of the sessions `target` names,
    /// as slurmctld's `_update_job` treats priority 0 and its release.
    pub(super) fn hold_jobs(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        requester: u32,
    ) -> Result<(), BackendError> {
        let sessions = self.select(target)?;
        if sessions.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        }
        let operator = self.is_operator(requester);
        let owner = |s: &Session| tag::parse_tag(&s.tag).map(|t| t.uid);
        if sessions.iter().any(|s| owner(s) != Some(requester)) {
            // slurmctld: ESLURM_USER_ID_MISSING for another user's job. An operator may,
            // but another user's request is not ours to read or to make again.
            return Err(BackendError::Slurm(if operator {
                SlurmErrno::NotSupported
            } else {
                SlurmErrno::UserIdMissing
            }));
        }
        if sessions.iter().all(Session::job_ended) {
            return Err(BackendError::Slurm(SlurmErrno::JobFinished));
        }
        let job_dir = submission::job_dir(&self.config)
            .map_err(BackendError::Other)?
            .ok_or_else(|| BackendError::Other(NEEDS_JOB_DIR.into()))?;
        let live: Vec<&Session> = sessions.iter().filter(|s| !s.job_ended()).collect();
        // slurmctld also holds a running job (priority 0 while it runs on); a running
        // session cannot change.
        if kind.is_some() && live.iter().any(|s| !waiting(s)) {
            return Err(BackendError::Slurm(SlurmErrno::JobNotPending));
        }
        let mut changes: Vec<(&Session, Option<HoldKind>)> = Vec::new();
        for s in live.into_iter().filter(|s| waiting(s)) {
            let held = tag::parse_tag(&s.tag).and_then(|t| t.hold);
            match kind {
                // Held already: only an operator may change the kind of hold.
                Some(_) if held.is_some() && !operator => {}
                Some(k) => {
                    let k = if k == HoldKind::Admin && operator {
                        HoldKind::Admin
                    } else {
                        HoldKind::User
                    };
                    if held != Some(k) {
                        changes.push((s, Some(k)));
                    }
                }
                None if held.is_none() => {}
                // A user may not release an administrator's hold.
                None if held == Some(HoldKind::Admin) && !operator => {
                    return Err(BackendError::Slurm(SlurmErrno::AccessDenied));
                }
                None => changes.push((s, None)),
            }
        }
        if changes.is_empty() {
            return Ok(());
        }
        // A throttle's chain names earlier tasks: those are made again first.
        changes.sort_by_key(|(s, _)| (s.created_at, s.name.clone()));
        let mut remaker = Remaker {
            cluster: self,
            stash: Stash::new(job_dir, requester),
            kept: BTreeMap::new(),
            replaced: BTreeMap::new(),
        };
        for (s, hold) in changes {
            remaker.remake(s, hold)?;
        }
        remaker.repoint_dependents(requester)
    }
}
