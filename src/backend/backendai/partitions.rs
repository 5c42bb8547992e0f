//! Slurm partitions on Backend.AI: each is a resource group (scaling group). The site's
//! `[[partitions]]` table names them, maps them to resource groups and gives each a default
//! image, time limits and memory per CPU; without that table every resource group the
//! user's project may use is a partition of the same name.

use crate::config::{Config, PartitionConfig};
use crate::model::release::SLURM_RELEASE;
use crate::model::{NodeRecord, NodeState, PartitionRecord, PartitionTimes, TimeLimit};
use serde_json::Value;

/// MB per CPU for jobs that ask for no memory, when the partition sets none.
pub const DEFAULT_MEM_PER_CPU: u64 = 2048;

#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    pub name: String,
    pub resource_group: String,
    pub is_default: bool,
    pub default_image: Option<String>,
    pub max_time: TimeLimit,
    pub default_time: Option<TimeLimit>,
    pub def_mem_per_cpu: u64,
}

fn limit(text: Option<&str>) -> Option<TimeLimit> {
    text.and_then(TimeLimit::parse)
}

impl Partition {
    /// MaxTime and DefaultTime, as the job rule reads them.
    pub fn times(&self) -> PartitionTimes {
        PartitionTimes {
            max_time: self.max_time,
            default_time: self.default_time,
        }
    }

    fn from_config(p: &PartitionConfig) -> Partition {
        Partition {
            name: p.name.clone(),
            resource_group: p.resource_group.clone().unwrap_or_else(|| p.name.clone()),
            is_default: p.default,
            default_image: p.default_image.clone(),
            max_time: limit(p.max_time.as_deref()).unwrap_or(TimeLimit::Infinite),
            default_time: limit(p.default_time.as_deref()),
            def_mem_per_cpu: p.def_mem_per_cpu.unwrap_or(DEFAULT_MEM_PER_CPU).max(1),
        }
    }

    /// A resource group nobody configured: a partition of its name, without limits.
    fn plain(resource_group: &str) -> Partition {
        Partition {
            name: resource_group.to_string(),
            resource_group: resource_group.to_string(),
            is_default: false,
            default_image: None,
            max_time: TimeLimit::Infinite,
            default_time: None,
            def_mem_per_cpu: DEFAULT_MEM_PER_CPU,
        }
    }
}

/// The configured partitions (marking the default: the one flagged, else the first).
pub fn configured(config: &Config) -> Vec<Partition> {
    let mut parts: Vec<Partition> = config
        .partitions
        .iter()
        .map(Partition::from_config)
        .collect();
    if !parts.iter().any(|p| p.is_default)
        && let Some(first) = parts.first_mut()
    {
        first.is_default = true;
    }
    parts
}

/// The partitions users see: the configured ones, else one per visible resource group
/// (`default` is the default partition when it exists, else the first).
pub fn visible(config: &Config, resource_groups: &[String]) -> Vec<Partition> {
    let parts = configured(config);
    if !parts.is_empty() {
        return parts;
    }
    let mut parts: Vec<Partition> = resource_groups
        .iter()
        .map(|g| Partition::plain(g))
        .collect();
    let default = parts.iter().position(|p| p.name == "default").unwrap_or(0);
    if let Some(p) = parts.get_mut(default) {
        p.is_default = true;
    }
    parts
}

/// The partition a job asks for (`-p`, the first of a list), or the default one. `None`
/// with nothing configured and no `-p`: the manager then picks the resource group.
pub fn for_job(config: &Config, requested: Option<&str>) -> Result<Option<Partition>, String> {
    let parts = configured(config);
    match requested.map(|r| r.split(',').next().unwrap_or(r)) {
        Some(name) => {
            if parts.is_empty() {
                return Ok(Some(Partition::plain(name)));
            }
            parts
                .into_iter()
                .find(|p| p.name == name)
                .map(Some)
                .ok_or_else(|| name.to_string())
        }
        None => Ok(parts.into_iter().find(|p| p.is_default)),
    }
}

/// The partition name of a resource group (for sessions' records).
pub fn name_of(config: &Config, resource_group: &str) -> String {
    configured(config)
        .into_iter()
        .find(|p| p.resource_group == resource_group)
        .map_or_else(|| resource_group.to_string(), |p| p.name)
}

/// An agent as `agent_summary_list`/`agent_list` describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    pub id: String,
    pub status: String,
    pub resource_group: String,
    pub schedulable: bool,
    pub cpus: f64,
    pub mem_bytes: f64,
    pub used_cpus: f64,
    pub used_mem_bytes: f64,
    pub architecture: String,
    pub version: String,
}

fn slots(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
        Some(other) => other.clone(),
        None => Value::Null,
    }
}

