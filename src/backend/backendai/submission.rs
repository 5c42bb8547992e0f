//! sbatch on Backend.AI: one `POST /session` per job (per task for arrays, a few at a
//! time). The job id is chosen before the request and carried in the session name, so a
//! create is never sent twice: when an answer is lost, the name tells whether it landed.

use super::cache::Cache;
use super::client::{Client, ClientError, Method};
use super::depends::Deps;
use super::jobid;
use super::partitions::{self, Partition};
use super::placement;
use super::submit::{self, SessionSettings, Unfit};
use super::views;
use crate::backend::{BackendError, SlurmErrno, SubmitError};
use crate::config::Config;
use crate::launcher::meta::JobMeta;
use crate::model::JobSpec;
use crate::sys::UserInfo;
use serde_json::json;
use std::borrow::Cow;
use std::sync::Mutex;

/// Array tasks created at once.
const ARRAY_CONCURRENCY: usize = 4;
/// Sends of one create when the manager could not be reached or failed (and the session,
/// looked up by its name, was not made).
const CREATE_ATTEMPTS: u32 = 3;
/// Fresh ids tried after name clashes before giving up.
const CLASH_RETRIES: u32 = 5;

/// What a submission needs from the cluster.
pub struct Context<'a> {
    pub client: &'a Client,
    pub cache: &'a Cache,
    pub config: &'a Config,
    pub cluster_name: &'a str,
    pub now: i64,
    /// What was changed to make the request fit, for `sbatch -v`.
    pub notes: &'a std::sync::Mutex<Vec<String>>,
    /// What went wrong without stopping the submission, for every user to read.
    pub warnings: &'a std::sync::Mutex<Vec<String>>,
    /// The bodies of the sessions made, by name, kept for a later hold or release.
    pub made: Mutex<super::stash::Bodies>,
}

impl Context<'_> {
    fn note(&self, line: String) {
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line);
    }

    fn warn(&self, line: String) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(line);
    }
}

fn unsupported(message: String) -> SubmitError {
    SubmitError::from(BackendError::Other(message))
}

fn unfit(u: Unfit) -> SubmitError {
    match u {
        Unfit::Unsupported(m) => unsupported(m),
        Unfit::NoImage(partition) => unsupported(format!(
            "no container image: use --container-image=IMAGE or set default_image for partition {partition}"
        )),
    }
}

pub(super) fn failure(e: ClientError) -> SubmitError {
    if e.is_unreachable() {
        SubmitError::from(BackendError::Unreachable(e.to_string()))
    } else {
        unsupported(e.to_string())
    }
}

/// The site's session settings for a job in partition `part`.
fn session_settings(
    ctx: &Context<'_>,
    part: Option<&Partition>,
    work_dir: &str,
) -> Result<SessionSettings, SubmitError> {
    let b = &ctx.config.backendai;
    let launcher = match (&b.launcher, &b.launcher_dir) {
        (Some(l), _) => l.clone(),
        (None, Some(dir)) => format!("{}/bai-slurm", dir.trim_end_matches('/')),
        (None, None) => "bai-slurm".to_string(),
    };
    let mut mounts: Vec<(String, String)> = Vec::new();
    if let (Some(vf), Some(dir)) = (&b.launcher_vfolder, &b.launcher_dir) {
        mounts.push((vf.clone(), dir.clone()));
    }
    // The storage holding the working directory (and the job directory) appears at the
    // same path in the container.
    for s in &b.storage {
        let needed =
            under(work_dir, &s.path) || b.job_dir.as_deref().is_some_and(|d| under(d, &s.path));
        if needed && !mounts.iter().any(|(v, _)| v == &s.vfolder) {
            mounts.push((s.vfolder.clone(), s.path.trim_end_matches('/').to_string()));
        }
    }
    let api_major = ctx.client.server_info().map_err(failure)?.api_version.major;
    let batch_timeout = api_major >= 8;
    if api_major >= 8 && !mounts.is_empty() {
        mounts = site_mounts_by_id(ctx, mounts)?;
    }
    Ok(SessionSettings {
        launcher,
        group: ctx.client.settings().group.clone(),
        domain: ctx.client.settings().domain.clone(),
        image: part.and_then(|p| p.default_image.clone()),
        resource_group: part.map(|p| p.resource_group.clone()).unwrap_or_default(),
        def_mem_per_cpu: part.map_or(partitions::DEFAULT_MEM_PER_CPU, |p| p.def_mem_per_cpu),
        cluster_mode: b
            .cluster_mode
            .clone()
            .unwrap_or_else(|| "multi-node".to_string()),
        mounts,
        batch_timeout,
        job_mounts: Vec::new(),
        placement: Default::default(),
    })
}

