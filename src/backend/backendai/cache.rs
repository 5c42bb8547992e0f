//! What a login node remembers about one Backend.AI endpoint and keypair, under
//! `<state dir>/backendai/<endpoint+access key digest>/`:
//! - `jobid`: the job id counter (see `jobid`);
//! - `server`: the manager's API version, so each command need not ask `GET /` again;
//! - `results/<session uuid>`: how a finished job ended, read once from its log (finished
//!   jobs never change, DESIGN.md §3.7);
//! - `meta/<session uuid>`: the job's metadata (written by sbatch, else read once);
//! - `steps/<session uuid>`: a finished job's steps, read once from its log with the result;
//! - `vfolders`: the ids of the keypair's vfolders by name, for mounts by id (API v8+);
//! - `jobs/<job id>`: the accounting records of a job (every task of an array) once all of
//!   it has ended and its results are known, so `sacct -j` of old jobs sends no request.
//!
//! Losing any of it costs requests, never jobs: everything can be asked again.

use super::client::{ApiVersion, ServerInfo};
use crate::launcher::meta::{self, JobMeta, LaunchResult};
use crate::model::JobRecord;
use crate::model::job::StepRecord;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// How long the server's version is trusted before `GET /` is asked again.
const SERVER_TTL: i64 = 600;
/// How long the vfolder ids are trusted before `GET /folders` is asked again.
const VFOLDER_TTL: i64 = 600;

#[derive(Debug, Clone)]
pub struct Cache {
    /// Where it lives, or why there is no usable place (an untrusted state directory).
    dir: Result<PathBuf, String>,
}

impl Cache {
    /// The cache under `state_dir`, or, when there is no usable state directory, none:
    /// everything is then asked of the manager, and sbatch (which needs the job id
    /// counter) says why it cannot choose an id.
    pub fn new(state_dir: Result<&Path, String>, endpoint: &str, access_key: &str) -> Cache {
        let digest = Sha256::digest(format!("{endpoint}\n{access_key}").as_bytes());
        Cache {
            dir: state_dir.map(|d| d.join("backendai").join(hex::encode(&digest[..8]))),
        }
    }

    pub fn job_id_counter(&self) -> Result<PathBuf, String> {
        self.dir
            .as_ref()
            .map(|d| d.join("jobid"))
            .map_err(Clone::clone)
    }

    /// The server's facts, when learnt less than ten minutes ago.
    pub fn server(&self, now: i64) -> Option<ServerInfo> {
        let text = std::fs::read_to_string(self.dir.as_ref().ok()?.join("server")).ok()?;
        let mut lines = text.lines();
        let at: i64 = lines.next()?.parse().ok()?;
        if !(0..SERVER_TTL).contains(&(now - at)) {
            return None;
        }
        Some(ServerInfo {
            server_version: ApiVersion::parse(lines.next()?)?,
            api_version: ApiVersion::parse(lines.next()?)?,
            manager: lines.next().unwrap_or("").to_string(),
        })
    }

    pub fn store_server(&self, info: &ServerInfo, now: i64) {
        let text = format!(
            "{now}\n{}\n{}\n{}\n",
            info.server_version, info.api_version, info.manager
        );
        if let Ok(dir) = &self.dir {
            self.write_atomically(&dir.join("server"), text.as_bytes());
        }
    }

    /// The keypair's vfolders (name, id), when learnt less than ten minutes ago.
    pub fn vfolders(&self, now: i64) -> Option<Vec<(String, String)>> {
        let text = std::fs::read_to_string(self.dir.as_ref().ok()?.join("vfolders")).ok()?;
        let mut lines = text.lines();
        let at: i64 = lines.next()?.parse().ok()?;
        if !(0..VFOLDER_TTL).contains(&(now - at)) {
            return None;
        }
        lines
            .map(|l| {
                let (id, name) = l.split_once(' ')?;
                Some((name.to_string(), id.to_string()))
            })
            .collect()
    }

    /// Remembers the vfolders; an empty list forgets them (asked again next time).
    pub fn store_vfolders(&self, folders: &[(String, String)], now: i64) {
        let Ok(dir) = &self.dir else { return };
        let path = dir.join("vfolders");
        if folders.is_empty() {
            let _ = std::fs::remove_file(path);
            return;
        }
        let mut text = format!("{now}\n");
        for (name, id) in folders {
            // ids are UUIDs; a name with a line break is not remembered
            if !name.contains('\n') && !id.contains([' ', '\n']) {
                text.push_str(&format!("{id} {name}\n"));
            }
        }
        self.write_atomically(&path, text.as_bytes());
    }

    /// The records of finished job `job_id` (all its tasks), as [`Cache::store_finished_job`]
    /// kept them.
    pub fn finished_job(&self, job_id: u32) -> Option<Vec<JobRecord>> {
        let path = self
            .dir
            .as_ref()
            .ok()?
            .join("jobs")
            .join(job_id.to_string());
        let recs: Vec<JobRecord> = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        (!recs.is_empty()).then_some(recs)
    }

