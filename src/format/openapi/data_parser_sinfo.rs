//! `sinfo --json`/`--yaml` of Slurm 24.11: `sinfo[]`, one entry per line sinfo would print
//! with its default format (partition x node state group), data_parser v0.0.42 (v0.0.41
//! the same; v0.0.40 without `resource_spec` and the partition's `select_type`).

use super::data_parser::{Parser, infinite, num, unset};
use super::value::{Dict, Value};
use crate::format::sinfo::group::{self, Build, Group, MatchFlags, NodeFilter};
use crate::model::node_state;
use crate::model::{NodeRecord, PartitionRecord, TimeLimit};

fn text(s: &str) -> Value {
    Value::text(s)
}

fn opt_text(s: &Option<String>) -> Value {
    text(s.as_deref().unwrap_or(""))
}

fn min_max(min: Value, max: Value) -> Value {
    let mut d = Dict::with_capacity(2);
    d.push("minimum", min);
    d.push("maximum", max);
    d.into()
}

fn range<T: Into<i64> + Ord + Copy>(g: &Group, f: impl Fn(&NodeRecord) -> T) -> Value {
    let zero = f(&NodeRecord::default());
    let (lo, hi) = g.min_max(f).unwrap_or((zero, zero));
    min_max(Value::int(lo), Value::int(hi))
}

fn limit(t: TimeLimit) -> Value {
    match t {
        TimeLimit::Infinite => infinite(),
        TimeLimit::Minutes(m) => num(m),
    }
}

/// The entries, in sinfo's order.
pub fn entries(parts: &[PartitionRecord], nodes: &[NodeRecord], parser: Parser) -> Vec<Value> {
    let build = Build {
        flags: MatchFlags {
            avail: true,
            max_time: true,
            partition: true,
            state: true,
            ..Default::default()
        },
        filter: NodeFilter::default(),
        ..Default::default()
    };
    group::build(parts, nodes, &build)
        .iter()
        .filter(|g| !g.nodes.is_empty())
        .map(|g| entry(g, parser))
        .collect()
}

fn entry(g: &Group, parser: Parser) -> Value {
    let rep = g.first().cloned().unwrap_or_default();
    let mut d = Dict::with_capacity(24);
    d.push("port", Value::int(rep.port.unwrap_or(0)));
    let complete = node_state::complete_name(g.node_state);
    let mut state = Dict::with_capacity(1);
    state.push(
        "state",
        Value::List(complete.split('+').map(text).collect()),
    );
    d.push("node", state.into());
    let names: Vec<Value> = g.nodes.iter().map(|n| text(&n.name)).collect();
    let mut nodes = Dict::with_capacity(7);
    nodes.push("allocated", Value::int(g.nodes_alloc));
    nodes.push("idle", Value::int(g.nodes_idle));
    nodes.push("other", Value::int(g.nodes_other));
    nodes.push("total", Value::int(g.nodes_total()));
    nodes.push("hostnames", Value::List(Vec::new()));
    nodes.push("addresses", Value::List(Vec::new()));
    nodes.push("nodes", Value::List(names));
    d.push("nodes", nodes.into());
    let mut cpus = Dict::with_capacity(8);
    cpus.push("allocated", Value::int(g.cpus_alloc));
    cpus.push("idle", Value::int(g.cpus_idle));
    cpus.push("other", Value::int(g.cpus_other));
    cpus.push("total", Value::int(g.cpus_total));
    let (lo, hi) = g.min_max(|n| n.cpus).unwrap_or((0, 0));
    cpus.push("minimum", Value::int(lo));
    cpus.push("maximum", Value::int(hi));
    let load = |n: &NodeRecord| n.cpu_load.map_or(0, |l| (l * 100.0).round() as i64);
    let (llo, lhi) = g.min_max(load).unwrap_or((0, 0));
    cpus.push("load", min_max(Value::Int(llo), Value::Int(lhi)));
    let mut per_node = Dict::with_capacity(1);
    per_node.push(
        "max",
        g.part
            .and_then(|p| p.max_cpus_per_node)
            .map_or_else(infinite, num),
    );
    cpus.push("per_node", per_node.into());
    d.push("cpus", cpus.into());
    d.push("sockets", range(g, |n| n.sockets));
    d.push("cores", range(g, |n| n.cores_per_socket));
    d.push("threads", range(g, |n| n.threads_per_core));
    let disk = |n: &NodeRecord| i64::try_from(n.tmp_disk).unwrap_or(i64::MAX);
    let (dlo, dhi) = g.min_max(disk).unwrap_or((0, 0));
    d.push("disk", min_max(Value::Int(dlo), Value::Int(dhi)));
    let mem = |n: &NodeRecord| i64::try_from(n.real_memory).unwrap_or(i64::MAX);
    let (mlo, mhi) = g.min_max(mem).unwrap_or((0, 0));
    let free = |n: &NodeRecord| n.free_memory.map(|f| i64::try_from(f).unwrap_or(i64::MAX));
    let (flo, fhi) = g.min_max(free).unwrap_or((None, None));
    let mut memory = Dict::with_capacity(4);
    memory.push("minimum", Value::Int(mlo));
    memory.push("maximum", Value::Int(mhi));
    let mut fm = Dict::with_capacity(2);
    fm.push("minimum", flo.map_or_else(unset, num));
    fm.push("maximum", fhi.map_or_else(unset, num));
    memory.push("free", fm.into());
    memory.push("allocated", Value::u64_wrapping(g.alloc_memory));
    d.push("memory", memory.into());
    d.push("weight", range(g, |n| n.weight));
    let mut features = Dict::with_capacity(2);
    features.push("total", opt_text(&rep.features));
    features.push("active", opt_text(&rep.features_active));
    d.push("features", features.into());
    let mut gres = Dict::with_capacity(2);
    gres.push("total", opt_text(&rep.gres));
    gres.push("used", opt_text(&rep.gres_used));
    d.push("gres", gres.into());
    d.push("cluster", text(""));
    d.push("comment", opt_text(&rep.comment));
    d.push("extra", opt_text(&rep.extra));
    let mut reason = Dict::with_capacity(3);
    reason.push("description", opt_text(&rep.reason));
    reason.push("time", Value::int(rep.reason_time.unwrap_or(0)));
    reason.push("user", opt_text(&rep.reason_user));
    d.push("reason", reason.into());
    d.push("reservation", text(""));
    if parser >= Parser::V0041 {
        let mut spec = Dict::with_capacity(2);
        spec.push("cpus", text(""));
        spec.push("memory", Value::Int(0));
        d.push("resource_spec", spec.into());
    }
    d.push("partition", partition(g.part, parser));
    d.into()
}

