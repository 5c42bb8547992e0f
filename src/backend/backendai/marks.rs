//! What the login side changes about a running Backend.AI job, which its session cannot
//! take any more: its hold (slurmctld: priority 0 while it runs on), its time limit, name,
//! comment, nice value and requeue flag (`scontrol update`). Each is a small file in the
//! job directory, `<job_dir>/<uid>.running/<job>[_<task>].held` (`user` or `admin`),
//! `.limit` (seconds, as the local backend's limit file), `.name`, `.comment` (the text),
//! `.nice` (the number), `.requeue` (`0` or `1`), written by the job's owner and readable
//! by all: the views of every login node read them (one directory per owner), the job's
//! launcher polls its limit, `scontrol requeue` reads the requeue flag. An operator's
//! changes are written as the owner ([`crate::sys::ActingAs`]), and so is an operator's
//! `scancel` of the owner's running job (`.signal`, which the job's launcher polls).

use crate::backend::HoldKind;
use crate::model::TimeLimit;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the marks of an ended job stay (its record may still be read, or requeued).
pub const KEEP_ENDED: Duration = Duration::from_secs(3600);

/// A session's name in the marks, the launcher's (`gate::result_name`): `j12_3` is `12_3`.
pub fn name_of(session: &str) -> Option<String> {
    let (job, task) = super::jobid::parse_session_name(session)?;
    Some(crate::launcher::gate::result_name(job, task))
}

fn dir(job_dir: &Path, uid: u32) -> PathBuf {
    crate::launcher::gate::running_dir(job_dir, uid)
}

/// Where a running job's launcher finds its limit changed (`name`: `gate::result_name`).
pub fn limit_path(job_dir: &Path, uid: u32, name: &str) -> PathBuf {
    crate::launcher::gate::limit_mark_path(job_dir, uid, name)
}

/// `<job_dir>/<uid>.running/<name><suffix>`.
fn mark_path(job_dir: &Path, uid: u32, name: &str, suffix: &str) -> PathBuf {
    dir(job_dir, uid).join(format!("{name}{suffix}"))
}

/// Writes the mark at `path` in the owner's directory (made readable by all: the views of
/// other users read it), or takes it back (`None`).
fn put(job_dir: &Path, uid: u32, path: &Path, text: Option<&str>) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: {e}", path.display());
    let _owner = crate::sys::ActingAs::user(uid);
    match text {
        Some(text) => {
            super::stash::own_dir(&dir(job_dir, uid), 0o755, uid)?;
            crate::sys::replace_file(path, text.as_bytes(), 0o644).map_err(fail)
        }
        None => match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e)),
            _ => Ok(()),
        },
    }
}

/// Marks the running job `name` held (`Some`) or released (`None`).
pub fn mark_held(
    job_dir: &Path,
    uid: u32,
    name: &str,
    hold: Option<HoldKind>,
) -> Result<(), String> {
    let word = hold.map(|kind| match kind {
        HoldKind::User => "user",
        HoldKind::Admin => "admin",
    });
    put(job_dir, uid, &mark_path(job_dir, uid, name, ".held"), word)
}

/// Gives the running job `name` a new time limit, or takes the change back (`None`).
pub fn mark_limit(
    job_dir: &Path,
    uid: u32,
    name: &str,
    limit: Option<TimeLimit>,
) -> Result<(), String> {
    let text = limit.map(|l| match l {
        TimeLimit::Infinite => "infinite".to_string(),
        TimeLimit::Minutes(m) => (u64::from(m) * 60).to_string(),
    });
    put(
        job_dir,
        uid,
        &limit_path(job_dir, uid, name),
        text.as_deref(),
    )
}

/// Writes the text mark `<name><suffix>` of the running job `name`.
fn set(job_dir: &Path, uid: u32, name: &str, suffix: &str, text: &str) -> Result<(), String> {
    put(
        job_dir,
        uid,
        &mark_path(job_dir, uid, name, suffix),
        Some(text),
    )
}