    /// Keeps the records of job `job_id`; the caller has checked that every session of it
    /// has ended with its result read.
    pub fn store_finished_job(&self, job_id: u32, recs: &[JobRecord]) {
        let Ok(dir) = &self.dir else { return };
        if let Ok(bytes) = serde_json::to_vec(recs) {
            self.write_atomically(&dir.join("jobs").join(job_id.to_string()), &bytes);
        }
    }

    /// How a finished session ended: `Some(Some(r))` read from its log earlier,
    /// `Some(None)` when its log had no result, `None` when not known yet.
    pub fn result(&self, session_id: &str) -> Option<Option<LaunchResult>> {
        let text = std::fs::read_to_string(self.result_path(session_id)?).ok()?;
        let text = text.trim();
        if text == "-" {
            return Some(None);
        }
        Some(Some(LaunchResult::from_words(text)?))
    }

    pub fn store_result(&self, session_id: &str, result: Option<&LaunchResult>) {
        let Some(path) = self.result_path(session_id) else {
            return;
        };
        let text = match result {
            Some(r) => r.words(),
            None => "-".to_string(),
        };
        self.write_atomically(&path, text.as_bytes());
    }

    /// A job's metadata: `Some(None)` when it is known that none can be found.
    pub fn meta(&self, session_id: &str) -> Option<Option<JobMeta>> {
        let text = std::fs::read_to_string(self.path("meta", session_id)?).ok()?;
        let text = text.trim();
        if text == "-" {
            return Some(None);
        }
        JobMeta::decode(text).map(Some)
    }

    pub fn store_meta(&self, session_id: &str, meta: Option<&JobMeta>) {
        if let Some(path) = self.path("meta", session_id) {
            let text = meta.map_or_else(|| "-".to_string(), JobMeta::encode);
            self.write_atomically(&path, text.as_bytes());
        }
    }

    /// A finished job's steps (sacct's `N.0` rows), when its log has been read.
    pub fn steps(&self, session_id: &str) -> Option<Vec<StepRecord>> {
        let text = std::fs::read_to_string(self.path("steps", session_id)?).ok()?;
        Some(meta::parse_steps(&text))
    }

    pub fn store_steps(&self, session_id: &str, steps: &[StepRecord]) {
        if let Some(path) = self.path("steps", session_id) {
            let text: String = steps
                .iter()
                .map(|s| format!("{}\n", meta::step_line(s)))
                .collect();
            self.write_atomically(&path, text.as_bytes());
        }
    }

    fn result_path(&self, session_id: &str) -> Option<PathBuf> {
        self.path("results", session_id)
    }

    /// Session ids are UUIDs; anything else is not used as a file name.
    fn path(&self, kind: &str, session_id: &str) -> Option<PathBuf> {
        let safe = !session_id.is_empty()
            && session_id
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == '-');
        let dir = self.dir.as_ref().ok()?;
        safe.then(|| dir.join(kind).join(session_id))
    }

    /// Best effort: a cache that cannot be written only costs requests later.
    fn write_atomically(&self, path: &Path, bytes: &[u8]) {
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = dir.join(format!(
            ".{}.{}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("x"),
            std::process::id()
        ));
        let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes));
        if written.is_ok() {
            let _ = std::fs::rename(&tmp, path);
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_usable_directory_nothing_is_kept_and_sbatch_is_told_why() {
        let c = Cache::new(Err("state directory: not yours".into()), "http://x", "AK");
        let id = "0f0e0d0c-0b0a-0908-0706-050403020100";
        c.store_result(id, None);
        assert_eq!(c.result(id), None);
        assert_eq!(c.job_id_counter(), Err("state directory: not yours".into()));
    }
    use crate::launcher::meta::ResultKind;
    use crate::model::ExitStatus;

    #[test]
    fn server_facts_expire_and_results_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(Ok(dir.path()), "http://x", "AK");
        let info = ServerInfo {
            server_version: ApiVersion::parse("v7.20230615").unwrap(),
            api_version: ApiVersion::parse("v7.20230615").unwrap(),
            manager: "23.09.10".into(),
        };
        c.store_server(&info, 1000);
        assert_eq!(c.server(1100), Some(info));
        assert_eq!(c.server(1000 + SERVER_TTL), None);
        assert_eq!(c.server(900), None);

        let id = "1c130e82-070b-4e1d-9aa4-e3e4770e313f";
        assert_eq!(c.result(id), None);
        let r = LaunchResult {
            kind: ResultKind::Exited,
            exit: ExitStatus { code: 3, signal: 0 },
            end: Some(1_764_520_000),
        };
        c.store_result(id, Some(&r));
        assert_eq!(c.result(id), Some(Some(r)));
        c.store_result(id, None);
        assert_eq!(c.result(id), Some(None));
        c.store_result("../escape", Some(&r));
        assert_eq!(c.result("../escape"), None);
        assert_eq!(c.meta(id), None);
        let m = JobMeta {
            job_id: 7,
            ..Default::default()
        };
        c.store_meta(id, Some(&m));
        assert_eq!(c.meta(id), Some(Some(m)));
        c.store_meta(id, None);
        assert_eq!(c.meta(id), Some(None));
        // Another keypair has its own cache.
        assert_eq!(
            Cache::new(Ok(dir.path()), "http://x", "AK2").result(id),
            None
        );
    }
}
