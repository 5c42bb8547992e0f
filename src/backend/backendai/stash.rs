//! The create requests of a user's jobs, kept in the site's job directory so that any
//! login node can make a job's session again: Backend.AI cannot change a pending session,
//! so a hold, a release, or a dependency's new session replaces it (`holds`).
//!
//! `<job_dir>/<uid>.requests/<id>.json` holds the bodies sbatch sent for job `<id>` (one
//! per array task, by session name), with the job's step secret (an HMAC of the job id,
//! not the key it is made with): an operator who makes another user's job again gives the
//! new session the secret the owner's commands derive. The directory is the user's alone
//! (0700, files 0600); the job containers never read it. Root reads and writes it as its
//! owner ([`crate::sys::ActingAs`]).

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The bodies of one job, by session name.
pub type Bodies = BTreeMap<String, Value>;

/// A kept request of a job with no pending session left is removed once it is this old
/// (a job's session can only be made again while it waits).
const KEEP_ENDED: Duration = Duration::from_secs(3600);
/// How often sbatch lets go of the requests of jobs that no longer wait.
const PRUNE_EVERY: Duration = Duration::from_secs(86_400);

pub struct Stash {
    dir: PathBuf,
    uid: u32,
}

/// Makes `dir` (user `uid`'s place in the shared job directory; written by that user, or
/// by root acting as them) with `mode` unless it is there, and gives it that mode when it
/// is the user's. Who owns it is not checked otherwise: Backend.AI's agents
/// hand a mounted vfolder's tree to the container's user (seen on 26.9: the job directory
/// and every place in it became uid 1000's), so a job directory in a vfolder has places
/// that belong to that user rather than to the job's owner.
pub fn own_dir(dir: &Path, mode: u32, uid: u32) -> Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let fail = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode)
        .create(dir)
        .map_err(fail)?;
    let meta = std::fs::metadata(dir).map_err(fail)?;
    let mine = meta.uid() == uid;
    if mine && meta.permissions().mode() & 0o777 != mode {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).map_err(fail)?;
    }
    Ok(())
}

impl Stash {
    pub fn new(job_dir: &str, uid: u32) -> Stash {
        Stash {
            dir: Path::new(job_dir).join(format!("{uid}.requests")),
            uid,
        }
    }

    fn path(&self, job_id: u32) -> PathBuf {
        self.dir.join(format!("{job_id}.json"))
    }

    /// Keeps `bodies` as job `job_id`'s (replacing what was kept), atomically.
    pub fn save(&self, job_id: u32, bodies: &Bodies) -> Result<(), String> {
        let _owner = crate::sys::ActingAs::user(self.uid);
        let fail = |e: std::io::Error| format!("{}: {e}", self.dir.display());
        own_dir(&self.dir, 0o700, self.uid)?;
        let tmp = self
            .dir
            .join(format!(".{job_id}.{}.tmp", std::process::id()));
        let text = serde_json::to_vec(bodies).map_err(|e| e.to_string())?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(fail)?;
        f.write_all(&text)
            .and_then(|()| f.sync_all())
            .map_err(fail)?;
        std::fs::rename(&tmp, self.path(job_id)).map_err(fail)
    }

