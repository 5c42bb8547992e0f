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

impl ArrayRequest {
    /// The throttle (`%N`) when it holds some task back: N below the number of tasks.
    pub fn limiting_throttle(&self) -> Option<u32> {
        self.throttle
            .filter(|&t| t > 0 && (t as usize) < self.tasks.len())
    }
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
    /// The command line that submitted the job, its words joined by spaces (sacct
    /// SubmitLine); None for requests that did not come from a command line.
    pub submit_line: Option<String>,
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
    /// 24.11's TRES per task as the client wrote it (`cpu=2,gres/gpu=1`: `--tres-per-task`
    /// with `--cpus-per-task` and `--gpus-per-task` written in); None under 22.05.
    pub tres_per_task: Option<String>,
    /// `--cpus-per-gpu` and `--mem-per-gpu` (MB).
    pub cpus_per_gpu: Option<u32>,
    pub mem_per_gpu: Option<u64>,
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
    /// An allocation srun made for its own step (not salloc's): slurmctld completes such
    /// a job before the step's end reaches it.
    pub made_by_srun: bool,
    /// The srun/salloc process holding an interactive allocation (pid, kernel start time):
    /// when it is gone, so is the allocation.
    pub owner: Option<(i32, u64)>,
    pub begin: Option<i64>,
    /// `--deadline`: the job is ended (DEADLINE) when it can no longer end before this.
    pub deadline: Option<i64>,
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
    /// `scontrol update NumCPUs=`: at least this many CPUs in all (slurmctld's job
    /// `min_cpus`, which leaves MinCPUsNode as it was).
    pub total_cpus: Option<u32>,
    /// `--kill-on-invalid-dep=yes|no`: cancel the job when its dependency can never be met
    /// (`Some(true)`), or leave it pending (`Some(false)`, also the default when unset).
    pub kill_on_invalid_dep: Option<bool>,
    /// `--immediate[=secs]` of salloc and srun: 1 asks the controller to start the job now
    /// or fail it (job_desc's `immediate`); more is how long the command waits for it.
    pub immediate: Option<u32>,
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
    /// The submitting shell's soft limits the job takes (`--propagate`; all by default).
    pub rlimits: Vec<super::rlimit::Propagated>,
    /// Options that have no effect here, recorded so `scontrol show job`/translate can say so.
    pub ignored: Vec<String>,
}

impl JobSpec {
    /// `--gres` (and `--gpus-per-node`) as slurmctld keeps it: `gres:gpu:1,gres:gpu:a100:2`.
    pub fn tres_per_node(&self) -> Option<String> {
        let mut items: Vec<String> = self
            .gres
            .iter()
            .filter(|g| g.as_str() != "none")
            .map(|g| format!("gres:{g}"))
            .collect();
        items.extend(self.gpus_tres(GpuPer::Node));
        (!items.is_empty()).then(|| items.join(","))
    }

    /// `--gpus`, `--gpus-per-node` or `--gpus-per-task` (whichever `per` names) as a TRES.
    pub fn gpus_tres(&self, per: GpuPer) -> Option<String> {
        let g = self
            .gpus
            .as_ref()
            .filter(|g| g.per == per && g.count > 0.0)?;
        let kind = g
            .gpu_type
            .as_ref()
            .map_or(String::new(), |t| format!("{t}:"));
        Some(format!("gres:gpu:{kind}{}", g.count))
    }

    /// `TresPerTask=`: 24.11's text, else (22.05, or a job submitted before) its GPUs per task.
    pub fn tres_per_task_shown(&self) -> Option<String> {
        self.tres_per_task
            .clone()
            .or_else(|| self.gpus_tres(GpuPer::Task))
    }

