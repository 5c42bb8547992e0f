//! The embedded local backend: jobs run on this machine, state lives in SQLite, a queue
//! runner that starts itself schedules them, and a launcher per job runs its script.
//!
//! Processes: commands (sbatch, squeue, ...) read and write the database directly and kick
//! the runner; the runner (`bai-slurm __local-runner`) decides what starts and spawns one
//! launcher (`bai-slurm __launch`) per job; each launcher records its job's end itself, so
//! killing the runner loses nothing: a new one picks up where it left off.

pub mod control;
pub mod db;
pub mod deps;
pub mod executor;
pub mod gres;
pub mod handling;
pub mod jobctl;
pub mod ledger;
pub mod node;
pub mod node_admin;
pub mod plan;
pub mod priority;
pub mod procs;
pub mod records;
pub mod runner;
pub mod schedule;
pub mod steps;
pub mod store_file;
pub mod suspend;
pub mod system;
pub mod top;

use super::{
    AccountingQuery, BackendError, Cluster, HoldKind, SignalRequest, SlurmErrno, SubmitError,
    Translation, WillRun,
};
use crate::config::Loaded;
use crate::model::node_state;
use crate::model::{
    ArrayPart, JobRecord, JobSelector, JobSpec, JobState, NodeRecord, NodeState, PartitionRecord,
    StateFlag, TaskSelector,
};
use crate::sys::UserInfo;
use db::{Db, JobRow, StepRow};
use node::{LocalNode, LocalPartition};
use records::RecordContext;
use schedule::reason;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Seconds a finished job stays visible to squeue (Slurm's MinJobAge default).
pub const MIN_JOB_AGE: i64 = 300;

/// Settings the runner hands to each launcher, so a job runs with the configuration that
/// scheduled it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalSettings {
    pub cluster_name: String,
    pub node: LocalNode,
    /// The default partition.
    pub partition: LocalPartition,
    /// Every partition, the default one among them (each spans every node).
    #[serde(default)]
    pub partitions: Vec<LocalPartition>,
    pub kill_wait: u32,
    pub idle_exit: u32,
    pub max_array_size: u32,
    #[serde(default)]
    pub first_job_id: u32,
    /// See [`crate::config::LocalConfig::first_priority`].
    #[serde(default)]
    pub first_priority: Option<u32>,
    /// `[local] priority_type`; none: the profile's default ([`LocalSettings::priority_type`]).
    #[serde(default)]
    pub priority_type: Option<crate::model::profile::PriorityType>,
    /// How many (simulated) nodes this machine is shown as; see [`LocalSettings::node_names`].
    #[serde(default = "one")]
    pub nodes: u32,
    /// Seconds a finished job stays in squeue and keeps its files (Slurm's MinJobAge).
    #[serde(default = "default_min_job_age")]
    pub min_job_age: u32,
    /// Longest batch script accepted, in bytes (Slurm's max_script_size).
    #[serde(default = "default_max_script_size")]
    pub max_script_size: u64,
    /// The Slurm release the site replaces (`slurm_version`); the launchers get it with
    /// the rest of the settings.
    #[serde(default)]
    pub slurm_version: crate::model::profile::SlurmVersion,
    /// System mode (`[local] mode = "system"`): the service's socket. Launchers then run
    /// as their job's user and record through it (ledger.rs).
    #[serde(default)]
    pub service_socket: Option<PathBuf>,
    /// Uids of the site's operators besides root (`[local] operators`): they may act on
    /// every job, as Slurm's AdminLevel=Operator users.
    #[serde(default)]
    pub operators: Vec<u32>,
    /// `[local] private_data` holds `jobs`: users see only their own jobs.
    #[serde(default)]
    pub private_jobs: bool,
}

fn default_max_script_size() -> u64 {
    super::MAX_SCRIPT_SIZE
}

fn default_min_job_age() -> u32 {
    MIN_JOB_AGE as u32
}

fn one() -> u32 {
    1
}

impl LocalSettings {
    /// The controller's priority plugin: `[local] priority_type`, else the release's.
    pub fn priority_type(&self) -> crate::model::profile::PriorityType {
        self.priority_type
            .unwrap_or(self.slurm_version.profile().default_priority_type)
    }

    /// Every partition, in the configuration's order.
    pub fn all_partitions(&self) -> Vec<&LocalPartition> {
        if self.partitions.is_empty() {
            return vec![&self.partition];
        }
        self.partitions.iter().collect()
    }

    pub fn partition_named(&self, name: &str) -> Option<&LocalPartition> {
        self.all_partitions().into_iter().find(|p| p.name == name)
    }

    /// The partition a job runs in: the first of those it names that exists, else the
    /// default one.
    pub fn partition_of(&self, spec: &JobSpec) -> &LocalPartition {
        spec.partition
            .as_deref()
            .and_then(|l| l.split(',').find_map(|p| self.partition_named(p)))
            .unwrap_or(&self.partition)
    }

    /// The nodes' names: the configured name alone, or for simulated nodes a numbered
    /// series continuing it (`node01` -> node01, node02, ...; `box` -> box1, box2, ...).
    pub fn node_names(&self) -> Vec<String> {
        let n = self.nodes.max(1);
        let name = &self.node.name;
        if n == 1 {
            return vec![name.clone()];
        }
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (stem, first, width) = if digits == 0 {
            (name.as_str(), 1, 1)
        } else {
            let stem = &name[..name.len() - digits];
            (stem, name[stem.len()..].parse::<u32>().unwrap_or(1), digits)
        };
        (0..n)
            .map(|i| format!("{stem}{:0width$}", first + i))
            .collect()
    }

    /// Where node `i`'s step server listens: 127.0.0.1 for the one real node; 127.0.0.2,
    /// 127.0.0.3, ... for simulated nodes, so each has an address of its own.
    pub fn node_addr(&self, i: usize) -> String {
        if self.nodes <= 1 {
            "127.0.0.1".into()
        } else {
            format!("127.0.0.{}", 2 + i)
        }
    }

    /// Indexes of the nodes in a job's node list.
    pub fn node_indexes(&self, nodelist: &str) -> Vec<usize> {
        let names = self.node_names();
        crate::model::hostlist::expand(nodelist)
            .unwrap_or_default()
            .iter()
            .filter_map(|n| names.iter().position(|m| m == n))
            .collect()
    }
}

pub struct LocalCluster {
    pub state_dir: PathBuf,
    pub settings: LocalSettings,
    /// Records reads had to skip, for [`Cluster::warnings`].
    skipped: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    /// Users' accounts, for submissions (the runner and launchers never need them).
    pub accounts: crate::config::AccountsConfig,
}

fn sql(e: db::DbError) -> BackendError {
    BackendError::Other(e.to_string())
}

