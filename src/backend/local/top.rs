//! `scontrol top` on the local backend, an operator's: the named pending jobs go first
//! among their user's pending jobs of the same partition, account and QOS. As slurmctld
//! does it, no priority is made up: the named jobs take the highest of the priorities
//! they and the jobs ahead of them held (in the order named), the jobs they pass take the
//! rest, in their own order.

use super::db::JobRow;
use super::{BackendError, LocalCluster, SlurmErrno};
use crate::model::{JobSelector, JobSpec, JobState};

/// The new priorities (job id, priority) when `top` (in order) go first among `others`
/// (the same user's other pending jobs of their kind).
pub fn reordered(top: &[(u32, u32)], others: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let Some(lowest) = top.iter().map(|&(_, p)| p).min() else {
        return Vec::new();
    };
    // Only the jobs ahead of a named one move down.
    let mut passed: Vec<(u32, u32)> = others
        .iter()
        .copied()
        .filter(|&(_, p)| p > lowest)
        .collect();
    passed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut pool: Vec<u32> = top.iter().chain(&passed).map(|&(_, p)| p).collect();
    pool.sort_unstable_by(|a, b| b.cmp(a));
    top.iter()
        .chain(&passed)
        .zip(pool)
        .map(|(&(id, _), p)| (id, p))
        .collect()
}

/// What groups a user's jobs for `top`: partition, account and QOS.
fn kind(spec: &JobSpec) -> (Option<String>, Option<String>, Option<String>) {
    (
        spec.partition.clone(),
        spec.account.clone(),
        spec.qos.clone(),
    )
}

impl LocalCluster {
    pub(super) fn top_jobs(
        &self,
        targets: &[JobSelector],
        requester: u32,
    ) -> Result<(), BackendError> {
        use crate::backend::Cluster;
        if !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::AccessDenied));
        }
        let mut db = self.db()?;
        db.write(|tx| {
            let mut named: Vec<JobRow> = Vec::new();
            for t in targets {
                let rows = tx.jobs_of(t.job_id)?;
                for r in Self::select(&rows, t) {
                    if r.state == JobState::Pending
                        && !r.held
                        && !named.iter().any(|n| n.job_id == r.job_id)
                    {
                        named.push(r.clone());
                    }
                }
            }
            let Some(first) = named.first() else {
                return Ok(Err(SlurmErrno::JobNotPending));
            };
            let uid = first.uid;
            let first_kind = kind(&tx.submission(first.submission_id)?);
            // The named jobs of the first one's user and kind; the others are passed over.
            let mut top = Vec::new();
            for r in &named {
                if r.uid == uid && kind(&tx.submission(r.submission_id)?) == first_kind {
                    top.push((r.job_id, r.priority));
                }
            }
            let mut others = Vec::new();
            for r in tx.active_jobs()? {
                if r.state == JobState::Pending
                    && !r.held
                    && r.uid == uid
                    && !top.iter().any(|&(id, _)| id == r.job_id)
                    && kind(&tx.submission(r.submission_id)?) == first_kind
                {
                    others.push((r.job_id, r.priority));
                }
            }
            for (id, priority) in reordered(&top, &others) {
                if let Some(mut row) = tx.job(id)?
                    && row.priority != priority
                {
                    row.priority = priority;
                    tx.update_job(&row)?;
                }
            }
            Ok(Ok(()))
        })
        .map_err(super::sql)?
        .map_err(BackendError::Slurm)?;
        self.wake_runner();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::reordered;

    #[test]
    fn the_named_jobs_take_the_priorities_ahead_of_them() {
        // slurmctld 22.05: `top 176` of 175 (611) and 176 (610) swaps them.
        assert_eq!(
            reordered(&[(176, 610)], &[(175, 611)]),
            vec![(176, 611), (175, 610)]
        );
        // Jobs behind the named one keep theirs; the order named is the order given.
        assert_eq!(
            reordered(&[(4, 7), (3, 8)], &[(1, 10), (2, 9), (5, 6)]),
            vec![(4, 10), (3, 9), (1, 8), (2, 7)]
        );
        // Already first: nothing moves.
        assert_eq!(reordered(&[(1, 10)], &[(2, 9)]), vec![(1, 10)]);
        assert_eq!(reordered(&[], &[(2, 9)]), vec![]);
    }
}
