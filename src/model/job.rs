//! Job, step, partition and node records: what backends supply and renderers print.

use super::array::ArrayPart;
use super::exit::ExitStatus;
use super::state::{JobState, StateFlag};
use super::time_limit::TimeLimit;
use serde::{Deserialize, Serialize};

/// Memory requested by a job, in megabytes, the way Slurm keeps it (per node or per CPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemoryRequest {
    /// `--mem`; 0 means all the memory of each node.
    PerNode(u64),
    /// `--mem-per-cpu` or the partition's DefMemPerCPU.
    PerCpu(u64),
}

impl Default for MemoryRequest {
    fn default() -> Self {
        MemoryRequest::PerNode(0)
    }
}

impl MemoryRequest {
    /// The number the user asked for, per node or per CPU (squeue's MIN_MEMORY).
    pub fn mb(self) -> u64 {
        match self {
            MemoryRequest::PerNode(mb) | MemoryRequest::PerCpu(mb) => mb,
        }
    }

    /// Memory of the whole allocation on one node with `cpus` CPUs.
    pub fn per_node_mb(self, cpus: u32) -> u64 {
        match self {
            MemoryRequest::PerNode(mb) => mb,
            MemoryRequest::PerCpu(mb) => mb.saturating_mul(u64::from(cpus)),
        }
    }
}

