//! The environment a batch step starts with (`env_array_for_batch_job` in Slurm's env.c,
//! plus what slurmstepd adds). Compare `slurm-22.05-golden/env-sbatch-batchstep.txt`.

use crate::model::MemoryRequest;
use crate::model::hostlist::run_length;
use crate::model::profile::JobEnvDeltas;
use std::collections::BTreeMap;

/// Array facts a task sees in SLURM_ARRAY_*.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayEnv {
    pub array_job_id: u32,
    pub task_id: u32,
    pub count: u32,
    pub min: u32,
    pub max: u32,
    pub step: u32,
}

/// What the job's environment is built from.
#[derive(Debug, Clone, Default)]
pub struct BatchEnvFacts {
    pub cluster_name: String,
    pub job_id: u32,
    pub job_name: String,
    pub partition: String,
    pub account: Option<String>,
    pub qos: Option<String>,
    /// Compressed node list of the allocation.
    pub nodelist: String,
    /// This node's name (SLURMD_NODENAME).
    pub node_name: String,
    /// CPUs allocated on each node, in node order.
    pub cpus_per_node: Vec<u32>,
    /// Tasks on each node, in node order.
    pub tasks_per_node: Vec<u32>,
    /// Set only when the user asked for a task count.
    pub ntasks: Option<u32>,
    pub cpus_per_task: Option<u32>,
    pub ntasks_per_node: Option<u32>,
    pub memory: Option<MemoryRequest>,
    pub user: String,
    pub uid: u32,
    pub gid: u32,
    pub array: Option<ArrayEnv>,
    pub dependency: Option<String>,
    pub restart_count: Option<u32>,
    /// What the site's Slurm release sets differently (DESIGN.md §3.11).
    pub release: JobEnvDeltas,
    /// The job's start and its end at the time limit (epoch seconds), which 24.11 exports.
    pub start_time: i64,
    pub end_time: i64,
    /// GPU devices the job holds on this node (gres.conf's numbers).
    pub gpus: Vec<u32>,
    /// SLURM_WORKING_CLUSTER: `cluster:controller host:port:RPC version:select plugin id`.
    pub working_cluster: Option<String>,
}

/// SLURM_WORKING_CLUSTER for a cluster whose controller is at `host` (Slurm's default
/// SlurmctldPort 6817, 22.05's protocol version 9728, select/cons_tres's plugin id 109).
pub fn working_cluster(cluster: &str, host: &str) -> String {
    format!("{cluster}:{host}:6817:9728:109")
}

