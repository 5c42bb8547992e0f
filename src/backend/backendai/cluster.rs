//! The Backend.AI backend as the commands see it: a [`Cluster`] whose jobs are batch
//! sessions. Views make one paged query per command; sbatch one create per job; scancel
//! one query, then one delete per job it names.

mod kept;
mod remake;
mod script;

use super::cache::Cache;
use super::client::{Client, ClientError, Method, Options};
use super::jobid;
use super::marks;
use super::partitions;
use super::records::{self, Session};
use super::settings;
use super::submission;
use super::tag;
use super::views;
use crate::backend::{
    AccountingQuery, BackendError, Cluster, HoldKind, SignalRequest, SlurmErrno, SubmitError,
    Translation,
};
use crate::config::{Config, Loaded};
use crate::model::{
    ArrayPart, JobRecord, JobSelector, JobSpec, JobState, NodeRecord, PartitionRecord, TaskSelector,
};
use crate::sys::UserInfo;
use std::collections::BTreeMap;
use std::path::Path;

/// Seconds a finished job stays in squeue (Slurm's MinJobAge).
pub const MIN_JOB_AGE: i64 = 300;

/// 23.09's 403s to a DELETE that are not the user's lack of permission: a session being
/// started (`Cannot destroy sessions in scheduled/preparing/... status`, `... kernels in
/// pulling status`; the next round deletes it again) and one that ended since it was read
/// (`Cannot destroy sessions that has already been already cancelled`).
fn not_a_permission_refusal(message: &str) -> bool {
    message.contains("Cannot destroy sessions in")
        || message.contains("Cannot destroy kernels in")
        || message.contains("has already been already")
}

/// Sessions deleted at once by scancel.
const DELETE_CONCURRENCY: usize = 4;
/// How long after deleting a pending session scancel reads it back a last time (the
/// manager's scheduler may still start it: see `cancel_sticking`).
const PENDING_CANCEL_RACE: std::time::Duration = std::time::Duration::from_secs(3);
/// Seconds a session must have been RUNNING before scancel asks its launcher to cancel the
/// job (before that it is deleted).
const LAUNCHER_SETTLED: i64 = 5;
/// How long scancel keeps ending a session the manager is still starting.
const CANCEL_PATIENCE: std::time::Duration = std::time::Duration::from_secs(90);
/// Beyond its launcher's poll and KillWait, how long an operator's cancel by mark waits
/// for another user's session to end before it deletes the session.
const MARK_MARGIN_SECS: u64 = 15;

/// A session a cancel has not reached yet: its job has not ended and it is not on its way
/// out.
fn still_alive(s: &Session) -> bool {
    !s.job_ended() && s.status != "TERMINATING"
}

/// Whether a cancel goes to the session's launcher: RUNNING for [`LAUNCHER_SETTLED`]
/// seconds. One only just marked RUNNING may not serve its port or handle its script yet
/// (on 23.09 such a cancel let the script run to its end, twice): it is deleted instead.
fn launcher_settled(s: &Session, now: i64) -> bool {
    s.status == "RUNNING"
        && s.entered("RUNNING")
            .is_some_and(|t| now - t >= LAUNCHER_SETTLED)
}

/// Environment variable naming a file that gets one line per HTTP request (for tests that
/// count requests per command).
pub const REQUEST_LOG_ENV: &str = crate::envvars::BAI_SLURM_REQUEST_LOG;

pub struct BackendAiCluster {
    client: Client,
    cache: Cache,
    config: Config,
    cluster_name: String,
    /// Resource groups and agents, asked once per command (sinfo wants both views).
    inventory: std::sync::Mutex<Option<(Vec<String>, Vec<partitions::Agent>)>>,
    /// What submissions changed to make requests fit ([`Cluster::notes`]).
    notes: std::sync::Mutex<Vec<String>>,
    /// What went wrong without stopping a command ([`Cluster::warnings`]).
    warnings: std::sync::Mutex<Vec<String>>,
    /// The local ends of the tunnels to allocations this command holds (salloc, srun).
    tunnels: super::allocation::Tunnels,
}

/// A client error as the commands report it: an unreachable manager in Slurm's words.
pub fn backend_error(e: ClientError) -> BackendError {
    match e {
        ClientError::Unreachable { .. } => BackendError::Unreachable(e.to_string()),
        other => BackendError::Other(other.to_string()),
    }
}

/// How long a session may stay RUNNING after its launcher left its job's result before it
/// counts as left behind (a normal teardown takes seconds).
const LEFT_RUNNING_AFTER: i64 = 60;

/// The owner's uid of a RUNNING session without a batch result whose job's launcher left
/// its result in the job directory more than [`LEFT_RUNNING_AFTER`] ago, during this
/// session (a requeued job's earlier result is older than its new session).
fn left_running_after_its_result(s: &Session, job_dir: &Path, now: i64) -> Option<u32> {
    if s.status != "RUNNING" || matches!(s.result.as_str(), "SUCCESS" | "FAILURE") {
        return None;
    }
    let (job, task) = jobid::parse_session_name(&s.name)?;
    let uid = tag::parse_tag(&s.tag)?.uid;
    let result = crate::launcher::gate::read_result(
        job_dir,
        uid,
        &crate::launcher::gate::result_name(job, task),
    )?;
    let end = result.end?;
    (end >= s.created_at? && now - end > LEFT_RUNNING_AFTER).then_some(uid)
}

