//! Job control on stored jobs, as slurmctld does it: `scontrol update` (`update_job_str`
//! and `_update_job`: the fields in slurmctld's order, each refused by the same rule, the
//! ones applied before a refusal kept), `scontrol requeue[hold]` (`job_requeue2`) and
//! `scontrol notify`.
//!
//! A job's request lives in its submission; an array's records share one. A record whose
//! request changes gets a submission of its own first ([`own_spec`]), so a change to one
//! task never reaches its siblings.

use super::db::{JobRow, Tx};
use super::schedule::reason;
use super::{LocalCluster, priority, records};
use crate::backend::{BackendError, Cluster, JobReply, SlurmErrno};
use crate::model::{
    ArrayPart, DependencyChange, JobSelector, JobSpec, JobState, JobUpdate, MemoryRequest,
    RequeueRequest, StateFlag, TaskSelector, TimeLimit,
};

/// Slurm's INFINITE and NO_VAL (a job without a limit of its own holds NO_VAL).
const INFINITE: u32 = u32::MAX;
const NO_VAL: u32 = u32::MAX - 1;
/// The delay before a requeued job may start again: the credential's lifetime (120 s)
/// plus one, as `batch_requeue_fini` sets the begin time.
pub const REQUEUE_DELAY: i64 = 121;

type Outcome = Result<(), SlurmErrno>;

/// The records an id names, as `update_job_str` and `job_requeue2` pick them, with
/// pending tasks named one by one split off an array's meta record first (new ids).
enum Picked {
    /// A plain job, or a task named by its own job id.
    Job(Box<JobRow>),
    /// An array's records (whole, or the named tasks), and tasks that name no record.
    Tasks(Vec<JobRow>, Vec<u32>),
    None,
}

fn tasks_of(row: &JobRow) -> Vec<u32> {
    match &row.array {
        Some(ArrayPart::Task { task_id, .. }) => vec![*task_id],
        Some(ArrayPart::Pending { tasks, .. }) => tasks.clone(),
        None => Vec::new(),
    }
}

fn pick(
    tx: &Tx<'_>,
    target: &JobSelector,
    split: bool,
) -> crate::backend::local::db::DbResult<Picked> {
    let rows = tx.jobs_of(target.job_id)?;
    let job = target.job_id;
    let in_array = |r: &JobRow| r.array.as_ref().is_some_and(|a| a.array_job_id() == job);
    match &target.tasks {
        TaskSelector::Whole | TaskSelector::AllTasks => {
            if let Some(r) = rows.iter().find(|r| r.job_id == job)
                && !in_array(r)
            {
                return Ok(Picked::Job(Box::new(r.clone())));
            }
            let members: Vec<JobRow> = rows.into_iter().filter(in_array).collect();
            if members.is_empty() {
                return Ok(Picked::None);
            }
            Ok(Picked::Tasks(members, Vec::new()))
        }
        TaskSelector::Tasks(ids) => {
            let mut wanted: Vec<u32> = ids.clone();
            let mut chosen = Vec::new();
            if let Some(meta) = rows.iter().find(|r| {
                r.state == JobState::Pending
                    && matches!(r.array, Some(ArrayPart::Pending { .. }))
                    && in_array(r)
            }) {
                let pending = tasks_of(meta);
                let overlap: Vec<u32> = pending
                    .iter()
                    .copied()
                    .filter(|t| wanted.contains(t))
                    .collect();
                if !overlap.is_empty() {
                    if overlap.len() == pending.len() || !split {
                        chosen.push(meta.clone());
                        wanted.retain(|t| !pending.contains(t));
                    } else {
                        split_off(tx, meta, &overlap)?;
                    }
                }
            }
            let rows = tx.jobs_of(job)?;
            let mut missing = Vec::new();
            for t in wanted {
                match rows.iter().find(|r| {
                    in_array(r)
                        && matches!(r.array, Some(ArrayPart::Task { task_id, .. }) if task_id == t)
                }) {
                    Some(r) => chosen.push(r.clone()),
                    None => missing.push(t),
                }
            }
            Ok(Picked::Tasks(chosen, missing))
        }
    }
}

