//! What operators do to the local nodes (`scontrol update NodeName=...`), as slurmctld's
//! `update_node` does it: drain, fail and down them with a reason, resume them; and which
//! nodes the scheduler may then use.

use super::db::{DbResult, JobRow, NodeMark, Tx};
use super::{BackendError, LocalCluster, SlurmErrno};
use crate::model::node_state::{DOWN, DRAIN, FAIL};
use crate::model::{NodeStateChange, NodeUpdate, RequeueRequest};

/// Flags that take a node out of service.
const OUT_OF_SERVICE: u32 = DRAIN | FAIL | DOWN;

/// Whether the scheduler may start jobs on the node (Slurm's `avail_node_bitmap`).
pub fn in_service(marks: &[NodeMark], name: &str) -> bool {
    marks
        .iter()
        .find(|m| m.name == name)
        .is_none_or(|m| m.flags & OUT_OF_SERVICE == 0)
}

/// One node's new mark, or slurmctld's refusal. `now` and `requester` stamp a new reason.
/// `busy`: the node runs jobs (slurmctld's base state ALLOCATED), which
/// `_valid_node_state_change` looks at for IDLE and ALLOC.
fn apply(
    mark: &NodeMark,
    busy: bool,
    update: &NodeUpdate,
    requester: u32,
    now: i64,
) -> Result<NodeMark, SlurmErrno> {
    let down = mark.flags & DOWN != 0;
    let mut next = mark.clone();
    let set_reason = |m: &mut NodeMark| {
        if let Some(r) = &update.reason {
            m.reason = Some(r.clone());
            m.reason_time = Some(now);
            m.reason_uid = Some(requester);
        }
    };
    let clear_reason = |m: &mut NodeMark| {
        m.reason = None;
        m.reason_time = None;
        m.reason_uid = None;
    };
    match update.state {
        None => {
            // A reason alone is kept only for a node out of service (slurmctld ignores it
            // otherwise).
            if mark.flags & OUT_OF_SERVICE != 0 {
                set_reason(&mut next);
            }
        }
        Some(NodeStateChange::Drain) => {
            next.flags |= DRAIN;
            set_reason(&mut next);
        }
        Some(NodeStateChange::Fail) => {
            next.flags |= FAIL;
            set_reason(&mut next);
        }
        Some(NodeStateChange::Down) => {
            next.flags |= DOWN;
            set_reason(&mut next);
        }
        Some(NodeStateChange::Resume) => {
            if mark.flags & OUT_OF_SERVICE == 0 {
                return Err(SlurmErrno::InvalidNodeState);
            }
            next.flags &= !OUT_OF_SERVICE;
            clear_reason(&mut next);
        }
        Some(NodeStateChange::Undrain) => {
            next.flags &= !DRAIN;
            if next.flags & OUT_OF_SERVICE == 0 {
                clear_reason(&mut next);
            }
        }
        Some(NodeStateChange::Idle) => {
            if busy && !down {
                return Err(SlurmErrno::InvalidNodeState);
            }
            next.flags &= !OUT_OF_SERVICE;
            clear_reason(&mut next);
        }
        Some(NodeStateChange::Allocated) => {
            if !busy || down {
                return Err(SlurmErrno::InvalidNodeState);
            }
        }
        Some(NodeStateChange::Invalid) => return Err(SlurmErrno::InvalidNodeState),
        Some(NodeStateChange::Unmodelled) => return Err(SlurmErrno::NotSupported),
    }
    Ok(next)
}

/// The running jobs that hold one of `nodes`.
fn running_on(tx: &Tx<'_>, cluster: &LocalCluster, nodes: &[usize]) -> DbResult<Vec<JobRow>> {
    Ok(tx
        .running_jobs()?
        .into_iter()
        .filter(|row| {
            let on = row
                .node
                .as_deref()
                .map_or_else(|| vec![0], |n| cluster.settings.node_indexes(n));
            on.iter().any(|i| nodes.contains(i))
        })
        .collect())
}