impl BackendAiCluster {
    pub fn open(
        loaded: &Loaded,
        env: &BTreeMap<String, String>,
    ) -> Result<BackendAiCluster, BackendError> {
        let settings =
            settings::resolve(loaded, env).map_err(|e| BackendError::Other(e.to_string()))?;
        let options = Options {
            request_log: env
                .get(REQUEST_LOG_ENV)
                .filter(|p| !p.is_empty())
                .map(Into::into),
            ..Options::default()
        };
        // The login node's memory of this endpoint lives where the local backend keeps
        // its state, under the same rule: ours alone, or not used at all.
        let state_dir = crate::config::local_state_dir(&loaded.config, env)
            .map_err(|e| e.to_string())
            .and_then(|d| {
                crate::backend::trusted_dir::ensure(&d, nix::unistd::getuid().as_raw())
                    .map(|()| d)
                    .map_err(|e| format!("state directory: {e}"))
            });
        let cache = Cache::new(
            state_dir.as_deref().map_err(Clone::clone),
            &settings.endpoint,
            &settings.access_key,
        );
        let client = Client::with_options(settings, options).map_err(backend_error)?;
        if let Some(info) = cache.server(crate::sys::now()) {
            client.set_server_info(info);
        }
        Ok(BackendAiCluster {
            client,
            cache,
            config: loaded.config.clone(),
            cluster_name: loaded.cluster_name(),
            inventory: std::sync::Mutex::new(None),
            notes: std::sync::Mutex::new(Vec::new()),
            warnings: std::sync::Mutex::new(Vec::new()),
            tunnels: Default::default(),
        })
    }

    /// The partitions the user sees and the agents serving them.
    fn inventory(
        &self,
    ) -> Result<(Vec<partitions::Partition>, Vec<partitions::Agent>), BackendError> {
        let mut known = self.inventory.lock().unwrap_or_else(|e| e.into_inner());
        if known.is_none() {
            let groups = views::resource_groups(&self.client).map_err(backend_error)?;
            let agents = views::agents(&self.client).map_err(backend_error)?;
            self.remember_server();
            *known = Some((groups, agents));
        }
        let (groups, agents) = known.clone().unwrap_or_default();
        Ok((partitions::visible(&self.config, &groups), agents))
    }

    /// The controller's jobs (live, or ended less than MinJobAge ago) among the sessions
    /// `names` selects (all when None).
    fn queue_where(&self, names: Option<String>) -> Result<Vec<JobRecord>, BackendError> {
        let since = crate::sys::now() - MIN_JOB_AGE;
        let filter = views::and(names, Some(views::alive_or_ended_since(since)));
        let sessions = views::sessions_paged(&self.client, filter.as_deref(), self.page_size())
            .map_err(backend_error)?;
        self.remember_server();
        // A session that never leaves TERMINATING (Session::cancelled_before_start) passes
        // the filter for good: its job leaves the queue MinJobAge after it ended.
        let mut recs = self.records(&sessions, false);
        recs.retain(|r| !(r.state.is_finished() && r.end_time.is_some_and(|e| e < since)));
        Ok(recs)
    }

    fn page_size(&self) -> u64 {
        self.config.backendai.page_size.unwrap_or(views::PAGE)
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The Unix name of a session's owner: the configured mapping of its Backend.AI user,
    /// else the part of the e-mail before `@`.
    fn user_of(&self, s: &Session) -> String {
        if let Some(name) = self.config.backendai.users.get(&s.user_email) {
            return name.clone();
        }
        s.user_email
            .split('@')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(&s.access_key)
            .to_string()
    }

    /// Caches the records of each of `ids` whose sessions have all ended with their
    /// results read (from their logs, or known to have none): nothing about them changes
    /// any more. A session bai-slurm did not make is never cached.
    fn remember_finished(&self, ids: &[u32], sessions: &[Session], recs: &[JobRecord]) {
        for &id in ids {
            let mut of_job = sessions
                .iter()
                .filter(|s| jobid::parse_session_name(&s.name).is_some_and(|(j, _)| j == id))
                .peekable();
            if of_job.peek().is_none()
                || !of_job.all(|s| {
                    s.is_finished() && (!s.has_log() || self.cache.result(&s.id).is_some())
                })
            {
                continue;
            }
            let mine: Vec<JobRecord> = recs.iter().filter(|r| r.named_by(&[id])).cloned().collect();
            if !mine.is_empty() && mine.iter().all(|r| r.state.is_finished()) {
                self.cache.store_finished_job(id, &mine);
            }
        }
    }

    /// The records of requeued jobs' earlier runs (sessions of theirs that ended before
    /// the job's session was made again): as slurmdbd keeps a run the requeue ended,
    /// REQUEUED, with its steps; a run the requeue stopped has exit code 0:0 and its batch
    /// step CANCELLED by the requeue's SIGTERM. Their logs are read once (then cached).
    fn earlier_run_records(&self, runs: &[Session]) -> Vec<JobRecord> {
        let facts = views::facts(&self.client, &self.cache, runs, false);
        runs.iter()
            .zip(&facts)
            .map(|(s, f)| {
                let mut rec = self.record_of(s, f);
                records::as_earlier_run(&mut rec);
                rec
            })
            .collect()
    }

    /// A session's job record, with the steps its launcher logged.
    fn record_of(&self, s: &Session, f: &views::Facts) -> JobRecord {
        let mut rec = records::job_record(
            s,
            f.meta.as_ref(),
            f.result.as_ref(),
            &self.cluster_name,
            |s| self.user_of(s),
        );
        // Jobs name their partition; sessions made elsewhere have a resource group.
        if f.meta
            .as_ref()
            .and_then(|m| m.spec.partition.as_ref())
            .is_none()
        {
            rec.partition = partitions::name_of(&self.config, &s.scaling_group);
        }
        records::add_logged_steps(&mut rec, &f.steps);
        rec
    }

    /// The sessions' job records; `live_steps`: with the steps running jobs have logged so
    /// far (one log read each).
    fn records(&self, sessions: &[Session], live_steps: bool) -> Vec<JobRecord> {
        let mut facts = views::facts(&self.client, &self.cache, sessions, live_steps);
        self.metas_from_kept_requests(sessions, &mut facts);
        self.end_stuck_sessions(sessions);
        self.start_satisfied_alternatives(sessions, &facts);
        self.start_after_the_starts(sessions);
        let sessions = &self.with_prerequisites(sessions, &facts);
        let mut marks = RunningMarks::default();
        let mut recs: Vec<JobRecord> = sessions
            .iter()
            .zip(&facts)
            .map(|(s, f)| {
                let mut rec = self.record_of(s, f);
                if let Some(m) = f.meta.as_ref().filter(|_| !remake::waiting(s)) {
                    marks.apply(m, s, &mut rec);
                }
                rec
            })
            .collect();
        records::rank_waiting(&mut recs);
        merge_pending_tasks(&mut recs);
        recs
    }

    /// The sessions, each pending dependent job with the sessions it waits for (their states
    /// give `Dependency` or `DependencyNeverSatisfied`): found among `sessions`, else read
    /// in ONE more query for all of them (jobs that ended before this view's window; only
    /// when such a job is waited for). Its metadata names what a job waits for, so a job
    /// submitted on another login node and still pending has none here.
    fn with_prerequisites(&self, sessions: &[Session], facts: &[views::Facts]) -> Vec<Session> {
        use crate::model::{DepKind, DepTarget};
        let targets = |s: &Session, f: &views::Facts| -> Vec<DepTarget> {
            if !matches!(s.status.as_str(), "PENDING" | "DEPRIORITIZING") {
                return Vec::new();
            }
            f.meta
                .as_ref()
                .and_then(|m| m.spec.dependency.as_ref())
                .map(|d| {
                    d.items
                        .iter()
                        // Every type but singleton names its targets (only afterok
                        // without a job directory); `after` waits for a start, which
                        // a target's failure fulfils (its tag says it waits).
                        .filter(|i| !matches!(i.kind, DepKind::Singleton | DepKind::After))
                        .filter_map(|i| i.target)
                        .collect()
                })
                .unwrap_or_default()
        };
        let waits: Vec<Vec<DepTarget>> = sessions
            .iter()
            .zip(facts)
            .map(|(s, f)| targets(s, f))
            .collect();
        if waits.iter().all(Vec::is_empty) {
            return sessions.to_vec();
        }
        let job_of = |s: &Session| jobid::parse_session_name(&s.name);
        let earlier = self
            .sessions_of_jobs_beyond(sessions, waits.iter().flatten().map(|t| t.job_id()))
            .unwrap_or_default();
        let matches = |t: DepTarget, s: &Session| {
            job_of(s).is_some_and(|(id, task)| jobid::names_target(id, task, t))
        };
        sessions
            .iter()
            .zip(&waits)
            .map(|(s, wait)| {
                let mut s = s.clone();
                s.dependencies = sessions
                    .iter()
                    .chain(&earlier)
                    .filter(|d| wait.iter().any(|t| matches(*t, d)))
                    .map(records::Prerequisite::of)
                    .collect();
                s
            })
            .collect()
    }

    /// The sessions of the jobs `ids` that are not among `sessions` (read before this view's
    /// window, or outside its filter): one paged query, none when all are there.
    pub(super) fn sessions_of_jobs_beyond(
        &self,
        sessions: &[Session],
        ids: impl Iterator<Item = u32>,
    ) -> Result<Vec<Session>, ClientError> {
        let among = |id: u32| {
            sessions
                .iter()
                .any(|s| jobid::parse_session_name(&s.name).is_some_and(|(j, _)| j == id))
        };
        let mut missing: Vec<u32> = ids.filter(|id| !among(*id)).collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(Vec::new());
        }
        views::sessions_paged(
            &self.client,
            views::names_of_jobs(&missing).as_deref(),
            self.page_size(),
        )
    }