impl LocalCluster {
    pub fn open(
        loaded: &Loaded,
        env: &BTreeMap<String, String>,
    ) -> Result<LocalCluster, BackendError> {
        let state_dir = crate::config::local_state_dir(&loaded.config, env)
            .map_err(|e| BackendError::Other(e.to_string()))?;
        let mut cluster = Self::with_settings(state_dir, Self::settings(loaded))?;
        cluster.accounts = loaded.config.accounts.clone();
        Ok(cluster)
    }

    /// The settings the configuration gives.
    pub fn settings(loaded: &Loaded) -> LocalSettings {
        let node = LocalNode::from_config(&loaded.config);
        let partition = LocalPartition::from_config(&loaded.config, &node);
        let partitions = LocalPartition::all_from_config(&loaded.config, &node);
        LocalSettings {
            cluster_name: loaded.cluster_name(),
            node,
            partition,
            partitions,
            kill_wait: loaded.config.local.kill_wait.unwrap_or(30),
            idle_exit: loaded.config.local.idle_exit.unwrap_or(60),
            max_array_size: loaded
                .config
                .local
                .max_array_size
                .unwrap_or(crate::model::array::DEFAULT_MAX_ARRAY_SIZE),
            first_job_id: loaded.config.local.first_job_id.unwrap_or(1),
            first_priority: loaded.config.local.first_priority,
            priority_type: loaded.config.local.priority_type,
            nodes: loaded.config.local.nodes.unwrap_or(1).clamp(1, 200),
            min_job_age: loaded
                .config
                .local
                .min_job_age
                .unwrap_or(MIN_JOB_AGE as u32),
            max_script_size: loaded.config.max_script_size(),
            slurm_version: loaded.config.slurm_version(),
            service_socket: loaded.config.local.system_socket(),
            operators: loaded
                .config
                .local
                .operators
                .iter()
                .flatten()
                .filter_map(|name| crate::sys::lookup_user(name))
                .map(|u| u.uid)
                .collect(),
            private_jobs: loaded
                .config
                .local
                .private_data
                .iter()
                .flatten()
                .any(|d| d.eq_ignore_ascii_case("jobs")),
        }
    }

    pub fn with_settings(
        state_dir: PathBuf,
        settings: LocalSettings,
    ) -> Result<LocalCluster, BackendError> {
        // Only a directory of ours that nobody else can write is used: what its database
        // says is run as us.
        super::trusted_dir::ensure(&state_dir, nix::unistd::getuid().as_raw())
            .map_err(|e| BackendError::Other(format!("state directory: {e}")))?;
        Ok(LocalCluster {
            state_dir,
            settings,
            skipped: Default::default(),
            accounts: Default::default(),
        })
    }

    /// The cluster as a job's launcher sees it. In system mode the launcher runs as the
    /// job's user and never opens the service's state directory (ledger.rs), only its own
    /// job's directory in it.
    pub fn for_launcher(
        state_dir: PathBuf,
        settings: LocalSettings,
    ) -> Result<LocalCluster, BackendError> {
        if settings.service_socket.is_none() {
            return Self::with_settings(state_dir, settings);
        }
        Ok(LocalCluster {
            state_dir,
            settings,
            skipped: Default::default(),
            accounts: Default::default(),
        })
    }

