//! scontrol's job-control verbs (src/scontrol/update_job.c in Slurm 22.05): hold, uhold
//! (holdu), release, requeue, requeuehold, suspend, resume, top, wait_job, notify and
//! `update JobId=...` (the words of which [`super::scontrol_update`] reads). All of them
//! check their job ids as Slurm does (`_is_job_id`, `_next_job_id`, and the controller's
//! own reading of each id), so a malformed id, or one that names no job, gets Slurm's own
//! message and exit status; the backend answers for the jobs that exist, with the errno
//! slurmctld would give.
//!
//! Ids are handled as bytes: non-ASCII text, and the characters [`crate::cli::arg_string`]
//! makes of bytes that are not UTF-8, are never cut inside a character.

use crate::backend::{BackendError, Cluster, HoldKind, JobReply, SlurmErrno};
use crate::cli::Invocation;
use crate::model::cnum::{atoi, strncasecmp_eq, strtol};
use crate::model::{ArrayPart, JobRecord, JobSelector, JobState, RequeueRequest, TaskSelector};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    /// `hold`, or `uhold`/`holdu` (a user hold).
    Hold {
        user: bool,
    },
    Release,
    Requeue,
    RequeueHold,
    Suspend,
    Resume,
    Top,
    WaitJob,
    Notify,
    Update,
}

/// `xstrncasecmp(tag, name, MAX(tag_len, min))`.
fn is(tag: &str, name: &str, min: usize) -> bool {
    strncasecmp_eq(tag, name, tag.len().max(min))
}

/// The verb a keyword names, tested in the order of scontrol's `_process_command`.
fn verb_of(tag: &str) -> Option<Verb> {
    if is(tag, "requeue", 3) {
        Some(Verb::Requeue)
    } else if is(tag, "requeuehold", 11) {
        Some(Verb::RequeueHold)
    } else if strncasecmp_eq(tag, "holdu", 5) || strncasecmp_eq(tag, "uhold", 5) {
        Some(Verb::Hold { user: true })
    } else if strncasecmp_eq(tag, "hold", 4) {
        Some(Verb::Hold { user: false })
    } else if is(tag, "release", 3) {
        Some(Verb::Release)
    } else if is(tag, "suspend", 2) {
        Some(Verb::Suspend)
    } else if is(tag, "resume", 3) {
        Some(Verb::Resume)
    } else if is(tag, "top", 3) {
        Some(Verb::Top)
    } else if is(tag, "wait_job", 2) {
        Some(Verb::WaitJob)
    } else if is(tag, "update", 1) {
        Some(Verb::Update)
    } else if is(tag, "notify", 1) {
        Some(Verb::Notify)
    } else {
        None
    }
}

/// Whether `verb` is one of the keywords this module handles.
pub fn handles(verb: &str) -> bool {
    verb_of(verb).is_some()
}

/// `s` without `prefix` when it starts with it, ignoring ASCII case (`strncasecmp`).
/// Compares bytes, so an id that starts with a multi-byte character is never cut inside it.
pub fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let n = prefix.len();
    s.as_bytes()
        .get(..n)
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
        // The prefix is ASCII, so byte n starts a character.
        .then(|| &s[n..])
}

/// `JobID=` then `Job=` (both may be given: `JobID=Job=12`), as hold, requeue, suspend and
/// top strip them.
fn strip_job_tags(s: &str) -> &str {
    let s = strip_prefix_ci(s, "JobID=").unwrap_or(s);
    strip_prefix_ci(s, "Job=").unwrap_or(s)
}

/// `_is_job_id` (22.05): digits, at most one `_` and one `+` (a hetjob component) per
/// id, balanced brackets, `-` only inside brackets or after the `_`, ids separated by `,`
/// or ` ` outside brackets.
pub fn is_job_id(s: &str) -> bool {
    let mut have_under = false;
    let mut have_plus = false;
    let mut depth: i64 = 0;
    for &b in s.as_bytes() {
        match b {
            b'_' => {
                if have_under {
                    return false;
                }
                have_under = true;
            }
            b'+' => {
                if have_plus {
                    return false;
                }
                have_plus = true;
            }
            b'[' => depth += 1,
            b']' => depth -= 1,
            b'-' => {
                if depth == 0 && !have_under {
                    return false;
                }
            }
            b',' | b' ' => {
                if depth == 0 {
                    have_under = false;
                    have_plus = false;
                }
            }
            b'0'..=b'9' => {}
            _ => return false,
        }
    }
    depth == 0
}