fn number(v: &Value, key: &str) -> f64 {
    match v.get(key) {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

impl Agent {
    pub fn from_json(v: &Value) -> Option<Agent> {
        let available = slots(v.get("available_slots"));
        let occupied = slots(v.get("occupied_slots"));
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Some(Agent {
            id: v.get("id")?.as_str()?.to_string(),
            status: text("status"),
            resource_group: text("scaling_group"),
            schedulable: v
                .get("schedulable")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            cpus: number(&available, "cpu"),
            mem_bytes: number(&available, "mem"),
            used_cpus: number(&occupied, "cpu"),
            used_mem_bytes: number(&occupied, "mem"),
            architecture: text("architecture"),
            version: text("version"),
        })
    }

    fn state(&self) -> NodeState {
        if self.status != "ALIVE" {
            return NodeState::Down;
        }
        if !self.schedulable {
            return NodeState::Drained;
        }
        if self.used_cpus <= 0.0 {
            NodeState::Idle
        } else if self.used_cpus + 1e-9 >= self.cpus {
            NodeState::Allocated
        } else {
            NodeState::Mixed
        }
    }

    /// The agent as a Slurm node of partition `partition`.
    pub fn node_record(&self, partitions: Vec<String>) -> NodeRecord {
        let cpus = self.cpus.floor().max(0.0) as u32;
        let alloc_cpus = (self.used_cpus.ceil().max(0.0) as u32).min(cpus);
        let mem = (self.mem_bytes / 1_048_576.0) as u64;
        let alloc_mem = (self.used_mem_bytes / 1_048_576.0) as u64;
        let mb = crate::model::units::mb_str;
        NodeRecord {
            name: self.id.clone(),
            hostname: self.id.clone(),
            address: self.id.clone(),
            state: self.state(),
            cpus,
            alloc_cpus,
            sockets: 1,
            cores_per_socket: cpus.max(1),
            threads_per_core: 1,
            boards: 1,
            real_memory: mem,
            alloc_memory: alloc_mem,
            weight: 1,
            partitions,
            arch: self.architecture.clone(),
            version: if self.version.is_empty() {
                SLURM_RELEASE.text()
            } else {
                self.version.clone()
            },
            cfg_tres: Some(format!("cpu={cpus},mem={},billing={cpus}", mb(mem))),
            alloc_tres: (alloc_cpus > 0).then(|| format!("cpu={alloc_cpus},mem={}", mb(alloc_mem))),
            reason: (self.status != "ALIVE").then(|| format!("agent {}", self.status)),
            ..Default::default()
        }
    }
}

/// Partition records with the nodes (agents) of their resource groups.
pub fn partition_records(parts: &[Partition], agents: &[Agent]) -> Vec<PartitionRecord> {
    parts
        .iter()
        .map(|p| {
            let members: Vec<&Agent> = agents
                .iter()
                .filter(|a| a.resource_group == p.resource_group)
                .collect();
            let total_cpus: u32 = members.iter().map(|a| a.cpus.floor() as u32).sum();
            let mem: u64 = members
                .iter()
                .map(|a| (a.mem_bytes / 1_048_576.0) as u64)
                .sum();
            PartitionRecord {
                name: p.name.clone(),
                is_default: p.is_default,
                availability: "up".into(),
                max_time: p.max_time,
                default_time: p.default_time,
                nodes: members.iter().map(|a| a.id.clone()).collect(),
                total_cpus,
                def_mem_per_cpu: Some(p.def_mem_per_cpu),
                tres: Some(format!(
                    "cpu={total_cpus},mem={},node={},billing={total_cpus}",
                    crate::model::units::mb_str(mem),
                    members.len()
                )),
                ..Default::default()
            }
        })
        .collect()
}

/// Node records: every agent, named in the partitions whose resource group it serves.
pub fn node_records(parts: &[Partition], agents: &[Agent]) -> Vec<NodeRecord> {
    agents
        .iter()
        .map(|a| {
            let names = parts
                .iter()
                .filter(|p| p.resource_group == a.resource_group)
                .map(|p| p.name.clone())
                .collect();
            a.node_record(names)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(toml_text: &str) -> Config {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn resource_groups_are_partitions_when_none_are_configured() {
        let c = Config::default();
        let parts = visible(&c, &["gpu".into(), "default".into()]);
        assert_eq!(parts.len(), 2);
        assert!(parts[1].is_default && !parts[0].is_default);
        assert_eq!(for_job(&c, None).unwrap(), None);
        assert_eq!(
            for_job(&c, Some("gpu,cpu"))
                .unwrap()
                .unwrap()
                .resource_group,
            "gpu"
        );
    }

    #[test]
    fn configured_partitions_map_to_resource_groups() {
        let c = config(
            r#"
            [[partitions]]
            name = "batch"
            resource_group = "default"
            default_image = "img:1"
            max_time = "1:00:00"
            [[partitions]]
            name = "gpu"
            default = true
            "#,
        );
        let parts = visible(&c, &[]);
        assert_eq!(parts[0].max_time, TimeLimit::Minutes(60));
        assert_eq!(for_job(&c, None).unwrap().unwrap().name, "gpu");
        assert_eq!(
            for_job(&c, Some("batch"))
                .unwrap()
                .unwrap()
                .default_image
                .as_deref(),
            Some("img:1")
        );
        assert_eq!(for_job(&c, Some("nope")), Err("nope".to_string()));
        assert_eq!(name_of(&c, "default"), "batch");
        assert_eq!(name_of(&c, "other"), "other");
    }

    #[test]
    fn agents_become_nodes_with_their_load() {
        let a = Agent::from_json(&json!({
            "id": "i-vm", "status": "ALIVE", "scaling_group": "default", "schedulable": true,
            "available_slots": "{\"cpu\": \"4\", \"mem\": \"8589934592\"}",
            "occupied_slots": "{\"cpu\": \"1\", \"mem\": \"1073741824\"}"
        }))
        .unwrap();
        let parts = visible(&Config::default(), &["default".into()]);
        let nodes = node_records(&parts, std::slice::from_ref(&a));
        assert_eq!(nodes[0].cpus, 4);
        assert_eq!(nodes[0].alloc_cpus, 1);
        assert_eq!(nodes[0].real_memory, 8192);
        assert_eq!(nodes[0].state, NodeState::Mixed);
        assert_eq!(nodes[0].partitions, vec!["default".to_string()]);
        let recs = partition_records(&parts, &[a]);
        assert_eq!(recs[0].nodes, vec!["i-vm".to_string()]);
        assert_eq!(recs[0].total_cpus, 4);
    }
}