/// `job_array_split` for each of `tasks`: the task gets a record (and job id) of its own,
/// the meta record keeps the others.
fn split_off(tx: &Tx<'_>, meta: &JobRow, tasks: &[u32]) -> crate::backend::local::db::DbResult<()> {
    let Some(ArrayPart::Pending {
        array_job_id,
        tasks: pending,
        throttle,
    }) = meta.array.clone()
    else {
        return Ok(());
    };
    for &t in tasks {
        let mut r = meta.clone();
        r.array = Some(ArrayPart::Task {
            array_job_id,
            task_id: t,
        });
        r.job_id = tx.next_job_id()?;
        tx.insert_job(&r)?;
    }
    let mut m = meta.clone();
    m.array = Some(ArrayPart::Pending {
        array_job_id,
        tasks: pending.into_iter().filter(|t| !tasks.contains(t)).collect(),
        throttle,
    });
    tx.update_job(&m)
}

/// The record's request, made its own first when other records share it.
pub(super) fn own_spec(
    tx: &Tx<'_>,
    row: &mut JobRow,
) -> crate::backend::local::db::DbResult<JobSpec> {
    if tx.submission_is_shared(row.submission_id, row.job_id)? {
        if row.job_id != row.submission_id && !tx.has_submission(row.job_id)? {
            tx.copy_submission(row.submission_id, row.job_id)?;
            row.submission_id = row.job_id;
        } else {
            // The record owns the submission: the others move to copies of their own.
            for mut o in tx.sharing_submission(row.submission_id, row.job_id)? {
                if !tx.has_submission(o.job_id)? {
                    tx.copy_submission(o.submission_id, o.job_id)?;
                }
                o.submission_id = o.job_id;
                tx.update_job(&o)?;
            }
        }
    }
    tx.submission(row.submission_id)
}

impl LocalCluster {
    /// The priority `Priority=INFINITE` gives a job back (`set_job_prio`): priority/basic's
    /// from the job's id, multifactor's from its nice.
    fn released_priority(&self, job_id: u32, nice: i32) -> u32 {
        let base = priority::basic_first(job_id, 0);
        priority::given(self.settings.priority_type(), base, nice)
    }

    /// The limit the controller holds for a job: its own, or NO_VAL.
    fn held_limit(spec: &JobSpec) -> u32 {
        match spec.time_limit {
            None => NO_VAL,
            Some(TimeLimit::Infinite) => INFINITE,
            Some(TimeLimit::Minutes(m)) => m,
        }
    }

