//! Changes to waiting jobs on Backend.AI: `sbatch -H`, `scontrol hold`, `uhold`,
//! `release` and `update`.
//!
//! A held job is a session whose `startsAt` is far away (the scheduler leaves it alone)
//! and whose tag says who holds it (`tag`: squeue shows JobHeldUser or JobHeldAdmin from
//! any login node). Backend.AI cannot change a waiting session, so a hold, a release or an
//! update ends the job's session and makes it again under the same name, from the request
//! kept in the job directory (`stash`), changed; the tag keeps the job's submission time.
//! Sessions that wait for it natively (its dependents, the later tasks of a throttle's
//! chain) named the old session's id, so they are made again too, naming the new one, as
//! far as the change reaches. The owner, or an operator acting as the owner
//! (`acting_for`), makes a job again: the request and the marks are the owner's.

use super::BackendAiCluster;
use crate::backend::Cluster;
use crate::backend::backendai::records::Session;
use crate::backend::backendai::stash::{Bodies, Stash};
use crate::backend::backendai::views::Facts;
use crate::backend::backendai::{
    depends, jobid, marks, partitions, submission, submit, tag, views,
};
use crate::backend::{BackendError, HoldKind, JobReply, SlurmErrno};
use crate::launcher::gate;
use crate::launcher::meta::{JobMeta, META_ENV, STEP_SECRET_ENV};
use crate::model::{JobSelector, JobUpdate, RequeueRequest, TaskSelector, TimeLimit};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Holds, releases, updates and requeues: the job's session is made again.
const NEEDS_JOB_DIR: &str = "holding, releasing, updating and requeueing jobs on Backend.AI needs \
     [backendai] job_dir (the job's session is made again from the request kept there)";

/// A session the scheduler has not taken yet: the only kind that can be made again.
pub(super) fn waiting(s: &Session) -> bool {
    !s.job_ended() && matches!(s.status.as_str(), "PENDING" | "DEPRIORITIZING")
}

/// What a session is made again with.
#[derive(Default)]
struct Remade<'c> {
    hold: Option<HoldKind>,
    /// Held by `requeuehold`.
    requeue_held: bool,
    /// A requeue hold stays one (a dependent made again keeps its own).
    keep_requeue_hold: bool,
    change: Option<&'c dyn Fn(&mut JobMeta)>,
    /// A requeue: the job is submitted anew.
    resubmitted: bool,
    /// A `?` dependency already satisfied: the session waits natively for nothing.
    without_dependencies: bool,
}

/// Ends sessions and makes them again from their kept requests, remembering which
/// session ids were replaced by which.
struct Remaker<'a> {
    cluster: &'a BackendAiCluster,
    stash: Stash,
    job_dir: PathBuf,
    kept: BTreeMap<u32, Bodies>,
    replaced: BTreeMap<String, String>,
    /// Sessions cancelled before they ran: their dependents stop naming them.
    removed: std::collections::BTreeSet<String>,
    /// Jobs whose kept requests changed (written by `save_kept`).
    changed: std::collections::BTreeSet<u32>,
}