/// A job as the controller knows it (one row of `squeue`, one `scontrol show job` block,
/// and with its steps the rows of `sacct`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobRecord {
    pub job_id: u32,
    pub array: Option<ArrayPart>,
    pub name: String,
    pub user: String,
    pub uid: u32,
    pub group: String,
    pub gid: u32,
    pub account: Option<String>,
    pub partition: String,
    pub qos: Option<String>,
    pub state: JobState,
    pub flag: StateFlag,
    /// `None`, a reason name such as `Resources`, or a free-text description.
    pub reason: String,
    pub priority: u32,
    pub nice: i32,
    pub submit_time: i64,
    pub eligible_time: Option<i64>,
    pub accrue_time: Option<i64>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub last_sched_eval: Option<i64>,
    pub time_limit: TimeLimit,
    pub num_nodes: u32,
    pub num_cpus: u32,
    /// `-n` when the user gave it; None prints `N/A` where Slurm does.
    pub num_tasks: Option<u32>,
    /// Whether the job asked for a task count (`-n`, or tasks per node on a fixed node
    /// count): slurmctld's JOB_NTASKS_SET, `EXACT_TASK_COUNT_REQUESTED` in 24.11's JSON.
    /// `num_tasks` cannot tell: slurmctld shows a count either way.
    pub ntasks_requested: bool,
    /// The job's last step completed after the job itself (an allocation srun made for
    /// its own step, once it ran and ended): slurmctld then computes the job's TRES
    /// strings again (TRES_STR_CALC, `SKIP_TRES_STRING_ACCOUNTING` in 24.11's JSON).
    pub step_ended_after_job: bool,
    pub cpus_per_task: u32,
    pub ntasks_per_node: Option<u32>,
    pub memory: MemoryRequest,
    /// Allocated nodes, compressed; None while pending.
    pub nodes: Option<String>,
    pub batch_host: Option<String>,
    pub req_nodes: Option<String>,
    pub exc_nodes: Option<String>,
    pub features: Option<String>,
    /// Command line: script path and arguments.
    pub command: String,
    pub work_dir: String,
    pub std_out: String,
    pub std_err: String,
    pub std_in: String,
    pub exit_code: ExitStatus,
    pub derived_exit_code: ExitStatus,
    /// Remaining dependencies as squeue prints them, e.g. `afterok:12(unfulfilled)`.
    pub dependency: Option<String>,
    /// Uid of the user who cancelled the job (sacct's `CANCELLED by <uid>`).
    pub cancelled_by: Option<u32>,
    /// `gres:gpu:2` style request, squeue's TRES_PER_NODE.
    pub tres_per_node: Option<String>,
    pub comment: Option<String>,
    pub batch: bool,
    pub requeue: bool,
    pub restarts: u32,
    pub alloc_node: String,
    pub alloc_sid: u32,
    pub cluster: String,
    pub steps: Vec<StepRecord>,
    // ---- Added for the renderers (squeue/sacct/scontrol); `None`/0 prints Slurm's "unset" text.
    /// `ArrayTaskThrottle` of an array task record (the pending meta record keeps it in
    /// [`ArrayPart::Pending`]).
    pub array_throttle: Option<u32>,
    /// `--time-min` in minutes.
    pub time_min: Option<u32>,
    /// Upper ends of `-N min-max` / CPU ranges; 0 = no range.
    pub max_nodes: u32,
    pub max_cpus: u32,
    /// `--mincpus`: squeue %c, scontrol MinCPUsNode.
    pub min_cpus_per_node: u32,
    /// `--tmp` in MB.
    pub min_tmp_disk: u64,
    /// Nodes the scheduler plans to use for a pending job (squeue %Y).
    pub sched_nodes: Option<String>,
    /// TRES strings exactly as the controller shows them (`cpu=1,mem=1G,node=1,billing=1`);
    /// when unset, [`JobRecord::tres`] is used.
    pub tres_req: Option<String>,
    pub tres_alloc: Option<String>,
    pub licenses: Option<String>,
    pub reservation: Option<String>,
    pub wckey: Option<String>,
    pub network: Option<String>,
    pub mcs_label: Option<String>,
    pub contiguous: bool,
    pub reboot: bool,
    /// `--oversubscribe`/`--exclusive` as `job_share_string` prints it; None = `OK`.
    pub over_subscribe: Option<String>,
    pub boards_per_node: Option<u16>,
    pub sockets_per_node: Option<u16>,
    pub cores_per_socket: Option<u16>,
    pub threads_per_core: Option<u16>,
    pub ntasks_per_board: Option<u16>,
    pub ntasks_per_socket: Option<u16>,
    pub ntasks_per_core: Option<u16>,
    pub core_spec: Option<u16>,
    pub deadline: Option<i64>,
    pub suspend_time: Option<i64>,
    /// Seconds run before the last suspension.
    pub pre_sus_time: i64,
    pub preempt_time: Option<i64>,
    pub resize_time: Option<i64>,
    /// `--delay-boot` in seconds.
    pub delay_boot: u32,
    pub assoc_id: u32,
    pub admin_comment: Option<String>,
    pub system_comment: Option<String>,
    pub container: Option<String>,
    pub burst_buffer: Option<String>,
    pub cluster_features: Option<String>,
    pub prefer: Option<String>,
    pub batch_features: Option<String>,
    pub tres_per_job: Option<String>,
    pub tres_per_socket: Option<String>,
    pub tres_per_task: Option<String>,
    pub cpus_per_tres: Option<String>,
    pub mem_per_tres: Option<String>,
    pub tres_bind: Option<String>,
    pub tres_freq: Option<String>,
    pub mail_user: Option<String>,
    pub mail_type: Option<String>,
    /// `--kill-on-invalid-dep`: scontrol's `KillOInInvalidDependent=Yes|No` line.
    pub kill_on_invalid_dep: Option<bool>,
    /// Total GRES of the allocation (scontrol -d `JOB_GRES=`).
    pub gres_total: Option<String>,
    /// Per-node allocation details (scontrol -d `Nodes=... CPU_IDs=... Mem=...`).
    pub node_alloc: Vec<NodeAllocation>,
    /// The command line that submitted the job (sacct SubmitLine).
    pub submit_line: Option<String>,
    /// The backfill scheduler started the job (scontrol `Scheduler=Backfill`).
    pub backfill_scheduled: bool,
    /// Time the job has been suspended, in seconds (sacct Suspended).
    pub suspended_secs: i64,
    // ---- Added for `--json`/`--yaml` (the OpenAPI v0.0.38 dumps).
    /// Slurm's reason name (`Resources`) when `reason` holds a free-text state description
    /// instead; None when `reason` is itself the name. squeue --json shows both
    /// (`state_reason` and `state_description`).
    pub reason_code: Option<String>,
    /// The -o/-e/-i path patterns as submitted (absolute, `%j` not expanded), where the
    /// backend knows them: Slurm 24.11's squeue `-O STDOUT` and sacct `StdOut` print these
    /// rather than the expanded paths above.
    #[serde(default)]
    pub io_patterns: Option<IoPatterns>,
}

