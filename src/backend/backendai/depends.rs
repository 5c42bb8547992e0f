//! What a Backend.AI job waits for: the sessions Backend.AI must see end first (a
//! session's `dependencies`, Backend.AI's only kind: "ended with success"), and, on a site
//! with a job directory, the gate its launcher checks before it runs the script
//! (`launcher::gate`, where the design is told).
//!
//! Without a job directory only `afterok` is possible (`submit::check`): every launcher
//! reports its job's true end to Backend.AI, so its dependents start only after a success.
//! With one, every launcher reports success, the dependencies mean "ended", and the gate
//! judges `afterok`, `afternotok`, `afterany`, `aftercorr`, `?`; `singleton` waits for the
//! user's live jobs of the same name.
//!
//! `after` (a start, not an end) is something no session can wait for natively. It is
//! taken when every job it names has started or ended already, as slurmctld finds it
//! fulfilled at its first test (a `+minutes` delay becomes the job's deferred start).
//! While one of them still waits, on a site with a job directory, the job's session is
//! made waiting as a held one does (a far `startsAt`, the tag's `:w`), shown pending for
//! its Dependency, and the owner's views make it again once those jobs have started
//! (`remake::start_after_the_starts`); without a job directory it is refused.

use super::client::{Client, ClientError};
use super::jobid;
use super::records::{self, Session};
use super::tag;
use super::views;
use crate::backend::{BackendError, SlurmErrno, SubmitError};
use crate::launcher::gate::{Gate, GateItem, result_name};
use crate::model::{DepItem, DepKind, DepStatus, DepTarget, Dependency, JobSpec, JobState};

/// A session one item names.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    uuid: String,
    job: u32,
    task: Option<u32>,
    /// It has ended already: Backend.AI need not wait for it (and would wait for ever for
    /// one that ended without success); the gate reads its result.
    ended: bool,
}

/// The dependency of one job, resolved to sessions at submission.
#[derive(Debug, Default)]
pub struct Deps {
    gated: bool,
    any: bool,
    items: Vec<(DepKind, Vec<Found>)>,
    /// `singleton`: the user's live sessions of jobs with the same name.
    blockers: Vec<String>,
    /// The `after` items as found at submission.
    after: StartsSeen,
}

/// Whether a job waits for a job it names with `after` to start: the job's session is
/// then made waiting as a held one is, until a view finds those jobs started. Not when
/// one `after` alternative of a `?` is fulfilled already.
pub fn awaits_a_start(spec: &JobSpec) -> bool {
    let Some(dep) = &spec.dependency else {
        return false;
    };
    let mut after = dep.items.iter().filter(|i| i.kind == DepKind::After);
    let waiting = after.clone().any(|i| i.status == DepStatus::Unfulfilled);
    waiting && !(dep.any && after.any(|i| i.status == DepStatus::Fulfilled))
}

impl Deps {
    /// The sessions job `spec` waits for. `gated`: the site has a job directory.
    pub fn resolve(
        client: &Client,
        spec: &JobSpec,
        uid: u32,
        gated: bool,
    ) -> Result<Deps, SubmitError> {
        let Some(dep) = &spec.dependency else {
            return Ok(Deps::default());
        };
        let failure = |e: ClientError| super::submission::failure(e);
        let targets: Vec<(DepKind, DepTarget)> = dep
            .items
            .iter()
            .filter(|i| gated || matches!(i.kind, DepKind::AfterOk | DepKind::After))
            .filter_map(|i| Some((i.kind, i.target?)))
            .collect();
        let ids: Vec<u32> = targets.iter().map(|(_, t)| t.job_id()).collect();
        let found = if ids.is_empty() {
            Vec::new()
        } else {
            views::sessions(client, views::names_of_jobs(&ids).as_deref()).map_err(failure)?
        };
        let mut items = Vec::new();
        let known: Vec<&Session> = found.iter().collect();
        let after = starts_seen(dep, &known, crate::sys::now());
        if let Some(target) = after.first_waiting(dep).and_then(|i| i.target)
            && !gated
        {
            let id = target.job_id();
            return Err(SubmitError::from(BackendError::Other(format!(
                "--dependency=after:{id}: job {id} has not started yet, and waiting for a start (not an end) on Backend.AI needs [backendai] job_dir (the job's session is made again once job {id} starts)"
            ))));
        }
        for (kind, target) in targets.into_iter().filter(|(k, _)| *k != DepKind::After) {
            let matching: Vec<Found> = found
                .iter()
                .filter_map(|s| {
                    let (job, task) = jobid::parse_session_name(&s.name)?;
                    jobid::names_target(job, task, target).then(|| Found {
                        uuid: s.id.clone(),
                        job,
                        task,
                        ended: gated && s.is_finished(),
                    })
                })
                .collect();
            // Slurm refuses afterok/afternotok/aftercorr on a job it does not know, and
            // takes afterany's as satisfied.
            if matching.is_empty() && kind != DepKind::AfterAny {
                return Err(SubmitError::errno(SlurmErrno::Dependency));
            }
            items.push((kind, matching));
        }
        let blockers = if gated && dep.items.iter().any(|i| i.kind == DepKind::Singleton) {
            let live = views::sessions(client, Some(&views::alive())).map_err(failure)?;
            same_name_sessions(&live, uid, &spec.name)
        } else {
            Vec::new()
        };
        Ok(Deps {
            gated,
            any: dep.any,
            items,
            blockers,
            after,
        })
    }