impl<'a> Remaker<'a> {
    fn new(cluster: &'a BackendAiCluster, job_dir: &str, uid: u32) -> Remaker<'a> {
        Remaker {
            cluster,
            stash: Stash::new(job_dir, uid),
            job_dir: PathBuf::from(job_dir),
            kept: BTreeMap::new(),
            replaced: BTreeMap::new(),
            removed: Default::default(),
            changed: Default::default(),
        }
    }

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

    /// Makes the sessions of one job (`target` names them all) again: their new bodies
    /// first, then one cancel for all of them (read back together), then the creates in
    /// the given order, so that a chain's predecessor has its new id before its successor
    /// names it; the kept requests are written once at the end.
    fn remake_group(
        &mut self,
        target: &JobSelector,
        items: &[(&Session, &Remade<'_>)],
    ) -> Result<(), BackendError> {
        let mut bodies = Vec::with_capacity(items.len());
        for (s, how) in items {
            bodies.push(self.new_body(s, how)?);
        }
        let live: Vec<Session> = items
            .iter()
            .filter(|(s, _)| !s.job_ended())
            .map(|(s, _)| (*s).clone())
            .collect();
        if !live.is_empty() {
            self.cluster.cancel_sticking(target, live)?;
        }
        let made = items
            .iter()
            .zip(bodies)
            .try_for_each(|((s, _), body)| self.create(s, body));
        let kept = self.save_kept();
        made.and(kept)
    }

    /// The access key of session `s`'s owner when it is not the caller's: an operator's
    /// change makes the session again as its owner's.
    fn owner_key<'s>(&self, s: &'s Session) -> Option<&'s str> {
        views::other_owner(&self.cluster.client, s)
    }

    /// Whether another user's session can be made again as theirs, known before anything
    /// is ended: it needs the step secret their request keeps, and a manager that mounts
    /// the vfolders the request names as the owner's. Backend.AI 23.09 (API v7, mounts
    /// by name) resolves them among the requester's own folders (`UserScope` of the
    /// administrator in `create_from_params`): the operator's folders of those names, or
    /// none, would be mounted; 24.x and later take ids.
    fn check_made_as_owner(&self, job: u32, body: &Value) -> Result<(), BackendError> {
        if body["config"]["environ"][STEP_SECRET_ENV].is_null() {
            return Err(BackendError::Other(format!(
                "the request of job {job} was kept without its step secret (by an older \
                 bai-slurm): only its owner can hold, release, update or requeue it"
            )));
        }
        let mounts_by_name = body["config"]["mounts"]
            .as_array()
            .is_some_and(|m| !m.is_empty());
        let api_major = self
            .cluster
            .client
            .server_info()
            .map_err(super::backend_error)?
            .api_version
            .major;
        if mounts_by_name && api_major < 8 {
            return Err(BackendError::Other(format!(
                "job {job} is another user's and mounts vfolders by name: this Backend.AI \
                 (API v{api_major}) would mount an administrator's own folders of those names \
                 in a session made for its owner, so only its owner can hold, release, \
                 update or requeue it while it waits"
            )));
        }
        Ok(())
    }

    /// The body session `s` is made again with, before what it waits for is named anew.
    fn new_body(&mut self, s: &Session, how: &Remade<'_>) -> Result<Value, BackendError> {
        let hold = how.hold;
        let (job, _) = jobid::parse_session_name(&s.name)
            .ok_or(BackendError::Slurm(SlurmErrno::NotSupported))?;
        let mut body = self.kept_body(job, &s.name)?;
        if self.owner_key(s).is_some() {
            self.check_made_as_owner(job, &body)?;
        }
        if let Some(change) = how.change {
            changed_job(&mut body, change)?;
        }
        let now = tag::parse_tag(&s.tag);
        let mut facts = body["tag"]
            .as_str()
            .and_then(tag::parse_tag)
            .or(now.clone())
            .ok_or(BackendError::Slurm(SlurmErrno::NotSupported))?;
        facts.hold = hold;
        facts.requeue_held = hold.is_some()
            && (how.requeue_held
                || (how.keep_requeue_hold && now.as_ref().is_some_and(|t| t.requeue_held)));
        // A requeued job is submitted anew (slurmctld resets its submit time).
        facts.submit = match how.resubmitted {
            true => None,
            false => now.and_then(|t| t.submit).or(s.created_at),
        };
        body["tag"] = json!(tag::render(&facts));
        if how.without_dependencies {
            // A satisfied `?` awaits nothing more, an `after` job's start neither.
            facts.awaits_start = false;
            if let Some(b) = body.as_object_mut() {
                b.remove("dependencies");
            }
        }
        match submit::starts_at(hold.is_some() || facts.awaits_start, facts.begin) {
            Some(at) => body["startsAt"] = json!(at),
            None => {
                if let Some(b) = body.as_object_mut() {
                    b.remove("startsAt");
                }
            }
        }
        Ok(body)
    }

    /// Creates session `s`'s replacement, naming the new sessions of what it waits for.
    fn create(&mut self, s: &Session, mut body: Value) -> Result<(), BackendError> {
        let (job, _) = jobid::parse_session_name(&s.name)
            .ok_or(BackendError::Slurm(SlurmErrno::NotSupported))?;
        if let Some(deps) = body.get_mut("dependencies").and_then(Value::as_array_mut) {
            deps.retain(|d| d.as_str().is_none_or(|id| !self.removed.contains(id)));
            for d in deps.iter_mut() {
                if let Some(new) = d.as_str().and_then(|old| self.replaced.get(old)) {
                    *d = json!(new);
                }
            }
        }
        let ctx = self.cluster.submission_context();
        let (made, body) = submission::create_again(&ctx, &body, self.owner_key(s)).map_err(|e| {
            BackendError::Other(format!(
                "job {}: its session was ended to be made again, and making it failed ({}); its request is kept in the job directory",
                s.name.trim_start_matches('j'),
                e.reason()
            ))
        })?;
        self.replaced.insert(s.id.clone(), made);
        if let Some(bodies) = self.kept.get_mut(&job) {
            bodies.insert(s.name.clone(), body);
        }
        self.changed.insert(job);
        Ok(())
    }

    /// Writes the kept requests of the jobs whose sessions were made again.
    fn save_kept(&mut self) -> Result<(), BackendError> {
        for job in std::mem::take(&mut self.changed) {
            if let Some(bodies) = self.kept.get(&job) {
                self.stash.save(job, bodies).map_err(BackendError::Other)?;
            }
        }
        Ok(())
    }

    /// Makes job `job`'s `sessions` again as they are, each keeping its own hold (a
    /// requeue hold too), in the order they were made; `without_dependencies`: naming no
    /// session to wait for.
    fn remake_keeping_holds(
        &mut self,
        job: u32,
        mut sessions: Vec<&Session>,
        without_dependencies: bool,
        change: Option<&dyn Fn(&mut JobMeta)>,
    ) -> Result<(), BackendError> {
        sessions.sort_by_key(|s| (s.created_at, s.name.clone()));
        let hows: Vec<Remade> = sessions
            .iter()
            .map(|s| Remade {
                hold: tag::parse_tag(&s.tag).and_then(|t| t.hold),
                keep_requeue_hold: true,
                without_dependencies,
                change,
                ..Remade::default()
            })
            .collect();
        let items: Vec<(&Session, &Remade)> = sessions.into_iter().zip(hows.iter()).collect();
        self.remake_group(&JobSelector::whole(job), &items)
    }

    /// Makes again the owner's waiting sessions that name a replaced session natively,
    /// until none does (a dependent made again has dependents of its own). One query of
    /// the owner's live sessions; kept requests over an hour old of jobs that ended are let go.
    fn repoint_dependents(&mut self, uid: u32) -> Result<(), BackendError> {
        let live = views::sessions_paged(
            &self.cluster.client,
            Some(&views::alive()),
            self.cluster.page_size(),
        )
        .map_err(super::backend_error)?;
        let owned: Vec<&Session> = live
            .iter()
            .filter(|s| tag::parse_tag(&s.tag).is_some_and(|t| t.uid == uid))
            .filter(|s| !s.job_ended())
            .collect();
        // A running job's request stays: it may be requeued.
        let alive_jobs: std::collections::BTreeSet<u32> = owned
            .iter()
            .filter_map(|s| jobid::parse_session_name(&s.name).map(|(j, _)| j))
            .collect();
        self.stash.prune(|id| alive_jobs.contains(&id));
        marks::prune(&self.job_dir, uid, marks::KEEP_ENDED, |id| {
            alive_jobs.contains(&id)
        });
        let mine: Vec<&Session> = owned.into_iter().filter(|s| waiting(s)).collect();
        // Each round makes again, job by job (one cancel each), the sessions that name a
        // session replaced so far.
        loop {
            let mut next: BTreeMap<u32, Vec<&Session>> = BTreeMap::new();
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
                        .any(|d| self.replaced.contains_key(d) || self.removed.contains(d))
                });
                if names_replaced {
                    next.entry(job).or_default().push(s);
                }
            }
            if next.is_empty() {
                return Ok(());
            }
            for (job, sessions) in next {
                self.remake_keeping_holds(job, sessions, false, None)?;
            }
        }
    }
}