/// A job's -o, -e and -i path patterns (`/work/slurm-%j.out`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct IoPatterns {
    pub std_out: String,
    pub std_err: String,
    pub std_in: String,
}

impl JobRecord {
    /// `%i`: `12`, `13_0`, `13_[1-3%2]`; a meta record left with no task (all of them
    /// cancelled) is shown by its job id alone.
    pub fn array_display_id(&self) -> String {
        match &self.array {
            None => self.job_id.to_string(),
            Some(ArrayPart::Pending { tasks, .. }) if tasks.is_empty() => self.job_id.to_string(),
            Some(a) => format!("{}_{}", a.array_job_id(), a.task_display()),
        }
    }

    pub fn array_job_id(&self) -> u32 {
        self.array
            .as_ref()
            .map_or(self.job_id, ArrayPart::array_job_id)
    }

    /// Whether one of `ids` names this record: its own job id, or its array's.
    pub fn named_by(&self, ids: &[u32]) -> bool {
        ids.contains(&self.job_id) || ids.contains(&self.array_job_id())
    }

    /// Seconds the job has run by `now` (0 while pending).
    pub fn run_seconds(&self, now: i64) -> i64 {
        match self.start_time {
            None => 0,
            Some(start) => {
                if self.state == JobState::Pending {
                    return 0;
                }
                let end = if self.state.is_finished() {
                    self.end_time.unwrap_or(now)
                } else {
                    now
                };
                (end - start).max(0)
            }
        }
    }

    /// Memory of the allocation per node in MB, as TRES `mem=` shows it.
    pub fn memory_per_node_mb(&self) -> u64 {
        self.memory
            .per_node_mb(self.num_cpus / self.num_nodes.max(1))
    }

    /// `cpu=1,mem=1G,node=1,billing=1`.
    pub fn tres(&self) -> String {
        self.tres_with_cpus(self.num_cpus)
    }

    /// [`JobRecord::tres`] of `cpus` CPUs rather than the record's (an exclusive job's
    /// request beside the whole node it was given).
    pub fn tres_with_cpus(&self, cpus: u32) -> String {
        let nodes = self.num_nodes.max(1);
        let mem = self
            .memory
            .per_node_mb(cpus / nodes)
            .saturating_mul(u64::from(nodes));
        let mut s = format!("cpu={cpus},mem={}", super::units::mb_str(mem));
        s.push_str(&format!(",node={},billing={cpus}", self.num_nodes));
        // GPUs: per node (`gres:gpu[:type]:N`) times the nodes, or for the whole job.
        let count = |t: &Option<String>| -> Option<u32> {
            t.as_deref()?
                .split(',')
                .filter_map(|g| {
                    g.strip_prefix("gres:gpu")
                        .or_else(|| g.strip_prefix("gres/gpu"))
                })
                .map(|g| {
                    g.rsplit([':', '='])
                        .next()
                        .and_then(|c| c.parse::<u32>().ok())
                })
                .sum::<Option<u32>>()
                .filter(|&n| n > 0)
        };
        // Per task (22.05's `gres:gpu:N`, 24.11's `gres/gpu=N` among other TRES) times tasks.
        let gpus = count(&self.tres_per_node)
            .map(|n| n.saturating_mul(self.num_nodes.max(1)))
            .or_else(|| count(&self.tres_per_job))
            .or_else(|| {
                count(&self.tres_per_task)
                    .map(|n| n.saturating_mul(self.num_tasks.unwrap_or(1).max(1)))
            });
        if let Some(n) = gpus.filter(|&n| n > 0) {
            s.push_str(&format!(",gres/gpu={n}"));
        }
        s
    }
}

/// Which step of a job a step record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum StepId {
    #[default]
    Batch,
    Extern,
    Interactive,
    Numbered(u32),
}