    /// Marks the job's `after` items found fulfilled, as slurmctld does at their first
    /// test, and, once nothing more is awaited, makes the rest of their delays a deferred
    /// start (Backend.AI's `startsAt`).
    pub fn settle_after(&self, spec: &mut JobSpec) {
        self.after.settle(spec);
    }

    /// The session UUIDs the job's session (array task `task`'s) names in `dependencies`,
    /// and the gate its launcher checks.
    pub fn for_task(&self, task: Option<u32>) -> (Vec<String>, Option<Gate>) {
        // `?` with an `after` fulfilled: nothing more to wait for.
        if self.any && self.after.ready() {
            return (self.blockers.clone(), None);
        }
        let mut uuids = self.blockers.clone();
        let mut gate = Vec::new();
        for (kind, found) in &self.items {
            // aftercorr: task N waits for task N of the other array when it has one.
            let corr: Vec<&Found> = found
                .iter()
                .filter(|f| *kind == DepKind::AfterCorr && task.is_some() && f.task == task)
                .collect();
            let chosen: Vec<&Found> = if corr.is_empty() {
                found.iter().collect()
            } else {
                corr
            };
            if chosen.is_empty() {
                // afterany of a job nobody knows: satisfied at once.
                if self.any {
                    return (self.blockers.clone(), None);
                }
                continue;
            }
            uuids.extend(chosen.iter().filter(|f| !f.ended).map(|f| f.uuid.clone()));
            gate.push(GateItem {
                kind: *kind,
                jobs: chosen.iter().map(|f| result_name(f.job, f.task)).collect(),
            });
        }
        uuids.sort();
        uuids.dedup();
        let gate = (self.gated && !gate.is_empty()).then_some(Gate {
            any: self.any,
            items: gate,
        });
        (uuids, gate)
    }
}

/// How a job's `after` items stand, given the sessions of the jobs they name: judged at
/// submission, and again by the views for a job awaiting a start.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StartsSeen {
    /// Each `after` item, in order: fulfilled now.
    fulfilled: Vec<bool>,
    /// Once it may start, the end of the `+minutes` delays still to come: its deferred
    /// start (the latest of them, or under `?` the first).
    until: Option<i64>,
    /// A `?`: one fulfilled item satisfies it, and it then waits for nothing more.
    pub any: bool,
}

impl StartsSeen {
    /// Whether the job may start as far as its `after` items go: every one fulfilled, or
    /// under `?` one.
    pub fn ready(&self) -> bool {
        match self.any {
            true => self.fulfilled.contains(&true),
            false => !self.fulfilled.contains(&false),
        }
    }