impl BackendAiCluster {
    /// `?` on a site with a job directory: the caller's waiting sessions whose gate
    /// already holds on one item (the results of all its jobs are in and satisfy it,
    /// [`gate::an_alternative_holds`]) are made again without native dependencies, so they
    /// start now, as slurmctld starts a job at the first satisfied alternative, instead of
    /// once every job named has ended. Run by the views (squeue, sacct, scontrol), as
    /// nothing on the login side acts between commands: a delete and a create per such
    /// session, once (its kept request then names no dependency). Gates are read from the
    /// metadata this login node keeps of the jobs it submitted. Best effort.
    pub(super) fn start_satisfied_alternatives(&self, sessions: &[Session], facts: &[Facts]) {
        let Ok(Some(job_dir)) = submission::job_dir(&self.config) else {
            return;
        };
        let uid = nix::unistd::getuid().as_raw();
        let own = &self.client.settings().access_key;
        let mut by_job: BTreeMap<u32, Vec<&Session>> = BTreeMap::new();
        for (s, f) in sessions.iter().zip(facts) {
            if &s.access_key != own
                || !waiting(s)
                || tag::parse_tag(&s.tag).is_none_or(|t| t.uid != uid)
            {
                continue;
            }
            let Some(gate) = f.meta.as_ref().and_then(|m| m.gate.as_ref()) else {
                continue;
            };
            if !gate::an_alternative_holds(gate, Path::new(job_dir), uid) {
                continue;
            }
            if let Some((job, _)) = jobid::parse_session_name(&s.name) {
                by_job.entry(job).or_default().push(s);
            }
        }
        if by_job.is_empty() {
            return;
        }
        let mut remaker = Remaker::new(self, job_dir, uid);
        for (job, mut sessions) in by_job {
            // Only those whose kept request still waits natively (once made again, never).
            sessions.retain(|s| {
                remaker
                    .kept_body(job, &s.name)
                    .is_ok_and(|b| b["dependencies"].as_array().is_some_and(|d| !d.is_empty()))
            });
            if !sessions.is_empty() {
                let _ = remaker.remake_keeping_holds(job, sessions, true, None);
            }
        }
        // Their own dependents name the new sessions.
        if !remaker.replaced.is_empty() {
            let _ = remaker.repoint_dependents(uid);
        }
    }

    /// `after` of jobs still waiting at submission, on a site with a job directory: the
    /// caller's sessions that await a start (their tag's `:w`, a far `startsAt`) are made
    /// again once every job their `after` items name has started or ended (under `?`, one
    /// of them), as slurmctld finds the items fulfilled: the items marked so, the rest of
    /// their `+minutes` delays a deferred start, a satisfied `?` waiting for nothing more.
    /// Run by the views, as [`Self::start_satisfied_alternatives`]: what a job awaits is
    /// read from its kept request (so any login node of the owner's acts); one query for
    /// the named jobs that are not among the view's sessions, only while such a session
    /// waits; a delete and a create per job, once. Best effort.
    pub(super) fn start_after_the_starts(&self, sessions: &[Session]) {
        use crate::model::DepKind;
        let Ok(Some(job_dir)) = submission::job_dir(&self.config) else {
            return;
        };
        let uid = nix::unistd::getuid().as_raw();
        let own = &self.client.settings().access_key;
        let awaiting: Vec<&Session> = sessions
            .iter()
            .filter(|s| &s.access_key == own && waiting(s))
            .filter(|s| tag::parse_tag(&s.tag).is_some_and(|t| t.uid == uid && t.awaits_start))
            .collect();
        if awaiting.is_empty() {
            return;
        }
        let mut remaker = Remaker::new(self, job_dir, uid);
        let mut plans: Vec<(u32, &Session, crate::model::Dependency)> = Vec::new();
        for s in awaiting {
            let Some((job, _)) = jobid::parse_session_name(&s.name) else {
                continue;
            };
            let dep = remaker
                .kept_body(job, &s.name)
                .and_then(|b| meta_of(&b))
                .ok()
                .and_then(|m| m.spec.dependency);
            if let Some(dep) = dep {
                plans.push((job, s, dep));
            }
        }
        let named = plans
            .iter()
            .flat_map(|(_, _, d)| d.items.iter().filter(|i| i.kind == DepKind::After))
            .filter_map(|i| i.target.map(|t| t.job_id()));
        // Not knowing them is not finding them ended: nothing is released then.
        let Ok(elsewhere) = self.sessions_of_jobs_beyond(sessions, named) else {
            return;
        };
        let known: Vec<&Session> = sessions.iter().chain(&elsewhere).collect();
        let now = crate::sys::now();
        let mut ready: BTreeMap<u32, (Vec<&Session>, depends::StartsSeen)> = BTreeMap::new();
        for (job, s, dep) in plans {
            let seen = depends::starts_seen(&dep, &known, now);
            if seen.ready() {
                ready
                    .entry(job)
                    .or_insert_with(|| (Vec::new(), seen))
                    .0
                    .push(s);
            }
        }
        for (job, (sessions, seen)) in ready {
            let change = |m: &mut JobMeta| seen.apply(m);
            let _ = remaker.remake_keeping_holds(job, sessions, seen.any, Some(&change));
        }
        if !remaker.replaced.is_empty() {
            let _ = remaker.repoint_dependents(uid);
        }
    }

