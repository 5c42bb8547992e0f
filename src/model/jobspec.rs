//! JobSpec: a typed, validated job request. The option layer builds it from the command
//! line, `#SBATCH` directives and the environment; every backend consumes it.

use super::dependency::Dependency;
use super::time_limit::TimeLimit;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An array request: the task ids to create, the throttle, and the values the tasks see
/// in SLURM_ARRAY_TASK_{COUNT,MIN,MAX,STEP}.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayRequest {
    pub tasks: Vec<u32>,
    pub throttle: Option<u32>,
    pub step: u32,
}

/// `--open-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpenMode {
    Append,
    Truncate,
}

/// `--signal=[{R|B}:]sig[@secs]`: a warning signal sent `secs` before the time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarnSignal {
    pub signal: i32,
    pub seconds_before: u32,
    /// `B:` only the batch shell is signalled.
    pub batch_only: bool,
}

/// A GPU request in whole devices or, on Backend.AI, fractions of a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuRequest {
    pub gpu_type: Option<String>,
    pub count: f64,
    pub per: GpuPer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GpuPer {
    Job,
    Node,
    Task,
}

/// A container to run the job in (pyxis option names).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ContainerRequest {
    pub image: Option<String>,
    pub mounts: Vec<String>,
    pub workdir: Option<String>,
    pub name: Option<String>,
}

/// Stored submissions outlive versions of bai-slurm: fields added later read as defaults.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JobSpec {
    pub name: String,
    /// The batch script's bytes, copied at submit time.
    pub script: Vec<u8>,
    /// Script arguments (after the script name on the sbatch command line).
    pub script_args: Vec<String>,
    /// `Command=` as scontrol shows it: the script's absolute path, or empty for stdin/--wrap.
    pub command: String,
    pub work_dir: String,
    pub submit_dir: String,
    pub submit_host: String,
    /// -o/-e/-i patterns, absolute (made so against the work dir at submit time).
    pub stdout: Option<String>,
    pub stderr: Option<String>,
    pub stdin: Option<String>,
    pub open_mode: Option<OpenMode>,
    pub time_limit: Option<TimeLimit>,
    pub time_min: Option<TimeLimit>,
    pub nodes_min: Option<u32>,
    pub nodes_max: Option<u32>,
    pub ntasks: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    /// `--mem` in MB (0 = all of the node).
    pub mem_per_node: Option<u64>,
    pub mem_per_cpu: Option<u64>,
    pub gpus: Option<GpuRequest>,
    /// `--gres` as given (normalised `gpu:2` style entries).
    pub gres: Vec<String>,
    pub partition: Option<String>,
    pub account: Option<String>,
    pub qos: Option<String>,
    pub comment: Option<String>,
    pub array: Option<ArrayRequest>,
    /// The raw `--array` value, kept for messages.
    pub array_raw: Option<String>,
    pub dependency: Option<Dependency>,
    pub dependency_raw: Option<String>,
    pub hold: bool,
    /// An allocation without a batch script (srun outside a job, salloc): the caller runs
    /// the steps and gives the allocation back.
    pub interactive: bool,
    /// The srun/salloc process holding an interactive allocation (pid, kernel start time):
    /// when it is gone, so is the allocation.
    pub owner: Option<(i32, u64)>,
    pub begin: Option<i64>,
    pub nice: Option<i32>,
    pub priority: Option<u32>,
    pub requeue: Option<bool>,
    pub signal: Option<WarnSignal>,
    pub mail_type: Option<String>,
    pub mail_user: Option<String>,
    pub nodelist: Option<String>,
    pub exclude: Option<String>,
    pub constraint: Option<String>,
    pub exclusive: bool,
    /// `--mincpus`: at least this many CPUs on each node.
    pub min_cpus: Option<u32>,
    /// `--kill-on-invalid-dep=yes`: cancel the job when its dependency can never be met.
    pub kill_on_invalid_dep: bool,
    pub reservation: Option<String>,
    pub licenses: Option<String>,
    pub container: ContainerRequest,
    /// The environment the job starts with (already filtered by --export).
    pub environment: BTreeMap<String, String>,
    /// `SLURM_EXPORT_ENV` value when --export was not ALL.
    pub export_env: Option<String>,
    /// Session id of the submitting process (scontrol's AllocNode:Sid).
    pub submit_sid: u32,
    /// The submitter's umask, applied to the job (SLURM_UMASK).
    pub umask: Option<u32>,
    /// Options that have no effect here, recorded so `scontrol show job`/translate can say so.
    pub ignored: Vec<String>,
}

impl JobSpec {
    /// CPUs the job needs on its node(s): ntasks × cpus-per-task (at least 1).
    pub fn cpus(&self) -> u32 {
        let tasks = self
            .ntasks
            .unwrap_or_else(|| self.ntasks_per_node.unwrap_or(1) * self.nodes_min.unwrap_or(1));
        (tasks * self.cpus_per_task.unwrap_or(1))
            .max(self.min_cpus.unwrap_or(1))
            .max(1)
    }

    pub fn nodes(&self) -> u32 {
        self.nodes_min.unwrap_or(1).max(1)
    }
}