    /// The first `after` item of `dep` (the dependency judged) not fulfilled yet.
    fn first_waiting<'d>(&self, dep: &'d Dependency) -> Option<&'d DepItem> {
        let after = dep.items.iter().filter(|i| i.kind == DepKind::After);
        after
            .zip(&self.fulfilled)
            .find(|(_, done)| !**done)
            .map(|(i, _)| i)
    }

    /// The job as these items leave it: the fulfilled ones marked so and, once it may
    /// start, the delay its deferred start.
    fn settle(&self, spec: &mut JobSpec) {
        if let Some(d) = spec.dependency.as_mut() {
            let after = d.items.iter_mut().filter(|i| i.kind == DepKind::After);
            for (item, done) in after.zip(&self.fulfilled) {
                if *done {
                    item.status = DepStatus::Fulfilled;
                }
            }
        }
        if let Some(t) = self.until {
            spec.begin = Some(spec.begin.map_or(t, |b| b.max(t)));
        }
    }

    /// The job's metadata as it is made again: [`Self::settle`], and a satisfied `?`
    /// with nothing left for its launcher to judge.
    pub fn apply(&self, meta: &mut crate::launcher::meta::JobMeta) {
        self.settle(&mut meta.spec);
        if self.any && self.ready() {
            meta.gate = None;
        }
    }
}

/// How the `after` items of dependency `dep` stand, given the sessions `known` (those of
/// the jobs they name among them).
pub fn starts_seen(dep: &Dependency, known: &[&Session], now: i64) -> StartsSeen {
    let outcome: Vec<Result<Option<i64>, ()>> = dep
        .items
        .iter()
        .filter(|i| i.kind == DepKind::After)
        .map(|i| {
            let named: Vec<&Session> = known
                .iter()
                .copied()
                .filter(|s| {
                    i.target.is_some_and(|t| {
                        jobid::parse_session_name(&s.name)
                            .is_some_and(|(job, task)| jobid::names_target(job, task, t))
                    })
                })
                .collect();
            after_fulfilled_at(&named, i.delay_minutes, now)
        })
        .collect();
    let mut seen = StartsSeen {
        fulfilled: outcome.iter().map(Result::is_ok).collect(),
        until: None,
        any: dep.any,
    };
    if seen.ready() {
        let delays = outcome.iter().filter_map(|o| o.ok());
        let until = match dep.any {
            true => delays.min().flatten(),
            false => delays.max().flatten(),
        };
        seen.until = until.filter(|t| *t > now);
    }
    seen
}

/// When an `after` item (its `+minutes` delay included) is fulfilled, given the sessions
/// of the jobs it names; `Err` while one of them has not started. A job nobody knows
/// fulfils it at once (slurmctld takes `after` of an unknown id).
pub(super) fn after_fulfilled_at(
    named: &[&Session],
    delay_minutes: u32,
    now: i64,
) -> Result<Option<i64>, ()> {
    let mut latest: Option<i64> = None;
    for s in named {
        if records::state_of(s, None).0 == JobState::Pending {
            return Err(());
        }
        // Slurm counts the delay from the start, or from the cancel of a job that never ran.
        let start = s
            .entered("SCHEDULED")
            .or_else(|| s.entered("PREPARING"))
            .or_else(|| s.entered("RUNNING"))
            .or(s.terminated_at)
            .unwrap_or(now);
        latest = latest.max(Some(start));
    }
    Ok(latest.map(|t| t + i64::from(delay_minutes) * 60))
}