/// `_next_job_id` over a string [`is_job_id`] accepted: the ids it names, one request
/// each. A bracketed job part (`[12-14]_3`) is a hostlist of job ids; a bracketed task
/// part loses its brackets (`12_[1-3]` is `12_1-3`, cut at the first `]`). `Err` is a job
/// part that is not a hostlist: Slurm says so and stops reading the argument.
pub fn job_id_strings(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut depth = 0i64;
    let mut start = 0;
    let mut tokens = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b',' | b' ' if depth == 0 => {
                tokens.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    tokens.push(&s[start..]);
    for tok in tokens.into_iter().filter(|t| !t.is_empty()) {
        let under = tok.find('_');
        let task_spec = under.map(|u| {
            let t = &tok[u + 1..];
            match t.strip_prefix('[') {
                Some(inner) => &inner[..inner.find(']').unwrap_or(inner.len())],
                None => t,
            }
        });
        let suffix = task_spec.map(|t| format!("_{t}")).unwrap_or_default();
        match tok.find('[') {
            Some(b) if under.is_none_or(|u| b < u) => {
                let job_part = &tok[..under.unwrap_or(tok.len())];
                let ids = crate::model::hostlist::expand(job_part)
                    .filter(|ids| !ids.is_empty())
                    .ok_or_else(|| format!("Invalid job id: {tok}"))?;
                out.extend(ids.into_iter().map(|id| format!("{id}{suffix}")));
            }
            _ => match under {
                Some(u) => out.push(format!("{}{suffix}", &tok[..u])),
                None => out.push(tok.to_string()),
            },
        }
    }
    Ok(out)
}

/// One id as the controller reads it (`strtol`, then `_` and a list of task ranges each
/// below MaxArraySize): the job and, for an array id, its tasks in order. `None` is an id
/// the controller refuses outright ("Invalid job id specified for job <id>").
fn controller_id(id: &str, max_array_size: u32) -> Option<(u32, Option<Vec<u32>>)> {
    let (job, used) = strtol(id.as_bytes()).value_and_end();
    if used == 0 || job <= 0 {
        return None;
    }
    // The controller keeps the low 32 bits, as C's conversion to uint32_t does.
    let job = job as u32;
    let rest = &id[used..];
    if rest.is_empty() {
        return Some((job, None));
    }
    let spec = rest.strip_prefix('_')?;
    let mut bits = vec![false; max_array_size as usize];
    for part in spec.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                task_number(a, max_array_size)?,
                task_number(b, max_array_size)?,
            ),
            None => {
                let v = task_number(part, max_array_size)?;
                (v, v)
            }
        };
        if a > b {
            return None;
        }
        for t in a..=b {
            bits[t as usize] = true;
        }
    }
    let tasks: Vec<u32> = (0..max_array_size).filter(|&t| bits[t as usize]).collect();
    Some((job, Some(tasks)))
}

/// A task index: decimal digits, below MaxArraySize.
fn task_number(s: &str, max_array_size: u32) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = s.trim_start_matches('0');
    if trimmed.len() > 10 {
        return None;
    }
    let v: u64 = if trimmed.is_empty() {
        0
    } else {
        trimmed.parse().ok()?
    };
    u32::try_from(v).ok().filter(|&v| v < max_array_size)
}

/// What one command needs across its ids: the jobs (loaded once, when first needed) and
/// Slurm's `errno` as the last request left it.
struct Ctx<'c> {
    cluster: &'c dyn Cluster,
    quiet: bool,
    jobs: Option<Vec<JobRecord>>,
    /// The text of the last error a request set (Slurm's `errno`); `None` is 0.
    errno: Option<String>,
    exit: i32,
    /// "not supported" is said once per command.
    said_unsupported: bool,
    /// Jobs looked up by id so far ([`Ctx::exists`]).
    lookups: u32,
}

/// Lookups by id before [`Ctx::exists`] loads the whole queue instead.
const MAX_LOOKUPS: u32 = 16;

impl Ctx<'_> {
    fn max_array_size(&self) -> u32 {
        // Bounded, so that a task list never needs more than a few MB.
        self.cluster.max_array_size().min(4_000_001)
    }

    fn jobs(&mut self) -> &[JobRecord] {
        if self.jobs.is_none() {
            self.jobs = Some(self.cluster.jobs().unwrap_or_default());
        }
        self.jobs.as_deref().unwrap_or_default()
    }

    /// Whether any job is (part of) what `sel` names: looked up by its id, not in the
    /// whole queue, unless the queue is loaded already or many ids are asked about (one
    /// load then costs less than a lookup each).
    fn exists(&mut self, sel: &JobSelector) -> bool {
        if self.jobs.is_none() && self.lookups < MAX_LOOKUPS {
            self.lookups += 1;
            return self
                .cluster
                .jobs_to_act_on(&[sel.job_id])
                .unwrap_or_default()
                .iter()
                .any(|j| sel.matches(j));
        }
        self.jobs().iter().any(|j| sel.matches(j))
    }

    fn unsupported(&mut self, inv: &mut Invocation<'_>, verb: &str) {
        self.exit = 1;
        if !self.said_unsupported {
            self.said_unsupported = true;
            inv.error(&format!("{verb} is not supported by bai-slurm yet"));
        }
    }

    /// `fprintf(stderr, "%s for job %s\n", ...)` unless quiet.
    fn for_job(&mut self, inv: &mut Invocation<'_>, text: &str, id: &str) {
        self.exit = 1;
        if !self.quiet {
            let _ = writeln!(inv.err, "{text} for job {id}");
        }
    }

    /// An array request's answer for its tasks: `<job>_<tasks>: <text>` unless quiet.
    fn for_tasks(&mut self, inv: &mut Invocation<'_>, job: u32, tasks: &[u32], text: &str) {
        self.exit = 1;
        if !self.quiet {
            let ranges = crate::model::array::ranges(tasks);
            let _ = writeln!(inv.err, "{job}_{ranges}: {text}");
        }
    }
}

fn invalid() -> &'static str {
    SlurmErrno::InvalidJobId.text()
}

fn error_text(e: &BackendError) -> String {
    match e {
        BackendError::Slurm(errno) => errno.text().to_string(),
        other => other.to_string(),
    }
}

fn selector(job: u32, tasks: Option<Vec<u32>>) -> JobSelector {
    JobSelector {
        job_id: job,
        tasks: tasks.map_or(TaskSelector::Whole, TaskSelector::Tasks),
        step: None,
    }
}