    /// After a cancel: the user's waiting sessions that name a session cancelled before
    /// it ran would wait for it for ever (Backend.AI never sees it succeed); they are made
    /// again without it, and their launchers judge the dependency (a job that left no
    /// result ended without success: `afterany`/`afternotok` run, `afterok` never does).
    /// Only with a job directory, and only for the owner's jobs (the requester's, or any
    /// user's for an operator, as the owner: [`Self::acting_for`]).
    pub(super) fn release_dependents_of(
        &self,
        cancelled: &[Session],
        requester: u32,
    ) -> Result<(), BackendError> {
        let Ok(Some(job_dir)) = submission::job_dir(&self.config) else {
            return Ok(());
        };
        if cancelled.is_empty() {
            return Ok(());
        }
        let Ok(owner) = self.acting_for(cancelled, requester) else {
            return Ok(());
        };
        let mut remaker = Remaker::new(self, job_dir, owner);
        remaker
            .removed
            .extend(cancelled.iter().map(|s| s.id.clone()));
        remaker.repoint_dependents(owner)
    }

    /// Whose job the sessions of one job are, when `requester` may change it: their
    /// owner (the uid in their tags), the requester or, for an operator, any user. An
    /// operator changes another user's job as its owner would: with the owner's kept
    /// request and marks (read and written as the owner, `ActingAs`), its session made
    /// again as the owner's (`Remaker::owner_key`). `Err`: another user's job and no
    /// operator, or sessions bai-slurm did not make.
    fn acting_for(&self, sessions: &[Session], requester: u32) -> Result<u32, ()> {
        let mut owners = sessions
            .iter()
            .map(|s| tag::parse_tag(&s.tag).map(|t| t.uid));
        let first = owners.next().flatten().ok_or(())?;
        if owners.any(|o| o != Some(first)) {
            return Err(());
        }
        match first == requester || self.is_operator(requester) {
            true => Ok(first),
            false => Err(()),
        }
    }

    fn job_dir_for_changes(&self) -> Result<&str, BackendError> {
        submission::job_dir(&self.config)
            .map_err(BackendError::Other)?
            .ok_or_else(|| BackendError::Other(NEEDS_JOB_DIR.into()))
    }

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
        // slurmctld: ESLURM_USER_ID_MISSING for another user's job, unless an operator's.
        let owner = self
            .acting_for(&sessions, requester)
            .map_err(|()| BackendError::Slurm(SlurmErrno::UserIdMissing))?;
        if sessions.iter().all(Session::job_ended) {
            return Err(BackendError::Slurm(SlurmErrno::JobFinished));
        }
        let job_dir = self.job_dir_for_changes()?;
        let live: Vec<&Session> = sessions.iter().filter(|s| !s.job_ended()).collect();
        // slurmctld holds a running job too: priority 0 while it runs on. A running
        // session cannot change: its hold is a mark beside its kept request.
        let marks = marks::read(Path::new(job_dir), owner).held;
        let mut changes: Vec<(&Session, Option<HoldKind>)> = Vec::new();
        let mut marked: Vec<(&Session, Option<HoldKind>)> = Vec::new();
        for s in live {
            let (held, to) = match waiting(s) {
                true => (tag::parse_tag(&s.tag).and_then(|t| t.hold), &mut changes),
                false => (mark_of(&marks, s), &mut marked),
            };
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
                        to.push((s, Some(k)));
                    }
                }
                None if held.is_none() => {}
                // A user may not release an administrator's hold.
                None if held == Some(HoldKind::Admin) && !operator => {
                    return Err(BackendError::Slurm(SlurmErrno::AccessDenied));
                }
                None => to.push((s, None)),
            }
        }
        for (s, hold) in marked {
            let name = mark_name(s)?;
            marks::mark_held(Path::new(job_dir), owner, &name, hold)
                .map_err(BackendError::Other)?;
        }
        if changes.is_empty() {
            return Ok(());
        }
        // A throttle's chain names earlier tasks: those are made again first.
        changes.sort_by_key(|(s, _)| (s.created_at, s.name.clone()));
        let hows: Vec<Remade> = changes
            .iter()
            .map(|(_, hold)| Remade {
                hold: *hold,
                ..Remade::default()
            })
            .collect();
        let items: Vec<(&Session, &Remade)> =
            changes.iter().map(|(s, _)| *s).zip(hows.iter()).collect();
        let mut remaker = Remaker::new(self, job_dir, owner);
        remaker.remake_group(target, &items)?;
        remaker.repoint_dependents(owner)
    }
}