    /// Ends this keypair's sessions that Backend.AI left RUNNING after their job ended: one
    /// DELETE each, so they free their resources. Best effort: a failure is tried again by
    /// the next command. Two kinds: those whose batch task has a result
    /// ([`Session::batch_ended`]), and, with a job directory, those whose launcher left its
    /// job's result there a while ago while the manager never heard of the end (a loaded
    /// 23.09 manager that marks a session RUNNING only after its script has ended keeps it
    /// RUNNING for good, seen in CI: [`left_running_after_its_result`]). The native
    /// dependents of the latter would wait for ever for a session Backend.AI now counts as
    /// cancelled: they are made again, their gates judging the result the job left.
    fn end_stuck_sessions(&self, sessions: &[Session]) {
        let own = &self.client.settings().access_key;
        let job_dir = submission::job_dir(&self.config).ok().flatten();
        let now = crate::sys::now();
        let mut ended_silently: BTreeMap<u32, Vec<Session>> = BTreeMap::new();
        for s in sessions.iter().filter(|s| &s.access_key == own) {
            let silent = job_dir.and_then(|d| left_running_after_its_result(s, Path::new(d), now));
            if !s.batch_ended() && silent.is_none() {
                continue;
            }
            let path = views::session_path(&self.client, s, "");
            if self.client.request(Method::Delete, &path, None).is_ok()
                && let Some(uid) = silent
            {
                ended_silently.entry(uid).or_default().push(s.clone());
            }
        }
        for (uid, ended) in ended_silently {
            let _ = self.release_dependents_of(&ended, uid);
        }
    }

    fn remember_server(&self) {
        if let Some(info) = self.client.known_server_info() {
            let now = crate::sys::now();
            if self.cache.server(now).is_none() {
                self.cache.store_server(&info, now);
            }
        }
    }