/// The site's mounts with each vfolder named by its id (API v8 and later). Backend.AI 26.x
/// resolves a vfolder name among every user's folders and refuses the create (400 `Cannot
/// resolve the given vfolder key`) as soon as another user owns one of the same name; an
/// id is never ambiguous. The ids come from the login node's cache (`GET /folders` at
/// most every ten minutes), so sbatch still sends one request per job.
fn site_mounts_by_id(
    ctx: &Context<'_>,
    mounts: Vec<(String, String)>,
) -> Result<Vec<(String, String)>, SubmitError> {
    let mut ids = ctx.cache.vfolders(ctx.now);
    for attempt in 0..2 {
        let known = match ids.take() {
            Some(known) if attempt == 0 => known,
            _ => {
                let fresh = placement::vfolder_ids(ctx.client).map_err(failure)?;
                ctx.cache.store_vfolders(&fresh, ctx.now);
                fresh
            }
        };
        let id_of = |name: &str| {
            known
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, id)| id.clone())
        };
        if let Some(found) = mounts
            .iter()
            .map(|(v, p)| Some((id_of(v)?, p.clone())))
            .collect::<Option<Vec<_>>>()
        {
            return Ok(found);
        }
    }
    let missing: Vec<&str> = mounts.iter().map(|(v, _)| v.as_str()).collect();
    Err(unsupported(format!(
        "the site's vfolders {} are not among this keypair's vfolders (GET /folders)",
        missing.join(", ")
    )))
}

/// Checks the request against the partition, filling in its defaults.
fn settle(spec: &JobSpec, part: Option<&Partition>) -> Result<JobSpec, SubmitError> {
    // `-N 0`: slurmctld's `Node count specification invalid`.
    if spec.nodes_min == Some(0) {
        return Err(SubmitError::errno(SlurmErrno::InvalidNodeCount));
    }
    let mut spec = spec.clone();
    if let Some(p) = part {
        spec.partition = Some(p.name.clone());
        let limit = p
            .times()
            .apply(spec.time_limit)
            .map_err(|_| SubmitError::errno(SlurmErrno::InvalidTimeLimit))?;
        spec.time_limit = Some(limit);
    }
    if let Some(a) = &spec.array
        && (a.tasks.is_empty()
            || a.tasks
                .iter()
                .any(|&t| t >= crate::model::array::DEFAULT_MAX_ARRAY_SIZE))
    {
        return Err(SubmitError::errno(SlurmErrno::InvalidArray));
    }
    Ok(spec)
}

/// Why a create failed, as sbatch says it.
fn create_failure(e: ClientError, part: Option<&Partition>) -> SubmitError {
    if let ClientError::BadRequest { title, .. } = &e
        && title.contains("scaling group")
    {
        return SubmitError::errno(SlurmErrno::InvalidPartitionName).with_detail(format!(
            "invalid partition specified: {}",
            part.map_or("", |p| p.name.as_str())
        ));
    }
    failure(e)
}