/// Applies `change` to the job a kept body describes: its metadata (what the launcher
/// and the views read), its tag (name, time limit, deferred start) and the backstop
/// `batchTimeout`.
fn changed_job(body: &mut Value, change: &dyn Fn(&mut JobMeta)) -> Result<(), BackendError> {
    let mut meta = meta_of(body)?;
    change(&mut meta);
    body["config"]["environ"][META_ENV] = json!(meta.encode());
    let mut facts = body["tag"]
        .as_str()
        .and_then(tag::parse_tag)
        .ok_or_else(no_meta)?;
    facts.name = meta.spec.name.clone();
    facts.time_limit = meta.spec.time_limit.unwrap_or(TimeLimit::Infinite);
    facts.begin = meta.spec.begin;
    facts.awaits_start = depends::awaits_a_start(&meta.spec);
    body["tag"] = json!(tag::render(&facts));
    if let Some(b) = body.as_object_mut()
        && b.contains_key("batchTimeout")
    {
        match facts.time_limit.seconds() {
            Some(limit) => {
                b.insert(
                    "batchTimeout".into(),
                    json!(limit + i64::from(meta.kill_wait) + 60),
                );
            }
            None => {
                b.remove("batchTimeout");
            }
        }
    }
    Ok(())
}

fn no_meta() -> BackendError {
    BackendError::Other("a kept request without its job's metadata".into())
}

fn meta_of(body: &Value) -> Result<JobMeta, BackendError> {
    body["config"]["environ"][META_ENV]
        .as_str()
        .and_then(JobMeta::decode)
        .ok_or_else(no_meta)
}

/// Whether `c` asks only for what a session made again can change: the time limit,
/// name, comment, nice, deferred start, and priority 0 (a hold) or INFINITE (a release).
fn changeable(c: &JobUpdate) -> bool {
    let JobUpdate {
        array_throttle,
        partition,
        account,
        qos,
        comment: _,
        min_cpus,
        max_cpus,
        pn_min_cpus,
        min_nodes,
        max_nodes,
        num_tasks,
        time_limit: _,
        requeue: _,
        priority,
        nice: _,
        memory,
        name: _,
        work_dir,
        std_out,
        std_err,
        std_in,
        dependency,
        begin_time: _,
        unmodelled,
    } = c;
    array_throttle.is_none()
        && partition.is_none()
        && account.is_none()
        && qos.is_none()
        && min_cpus.is_none()
        && max_cpus.is_none()
        && pn_min_cpus.is_none()
        && min_nodes.is_none()
        && max_nodes.is_none()
        && num_tasks.is_none()
        && priority.is_none_or(|p| p == 0 || p == u32::MAX)
        && memory.is_none()
        && work_dir.is_none()
        && std_out.is_none()
        && std_err.is_none()
        && std_in.is_none()
        && dependency.is_none()
        && unmodelled.is_empty()
}

/// A running session's name in the marks (`marks::name_of`); a session bai-slurm did not
/// name has none, and cannot be changed.
fn mark_name(s: &Session) -> Result<String, BackendError> {
    marks::name_of(&s.name).ok_or(BackendError::Slurm(SlurmErrno::NotSupported))
}

/// A running session's mark among one kind of an owner's marks (`held`, `requeue`, ...).
fn mark_of<T: Copy>(kind: &BTreeMap<String, T>, s: &Session) -> Option<T> {
    marks::name_of(&s.name).and_then(|n| kind.get(&n).copied())
}

/// Takes back a session's hold mark (its session is made again, held in its tag).
fn release_mark(job_dir: &str, uid: u32, s: &Session) -> Result<(), BackendError> {
    marks::mark_held(Path::new(job_dir), uid, &mark_name(s)?, None).map_err(BackendError::Other)
}

/// `TimeLimit=` of running sessions, as slurmctld's `_update_job` takes it: a user may
/// only lower it, an operator raise it too, here no further than the limit the session
/// was made with (its backstop `batchTimeout` cannot move). The new limit is a mark the
/// job's launcher polls (`marks`) and the views show.
fn limit_running(
    running: &[&Session],
    want: TimeLimit,
    operator: bool,
    job_dir: &str,
    uid: u32,
) -> Result<Result<(), SlurmErrno>, BackendError> {
    let dir = Path::new(job_dir);
    let marked = marks::read(dir, uid).limits;
    let mut names = Vec::with_capacity(running.len());
    for s in running {
        let name = mark_name(s)?;
        let made_with = tag::parse_tag(&s.tag).map_or(TimeLimit::Infinite, |t| t.time_limit);
        let have = minutes(marked.get(&name).copied().unwrap_or(made_with));
        let w = minutes(want);
        if w == have {
            continue;
        }
        if w > have && !operator {
            return Ok(Err(SlurmErrno::AccessDenied));
        }
        if w > minutes(made_with) {
            return Ok(Err(SlurmErrno::NotSupported));
        }
        names.push(name);
    }
    // Written even when back at the session's own limit: the launcher keeps the last
    // limit it read.
    for name in names {
        marks::mark_limit(dir, uid, &name, Some(want)).map_err(BackendError::Other)?;
    }
    Ok(Ok(()))
}