fn partition(p: Option<&PartitionRecord>, parser: Parser) -> Value {
    let p = p.cloned().unwrap_or_default();
    let mut d = Dict::with_capacity(24);
    let mut nodes = Dict::with_capacity(3);
    nodes.push("allowed_allocation", opt_text(&p.allow_alloc_nodes));
    nodes.push(
        "configured",
        text(&crate::model::hostlist::compress(&p.nodes)),
    );
    nodes.push("total", Value::Int(p.nodes.len() as i64));
    d.push("nodes", nodes.into());
    let mut accounts = Dict::with_capacity(2);
    accounts.push("allowed", opt_text(&p.allow_accounts));
    accounts.push("deny", opt_text(&p.deny_accounts));
    d.push("accounts", accounts.into());
    let mut groups = Dict::with_capacity(1);
    groups.push("allowed", opt_text(&p.allow_groups));
    d.push("groups", groups.into());
    let mut qos = Dict::with_capacity(3);
    qos.push("allowed", opt_text(&p.allow_qos));
    qos.push("deny", opt_text(&p.deny_qos));
    qos.push("assigned", opt_text(&p.qos));
    d.push("qos", qos.into());
    d.push("alternate", opt_text(&p.alternate));
    let mut tres = Dict::with_capacity(2);
    tres.push("billing_weights", text(""));
    tres.push("configured", opt_text(&p.tres));
    d.push("tres", tres.into());
    d.push("cluster", text(""));
    if parser >= Parser::V0041 {
        d.push("select_type", Value::List(Vec::new()));
    }
    let mut cpus = Dict::with_capacity(2);
    cpus.push("task_binding", Value::Int(0));
    cpus.push("total", Value::int(p.total_cpus));
    d.push("cpus", cpus.into());
    let mut defaults = Dict::with_capacity(5);
    defaults.push("memory_per_cpu", Value::Int(0));
    defaults.push(
        "partition_memory_per_cpu",
        p.def_mem_per_cpu.map_or_else(unset, |m| num(m as i64)),
    );
    defaults.push(
        "partition_memory_per_node",
        if p.def_mem_per_cpu.is_some() {
            unset()
        } else {
            num(p.def_mem_per_node.unwrap_or(0) as i64)
        },
    );
    defaults.push("time", p.default_time.map_or_else(unset, limit));
    defaults.push("job", opt_text(&p.job_defaults));
    d.push("defaults", defaults.into());
    d.push("grace_time", Value::int(p.grace_time));
    let mut max = Dict::with_capacity(11);
    max.push(
        "cpus_per_node",
        p.max_cpus_per_node.map_or_else(infinite, num),
    );
    max.push("cpus_per_socket", infinite());
    max.push("memory_per_cpu", Value::Int(0));
    max.push("partition_memory_per_cpu", unset());
    max.push("partition_memory_per_node", num(0));
    max.push("nodes", p.max_nodes.map_or_else(infinite, num));
    max.push("shares", Value::Int(1));
    let mut over = Dict::with_capacity(2);
    over.push("jobs", Value::Int(1));
    over.push("flags", Value::List(Vec::new()));
    max.push("oversubscribe", over.into());
    max.push("time", limit(p.max_time));
    max.push("over_time_limit", p.over_time_limit.map_or_else(unset, num));
    d.push("maximums", max.into());
    let mut min = Dict::with_capacity(1);
    min.push("nodes", Value::int(p.min_nodes));
    d.push("minimums", min.into());
    d.push("name", text(&p.name));
    d.push("node_sets", text(""));
    let mut prio = Dict::with_capacity(2);
    prio.push("job_factor", Value::int(p.priority_job_factor.unwrap_or(1)));
    prio.push("tier", Value::int(p.priority_tier.unwrap_or(1)));
    d.push("priority", prio.into());
    let mut timeouts = Dict::with_capacity(2);
    timeouts.push("resume", unset());
    timeouts.push("suspend", unset());
    d.push("timeouts", timeouts.into());
    let mut state = Dict::with_capacity(1);
    state.push(
        "state",
        Value::List(vec![text(&p.availability.to_uppercase())]),
    );
    d.push("partition", state.into());
    d.push("suspend_time", unset());
    d.into()
}