/// Returns the batch step's environment: `base` (the exported submit environment, which
/// already carries SLURM_SUBMIT_DIR/HOST and friends from sbatch) plus the job's variables.
pub fn batch_env(base: &BTreeMap<String, String>, f: &BatchEnvFacts) -> BTreeMap<String, String> {
    let mut env = base.clone();
    let mut set = |k: &str, v: String| {
        env.insert(k.to_string(), v);
    };
    set("SLURM_CLUSTER_NAME", f.cluster_name.clone());
    set("SLURM_JOB_ID", f.job_id.to_string());
    set("SLURM_JOBID", f.job_id.to_string());
    // SLURM_JOB_NAME comes with the submit environment: sbatch exports it (none for a
    // script read from stdin); salloc and srun set it (`allocation_env`).
    set(
        "SLURM_JOB_NUM_NODES",
        f.cpus_per_node.len().max(1).to_string(),
    );
    set("SLURM_NNODES", f.cpus_per_node.len().max(1).to_string());
    set("SLURM_JOB_NODELIST", f.nodelist.clone());
    set("SLURM_NODELIST", f.nodelist.clone());
    set("SLURM_JOB_PARTITION", f.partition.clone());
    // 22.05 still exports this, with glibc's rendering of a NULL string.
    set("SLURM_NODE_ALIASES", "(null)".to_string());
    set("SLURM_JOB_CPUS_PER_NODE", run_length(&f.cpus_per_node));
    set(
        "SLURM_CPUS_ON_NODE",
        f.cpus_per_node.first().copied().unwrap_or(1).to_string(),
    );
    set("SLURM_TASKS_PER_NODE", run_length(&f.tasks_per_node));
    set("ENVIRONMENT", "BATCH".to_string());
    set("HOSTNAME", f.node_name.clone());
    set("SLURMD_NODENAME", f.node_name.clone());
    set("SLURM_TOPOLOGY_ADDR", f.node_name.clone());
    set("SLURM_TOPOLOGY_ADDR_PATTERN", "node".to_string());
    set("SLURM_JOB_USER", f.user.clone());
    set("SLURM_JOB_UID", f.uid.to_string());
    set("SLURM_JOB_GID", f.gid.to_string());
    // The batch step is task 0 on node 0.
    set("SLURM_NODEID", "0".to_string());
    set("SLURM_PROCID", "0".to_string());
    set("SLURM_LOCALID", "0".to_string());
    set("SLURM_GTIDS", "0".to_string());
    if let Some(a) = &f.account {
        set("SLURM_JOB_ACCOUNT", a.clone());
    }
    if let Some(q) = &f.qos {
        set("SLURM_JOB_QOS", q.clone());
    }
    if let Some(c) = f.cpus_per_task {
        set("SLURM_CPUS_PER_TASK", c.to_string());
    }
    if let Some(n) = f.ntasks {
        set("SLURM_NTASKS", n.to_string());
        set("SLURM_NPROCS", n.to_string());
    }
    if let Some(n) = f.ntasks_per_node {
        set("SLURM_NTASKS_PER_NODE", n.to_string());
    }
    match f.memory {
        Some(MemoryRequest::PerCpu(mb)) => set("SLURM_MEM_PER_CPU", mb.to_string()),
        Some(MemoryRequest::PerNode(mb)) => set("SLURM_MEM_PER_NODE", mb.to_string()),
        None => {}
    }
    if let Some(a) = f.array {
        set("SLURM_ARRAY_JOB_ID", a.array_job_id.to_string());
        set("SLURM_ARRAY_TASK_ID", a.task_id.to_string());
        set("SLURM_ARRAY_TASK_COUNT", a.count.to_string());
        set("SLURM_ARRAY_TASK_MIN", a.min.to_string());
        set("SLURM_ARRAY_TASK_MAX", a.max.to_string());
        set("SLURM_ARRAY_TASK_STEP", a.step.to_string());
    }
    if let Some(d) = &f.dependency {
        set("SLURM_JOB_DEPENDENCY", d.clone());
    }
    if let Some(r) = f.restart_count {
        set("SLURM_RESTART_COUNT", r.to_string());
    }
    if let Some(w) = &f.working_cluster {
        set("SLURM_WORKING_CLUSTER", w.clone());
    }
    for (k, v) in gpu_env(&f.gpus, "SLURM_JOB_GPUS") {
        set(k, v);
    }
    // slurmstepd's _make_tmpdir: tasks may want it set.
    if !base.contains_key("TMPDIR") {
        set("TMPDIR", "/tmp".to_string());
    }
    apply_release(&mut env, f);
    env
}

/// gres/gpu's environment for `gpus`, the devices by every vendor's variable and by
/// Slurm's own (`own`: SLURM_JOB_GPUS for a job, SLURM_STEP_GPUS for a step); none without
/// devices.
pub fn gpu_env(gpus: &[u32], own: &'static str) -> Vec<(&'static str, String)> {
    if gpus.is_empty() {
        return Vec::new();
    }
    let list = gpus
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut env: Vec<(&'static str, String)> = [
        "CUDA_VISIBLE_DEVICES",
        "GPU_DEVICE_ORDINAL",
        "ROCR_VISIBLE_DEVICES",
        "ZE_AFFINITY_MASK",
        own,
    ]
    .into_iter()
    .map(|k| (k, list.clone()))
    .collect();
    env.push(("SLURM_GPUS_ON_NODE", gpus.len().to_string()));
    env
}