/// Gives the running job `name` a new name (`JobName=`).
pub fn mark_job_name(job_dir: &Path, uid: u32, name: &str, text: &str) -> Result<(), String> {
    set(job_dir, uid, name, ".name", text)
}

/// Gives the running job `name` a new comment (`Comment=`).
pub fn mark_comment(job_dir: &Path, uid: u32, name: &str, text: &str) -> Result<(), String> {
    set(job_dir, uid, name, ".comment", text)
}

/// Gives the running job `name` a new nice value (`Nice=`).
pub fn mark_nice(job_dir: &Path, uid: u32, name: &str, nice: i32) -> Result<(), String> {
    set(job_dir, uid, name, ".nice", &nice.to_string())
}

/// Leaves an operator's `scancel` request for the running job `name` of another user,
/// whose launcher cannot be reached through the tunnel (`launcher::signal_mark`).
pub fn mark_signal(
    job_dir: &Path,
    uid: u32,
    name: &str,
    request: crate::launcher::step_proto::JobSignal,
) -> Result<(), String> {
    let path = crate::launcher::signal_mark::path(job_dir, uid, name);
    let text = crate::launcher::signal_mark::SignalMark::new(request).render();
    put(job_dir, uid, &path, Some(&text))
}

/// Says who cancels the job `name` when it is not its owner (sacct's `CANCELLED by`):
/// the session's end does not tell.
pub fn mark_cancelled_by(job_dir: &Path, uid: u32, name: &str, by: u32) -> Result<(), String> {
    set(job_dir, uid, name, ".cancelled_by", &by.to_string())
}

/// Says whether the running job `name` may be requeued (`Requeue=`).
pub fn mark_requeue(job_dir: &Path, uid: u32, name: &str, requeue: bool) -> Result<(), String> {
    set(
        job_dir,
        uid,
        name,
        ".requeue",
        if requeue { "1" } else { "0" },
    )
}

/// The marks of one owner's running jobs, by job name.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Marks {
    pub held: BTreeMap<String, HoldKind>,
    pub limits: BTreeMap<String, TimeLimit>,
    pub names: BTreeMap<String, String>,
    pub comments: BTreeMap<String, String>,
    pub nice: BTreeMap<String, i32>,
    pub requeue: BTreeMap<String, bool>,
    /// Who cancelled the job, when it was not its owner (an operator).
    pub cancelled_by: BTreeMap<String, u32>,
}

/// The kinds of mark, by file suffix.
const SUFFIXES: [&str; 8] = [
    ".held",
    ".limit",
    ".name",
    ".comment",
    ".nice",
    ".requeue",
    ".signal",
    ".cancelled_by",
];

/// Reads an owner's marks (one directory read): none when the directory is missing or
/// unreadable.
pub fn read(job_dir: &Path, uid: u32) -> Marks {
    let d = dir(job_dir, uid);
    let mut marks = Marks::default();
    let Ok(entries) = std::fs::read_dir(&d) else {
        return marks;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else { continue };
        let Ok(text) = crate::sys::read_no_follow(&e.path()) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        if let Some(name) = file.strip_suffix(".held") {
            let kind = match text.trim() {
                "user" => HoldKind::User,
                "admin" => HoldKind::Admin,
                _ => continue,
            };
            marks.held.insert(name.to_string(), kind);
        } else if let Some(name) = file.strip_suffix(".limit") {
            let limit = match text.trim() {
                "infinite" => TimeLimit::Infinite,
                secs => match secs.parse::<u64>() {
                    Ok(s) => TimeLimit::Minutes(u32::try_from(s / 60).unwrap_or(u32::MAX)),
                    Err(_) => continue,
                },
            };
            marks.limits.insert(name.to_string(), limit);
        } else if let Some(name) = file.strip_suffix(".name") {
            marks.names.insert(name.to_string(), text.into_owned());
        } else if let Some(name) = file.strip_suffix(".comment") {
            marks.comments.insert(name.to_string(), text.into_owned());
        } else if let Some(name) = file.strip_suffix(".nice") {
            if let Ok(n) = text.trim().parse() {
                marks.nice.insert(name.to_string(), n);
            }
        } else if let Some(name) = file.strip_suffix(".cancelled_by") {
            if let Ok(uid) = text.trim().parse() {
                marks.cancelled_by.insert(name.to_string(), uid);
            }
        } else if let Some(name) = file.strip_suffix(".requeue") {
            match text.trim() {
                "0" => marks.requeue.insert(name.to_string(), false),
                "1" => marks.requeue.insert(name.to_string(), true),
                _ => None,
            };
        }
    }
    marks
}