impl LocalCluster {
    /// `update_node`: every named node checked first (one unknown name changes nothing),
    /// then each changed. A node taken DOWN loses its running jobs: requeued where they
    /// may be (Slurm's JobRequeue=1), else ended NODE_FAIL.
    pub(super) fn update_node_marks(
        &self,
        update: &NodeUpdate,
        requester: u32,
    ) -> Result<(), BackendError> {
        use crate::backend::Cluster;
        if !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::UserIdMissing));
        }
        let names = self.settings.node_names();
        let wanted = crate::model::hostlist::expand(&update.names)
            .filter(|w| !w.is_empty())
            .ok_or(BackendError::Slurm(SlurmErrno::InvalidNodeName))?;
        let mut indexes = Vec::new();
        for w in &wanted {
            match names.iter().position(|n| n == w) {
                Some(i) if !indexes.contains(&i) => indexes.push(i),
                Some(_) => {}
                None => return Err(BackendError::Slurm(SlurmErrno::InvalidNodeName)),
            }
        }
        if !update.unmodelled.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::NotSupported));
        }
        let now = crate::sys::now();
        let mut db = self.db()?;
        let stop = db
            .write(|tx| {
                let marks = tx.node_marks()?;
                let mut downed = Vec::new();
                for &i in &indexes {
                    let mark = marks
                        .iter()
                        .find(|m| m.name == names[i])
                        .cloned()
                        .unwrap_or_else(|| NodeMark {
                            name: names[i].clone(),
                            ..Default::default()
                        });
                    let busy = !running_on(tx, self, &[i])?.is_empty();
                    let next = match apply(&mark, busy, update, requester, now) {
                        Ok(n) => n,
                        Err(e) => return Ok(Err(e)),
                    };
                    if next.flags & DOWN != 0 && mark.flags & DOWN == 0 {
                        downed.push(i);
                    }
                    tx.set_node_mark(&next)?;
                }
                let mut stop = Vec::new();
                for mut row in running_on(tx, self, &downed)? {
                    let spec = tx.submission(row.submission_id)?;
                    if spec.requeue != Some(false) && !spec.interactive {
                        row.requeue = Some(RequeueRequest::default());
                        tx.update_job(&row)?;
                    } else {
                        super::executor::end_by_node_failure(tx, &mut row, now)?;
                    }
                    stop.push(row);
                }
                Ok(Ok(stop))
            })
            .map_err(super::sql)?
            .map_err(BackendError::Slurm)?;
        // The launchers end what runs: a requeued job goes back to the queue then.
        for row in &stop {
            super::deliver(row, &crate::backend::SignalRequest::cancel(0), true);
        }
        self.wake_runner();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(state: Option<NodeStateChange>, reason: Option<&str>) -> NodeUpdate {
        NodeUpdate {
            names: "n1".into(),
            state,
            reason: reason.map(str::to_string),
            unmodelled: Vec::new(),
        }
    }

    fn mark(flags: u32, reason: Option<&str>) -> NodeMark {
        NodeMark {
            name: "n1".into(),
            flags,
            reason: reason.map(str::to_string),
            reason_time: reason.map(|_| 5),
            reason_uid: reason.map(|_| 0),
        }
    }

    #[test]
    fn drain_then_resume() {
        let drained = apply(
            &mark(0, None),
            false,
            &update(Some(NodeStateChange::Drain), Some("disk")),
            0,
            10,
        )
        .unwrap();
        assert_eq!(drained.flags, DRAIN);
        assert_eq!(
            (drained.reason.as_deref(), drained.reason_time),
            (Some("disk"), Some(10))
        );
        assert!(!in_service(std::slice::from_ref(&drained), "n1"));
        assert!(in_service(std::slice::from_ref(&drained), "n2"));
        let resumed = apply(
            &drained,
            false,
            &update(Some(NodeStateChange::Resume), None),
            0,
            11,
        )
        .unwrap();
        assert_eq!(resumed, mark(0, None));
    }

    #[test]
    fn resume_of_a_node_in_service_is_refused() {
        assert_eq!(
            apply(
                &mark(0, None),
                false,
                &update(Some(NodeStateChange::Resume), None),
                0,
                1
            ),
            Err(SlurmErrno::InvalidNodeState)
        );
        assert_eq!(
            apply(
                &mark(0, None),
                false,
                &update(Some(NodeStateChange::Invalid), None),
                0,
                1
            ),
            Err(SlurmErrno::InvalidNodeState)
        );
    }

    #[test]
    fn a_reason_alone_changes_only_a_node_out_of_service() {
        let idle = apply(&mark(0, None), false, &update(None, Some("x")), 0, 1).unwrap();
        assert_eq!(idle, mark(0, None));
        let drained = apply(
            &mark(DRAIN, Some("a")),
            false,
            &update(None, Some("b")),
            7,
            9,
        )
        .unwrap();
        assert_eq!(
            (
                drained.reason.as_deref(),
                drained.reason_time,
                drained.reason_uid
            ),
            (Some("b"), Some(9), Some(7))
        );
    }

    #[test]
    fn undrain_keeps_a_down_node_down() {
        let down = mark(DOWN | DRAIN, Some("x"));
        let next = apply(
            &down,
            false,
            &update(Some(NodeStateChange::Undrain), None),
            0,
            1,
        )
        .unwrap();
        assert_eq!((next.flags, next.reason.as_deref()), (DOWN, Some("x")));
        let idle = apply(
            &down,
            false,
            &update(Some(NodeStateChange::Idle), None),
            0,
            1,
        )
        .unwrap();
        assert_eq!(idle, mark(0, None));
    }

    #[test]
    fn idle_and_alloc_depend_on_what_the_node_runs() {
        let busy = apply(
            &mark(0, None),
            true,
            &update(Some(NodeStateChange::Idle), None),
            0,
            1,
        );
        assert_eq!(busy, Err(SlurmErrno::InvalidNodeState));
        let alloc = apply(
            &mark(0, None),
            true,
            &update(Some(NodeStateChange::Allocated), None),
            0,
            1,
        );
        assert_eq!(alloc, Ok(mark(0, None)));
        let idle = apply(
            &mark(0, None),
            false,
            &update(Some(NodeStateChange::Allocated), None),
            0,
            1,
        );
        assert_eq!(idle, Err(SlurmErrno::InvalidNodeState));
    }
}