/// Runs `scontrol <verb> <args...>`; returns scontrol's exit code.
pub fn run(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    verb: &str,
    args: &[String],
    quiet: bool,
) -> i32 {
    let Some(kind) = verb_of(verb) else {
        let _ = writeln!(inv.err, "invalid keyword: {verb}");
        return 1;
    };
    let mut cx = Ctx {
        cluster,
        quiet,
        jobs: None,
        lookups: 0,
        errno: None,
        exit: 0,
        said_unsupported: false,
    };
    let argc = args.len() + 1;
    let too_few = |inv: &mut Invocation<'_>, gated: bool| {
        if !(gated && quiet) {
            let _ = writeln!(inv.err, "too few arguments for keyword:{verb}");
        }
        1
    };
    let too_many = |inv: &mut Invocation<'_>| {
        if !quiet {
            let _ = writeln!(inv.err, "too many arguments for keyword:{verb}");
        }
        1
    };
    match kind {
        Verb::Hold { .. } | Verb::Release => {
            if argc < 2 {
                return too_few(inv, true);
            }
            for arg in args {
                let rc = hold_one(inv, &mut cx, kind, arg);
                if rc {
                    cx.exit = 1;
                    if !quiet {
                        let text = cx.errno.clone().unwrap_or_else(|| "No error".into());
                        let _ = writeln!(inv.err, "slurm_suspend error: {text}");
                    }
                }
            }
        }
        Verb::Requeue | Verb::RequeueHold => {
            if argc < 2 {
                return too_few(inv, true);
            }
            // Leading flag words (`Incomplete`, `State=SpecialExit`) are not jobs.
            let mut how = RequeueRequest {
                hold: kind == Verb::RequeueHold,
                ..Default::default()
            };
            let mut first_job = args.len();
            for (i, a) in args.iter().enumerate() {
                match requeue_flag(a) {
                    Some(RequeueFlag::Incomplete) => how.incomplete = true,
                    Some(RequeueFlag::SpecialExit) => how.special_exit = true,
                    None => {
                        first_job = i;
                        break;
                    }
                }
            }
            for arg in &args[first_job..] {
                let s = if kind == Verb::Requeue {
                    if arg.is_empty() {
                        cx.exit = 1;
                        continue;
                    }
                    strip_job_tags(arg)
                } else {
                    arg.as_str()
                };
                let uid = inv.user.uid;
                each_id(inv, &mut cx, s, &mut |cluster, _id, sel| {
                    cluster.requeue(sel, how, uid)
                });
            }
        }
        Verb::Suspend | Verb::Resume => {
            if argc < 2 {
                return too_few(inv, true);
            }
            let resume = kind == Verb::Resume;
            for arg in args {
                let uid = inv.user.uid;
                let s = strip_job_tags(arg);
                each_known_id(inv, &mut cx, s, &mut |cluster, sel| {
                    cluster.suspend(sel, resume, uid)
                });
            }
        }
        Verb::Top => {
            if argc < 2 {
                return too_few(inv, true);
            }
            if argc > 2 {
                return too_many(inv);
            }
            top(inv, &mut cx, verb, strip_job_tags(&args[0]));
        }
        Verb::WaitJob => {
            if argc > 2 {
                return too_many(inv);
            }
            if argc < 2 {
                return too_few(inv, true);
            }
            wait_job(inv, &mut cx, verb, &args[0]);
        }
        Verb::Notify => {
            if argc < 3 {
                return too_few(inv, false);
            }
            notify(inv, &mut cx, args);
        }
        Verb::Update => {
            if argc < 2 {
                let _ = writeln!(inv.err, "too few arguments for {verb} keyword");
                return 1;
            }
            update(inv, &mut cx, verb, args);
        }
    }
    cx.exit
}

/// A flag word of `scontrol requeue[hold]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RequeueFlag {
    Incomplete,
    SpecialExit,
}

/// `parse_requeue_flags`: a prefix of `incomplete` (even an empty word), or
/// `state=specialexit` / `state=se...` (any case).
fn requeue_flag(arg: &str) -> Option<RequeueFlag> {
    if "incomplete".len() >= arg.len() && strncasecmp_eq(arg, "incomplete", arg.len()) {
        return Some(RequeueFlag::Incomplete);
    }
    let value = strip_prefix_ci(arg, "state=")?;
    (strncasecmp_eq(value, "specialexit", 11) || strncasecmp_eq(value, "se", 2))
        .then_some(RequeueFlag::SpecialExit)
}

/// `scontrol_hold` for one argument; returns whether it failed in a way that makes
/// scontrol print `slurm_suspend error: <errno>` after it.
fn hold_one(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, kind: Verb, arg: &str) -> bool {
    let s = strip_job_tags(arg);
    let hold = match kind {
        // The controller makes `hold` an administrator hold only for an operator.
        Verb::Hold { user } => Some(if user {
            HoldKind::User
        } else {
            HoldKind::Admin
        }),
        _ => None,
    };
    let mut failed = false;
    if is_job_id(s) {
        let ids = match job_id_strings(s) {
            Ok(ids) => ids,
            Err(msg) => {
                inv.error(&msg);
                return false;
            }
        };
        let max = cx.max_array_size();
        for id in ids {
            match controller_id(&id, max) {
                None => {
                    cx.for_job(inv, invalid(), &id);
                    cx.errno = Some(invalid().into());
                    failed = true;
                }
                Some((job, tasks)) => {
                    let sel = selector(job, tasks.clone());
                    let result = if cx.exists(&sel) {
                        cx.cluster.hold(&sel, hold, inv.user.uid)
                    } else {
                        Err(BackendError::Slurm(SlurmErrno::InvalidJobId))
                    };
                    match (result, tasks) {
                        (Ok(()), _) => cx.errno = None,
                        // The request for an array succeeds; its answer names the tasks.
                        (Err(e), Some(tasks)) => {
                            cx.for_tasks(inv, job, &tasks, &error_text(&e));
                            cx.errno = None;
                        }
                        (Err(e), None) => {
                            let text = error_text(&e);
                            cx.for_job(inv, &text, &id);
                            cx.errno = Some(text);
                            failed = true;
                        }
                    }
                }
            }
        }
    } else if let Some(name) = strip_prefix_ci(s, "Name=") {
        // Every pending job of that name (Slurm skips the others silently).
        let targets: Vec<(String, JobSelector)> = cx
            .jobs()
            .iter()
            .filter(|j| j.name == name && j.state == JobState::Pending)
            .map(record_id)
            .collect();
        for (id, sel) in targets {
            match cx.cluster.hold(&sel, hold, inv.user.uid) {
                Ok(()) => cx.errno = None,
                Err(e) => {
                    let text = error_text(&e);
                    cx.for_job(inv, &text, &id);
                    cx.errno = Some(text);
                    failed = true;
                }
            }
        }
    } else {
        cx.for_job(inv, invalid(), s);
        cx.errno = Some(invalid().into());
        failed = true;
    }
    failed
}

