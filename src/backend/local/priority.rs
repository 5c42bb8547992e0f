//! The priorities the local backend's controller gives pending jobs, as the site's Slurm
//! did (its `PriorityType`, the profile's default unless `[local] priority_type` says):
//!
//! - `priority/basic`: each new job one below the lowest given so far, starting under
//!   0xFFFF0000, less its nice value; a nice change moves it by the difference.
//! - `priority/multifactor` with its default weights, all 0 (24.11's default): the sum of
//!   the weighted factors is 0, so a job's priority is its negated nice, at least 1
//!   (`_get_priority_internal`): every job 1 unless an operator gave it a negative nice.
//!
//! Both keep 0 for held jobs and leave a priority an operator set (`--priority`,
//! `Priority=N`) alone.

use super::LocalCluster;
use super::db::{DbError, DbResult, Tx};
use crate::model::JobState;
use crate::model::profile::PriorityType;
use std::time::Duration;

/// priority/multifactor's PriorityCalcPeriod (its default): how often its decay thread
/// computes the pending jobs' priorities again.
pub const CALC_PERIOD: Duration = Duration::from_secs(300);

/// priority/basic's ceiling: each job gets the next lower value below 0xFFFF0000.
const BASE_PRIORITY: u32 = 0xFFFF_0000;

/// priority/basic's priority of job `id` as the first job of a state directory, lowered
/// by its nice value; later ones take one less each ([`super::db::Tx::take_priority`]).
pub fn basic_first(id: u32, nice: i32) -> u32 {
    with_nice(BASE_PRIORITY.saturating_sub(id), nice)
}

/// A base priority lowered by a nice value.
fn with_nice(base: u32, nice: i32) -> u32 {
    let p = i64::from(base) - i64::from(nice);
    p.clamp(1, i64::from(u32::MAX)) as u32
}

/// priority/multifactor's priority with every weight 0: `0 - nice`, at least 1 (0 is
/// kept for held jobs).
fn multifactor(nice: i32) -> u32 {
    with_nice(0, nice)
}

/// Whether the plugin numbers jobs in submission order, so a new or released job takes
/// the next value of the state directory's sequence.
fn takes_sequence(plugin: PriorityType) -> bool {
    plugin == PriorityType::Basic
}

/// The base a job's priority starts from when it gets one (submitted, released):
/// priority/basic's next value of the state directory's sequence (`first` when none was
/// given yet), nothing (0) under a plugin that does not number jobs.
pub fn next_base(tx: &Tx<'_>, plugin: PriorityType, first: u32) -> DbResult<u32> {
    match takes_sequence(plugin) {
        true => tx.take_priority(first),
        false => Ok(0),
    }
}

/// The priority a job gets when it becomes eligible for one (submitted, released),
/// `base` being the sequence's next value under priority/basic (unused otherwise).
pub fn given(plugin: PriorityType, base: u32, nice: i32) -> u32 {
    match plugin {
        PriorityType::Basic => with_nice(base, nice),
        PriorityType::Multifactor => multifactor(nice),
    }
}

/// A pending job's priority after its nice value changed from `old` to `new` (not for
/// priorities an operator set).
///
/// priority/basic moves it by the difference, not below 2, a held job's too
/// (`_update_job`). Under any other plugin `_update_job` ends by computing the priority of
/// a job that is not held again (`set_job_prio`): multifactor's from the new nice; a held
/// job keeps 0.
pub fn after_nice_change(plugin: PriorityType, current: u32, old: i32, new: i32) -> u32 {
    match plugin {
        PriorityType::Basic => {
            let p = i64::from(current) + i64::from(old) - i64::from(new);
            p.clamp(2, i64::from(u32::MAX)) as u32
        }
        PriorityType::Multifactor if current == 0 => 0,
        PriorityType::Multifactor => multifactor(new),
    }
}

impl LocalCluster {
    /// priority/multifactor's decay pass (`decay_apply_weighted_factors`), which the queue
    /// runner makes every [`CALC_PERIOD`]: each pending job that is not held (priority 0)
    /// and whose priority no operator set gets the priority its nice gives (with zero
    /// weights that undoes what `scontrol top` moved; updates compute it at once). Nothing
    /// under priority/basic.
    pub fn decay_pass(&self) -> DbResult<()> {
        if self.settings.priority_type() != PriorityType::Multifactor {
            return Ok(());
        }
        let mut db = self.db().map_err(|e| DbError::Corrupt(e.to_string()))?;
        db.write(|tx| {
            for mut row in tx.active_jobs()? {
                if row.state != JobState::Pending || row.priority == 0 {
                    continue;
                }
                let spec = tx.submission(row.submission_id)?;
                if spec.priority.is_some() {
                    continue;
                }
                let due = multifactor(spec.nice.unwrap_or(0));
                if row.priority != due {
                    row.priority = due;
                    tx.update_job(&row)?;
                }
            }
            Ok(())
        })
    }
}