/// `singleton`: the live sessions of `uid`'s jobs named `name` (their tags say both; a
/// name the tag had to cut is matched on what it kept).
fn same_name_sessions(live: &[Session], uid: u32, name: &str) -> Vec<String> {
    live.iter()
        .filter(|s| jobid::parse_session_name(&s.name).is_some())
        .filter(|s| {
            tag::parse_tag(&s.tag).is_some_and(|t| {
                t.uid == uid
                    && (t.name == name
                        || (s.tag.len() == tag::MAX_LEN && name.starts_with(&t.name)))
            })
        })
        .map(|s| s.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(uuid: &str, job: u32, task: Option<u32>, ended: bool) -> Found {
        Found {
            uuid: uuid.into(),
            job,
            task,
            ended,
        }
    }

    #[test]
    fn aftercorr_waits_for_the_same_task_and_ended_sessions_are_not_waited_for() {
        let deps = Deps {
            gated: true,
            any: false,
            items: vec![
                (
                    DepKind::AfterCorr,
                    vec![
                        found("a0", 5, Some(0), false),
                        found("a1", 5, Some(1), false),
                    ],
                ),
                (DepKind::AfterOk, vec![found("b", 6, None, true)]),
            ],
            blockers: vec!["s".into()],
            after: StartsSeen::default(),
        };
        let (uuids, gate) = deps.for_task(Some(1));
        assert_eq!(uuids, ["a1", "s"]);
        let gate = gate.unwrap();
        assert_eq!(gate.items[0].jobs, ["5_1"]);
        assert_eq!(gate.items[1].jobs, ["6"]);
        // A task the other array lacks waits for all of it.
        let (uuids, gate) = deps.for_task(Some(7));
        assert_eq!(uuids, ["a0", "a1", "s"]);
        assert_eq!(gate.unwrap().items[0].jobs, ["5_0", "5_1"]);
    }

    #[test]
    fn without_a_job_directory_there_is_no_gate() {
        let deps = Deps {
            gated: false,
            any: false,
            items: vec![(DepKind::AfterOk, vec![found("a", 5, None, false)])],
            blockers: Vec::new(),
            after: StartsSeen::default(),
        };
        assert_eq!(deps.for_task(None), (vec!["a".to_string()], None));
    }

    #[test]
    fn after_is_fulfilled_by_jobs_that_started_and_refused_while_one_waits() {
        let session = |status: &str, history: &[(&str, i64)]| Session {
            id: "u".into(),
            name: "j5".into(),
            status: status.into(),
            status_history: history.iter().map(|(s, t)| (s.to_string(), *t)).collect(),
            ..Default::default()
        };
        let now = 10_000;
        let running = session("RUNNING", &[("SCHEDULED", 9_000), ("RUNNING", 9_010)]);
        let starting = session("PREPARING", &[("SCHEDULED", 9_900)]);
        let waiting = session("PENDING", &[]);
        // From the start (the allocation), the latest of the jobs named, plus the delay.
        assert_eq!(after_fulfilled_at(&[&running], 0, now), Ok(Some(9_000)));
        assert_eq!(
            after_fulfilled_at(&[&running, &starting], 2, now),
            Ok(Some(9_900 + 120))
        );
        assert_eq!(after_fulfilled_at(&[&running, &waiting], 0, now), Err(()));
        // Cancelled before it ran: fulfilled, the delay counted from its end.
        let mut cancelled = session("CANCELLED", &[]);
        cancelled.terminated_at = Some(9_500);
        assert_eq!(after_fulfilled_at(&[&cancelled], 1, now), Ok(Some(9_560)));
        // Nobody knows the job: fulfilled.
        assert_eq!(after_fulfilled_at(&[], 5, now), Ok(None));
        // Marked fulfilled in the job, the rest of the delay a deferred start.
        let deps = Deps {
            after: StartsSeen {
                fulfilled: vec![true],
                until: Some(now + 60),
                any: false,
            },
            ..Default::default()
        };
        let mut spec = JobSpec {
            dependency: Some(crate::model::Dependency {
                items: vec![crate::model::DepItem {
                    kind: DepKind::After,
                    target: Some(DepTarget::Job(5)),
                    delay_minutes: 2,
                    status: DepStatus::Unfulfilled,
                }],
                any: false,
            }),
            ..Default::default()
        };
        deps.settle_after(&mut spec);
        let dep = spec.dependency.unwrap();
        assert_eq!(dep.items[0].status, DepStatus::Fulfilled);
        assert_eq!(spec.begin, Some(now + 60));
        assert_eq!(deps.for_task(None), (Vec::new(), None));
    }

    #[test]
    fn a_job_awaits_a_start_until_its_after_items_are_fulfilled() {
        // `after:5:6` (`any`: `after:5?after:6`), or one item of `kind`.
        let spec_of = |kind: DepKind, any: bool| JobSpec {
            dependency: Some(crate::model::Dependency {
                items: [5, 6]
                    .into_iter()
                    .take(if kind == DepKind::After { 2 } else { 1 })
                    .map(|id| crate::model::DepItem {
                        kind,
                        target: Some(DepTarget::Job(id)),
                        delay_minutes: 0,
                        status: DepStatus::Unfulfilled,
                    })
                    .collect(),
                any,
            }),
            ..Default::default()
        };
        let now = 10_000;
        // One of two `after` items fulfilled at submission: still awaiting the other,
        // with no deferred start yet.
        let mut spec = spec_of(DepKind::After, false);
        let deps = Deps {
            gated: true,
            after: StartsSeen {
                fulfilled: vec![true, false],
                until: None,
                any: false,
            },
            ..Default::default()
        };
        deps.settle_after(&mut spec);
        let dep = spec.dependency.as_ref().unwrap();
        assert_eq!(
            (dep.items[0].status, dep.items[1].status),
            (DepStatus::Fulfilled, DepStatus::Unfulfilled)
        );
        assert!(awaits_a_start(&spec));
        assert_eq!(spec.begin, None);
        // Under `?`, one fulfilled is enough: its delay is the start.
        let mut spec = spec_of(DepKind::After, true);
        let deps = Deps {
            gated: true,
            any: true,
            after: StartsSeen {
                fulfilled: vec![false, true],
                until: Some(now + 60),
                any: true,
            },
            ..Default::default()
        };
        deps.settle_after(&mut spec);
        assert!(!awaits_a_start(&spec));
        assert_eq!(spec.begin, Some(now + 60));
        assert_eq!(deps.for_task(None), (Vec::new(), None));
        // No `after`: nothing awaited.
        assert!(!awaits_a_start(&spec_of(DepKind::AfterOk, false)));
        assert!(!awaits_a_start(&JobSpec::default()));
    }

    #[test]
    fn a_job_awaiting_starts_may_start_once_they_are_seen() {
        let session = |name: &str, status: &str, history: &[(&str, i64)]| Session {
            id: name.into(),
            name: name.into(),
            status: status.into(),
            status_history: history.iter().map(|(s, t)| (s.to_string(), *t)).collect(),
            ..Default::default()
        };
        let now = 10_000;
        let item = |id: u32, delay_minutes: u32| crate::model::DepItem {
            kind: DepKind::After,
            target: Some(DepTarget::Job(id)),
            delay_minutes,
            status: DepStatus::Unfulfilled,
        };
        let dep = |any: bool| crate::model::Dependency {
            items: vec![item(5, 0), item(6, 1)],
            any,
        };
        let started = session("j5", "RUNNING", &[("SCHEDULED", 9_990)]);
        let waiting = session("j6", "PENDING", &[]);
        // All must have started; under `?` one.
        let seen = starts_seen(&dep(false), &[&started, &waiting], now);
        assert!(!seen.ready());
        assert_eq!(
            seen.first_waiting(&dep(false)).and_then(|i| i.target),
            Some(DepTarget::Job(6))
        );
        let seen = starts_seen(&dep(true), &[&started, &waiting], now);
        assert!(seen.ready());
        assert_eq!(
            (seen.fulfilled.clone(), seen.until, seen.any),
            (vec![true, false], None, true)
        );
        let mut meta = crate::launcher::meta::JobMeta::default();
        meta.spec.dependency = Some(dep(true));
        seen.apply(&mut meta);
        let items = &meta.spec.dependency.as_ref().unwrap().items;
        assert_eq!(
            (items[0].status, items[1].status),
            (DepStatus::Fulfilled, DepStatus::Unfulfilled)
        );
        assert!(!awaits_a_start(&meta.spec));
        // Both started: the later delay still to come is the deferred start.
        let also = session("j6", "PREPARING", &[("SCHEDULED", 9_950)]);
        let seen = starts_seen(&dep(false), &[&started, &also], now);
        assert_eq!(seen.until, Some(9_950 + 60));
        let mut meta = crate::launcher::meta::JobMeta::default();
        meta.spec.dependency = Some(dep(false));
        seen.apply(&mut meta);
        assert_eq!(meta.spec.begin, Some(9_950 + 60));
        assert!(!awaits_a_start(&meta.spec));
    }

    #[test]
    fn singleton_finds_the_users_live_jobs_of_that_name() {
        let session = |id: &str, name: &str, tag: &str| Session {
            id: id.into(),
            name: name.into(),
            tag: tag.into(),
            ..Default::default()
        };
        let live = [
            session("1", "j10", "slurm:1001:5 prep"),
            session("2", "j11", "slurm:1002:5 prep"),
            session("3", "j12_0", "slurm:1001:U other"),
            session("4", "notebook", "slurm:1001:5 prep"),
            session("5", "j13_2", "slurm:1001:U%2 prep"),
        ];
        assert_eq!(same_name_sessions(&live, 1001, "prep"), ["1", "5"]);
    }
}