/// Removes the marks of jobs `alive` says have ended, once they are `age` old.
pub fn prune(job_dir: &Path, uid: u32, age: Duration, alive: impl Fn(u32) -> bool) {
    let job_of = |file: &str| {
        let name = SUFFIXES.iter().find_map(|s| file.strip_suffix(s))?;
        name.split('_').next()?.parse::<u32>().ok()
    };
    let _owner = crate::sys::ActingAs::user(uid);
    super::stash::prune_ended(&dir(job_dir, uid), age, job_of, alive);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn marks_are_written_read_taken_back_and_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        let jd = tmp.path();
        let me = nix::unistd::getuid().as_raw();
        assert_eq!(read(jd, me), Marks::default());
        mark_held(jd, me, "7_1", Some(HoldKind::Admin)).unwrap();
        mark_held(jd, me, "9", Some(HoldKind::User)).unwrap();
        mark_limit(jd, me, "9", Some(TimeLimit::Minutes(3))).unwrap();
        mark_limit(jd, me, "8", Some(TimeLimit::Infinite)).unwrap();
        mark_job_name(jd, me, "8", "renamed job").unwrap();
        mark_comment(jd, me, "8", " busy ").unwrap();
        mark_nice(jd, me, "8", -5).unwrap();
        mark_requeue(jd, me, "8", false).unwrap();
        let marks = read(jd, me);
        assert_eq!(marks.names["8"], "renamed job");
        assert_eq!(marks.comments["8"], " busy ");
        assert_eq!((marks.nice["8"], marks.requeue["8"]), (-5, false));
        assert_eq!(
            marks.held.into_iter().collect::<Vec<_>>(),
            [
                ("7_1".into(), HoldKind::Admin),
                ("9".into(), HoldKind::User)
            ]
        );
        assert_eq!(
            marks.limits.into_iter().collect::<Vec<_>>(),
            [
                ("8".into(), TimeLimit::Infinite),
                ("9".into(), TimeLimit::Minutes(3))
            ]
        );
        // The launcher reads seconds, as the local backend's limit file holds them.
        let limit = std::fs::read_to_string(limit_path(jd, me, "9")).unwrap();
        assert_eq!(limit, "180");
        let mode = std::fs::metadata(jd.join(format!("{me}.running")))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        mark_held(jd, me, "9", None).unwrap();
        mark_held(jd, me, "9", None).unwrap();
        mark_limit(jd, me, "8", None).unwrap();
        let marks = read(jd, me);
        assert_eq!((marks.held.len(), marks.limits.len()), (1, 1));
        prune(jd, me, Duration::ZERO, |j| j != 8);
        let left = read(jd, me);
        assert!(left.names.is_empty() && left.comments.is_empty());
        assert!(left.nice.is_empty() && left.requeue.is_empty());
        // Young marks stay; old ones of jobs still alive too.
        prune(jd, me, Duration::from_secs(3600), |_| false);
        assert_eq!(read(jd, me).held.len(), 1);
        prune(jd, me, Duration::ZERO, |j| j == 7);
        assert_eq!(read(jd, me).held.len(), 1);
        prune(jd, me, Duration::ZERO, |_| false);
        assert_eq!(read(jd, me), Marks::default());
        // Another uid's directory is not read as this one's.
        assert_eq!(read(jd, me + 1), Marks::default());
    }
}
