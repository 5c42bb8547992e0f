//! `scontrol suspend` / `resume` on the local backend, an operator's, as slurmctld's
//! `job_suspend` does them: a running job is stopped (SIGSTOP to its batch shell's group
//! and its steps' tasks), gives its CPUs back (other jobs may start there, as with
//! select/cons_tres), and its clock stops: run time, time limit and expected end leave
//! the suspended time out; resumed (SIGCONT), it runs on where it was.

use super::db::{DbResult, JobRow, Suspension, Tx};
use super::{BackendError, LocalCluster, SlurmErrno};
use crate::model::{JobSelector, JobState};

/// slurmctld's answer for one record, and whether its processes are to be signalled.
fn suspend_one(
    tx: &Tx<'_>,
    row: &mut JobRow,
    resume: bool,
    now: i64,
) -> DbResult<Result<bool, SlurmErrno>> {
    match (row.state, resume) {
        (JobState::Pending, _) => return Ok(Err(SlurmErrno::JobPending)),
        (s, _) if s.is_finished() => return Ok(Err(SlurmErrno::AlreadyDone)),
        // Suspending a suspended job is no error (and changes nothing).
        (JobState::Suspended, false) => return Ok(Ok(false)),
        (JobState::Running, true) => return Ok(Err(SlurmErrno::JobNotSuspended)),
        _ => {}
    }
    let mut s = tx.suspension(row.job_id)?.unwrap_or_default();
    if resume {
        s.total += (now - s.suspend_time).max(0);
        row.state = JobState::Running;
    } else {
        let ran_from = s.suspend_time.max(row.start_time.unwrap_or(now));
        s.pre_sus_time += (now - ran_from).max(0);
        row.state = JobState::Suspended;
    }
    s.suspend_time = now;
    tx.set_suspension(row.job_id, &s)?;
    tx.update_job(row)?;
    Ok(Ok(true))
}

impl LocalCluster {
    pub(super) fn suspend_jobs(
        &self,
        target: &JobSelector,
        resume: bool,
        requester: u32,
    ) -> Result<(), BackendError> {
        use crate::backend::Cluster;
        if !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::AccessDenied));
        }
        let now = crate::sys::now();
        let mut db = self.db()?;
        let (outcome, changed) = db
            .write(|tx| {
                let rows = tx.jobs_of(target.job_id)?;
                let chosen: Vec<JobRow> =
                    Self::select(&rows, target).into_iter().cloned().collect();
                if chosen.is_empty() {
                    return Ok((Err(SlurmErrno::InvalidJobId), Vec::new()));
                }
                let mut outcome = Ok(());
                let mut changed = Vec::new();
                for mut row in chosen {
                    match suspend_one(tx, &mut row, resume, now)? {
                        Ok(true) => changed.push(row),
                        Ok(false) => {}
                        Err(e) => outcome = Err(e),
                    }
                }
                Ok((outcome, changed))
            })
            .map_err(super::sql)?;
        for row in &changed {
            self.stop_or_continue(row, resume);
        }
        self.wake_runner();
        outcome.map_err(BackendError::Slurm)
    }

    /// SIGSTOP or SIGCONT to what the job runs, and its launcher's time limit moved past
    /// the suspended time (none while it is stopped).
    fn stop_or_continue(&self, row: &JobRow, resume: bool) {
        let sig = if resume { libc::SIGCONT } else { libc::SIGSTOP };
        super::signal_processes(row, sig);
        let limit = if resume {
            self.running_limit(row)
        } else {
            None
        };
        let _ = super::executor::write_limit(&self.job_dir(row.job_id), limit);
    }

    /// A running job's limit in seconds from its start, its suspended time added.
    pub(super) fn running_limit(&self, row: &JobRow) -> Option<i64> {
        let mut db = self.db().ok()?;
        let (spec, suspended) = db
            .read(|tx| {
                Ok((
                    tx.submission(row.submission_id)?,
                    tx.suspension(row.job_id)?.map_or(0, |s| s.total),
                ))
            })
            .ok()?;
        let partition = self.settings.partition_of(&spec);
        super::records::time_limit(&spec, partition)
            .seconds()
            .map(|l| l + suspended)
    }
}

/// Shows a job's suspensions in its record: SuspendTime, SecsPreSuspend, the seconds
/// suspended (sacct's Suspended, the current suspension counted up to `now`), and a
/// running job's expected end moved by the time it was stopped.
pub fn show(rec: &mut crate::model::JobRecord, s: &Suspension, now: i64) {
    let current = if rec.state == JobState::Suspended {
        (now - s.suspend_time).max(0)
    } else {
        0
    };
    rec.suspend_time = Some(s.suspend_time);
    rec.pre_sus_time = s.pre_sus_time;
    rec.suspended_secs = s.total + current;
    if rec.state == JobState::Running
        && let Some(end) = rec.end_time.as_mut()
    {
        *end += s.total;
    }
}