    /// The task count slurmctld records: `-n`, else tasks per node times nodes when the
    /// node count is fixed (sbatch's `_opt_verify`, job_mgr's `_job_create`).
    pub fn task_count(&self) -> Option<u32> {
        self.ntasks.or_else(|| {
            let per_node = self.ntasks_per_node.filter(|&n| n > 0)?;
            let min = self.nodes_min.unwrap_or(1).max(1);
            let fixed = self.nodes_max.is_none_or(|max| max == 0 || max == min);
            fixed.then(|| per_node.saturating_mul(min))
        })
    }

    /// `pn_min_cpus` (squeue %c, MinCPUsNode): `--mincpus`, CPUs per task, and CPUs per
    /// task times tasks per node for a job of several tasks (`_copy_job_desc_to_job_record`).
    pub fn min_cpus_per_node(&self) -> u32 {
        let cpt = self.cpus_per_task.unwrap_or(1).max(1);
        let per_node = match self.ntasks_per_node {
            Some(n) if n > 0 && self.task_count().unwrap_or(1) > 1 => cpt.saturating_mul(n),
            _ => 0,
        };
        self.min_cpus.unwrap_or(1).max(per_node).max(cpt)
    }

    /// CPUs the job needs on its node(s): ntasks × cpus-per-task (at least 1).
    pub fn cpus(&self) -> u32 {
        let tasks = self
            .ntasks
            .unwrap_or_else(|| self.ntasks_per_node.unwrap_or(1) * self.nodes_min.unwrap_or(1));
        (tasks * self.cpus_per_task.unwrap_or(1))
            .max(self.min_cpus.unwrap_or(1))
            .max(self.total_cpus.unwrap_or(1))
            .max(1)
    }

    pub fn nodes(&self) -> u32 {
        self.nodes_min.unwrap_or(1).max(1)
    }

    /// The job's TimeMin in minutes as slurmctld holds it: `--time-min`, or one minute for
    /// a job with a deadline and neither a time-min nor a time limit (`_job_create`).
    pub fn time_min_minutes(&self) -> Option<u32> {
        match (self.time_min, self.time_limit, self.deadline) {
            (Some(TimeLimit::Minutes(m)), _, _) => Some(m),
            (None, None, Some(_)) => Some(1),
            _ => None,
        }
    }
}

/// A part of a job request that a user sets with an option, as a backend sees it: each
/// backend declares what it does with every one of these (`backend::support`), so an
/// option that reaches a [`JobSpec`] can never be dropped silently by a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Name,
    Script,
    ScriptArgs,
    WorkDir,
    Stdout,
    Stderr,
    Stdin,
    OpenMode,
    TimeLimit,
    TimeMin,
    Nodes,
    Ntasks,
    CpusPerTask,
    NtasksPerNode,
    Memory,
    Gpus,
    CpusPerGpu,
    MemPerGpu,
    Gres,
    Partition,
    Account,
    Qos,
    Comment,
    Array,
    ArrayThrottle,
    Dependency,
    Hold,
    Begin,
    Deadline,
    Nice,
    Priority,
    Requeue,
    Signal,
    Mail,
    Nodelist,
    Exclude,
    Constraint,
    Exclusive,
    MinCpus,
    KillOnInvalidDep,
    Immediate,
    Reservation,
    Licenses,
    ContainerImage,
    ContainerMounts,
    ContainerWorkdir,
    ContainerName,
    Environment,
    Umask,
    Rlimits,
}