/// The id Slurm sends for a job it found by name: `12`, `13_4`, `13_1-3`.
fn record_id(job: &JobRecord) -> (String, JobSelector) {
    match &job.array {
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            ..
        }) => (
            format!("{array_job_id}_{}", crate::model::array::ranges(tasks)),
            selector(*array_job_id, Some(tasks.clone())),
        ),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (
            format!("{array_job_id}_{task_id}"),
            selector(*array_job_id, Some(vec![*task_id])),
        ),
        None => (job.job_id.to_string(), selector(job.job_id, None)),
    }
}

/// A request for one id the controller reads: the backend's answer for it.
type Act<'a> = dyn FnMut(&dyn Cluster, &str, &JobSelector) -> Result<JobReply, BackendError> + 'a;

/// Every id in `s`, as `_is_job_id` and `_next_job_id` split it, sent to the backend one
/// at a time (requeue, update); each answer printed as scontrol prints it.
fn each_id(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, s: &str, act: &mut Act<'_>) {
    if !is_job_id(s) {
        cx.for_job(inv, invalid(), s);
        return;
    }
    let ids = match job_id_strings(s) {
        Ok(ids) => ids,
        Err(msg) => {
            inv.error(&msg);
            return;
        }
    };
    let max = cx.max_array_size();
    for id in ids {
        let Some((job, tasks)) = controller_id(&id, max) else {
            cx.for_job(inv, invalid(), &id);
            continue;
        };
        let reply = match act(cx.cluster, &id, &selector(job, tasks)) {
            Ok(r) => r,
            Err(BackendError::Slurm(e)) => JobReply::Job(Err(e)),
            Err(e) => {
                cx.exit = 1;
                inv.error(&e.to_string());
                continue;
            }
        };
        // Whatever was done, the next look at the jobs must see it.
        cx.jobs = None;
        if super::scontrol_update::print_reply(inv, &id, job, &reply, cx.quiet) {
            cx.exit = 1;
        }
    }
}

/// suspend and resume: ids checked as Slurm checks them; 22.05's controller answers one
/// that names no job with "Unexpected message received".
fn each_known_id(
    inv: &mut Invocation<'_>,
    cx: &mut Ctx<'_>,
    s: &str,
    act: &mut dyn FnMut(&dyn Cluster, &JobSelector) -> Result<(), BackendError>,
) {
    if !is_job_id(s) {
        cx.for_job(inv, invalid(), s);
        return;
    }
    let ids = match job_id_strings(s) {
        Ok(ids) => ids,
        Err(msg) => {
            inv.error(&msg);
            return;
        }
    };
    let max = cx.max_array_size();
    for id in ids {
        let found = controller_id(&id, max).filter(|(job, tasks)| {
            let sel = selector(*job, tasks.clone());
            cx.exists(&sel)
        });
        match found {
            Some((job, tasks)) => {
                if let Err(e) = act(cx.cluster, &selector(job, tasks)) {
                    cx.for_job(inv, &error_text(&e), &id);
                }
            }
            None => cx.for_job(inv, "Unexpected message received", &id),
        }
    }
}

/// `scontrol_top_job`: the controller reads the whole string; anything that names no job
/// is refused with the string as given.
fn top(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, verb: &str, s: &str) {
    let max = cx.max_array_size();
    let found = is_job_id(s)
        && job_id_strings(s).is_ok_and(|ids| {
            ids.iter().any(|id| {
                controller_id(id, max).is_some_and(|(job, tasks)| cx.exists(&selector(job, tasks)))
            })
        });
    if !found {
        cx.for_job(inv, invalid(), s);
        return;
    }
    let _ = verb;
    let targets: Vec<JobSelector> = job_id_strings(s)
        .unwrap_or_default()
        .iter()
        .filter_map(|id| controller_id(id, max))
        .map(|(job, tasks)| selector(job, tasks))
        .collect();
    if let Err(e) = cx.cluster.top(&targets, inv.user.uid) {
        cx.for_job(inv, &error_text(&e), s);
    }
}

/// The job number `atoi` gives, as C keeps it in a `uint32_t` (`4294967296` is 0,
/// `2147483648` stays itself).
fn atoi_u32(s: &str) -> u32 {
    atoi(s.as_bytes()) as u32
}