    /// Job `job_id`'s kept bodies (none kept: an empty map).
    pub fn load(&self, job_id: u32) -> Result<Bodies, String> {
        let _owner = crate::sys::ActingAs::user(self.uid);
        match crate::sys::read_no_follow(&self.path(job_id)) {
            Ok(text) => serde_json::from_slice(&text)
                .map_err(|e| format!("{}: {e}", self.path(job_id).display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Bodies::new()),
            Err(e) => Err(format!("{}: {e}", self.path(job_id).display())),
        }
    }

    /// Replaces the body kept for one session of job `job_id`.
    pub fn put(&self, job_id: u32, name: &str, body: Value) -> Result<(), String> {
        let mut bodies = self.load(job_id)?;
        bodies.insert(name.to_string(), body);
        self.save(job_id, &bodies)
    }

    /// Whether a day has passed since the requests were last pruned (sbatch then prunes
    /// them, at the cost of one query); the first time only starts the clock.
    pub fn prune_due(&self) -> bool {
        let _owner = crate::sys::ActingAs::user(self.uid);
        let marker = self.dir.join(".pruned");
        let due = match std::fs::metadata(&marker).and_then(|m| m.modified()) {
            Ok(t) => SystemTime::now().duration_since(t).unwrap_or_default() > PRUNE_EVERY,
            Err(_) => {
                let _ = std::fs::write(&marker, b"");
                false
            }
        };
        if due {
            let _ = std::fs::write(&marker, b"");
        }
        due
    }

    /// Removes the kept requests of jobs that `alive` says have no session left that has
    /// not ended, once they are an hour old (a job just submitted may not show yet; an
    /// ended one may still be requeued).
    pub fn prune(&self, alive: impl Fn(u32) -> bool) {
        let job_of = |file: &str| file.strip_suffix(".json")?.parse::<u32>().ok();
        let _owner = crate::sys::ActingAs::user(self.uid);
        prune_ended(&self.dir, KEEP_ENDED, job_of, alive);
    }
}

/// Removes the files in `dir` of jobs (`job_of` a file's name) that `alive` says have
/// ended, once the files are `age` old.
pub fn prune_ended(
    dir: &Path,
    age: Duration,
    job_of: impl Fn(&str) -> Option<u32>,
    alive: impl Fn(u32) -> bool,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for e in entries.flatten() {
        let Some(job) = e.file_name().to_str().and_then(&job_of) else {
            continue;
        };
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > age);
        if old && !alive(job) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_are_kept_privately_and_replaced_one_by_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // A job directory's mode (root keeps uid 1001's requests as uid 1001).
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let stash = Stash::new(dir.path().to_str().unwrap(), 1001);
        assert!(stash.load(7).unwrap().is_empty());
        let bodies = Bodies::from([("j7_0".into(), json!({"a": 1})), ("j7_1".into(), json!({}))]);
        stash.save(7, &bodies).unwrap();
        assert_eq!(stash.load(7).unwrap(), bodies);
        stash.put(7, "j7_1", json!({"b": 2})).unwrap();
        assert_eq!(stash.load(7).unwrap()["j7_1"], json!({"b": 2}));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("1001.requests")), 0o700);
        assert_eq!(mode(&dir.path().join("1001.requests/7.json")), 0o600);
        // Young requests stay whatever their jobs do.
        stash.prune(|_| false);
        assert_eq!(stash.load(7).unwrap().len(), 2);
        // An hour on, what a live job has stays (it may be requeued), an ended one's goes.
        let hour_ago = SystemTime::now() - KEEP_ENDED - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(dir.path().join("1001.requests/7.json"))
            .and_then(|f| f.set_modified(hour_ago))
            .unwrap();
        stash.prune(|id| id == 7);
        assert_eq!(stash.load(7).unwrap().len(), 2);
        stash.prune(|_| false);
        assert!(stash.load(7).unwrap().is_empty());
        std::fs::write(dir.path().join("1001.requests/8.json"), b"{").unwrap();
        assert!(stash.load(8).is_err());
    }

    /// Root keeps a user's request as the user (an operator's change): the place and
    /// the file are theirs, and a link they left there leads root nowhere.
    #[test]
    fn root_keeps_a_users_request_as_the_user() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if !nix::unistd::Uid::effective().is_root() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        let stash = Stash::new(dir.path().to_str().unwrap(), 4242);
        stash
            .save(3, &Bodies::from([("j3".into(), json!({}))]))
            .unwrap();
        let place = dir.path().join("4242.requests");
        let meta = |p: &Path| std::fs::metadata(p).unwrap();
        assert_eq!(meta(&place).uid(), 4242);
        assert_eq!(meta(&place.join("3.json")).uid(), 4242);
        assert_eq!(
            meta(&place.join("3.json")).permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(stash.load(3).unwrap().len(), 1);
        // The user's link to root's own file is not followed.
        let secret = dir.path().join("root-secret");
        std::fs::write(&secret, b"{}").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&secret, place.join("4.json")).unwrap();
        assert!(stash.load(4).is_err());
    }
}