impl Field {
    /// The option that sets it, for messages.
    pub fn option(self) -> &'static str {
        match self {
            Field::Name => "--job-name",
            Field::Script => "the batch script",
            Field::ScriptArgs => "the script's arguments",
            Field::WorkDir => "--chdir",
            Field::Stdout => "--output",
            Field::Stderr => "--error",
            Field::Stdin => "--input",
            Field::OpenMode => "--open-mode",
            Field::TimeLimit => "--time",
            Field::TimeMin => "--time-min",
            Field::Nodes => "--nodes",
            Field::Ntasks => "--ntasks",
            Field::CpusPerTask => "--cpus-per-task",
            Field::NtasksPerNode => "--ntasks-per-node",
            Field::Memory => "--mem",
            Field::Gpus => "--gpus",
            Field::CpusPerGpu => "--cpus-per-gpu",
            Field::MemPerGpu => "--mem-per-gpu",
            Field::Gres => "--gres",
            Field::Partition => "--partition",
            Field::Account => "--account",
            Field::Qos => "--qos",
            Field::Comment => "--comment",
            Field::Array => "--array",
            Field::ArrayThrottle => "--array's %N throttle",
            Field::Dependency => "--dependency",
            Field::Hold => "--hold",
            Field::Begin => "--begin",
            Field::Deadline => "--deadline",
            Field::Nice => "--nice",
            Field::Priority => "--priority",
            Field::Requeue => "--requeue",
            Field::Signal => "--signal",
            Field::Mail => "--mail-type",
            Field::Nodelist => "--nodelist",
            Field::Exclude => "--exclude",
            Field::Constraint => "--constraint",
            Field::Exclusive => "--exclusive",
            Field::MinCpus => "--mincpus",
            Field::KillOnInvalidDep => "--kill-on-invalid-dep",
            Field::Immediate => "--immediate",
            Field::Reservation => "--reservation",
            Field::Licenses => "--licenses",
            Field::ContainerImage => "--container-image",
            Field::ContainerMounts => "--container-mounts",
            Field::ContainerWorkdir => "--container-workdir",
            Field::ContainerName => "--container-name",
            Field::Environment => "--export",
            Field::Umask => "the umask",
            Field::Rlimits => "--propagate",
        }
    }
}

