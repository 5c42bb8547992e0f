//! The node(s) of the local backend (this machine, or what the config says it offers) and
//! the partitions over them.

use crate::config::Config;
use crate::model::{PartitionTimes, TimeLimit};

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalNode {
    pub name: String,
    pub cpus: u32,
    pub memory_mb: u64,
    /// GPUs on each node (Slurm's `Gres=gpu:N`), counted devices 0..N as gres.conf's
    /// `File=` list numbers them.
    #[serde(default)]
    pub gpus: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LocalPartition {
    pub name: String,
    /// Slurm's `Default=YES`: jobs that name no partition go here.
    #[serde(default)]
    pub default: bool,
    pub max_time: TimeLimit,
    pub default_time: Option<TimeLimit>,
    pub def_mem_per_cpu: u64,
    /// Whether the partition sets DefMemPerCPU itself (scontrol shows it then; a
    /// cluster-wide default shows as `DefMemPerNode=UNLIMITED`, as in Slurm).
    #[serde(default)]
    pub own_def_mem: bool,
}

fn detect_memory_mb() -> u64 {
    crate::sys::meminfo_mb("MemTotal").unwrap_or(1024)
}

fn detect_cpus() -> u32 {
    std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(1)
}

impl LocalNode {
    pub fn from_config(config: &Config) -> LocalNode {
        LocalNode {
            name: config
                .local
                .node_name
                .clone()
                .unwrap_or_else(crate::sys::short_hostname),
            cpus: config.local.cpus.unwrap_or_else(detect_cpus).max(1),
            memory_mb: config
                .local
                .memory_mb
                .unwrap_or_else(detect_memory_mb)
                .max(1),
            gpus: config.local.gpus.unwrap_or(0),
        }
    }
}

impl LocalPartition {
    /// MaxTime and DefaultTime, as the job rule reads them.
    pub fn times(&self) -> PartitionTimes {
        PartitionTimes {
            max_time: self.max_time,
            default_time: self.default_time,
        }
    }

    /// The configured partition marked default (or the first), else `local`.
    pub fn from_config(config: &Config, node: &LocalNode) -> LocalPartition {
        let p = config
            .partitions
            .iter()
            .find(|p| p.default)
            .or(config.partitions.first());
        let mut part = Self::of(config, p, node);
        part.default = true;
        part
    }

    /// Every configured partition, in the configuration's order (Slurm lists them as
    /// slurm.conf does), the default one marked; `local` alone when none is configured.
    pub fn all_from_config(config: &Config, node: &LocalNode) -> Vec<LocalPartition> {
        let default = Self::from_config(config, node);
        if config.partitions.is_empty() {
            return vec![default];
        }
        let mut seen = Vec::new();
        config
            .partitions
            .iter()
            .filter(|p| {
                // A name given twice is one partition (the first).
                let new = !seen.contains(&p.name);
                seen.push(p.name.clone());
                new
            })
            .map(|p| {
                let mut part = Self::of(config, Some(p), node);
                part.default = part.name == default.name;
                part
            })
            .collect()
    }

    /// One partition from its configuration (defaults where there is none). Durations
    /// that do not parse are reported by `bai-slurm doctor`; here they mean no limit.
    fn of(
        config: &Config,
        p: Option<&crate::config::PartitionConfig>,
        node: &LocalNode,
    ) -> LocalPartition {
        let name = p
            .map(|p| p.name.clone())
            .unwrap_or_else(|| "local".to_string());
        let max_time = p
            .and_then(|p| p.max_time.as_deref())
            .and_then(TimeLimit::parse)
            .unwrap_or(TimeLimit::Infinite);
        let default_time = p
            .and_then(|p| p.default_time.as_deref())
            .and_then(TimeLimit::parse);
        // Without a configured default, give each CPU an equal share of the node's memory,
        // so a job per CPU fits (Slurm's default would hand each job the whole node).
        let own_def_mem = p.and_then(|p| p.def_mem_per_cpu).is_some();
        let def_mem_per_cpu = p
            .and_then(|p| p.def_mem_per_cpu)
            .or(config.local.def_mem_per_cpu)
            .unwrap_or(node.memory_mb / u64::from(node.cpus))
            .max(1);
        LocalPartition {
            name,
            default: false,
            max_time,
            default_time,
            def_mem_per_cpu,
            own_def_mem,
        }
    }
}