    /// `_update_job` for one record. Fields applied before a refusal stay applied.
    fn update_one(
        &self,
        tx: &Tx<'_>,
        row: &mut JobRow,
        c: &JobUpdate,
        requester: u32,
        now: i64,
    ) -> crate::backend::local::db::DbResult<Outcome> {
        let operator = self.is_operator(requester);
        let mut spec = own_spec(tx, row)?;
        let before_spec = spec.clone();
        let requested = (row.alloc_cpus, row.alloc_mem_mb);
        let result = self.apply(row, &mut spec, c, operator, requester, now);
        if spec != before_spec {
            tx.replace_submission(row.submission_id, &spec)?;
        }
        if row.state == JobState::Pending {
            let (cpus, mem) = self.request_size(&spec);
            row.alloc_cpus = cpus;
            row.alloc_mem_mb = mem;
            // 22.05 changes a waiting job's task count alone: its CPUs (`min_cpus`) stay.
            let tasks_alone =
                c.min_cpus.is_none() && c.pn_min_cpus.is_none() && c.min_nodes.is_none();
            if !self.profile().scontrol.task_count_weighed_first
                && spec.ntasks != before_spec.ntasks
                && tasks_alone
            {
                (row.alloc_cpus, row.alloc_mem_mb) = requested;
            }
            if !row.held {
                // `job_limits_check` passed: the scheduler gives the reason again.
                row.reason = reason::NONE.into();
            }
        }
        if row.state == JobState::Running && spec.time_limit != before_spec.time_limit {
            // The launcher keeps the job to its limit; it reads a changed one from here.
            let suspended = tx.suspension(row.job_id)?.map_or(0, |s| s.total);
            let limit = records::time_limit(&spec, self.settings.partition_of(&spec))
                .seconds()
                .map(|l| l + suspended);
            let _ = super::executor::write_limit(&self.job_dir(row.job_id), limit);
        }
        tx.update_job(row)?;
        Ok(result)
    }

    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        row: &mut JobRow,
        spec: &mut JobSpec,
        c: &JobUpdate,
        operator: bool,
        requester: u32,
        now: i64,
    ) -> Outcome {
        let pending = row.state == JobState::Pending;
        let running = matches!(row.state, JobState::Running | JobState::Suspended);
        let finished = row.state.is_finished();
        if let Some(t) = c.array_throttle
            && let Some(ArrayPart::Pending { throttle, .. }) = &mut row.array
        {
            *throttle = (t > 0).then_some(t);
            if finished {
                return Ok(());
            }
        }
        if finished {
            return Err(SlurmErrno::JobFinished);
        }
        if row.uid != requester && !operator {
            return Err(SlurmErrno::UserIdMissing);
        }
        if !c.unmodelled.is_empty() {
            return Err(SlurmErrno::NotSupported);
        }
        let mut num_tasks = c.num_tasks;
        if self.profile().scontrol.task_count_weighed_first
            && let Some(t) = num_tasks
        {
            let asked = spec.task_count().unwrap_or(0);
            if t == asked {
                num_tasks = None;
            } else if !pending {
                return Err(SlurmErrno::JobNotPending);
            } else if t == 0 {
                return Err(SlurmErrno::InvalidCpuCount);
            }
        }
        let current_part = self.settings.partition_of(spec).name.clone();
        if let Some(p) = &c.partition
            && *p != current_part
        {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            if self.settings.partition_named(p).is_none() {
                return Err(SlurmErrno::InvalidPartitionName);
            }
            spec.partition = Some(p.clone());
        }
        if let Some(a) = &c.account {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            spec.account = Some(a.clone());
        }
        if let Some(q) = &c.qos {
            let current = spec.qos.clone().unwrap_or_else(|| "normal".into());
            let wanted = if q.is_empty() { "normal" } else { q.as_str() };
            if wanted != "normal" {
                return Err(SlurmErrno::InvalidQos);
            }
            if wanted != current {
                if !pending {
                    return Err(SlurmErrno::JobNotPending);
                }
                spec.qos = None;
            }
        }
        let node_cnt = spec.nodes();
        if let Some(n) = c.min_nodes
            && n != INFINITE
            && n > node_cnt
            && running
        {
            return Err(SlurmErrno::NotSupported);
        }
        if let Some(text) = &c.comment {
            spec.comment = Some(text.clone());
        }
        if let Some(min) = c.min_cpus {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            if min < 1 {
                return Err(SlurmErrno::InvalidCpuCount);
            }
            if c.max_cpus.is_some_and(|max| max < min) {
                return Err(SlurmErrno::InvalidCpuCount);
            }
            spec.total_cpus = Some(min);
        } else if c.max_cpus.is_some() && !pending {
            return Err(SlurmErrno::JobNotPending);
        }
        if let Some(n) = c.pn_min_cpus.filter(|&n| n != 0) {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            spec.min_cpus = Some(
                n * c
                    .min_nodes
                    .filter(|&m| m != INFINITE && m != 0)
                    .unwrap_or(node_cnt),
            );
        }
        if let Some(n) = c.min_nodes.filter(|&n| n != INFINITE) {
            if running {
                // A running job keeps its nodes: its own count is no change.
                if n == 0 || n > node_cnt {
                    return Err(SlurmErrno::InvalidNodeCount);
                }
            } else {
                if n < 1 {
                    return Err(SlurmErrno::InvalidNodeCount);
                }
                if c.max_nodes.is_some_and(|m| m < n) {
                    return Err(SlurmErrno::InvalidNodeCount);
                }
                spec.nodes_min = Some(n);
                if let Some(m) = c.max_nodes {
                    spec.nodes_max = Some(m);
                }
                // At least one task, and one CPU per task, on each node.
                if spec.ntasks.is_some_and(|t| t < n) {
                    spec.ntasks = Some(n);
                }
            }
        }
        if let Some(t) = num_tasks {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            if t < 1 {
                return Err(SlurmErrno::BadTaskCount);
            }
            if !self.profile().scontrol.task_count_weighed_first {
                // 22.05 keeps the job's CPU count (`min_cpus`) when its tasks change.
                spec.total_cpus = Some(spec.cpus());
            }
            spec.ntasks = Some(t);
        }
        if let Some(limit) = c.time_limit {
            let want = match limit {
                TimeLimit::Infinite => INFINITE,
                TimeLimit::Minutes(m) => m,
            };
            let have = Self::held_limit(spec);
            let max = match self.settings.partition_of(spec).max_time {
                TimeLimit::Infinite => INFINITE,
                TimeLimit::Minutes(m) => m,
            };
            if have == want {
            } else if operator || have > want || (pending && max >= want) {
                spec.time_limit = Some(limit);
            } else {
                return Err(SlurmErrno::AccessDenied);
            }
        }
        if let Some(r) = c.requeue {
            spec.requeue = Some(r);
        }
        if let Some(p) = c.priority {
            let mut error = None;
            if row.priority == p {
                if row.priority == 0 && operator {
                    row.reason = reason::HELD_ADMIN.into();
                }
            } else if row.priority == 0
                && p == INFINITE
                && (operator || row.reason == reason::HELD_USER)
            {
                row.held = false;
                row.priority = spec
                    .priority
                    .unwrap_or_else(|| self.released_priority(row.job_id, spec.nice.unwrap_or(0)));
                row.reason = reason::NONE.into();
            } else if row.priority == 0 {
                return Err(SlurmErrno::JobHeld);
            } else if operator || row.priority > p {
                if p != 0 {
                    spec.nice = None;
                }
                if p == INFINITE {
                    spec.priority = None;
                    row.priority = self.released_priority(row.job_id, 0);
                } else if p == 0 {
                    row.held = true;
                    row.priority = 0;
                    row.reason = if operator {
                        reason::HELD_ADMIN
                    } else {
                        reason::HELD_USER
                    }
                    .into();
                } else {
                    if operator {
                        spec.priority = Some(p);
                    } else {
                        error = Some(SlurmErrno::PrioResetFail);
                    }
                    row.priority = p;
                }
            } else if p == INFINITE {
            } else {
                return Err(SlurmErrno::AccessDenied);
            }
            if let Some(e) = error {
                return Err(e);
            }
        }
        if let Some(n) = c.nice {
            let old = spec.nice.unwrap_or(0);
            if old == n {
            } else if spec.priority.is_some() && row.priority != 0 {
                // An operator's priority stands; nice is ignored.
            } else if operator || n >= 0 {
                row.priority = priority::after_nice_change(
                    self.settings.priority_type(),
                    row.priority,
                    old,
                    n,
                );
                spec.nice = (n != 0).then_some(n);
            } else {
                return Err(SlurmErrno::AccessDenied);
            }
        }
        if let Some(m) = c.memory {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            let m = match m {
                MemoryRequest::PerCpu(0) => MemoryRequest::PerNode(0),
                m => m,
            };
            let current = records::memory_request(spec, self.settings.partition_of(spec));
            if m != current {
                match m {
                    MemoryRequest::PerNode(mb) => {
                        spec.mem_per_node = Some(mb);
                        spec.mem_per_cpu = None;
                    }
                    MemoryRequest::PerCpu(mb) => {
                        spec.mem_per_cpu = Some(mb);
                        spec.mem_per_node = None;
                    }
                }
            }
        }
        if let Some(name) = &c.name
            && *name != row.name
        {
            row.name = name.clone();
            spec.name = name.clone();
        }
        if let Some(dir) = &c.work_dir
            && *dir != spec.work_dir
        {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            spec.work_dir = dir.clone();
        }
        // 24.11's order: StdErr, StdIn, then StdOut; an empty value gives the default back.
        for (asked, field) in [(&c.std_err, &mut spec.stderr), (&c.std_in, &mut spec.stdin)] {
            if let Some(path) = asked
                && field.as_ref() != Some(path)
            {
                if !pending {
                    return Err(SlurmErrno::JobNotPending);
                }
                *field = (!path.is_empty()).then(|| path.clone());
            }
        }
        if let Some(out) = &c.std_out
            && spec.stdout.as_ref() != Some(out)
        {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            spec.stdout = Some(out.clone());
        }
        if let Some(d) = &c.dependency {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            match d {
                DependencyChange::Invalid => return Err(SlurmErrno::Dependency),
                DependencyChange::Set(dep) => {
                    let own = row.array.as_ref().map_or(row.job_id, |a| a.array_job_id());
                    if dep.items.iter().any(|i| {
                        i.target
                            .is_some_and(|t| t.job_id() == own || t.job_id() == row.job_id)
                    }) {
                        return Err(SlurmErrno::Dependency);
                    }
                    row.dependency = (!dep.items.is_empty()).then(|| dep.clone());
                }
            }
        }
        if let Some(b) = c.begin_time {
            if !pending {
                return Err(SlurmErrno::JobNotPending);
            }
            spec.begin = Some(b.max(now));
        }
        Ok(())
    }

    /// What a request needs as stored on its record: CPUs and memory of the whole job.
    pub(super) fn request_size(&self, spec: &JobSpec) -> (u32, u64) {
        let cpus = if spec.exclusive {
            self.settings.node.cpus.max(spec.cpus())
        } else {
            spec.cpus()
        };
        let nodes = spec.nodes().max(1);
        let mem = match records::memory_request(spec, self.settings.partition_of(spec)) {
            MemoryRequest::PerNode(mb) => mb.saturating_mul(u64::from(nodes)),
            per_cpu => per_cpu.per_node_mb(cpus),
        };
        (cpus, mem)
    }

    pub(super) fn update_jobs(
        &self,
        target: &JobSelector,
        change: &JobUpdate,
        requester: u32,
        now: i64,
    ) -> Result<JobReply, BackendError> {
        let mut db = self.db()?;
        let reply = db
            .write(|tx| {
                Ok(match pick(tx, target, true)? {
                    Picked::None => JobReply::Job(Err(SlurmErrno::InvalidJobId)),
                    Picked::Job(mut row) => {
                        JobReply::Job(self.update_one(tx, &mut row, change, requester, now)?)
                    }
                    Picked::Tasks(rows, missing) => {
                        let mut out: Vec<(u32, Outcome)> = missing
                            .into_iter()
                            .map(|t| (t, Err(SlurmErrno::InvalidJobId)))
                            .collect();
                        for mut row in rows {
                            let tasks = tasks_of(&row);
                            let r = self.update_one(tx, &mut row, change, requester, now)?;
                            out.extend(tasks.into_iter().map(|t| (t, r)));
                        }
                        JobReply::Tasks(out)
                    }
                })
            })
            .map_err(super::sql)?;
        self.wake_runner();
        Ok(reply)
    }

    /// `_job_requeue_op` for one record. A running job is stopped and requeued when its
    /// launcher records the end; a finished one goes back to pending at once.
    fn requeue_one(
        &self,
        tx: &Tx<'_>,
        row: &mut JobRow,
        how: RequeueRequest,
        requester: u32,
        now: i64,
    ) -> crate::backend::local::db::DbResult<(Outcome, bool)> {
        if row.uid != requester && !self.is_operator(requester) {
            return Ok((Err(SlurmErrno::AccessDenied), false));
        }
        let running = matches!(row.state, JobState::Running | JobState::Suspended);
        if how.incomplete && !running {
            return Ok((Ok(()), false));
        }
        let spec = tx.submission(row.submission_id)?;
        if spec.requeue == Some(false) {
            return Ok((Err(SlurmErrno::Disabled), false));
        }
        if spec.interactive {
            return Ok((Err(SlurmErrno::BatchOnly), false));
        }
        if row.state == JobState::Pending {
            return Ok((Err(SlurmErrno::JobPending), false));
        }
        if running {
            row.requeue = Some(how);
            tx.update_job(row)?;
            return Ok((Ok(()), row.launcher_pid.is_some()));
        }
        requeue_reset(tx, row, how, now, false)?;
        Ok((Ok(()), false))
    }

    pub(super) fn requeue_jobs(
        &self,
        target: &JobSelector,
        how: RequeueRequest,
        requester: u32,
        now: i64,
    ) -> Result<JobReply, BackendError> {
        let mut db = self.db()?;
        let mut stop = Vec::new();
        let reply = db
            .write(|tx| {
                Ok(match pick(tx, target, false)? {
                    Picked::None => JobReply::Job(Err(SlurmErrno::InvalidJobId)),
                    Picked::Job(mut row) => {
                        let (r, signal) = self.requeue_one(tx, &mut row, how, requester, now)?;
                        if signal {
                            stop.push(*row);
                        }
                        JobReply::Job(r)
                    }
                    Picked::Tasks(rows, missing) => {
                        let mut out: Vec<(u32, Outcome)> = missing
                            .into_iter()
                            .map(|t| (t, Err(SlurmErrno::InvalidJobId)))
                            .collect();
                        for mut row in rows {
                            let tasks = tasks_of(&row);
                            let (r, signal) =
                                self.requeue_one(tx, &mut row, how, requester, now)?;
                            if signal {
                                stop.push(row);
                            }
                            out.extend(tasks.into_iter().map(|t| (t, r)));
                        }
                        JobReply::Tasks(out)
                    }
                })
            })
            .map_err(super::sql)?;
        for row in &stop {
            super::deliver(row, &crate::backend::SignalRequest::cancel(requester), true);
        }
        self.wake_runner();
        Ok(reply)
    }

    /// `_slurm_rpc_dump_batch_script`: the script of a job the controller still holds
    /// (unfinished, or ended less than MinJobAge ago; an array's tasks share theirs).
    pub(super) fn batch_script_of(
        &self,
        job_id: u32,
        requester: u32,
    ) -> Result<Vec<u8>, BackendError> {
        let since = crate::sys::now() - i64::from(self.settings.min_job_age);
        let mut db = self.db()?;
        let found = db
            .read(|tx| {
                let rows = tx.controller_jobs_of(&[job_id], since)?;
                // find_job_record: the record of that id, else the array it names.
                let Some(row) = rows
                    .iter()
                    .find(|r| r.job_id == job_id)
                    .or_else(|| rows.first())
                else {
                    return Ok(None);
                };
                let spec = tx.submission(row.submission_id)?;
                Ok(Some((row.uid, spec)))
            })
            .map_err(super::sql)?;
        let Some((owner, spec)) = found else {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        };
        if owner != requester && !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::UserIdMissing));
        }
        if spec.interactive || spec.script.is_empty() {
            return Err(BackendError::Slurm(SlurmErrno::JobScriptMissing));
        }
        Ok(spec.script)
    }

    /// `srun_user_message` for a batch job: the message goes to the running job's error
    /// stream, as slurmstepd's `error("%s", message)` writes it.
    pub(super) fn notify_job(
        &self,
        job_id: u32,
        message: &str,
        requester: u32,
    ) -> Result<(), BackendError> {
        let mut db = self.db()?;
        let found = db
            .read(|tx| {
                let Some(row) = tx.job(job_id)? else {
                    return Ok(None);
                };
                let spec = tx.submission(row.submission_id)?;
                Ok(Some((row, spec)))
            })
            .map_err(super::sql)?;
        let Some((row, spec)) = found else {
            return Err(BackendError::Slurm(SlurmErrno::InvalidJobId));
        };
        if row.uid != requester && !self.is_operator(requester) {
            return Err(BackendError::Slurm(SlurmErrno::UserIdMissing));
        }
        match row.state {
            JobState::Pending => Err(BackendError::Slurm(SlurmErrno::Disabled)),
            // The launcher writes it, through its own handle on the job's error stream.
            JobState::Running if !spec.interactive => {
                let launcher = row
                    .launcher_pid
                    .ok_or_else(|| BackendError::Other("the job is still starting".into()))?;
                super::steps::notify(launcher, job_id, message).map_err(BackendError::Other)
            }
            // An allocation's salloc has no channel for messages here.
            JobState::Running => Err(BackendError::Slurm(SlurmErrno::NotSupported)),
            _ => Err(BackendError::Slurm(SlurmErrno::AlreadyDone)),
        }
    }
}