/// `JobName=`, `Comment=`, `Nice=` and `Requeue=` of running sessions: marks the views
/// show (and `scontrol requeue` reads).
fn mark_running(
    running: &[&Session],
    c: &JobUpdate,
    job_dir: &str,
    uid: u32,
) -> Result<(), BackendError> {
    let dir = Path::new(job_dir);
    for s in running {
        let name = mark_name(s)?;
        let done = [
            c.name
                .as_ref()
                .map(|text| marks::mark_job_name(dir, uid, &name, text)),
            c.comment
                .as_ref()
                .map(|text| marks::mark_comment(dir, uid, &name, text)),
            c.nice.map(|n| marks::mark_nice(dir, uid, &name, n)),
            c.requeue.map(|r| marks::mark_requeue(dir, uid, &name, r)),
        ];
        for r in done.into_iter().flatten() {
            r.map_err(BackendError::Other)?;
        }
    }
    Ok(())
}

/// A time limit in minutes, INFINITE as u32::MAX (slurmctld's comparison).
fn minutes(t: TimeLimit) -> u32 {
    match t {
        TimeLimit::Minutes(m) => m,
        TimeLimit::Infinite => u32::MAX,
    }
}

impl BackendAiCluster {
    /// The update without the fields set to what every session of the job already has:
    /// slurmctld takes those as no change (22.05: a running job's `NumNodes=1`, its own
    /// `Partition=`), where a change of them is refused here.
    fn without_unchanged(&self, c: &JobUpdate, sessions: &[Session]) -> JobUpdate {
        let mut c = c.clone();
        let nodes = |n: u32| sessions.iter().all(|s| s.cluster_size.max(1) == n);
        if c.min_nodes.is_some_and(nodes) && c.max_nodes.is_none_or(nodes) {
            (c.min_nodes, c.max_nodes) = (None, None);
        }
        let own = |p: &String| {
            sessions
                .iter()
                .all(|s| partitions::name_of(&self.config, &s.scaling_group) == *p)
        };
        if c.partition.as_ref().is_some_and(own) {
            c.partition = None;
        }
        c
    }

    /// `scontrol update JobId=...` of waiting jobs: what the job's sessions can be made
    /// again with, under slurmctld's rules for what a user may change (`_update_job`).
    pub(super) fn update_waiting(
        &self,
        target: &JobSelector,
        c: &JobUpdate,
        requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.reply_for_selected(target, |sessions| {
            self.update_sessions(target, sessions, c, requester)
        })
    }

    /// `scontrol requeue`/`requeuehold` (`_job_requeue_op`): a running or finished batch
    /// job's session is ended (a running one cancelled by its launcher, as slurmctld
    /// stops it) and made again from its kept request: submitted anew, eligible after
    /// slurmctld's 121 s (held for requeuehold), Restarts counted up.
    pub(super) fn requeue_ended(
        &self,
        target: &JobSelector,
        how: RequeueRequest,
        requester: u32,
    ) -> Result<JobReply, BackendError> {
        self.reply_for_selected(target, |sessions| {
            self.requeue_sessions(target, sessions, how, requester)
        })
    }

    /// The controller's reply for what `act` did to the sessions `target` names (an id
    /// naming none: `Invalid job id specified`).
    fn reply_for_selected(
        &self,
        target: &JobSelector,
        act: impl FnOnce(&[Session]) -> Result<Result<(), SlurmErrno>, BackendError>,
    ) -> Result<JobReply, BackendError> {
        let sessions = self.select(target)?;
        let outcome = match sessions.is_empty() {
            true => Err(SlurmErrno::InvalidJobId),
            false => act(&sessions)?,
        };
        Ok(reply(target, &sessions, outcome))
    }

    fn requeue_sessions(
        &self,
        target: &JobSelector,
        sessions: &[Session],
        how: RequeueRequest,
        requester: u32,
    ) -> Result<Result<(), SlurmErrno>, BackendError> {
        use SlurmErrno::*;
        let Ok(owner) = self.acting_for(sessions, requester) else {
            return Ok(Err(AccessDenied));
        };
        if how.special_exit {
            return Ok(Err(NotSupported));
        }
        let running = |s: &Session| !s.job_ended() && !waiting(s);
        if how.incomplete && !sessions.iter().any(running) {
            return Ok(Ok(()));
        }
        let job_dir = self.job_dir_for_changes()?;
        let mut remaker = Remaker::new(self, job_dir, owner);
        let first = &sessions[0];
        let (job, _) =
            jobid::parse_session_name(&first.name).ok_or(BackendError::Slurm(NotSupported))?;
        let spec = meta_of(&remaker.kept_body(job, &first.name)?)?.spec;
        // `Requeue=` given while it ran is a mark; else the request's own.
        let marked = marks::read(Path::new(job_dir), owner).requeue;
        if mark_of(&marked, first).or(spec.requeue) == Some(false) {
            return Ok(Err(Disabled));
        }
        if spec.interactive {
            return Ok(Err(BatchOnly));
        }
        if sessions.iter().any(|s| !s.job_ended() && waiting(s)) {
            return Ok(Err(JobPending));
        }
        let chosen: Vec<&Session> = sessions
            .iter()
            .filter(|s| !how.incomplete || running(s))
            .collect();
        // Running jobs are stopped first, as a cancel stops them (their launchers: the
        // CANCELLED line, SIGTERM, KillWait), and waited for.
        if chosen.iter().any(|s| running(s)) {
            match self.signal(target, &crate::backend::SignalRequest::cancel(requester)) {
                Ok(()) | Err(BackendError::Slurm(AlreadyDone)) => {}
                Err(e) => return Err(e),
            }
            self.wait_ended(target)?;
        }
        let now = crate::sys::now();
        let change = |m: &mut JobMeta| {
            m.restarts += 1;
            // slurmctld submits a requeued job anew (its next run's record is a new one).
            m.submit_time = now;
            if m.spec.begin.is_none_or(|b| b <= now) {
                m.spec.begin = Some(now + REQUEUE_DELAY);
            }
        };
        let mut order = chosen;
        order.sort_by_key(|s| (s.created_at, s.name.clone()));
        // A job held while it ran keeps its priority 0: it comes back held.
        let marks = marks::read(Path::new(job_dir), owner).held;
        let hows: Vec<Remade> = order
            .iter()
            .map(|s| Remade {
                hold: match how.hold {
                    true => Some(HoldKind::User),
                    false => mark_of(&marks, s),
                },
                requeue_held: how.hold,
                change: Some(&change),
                resubmitted: true,
                ..Remade::default()
            })
            .collect();
        let items: Vec<(&Session, &Remade)> = order.iter().copied().zip(hows.iter()).collect();
        remaker.remake_group(target, &items)?;
        // Only the sessions that had one: the others have no mark to take back.
        for s in order.iter().filter(|s| mark_of(&marks, s).is_some()) {
            release_mark(job_dir, owner, s)?;
        }
        remaker.repoint_dependents(owner)?;
        Ok(Ok(()))
    }