fn is_name_clash(e: &ClientError) -> bool {
    /// The index behind 26.x's "Unique constraint violated" (409): two creates of one
    /// name at once both pass the manager's own check and meet it instead.
    const UNIQUE_NAME_INDEX: &str = "ix_sessions_unique_name_per_user_nonterminal";
    match e {
        ClientError::BadRequest { body, .. }
            if body["type"]
                .as_str()
                .is_some_and(|t| t.ends_with("session-already-exists")) =>
        {
            true
        }
        ClientError::BadRequest {
            status: 409,
            title,
            message,
            body,
            ..
        } => {
            title.contains(UNIQUE_NAME_INDEX)
                || message.contains(UNIQUE_NAME_INDEX)
                || body.to_string().contains(UNIQUE_NAME_INDEX)
        }
        _ => false,
    }
}

enum Created {
    /// Made, with the session's id when the manager told it.
    Yes(Option<String>),
    NameTaken,
}

/// One create request, sent once. When its answer is lost, the session's name says
/// whether it was made (a retry could have made a second one). A made session's metadata
/// goes into the cache, so views need not ask for it. When the manager could not be
/// reached or failed, and the name shows the session was not made, the create is sent
/// again (a few times): the name makes that safe, since a second create of a session that
/// did land is refused as a name clash, which then means it is ours.
fn create_one(
    ctx: &Context<'_>,
    meta: &JobMeta,
    body: &serde_json::Value,
) -> Result<Created, ClientError> {
    let name = body["name"].as_str().unwrap_or_default();
    // Ours, not a session of the same name another Unix user sharing the keypair made at
    // the same moment (two creates of one name at once: one is made, the other answered
    // 500 by a 23.09 manager): the tag says whose job it is and how it was asked for.
    let tag = body["tag"].as_str().unwrap_or_default();
    let landed = || -> Option<String> {
        let filter = format!(
            "(name == {}) & (created_at >= {})",
            views::quoted(name),
            views::quoted(&views::iso(ctx.now - 60))
        );
        match views::sessions(ctx.client, Some(&filter)) {
            Ok(found) => found.iter().rfind(|s| s.tag == tag).map(|s| s.id.clone()),
            _ => None,
        }
    };
    let mut delay = std::time::Duration::from_millis(300);
    let mut attempt = 0;
    let mut body = Cow::Borrowed(body);
    let session_id = loop {
        attempt += 1;
        match ctx.client.request(Method::Post, "/session", Some(&body)) {
            Ok((_, answer)) => break answer["sessionId"].as_str().map(str::to_string),
            // Our own earlier attempt landed after all, or the name is another's.
            Err(e) if is_name_clash(&e) => match (attempt > 1).then(landed).flatten() {
                Some(id) => break Some(id),
                None => return Ok(Created::NameTaken),
            },
            // Slurm takes any memory request; Backend.AI refuses one below the image's
            // minimum. Raised once to it (sbatch -v says so); the first create made nothing.
            Err(e @ ClientError::BadRequest { .. }) if matches!(body, Cow::Borrowed(_)) => {
                let ClientError::BadRequest { message, .. } = &e else {
                    return Err(e);
                };
                let Some((bigger, changes)) = submit::image_minimum(message)
                    .and_then(|min| submit::raised_to_minimum(&body, &min))
                else {
                    return Err(e);
                };
                ctx.note(format!(
                    "raised to the image's minimum for job {}: {}",
                    meta.job_id,
                    changes.join(", ")
                ));
                body = Cow::Owned(bigger);
                attempt -= 1;
            }
            Err(e @ ClientError::Unreachable { .. }) | Err(e @ ClientError::ServerError { .. }) => {
                if let Some(id) = landed() {
                    break Some(id);
                }
                // A manager that took the request and did not answer in time may still be
                // making the session: waiting again would only multiply the wait.
                let timed_out = matches!(&e, ClientError::Unreachable { detail, .. }
                    if detail.contains("timed out") || detail.contains("timeout"));
                if attempt >= CREATE_ATTEMPTS || timed_out {
                    return Err(e);
                }
                std::thread::sleep(delay);
                delay *= 2;
            }
            Err(e) => return Err(e),
        }
    };
    if let Some(id) = &session_id {
        ctx.cache.store_meta(id, Some(meta));
    }
    // Kept with its step secret: an operator who makes it again gives it the same one.
    ctx.made
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string(), body.into_owned());
    Ok(Created::Yes(session_id))
}