    /// The Slurm release the site replaces.
    pub fn profile(&self) -> &'static crate::model::profile::Profile {
        self.settings.slurm_version.profile()
    }

    pub fn db(&self) -> Result<Db, BackendError> {
        self.open_db().map_err(sql)
    }

    /// [`LocalCluster::db`] with the database's own error (to tell a full disk).
    pub fn open_db(&self) -> Result<Db, db::DbError> {
        Db::open_noting(
            &self.state_dir.join("state.db"),
            self.settings.first_job_id,
            self.skipped.clone(),
        )
    }

    pub fn job_dir(&self, job_id: u32) -> PathBuf {
        self.state_dir.join("jobs").join(job_id.to_string())
    }

    fn ctx(&self) -> RecordContext<'_> {
        RecordContext {
            node: &self.settings.node,
            settings: &self.settings,
            cluster: &self.settings.cluster_name,
            profile: self.profile(),
        }
    }

    /// Makes sure a runner is there to act on what just changed.
    pub fn wake_runner(&self) {
        if let Err(e) = control::ensure_runner(&self.state_dir) {
            // The job is safely stored; the next command will try again.
            let _ = e;
        }
    }

    /// Any command that sees unfinished jobs makes sure a runner is there for them, so a
    /// runner that died (even by SIGKILL) is replaced without anybody noticing.
    fn wake_runner_for(&self, records: &[JobRecord]) {
        if records.iter().any(|r| !r.state.is_finished()) {
            self.wake_runner();
        }
    }

    /// The nodes as the plan sees them (local/plan.rs).
    fn node_capacities(&self) -> Vec<plan::NodeCapacity> {
        let s = &self.settings;
        s.node_names()
            .into_iter()
            .map(|name| plan::NodeCapacity {
                name,
                cpus: s.node.cpus,
                mem_mb: s.node.memory_mb,
            })
            .collect()
    }

    fn records(
        &self,
        rows: &[JobRow],
        accounting: bool,
        tx: &db::Tx<'_>,
    ) -> Result<Vec<JobRecord>, BackendError> {
        let mut steps: BTreeMap<u32, Vec<StepRow>> = BTreeMap::new();
        // A few jobs: ask for theirs; many: one scan of the table is cheaper.
        let all_steps = if rows.len() < 256 {
            let mut v = Vec::new();
            for r in rows {
                v.extend(tx.steps_of(r.job_id).map_err(sql)?);
            }
            v
        } else {
            tx.steps().map_err(sql)?
        };
        for s in all_steps {
            steps.entry(s.job_id).or_default().push(s);
        }
        let ctx = self.ctx();
        let suspensions = tx.suspensions().map_err(sql)?;
        let now = crate::sys::now();
        // What the controller's started jobs hold, for scontrol -d (accounting keeps none).
        let held = if accounting {
            Default::default()
        } else {
            let ids: Vec<u32> = rows.iter().map(|r| r.job_id).collect();
            tx.held_resources(&ids, now - i64::from(self.settings.min_job_age))
                .map_err(sql)?
        };
        let mut out = Vec::with_capacity(rows.len());
        // Each request is parsed as its record is built and dropped after (the tasks of an
        // array share theirs): a long queue never holds every request parsed at once.
        let ids: Vec<u32> = rows.iter().map(|r| r.submission_id).collect();
        let requests = tx.raw_requests(&ids).map_err(sql)?;
        let mut last: Option<(u32, JobSpec)> = None;
        for row in rows {
            if last.as_ref().is_none_or(|(id, _)| *id != row.submission_id) {
                last = requests.get(&row.submission_id).and_then(|json| {
                    Some((
                        row.submission_id,
                        tx.parse_request(row.submission_id, json)?,
                    ))
                });
            }
            // A job whose submission cannot be read was noted by `submissions`; the
            // others are shown as usual.
            let Some((_, spec)) = &last else {
                continue;
            };
            let mut st = steps.remove(&row.job_id).unwrap_or_default();
            st.sort_by_key(|s| s.step);
            let mut rec = records::job_record(row, spec, &st, &ctx, accounting);
            if let Some(h) = held.get(&row.job_id) {
                records::show_allocation(&mut rec, h);
            }
            if let Some(susp) = suspensions.get(&row.job_id) {
                suspend::show(&mut rec, susp, now);
            }
            out.push(rec);
        }
        Ok(out)
    }

    /// The records of the earlier runs of these jobs (requeued ones): what accounting
    /// kept of each run when it ended, beside the job's own record.
    fn earlier_runs(
        &self,
        rows: &[JobRow],
        tx: &db::Tx<'_>,
    ) -> Result<Vec<JobRecord>, BackendError> {
        let ids: Vec<u32> = rows
            .iter()
            .filter(|r| r.restarts > 0)
            .map(|r| r.job_id)
            .collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let runs = tx.earlier_runs(&ids).map_err(sql)?;
        let subs: Vec<u32> = runs.iter().map(|(r, _)| r.submission_id).collect();
        let requests = tx.raw_requests(&subs).map_err(sql)?;
        let ctx = self.ctx();
        Ok(runs
            .iter()
            .filter_map(|(run, steps)| {
                let spec =
                    tx.parse_request(run.submission_id, requests.get(&run.submission_id)?)?;
                Some(records::job_record(run, &spec, steps, &ctx, true))
            })
            .collect())
    }

    fn validate(&self, spec: &JobSpec) -> Result<(), SubmitError> {
        let s = &self.settings;
        super::check_script_size(spec, s.max_script_size)?;
        self.accepts(spec)?;
        if let Some(list) = &spec.partition
            && let Some(p) = list.split(',').find(|p| s.partition_named(p).is_none())
        {
            return Err(SubmitError::errno(SlurmErrno::InvalidPartitionName)
                .with_detail(format!("invalid partition specified: {p}")));
        }
        let partition = s.partition_of(spec);
        deadline_check(
            spec,
            crate::sys::now(),
            self.profile().submit.deadline_of_every_pending_job,
        )?;
        // `-N 0` reaches the controller, which refuses it (a batch job needs a node).
        if spec.nodes_min == Some(0) {
            return Err(SubmitError::errno(SlurmErrno::InvalidNodeCount));
        }
        // More nodes than the partition has: a batch job is accepted and waits
        // (PartitionNodeLimit); an allocation is refused at once.
        if spec.interactive && spec.nodes() > s.nodes.max(1) {
            return Err(SubmitError::errno(
                SlurmErrno::RequestedNodeConfigUnavailable,
            ));
        }
        match gres::gpus_per_node(spec) {
            Ok(n) if n <= s.node.gpus => {}
            Ok(_) | Err(gres::GresProblem::TooMany) => {
                return Err(SubmitError::errno(
                    SlurmErrno::RequestedNodeConfigUnavailable,
                ));
            }
            Err(gres::GresProblem::UnknownName) => {
                return Err(SubmitError::errno(SlurmErrno::InvalidGres));
            }
        }
        // As slurmctld checks it at submission: the request itself (per node, or per CPU)
        // against the node's memory; a job that needs more CPUs than there are simply waits.
        let mem = match records::memory_request(spec, partition) {
            crate::model::MemoryRequest::PerNode(mb) | crate::model::MemoryRequest::PerCpu(mb) => {
                mb
            }
        };
        if mem > s.node.memory_mb {
            return Err(
                SubmitError::errno(SlurmErrno::RequestedNodeConfigUnavailable)
                    .with_detail("Memory specification can not be satisfied"),
            );
        }
        // Over the partition's MaxTime: a batch job is accepted and waits
        // (PartitionTimeLimit; Slurm's EnforcePartLimits=NO), an allocation is refused.
        if spec.interactive && partition.times().check(spec.time_limit).is_err() {
            return Err(SubmitError::errno(SlurmErrno::InvalidTimeLimit));
        }
        if let Some(a) = &spec.array
            && (a.tasks.is_empty() || a.tasks.iter().any(|&t| t >= s.max_array_size))
        {
            return Err(SubmitError::errno(SlurmErrno::InvalidArray));
        }
        if let Some(d) = &spec.dependency
            && d.items
                .iter()
                .any(|i| i.kind == crate::model::DepKind::Expand)
        {
            return Err(SubmitError::errno(SlurmErrno::Dependency));
        }
        self.release_checks(spec)
    }

    /// What the site's Slurm release refuses at submission that 22.05 accepted (and let
    /// pend): more CPUs than the nodes have, and a dependency on a job that does not exist.
    fn release_checks(&self, spec: &JobSpec) -> Result<(), SubmitError> {
        let rules = self.profile().submit;
        let s = &self.settings;
        let nodes = u64::from(spec.nodes().min(s.nodes.max(1)));
        // What one node must hold (a task's CPUs, or -N's tasks per node), which 24.11
        // names, then the whole request.
        let per_task = u64::from(spec.cpus_per_task.unwrap_or(1));
        let per_node = per_task
            .saturating_mul(u64::from(spec.ntasks_per_node.unwrap_or(1)))
            .max(u64::from(spec.min_cpus.unwrap_or(1)));
        // More nodes than there are: 22.05 let a batch job wait (PartitionNodeLimit).
        if rules.refuse_unsatisfiable && spec.nodes() > s.nodes.max(1) {
            return Err(SubmitError::errno(
                SlurmErrno::RequestedNodeConfigUnavailable,
            ));
        }
        if rules.refuse_unsatisfiable && per_node > u64::from(s.node.cpus) {
            return Err(
                SubmitError::errno(SlurmErrno::RequestedNodeConfigUnavailable)
                    .with_detail("CPU count per node can not be satisfied"),
            );
        }
        if rules.refuse_unsatisfiable && u64::from(spec.cpus()) > u64::from(s.node.cpus) * nodes {
            return Err(SubmitError::errno(
                SlurmErrno::RequestedNodeConfigUnavailable,
            ));
        }
        if rules.refuse_unknown_dependency
            && let Some(d) = &spec.dependency
        {
            let mut db = self.db()?;
            let targets: Vec<u32> = d
                .items
                .iter()
                .filter_map(|i| i.target)
                .map(|t| t.job_id())
                .collect();
            let missing = db
                .read(|tx| {
                    for id in &targets {
                        if tx.jobs_of(*id)?.is_empty() {
                            return Ok(true);
                        }
                    }
                    Ok(false)
                })
                .map_err(sql)?;
            if missing {
                return Err(SubmitError::errno(SlurmErrno::Dependency));
            }
        }
        Ok(())
    }

    /// `--nodelist` and `--exclude` as slurmctld checks them: every name must be a node,
    /// no node both asked for and excluded, and enough nodes left for the job.
    fn check_node_names(&self, spec: &JobSpec) -> Result<(), SubmitError> {
        let names = self.settings.node_names();
        let listed = |list: &Option<String>| -> Result<Vec<String>, SubmitError> {
            let Some(list) = list else {
                return Ok(Vec::new());
            };
            match crate::model::hostlist::expand(list) {
                Some(nodes) if nodes.iter().all(|n| names.contains(n)) => Ok(nodes),
                _ => Err(SubmitError::errno(SlurmErrno::InvalidNodeName)),
            }
        };
        let required = listed(&spec.nodelist)?;
        let excluded = listed(&spec.exclude)?;
        if required.iter().any(|n| excluded.contains(n)) {
            return Err(SubmitError::errno(SlurmErrno::InvalidNodeName));
        }
        // Too many nodes for the partition alone is not refused (the job waits with
        // PartitionNodeLimit); too few left by the names given is.
        let named = !required.is_empty() || !excluded.is_empty() || spec.interactive;
        if named && spec.nodes().max(required.len() as u32) as usize > names.len() - excluded.len()
        {
            return Err(SubmitError::errno(
                SlurmErrno::RequestedNodeConfigUnavailable,
            ));
        }
        Ok(())
    }

    /// The request as it is stored: charged to the user's account, and a node list longer
    /// than `-N` raises the node count, as slurmctld raises it.
    fn settled(&self, spec: &JobSpec, user: &UserInfo) -> Result<JobSpec, SubmitError> {
        let mut spec = super::accounts::charged(&self.accounts, spec, &user.name)?;
        let named = spec
            .nodelist
            .as_deref()
            .and_then(crate::model::hostlist::expand)
            .map_or(0, |n| n.len() as u32);
        if named > spec.nodes() {
            spec.nodes_min = Some(named);
            spec.nodes_max = spec.nodes_max.map(|m| m.max(named));
        }
        Ok(spec)
    }

    /// The record a new job starts as (its id and, unless held or set by `--priority`, its
    /// base priority given by the caller).
    fn new_row(
        &self,
        id: u32,
        spec: &JobSpec,
        user: &UserInfo,
        now: i64,
        base_priority: u32,
    ) -> JobRow {
        let (cpus, mem) = self.request_size(spec);
        JobRow {
            job_id: id,
            submission_id: id,
            array: spec.array.as_ref().map(|a| ArrayPart::Pending {
                array_job_id: id,
                tasks: a.tasks.clone(),
                throttle: a.throttle,
            }),
            name: spec.name.clone(),
            uid: user.uid,
            state: JobState::Pending,
            flag: Default::default(),
            reason: if spec.hold {
                reason::HELD_USER.into()
            } else if spec.nodes() > self.settings.nodes.max(1)
                || self
                    .settings
                    .partition_of(spec)
                    .times()
                    .check(spec.time_limit)
                    .is_err()
            {
                reason::PARTITION_CONFIG.into()
            } else if spec.dependency.is_none() && spec.begin.is_some_and(|b| b > now) {
                // slurmctld's job_independent at submission: a job deferred (and not
                // dependent, which it tests first) waits for BeginTime from the start,
                // not from the scheduler's first look.
                reason::BEGIN_TIME.into()
            } else {
                reason::NONE.into()
            },
            priority: if spec.hold {
                0
            } else {
                spec.priority.unwrap_or_else(|| {
                    priority::given(
                        self.settings.priority_type(),
                        base_priority,
                        spec.nice.unwrap_or(0),
                    )
                })
            },
            held: spec.hold,
            dependency: spec.dependency.clone(),
            submit_time: now,
            // Eligible at once unless held or dependent, as slurmctld sets it; a deferred
            // job at its begin time.
            eligible_time: (!spec.hold && spec.dependency.is_none())
                .then_some(spec.begin.map_or(now, |b| b.max(now))),
            start_time: None,
            end_time: None,
            last_sched_eval: Some(now),
            exit: Default::default(),
            cancelled_by: None,
            alloc_cpus: cpus,
            alloc_mem_mb: mem,
            node: None,
            launcher_pid: None,
            launcher_start: None,
            job_pgid: None,
            restarts: 0,
            requeue: None,
            // slurmctld's job_independent at submission gives a dependent job
            // WAIT_DEPENDENCY, which accounting keeps as its reason even when the
            // dependency is met (or found impossible) before the scheduler looks at it.
            reason_prev: if spec
                .dependency
                .as_ref()
                .is_some_and(|d| !d.items.is_empty())
            {
                reason::DEPENDENCY.into()
            } else {
                reason::NONE.into()
            },
            acct_reason: None,
            acct_tasks: None,
        }
    }

    fn submit_job(&self, spec: &JobSpec, user: &UserInfo, now: i64) -> Result<u32, SubmitError> {
        if let Err(e) = self.validate(spec) {
            // slurmctld gives the job its id before it finds no node can hold it: that id
            // is used up (the next job's is one higher).
            if e.errno == Some(SlurmErrno::RequestedNodeConfigUnavailable) {
                let mut db = self.db()?;
                db.write(|tx| tx.next_job_id().map(|_| ())).map_err(sql)?;
            }
            return Err(e);
        }
        let spec = &self.settled(spec, user)?;
        let mut db = self.db()?;
        let id = db
            .write(|tx| {
                let id = tx.next_job_id()?;
                let base = if spec.hold || spec.priority.is_some() {
                    0
                } else {
                    priority::next_base(
                        tx,
                        self.settings.priority_type(),
                        self.settings
                            .first_priority
                            .unwrap_or_else(|| priority::basic_first(id, 0)),
                    )?
                };
                tx.insert_submission(id, spec)?;
                tx.insert_job(&self.new_row(id, spec, user, now, base))?;
                Ok(id)
            })
            .map_err(sql)?;
        self.wake_runner();
        Ok(id)
    }

    /// `--test-only`, as slurmctld's will_run answers it: the job gets an id (used up, as
    /// slurmctld's is) and the earliest time the running jobs leave room for it, from its
    /// begin time on; a hold is not looked at. Behind a job without a time limit the answer
    /// is INFINITE minutes from now, as Slurm prints it (a date in the year 6000s).
    fn will_run_job(
        &self,
        spec: &JobSpec,
        user: &UserInfo,
        now: i64,
    ) -> Result<WillRun, SubmitError> {
        // A job that can never fit is refused (a batch job would wait, PartitionNodeLimit).
        let never_fits = spec.nodes() > self.settings.node_names().len() as u32;
        let checked = self.validate(spec).and_then(|()| match never_fits {
            true => Err(SubmitError::errno(
                SlurmErrno::RequestedNodeConfigUnavailable,
            )),
            false => Ok(()),
        });
        if let Err(e) = checked {
            if e.errno == Some(SlurmErrno::RequestedNodeConfigUnavailable) {
                let mut db = self.db()?;
                db.write(|tx| tx.next_job_id().map(|_| ())).map_err(sql)?;
            }
            return Err(e);
        }
        let spec = self.settled(spec, user)?;
        let id = self.db()?.write(|tx| tx.next_job_id()).map_err(sql)?;
        let mut row = self.new_row(id, &spec, user, now, u32::MAX);
        row.reason = reason::RESOURCES.into();
        let mut candidate = records::job_record(&row, &spec, &[], &self.ctx(), false);
        candidate.state = JobState::Pending;
        let mut records: Vec<JobRecord> = self
            .jobs()?
            .into_iter()
            .filter(|r| r.state == JobState::Running)
            .collect();
        records.push(candidate);
        let s = &self.settings;
        let begin = spec.begin.unwrap_or(now).max(now);
        plan::plan(&mut records, &self.node_capacities(), begin);
        let planned = records.pop().expect("the candidate");
        const INFINITE_MINUTES: i64 = 0x7fff_ffff;
        let start = planned.start_time.unwrap_or(now + INFINITE_MINUTES * 60);
        let node_list = planned
            .sched_nodes
            .clone()
            .unwrap_or_else(|| s.node_names().join(","));
        Ok(WillRun {
            job_id: id,
            start,
            cpus: planned.num_cpus,
            nodes: node_list,
            partition: planned.partition.clone(),
        })
    }

    /// Rows a selector names.
    fn select<'a>(rows: &'a [JobRow], target: &JobSelector) -> Vec<&'a JobRow> {
        rows.iter()
            .filter(|r| {
                let array_id = r.array.as_ref().map(|a| a.array_job_id());
                match &target.tasks {
                    TaskSelector::Whole => {
                        r.job_id == target.job_id || array_id == Some(target.job_id)
                    }
                    TaskSelector::AllTasks => {
                        array_id == Some(target.job_id) || r.job_id == target.job_id
                    }
                    TaskSelector::Tasks(ids) => {
                        array_id == Some(target.job_id)
                            && match &r.array {
                                Some(ArrayPart::Task { task_id, .. }) => ids.contains(task_id),
                                Some(ArrayPart::Pending { tasks, .. }) => {
                                    tasks.iter().any(|t| ids.contains(t))
                                }
                                None => false,
                            }
                    }
                }
            })
            .collect()
    }

    fn signal_job(
        &self,
        target: &JobSelector,
        req: &SignalRequest,
        now: i64,
    ) -> Result<(), BackendError> {
        let mut db = self.db()?;
        let cancel = matches!(req.signal, None | Some(libc::SIGKILL));
        let to_signal = db
            .write(|tx| {
                let rows = tx.jobs_of(target.job_id)?;
                let chosen: Vec<JobRow> =
                    Self::select(&rows, target).into_iter().cloned().collect();
                if chosen.is_empty() {
                    return Ok(Err(SlurmErrno::InvalidJobId));
                }
                if chosen
                    .iter()
                    .any(|r| r.uid != req.requester && !self.is_operator(req.requester))
                {
                    return Ok(Err(SlurmErrno::AccessDenied));
                }
                let live: Vec<JobRow> = chosen
                    .into_iter()
                    .filter(|r| !r.state.is_finished())
                    .collect();
                if live.is_empty() {
                    return Ok(Err(SlurmErrno::AlreadyDone));
                }
                let mut signal_rows = Vec::new();
                for mut row in live {
                    match row.state {
                        JobState::Pending if cancel => {
                            let selected = match (&target.tasks, &row.array) {
                                (
                                    TaskSelector::Tasks(ids),
                                    Some(ArrayPart::Pending { tasks, .. }),
                                ) => Some(
                                    tasks
                                        .iter()
                                        .copied()
                                        .filter(|t| ids.contains(t))
                                        .collect::<Vec<_>>(),
                                ),
                                _ => None,
                            };
                            self.cancel_pending(tx, &mut row, selected, req.requester, now)?;
                        }
                        JobState::Pending => return Ok(Err(SlurmErrno::JobPending)),
                        _ => {
                            if cancel {
                                row.cancelled_by = Some(req.requester);
                                if row.launcher_pid.is_none() {
                                    // Not launched yet: the launcher sees the mark and stops.
                                    tx.update_job(&row)?;
                                    continue;
                                }
                                tx.update_job(&row)?;
                            }
                            signal_rows.push(row);
                        }
                    }
                }
                Ok(Ok(signal_rows))
            })
            .map_err(sql)?
            .map_err(BackendError::Slurm)?;
        for row in to_signal {
            deliver(&row, req, cancel);
        }
        self.wake_runner();
        Ok(())
    }

    /// Cancels a pending record, or only some tasks of an array's meta record. Cancelled
    /// pending tasks leave no record at all, as in slurmctld (`job_str_signal` clears them
    /// from the meta record's task bitmap): no row, no job id used up. When no task is left
    /// the meta record itself ends CANCELLED, with an empty task set.
    fn cancel_pending(
        &self,
        tx: &db::Tx<'_>,
        row: &mut JobRow,
        tasks: Option<Vec<u32>>,
        uid: u32,
        now: i64,
    ) -> db::DbResult<()> {
        let finish = |r: &mut JobRow| {
            r.state = JobState::Cancelled;
            r.flag = StateFlag::None;
            r.start_time = Some(now);
            r.end_time = Some(now);
            r.cancelled_by = Some(uid);
        };
        if let (
            Some(pick),
            Some(ArrayPart::Pending {
                array_job_id,
                tasks: pending,
                throttle,
            }),
        ) = (tasks, row.array.clone())
        {
            let remaining: Vec<u32> = pending
                .iter()
                .copied()
                .filter(|t| !pick.contains(t))
                .collect();
            let emptied = remaining.is_empty();
            row.array = Some(ArrayPart::Pending {
                array_job_id,
                tasks: remaining,
                throttle,
            });
            if emptied {
                finish(row);
            }
            return tx.update_job(row);
        }
        finish(row);
        tx.update_job(row)
    }

    fn hold_job(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        requester: u32,
    ) -> Result<(), BackendError> {
        let mut db = self.db()?;
        db.write(|tx| {
            let rows = tx.jobs_of(target.job_id)?;
            let chosen: Vec<JobRow> = Self::select(&rows, target).into_iter().cloned().collect();
            if chosen.is_empty() {
                return Ok(Err(SlurmErrno::InvalidJobId));
            }
            // slurmctld's hold and release of another user's job: ESLURM_USER_ID_MISSING.
            let operator = self.is_operator(requester);
            if chosen.iter().any(|r| r.uid != requester && !operator) {
                return Ok(Err(SlurmErrno::UserIdMissing));
            }
            // `_update_job`: a finished job is refused before anything else is looked at.
            if chosen.iter().all(|r| r.state.is_finished()) {
                return Ok(Err(SlurmErrno::JobFinished));
            }
            // slurmctld holds and releases running jobs too (priority 0 and the hold's
            // reason while the job runs on); only a finished one is refused.
            let live: Vec<JobRow> = chosen
                .into_iter()
                .filter(|r| !r.state.is_finished())
                .collect();
            for mut row in live {
                match kind {
                    // Held already: only an operator may change the kind of hold.
                    Some(_) if row.held && !operator => continue,
                    Some(k) => {
                        row.held = true;
                        row.priority = 0;
                        row.reason = if k == HoldKind::Admin && operator {
                            reason::HELD_ADMIN
                        } else {
                            reason::HELD_USER
                        }
                        .into();
                    }
                    None => {
                        if !row.held {
                            continue;
                        }
                        // A user may not release an administrator's hold.
                        if row.reason == reason::HELD_ADMIN && !operator {
                            return Ok(Err(SlurmErrno::AccessDenied));
                        }
                        let spec = tx.submission(row.submission_id)?;
                        row.held = false;
                        // `_release_job_rec` ends a special exit too.
                        row.flag = StateFlag::None;
                        // priority/basic gives a released job the next lower priority.
                        let plugin = self.settings.priority_type();
                        row.priority = match spec.priority {
                            Some(p) => p,
                            None => priority::given(
                                plugin,
                                priority::next_base(
                                    tx,
                                    plugin,
                                    priority::basic_first(row.job_id, 0),
                                )?,
                                spec.nice.unwrap_or(0),
                            ),
                        };
                        row.reason = reason::NONE.into();
                    }
                }
                // slurmctld sends the job's record at a hold and at a release.
                row.record_in_accounting();
                tx.update_job(&row)?;
            }
            Ok(Ok(()))
        })
        .map_err(sql)?
        .map_err(BackendError::Slurm)?;
        self.wake_runner();
        Ok(())
    }
}

