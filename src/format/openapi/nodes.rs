//! `sinfo --json`: the node records of `GET /slurm/v0.0.38/nodes`, as the v0.0.38
//! plugin's `_dump_node` builds them (22.05.8). `next_state_after_reboot` is written twice
//! by the plugin; the second write lands on the first key, after `name`.
//!
//! Values a backend cannot know (see docs/COMPAT.md, "--json and --yaml"): the state
//! after a reboot (`invalid`: none pending), drained GRES (`N/A`), the CPU binding (0),
//! the burst buffer address (unset). `tres_weighted` is the allocated CPU count, which is
//! what Slurm computes when no TRESBillingWeights are configured. An unknown CPU load or
//! free memory prints Slurm's NO_VAL as the plugin does (4294967294, and -2 for the
//! 64-bit one).

use super::value::{Dict, Value};
use crate::model::NodeRecord;
use crate::model::node_state::{complete_name, state_word};

/// Every node, in the order given. `user_name` resolves uids (`uid_to_string_or_null`).
pub fn dump_nodes(nodes: &[NodeRecord], user_name: &dyn Fn(u32) -> Option<String>) -> Vec<Value> {
    nodes.iter().map(|n| dump_node(n, user_name)).collect()
}

fn s(v: &Option<String>) -> Value {
    Value::opt_str(v.as_deref())
}

/// One node (`_dump_node`).
pub fn dump_node(n: &NodeRecord, user_name: &dyn Fn(u32) -> Option<String>) -> Value {
    // `ALLOCATED+DRAIN` -> base `allocated`, flags [DRAIN], in Slurm's flag order.
    let complete = complete_name(state_word(n));
    let mut parts = complete.split('+');
    let base = parts.next().unwrap_or("INVALID").to_lowercase();
    let flags: Vec<&str> = parts.collect();
    let mut d = Dict::with_capacity(48);
    d.push("architecture", Value::str(&n.arch));
    d.push("burstbuffer_network_address", Value::NullStr);
    d.push("boards", Value::int(n.boards));
    d.push("boot_time", Value::int(n.boot_time.unwrap_or(0)));
    d.push("comment", s(&n.comment));
    d.push("cores", Value::int(n.cores_per_socket));
    d.push("cpu_binding", Value::Int(0));
    d.push(
        "cpu_load",
        match n.cpu_load {
            Some(l) => Value::Int((l * 100.0).round() as i64),
            None => Value::Int(0xffff_fffe),
        },
    );
    d.push("extra", s(&n.extra));
    d.push(
        "free_memory",
        Value::u64_wrapping(n.free_memory.unwrap_or(0xffff_ffff_ffff_fffe)),
    );
    d.push("cpus", Value::int(n.cpus));
    d.push("last_busy", Value::int(n.last_busy.unwrap_or(0)));
    d.push("features", s(&n.features));
    d.push("active_features", s(&n.features_active));
    d.push("gres", s(&n.gres));
    d.push("gres_drained", Value::text("N/A"));
    d.push("gres_used", s(&n.gres_used));
    d.push("mcs_label", s(&n.mcs_label));
    d.push("name", Value::str(&n.name));
    d.push("next_state_after_reboot", Value::text("invalid"));
    d.push("address", Value::str(&n.address));
    d.push("hostname", Value::str(&n.hostname));
    d.push("state", Value::Str(base));
    d.push("state_flags", Value::strings(flags));
    d.push("next_state_after_reboot_flags", Value::List(Vec::new()));
    d.push("operating_system", Value::str(&n.os));
    d.push(
        "owner",
        match n.owner {
            Some(uid) => user_name(uid).map_or(Value::Null, Value::Str),
            None => Value::Null,
        },
    );
    d.push("partitions", Value::strings(&n.partitions));
    d.push("port", Value::int(n.port.unwrap_or(6818)));
    d.push("real_memory", Value::u64_wrapping(n.real_memory));
    d.push("reason", s(&n.reason));
    d.push("reason_changed_at", Value::int(n.reason_time.unwrap_or(0)));
    d.push(
        "reason_set_by_user",
        match (&n.reason_user, n.reason_uid) {
            (Some(name), _) if !name.is_empty() => Value::text(name),
            (_, Some(uid)) => user_name(uid).map_or(Value::Null, Value::Str),
            _ => Value::Null,
        },
    );
    d.push(
        "slurmd_start_time",
        Value::int(n.slurmd_start_time.unwrap_or(0)),
    );
    d.push("sockets", Value::int(n.sockets));
    d.push("threads", Value::int(n.threads_per_core));
    d.push("temporary_disk", Value::u64_wrapping(n.tmp_disk));
    d.push("weight", Value::int(n.weight));
    d.push("tres", s(&n.cfg_tres));
    d.push("slurmd_version", Value::str(&n.version));
    d.push("alloc_memory", Value::u64_wrapping(n.alloc_memory));
    d.push("alloc_cpus", Value::int(n.alloc_cpus));
    d.push(
        "idle_cpus",
        Value::Int(i64::from(n.cpus) - i64::from(n.alloc_cpus)),
    );
    d.push(
        "tres_used",
        match n.alloc_tres.as_deref() {
            Some(t) if !t.is_empty() => Value::text(t),
            _ => Value::Null,
        },
    );
    d.push("tres_weighted", Value::Float(f64::from(n.alloc_cpus)));
    d.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeState;

    #[test]
    fn draining_node_reports_base_and_flag() {
        let n = NodeRecord {
            name: "node01".into(),
            state: NodeState::Draining,
            cpus: 2,
            alloc_cpus: 2,
            reason: Some("maintenance test".into()),
            reason_user: Some("root".into()),
            cpu_load: Some(0.55),
            ..Default::default()
        };
        let v = dump_node(&n, &|_| None);
        let Value::Dict(d) = v else { panic!() };
        assert_eq!(d.get("state"), Some(&Value::text("allocated")));
        assert_eq!(d.get("state_flags"), Some(&Value::strings(["DRAIN"])));
        assert_eq!(d.get("cpu_load"), Some(&Value::Int(55)));
        assert_eq!(d.get("reason_set_by_user"), Some(&Value::text("root")));
        assert_eq!(d.get("tres_used"), Some(&Value::Null));
        assert_eq!(d.get("tres_weighted"), Some(&Value::Float(2.0)));
        assert_eq!(d.get("idle_cpus"), Some(&Value::Int(0)));
        assert_eq!(d.get("port"), Some(&Value::Int(6818)));
    }

    #[test]
    fn unknown_load_and_memory_print_no_val() {
        let v = dump_node(&NodeRecord::default(), &|_| None);
        let Value::Dict(d) = v else { panic!() };
        assert_eq!(d.get("cpu_load"), Some(&Value::Int(4294967294)));
        assert_eq!(d.get("free_memory"), Some(&Value::Int(-2)));
        assert_eq!(d.get("state"), Some(&Value::text("idle")));
    }
}
