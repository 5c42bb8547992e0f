//! `scontrol write batch_script` on Backend.AI: the script travels in the session's
//! environ, which the manager does not give back, so it is read from the request sbatch
//! kept in the job directory (`stash`, the owner's own place). Without a job directory,
//! or for a job submitted before one was set, the script is not there to give.

use super::BackendAiCluster;
use crate::backend::Cluster;
use crate::backend::backendai::stash::Stash;
use crate::backend::backendai::submission;
use crate::backend::{BackendError, SlurmErrno};
use crate::launcher::meta::{SCRIPT_ENV, decode_script};

impl BackendAiCluster {
    /// The script of a job the controller view still holds (unfinished, or ended less than
    /// MinJobAge ago), for its owner or an operator; an array's tasks share it.
    pub(super) fn batch_script_of(
        &self,
        job_id: u32,
        requester: u32,
    ) -> Result<Vec<u8>, BackendError> {
        let jobs = self.jobs_with_ids(&[job_id])?;
        let Some(job) = jobs
            .iter()
            .find(|j| j.job_id == job_id)
            .or_else(|| jobs.first())
        else {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        };
        if job.uid != requester && !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::UserIdMissing));
        }
        let missing = BackendError::Slurm(SlurmErrno::JobScriptMissing);
        if !job.batch {
            return Err(missing);
        }
        let Ok(Some(job_dir)) = submission::job_dir(&self.config) else {
            return Err(missing);
        };
        let bodies = Stash::new(job_dir, job.uid)
            .load(job_id)
            .map_err(BackendError::Other)?;
        bodies
            .values()
            .find_map(|body| body["config"]["environ"][SCRIPT_ENV].as_str())
            .and_then(decode_script)
            .ok_or(missing)
    }
}