    /// Waits until the sessions `target` names have ended (a cancelled job's launcher
    /// takes up to KillWait).
    fn wait_ended(&self, target: &JobSelector) -> Result<(), BackendError> {
        let deadline = std::time::Instant::now() + REQUEUE_PATIENCE;
        loop {
            let sessions = self.select(target)?;
            if sessions.iter().all(Session::job_ended) {
                return Ok(());
            }
            if std::time::Instant::now() >= deadline {
                return Err(BackendError::Other(format!(
                    "job {} has not ended yet to be requeued; run scontrol requeue again shortly",
                    target.job_id
                )));
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
}

/// slurmctld's delay before a requeued job may start again (`BeginTime`).
const REQUEUE_DELAY: i64 = 121;
/// How long a requeue waits for a running job to end.
const REQUEUE_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// The answer for `target`: `outcome` for each of its sessions' tasks, or for the job.
fn reply(target: &JobSelector, sessions: &[Session], outcome: Result<(), SlurmErrno>) -> JobReply {
    let TaskSelector::Tasks(tasks) = &target.tasks else {
        return JobReply::Job(outcome);
    };
    let found: Vec<u32> = sessions
        .iter()
        .filter_map(|s| jobid::parse_session_name(&s.name).and_then(|(_, t)| t))
        .collect();
    JobReply::Tasks(
        tasks
            .iter()
            .map(|t| match found.contains(t) {
                true => (*t, outcome),
                false => (*t, Err(SlurmErrno::InvalidJobId)),
            })
            .collect(),
    )
}

impl BackendAiCluster {
    fn update_sessions(
        &self,
        target: &JobSelector,
        sessions: &[Session],
        c: &JobUpdate,
        requester: u32,
    ) -> Result<Result<(), SlurmErrno>, BackendError> {
        use SlurmErrno::*;
        if sessions.iter().all(Session::job_ended) {
            return Ok(Err(JobFinished));
        }
        let operator = self.is_operator(requester);
        let Ok(owner) = self.acting_for(sessions, requester) else {
            return Ok(Err(UserIdMissing));
        };
        let (pending, running): (Vec<&Session>, Vec<&Session>) = sessions
            .iter()
            .filter(|s| !s.job_ended())
            .partition(|s| waiting(s));
        let c = &self.without_unchanged(c, sessions);
        if *c == JobUpdate::default() {
            return Ok(Ok(()));
        }
        if c.begin_time.is_some() && !running.is_empty() {
            return Ok(Err(JobNotPending));
        }
        if !changeable(c) {
            return Ok(Err(NotSupported));
        }
        if c.nice.is_some_and(|n| n < 0) && !operator {
            return Ok(Err(AccessDenied));
        }
        let job_dir = self.job_dir_for_changes()?;
        if !running.is_empty() {
            // Priority=0 holds a running job as `scontrol hold` does, INFINITE releases it.
            let only_priority = JobUpdate {
                priority: c.priority,
                ..JobUpdate::default()
            };
            if let Some(p) = c.priority.filter(|_| *c == only_priority) {
                let kind = (p == 0).then_some(HoldKind::Admin);
                return match self.hold_jobs(target, kind, requester) {
                    Ok(()) => Ok(Ok(())),
                    Err(BackendError::Slurm(e)) => Ok(Err(e)),
                    Err(e) => Err(e),
                };
            }
            // A running session cannot change: its time limit (which its launcher polls),
            // name, comment, nice value and requeue flag can, by marks in the job directory.
            let what_runs_may_change = JobUpdate {
                time_limit: c.time_limit,
                name: c.name.clone(),
                comment: c.comment.clone(),
                nice: c.nice,
                requeue: c.requeue,
                ..JobUpdate::default()
            };
            if *c != what_runs_may_change {
                return Ok(Err(NotSupported));
            }
            if let Some(want) = c.time_limit
                && let Err(e) = limit_running(&running, want, operator, job_dir, owner)?
            {
                return Ok(Err(e));
            }
            mark_running(&running, c, job_dir, owner)?;
            if pending.is_empty() {
                return Ok(Ok(()));
            }
        }
        let mut remaker = Remaker::new(self, job_dir, owner);
        let first = pending[0];
        let (job, _) =
            jobid::parse_session_name(&first.name).ok_or(BackendError::Slurm(NotSupported))?;
        let spec = meta_of(&remaker.kept_body(job, &first.name)?)?.spec;
        if let Some(want) = c.time_limit {
            let max = partitions::for_job(&self.config, spec.partition.as_deref())
                .ok()
                .flatten()
                .map_or(TimeLimit::Infinite, |p| p.max_time);
            let have = minutes(spec.time_limit.unwrap_or(TimeLimit::Infinite));
            let want_m = minutes(want);
            if have != want_m && !(operator || have > want_m || minutes(max) >= want_m) {
                return Ok(Err(AccessDenied));
            }
        }
        let now = crate::sys::now();
        let change = |m: &mut JobMeta| {
            let spec = &mut m.spec;
            if let Some(t) = c.time_limit {
                spec.time_limit = Some(t);
            }
            if let Some(n) = &c.name {
                spec.name = n.clone();
            }
            if let Some(text) = &c.comment {
                spec.comment = Some(text.clone());
            }
            if let Some(n) = c.nice {
                spec.nice = (n != 0).then_some(n);
            }
            if let Some(r) = c.requeue {
                spec.requeue = Some(r);
            }
            if let Some(b) = c.begin_time {
                spec.begin = Some(b.max(now));
            }
        };
        let mut order = pending;
        order.sort_by_key(|s| (s.created_at, s.name.clone()));
        let mut hows = Vec::with_capacity(order.len());
        for s in &order {
            let held = tag::parse_tag(&s.tag).and_then(|t| t.hold);
            // Priority=0 holds the job as `scontrol hold` does, INFINITE releases it.
            let hold = match c.priority {
                Some(0) => held.or(Some(if operator {
                    HoldKind::Admin
                } else {
                    HoldKind::User
                })),
                Some(_) if held == Some(HoldKind::Admin) && !operator => {
                    return Ok(Err(AccessDenied));
                }
                Some(_) => None,
                None => held,
            };
            hows.push(Remade {
                hold,
                change: Some(&change),
                ..Remade::default()
            });
        }
        let items: Vec<(&Session, &Remade)> = order.into_iter().zip(hows.iter()).collect();
        remaker.remake_group(target, &items)?;
        remaker.repoint_dependents(owner)?;
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_jobs_limit_is_lowered_by_its_user_and_raised_no_further_than_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let job_dir = tmp.path().to_str().unwrap();
        let me = nix::unistd::getuid().as_raw();
        let running = Session {
            name: "j5_2".into(),
            tag: format!("slurm:{me}:10 job"),
            ..Default::default()
        };
        let limit = |want, operator| {
            limit_running(&[&running], TimeLimit::Minutes(want), operator, job_dir, me).unwrap()
        };
        let marked = || {
            marks::read(Path::new(job_dir), me)
                .limits
                .get("5_2")
                .copied()
        };
        assert_eq!(limit(10, false), Ok(()));
        assert_eq!(marked(), None);
        assert_eq!(limit(12, true), Err(SlurmErrno::NotSupported));
        assert_eq!(limit(4, false), Ok(()));
        assert_eq!(marked(), Some(TimeLimit::Minutes(4)));
        assert_eq!(limit(6, false), Err(SlurmErrno::AccessDenied));
        assert_eq!(limit(10, true), Ok(()));
        assert_eq!(marked(), Some(TimeLimit::Minutes(10)));
    }

    #[test]
    fn an_update_changes_the_jobs_description_tag_and_backstop() {
        let mut meta = JobMeta {
            uid: 1001,
            kill_wait: 30,
            ..Default::default()
        };
        meta.spec.name = "old".into();
        meta.spec.time_limit = Some(TimeLimit::Minutes(60));
        let mut body = json!({
            "tag": "slurm:1001:60:h:s1796000000 old",
            "batchTimeout": 3690,
            "config": {"environ": {META_ENV: meta.encode()}},
        });
        let change = |m: &mut JobMeta| {
            m.spec.name = "new".into();
            m.spec.time_limit = Some(TimeLimit::Minutes(5));
            m.spec.begin = Some(1_800_000_000);
        };
        changed_job(&mut body, &change).unwrap();
        // The hold and the submission time stay; the rest follows the job.
        assert_eq!(body["tag"], "slurm:1001:5:1800000000:h:s1796000000 new");
        assert_eq!(body["batchTimeout"], 5 * 60 + 30 + 60);
        let m = meta_of(&body).unwrap();
        assert_eq!(
            (m.spec.name.as_str(), m.spec.time_limit),
            ("new", Some(TimeLimit::Minutes(5)))
        );
        // No limit: no backstop.
        changed_job(&mut body, &|m: &mut JobMeta| m.spec.time_limit = None).unwrap();
        assert!(body.get("batchTimeout").is_none());
    }

    #[test]
    fn only_what_a_new_session_can_carry_is_changeable() {
        let ok = JobUpdate {
            time_limit: Some(TimeLimit::Minutes(5)),
            name: Some("x".into()),
            priority: Some(u32::MAX),
            ..Default::default()
        };
        assert!(changeable(&ok));
        for refused in [
            JobUpdate {
                partition: Some("p".into()),
                ..Default::default()
            },
            JobUpdate {
                min_cpus: Some(2),
                ..Default::default()
            },
            JobUpdate {
                priority: Some(5),
                ..Default::default()
            },
            JobUpdate {
                unmodelled: vec!["Features=x".into()],
                ..Default::default()
            },
        ] {
            assert!(!changeable(&refused), "{refused:?}");
        }
    }
}