/// `scontrol_job_ready`: `atoi`, 0 refused (its message has no newline).
fn wait_job(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, verb: &str, arg: &str) {
    let _ = verb;
    let job = atoi_u32(arg);
    cx.exit = 1;
    if job == 0 {
        let _ = write!(inv.err, "Invalid job_id {arg}");
        return;
    }
    // `job_node_ready`: the job record itself (an array's task by its own id).
    let state = cx
        .cluster
        .jobs_with_ids(&[job])
        .unwrap_or_default()
        .iter()
        .find(|j| j.job_id == job)
        .map(|j| j.state);
    match state {
        Some(JobState::Running | JobState::Suspended) => {
            cx.exit = 0;
            let _ = writeln!(inv.err, "scontrol: Nodes are ready for job {job}");
        }
        Some(_) => {
            let _ = writeln!(inv.err, "scontrol: Job {job} no longer running");
        }
        None => {
            let _ = writeln!(inv.err, "scontrol: Problem running job {job}");
        }
    }
}

/// `scontrol_job_notify`: `atoi`, 0 refused (no newline), then scontrol's
/// `slurm_perror("job notify failure")`.
fn notify(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, args: &[String]) {
    let arg = &args[0];
    let job = atoi_u32(arg);
    if job == 0 {
        cx.exit = 1;
        let _ = write!(inv.err, "Invalid job_id {arg}");
        let _ = writeln!(inv.err, "job notify failure: No error");
        return;
    }
    let message = args[1..].join(" ");
    if let Err(e) = cx.cluster.notify(job, &message, inv.user.uid) {
        cx.exit = 1;
        let _ = writeln!(inv.err, "job notify failure: {}", error_text(&e));
    }
}

/// `_update_it`'s choice of entity: a JobId (or JobName) tag makes it a job update.
fn update(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, verb: &str, args: &[String]) {
    let mut job_tag = false;
    let mut step_tag = false;
    let mut node_tag = false;
    let mut other_tag = false;
    let mut i = 0;
    while i < args.len() {
        let (tag, len) = match args[i].find('=') {
            Some(p) => (&args[i][..p], p),
            None => {
                let t = args[i].as_str();
                i += 1;
                (t, t.len())
            }
        };
        i += 1;
        let m = |name: &str, min: usize| strncasecmp_eq(tag, name, len.max(min));
        if m("JobId", 3) || m("JobNAME", 3) {
            job_tag = true;
        } else if m("StepId", 4) {
            step_tag = true;
        } else if m("NodeName", 3) {
            node_tag = true;
        } else if m("PartitionName", 3)
            || m("FrontendName", 2)
            || m("ReservationName", 3)
            || m("SlurmctldDebug", 2)
        {
            other_tag = true;
        }
    }
    if job_tag {
        update_job(inv, cx, args);
    } else if node_tag && !step_tag {
        cx.exit = super::scontrol_node::update_nodes(inv, cx.cluster, args);
    } else if step_tag || other_tag {
        cx.unsupported(inv, verb);
    } else {
        cx.exit = 1;
        let _ = writeln!(inv.err, "No valid entity in update command");
        let _ = writeln!(
            inv.err,
            "Input line must include \"NodeName\", \"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\""
        );
    }
}