/// A job checked against its partition and the site, ready to become session requests.
struct Prepared {
    spec: JobSpec,
    part: Option<Partition>,
    settings: SessionSettings,
    deps: Deps,
}

/// Everything before the create: the checks sbatch makes, the partition's defaults, the
/// site's session settings and the sessions its dependency names.
fn prepare(ctx: &Context<'_>, spec: &JobSpec, user: &UserInfo) -> Result<Prepared, SubmitError> {
    let job_dir = job_dir(ctx.config).map_err(unsupported)?;
    submit::check(spec, job_dir.is_some()).map_err(unfit)?;
    let part = partitions::for_job(ctx.config, spec.partition.as_deref()).map_err(|name| {
        SubmitError::errno(SlurmErrno::InvalidPartitionName)
            .with_detail(format!("invalid partition specified: {name}"))
    })?;
    let spec = settle(spec, part.as_ref())?;
    let mut settings = session_settings(ctx, part.as_ref(), &spec.work_dir)?;
    if spec.nodelist.is_some() || spec.exclude.is_some() || spec.exclusive {
        let agents = views::agents(ctx.client).map_err(failure)?;
        settings.placement = placement::placement(&spec, &agents, &settings.resource_group)?;
        let assigned = settings.placement.agents.len();
        if assigned > 0 {
            // Backend.AI lets only a superadmin assign agents (InsufficientPrivilege).
            let (_, role) = ctx
                .client
                .request(Method::Get, "/auth/role", None)
                .map_err(failure)?;
            if role["global_role"] != "superadmin" {
                return Err(unsupported(
                    "--nodelist and --exclude need a Backend.AI superadmin's keypair: Backend.AI lets only superadmins choose agents"
                        .into(),
                ));
            }
            if assigned > 1 && settings.cluster_mode != "multi-node" {
                return Err(unsupported(format!(
                    "--nodelist and --exclude of {assigned} nodes need [backendai] cluster_mode = \"multi-node\" (a single-node cluster session runs on one agent)"
                )));
            }
        }
    }
    settings.job_mounts = placement::container_mounts(
        ctx.client,
        &spec,
        &ctx.config.backendai.storage,
        &settings.mounts,
    )?;
    if spec.container.image.is_none() && settings.image.is_none() {
        return Err(unsupported(format!(
            "no container image: use --container-image=IMAGE{}",
            match &part {
                Some(p) => format!(" or set default_image for partition {}", p.name),
                None => " or configure a partition with a default_image".into(),
            }
        )));
    }
    let deps = Deps::resolve(ctx.client, &spec, user.uid, job_dir.is_some())?;
    let mut spec = spec;
    deps.settle_after(&mut spec);
    Ok(Prepared {
        spec,
        part,
        settings,
        deps,
    })
}

fn job_meta(ctx: &Context<'_>, p: &Prepared, user: &UserInfo, id: u32) -> JobMeta {
    JobMeta {
        v: 1,
        job_id: id,
        array_task: None,
        user: user.name.clone(),
        uid: user.uid,
        gid: user.gid,
        group: user.group.clone(),
        cluster: ctx.cluster_name.to_string(),
        submit_time: ctx.now,
        kill_wait: ctx.config.backendai.kill_wait.unwrap_or(30),
        spec: p.spec.clone(),
        slurm_version: ctx.config.slurm_version(),
        job_dir: ctx.config.backendai.job_dir.clone(),
        gate: None,
        restarts: 0,
    }
}