/// What 24.11 sets in every job for the MPI launchers (MPICH's and Intel MPI's Hydra, Open
/// MPI's and PRRTE's plm): start the ranks through srun.
pub const MPI_LAUNCHER_VARIABLES: [(&str, &str); 6] = [
    ("HYDRA_BOOTSTRAP", "slurm"),
    ("HYDRA_LAUNCHER_EXTRA_ARGS", "--external-launcher"),
    ("I_MPI_HYDRA_BOOTSTRAP", "slurm"),
    (
        "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS",
        "--external-launcher",
    ),
    ("OMPI_MCA_plm_slurm_args", "--external-launcher"),
    ("PRTE_MCA_plm_slurm_args", "--external-launcher"),
];

/// The variables one Slurm release adds or drops against 22.05.
fn apply_release(env: &mut BTreeMap<String, String>, f: &BatchEnvFacts) {
    if !f.release.legacy_variables {
        env.remove("SLURM_NODE_ALIASES");
        env.remove("SLURM_WORKING_CLUSTER");
    }
    if f.release.mpi_launcher_variables {
        for (k, v) in MPI_LAUNCHER_VARIABLES {
            env.insert(k.to_string(), v.to_string());
        }
    }
    if f.release.start_end_oom {
        env.insert("SLURM_JOB_START_TIME".into(), f.start_time.to_string());
        env.insert("SLURM_JOB_END_TIME".into(), f.end_time.to_string());
        env.insert("SLURM_OOM_KILL_STEP".into(), "0".into());
    }
}

/// A job's end at its time limit, as slurmctld sets it: start plus the limit, or plus a
/// year when it has none.
pub fn end_at_limit(start: i64, limit_secs: Option<i64>) -> i64 {
    const YEAR: i64 = 365 * 24 * 3600;
    start.saturating_add(limit_secs.unwrap_or(YEAR))
}

/// Which command an allocation's environment is for: salloc's shell, or the tasks of
/// srun's step (which get the per-node variables from their step server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocationUser {
    Salloc,
    Srun,
}

/// The job-level variables of an interactive allocation, as salloc exports them to its
/// command (compare `salloc_n1_env` in the goldens) and srun to its tasks.
pub fn allocation_env(
    base: &BTreeMap<String, String>,
    f: &BatchEnvFacts,
    user: AllocationUser,
) -> BTreeMap<String, String> {
    let mut env = batch_env(base, f);
    env.insert("SLURM_JOB_NAME".into(), f.job_name.clone());
    // The devices are a step's (srun sets them per step), not the allocation's.
    for k in [
        "CUDA_VISIBLE_DEVICES",
        "GPU_DEVICE_ORDINAL",
        "ROCR_VISIBLE_DEVICES",
        "ZE_AFFINITY_MASK",
        "SLURM_JOB_GPUS",
        "SLURM_GPUS_ON_NODE",
    ] {
        if !base.contains_key(k) {
            env.remove(k);
        }
    }
    // Those belong to a batch step or to a task, not to the allocation.
    for k in [
        "ENVIRONMENT",
        "HOSTNAME",
        "SLURMD_NODENAME",
        "SLURM_NODEID",
        "SLURM_PROCID",
        "SLURM_LOCALID",
        "SLURM_GTIDS",
        "SLURM_TOPOLOGY_ADDR",
        "SLURM_TOPOLOGY_ADDR_PATTERN",
        "SLURM_CPUS_ON_NODE",
        "SLURM_MEM_PER_CPU",
        "SLURM_MEM_PER_NODE",
        "SLURM_PRIO_PROCESS",
    ] {
        env.remove(k);
    }
    if let Some(h) = base.get("HOSTNAME") {
        env.insert("HOSTNAME".into(), h.clone());
    }
    match user {
        AllocationUser::Salloc => {
            for k in [
                "SLURM_JOB_UID",
                "SLURM_JOB_USER",
                "SLURM_JOB_GID",
                "SLURM_WORKING_CLUSTER",
            ] {
                env.remove(k);
            }
            // salloc's command runs without slurmstepd, which sets it.
            if !base.contains_key("TMPDIR") {
                env.remove("TMPDIR");
            }
        }
        AllocationUser::Srun => {
            env.remove("SLURM_NODE_ALIASES");
            env.insert(
                "SLURM_PRIO_PROCESS".into(),
                base.get("SLURM_PRIO_PROCESS")
                    .cloned()
                    .unwrap_or_else(|| "0".into()),
            );
        }
    }
    env
}