    /// The sessions a selector names (one query by name; ids of sessions made elsewhere
    /// are derived from their UUIDs, so those are looked up among all live sessions).
    fn submission_context(&self) -> submission::Context<'_> {
        submission::Context {
            client: &self.client,
            cache: &self.cache,
            config: &self.config,
            cluster_name: &self.cluster_name,
            now: crate::sys::now(),
            notes: &self.notes,
            warnings: &self.warnings,
            made: Default::default(),
        }
    }

    /// Deletes the sessions (one DELETE each, a few at a time; Backend.AI has no bulk
    /// cancel) and makes the cancel stick. The manager refuses to destroy a session it is
    /// starting (403 `Cannot destroy sessions in ... status`), and a pending session it was
    /// scheduling as the DELETE came can start all the same: so the sessions are read back
    /// and those still alive are deleted again, until none is or [`CANCEL_PATIENCE`] has
    /// passed.
    fn cancel_sticking(
        &self,
        target: &JobSelector,
        mut live: Vec<Session>,
    ) -> Result<(), BackendError> {
        use std::time::{Duration, Instant};
        let deadline = Instant::now() + CANCEL_PATIENCE;
        let ids: Vec<String> = live.iter().map(|s| s.id.clone()).collect();
        let mut pause = Duration::from_millis(500);
        // A pending session the scheduler had picked as its DELETE came can be made
        // SCHEDULED after it was marked CANCELLED (seen on 23.09, 0.4 s later): such
        // sessions are read back once more when that race is over.
        let mut look_again_at: Option<Instant> = None;
        let mut round = 0;
        loop {
            if live.iter().any(|s| s.status == "PENDING") {
                look_again_at = Some(Instant::now() + PENDING_CANCEL_RACE);
            }
            // A session the manager has let run a while since the first round (it refused
            // the DELETE while starting it, and a loaded 23.09 agent can run the
            // container's script meanwhile: seen 15 s) is cancelled by its launcher, as a
            // settled one is; those it cannot reach are deleted again. One only just
            // RUNNING is deleted: its launcher may not answer yet (CI: a tunnel to one
            // marked RUNNING 0.7 s before hung 20 s while the script ran to its end).
            let now = crate::sys::now();
            let (running, mut rest): (Vec<Session>, Vec<Session>) = live
                .into_iter()
                .partition(|s| round > 0 && launcher_settled(s, now));
            let cancel = crate::launcher::step_proto::JobSignal {
                signal: None,
                batch_only: false,
                full: false,
            };
            rest.extend(
                self.ask_launchers(running, cancel)
                    .into_iter()
                    .map(|(s, _)| s),
            );
            round += 1;
            // 26.9 keeps a session deleted while DEPRIORITIZING in TERMINATING for good,
            // its name never free again (a hold's new session could not be made): it is
            // deleted once the scheduler has put it back to PENDING, a moment later.
            rest.retain(|s| s.status != "DEPRIORITIZING");
            self.delete_each(&rest)?;
            std::thread::sleep(pause);
            let read_back = |this: &Self| -> Result<Vec<Session>, BackendError> {
                Ok(this
                    .select(target)?
                    .into_iter()
                    .filter(|s| ids.contains(&s.id) && still_alive(s))
                    .collect())
            };
            live = read_back(self)?;
            if live.is_empty()
                && let Some(at) = look_again_at.take()
            {
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                live = read_back(self)?;
            }
            if live.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(BackendError::Other(format!(
                    "Backend.AI is still starting job {} and refuses to end it yet; run scancel again shortly",
                    target.job_id
                )));
            }
            pause = (pause * 2).min(Duration::from_secs(4));
        }
    }

    /// Refuses to cancel a task of a throttled array that has not started while a later
    /// task that has not started either stays: the throttle's chains (`submission`) would
    /// keep that one waiting for ever, where slurmctld just lets the others go on.
    fn check_chains_kept(
        &self,
        target: &JobSelector,
        starting: &[Session],
    ) -> Result<(), BackendError> {
        let TaskSelector::Tasks(chosen) = &target.tasks else {
            return Ok(());
        };
        let task_of = |s: &Session| jobid::parse_session_name(&s.name).and_then(|(_, t)| t);
        let chained =
            |s: &Session| super::tag::parse_tag(&s.tag).is_some_and(|t| t.throttle.is_some());
        let Some(first) = starting
            .iter()
            .filter(|s| chained(s))
            .filter_map(task_of)
            .min()
        else {
            return Ok(());
        };
        let whole = self.select(&JobSelector::whole(target.job_id))?;
        let stranded = whole.iter().any(|s| {
            !s.job_ended()
                && s.status != "RUNNING"
                && task_of(s).is_some_and(|t| t > first && !chosen.contains(&t))
        });
        if stranded {
            return Err(BackendError::Other(format!(
                "task {first} of throttled array {} has not started, and the tasks after it \
                 wait for it on Backend.AI: cancel it together with the later pending tasks \
                 (or the whole array), or once it runs",
                target.job_id
            )));
        }
        Ok(())
    }

    /// Asks each running session's launcher (node 0, through the tunnel) to carry out
    /// `req`, a few at a time; returns the sessions whose launcher could not be asked
    /// (made before launchers listened for it, or not answering), with why.
    fn ask_launchers(
        &self,
        sessions: Vec<Session>,
        req: crate::launcher::step_proto::JobSignal,
    ) -> Vec<(Session, String)> {
        let queue = std::sync::Mutex::new(sessions.into_iter());
        let unreached = std::sync::Mutex::new(Vec::new());
        let key = &self.client.settings().secret_key;
        std::thread::scope(|scope| {
            for _ in 0..DELETE_CONCURRENCY {
                scope.spawn(|| {
                    loop {
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some(s) = next else { break };
                        let asked = jobid::parse_session_name(&s.name)
                            .ok_or_else(|| "not a bai-slurm session".to_string())
                            .and_then(|(job, task)| {
                                let secret = super::allocation::session_secret(key, job, task);
                                super::allocation::signal(&self.client, &s.name, &secret, req)
                            });
                        if let Err(why) = asked {
                            unreached
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push((s, why));
                        }
                    }
                });
            }
        });
        unreached.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Who cancels other users' jobs (an operator), for sacct's `CANCELLED by`: a mark
    /// in the owner's place (the owner's own cancels need none). Best effort: without a
    /// job directory sacct names the owner.
    fn mark_cancelled_by(&self, live: &[Session], requester: u32) {
        let Ok(Some(dir)) = submission::job_dir(&self.config) else {
            return;
        };
        for s in live {
            if let (Some(t), Some(name)) = (tag::parse_tag(&s.tag), marks::name_of(&s.name))
                && t.uid != requester
            {
                let _ = marks::mark_cancelled_by(Path::new(dir), t.uid, &name, requester);
            }
        }
    }

    /// An operator's request to other users' running sessions, whose launchers the
    /// manager's tunnel does not reach for us: a mark each in the owner's place in the job
    /// directory (written as the owner), which the launcher polls (`signal_mark`). Returns
    /// the sessions marked and those that could not be (no job directory, no tag, a mark
    /// that could not be written), with why.
    fn mark_signals(
        &self,
        sessions: Vec<Session>,
        request: crate::launcher::step_proto::JobSignal,
    ) -> (Vec<Session>, Vec<(Session, String)>) {
        let job_dir = submission::job_dir(&self.config).ok().flatten();
        let mut marked = Vec::new();
        let mut failed = Vec::new();
        for s in sessions {
            let done = match (job_dir, tag::parse_tag(&s.tag), marks::name_of(&s.name)) {
                (Some(dir), Some(t), Some(name)) => {
                    marks::mark_signal(Path::new(dir), t.uid, &name, request)
                }
                (None, ..) => Err(
                    "another user's job is reached through the job directory ([backendai] job_dir), which is not set"
                        .to_string(),
                ),
                _ => Err("not a bai-slurm session".to_string()),
            };
            match done {
                Ok(()) => marked.push(s),
                Err(why) => failed.push((s, why)),
            }
        }
        (marked, failed)
    }

    /// Waits for the sessions a cancel mark went to to end (their launchers' poll, then
    /// KillWait); returns those still alive after that.
    fn wait_marked_ended(
        &self,
        target: &JobSelector,
        marked: Vec<Session>,
    ) -> Result<Vec<Session>, BackendError> {
        if marked.is_empty() {
            return Ok(marked);
        }
        let kill_wait = u64::from(self.config.backendai.kill_wait.unwrap_or(30));
        let patience = crate::launcher::signal_mark::POLL
            + std::time::Duration::from_secs(kill_wait + MARK_MARGIN_SECS);
        let deadline = std::time::Instant::now() + patience;
        loop {
            let now = self.select(target)?;
            let alive: Vec<Session> = marked
                .iter()
                .filter(|m| now.iter().any(|s| s.id == m.id && !s.job_ended()))
                .cloned()
                .collect();
            if alive.is_empty() || std::time::Instant::now() >= deadline {
                return Ok(alive);
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }

    /// One DELETE per session; a refusal because the session is being started is left to
    /// the caller's next round.
    fn delete_each(&self, sessions: &[Session]) -> Result<(), BackendError> {
        let queue = std::sync::Mutex::new(sessions.iter());
        let first_error: std::sync::Mutex<Option<BackendError>> = std::sync::Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..DELETE_CONCURRENCY {
                scope.spawn(|| {
                    loop {
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some(s) = next else { break };
                        let path = views::session_path(&self.client, s, "");
                        let failed = match self.client.request(Method::Delete, &path, None) {
                            Ok(_) => None,
                            Err(e) if e.is_not_found() => None,
                            Err(ClientError::AuthRejected { message, .. })
                                if not_a_permission_refusal(&message) =>
                            {
                                None
                            }
                            Err(ClientError::AuthRejected { .. }) => {
                                Some(BackendError::Slurm(SlurmErrno::AccessDenied))
                            }
                            Err(e) => Some(backend_error(e)),
                        };
                        if let Some(e) = failed {
                            first_error
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .get_or_insert(e);
                        }
                    }
                });
            }
        });
        match first_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn select(&self, target: &JobSelector) -> Result<Vec<Session>, BackendError> {
        let filter = if target.job_id >= jobid::FOREIGN_BASE {
            Some(views::alive_or_ended_since(crate::sys::now() - MIN_JOB_AGE))
        } else {
            views::names_of_jobs(&[target.job_id])
        };
        let found = views::sessions_paged(&self.client, filter.as_deref(), self.page_size())
            .map_err(backend_error)?;
        Ok(found
            .into_iter()
            .filter(|s| {
                let (id, task) = jobid::parse_session_name(&s.name)
                    .unwrap_or_else(|| (jobid::foreign_id(&s.id), None));
                id == target.job_id
                    && match (&target.tasks, task) {
                        (TaskSelector::Whole, _) => true,
                        (TaskSelector::AllTasks, t) => t.is_some(),
                        (TaskSelector::Tasks(ids), Some(t)) => ids.contains(&t),
                        (TaskSelector::Tasks(_), None) => false,
                    }
            })
            .collect())
    }
}

/// Pending tasks of one array show as one record, as slurmctld keeps them until they start.
fn merge_pending_tasks(recs: &mut Vec<JobRecord>) {
    let mut merged: Vec<JobRecord> = Vec::with_capacity(recs.len());
    let mut index: BTreeMap<u32, usize> = BTreeMap::new();
    for rec in recs.drain(..) {
        let pending_task = match (&rec.array, rec.state) {
            (
                Some(ArrayPart::Task {
                    array_job_id,
                    task_id,
                }),
                JobState::Pending,
            ) => Some((*array_job_id, *task_id)),
            _ => None,
        };
        let Some((array_id, task)) = pending_task else {
            merged.push(rec);
            continue;
        };
        match index.get(&array_id) {
            Some(&i) => {
                if let Some(ArrayPart::Pending { tasks, .. }) = &mut merged[i].array {
                    tasks.push(task);
                }
            }
            None => {
                let mut rec = rec;
                rec.job_id = array_id;
                rec.array = Some(ArrayPart::Pending {
                    array_job_id: array_id,
                    tasks: vec![task],
                    throttle: rec.array_throttle.take(),
                });
                index.insert(array_id, merged.len());
                merged.push(rec);
            }
        }
    }
    for &i in index.values() {
        if let Some(ArrayPart::Pending { tasks, .. }) = &mut merged[i].array {
            tasks.sort_unstable();
        }
    }
    throttle_reasons(&mut merged);
    *recs = merged;
}

/// The reason slurmctld gives an array's pending tasks while as many of its tasks run as
/// its throttle allows: `JobArrayTaskLimit`. The throttle's chains (see `submission`)
/// otherwise show as a dependency the user did not ask for: the task it waits for waits
/// itself for resources.
fn throttle_reasons(recs: &mut [JobRecord]) {
    let mut running: BTreeMap<u32, u32> = BTreeMap::new();
    for r in recs.iter() {
        if let (Some(ArrayPart::Task { array_job_id, .. }), JobState::Running) = (&r.array, r.state)
        {
            *running.entry(*array_job_id).or_default() += 1;
        }
    }
    for r in recs.iter_mut() {
        let Some(ArrayPart::Pending {
            array_job_id,
            throttle: Some(limit),
            ..
        }) = &r.array
        else {
            continue;
        };
        if running.get(array_job_id).copied().unwrap_or(0) >= *limit {
            r.reason = "JobArrayTaskLimit".into();
        } else if r.reason == "Dependency" && r.dependency.is_none() {
            r.reason = "Resources".into();
        }
    }
}

impl Cluster for BackendAiCluster {
    fn handling(&self, field: crate::model::jobspec::Field) -> crate::backend::support::Handling {
        super::handling::handling(field)
    }

    fn accepts(&self, spec: &JobSpec) -> Result<Vec<String>, SubmitError> {
        crate::backend::support::check(spec, |f| self.handling(f))
    }

    fn cluster_name(&self) -> String {
        self.cluster_name.clone()
    }

    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError> {
        self.queue_where(None)
    }

    /// By session name: one query for the named jobs, whatever else is queued. Sessions
    /// bai-slurm did not make have no such name; for their ids every job is read.
    fn jobs_with_ids(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        let by_name = !ids.is_empty() && ids.iter().all(|&id| id < jobid::FOREIGN_BASE);
        let mut jobs = self.queue_where(if by_name {
            views::names_of_jobs(ids)
        } else {
            None
        })?;
        jobs.retain(|j| j.named_by(ids));
        Ok(jobs)
    }

    fn accounting(&self, query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError> {
        // Old jobs named by id: from the cache, without a request, when all of them are
        // there (finished jobs never change), within the window as the manager would.
        if !query.job_ids.is_empty() {
            let cached: Option<Vec<Vec<JobRecord>>> = query
                .job_ids
                .iter()
                .map(|&id| self.cache.finished_job(id))
                .collect();
            if let Some(cached) = cached {
                let (start, end) = (query.start.unwrap_or(0), query.end.unwrap_or(i64::MAX));
                let mut recs: Vec<JobRecord> = cached.into_iter().flatten().collect();
                recs.retain(|r| r.submit_time < end && r.end_time.is_none_or(|e| e >= start));
                return Ok(recs);
            }
        }
        // Only a query of the whole history sees every session of the jobs it names.
        let whole_history = !query.job_ids.is_empty()
            && query.start.is_none_or(|s| s <= 0)
            && query.end.is_none_or(|e| e >= crate::sys::now());
        let filter = views::and(
            views::names_of_jobs(&query.job_ids),
            views::window(query.start, query.end),
        );
        let (sessions, runs) =
            views::sessions_and_earlier_runs(&self.client, filter.as_deref(), self.page_size())
                .map_err(backend_error)?;
        self.remember_server();
        // The steps of running jobs cost a log read each: sacct shows them for the jobs
        // it names (-j), as slurmdbd has them, and a whole history's sacct only those of
        // ended jobs.
        let mut recs = self.records(&sessions, !query.job_ids.is_empty());
        recs.extend(self.earlier_run_records(&runs));
        for r in &mut recs {
            records::as_accounted(r);
        }
        if whole_history {
            self.remember_finished(&query.job_ids, &sessions, &recs);
        }
        Ok(recs)
    }

    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        let (parts, agents) = self.inventory()?;
        Ok(partitions::partition_records(&parts, &agents))
    }

    /// squeue needs partitions only to sort by priority tier, which Backend.AI's resource
    /// groups do not have: the configured partitions, without a request.
    fn queue_partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        let parts = partitions::configured(&self.config);
        Ok(partitions::partition_records(&parts, &[]))
    }

    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError> {
        let (parts, agents) = self.inventory()?;
        let mut nodes = partitions::node_records(&parts, &agents);
        // An agent that reports no version shows the Slurm release the site presents.
        let default = crate::model::release::SLURM_RELEASE.text();
        for n in nodes.iter_mut().filter(|n| n.version == default) {
            n.version = self.config.profile().release.text();
        }
        Ok(nodes)
    }

    fn submit(&self, spec: &JobSpec, user: &UserInfo) -> Result<u32, SubmitError> {
        crate::backend::check_script_size(spec, self.config.max_script_size())?;
        self.accepts(spec)?;
        let spec = &crate::backend::accounts::charged(&self.config.accounts, spec, &user.name)?;
        let ctx = self.submission_context();
        let id = submission::submit(&ctx, spec, user);
        self.remember_server();
        id
    }

    fn translate(&self, spec: &JobSpec, user: &UserInfo) -> Result<Translation, SubmitError> {
        crate::backend::check_script_size(spec, self.config.max_script_size())?;
        self.accepts(spec)?;
        let spec = &crate::backend::accounts::charged(&self.config.accounts, spec, &user.name)?;
        let ctx = self.submission_context();
        let (job_id, bodies) = submission::preview(&ctx, spec, user)?;
        self.remember_server();
        Ok(Translation {
            backend: "backendai",
            job_id: Some(job_id),
            requests: bodies
                .into_iter()
                .map(|body| serde_json::json!({"method": "POST", "path": "/session", "body": body}))
                .collect(),
        })
    }

    /// Backend.AI can end a session, not signal it: a running job's launcher, reached
    /// through the manager's tunnel, does what slurmstepd does (the CANCELLED line,
    /// SIGTERM then SIGKILL after KillWait; signals to the batch shell, its group or the
    /// steps). Sessions not running yet, or whose launcher cannot be reached, are deleted
    /// when cancelled; other signals to them are refused as slurmctld refuses them.
    fn signal(&self, target: &JobSelector, req: &SignalRequest) -> Result<(), BackendError> {
        let sessions = self.select(target)?;
        if sessions.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        }
        let live: Vec<Session> = sessions.into_iter().filter(|s| !s.is_finished()).collect();
        if live.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::AlreadyDone));
        }
        // scancel's rule: SIGKILL without -b/-f cancels the job.
        let cancel = match req.signal {
            None => true,
            Some(sig) => sig == libc::SIGKILL && !req.batch_only && !req.full,
        };
        if cancel {
            self.mark_cancelled_by(&live, req.requester);
        }
        let ask = crate::launcher::step_proto::JobSignal {
            signal: if cancel { None } else { req.signal },
            batch_only: req.batch_only,
            full: req.full,
        };
        // A cancel goes to launchers that have run a while; one whose session has only
        // just been marked RUNNING may not have started its script's handling yet (on 23.09
        // such a cancel once let the script run to its end), and is deleted instead.
        let now = crate::sys::now();
        let (running, starting): (Vec<Session>, Vec<Session>) = live.into_iter().partition(|s| {
            !s.job_ended()
                && (if cancel {
                    launcher_settled(s, now)
                } else {
                    s.status == "RUNNING"
                })
        });
        if cancel {
            self.check_chains_kept(target, &starting)?;
        }
        if !cancel && running.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::JobPending));
        }
        let (running, theirs): (Vec<Session>, Vec<Session>) = running
            .into_iter()
            .partition(|s| views::other_owner(&self.client, s).is_none());
        let mut unreached = self.ask_launchers(running, ask);
        let (marked, not_marked) = self.mark_signals(theirs, ask);
        unreached.extend(not_marked);
        if cancel {
            // Launchers that took a cancel by mark end their jobs within KillWait; a
            // session still alive then is deleted, so that the cancel sticks.
            let left = self.wait_marked_ended(target, marked)?;
            let rest: Vec<Session> = starting
                .into_iter()
                .chain(unreached.into_iter().map(|(s, _)| s))
                .chain(left)
                .collect();
            if rest.is_empty() {
                return Ok(());
            }
            let never_ran: Vec<Session> = rest
                .iter()
                .filter(|s| matches!(s.status.as_str(), "PENDING" | "DEPRIORITIZING"))
                .cloned()
                .collect();
            self.cancel_sticking(target, rest)?;
            return self
                .release_dependents_of(&never_ran, req.requester)
                .map_err(|e| {
                    BackendError::Other(format!(
                        "job {} was cancelled, but the jobs waiting for it could not be made again: {}",
                        target.job_id,
                        e
                    ))
                });
        }
        match unreached.first() {
            None => Ok(()),
            Some((s, why)) => Err(BackendError::Other(format!(
                "cannot reach the launcher of job {} (session {}) to signal it: {why}",
                target.job_id, s.name
            ))),
        }
    }

    /// The message goes to the job's launcher through the tunnel, which writes it into
    /// the job's error stream as slurmstepd does.
    fn batch_script(&self, job_id: u32, requester: u32) -> Result<Vec<u8>, BackendError> {
        self.batch_script_of(job_id, requester)
    }

    fn notify(&self, job_id: u32, message: &str, _requester: u32) -> Result<(), BackendError> {
        let sessions = self.select(&JobSelector::whole(job_id))?;
        if sessions.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        }
        let live: Vec<&Session> = sessions.iter().filter(|s| !s.job_ended()).collect();
        if live.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::AlreadyDone));
        }
        let running: Vec<&&Session> = live.iter().filter(|s| s.status == "RUNNING").collect();
        if running.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::Disabled));
        }
        let key = &self.client.settings().secret_key;
        for s in running {
            let (job, task) = jobid::parse_session_name(&s.name)
                .ok_or(BackendError::Slurm(SlurmErrno::InvalidJobId))?;
            let secret = super::allocation::session_secret(key, job, task);
            match super::allocation::notify(&self.client, &s.name, &secret, message) {
                Ok(()) => {}
                Err(why) if why == crate::launcher::stepd::NO_MESSAGE_CHANNEL => {
                    return Err(BackendError::Slurm(SlurmErrno::NotSupported));
                }
                Err(why) => {
                    return Err(BackendError::Other(format!(
                        "cannot reach the launcher of job {job_id} (session {}): {why}",
                        s.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// A hold or a release makes the job's waiting session again (`remake`).
    fn hold(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        requester: u32,
    ) -> Result<(), BackendError> {
        self.hold_jobs(target, kind, requester)
    }

    /// An update of a waiting job makes its session again (`remake`).
    fn update(
        &self,
        target: &JobSelector,
        change: &crate::model::JobUpdate,
        requester: u32,
    ) -> Result<crate::backend::JobReply, BackendError> {
        self.update_waiting(target, change, requester)
    }

    /// A requeue ends the job's session and makes it again (`remake`).
    fn requeue(
        &self,
        target: &JobSelector,
        how: crate::model::RequeueRequest,
        requester: u32,
    ) -> Result<crate::backend::JobReply, BackendError> {
        self.requeue_ended(target, how, requester)
    }

    /// The allocation once its session runs and its launcher answers through the tunnel:
    /// the nodes' addresses are this process's local ends of the tunnels.
    fn allocation(
        &self,
        job_id: u32,
    ) -> Result<Option<crate::backend::AllocationDetails>, BackendError> {
        let record = self
            .jobs_with_ids(&[job_id])?
            .into_iter()
            .find(|r| r.job_id == job_id && r.array.is_none())
            .ok_or(BackendError::Slurm(SlurmErrno::InvalidJobId))?;
        if record.state.is_finished() {
            return Err(BackendError::Slurm(SlurmErrno::AlreadyDone));
        }
        if record.state != JobState::Running {
            return Ok(None);
        }
        let nnodes = record.num_nodes.max(1);
        let session = jobid::session_name(job_id, None);
        let nodes = self
            .tunnels
            .nodes(&self.client, &session, job_id, nnodes)
            .map_err(BackendError::Other)?;
        let secret = super::allocation::secret(&self.client.settings().secret_key, job_id);
        if !super::allocation::ready(&nodes, &secret) {
            return Ok(None);
        }
        Ok(Some(crate::backend::AllocationDetails {
            cpus_per_node: record.num_cpus / nnodes,
            nodes,
            secret,
            gpus: Vec::new(),
            record,
            remote: true,
        }))
    }

    /// The manager places a session in its next scheduling round (a few seconds, more when
    /// it is busy); a session still PENDING after this did not find room.
    fn immediate_patience(&self) -> Option<std::time::Duration> {
        Some(std::time::Duration::from_secs(10))
    }

    /// Gives the allocation back to its launcher, which ends the job with `exit`; a
    /// launcher that cannot be reached has its session ended instead (nothing is left
    /// running).
    fn release(&self, job_id: u32, exit: crate::model::ExitStatus) -> Result<(), BackendError> {
        let session = jobid::session_name(job_id, None);
        let secret = super::allocation::secret(&self.client.settings().secret_key, job_id);
        let released = self
            .tunnels
            .nodes(&self.client, &session, job_id, 1)
            .map_err(BackendError::Other)
            .and_then(|nodes| {
                super::allocation::release(&nodes[0].1, &secret, exit).map_err(BackendError::Other)
            });
        match released {
            Ok(()) => Ok(()),
            Err(e) => {
                let cancel = SignalRequest::cancel(nix::unistd::getuid().as_raw());
                match self.signal(&JobSelector::whole(job_id), &cancel) {
                    Ok(()) | Err(BackendError::Slurm(SlurmErrno::AlreadyDone)) => Ok(()),
                    Err(_) => Err(e),
                }
            }
        }
    }

    fn config(&self) -> Vec<(String, String)> {
        vec![("MinJobAge".into(), format!("{MIN_JOB_AGE} sec"))]
    }

    fn notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The marks of running jobs (`marks`: holds, changed limits, names, comments, nice
/// values, requeue flags), read once per owner
/// and job directory in a view.
#[derive(Default)]
struct RunningMarks {
    read: BTreeMap<(String, u32), marks::Marks>,
}

impl RunningMarks {
    /// Applies session `s`'s marks to its job's record.
    fn apply(&mut self, meta: &crate::launcher::meta::JobMeta, s: &Session, rec: &mut JobRecord) {
        let (Some(dir), Some(name)) = (meta.job_dir.as_ref(), marks::name_of(&s.name)) else {
            return;
        };
        let m = self
            .read
            .entry((dir.clone(), meta.uid))
            .or_insert_with(|| marks::read(std::path::Path::new(dir), meta.uid));
        if let Some(limit) = m.limits.get(&name) {
            rec.time_limit = *limit;
        }
        if let Some(job_name) = m.names.get(&name) {
            rec.name = job_name.clone();
        }
        if let Some(comment) = m.comments.get(&name) {
            rec.comment = Some(comment.clone());
        }
        if let Some(nice) = m.nice.get(&name) {
            rec.nice = *nice;
        }
        if let Some(requeue) = m.requeue.get(&name) {
            rec.requeue = *requeue;
        }
        if let Some(by) = m
            .cancelled_by
            .get(&name)
            .filter(|_| rec.cancelled_by.is_some())
        {
            rec.cancelled_by = Some(*by);
        }
        records::held_while_running(rec, m.held.get(&name).copied());
    }
}

#[cfg(test)]
mod tests {
    use super::{
        LAUNCHER_SETTLED, LEFT_RUNNING_AFTER, Session, launcher_settled,
        left_running_after_its_result, not_a_permission_refusal,
    };
    use crate::launcher::gate;
    use crate::launcher::meta::{LaunchResult, ResultKind};

    #[test]
    fn a_cancel_goes_to_the_launcher_only_of_a_session_running_a_while() {
        let at = |status: &str, running_since: Option<i64>| Session {
            status: status.into(),
            status_history: [("PENDING".to_string(), 900)]
                .into_iter()
                .chain(running_since.map(|t| ("RUNNING".to_string(), t)))
                .collect(),
            ..Default::default()
        };
        let now = 1_000;
        assert!(launcher_settled(
            &at("RUNNING", Some(now - LAUNCHER_SETTLED)),
            now
        ));
        // Only just marked RUNNING (CI: its tunnel hung while the script ran): deleted.
        assert!(!launcher_settled(&at("RUNNING", Some(now - 1)), now));
        assert!(!launcher_settled(&at("RUNNING", None), now));
        assert!(!launcher_settled(&at("PREPARING", None), now));
        assert!(!launcher_settled(&at("TERMINATING", Some(now - 60)), now));
    }

    #[test]
    fn a_session_is_left_running_only_when_its_own_result_is_old_enough() {
        let dir = std::env::temp_dir().join(format!("bai-left-running-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let session = Session {
            name: "j42".into(),
            tag: "slurm:1001:5 short".into(),
            status: "RUNNING".into(),
            result: "UNDEFINED".into(),
            created_at: Some(1_000),
            ..Default::default()
        };
        let now = 2_000;
        // No result yet: the job runs.
        assert_eq!(left_running_after_its_result(&session, &dir, now), None);
        let ended_at = |end: i64| {
            let r = LaunchResult {
                kind: ResultKind::Exited,
                exit: crate::model::ExitStatus::OK,
                end: Some(end),
            };
            gate::write_result(&dir, 1001, "42", &r).unwrap();
        };
        ended_at(now - LEFT_RUNNING_AFTER + 5);
        assert_eq!(
            left_running_after_its_result(&session, &dir, now),
            None,
            "ended just now"
        );
        ended_at(now - LEFT_RUNNING_AFTER - 5);
        assert_eq!(
            left_running_after_its_result(&session, &dir, now),
            Some(1001)
        );
        // A result older than the session is an earlier run's (a requeue).
        ended_at(900);
        assert_eq!(left_running_after_its_result(&session, &dir, now), None);
        // A session with a batch result, or not RUNNING, is not this case.
        ended_at(now - LEFT_RUNNING_AFTER - 5);
        for (status, result) in [("RUNNING", "SUCCESS"), ("TERMINATED", "UNDEFINED")] {
            let s = Session {
                status: status.into(),
                result: result.into(),
                ..session.clone()
            };
            assert_eq!(
                left_running_after_its_result(&s, &dir, now),
                None,
                "{status} {result}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_a_real_refusal_of_a_delete_is_access_denied() {
        // 23.09's texts (registry.py `destroy_session`).
        for starting_or_ended in [
            "Cannot destroy sessions in pulling status",
            "Cannot destroy sessions in scheduled/preparing/terminating/error status",
            "Cannot destroy kernels in pulling status",
            "Cannot destroy sessions that has already been already cancelled",
            "Cannot destroy sessions that has already been already terminated",
        ] {
            assert!(
                not_a_permission_refusal(starting_or_ended),
                "{starting_or_ended}"
            );
        }
        assert!(!not_a_permission_refusal(
            "You are not allowed to manipulate other's sessions"
        ));
    }
}