/// The site's job directory, which must lie under one of its storage paths (those are
/// mounted at the same path in every job that needs them).
pub fn job_dir(config: &Config) -> Result<Option<&str>, String> {
    let b = &config.backendai;
    let Some(dir) = b.job_dir.as_deref() else {
        return Ok(None);
    };
    if b.storage.iter().any(|s| under(dir, &s.path)) {
        Ok(Some(dir))
    } else {
        Err(format!(
            "[backendai] job_dir = \"{dir}\" is not under a [[backendai.storage]] path: the jobs could not see it"
        ))
    }
}

/// Whether `path` is `root` or lies beneath it.
fn under(path: &str, root: &str) -> bool {
    let root = root.trim_end_matches('/');
    path == root || path.starts_with(&format!("{root}/"))
}

/// The `POST /session` bodies sbatch would send now (one per array task), with the id the
/// job would get, sending nothing that changes state (`bai-slurm translate`).
pub fn preview(
    ctx: &Context<'_>,
    spec: &JobSpec,
    user: &UserInfo,
) -> Result<(u32, Vec<serde_json::Value>), SubmitError> {
    let p = prepare(ctx, spec, user)?;
    let counter = ctx.cache.job_id_counter().map_err(unsupported)?;
    let id = jobid::peek_id(&counter, ctx.now);
    let meta = job_meta(ctx, &p, user, id);
    let tasks: Vec<Option<u32>> = match &p.spec.array {
        None => vec![None],
        Some(a) => a.tasks.iter().map(|&t| Some(t)).collect(),
    };
    let throttle = p.spec.array.as_ref().and_then(|a| a.limiting_throttle());
    let bodies = tasks
        .iter()
        .enumerate()
        .map(|(i, &task)| {
            let mut m = meta.clone();
            m.array_task = task;
            let (mut deps, gate) = p.deps.for_task(task);
            m.gate = gate;
            // A throttle's chains: the session of the task N before, known once made.
            if let Some(before) = throttle
                .and_then(|t| i.checked_sub(t as usize))
                .and_then(|j| tasks[j])
            {
                deps.push(format!(
                    "(the session of {})",
                    jobid::session_name(id, Some(before))
                ));
            }
            body_for(&m, &p.spec, &p.settings, &deps)
        })
        .collect::<Result<_, _>>()?;
    Ok((id, bodies))
}