/// `scontrol_update_job`: the words read as scontrol reads them
/// ([`super::scontrol_update::parse`]), then each id sent to the backend.
fn update_job(inv: &mut Invocation<'_>, cx: &mut Ctx<'_>, args: &[String]) {
    use super::scontrol_update as su;
    let cluster = cx.cluster;
    let mut load = || cluster.jobs().unwrap_or_default();
    let req = match su::parse(inv, args, &mut load) {
        Ok(r) => r,
        Err(su::Stop(rc)) => {
            cx.exit = rc;
            return;
        }
    };
    let ids = match (&req.job_id_str, &req.name) {
        (Some(ids), _) => ids.clone(),
        (None, Some(name)) => {
            let jobs = cx.jobs().to_vec();
            match su::name_to_ids(inv, &jobs, name, req.uid) {
                Some(ids) => ids,
                None => {
                    cx.exit = 1;
                    return;
                }
            }
        }
        (None, None) => {
            cx.exit = 1;
            inv.error("No job ID specified");
            return;
        }
    };
    if req.update_size {
        let jobs = cx.jobs().to_vec();
        if !su::is_single_job(inv, &jobs, &ids) {
            cx.exit = 1;
            return;
        }
    }
    let uid = inv.user.uid;
    let change = req.change;
    each_id(inv, cx, &ids, &mut |cluster, _id, sel| {
        cluster.update(sel, &change, uid)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_compared_as_bytes() {
        assert_eq!(strip_prefix_ci("jobid=12", "JobID="), Some("12"));
        assert_eq!(strip_prefix_ci("JOB=日本", "Job="), Some("日本"));
        // A multi-byte character where the prefix would end: no match, no panic.
        assert_eq!(strip_prefix_ci("日本語", "JobID="), None);
        assert_eq!(strip_prefix_ci("1_日本", "Job="), None);
        assert_eq!(strip_prefix_ci("Jo", "Job="), None);
        assert_eq!(strip_job_tags("JobID=Job=12"), "12");
    }

    #[test]
    fn job_ids_are_checked_as_slurm_checks_them() {
        for good in [
            "12",
            "12_3",
            "12_[1-3]",
            "1,2",
            "1 2",
            "[1-3]_4",
            "",
            "12_3-",
            "_3",
            "12+1",
            "+12",
            "12+1,13+1",
            "12_1+2-3",
        ] {
            assert!(is_job_id(good), "{good:?}");
        }
        for bad in [
            "日本語",
            "1_日本",
            "12.batch",
            "12+1+2",
            "12++1",
            "12+1-2",
            "1_2_3",
            "12-3",
            "12_*",
            "12_[1-3",
            "12_1]",
            "-1",
            "\u{10ffff}",
        ] {
            assert!(!is_job_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn job_id_strings_follow_next_job_id() {
        let ids = |s: &str| job_id_strings(s).unwrap();
        assert_eq!(ids("12_[1-3]"), ["12_1-3"]);
        assert_eq!(ids("12_[1-3]5"), ["12_1-3"]);
        assert_eq!(ids("12,,13"), ["12", "13"]);
        assert_eq!(ids("12_1,3"), ["12_1", "3"]);
        assert_eq!(ids("12_[1,3]"), ["12_1,3"]);
        assert_eq!(ids("[12-13]_3"), ["12_3", "13_3"]);
        assert_eq!(ids("12_[]"), ["12_"]);
        assert_eq!(ids("12+[1-2]"), ["12+1", "12+2"]);
        assert!(ids("").is_empty());
        assert_eq!(job_id_strings("[]").unwrap_err(), "Invalid job id: []");
    }

    #[test]
    fn the_controller_reads_ids_as_22_05_does() {
        let read = |s: &str| controller_id(s, 1001);
        assert_eq!(read("12"), Some((12, None)));
        assert_eq!(read("12_01"), Some((12, Some(vec![1]))));
        assert_eq!(read("12_1-3"), Some((12, Some(vec![1, 2, 3]))));
        assert_eq!(read("12_0-1000").map(|(_, t)| t.unwrap().len()), Some(1001));
        // 2^32 keeps its low 32 bits; the check is on the whole number.
        assert_eq!(read("4294967296_3"), Some((0, Some(vec![3]))));
        for refused in [
            "0",
            "0_3",
            "12_",
            "12_1001",
            "12_3-1",
            "12_3-",
            "12_2147483647",
            "12_4294967296",
            "_3",
            "12+1",
        ] {
            assert_eq!(read(refused), None, "{refused:?}");
        }
        // strtol saturates; the low 32 bits of LONG_MAX name no job.
        assert_eq!(read(&"7".repeat(300)), Some((u32::MAX, None)));
    }

    #[test]
    fn requeue_flags() {
        assert_eq!(requeue_flag("state=se"), Some(RequeueFlag::SpecialExit));
        assert_eq!(
            requeue_flag("State=SpecialExit"),
            Some(RequeueFlag::SpecialExit)
        );
        assert_eq!(requeue_flag("INC"), Some(RequeueFlag::Incomplete));
        assert_eq!(requeue_flag(""), Some(RequeueFlag::Incomplete));
        assert_eq!(requeue_flag("incompletely"), None);
        assert_eq!(requeue_flag("12"), None);
        assert_eq!(requeue_flag("state=x"), None);
    }

    // What the real Slurm 22.05.8 printed for each of these (recorded on this machine with
    // `SLURM_CONF=/etc/slurm-ref/slurm.conf scontrol ...`, no job with these ids).

    use crate::commands::testkit::{Fake, pending, run, run_with_stdin, run_words, task};

    const SUSPEND_ERROR: &str = "slurm_suspend error: Invalid job id specified\n";

    /// `scontrol <verb> <id>` prints exactly `err` and exits `rc`.
    fn check(fake: &Fake, argv: &[&[u8]], err: &[u8], rc: i32) {
        let p = run(fake, argv);
        assert_eq!(
            (String::from_utf8_lossy(&p.err), p.rc),
            (String::from_utf8_lossy(err), rc),
            "{:?}",
            argv.iter()
                .map(|a| String::from_utf8_lossy(a))
                .collect::<Vec<_>>()
        );
        assert_eq!(p.err, err);
        assert!(p.out.is_empty());
    }

    fn invalid_for(id: &[u8]) -> Vec<u8> {
        [b"Invalid job id specified for job ", id, b"\n"].concat()
    }

    #[test]
    fn hold_of_non_ascii_ids_is_refused_not_a_panic() {
        // `scontrol hold 日本語` panicked (a byte index inside '本').
        let fake = Fake::default();
        for verb in [&b"hold"[..], b"uhold", b"holdu", b"release"] {
            for id in [
                "日本語".as_bytes(),
                "1_日本".as_bytes(),
                "日本_1".as_bytes(),
                "é".as_bytes(),
                "1日".as_bytes(),
            ] {
                let want = [invalid_for(id), SUSPEND_ERROR.as_bytes().to_vec()].concat();
                check(&fake, &[b"scontrol", verb, id], &want, 1);
            }
            // The JobID= and Job= tags are taken off first.
            let want = [invalid_for("日".as_bytes()), SUSPEND_ERROR.into()].concat();
            check(&fake, &[b"scontrol", verb, "JobID=日".as_bytes()], &want, 1);
        }
    }

    #[test]
    fn hold_echoes_bytes_that_are_not_utf8() {
        let fake = Fake::default();
        for id in [&b"\xff"[..], b"1\xff", b"1_\xff", b"\xff\xfe", b"\xe6\x97"] {
            let want = [invalid_for(id), SUSPEND_ERROR.into()].concat();
            check(&fake, &[b"scontrol", b"hold", id], &want, 1);
            check(&fake, &[b"scontrol", b"requeue", id], &invalid_for(id), 1);
            check(&fake, &[b"scontrol", b"suspend", id], &invalid_for(id), 1);
        }
        let want = [invalid_for(b"1_\xff"), SUSPEND_ERROR.into()].concat();
        check(&fake, &[b"scontrol", b"hold", b"Job=1_\xff"], &want, 1);
    }

    #[test]
    fn hold_of_very_long_ids() {
        let fake = Fake::default();
        for id in [
            "9".repeat(300),
            "a".repeat(300),
            format!("1{}", "日".repeat(100)),
        ] {
            let want = [invalid_for(id.as_bytes()), SUSPEND_ERROR.into()].concat();
            check(&fake, &[b"scontrol", b"hold", id.as_bytes()], &want, 1);
        }
        // A task id too large for an array is refused by the controller as a whole id.
        let id = format!("999999_{}", "7".repeat(300));
        let want = [invalid_for(id.as_bytes()), SUSPEND_ERROR.into()].concat();
        check(&fake, &[b"scontrol", b"hold", id.as_bytes()], &want, 1);
    }

    #[test]
    fn hold_of_ids_that_name_no_job() {
        let fake = Fake::default();
        let both = |id: &str| [invalid_for(id.as_bytes()), SUSPEND_ERROR.into()].concat();
        for id in [
            "999999",
            "999999.batch",
            "999999+1",
            "0",
            "4294967296",
            "999999_",
            "0_3",
        ] {
            check(&fake, &[b"scontrol", b"hold", id.as_bytes()], &both(id), 1);
        }
        // An array id is answered per task, and leaves no errno behind.
        for (id, line) in [
            ("999999_3", "999999_3: Invalid job id specified\n"),
            ("999999_[1-3]", "999999_1-3: Invalid job id specified\n"),
            ("999999_[1-3]5", "999999_1-3: Invalid job id specified\n"),
            ("999999_01", "999999_1: Invalid job id specified\n"),
            ("999999_[1,3]", "999999_1,3: Invalid job id specified\n"),
            ("4294967296_3", "0_3: Invalid job id specified\n"),
            (
                "[999998-999999]_3",
                "999998_3: Invalid job id specified\n999999_3: Invalid job id specified\n",
            ),
        ] {
            check(
                &fake,
                &[b"scontrol", b"hold", id.as_bytes()],
                line.as_bytes(),
                1,
            );
        }
        check(
            &fake,
            &[b"scontrol", b"hold", b"999998,999999_3"],
            b"Invalid job id specified for job 999998\n999999_3: Invalid job id specified\nslurm_suspend error: No error\n",
            1,
        );
        check(
            &fake,
            &[b"scontrol", b"hold", b"999998 999999"],
            b"Invalid job id specified for job 999998\nInvalid job id specified for job 999999\nslurm_suspend error: Invalid job id specified\n",
            1,
        );
        // The whole argument when it is not a list of ids.
        check(
            &fake,
            &[b"scontrol", b"hold", "999998,日".as_bytes()],
            &both("999998,日"),
            1,
        );
        for id in [
            "999999_*",
            "999999_[1-3",
            "999999_1]",
            "999999-3",
            "999999_[1-3:2]",
        ] {
            check(&fake, &[b"scontrol", b"hold", id.as_bytes()], &both(id), 1);
        }
        check(&fake, &[b"scontrol", b"hold", b""], b"", 0);
        check(
            &fake,
            &[b"scontrol", b"hold", b"[]"],
            b"scontrol: error: Invalid job id: []\n",
            0,
        );
        check(&fake, &[b"scontrol", b"hold", b"Name=nosuchjob"], b"", 0);
        check(&fake, &[b"scontrol", b"-Q", b"hold", b"999999"], b"", 1);
        check(
            &fake,
            &[b"scontrol", b"hold"],
            b"too few arguments for keyword:hold\n",
            1,
        );
    }

    #[test]
    fn hold_and_release_act_on_jobs_that_exist() {
        let fake = Fake::with_jobs(vec![pending(12, "a"), task(14, 13, 2)]);
        check(&fake, &[b"scontrol", b"hold", b"12"], b"", 0);
        check(&fake, &[b"scontrol", b"release", b"JobID=12"], b"", 0);
        check(&fake, &[b"scontrol", b"uhold", b"13_2"], b"", 0);
        check(&fake, &[b"scontrol", b"hold", b"Name=a"], b"", 0);
        let held = fake.held.borrow();
        assert_eq!(held.len(), 4);
        assert_eq!(held[0].1, Some(HoldKind::Admin));
        assert_eq!(held[1].1, None);
        assert_eq!(held[2].0.tasks, TaskSelector::Tasks(vec![2]));
        assert_eq!(held[2].1, Some(HoldKind::User));
        assert_eq!(held[3].0.job_id, 12);
    }

    #[test]
    fn job_control_verbs_check_their_ids_as_slurm_does() {
        let fake = Fake::with_jobs(vec![pending(12, "a")]);
        for verb in ["requeue", "requeuehold", "suspend", "resume", "top"] {
            for id in ["日本語", "999999_日本", "1_日本", "é"] {
                let p = run_words(&fake, &["scontrol", verb, id]);
                assert_eq!(
                    (p.err(), p.rc),
                    (format!("Invalid job id specified for job {id}\n"), 1)
                );
            }
            // A backend whose jobs cannot change says so as slurmctld would (these
            // tests run as root; a user's suspend, resume and top are refused before).
            let p = run_words(&fake, &["scontrol", verb, "12"]);
            let want = "Requested operation not supported on this system for job 12\n";
            assert_eq!((p.err(), p.rc), (want.to_string(), 1), "{verb}");
        }
        let cases: &[(&[&str], &str)] = &[
            (
                &["requeue", "999999"],
                "Invalid job id specified for job 999999\n",
            ),
            (
                &["requeue", "999999_3"],
                "999999_3: Invalid job id specified\n",
            ),
            (
                &["requeue", "JobID=日"],
                "Invalid job id specified for job 日\n",
            ),
            (
                &["requeuehold", "JobID=日"],
                "Invalid job id specified for job JobID=日\n",
            ),
            (
                &["requeue", "state=se", "999999"],
                "Invalid job id specified for job 999999\n",
            ),
            (
                &["suspend", "999999"],
                "Unexpected message received for job 999999\n",
            ),
            (
                &["resume", "999999_[1-3]"],
                "Unexpected message received for job 999999_1-3\n",
            ),
            (
                &["suspend", "999999.batch"],
                "Invalid job id specified for job 999999.batch\n",
            ),
            (&["top", ""], "Invalid job id specified for job \n"),
            (
                &["top", "999998 999999"],
                "Invalid job id specified for job 999998 999999\n",
            ),
            (&["top", "1", "2"], "too many arguments for keyword:top\n"),
            (&["wait_job", "日本語"], "Invalid job_id 日本語"),
            (&["wait_job", "4294967296"], "Invalid job_id 4294967296"),
            (
                &["wait_job", "999999_日本"],
                "scontrol: Problem running job 999999\n",
            ),
            (
                &["wait_job", &"9".repeat(300)],
                "scontrol: Problem running job 4294967295\n",
            ),
            (
                &["notify", "日本語", "hi"],
                "Invalid job_id 日本語job notify failure: No error\n",
            ),
            (
                &["notify", "999999_3", "hi"],
                "job notify failure: Invalid job id specified\n",
            ),
            (
                &["notify", "999999"],
                "too few arguments for keyword:notify\n",
            ),
            (
                &["update", "JobId=日本語", "TimeLimit=5"],
                "Invalid job id specified for job 日本語\n",
            ),
            (
                &["update", "JobId=999999_3", "TimeLimit=5"],
                "999999_3: Invalid job id specified\n",
            ),
            (
                &["update", "JobId=JobID=日", "TimeLimit=5"],
                "Invalid job id specified for job JobID=日\n",
            ),
            (
                &["update", "JobId", "999999", "TimeLimit=5"],
                "Invalid job id specified for job 999999\n",
            ),
            (&["update", "JobId=999999"], "No changes specified\n"),
            (
                &["update", "JobId"],
                "Invalid input: JobId\nRequest aborted\n",
            ),
            (
                &["update", "JobName=nosuch", "TimeLimit=5"],
                "scontrol: error: No jobs with name 'nosuch'\n",
            ),
            (
                &["update", "TimeLimit=5"],
                "No valid entity in update command\nInput line must include \"NodeName\", \"PartitionName\", \"Reservation\", \"JobId\", or \"SlurmctldDebug\"\n",
            ),
            (&["update"], "too few arguments for update keyword\n"),
        ];
        for (words, err) in cases {
            let argv: Vec<&str> = ["scontrol"].iter().chain(words.iter()).copied().collect();
            let p = run_words(&fake, &argv);
            assert_eq!((p.err(), p.rc), (err.to_string(), 1), "{words:?}");
        }
        for words in [&["update", "JobId=", "TimeLimit=5"][..], &["requeue", ""]] {
            let argv: Vec<&str> = ["scontrol"].iter().chain(words.iter()).copied().collect();
            let p = run_words(&fake, &argv);
            assert_eq!((p.err(), p.rc), (String::new(), 0), "{words:?}");
        }
    }

    #[test]
    fn show_job_reads_ids_as_slurm_does() {
        let none = Fake::default();
        let show = |fake: &Fake, id: &[u8]| run(fake, &[b"scontrol", b"show", b"job", id]);
        for id in [
            "日本語".as_bytes(),
            b"\xff",
            b"1_\xe6",
            b"999999_[1-3]",
            b"999999.batch",
        ] {
            let p = show(&none, id);
            assert_eq!(
                (p.err(), p.rc),
                (
                    "scontrol_print_job error: Invalid job id specified\n".into(),
                    1
                )
            );
        }
        for id in ["999999", "999999+1+2", "999999_3", &"9".repeat(300)] {
            let p = show(&none, id.as_bytes());
            assert_eq!(
                (p.err(), p.rc),
                (
                    "slurm_load_jobs error: Invalid job id specified\n".into(),
                    1
                )
            );
        }
        // Job 0 (and 2^32, and no id at all) is every job.
        for id in ["", "0", "4294967296"] {
            let p = show(&none, id.as_bytes());
            assert_eq!((p.out, p.rc), (b"Job 0 not found\n".to_vec(), 1), "{id:?}");
            let some = Fake::with_jobs(vec![pending(12, "a")]);
            let p = show(&some, id.as_bytes());
            assert!(p.out.starts_with(b"JobId=12 JobName=a"), "{id:?}");
            assert_eq!(p.rc, 0);
        }
    }

    #[test]
    fn interactive_lines_that_are_not_utf8_are_commands_too() {
        // `printf 'hold 日本語\nhold \xff\n\nversion\nexit\n' | scontrol` (22.05.8).
        let stdin = ["hold 日本語\n".as_bytes(), b"hold \xff\n\nversion\nexit\n"].concat();
        let p = run_with_stdin(&Fake::default(), &[b"scontrol"], &stdin);
        assert_eq!(
            p.out,
            [
                "scontrol: hold 日本語\n".as_bytes(),
                b"scontrol: hold \xff\n",
                b"scontrol: \n",
                b"scontrol: version\nslurm-wlm 22.05.8\n",
                b"scontrol: exit\n",
            ]
            .concat()
        );
        assert_eq!(
            p.err,
            [
                "Invalid job id specified for job 日本語\n".as_bytes(),
                SUSPEND_ERROR.as_bytes(),
                b"Invalid job id specified for job \xff\n",
                SUSPEND_ERROR.as_bytes(),
            ]
            .concat()
        );
        assert_eq!(p.rc, 1);
        // The end of input without a newline, and without `exit`.
        let p = run_with_stdin(&Fake::default(), &[b"scontrol"], b"hold 999999");
        assert_eq!(p.out, b"scontrol: hold 999999\nscontrol: \n");
        assert_eq!(p.rc, 1);
    }
}