/// What `scontrol show config` prints of the plugin, as Slurm does (multifactor with its
/// default parameters).
pub fn config_entries(plugin: PriorityType) -> Vec<(String, String)> {
    let mut v = vec![("PriorityType", plugin.name())];
    if plugin == PriorityType::Multifactor {
        v.extend([
            ("PriorityDecayHalfLife", "7-00:00:00"),
            ("PriorityCalcPeriod", "00:05:00"),
            ("PriorityFavorSmall", "no"),
            ("PriorityFlags", ""),
            ("PriorityMaxAge", "7-00:00:00"),
            ("PriorityUsageResetPeriod", "NONE"),
            ("PriorityWeightAge", "0"),
            ("PriorityWeightAssoc", "0"),
            ("PriorityWeightFairShare", "0"),
            ("PriorityWeightJobSize", "0"),
            ("PriorityWeightPartition", "0"),
            ("PriorityWeightQOS", "0"),
            ("PriorityWeightTRES", "(null)"),
        ]);
    }
    v.into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_numbers_jobs_and_moves_by_nice() {
        assert_eq!(basic_first(1, 0), 0xFFFF_0000 - 1);
        assert_eq!(given(PriorityType::Basic, 1000, 10), 990);
        assert_eq!(given(PriorityType::Basic, 1000, -10), 1010);
        assert_eq!(after_nice_change(PriorityType::Basic, 1000, 0, 100), 900);
        assert_eq!(after_nice_change(PriorityType::Basic, 50, 0, 100), 2);
        assert!(takes_sequence(PriorityType::Basic));
    }

    #[test]
    fn multifactor_without_weights_is_one_unless_nice_is_negative() {
        assert_eq!(given(PriorityType::Multifactor, 1000, 0), 1);
        assert_eq!(given(PriorityType::Multifactor, 1000, 100), 1);
        assert_eq!(given(PriorityType::Multifactor, 1000, -100), 100);
        assert_eq!(after_nice_change(PriorityType::Multifactor, 1, 0, -5), 5);
        assert_eq!(after_nice_change(PriorityType::Multifactor, 5, -5, 0), 1);
        // A held job keeps 0.
        assert_eq!(after_nice_change(PriorityType::Multifactor, 0, 0, -5), 0);
        assert!(!takes_sequence(PriorityType::Multifactor));
    }

    #[test]
    fn the_decay_pass_gives_waiting_jobs_the_priority_their_nice_gives() {
        let dir = tempfile::tempdir().unwrap();
        let mut loaded = crate::config::Loaded::default();
        loaded.config.local.priority_type = Some(PriorityType::Multifactor);
        let cluster =
            LocalCluster::with_settings(dir.path().join("state"), LocalCluster::settings(&loaded))
                .unwrap();
        let user = crate::sys::UserInfo {
            uid: 1001,
            name: "alice".into(),
            gid: 1001,
            group: "alice".into(),
            home: "/tmp".into(),
            shell: "/bin/sh".into(),
        };
        // A job whose nice was changed since it was given its priority, a held one, one
        // whose priority an operator set, and one with nothing to change.
        let specs = [
            (Some(-100), None, false),
            (Some(-100), None, true),
            (Some(-100), Some(7), false),
            (None, None, false),
        ];
        let mut db = cluster.db().unwrap();
        let ids: Vec<u32> = db
            .write(|tx| {
                let mut ids = Vec::new();
                for (nice, priority, hold) in specs {
                    let id = tx.next_job_id()?;
                    let spec = crate::model::JobSpec {
                        nice,
                        priority,
                        hold,
                        ..Default::default()
                    };
                    tx.insert_submission(id, &spec)?;
                    let mut row = cluster.new_row(id, &spec, &user, 0, 0);
                    if nice.is_some() && priority.is_none() && !hold {
                        row.priority = 1;
                    }
                    tx.insert_job(&row)?;
                    ids.push(id);
                }
                Ok(ids)
            })
            .unwrap();
        let priorities = |db: &mut super::super::db::Db| -> Vec<u32> {
            db.write(|tx| {
                ids.iter()
                    .map(|id| Ok(tx.job(*id)?.unwrap().priority))
                    .collect()
            })
            .unwrap()
        };
        assert_eq!(priorities(&mut db), [1, 0, 7, 1]);
        cluster.decay_pass().unwrap();
        assert_eq!(priorities(&mut db), [100, 0, 7, 1]);
    }

    #[test]
    fn show_config_lists_multifactor_s_parameters() {
        let basic = config_entries(PriorityType::Basic);
        assert_eq!(basic, [("PriorityType".into(), "priority/basic".into())]);
        let multi = config_entries(PriorityType::Multifactor);
        assert!(multi.contains(&("PriorityWeightAge".into(), "0".into())));
        assert!(multi.contains(&("PriorityType".into(), "priority/multifactor".into())));
    }
}