/// Keeps the run that ends with the requeue, as slurmdbd's record of it stays: state
/// REQUEUED, the run's times and steps (a stopped run's were ended by `finalize`); a run
/// the requeue stopped has exit code 0:0 and ends now.
fn keep_run(
    tx: &Tx<'_>,
    row: &JobRow,
    now: i64,
    was_running: bool,
) -> crate::backend::local::db::DbResult<()> {
    let mut run = row.clone();
    let mut steps = tx.steps_of(row.job_id)?;
    steps.sort_by_key(|s| s.step);
    if was_running {
        run.exit = Default::default();
        run.end_time = Some(now);
    }
    run.state = JobState::Requeued;
    run.flag = StateFlag::None;
    run.requeue = None;
    tx.keep_earlier_run(&run, &steps)
}

/// `batch_requeue_fini`: the job waits again, as if newly submitted, eligible after the
/// requeue delay (held for requeuehold and special exit). `was_running`: it has just
/// been stopped (the scheduler has seen it, so it waits for its begin time).
pub fn requeue_reset(
    tx: &Tx<'_>,
    row: &mut JobRow,
    how: RequeueRequest,
    now: i64,
    was_running: bool,
) -> crate::backend::local::db::DbResult<()> {
    keep_run(tx, row, now, was_running)?;
    let mut spec = own_spec(tx, row)?;
    let begin = now + REQUEUE_DELAY;
    if spec.begin.is_none_or(|b| b <= now) {
        spec.begin = Some(begin);
        tx.replace_submission(row.submission_id, &spec)?;
    }
    row.state = JobState::Pending;
    row.flag = StateFlag::None;
    row.restarts += 1;
    row.requeue = None;
    row.submit_time = now;
    row.eligible_time = spec.begin;
    row.start_time = None;
    row.end_time = None;
    row.node = None;
    row.exit = Default::default();
    row.cancelled_by = None;
    row.launcher_pid = None;
    row.launcher_start = None;
    row.job_pgid = None;
    if how.special_exit {
        // `_job_requeue_op`: shown as SPECIAL_EXIT until released.
        row.flag = StateFlag::SpecialExit;
    }
    if how.hold || how.special_exit {
        row.held = true;
        row.priority = 0;
        row.reason = reason::REQUEUED_HELD.into();
    } else {
        row.reason = if was_running {
            reason::BEGIN_TIME
        } else {
            reason::NONE
        }
        .into();
    }
    tx.delete_steps(row.job_id)?;
    tx.clear_suspension(row.job_id)?;
    tx.update_job(row)
}