/// With SLURM_GET_USER_ENV=1 (`--export=NONE`, export lists, `--get-user-env`) Slurm gives
/// the job the user's login variables where the job's own environment lacks them. This
/// fills the ones a login shell always has.
pub fn fill_login_env(env: &mut BTreeMap<String, String>, user: &crate::sys::UserInfo) {
    if env.get("SLURM_GET_USER_ENV").map(String::as_str) != Some("1") {
        return;
    }
    let defaults = [
        ("HOME", user.home.clone()),
        ("USER", user.name.clone()),
        ("LOGNAME", user.name.clone()),
        ("SHELL", user.shell.clone()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
    ];
    for (k, v) in defaults {
        env.entry(k.to_string()).or_insert(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variables of the golden capture, rebuilt from the same job facts.
    #[test]
    fn matches_the_golden_batch_environment() {
        check_golden(
            include_str!("../../tests/golden/env-sbatch-batchstep.txt"),
            crate::model::profile::SlurmVersion::V22_05,
        );
    }

    /// 24.11's batch step (24.11.5's capture of the same job): start and end times and
    /// SLURM_OOM_KILL_STEP, no SLURM_NODE_ALIASES.
    #[test]
    fn matches_the_24_11_golden_batch_environment() {
        check_golden(
            include_str!("../../tests/golden/24.11/env-sbatch-batchstep.txt"),
            crate::model::profile::SlurmVersion::V24_11,
        );
    }

    fn check_golden(golden: &str, version: crate::model::profile::SlurmVersion) {
        let time = |k: &str| -> i64 {
            golden
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        let start = time("SLURM_JOB_START_TIME=");
        let mut base = BTreeMap::new();
        base.insert("SLURM_SUBMIT_DIR".to_string(), "/srv/refwork".to_string());
        base.insert("SLURM_SUBMIT_HOST".to_string(), "vm".to_string());
        base.insert("SLURM_PRIO_PROCESS".to_string(), "0".to_string());
        base.insert("SLURM_JOB_NAME".to_string(), "env_job".to_string());
        let facts = BatchEnvFacts {
            cluster_name: "refcluster".into(),
            job_id: 3,
            job_name: "env_job".into(),
            partition: "debug".into(),
            account: Some("research".into()),
            qos: Some("normal".into()),
            nodelist: "node01".into(),
            node_name: "node01".into(),
            cpus_per_node: vec![2],
            tasks_per_node: vec![2],
            ntasks: Some(2),
            memory: Some(MemoryRequest::PerCpu(1024)),
            user: "alice".into(),
            uid: 1001,
            gid: 1001,
            release: version.profile().job_env,
            start_time: start,
            end_time: end_at_limit(start, None),
            ..Default::default()
        };
        let env = batch_env(
            &base,
            &BatchEnvFacts {
                // The reference's private controller port.
                working_cluster: Some("refcluster:127.0.0.1:7817:9728:109".into()),
                ..facts
            },
        );
        // Variables that depend on a live slurmctld or process are not ours to reproduce.
        let not_ours = ["SLURM_CONF", "SLURM_TASK_PID"];
        let mut matched = 0;
        for line in golden.lines() {
            let (k, v) = line.split_once('=').unwrap();
            if not_ours.contains(&k) {
                continue;
            }
            assert_eq!(env.get(k).map(String::as_str), Some(v), "{k}");
            matched += 1;
        }
        let ours: Vec<_> = env.keys().filter(|k| k.starts_with("SLURM")).collect();
        assert_eq!(ours.len(), matched, "extra SLURM variables: {ours:?}");
    }
}
