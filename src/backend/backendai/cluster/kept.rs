//! What the views learn from the requests kept in the job directory (`stash`). A job
//! submitted on another login node, or made again there (a hold, an update, an
//! operator's change), has no metadata in this node's cache while its session waits or
//! runs (its launcher logs it only as the job ends); without it a view cannot say what
//! the job waits for (`Dependency=`, the reason) nor show what sbatch was asked. The
//! owner's kept request holds it: read once per session, then cached.

use super::BackendAiCluster;
use crate::backend::backendai::records::Session;
use crate::backend::backendai::stash::{Bodies, Stash};
use crate::backend::backendai::views::Facts;
use crate::backend::backendai::{jobid, submission, tag};
use crate::launcher::meta::{JobMeta, META_ENV};
use std::collections::BTreeMap;

impl BackendAiCluster {
    /// Fills in the metadata of the sessions the cache does not know and whose log will
    /// not tell (live ones, and those that never ran), from their owners' kept requests:
    /// the caller's own, or anybody's for root (read as the owner); other users' places
    /// are not theirs to read.
    pub(super) fn metas_from_kept_requests(&self, sessions: &[Session], facts: &mut [Facts]) {
        let Ok(Some(job_dir)) = submission::job_dir(&self.config) else {
            return;
        };
        let me = nix::unistd::getuid().as_raw();
        let mut loaded: BTreeMap<(u32, u32), Bodies> = BTreeMap::new();
        for (s, f) in sessions.iter().zip(facts.iter_mut()) {
            // An ended session's log has it, unless it never ran (cancelled waiting).
            if f.meta.is_some() || (s.job_ended() && s.has_log()) {
                continue;
            }
            let Some(uid) = tag::parse_tag(&s.tag).map(|t| t.uid) else {
                continue;
            };
            let Some((job, _)) = jobid::parse_session_name(&s.name) else {
                continue;
            };
            if uid != me && me != 0 {
                continue;
            }
            let bodies = loaded
                .entry((uid, job))
                .or_insert_with(|| Stash::new(job_dir, uid).load(job).unwrap_or_default());
            let meta = bodies
                .get(&s.name)
                .and_then(|b| b["config"]["environ"][META_ENV].as_str())
                .and_then(JobMeta::decode);
            if let Some(m) = meta {
                self.cache.store_meta(&s.id, Some(&m));
                f.meta = Some(m);
            }
        }
    }
}