impl JobSpec {
    /// The fields this request sets. The destructuring names every member of [`JobSpec`],
    /// so a member added later must be placed here (or declared not a user's choice).
    pub fn fields_set(&self) -> Vec<Field> {
        let JobSpec {
            name,
            script,
            script_args,
            // Facts about the submission, not choices: what the command line and the
            // submitting shell were.
            command: _,
            work_dir: _,
            submit_dir: _,
            submit_host: _,
            submit_line: _,
            stdout,
            stderr,
            stdin,
            open_mode,
            time_limit,
            time_min,
            nodes_min,
            nodes_max,
            ntasks,
            cpus_per_task,
            ntasks_per_node,
            mem_per_node,
            mem_per_cpu,
            gpus,
            // What it asks for is in cpus_per_task and gpus; the text itself is shown only.
            tres_per_task: _,
            cpus_per_gpu,
            mem_per_gpu,
            gres,
            partition,
            account,
            qos,
            comment,
            array,
            array_raw: _,
            dependency,
            dependency_raw: _,
            hold,
            // How the command holds the allocation, not a request of the user.
            interactive: _,
            made_by_srun: _,
            owner: _,
            begin,
            deadline,
            nice,
            priority,
            requeue,
            signal,
            mail_type,
            mail_user,
            nodelist,
            exclude,
            constraint,
            exclusive,
            min_cpus,
            // Set only by `scontrol update NumCPUs=` of a pending local job, never at submission.
            total_cpus: _,
            kill_on_invalid_dep,
            immediate,
            reservation,
            licenses,
            container,
            environment,
            export_env,
            submit_sid: _,
            umask,
            rlimits,
            // Options with no effect anywhere; their warning was printed at parse time.
            ignored: _,
        } = self;
        let ContainerRequest {
            image,
            mounts,
            workdir,
            name: container_name,
        } = container;
        let mut out = Vec::new();
        let mut add = |set: bool, f: Field| {
            if set {
                out.push(f)
            }
        };
        add(!name.is_empty(), Field::Name);
        add(!script.is_empty(), Field::Script);
        add(!script_args.is_empty(), Field::ScriptArgs);
        add(true, Field::WorkDir);
        add(stdout.is_some(), Field::Stdout);
        add(stderr.is_some(), Field::Stderr);
        add(stdin.is_some(), Field::Stdin);
        add(open_mode.is_some(), Field::OpenMode);
        add(time_limit.is_some(), Field::TimeLimit);
        add(time_min.is_some(), Field::TimeMin);
        add(nodes_min.is_some() || nodes_max.is_some(), Field::Nodes);
        add(ntasks.is_some(), Field::Ntasks);
        add(cpus_per_task.is_some(), Field::CpusPerTask);
        add(ntasks_per_node.is_some(), Field::NtasksPerNode);
        add(
            mem_per_node.is_some() || mem_per_cpu.is_some(),
            Field::Memory,
        );
        add(gpus.is_some(), Field::Gpus);
        add(cpus_per_gpu.is_some(), Field::CpusPerGpu);
        add(mem_per_gpu.is_some(), Field::MemPerGpu);
        add(!gres.is_empty(), Field::Gres);
        add(partition.is_some(), Field::Partition);
        add(account.is_some(), Field::Account);
        add(qos.is_some(), Field::Qos);
        add(comment.is_some(), Field::Comment);
        add(array.is_some(), Field::Array);
        add(
            array.as_ref().is_some_and(|a| a.throttle.is_some()),
            Field::ArrayThrottle,
        );
        add(dependency.is_some(), Field::Dependency);
        add(*hold, Field::Hold);
        add(begin.is_some(), Field::Begin);
        add(deadline.is_some(), Field::Deadline);
        add(nice.is_some(), Field::Nice);
        add(priority.is_some(), Field::Priority);
        add(requeue.is_some(), Field::Requeue);
        add(signal.is_some(), Field::Signal);
        add(mail_type.is_some() || mail_user.is_some(), Field::Mail);
        add(nodelist.is_some(), Field::Nodelist);
        add(exclude.is_some(), Field::Exclude);
        // slurmctld's order of checks: licenses, then features, then the reservation.
        add(licenses.is_some(), Field::Licenses);
        add(constraint.is_some(), Field::Constraint);
        add(reservation.is_some(), Field::Reservation);
        add(*exclusive, Field::Exclusive);
        add(min_cpus.is_some(), Field::MinCpus);
        add(*kill_on_invalid_dep == Some(true), Field::KillOnInvalidDep);
        add(immediate.is_some(), Field::Immediate);
        add(image.is_some(), Field::ContainerImage);
        add(!mounts.is_empty(), Field::ContainerMounts);
        add(workdir.is_some(), Field::ContainerWorkdir);
        add(container_name.is_some(), Field::ContainerName);
        add(
            !environment.is_empty() || export_env.is_some(),
            Field::Environment,
        );
        add(umask.is_some(), Field::Umask);
        add(!rlimits.is_empty(), Field::Rlimits);
        out
    }
}