/// Whether the launcher that claimed the job still runs (else its pids may be reused).
fn launcher_alive(row: &JobRow) -> bool {
    matches!((row.launcher_pid, row.launcher_start), (Some(p), Some(s)) if procs::is_same_process(p, s))
}

/// `sig` to everything the job runs: its batch shell's process group and its steps'
/// tasks, while its launcher still runs.
fn signal_processes(row: &JobRow, sig: i32) {
    if !launcher_alive(row) {
        return;
    }
    if let Some(launcher) = row.launcher_pid {
        steps::signal_steps(launcher, row.job_id, sig);
    }
    if let Some(pgid) = row.job_pgid {
        // SAFETY: killpg(2) of the job's own process group, its launcher checked above.
        unsafe { libc::killpg(pgid, sig) };
    }
}

/// Sends a cancel (to the launcher, which runs Slurm's SIGTERM/KillWait/SIGKILL sequence)
/// or a plain signal (straight to the job's processes).
fn deliver(row: &JobRow, req: &SignalRequest, cancel: bool) {
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;
    if cancel && row.state == JobState::Suspended {
        // A stopped job must run again to end as its launcher ends it (slurmctld
        // resumes a suspended job it cancels).
        signal_processes(row, libc::SIGCONT);
    }
    if cancel {
        if let Some(pid) = row.launcher_pid
            && launcher_alive(row)
        {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
        return;
    }
    let (Some(sig), Some(pgid)) = (req.signal, row.job_pgid) else {
        return;
    };
    let Ok(sig) = Signal::try_from(sig) else {
        return;
    };
    // The launcher must still be the one running this job, or the pgid may be reused.
    if !launcher_alive(row) {
        return;
    }
    if !req.batch_only
        && let Some(launcher) = row.launcher_pid
    {
        // Without -b Slurm signals the srun steps (with -f the batch shell too): the
        // job's step servers deliver it to their tasks.
        steps::signal_steps(launcher, row.job_id, sig as i32);
    }
    if !(req.full || req.batch_only) {
        return;
    }
    // TERM and KILL go through the launcher, which writes slurmstepd's CANCELLED line.
    if let (Some(relay), Some(launcher)) = (
        crate::launcher::batch::relay::for_signal(sig as i32, req.full),
        row.launcher_pid,
    ) {
        // SAFETY: kill(2) of the job's launcher, checked above to be the process that
        // claimed this job; nix's Signal has no real-time signals.
        unsafe { libc::kill(launcher, relay.number()) };
        return;
    }
    if req.full {
        let _ = killpg(Pid::from_raw(pgid), sig);
    } else {
        let _ = kill(Pid::from_raw(pgid), sig);
    }
}

impl Cluster for LocalCluster {
    fn max_array_size(&self) -> u32 {
        self.settings.max_array_size
    }

    fn is_operator(&self, uid: u32) -> bool {
        uid == 0 || self.settings.operators.contains(&uid)
    }

    fn handling(&self, field: crate::model::jobspec::Field) -> super::support::Handling {
        handling::handling(field)
    }

    /// Node names first, as slurmctld checks them before licenses, features and
    /// reservations.
    fn accepts(&self, spec: &JobSpec) -> Result<Vec<String>, SubmitError> {
        self.check_node_names(spec)?;
        super::support::check(spec, handling::handling)
    }

    fn cluster_name(&self) -> String {
        self.settings.cluster_name.clone()
    }

    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError> {
        let mut db = self.db()?;
        let now = crate::sys::now();
        let records = db
            .read(|tx| {
                let rows = tx.controller_jobs(now - i64::from(self.settings.min_job_age))?;
                let mut records = match self.records(&rows, false, tx) {
                    Ok(records) => records,
                    Err(e) => return Ok(Err(e)),
                };
                plan::apply(&mut records, &tx.plans(None)?);
                Ok(Ok(records))
            })
            .map_err(sql)??;
        self.wake_runner_for(&records);
        Ok(records)
    }

    /// The queue runner's last backfill cycle with jobs to test (`runner::backfill_cycle`).
    fn last_backfill(&self) -> Result<i64, BackendError> {
        self.db()?.read(|tx| tx.last_backfill()).map_err(sql)
    }

    /// By index: the named jobs' rows and the runner's plan for them only.
    fn jobs_with_ids(&self, ids: &[u32]) -> Result<Vec<JobRecord>, BackendError> {
        let mut db = self.db()?;
        let since = crate::sys::now() - i64::from(self.settings.min_job_age);
        let mut records = db
            .read(|tx| {
                let rows = tx.controller_jobs_of(ids, since)?;
                let mut records = match self.records(&rows, false, tx) {
                    Ok(records) => records,
                    Err(e) => return Ok(Err(e)),
                };
                let waiting: Vec<u32> = records
                    .iter()
                    .filter(|r| plan::is_planned(r.state, &r.reason))
                    .map(|r| r.job_id)
                    .collect();
                if !waiting.is_empty() {
                    plan::apply(&mut records, &tx.plans(Some(&waiting))?);
                }
                Ok(Ok(records))
            })
            .map_err(sql)??;
        self.wake_runner_for(&records);
        records.retain(|r| r.named_by(ids));
        Ok(records)
    }

    fn accounting(&self, query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError> {
        let mut db = self.db()?;
        let records = db
            .read(|tx| {
                let rows = tx.accounting_jobs(&query.job_ids, &query.uids)?;
                let both = self.records(&rows, true, tx).and_then(|mut records| {
                    records.extend(self.earlier_runs(&rows, tx)?);
                    Ok(records)
                });
                Ok(both)
            })
            .map_err(sql)??;
        self.wake_runner_for(&records);
        Ok(records)
    }

    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        let s = &self.settings;
        let n = s.nodes.max(1);
        let gpus = if s.node.gpus > 0 {
            format!(",gres/gpu={}", s.node.gpus * n)
        } else {
            String::new()
        };
        Ok(s.all_partitions()
            .into_iter()
            .map(|p| PartitionRecord {
                name: p.name.clone(),
                is_default: p.default,
                availability: "up".into(),
                max_time: p.max_time,
                default_time: p.default_time,
                nodes: s.node_names(),
                total_cpus: s.node.cpus * n,
                def_mem_per_cpu: p.own_def_mem.then_some(p.def_mem_per_cpu),
                tres: Some(format!(
                    "cpu={},mem={},node={n},billing={}{gpus}",
                    s.node.cpus * n,
                    crate::model::units::mb_str(s.node.memory_mb * u64::from(n)),
                    s.node.cpus * n
                )),
                ..Default::default()
            })
            .collect())
    }

    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError> {
        let mut db = self.db()?;
        let (running, gpus_held, marks, suspended) = db
            .read(|tx| {
                Ok((
                    tx.running_allocations()?,
                    tx.running_gpus()?,
                    tx.node_marks()?,
                    tx.suspended_nodes()?,
                ))
            })
            .map_err(sql)?;
        let s = &self.settings;
        let names = s.node_names();
        // 24.11: the nodes of suspended jobs stay in use (MIXED) though their CPUs are free.
        let mut holds_suspended = vec![false; names.len()];
        if self.profile().sinfo.suspended_jobs_keep_node {
            for list in &suspended {
                let on = list
                    .as_deref()
                    .map_or_else(|| vec![0], |l| s.node_indexes(l));
                for i in on {
                    if let Some(h) = holds_suspended.get_mut(i) {
                        *h = true;
                    }
                }
            }
        }
        let mut gpus_used = vec![0u32; names.len()];
        for (list, held) in &gpus_held {
            for (i, devices) in s.node_indexes(list).into_iter().zip(gres::parse_held(held)) {
                if let Some(u) = gpus_used.get_mut(i) {
                    *u += devices.len() as u32;
                }
            }
        }
        let mut used = vec![(0u32, 0u64); names.len()];
        for (cpus, mem, nodes) in &running {
            let on = match nodes {
                Some(list) => s.node_indexes(list),
                None => vec![0],
            };
            let n = on.len().max(1) as u32;
            for i in on {
                if let Some(u) = used.get_mut(i) {
                    u.0 += cpus.div_ceil(n);
                    u.1 += mem.div_ceil(u64::from(n));
                }
            }
        }
        let mb = crate::model::units::mb_str;
        Ok(names
            .into_iter()
            .zip(used)
            .zip(gpus_used)
            .zip(holds_suspended)
            .map(
                |(((name, (alloc_cpus, alloc_mem)), alloc_gpus), suspended_here)| {
                    let alloc_cpus = alloc_cpus.min(s.node.cpus);
                    let mark = marks.iter().find(|m| m.name == name);
                    let flags = mark.map_or(0, |m| m.flags);
                    let state = if flags & node_state::DOWN != 0 {
                        NodeState::Down
                    } else if alloc_cpus == 0 && suspended_here {
                        NodeState::Mixed
                    } else if alloc_cpus == 0 {
                        NodeState::Idle
                    } else if alloc_cpus >= s.node.cpus {
                        NodeState::Allocated
                    } else {
                        NodeState::Mixed
                    };
                    let reason = mark.and_then(|m| m.reason.clone());
                    let reason_uid = mark.and_then(|m| m.reason_uid);
                    NodeRecord {
                        state_flags: flags & (node_state::DRAIN | node_state::FAIL),
                        reason_time: reason.as_ref().and(mark.and_then(|m| m.reason_time)),
                        reason_user: reason_uid.map(crate::sys::user_name),
                        reason_uid,
                        reason,
                        name,
                        hostname: crate::sys::short_hostname(),
                        address: crate::sys::short_hostname(),
                        state,
                        cpus: s.node.cpus,
                        alloc_cpus,
                        sockets: 1,
                        cores_per_socket: s.node.cpus,
                        threads_per_core: 1,
                        boards: 1,
                        real_memory: s.node.memory_mb,
                        alloc_memory: alloc_mem,
                        free_memory: crate::sys::meminfo_mb("MemFree"),
                        tmp_disk: 0,
                        weight: 1,
                        cpu_load: crate::sys::load_average(),
                        partitions: s.all_partitions().iter().map(|p| p.name.clone()).collect(),
                        gres: (s.node.gpus > 0).then(|| format!("gpu:{}", s.node.gpus)),
                        boot_time: crate::sys::boot_time(),
                        os: crate::sys::os_description(),
                        arch: crate::sys::machine(),
                        version: self.profile().release.text(),
                        cfg_tres: Some(format!(
                            "cpu={},mem={},billing={}{}",
                            s.node.cpus,
                            mb(s.node.memory_mb),
                            s.node.cpus,
                            if s.node.gpus > 0 {
                                format!(",gres/gpu={}", s.node.gpus)
                            } else {
                                String::new()
                            }
                        )),
                        alloc_tres: (alloc_cpus > 0).then(|| {
                            let gpus = if alloc_gpus > 0 {
                                format!(",gres/gpu={alloc_gpus}")
                            } else {
                                String::new()
                            };
                            format!("cpu={alloc_cpus},mem={}{gpus}", mb(alloc_mem))
                        }),
                        ..Default::default()
                    }
                },
            )
            .collect())
    }

    fn allocation(&self, job_id: u32) -> Result<Option<super::AllocationDetails>, BackendError> {
        let mut db = self.db()?;
        let record = db
            .read(|tx| {
                let Some(row) = tx.job(job_id)? else {
                    return Ok(Err(SlurmErrno::InvalidJobId));
                };
                if row.state.is_finished() {
                    return Ok(Err(SlurmErrno::AlreadyDone));
                }
                let gpus = tx.job_gpus(job_id)?;
                Ok(Ok((
                    self.records(std::slice::from_ref(&row), false, tx),
                    gpus,
                )))
            })
            .map_err(sql)?
            .map_err(BackendError::Slurm)?;
        let (records, gpus) = record;
        let gpus = gpus
            .map(|h| gres::parse_held(&h).into_iter().next().unwrap_or_default())
            .unwrap_or_default();
        let Some(record) = records?
            .into_iter()
            .next()
            .filter(|r| r.state == JobState::Running)
        else {
            self.wake_runner();
            return Ok(None);
        };
        let Some(file) = steps::AllocationFile::read(&self.job_dir(job_id)) else {
            return Ok(None);
        };
        Ok(Some(super::AllocationDetails {
            cpus_per_node: record.num_cpus / (file.nodes.len().max(1) as u32),
            nodes: file.nodes,
            secret: file.secret,
            gpus,
            record,
            remote: false,
        }))
    }

    fn release(&self, job_id: u32, exit: crate::model::ExitStatus) -> Result<(), BackendError> {
        let mut db = self.db()?;
        let now = crate::sys::now();
        let row = db
            .write(|tx| {
                let Some(mut row) = tx.job(job_id)? else {
                    return Ok(None);
                };
                if row.state.is_finished() {
                    return Ok(None);
                }
                row.state = if exit.is_success() {
                    JobState::Completed
                } else {
                    JobState::Failed
                };
                // A success leaves the reason the job had (a hold's, when held).
                if !exit.is_success() {
                    row.reason = "NonZeroExitCode".into();
                }
                row.exit = exit;
                row.end_time = Some(now);
                row.flag = Default::default();
                tx.update_job(&row)?;
                Ok(Some(row))
            })
            .map_err(sql)?;
        if let Some(row) = row {
            // The launcher sees the job finished and leaves, taking any steps along.
            deliver(&row, &SignalRequest::cancel(0), true);
        }
        self.wake_runner();
        Ok(())
    }

    fn warnings(&self) -> Vec<String> {
        let mut v = std::mem::take(&mut *self.skipped.borrow_mut());
        v.sort();
        v.dedup();
        v
    }

    fn config(&self) -> Vec<(String, String)> {
        let s = &self.settings;
        vec![
            (
                "DefMemPerCPU".into(),
                s.partition.def_mem_per_cpu.to_string(),
            ),
            ("KillWait".into(), format!("{} sec", s.kill_wait)),
            ("MaxArraySize".into(), s.max_array_size.to_string()),
            ("MinJobAge".into(), format!("{} sec", s.min_job_age)),
            ("SchedulerType".into(), "sched/builtin".into()),
            ("SelectType".into(), "select/cons_tres".into()),
        ]
        .into_iter()
        .chain(priority::config_entries(s.priority_type()))
        .collect()
    }

    fn submit(&self, spec: &JobSpec, user: &UserInfo) -> Result<u32, SubmitError> {
        self.submit_job(spec, user, crate::sys::now())
    }

    fn will_run(&self, spec: &JobSpec, user: &UserInfo) -> Result<WillRun, SubmitError> {
        crate::backend::check_script_size(spec, self.settings.max_script_size)?;
        self.accepts(spec)?;
        self.will_run_job(spec, user, crate::sys::now())
    }

    /// The local backend sends no requests: it stores the job. Its translation is the
    /// record the job would start as (job id 0: none is taken), as squeue, sacct and
    /// scontrol would read it.
    fn translate(&self, spec: &JobSpec, user: &UserInfo) -> Result<Translation, SubmitError> {
        self.validate(spec)?;
        let spec = self.settled(spec, user)?;
        let row = self.new_row(
            0,
            &spec,
            user,
            crate::sys::now(),
            priority::basic_first(0, 0),
        );
        let record = records::job_record(&row, &spec, &[], &self.ctx(), false);
        Ok(Translation {
            backend: "local",
            job_id: None,
            requests: vec![serde_json::json!({ "record": record })],
        })
    }

    fn signal(&self, target: &JobSelector, req: &SignalRequest) -> Result<(), BackendError> {
        self.signal_job(target, req, crate::sys::now())
    }

    fn hold(
        &self,
        target: &JobSelector,
        kind: Option<HoldKind>,
        requester: u32,
    ) -> Result<(), BackendError> {
        self.hold_job(target, kind, requester)
    }

    fn update(
        &self,
        target: &JobSelector,
        change: &crate::model::JobUpdate,
        requester: u32,
    ) -> Result<super::JobReply, BackendError> {
        self.update_jobs(target, change, requester, crate::sys::now())
    }

    fn requeue(
        &self,
        target: &JobSelector,
        how: crate::model::RequeueRequest,
        requester: u32,
    ) -> Result<super::JobReply, BackendError> {
        self.requeue_jobs(target, how, requester, crate::sys::now())
    }

    fn batch_script(&self, job_id: u32, requester: u32) -> Result<Vec<u8>, BackendError> {
        self.batch_script_of(job_id, requester)
    }

    fn notify(&self, job_id: u32, message: &str, requester: u32) -> Result<(), BackendError> {
        self.notify_job(job_id, message, requester)
    }

    fn update_nodes(
        &self,
        update: &crate::model::NodeUpdate,
        requester: u32,
    ) -> Result<(), BackendError> {
        self.update_node_marks(update, requester)
    }

    fn suspend(
        &self,
        target: &JobSelector,
        resume: bool,
        requester: u32,
    ) -> Result<(), BackendError> {
        self.suspend_jobs(target, resume, requester)
    }

    fn top(&self, targets: &[JobSelector], requester: u32) -> Result<(), BackendError> {
        self.top_jobs(targets, requester)
    }
}

/// `_valid_job_part`'s look at `--deadline` at submission: already past, or too close for
/// the job's `--time-min` (or its time limit: on 22.05 only with a time-min of 0; on 24.11,
/// `as_of_24_11`, whenever it has no time-min, and from its `--begin` time on).
fn deadline_check(spec: &JobSpec, now: i64, as_of_24_11: bool) -> Result<(), SubmitError> {
    use crate::model::TimeLimit;
    let Some(deadline) = spec.deadline else {
        return Ok(());
    };
    let earliest = if as_of_24_11 {
        spec.begin.unwrap_or(now).max(now)
    } else {
        now
    };
    if deadline < earliest {
        return Err(SubmitError::errno(SlurmErrno::InvalidTimeLimit));
    }
    let by_limit = |l: u32| deadline < earliest + i64::from(l) * 60;
    match (spec.time_min, spec.time_limit) {
        (Some(TimeLimit::Minutes(m)), _) if m > 0 => {
            if by_limit(m) {
                Err(SubmitError::errno(SlurmErrno::InvalidTimeMinLimit))
            } else {
                Ok(())
            }
        }
        // `--time-min=0` (which bai-slurm reads as no minimum), or on 24.11 none at all
        (Some(TimeLimit::Infinite), Some(TimeLimit::Minutes(l))) if by_limit(l) => {
            Err(SubmitError::errno(SlurmErrno::InvalidTimeLimit))
        }
        (None, Some(TimeLimit::Minutes(l))) if as_of_24_11 && by_limit(l) => {
            Err(SubmitError::errno(SlurmErrno::InvalidTimeLimit))
        }
        _ => Ok(()),
    }
}