impl StepId {
    pub fn suffix(self) -> String {
        match self {
            StepId::Batch => "batch".to_string(),
            StepId::Extern => "extern".to_string(),
            StepId::Interactive => "interactive".to_string(),
            StepId::Numbered(n) => n.to_string(),
        }
    }

    pub fn parse(s: &str) -> Option<StepId> {
        match s {
            "batch" => Some(StepId::Batch),
            "extern" => Some(StepId::Extern),
            "interactive" => Some(StepId::Interactive),
            n => n.parse().ok().map(StepId::Numbered),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StepRecord {
    pub step_id: StepId,
    pub name: String,
    pub state: JobState,
    pub exit_code: ExitStatus,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub num_cpus: u32,
    pub num_tasks: u32,
    pub num_nodes: u32,
    pub nodes: String,
    // ---- Added for the renderers.
    /// Uid that cancelled the step (sacct prints `CANCELLED by <uid>`).
    pub cancelled_by: Option<u32>,
    /// The step's time limit in minutes (squeue -s TIME_LIMIT); None = UNLIMITED.
    pub time_limit: Option<u32>,
    // ---- Added for sacct `--json`/`--yaml` (what slurmdbd keeps for a step).
    /// TRES allocated to the step (`cpu=1,mem=1G,node=1`); None = derived from the step's
    /// CPUs and nodes.
    pub tres_alloc: Option<String>,
    /// CPU time used in user and in system mode.
    pub user_cpu: CpuTime,
    pub system_cpu: CpuTime,
    /// Usage statistics gathered while the step ran (sacct's TRESUsageIn*/Out* fields);
    /// empty when none were gathered.
    pub usage: StepUsage,
}

/// CPU time as slurmdbd stores it: whole seconds and microseconds, kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CpuTime {
    pub secs: u64,
    pub usecs: u64,
}

/// One TRES figure of a step's usage statistics.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TresUsage {
    /// TRES name: `cpu`, `mem`, `energy`, `fs/disk`, `vmem`, `pages`, `gres/gpu`, ...
    pub tres: String,
    /// The value (memory-like TRES in bytes, CPU in seconds).
    pub count: u64,
    /// For maxima and minima: the node and the task where it was reached.
    pub node: Option<String>,
    pub task: u64,
}

/// A step's usage statistics: `in` is what sacct calls TRESUsageIn (read, memory, CPU),
/// `out` TRESUsageOut (written); average, total, maximum and minimum.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StepUsage {
    pub in_ave: Vec<TresUsage>,
    pub in_tot: Vec<TresUsage>,
    pub in_max: Vec<TresUsage>,
    pub in_min: Vec<TresUsage>,
    pub out_ave: Vec<TresUsage>,
    pub out_tot: Vec<TresUsage>,
    pub out_max: Vec<TresUsage>,
    pub out_min: Vec<TresUsage>,
}

/// One group of nodes with identical allocation, as scontrol -d lists them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NodeAllocation {
    /// Node names, compressed (`node[01-02]`).
    pub nodes: String,
    /// CPU ids on each node, as a range list (`0-1`).
    pub cpu_ids: String,
    /// Memory allocated on each node, in MB.
    pub mem_mb: u64,
    /// GRES detail (`gpu:2(IDX:0-1)`), empty when none.
    pub gres: String,
}