/// Submits the job; returns its id.
pub fn submit(ctx: &Context<'_>, spec: &JobSpec, user: &UserInfo) -> Result<u32, SubmitError> {
    let p = prepare(ctx, spec, user)?;
    let counter = ctx.cache.job_id_counter().map_err(unsupported)?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let id = jobid::next_id(&counter, ctx.now).map_err(|e| {
            unsupported(format!(
                "cannot choose a job id ({}): {e}",
                counter.display()
            ))
        })?;
        let outcome = if id_in_use(ctx, id)? {
            Ok(Created::NameTaken)
        } else {
            let meta = job_meta(ctx, &p, user, id);
            match &p.spec.array {
                None => create_job(ctx, &meta, &p.spec, &p.settings, &p.deps, p.part.as_ref()),
                Some(a) => create_array(
                    ctx,
                    &meta,
                    &p.spec,
                    &p.settings,
                    &p.deps,
                    &a.tasks,
                    p.part.as_ref(),
                ),
            }
        };
        keep_requests(ctx, user.uid, id);
        match outcome {
            Ok(Created::Yes(_)) => return Ok(id),
            Ok(Created::NameTaken) if attempt < CLASH_RETRIES => {
                let _ = jobid::mark_taken(&counter, id);
            }
            Ok(Created::NameTaken) => {
                return Err(unsupported(format!(
                    "job ids {id} and the {} before it are taken by your other jobs",
                    CLASH_RETRIES - 1
                )));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Keeps the bodies of the sessions made for job `id` in the job directory, so that any
/// login node can make them again (`stash`); without one there is nothing to keep.
fn keep_requests(ctx: &Context<'_>, uid: u32, id: u32) {
    let made = std::mem::take(&mut *ctx.made.lock().unwrap_or_else(|e| e.into_inner()));
    let Ok(Some(dir)) = job_dir(ctx.config) else {
        return;
    };
    if made.is_empty() {
        return;
    }
    let stash = super::stash::Stash::new(dir, uid);
    if let Err(e) = stash.save(id, &made) {
        // The job runs; what is lost is the means to change it, which its user must know.
        ctx.warn(format!(
            "job {id}: its request could not be kept in the job directory ({e}): it cannot be held, released, updated or requeued"
        ));
    }
    if stash.prune_due()
        && let Ok(live) = views::sessions(ctx.client, Some(&views::alive()))
    {
        // A running job's request stays: it may be requeued.
        let alive: std::collections::BTreeSet<u32> = live
            .iter()
            .filter(|s| !s.job_ended())
            .filter_map(|s| jobid::parse_session_name(&s.name).map(|(j, _)| j))
            .collect();
        stash.prune(|j| alive.contains(&j));
        let ended = super::marks::KEEP_ENDED;
        super::marks::prune(std::path::Path::new(dir), uid, ended, |j| {
            alive.contains(&j)
        });
    }
}

/// Makes a job's session again from a kept body (a hold, a release, a dependency made
/// again); the name of the session just ended may be taken for a moment longer. `owner`:
/// the access key of the job's owner when it is not the caller's (an operator changing
/// another user's job): the session is made as theirs (`owner_access_key`, which the
/// manager allows administrators) with the step secret their request keeps, which the
/// owner's commands derive; the caller's own job gets its secret derived again. Returns
/// the new session's id and the body to keep (with its secret).
pub(super) fn create_again(
    ctx: &Context<'_>,
    body: &serde_json::Value,
    owner: Option<&str>,
) -> Result<(String, serde_json::Value), SubmitError> {
    let meta = body["config"]["environ"][crate::launcher::meta::META_ENV]
        .as_str()
        .and_then(JobMeta::decode)
        .ok_or_else(|| unsupported("a kept request without its job's metadata".into()))?;
    // Another user's body carries its secret: the caller checked that before it ended
    // anything (`Remaker::check_made_as_owner`).
    let kept = match owner {
        None => with_secret(ctx, &meta, body.clone()),
        Some(_) => body.clone(),
    };
    let mut sent = Cow::Borrowed(&kept);
    if let Some(key) = owner {
        sent.to_mut()["owner_access_key"] = json!(key);
    }
    for attempt in 1.. {
        match create_one(ctx, &meta, &sent).map_err(failure)? {
            Created::Yes(Some(id)) => return Ok((id, kept)),
            Created::Yes(None) => break,
            Created::NameTaken if attempt < CREATE_ATTEMPTS * 3 => {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
            Created::NameTaken => break,
        }
    }
    Err(unsupported(format!(
        "the new session of job {} was not made (its name stays taken)",
        meta.job_id
    )))
}

/// Whether a session of any state already carries the id. Backend.AI refuses a second
/// *live* session of one name, but not the name of an ended one: a login node whose ids ran
/// ahead of the clock (a burst of submissions) would otherwise give an id another node
/// already used for a job that has ended, and `sacct -j` would show two jobs.
fn id_in_use(ctx: &Context<'_>, id: u32) -> Result<bool, SubmitError> {
    let found =
        views::sessions(ctx.client, views::names_of_jobs(&[id]).as_deref()).map_err(failure)?;
    Ok(found
        .iter()
        .any(|s| jobid::parse_session_name(&s.name).is_some_and(|(i, _)| i == id)))
}

fn body_for(
    meta: &JobMeta,
    spec: &JobSpec,
    settings: &SessionSettings,
    dependencies: &[String],
) -> Result<serde_json::Value, SubmitError> {
    submit::create_body(meta, spec, settings, dependencies).map_err(unfit)
}

fn create_job(
    ctx: &Context<'_>,
    meta: &JobMeta,
    spec: &JobSpec,
    settings: &SessionSettings,
    deps: &Deps,
    part: Option<&Partition>,
) -> Result<Created, SubmitError> {
    let (dependencies, gate) = deps.for_task(None);
    let meta = &JobMeta {
        gate,
        ..meta.clone()
    };
    let body = body_for(meta, spec, settings, &dependencies)?;
    create_one(ctx, meta, &with_secret(ctx, meta, body)).map_err(|e| create_failure(e, part))
}

/// The session's step secret, added only to the request actually sent (`--translate`
/// shows bodies without it).
fn with_secret(
    ctx: &Context<'_>,
    meta: &JobMeta,
    mut body: serde_json::Value,
) -> serde_json::Value {
    body["config"]["environ"][crate::launcher::meta::STEP_SECRET_ENV] =
        json!(super::allocation::session_secret(
            &ctx.client.settings().secret_key,
            meta.job_id,
            meta.array_task
        ));
    body
}

/// An array: the first task alone (a name clash there means the id is taken), then the
/// rest a few at a time. A throttle `%N` makes N chains (task i+N's session depends on task
/// i's, each chain created in order), so that no more than N run at once. When some fail,
/// the error names the tasks that exist.
fn create_array(
    ctx: &Context<'_>,
    meta: &JobMeta,
    spec: &JobSpec,
    settings: &SessionSettings,
    dependencies: &Deps,
    tasks: &[u32],
    part: Option<&Partition>,
) -> Result<Created, SubmitError> {
    let create_task = |task: u32, after: Option<&str>| {
        let mut m = meta.clone();
        m.array_task = Some(task);
        let (mut deps, gate) = dependencies.for_task(Some(task));
        m.gate = gate;
        deps.extend(after.map(str::to_string));
        let body = body_for(&m, spec, settings, &deps)?;
        create_one(ctx, &m, &with_secret(ctx, &m, body)).map_err(|e| create_failure(e, part))
    };
    let (&first, _) = tasks
        .split_first()
        .ok_or_else(|| SubmitError::errno(SlurmErrno::InvalidArray))?;
    let first_id = match create_task(first, None)? {
        Created::NameTaken => return Ok(Created::NameTaken),
        Created::Yes(id) => id,
    };
    let throttle = spec.array.as_ref().and_then(|a| a.limiting_throttle());
    let chains = throttle.map_or(tasks.len(), |t| t as usize);
    let lanes: Vec<Vec<u32>> = (0..chains)
        .map(|l| tasks.iter().skip(l).step_by(chains).copied().collect())
        .collect();
    let queue = Mutex::new(lanes.into_iter().enumerate());
    let failed: Mutex<Vec<(u32, String)>> = Mutex::new(Vec::new());
    let created: Mutex<Vec<u32>> = Mutex::new(vec![first]);
    let fail = |task: u32, why: String| {
        failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((task, why))
    };
    std::thread::scope(|scope| {
        for _ in 0..ARRAY_CONCURRENCY.min(chains) {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some((lane, tasks)) = next else { break };
                    // Lane 0 starts with the first task, made above.
                    let (mut before, todo) = if lane == 0 {
                        (first_id.clone(), &tasks[1..])
                    } else {
                        (None, &tasks[..])
                    };
                    for (i, &task) in todo.iter().enumerate() {
                        let after = before.as_deref().filter(|_| throttle.is_some());
                        if throttle.is_some() && after.is_none() && (lane == 0 || i > 0) {
                            fail(
                                task,
                                "the task before it in its throttle chain was not made".into(),
                            );
                            continue;
                        }
                        match create_task(task, after) {
                            Ok(Created::Yes(id)) => {
                                created.lock().unwrap_or_else(|e| e.into_inner()).push(task);
                                before = id;
                            }
                            Ok(Created::NameTaken) => {
                                fail(task, "the session name is taken".into());
                                before = None;
                            }
                            Err(e) => {
                                fail(task, submit_error_text(&e));
                                before = None;
                            }
                        }
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.is_empty() {
        return Ok(Created::Yes(first_id));
    }
    let mut created = created.into_inner().unwrap_or_else(|e| e.into_inner());
    created.sort_unstable();
    failed.sort();
    let listed = crate::model::array::ranges;
    let failed_ids: Vec<u32> = failed.iter().map(|(t, _)| *t).collect();
    Err(unsupported(format!(
        "array job {}: tasks {} were submitted, tasks {} were not ({}); `scancel {}` removes the submitted ones",
        meta.job_id,
        listed(&created),
        listed(&failed_ids),
        failed[0].1,
        meta.job_id
    )))
}

fn submit_error_text(e: &SubmitError) -> String {
    match (&e.errno, &e.failure) {
        (Some(errno), _) => errno.text().to_string(),
        (None, Some(f)) => f.to_string(),
        (None, None) => "unspecified error".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TimeLimit;

    #[test]
    fn partition_limits_apply_at_submission() {
        let part = Partition {
            name: "short".into(),
            resource_group: "default".into(),
            is_default: true,
            default_image: None,
            max_time: TimeLimit::Minutes(30),
            default_time: Some(TimeLimit::Minutes(10)),
            def_mem_per_cpu: 1024,
        };
        let spec = JobSpec::default();
        let settled = settle(&spec, Some(&part)).unwrap();
        assert_eq!(settled.time_limit, Some(TimeLimit::Minutes(10)));
        assert_eq!(settled.partition.as_deref(), Some("short"));
        let long = JobSpec {
            time_limit: Some(TimeLimit::Minutes(31)),
            ..JobSpec::default()
        };
        assert_eq!(
            settle(&long, Some(&part)).unwrap_err().errno,
            Some(SlurmErrno::InvalidTimeLimit)
        );
        // Without a DefaultTime the job runs under MaxTime, as on the local backend.
        let no_default = Partition {
            default_time: None,
            ..part
        };
        let settled = settle(&spec, Some(&no_default)).unwrap();
        assert_eq!(settled.time_limit, Some(TimeLimit::Minutes(30)));
    }

    #[test]
    fn a_clash_is_recognised_by_the_problem_type() {
        let e = ClientError::BadRequest {
            status: 400,
            title: "The session already exists".into(),
            message: String::new(),
            error_code: None,
            body: serde_json::json!({"type": "https://api.backend.ai/probs/session-already-exists"}),
        };
        assert!(is_name_clash(&e));
    }

    /// 26.9, two login nodes creating one name in the same moment (seen in CI): the
    /// database's unique index answers, and the next id is tried as for any clash.
    #[test]
    fn a_clash_is_recognised_by_the_unique_index_too() {
        let detail = "Unique constraint violated. (<class 'asyncpg.exceptions.UniqueViolationError'>: duplicate key value violates unique constraint \"ix_sessions_unique_name_per_user_nonterminal\"\nDETAIL:  Key (name, user_uuid)=(j92148507, dfa9da54-4b28-432f-be29-c0d680c7a412) already exists.)";
        let e = ClientError::BadRequest {
            status: 409,
            title: String::new(),
            message: detail.into(),
            error_code: None,
            body: serde_json::json!({"msg": detail}),
        };
        assert!(is_name_clash(&e));
        let other = ClientError::BadRequest {
            status: 409,
            title: "Unique constraint violated.".into(),
            message: "duplicate key value violates unique constraint \"vfolders_pkey\"".into(),
            error_code: None,
            body: serde_json::json!({}),
        };
        assert!(!is_name_clash(&other));
    }
}