impl JobSpec {
    /// The members behind one field, as text, to tell whether two requests differ in it.
    pub fn field_value(&self, f: Field) -> String {
        match f {
            Field::Name => format!("{:?}", self.name),
            Field::Script => format!("{:?}", self.script),
            Field::ScriptArgs => format!("{:?}", self.script_args),
            Field::WorkDir => format!("{:?}", self.work_dir),
            Field::Stdout => format!("{:?}", self.stdout),
            Field::Stderr => format!("{:?}", self.stderr),
            Field::Stdin => format!("{:?}", self.stdin),
            Field::OpenMode => format!("{:?}", self.open_mode),
            Field::TimeLimit => format!("{:?}", self.time_limit),
            Field::TimeMin => format!("{:?}", self.time_min),
            Field::Nodes => format!("{:?} {:?}", self.nodes_min, self.nodes_max),
            Field::Ntasks => format!("{:?}", self.ntasks),
            Field::CpusPerTask => format!("{:?}", self.cpus_per_task),
            Field::NtasksPerNode => format!("{:?}", self.ntasks_per_node),
            Field::Memory => format!("{:?} {:?}", self.mem_per_node, self.mem_per_cpu),
            Field::Gpus => format!("{:?}", self.gpus),
            Field::CpusPerGpu => format!("{:?}", self.cpus_per_gpu),
            Field::MemPerGpu => format!("{:?}", self.mem_per_gpu),
            Field::Gres => format!("{:?}", self.gres),
            Field::Partition => format!("{:?}", self.partition),
            Field::Account => format!("{:?}", self.account),
            Field::Qos => format!("{:?}", self.qos),
            Field::Comment => format!("{:?}", self.comment),
            Field::Array => format!("{:?}", self.array.as_ref().map(|a| (&a.tasks, a.step))),
            Field::ArrayThrottle => format!("{:?}", self.array.as_ref().and_then(|a| a.throttle)),
            Field::Dependency => format!("{:?}", self.dependency),
            Field::Hold => format!("{:?}", self.hold),
            Field::Begin => format!("{:?}", self.begin),
            Field::Deadline => format!("{:?}", self.deadline),
            Field::Nice => format!("{:?}", self.nice),
            Field::Priority => format!("{:?}", self.priority),
            Field::Requeue => format!("{:?}", self.requeue),
            Field::Signal => format!("{:?}", self.signal),
            Field::Mail => format!("{:?} {:?}", self.mail_type, self.mail_user),
            Field::Nodelist => format!("{:?}", self.nodelist),
            Field::Exclude => format!("{:?}", self.exclude),
            Field::Constraint => format!("{:?}", self.constraint),
            Field::Exclusive => format!("{:?}", self.exclusive),
            Field::MinCpus => format!("{:?}", self.min_cpus),
            Field::KillOnInvalidDep => format!("{:?}", self.kill_on_invalid_dep),
            Field::Immediate => format!("{:?}", self.immediate),
            Field::Reservation => format!("{:?}", self.reservation),
            Field::Licenses => format!("{:?}", self.licenses),
            Field::ContainerImage => format!("{:?}", self.container.image),
            Field::ContainerMounts => format!("{:?}", self.container.mounts),
            Field::ContainerWorkdir => format!("{:?}", self.container.workdir),
            Field::ContainerName => format!("{:?}", self.container.name),
            Field::Environment => format!("{:?} {:?}", self.environment, self.export_env),
            Field::Umask => format!("{:?}", self.umask),
            Field::Rlimits => format!("{:?}", self.rlimits),
        }
    }
}

impl Field {
    pub const ALL: [Field; 50] = [
        Field::Name,
        Field::Script,
        Field::ScriptArgs,
        Field::WorkDir,
        Field::Stdout,
        Field::Stderr,
        Field::Stdin,
        Field::OpenMode,
        Field::TimeLimit,
        Field::TimeMin,
        Field::Nodes,
        Field::Ntasks,
        Field::CpusPerTask,
        Field::NtasksPerNode,
        Field::Memory,
        Field::Gpus,
        Field::CpusPerGpu,
        Field::MemPerGpu,
        Field::Gres,
        Field::Partition,
        Field::Account,
        Field::Qos,
        Field::Comment,
        Field::Array,
        Field::ArrayThrottle,
        Field::Dependency,
        Field::Hold,
        Field::Begin,
        Field::Deadline,
        Field::Nice,
        Field::Priority,
        Field::Requeue,
        Field::Signal,
        Field::Mail,
        Field::Nodelist,
        Field::Exclude,
        Field::Constraint,
        Field::Exclusive,
        Field::MinCpus,
        Field::KillOnInvalidDep,
        Field::Immediate,
        Field::Reservation,
        Field::Licenses,
        Field::ContainerImage,
        Field::ContainerMounts,
        Field::ContainerWorkdir,
        Field::ContainerName,
        Field::Environment,
        Field::Umask,
        Field::Rlimits,
    ];

    /// The fields in which two requests differ.
    pub fn differing(a: &JobSpec, b: &JobSpec) -> Vec<Field> {
        Field::ALL
            .into_iter()
            .filter(|&f| a.field_value(f) != b.field_value(f))
            .collect()
    }
}