/// A partition as sinfo and scontrol show it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PartitionRecord {
    pub name: String,
    pub is_default: bool,
    /// `up`, `down`, `drain` or `inactive`.
    pub availability: String,
    pub max_time: TimeLimit,
    pub default_time: Option<TimeLimit>,
    pub nodes: Vec<String>,
    pub total_cpus: u32,
    pub def_mem_per_cpu: Option<u64>,
    // ---- Added for sinfo/scontrol; `None` prints Slurm's default text.
    pub allow_groups: Option<String>,
    pub allow_accounts: Option<String>,
    pub deny_accounts: Option<String>,
    pub allow_qos: Option<String>,
    pub deny_qos: Option<String>,
    pub allow_alloc_nodes: Option<String>,
    pub alternate: Option<String>,
    /// Partition QOS (`QoS=`).
    pub qos: Option<String>,
    pub hidden: bool,
    pub root_only: bool,
    pub exclusive_user: bool,
    pub disable_root_jobs: bool,
    pub lln: bool,
    pub req_resv: bool,
    pub grace_time: u32,
    /// None = UNLIMITED.
    pub max_nodes: Option<u32>,
    pub min_nodes: u32,
    /// None = UNLIMITED.
    pub max_cpus_per_node: Option<u32>,
    /// None = 1, Slurm's default.
    pub priority_job_factor: Option<u32>,
    /// None = 1, Slurm's default.
    pub priority_tier: Option<u32>,
    /// `NO` (default), `EXCLUSIVE`, `YES:4`, `FORCE:4`.
    pub oversubscribe: Option<String>,
    /// None = `NONE`.
    pub over_time_limit: Option<u32>,
    /// None = `OFF`.
    pub preempt_mode: Option<String>,
    /// None = `NONE`.
    pub select_type_parameters: Option<String>,
    pub job_defaults: Option<String>,
    pub def_mem_per_node: Option<u64>,
    pub max_mem_per_cpu: Option<u64>,
    pub max_mem_per_node: Option<u64>,
    /// Configured TRES (`cpu=2,mem=16000M,node=1,billing=2`).
    pub tres: Option<String>,
    pub billing_weights: Option<String>,
}

/// A node's scheduling state, as sinfo's compact and long names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum NodeState {
    #[default]
    Idle,
    Mixed,
    Allocated,
    Down,
    Drained,
    Draining,
}

impl NodeState {
    pub fn compact(self) -> &'static str {
        match self {
            NodeState::Idle => "idle",
            NodeState::Mixed => "mix",
            NodeState::Allocated => "alloc",
            NodeState::Down => "down",
            NodeState::Drained => "drain",
            NodeState::Draining => "drng",
        }
    }
    pub fn long(self) -> &'static str {
        match self {
            NodeState::Idle => "idle",
            NodeState::Mixed => "mixed",
            NodeState::Allocated => "allocated",
            NodeState::Down => "down",
            NodeState::Drained => "drained",
            NodeState::Draining => "draining",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NodeRecord {
    pub name: String,
    pub hostname: String,
    pub address: String,
    pub state: NodeState,
    pub cpus: u32,
    pub alloc_cpus: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    /// RealMemory in MB.
    pub real_memory: u64,
    pub alloc_memory: u64,
    pub free_memory: Option<u64>,
    pub tmp_disk: u64,
    pub weight: u32,
    pub features: Option<String>,
    pub gres: Option<String>,
    pub reason: Option<String>,
    pub cpu_load: Option<f64>,
    pub partitions: Vec<String>,
    pub boot_time: Option<i64>,
    pub slurmd_start_time: Option<i64>,
    pub os: String,
    pub arch: String,
    pub version: String,
    // ---- Added for sinfo/scontrol.
    /// Extra NODE_STATE_* flag bits beyond what `state` implies (see
    /// [`crate::model::node_state`]), e.g. NOT_RESPONDING or MAINTENANCE.
    pub state_flags: u32,
    pub boards: u32,
    pub features_active: Option<String>,
    pub gres_used: Option<String>,
    pub last_busy: Option<i64>,
    /// `CfgTRES=`.
    pub cfg_tres: Option<String>,
    /// `AllocTRES=`.
    pub alloc_tres: Option<String>,
    pub reason_time: Option<i64>,
    pub reason_uid: Option<u32>,
    /// Name of the user who set the reason (sinfo -R USER).
    pub reason_user: Option<String>,
    pub owner: Option<u32>,
    pub mcs_label: Option<String>,
    pub comment: Option<String>,
    pub extra: Option<String>,
    pub current_watts: Option<u32>,
    pub ave_watts: Option<u32>,
    pub ext_sensors_joules: Option<u64>,
    pub ext_sensors_watts: Option<u32>,
    pub ext_sensors_temp: Option<u32>,
    // ---- Added for sinfo `--json`/`--yaml`.
    /// The port slurmd listens on; None = 6818, Slurm's default.
    pub port: Option<u16>,
}
