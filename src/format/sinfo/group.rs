//! sinfo's lines: nodes grouped per partition when every printed attribute agrees
//! (`_build_sinfo_data`, `_match_part_data`, `_match_node_data`, `_update_sinfo`).

use crate::model::node_state::{
    self, ALLOCATED, BASE_MASK, COMPLETING, DOWN, DRAIN, MIXED, NO_RESPOND,
};
use crate::model::{NodeRecord, PartitionRecord};

/// Which attributes are printed, so which must agree for nodes to share a line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchFlags {
    pub alloc_mem: bool,
    pub avail: bool,
    pub comment: bool,
    pub cpus: bool,
    pub cpu_load: bool,
    pub default_time: bool,
    pub disk: bool,
    pub extra: bool,
    pub features: bool,
    pub features_act: bool,
    pub free_mem: bool,
    pub groups: bool,
    pub gres: bool,
    pub gres_used: bool,
    pub hostnames: bool,
    pub job_size: bool,
    pub max_cpus_per_node: bool,
    pub max_time: bool,
    pub memory: bool,
    pub node_addr: bool,
    pub oversubscribe: bool,
    pub partition: bool,
    pub port: bool,
    pub preempt_mode: bool,
    pub priority_job_factor: bool,
    pub priority_tier: bool,
    pub reason: bool,
    pub reason_timestamp: bool,
    pub reason_user: bool,
    pub root: bool,
    pub sct: bool,
    pub sockets: bool,
    pub cores: bool,
    pub threads: bool,
    pub state: bool,
    pub state_complete: bool,
    pub version: bool,
    pub weight: bool,
}

/// How the lines are built.
#[derive(Debug, Clone, Default)]
pub struct Build {
    pub flags: MatchFlags,
    /// `-N`: one line per node and partition.
    pub node_view: bool,
    /// `-R`: partitions do not matter.
    pub list_reasons: bool,
    /// `-e`: sizes must match exactly.
    pub exact: bool,
    pub filter: NodeFilter,
}

/// `-n`, `-p`, `-t`, `-d`, `-r`.
#[derive(Debug, Clone, Default)]
pub struct NodeFilter {
    pub nodes: Option<Vec<String>>,
    pub partitions: Option<Vec<String>>,
    /// Node state words or flag bits to match (`_build_state_list`).
    pub states: Option<Vec<u32>>,
    /// `-t a&b`: all states must match.
    pub states_and: bool,
    pub dead: bool,
    pub responding: bool,
}

impl NodeFilter {
    fn filtering(&self) -> bool {
        self.nodes.is_some()
            || self.partitions.is_some()
            || self.states.is_some()
            || self.dead
            || self.responding
    }
}

/// One line of sinfo.
#[derive(Debug, Clone)]
pub struct Group<'a> {
    pub part: Option<&'a PartitionRecord>,
    pub part_inx: usize,
    /// The nodes in the order they joined.
    pub nodes: Vec<&'a NodeRecord>,
    /// The first node to join: its values stand for the line, as Slurm copies them.
    pub rep: Option<&'a NodeRecord>,
    pub node_state: u32,
    pub nodes_alloc: u32,
    pub nodes_idle: u32,
    pub nodes_other: u32,
    pub cpus_alloc: u32,
    pub cpus_idle: u32,
    pub cpus_other: u32,
    pub cpus_total: u32,
    pub alloc_memory: u64,
}

impl<'a> Group<'a> {
    fn new(part: Option<&'a PartitionRecord>, part_inx: usize) -> Group<'a> {
        Group {
            part,
            part_inx,
            nodes: Vec::new(),
            rep: None,
            node_state: 0,
            nodes_alloc: 0,
            nodes_idle: 0,
            nodes_other: 0,
            cpus_alloc: 0,
            cpus_idle: 0,
            cpus_other: 0,
            cpus_total: 0,
            alloc_memory: 0,
        }
    }

    pub fn nodes_total(&self) -> u32 {
        self.nodes.len() as u32
    }

    pub fn first(&self) -> Option<&'a NodeRecord> {
        self.rep
    }

    /// The node names as Slurm's sorted hostlist prints them (`node[01-03]`).
    pub fn node_list(&self) -> String {
        let mut names: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
        names.sort_by(|a, b| host_cmp(a, b));
        crate::model::hostlist::compress(&names)
    }

    /// Minimum and maximum of a node attribute over the line.
    pub fn min_max<T: Ord + Copy>(&self, f: impl Fn(&NodeRecord) -> T) -> Option<(T, T)> {
        let vals: Vec<T> = self.nodes.iter().map(|n| f(n)).collect();
        Some((*vals.iter().min()?, *vals.iter().max()?))
    }

    fn add(&mut self, node: &'a NodeRecord) {
        if self.nodes.iter().any(|n| n.name == node.name) {
            return;
        }
        let word = node_state::displayed_word(node, false);
        if self.nodes.is_empty() {
            self.node_state = word;
            self.rep = Some(node);
        }
        self.nodes.push(node);
        let base = word & BASE_MASK;
        if base == ALLOCATED || base == MIXED || word & COMPLETING != 0 {
            self.nodes_alloc += 1;
        } else if word & DRAIN != 0 || base == DOWN {
            self.nodes_other += 1;
        } else {
            self.nodes_idle += 1;
        }
        let used = node.alloc_cpus.min(node.cpus);
        self.cpus_alloc = self.cpus_alloc.saturating_add(used);
        self.cpus_total = self.cpus_total.saturating_add(node.cpus);
        let rest = node.cpus - used;
        if word & DRAIN != 0 || base == DOWN {
            self.cpus_other = self.cpus_other.saturating_add(rest);
        } else {
            self.cpus_idle = self.cpus_idle.saturating_add(rest);
        }
        self.alloc_memory = node.alloc_memory;
    }
}

/// `_filter_out`: whether a node is left out by `-n`, `-d`, `-r` or `-t`.
fn filtered_out(node: &NodeRecord, f: &NodeFilter) -> bool {
    if let Some(names) = &f.nodes
        && !names.contains(&node.name)
    {
        return true;
    }
    let word = node_state::displayed_word(node, false);
    if f.dead && word & NO_RESPOND == 0 {
        return true;
    }
    if f.responding && word & NO_RESPOND != 0 {
        return true;
    }
    if let Some(states) = &f.states {
        let mut matched = false;
        for &want in states {
            matched = state_matches(node, word, want);
            if !f.states_and && matched {
                break;
            }
            if f.states_and && !matched {
                break;
            }
        }
        if !matched {
            return true;
        }
    }
    false
}

/// One `-t` state against a node (drain flag, draining/drained, flags, base states).
fn state_matches(node: &NodeRecord, word: u32, want: u32) -> bool {
    let draining = |w: u32| {
        w & DRAIN != 0 && (matches!(w & BASE_MASK, ALLOCATED | MIXED) || w & COMPLETING != 0)
    };
    let drained = |w: u32| w & DRAIN != 0 && !draining(w);
    if want == DRAIN {
        word & DRAIN != 0
    } else if draining(want) {
        draining(word)
    } else if drained(want) {
        drained(word)
    } else if want & !BASE_MASK != 0 {
        want & word != 0
    } else if want == ALLOCATED {
        node.alloc_cpus > 0
    } else {
        word & BASE_MASK == want
    }
}

fn opt_eq(a: &Option<String>, b: &Option<String>) -> bool {
    a == b
}

/// `_match_node_data`: a node may join a line when the printed node attributes agree.
fn node_matches(g: &Group, node: &NodeRecord, b: &Build) -> bool {
    if b.node_view {
        return false;
    }
    let f = &b.flags;
    let Some(first) = g.first() else {
        return true;
    };
    if f.hostnames && !g.nodes.iter().any(|n| n.hostname == node.hostname) {
        return false;
    }
    if f.node_addr && !g.nodes.iter().any(|n| n.address == node.address) {
        return false;
    }
    if (f.extra && !opt_eq(&node.extra, &first.extra))
        || (f.features && !opt_eq(&node.features, &first.features))
        || (f.features_act && !opt_eq(&node.features_active, &first.features_active))
        || (f.gres && !opt_eq(&node.gres, &first.gres))
        || (f.gres_used && !opt_eq(&node.gres_used, &first.gres_used))
        || (f.comment && !opt_eq(&node.comment, &first.comment))
        || (f.reason && !opt_eq(&node.reason, &first.reason))
        || (f.reason_timestamp && node.reason_time != first.reason_time)
        || (f.reason_user && node.reason_uid != first.reason_uid)
    {
        return false;
    }
    let word = node_state::displayed_word(node, false);
    if f.state && node_state::long_name(word) != node_state::long_name(g.node_state) {
        return false;
    }
    if f.state_complete
        && node_state::complete_name(word) != node_state::complete_name(g.node_state)
    {
        return false;
    }
    if f.alloc_mem && node.alloc_memory != g.alloc_memory {
        return false;
    }
    if !b.exact {
        return true;
    }
    let (lo, _) = g.min_max(|n| n.cpus).unwrap_or_default();
    if f.cpus && node.cpus != lo {
        return false;
    }
    let same = |a: u32, get: fn(&NodeRecord) -> u32| Some(a) == g.min_max(get).map(|m| m.0);
    if (f.sockets && !same(node.sockets, |n| n.sockets))
        || (f.cores && !same(node.cores_per_socket, |n| n.cores_per_socket))
        || (f.threads && !same(node.threads_per_core, |n| n.threads_per_core))
        || (f.sct
            && !(same(node.sockets, |n| n.sockets)
                && same(node.cores_per_socket, |n| n.cores_per_socket)
                && same(node.threads_per_core, |n| n.threads_per_core)))
        || (f.weight && !same(node.weight, |n| n.weight))
    {
        return false;
    }
    if (f.disk && Some(node.tmp_disk) != g.min_max(|n| n.tmp_disk).map(|m| m.0))
        || (f.memory && Some(node.real_memory) != g.min_max(|n| n.real_memory).map(|m| m.0))
        || (f.version && node.version != first.version)
    {
        return false;
    }
    true
}

/// `_match_part_data`: a line may take nodes of this partition.
fn part_matches(g: &Group, part: &PartitionRecord, inx: usize, b: &Build) -> bool {
    if b.list_reasons {
        return true;
    }
    let Some(gp) = g.part else {
        return false;
    };
    if g.part_inx == inx {
        return true;
    }
    let f = &b.flags;
    !((f.partition && gp.name != part.name)
        || (f.avail && gp.availability != part.availability)
        || (f.groups && gp.allow_groups != part.allow_groups)
        || (f.job_size && (gp.min_nodes != part.min_nodes || gp.max_nodes != part.max_nodes))
        || (f.default_time && gp.default_time != part.default_time)
        || (f.max_time && gp.max_time != part.max_time)
        || (f.root && gp.root_only != part.root_only)
        || (f.oversubscribe && gp.oversubscribe != part.oversubscribe)
        || (f.preempt_mode && gp.preempt_mode != part.preempt_mode)
        || (f.priority_tier && gp.priority_tier != part.priority_tier)
        || (f.priority_job_factor && gp.priority_job_factor != part.priority_job_factor)
        || (f.max_cpus_per_node && gp.max_cpus_per_node != part.max_cpus_per_node))
}

/// Whether a partition holds a node (its node list, else the node's own partition list).
fn in_partition(part: &PartitionRecord, node: &NodeRecord) -> bool {
    if part.nodes.is_empty() {
        node.partitions.contains(&part.name)
    } else {
        part.nodes.contains(&node.name)
    }
}

/// Builds sinfo's lines from the partitions and nodes, in Slurm's insertion order.
pub fn build<'a>(
    parts: &'a [PartitionRecord],
    nodes: &'a [NodeRecord],
    b: &Build,
) -> Vec<Group<'a>> {
    let wanted = |p: &PartitionRecord| {
        b.filter
            .partitions
            .as_ref()
            .is_none_or(|l| l.contains(&p.name))
    };
    let mut groups: Vec<Group> = Vec::new();
    // Every partition is listed, even without nodes, when partitions are printed.
    if !b.node_view && b.flags.partition {
        for (i, p) in parts.iter().enumerate() {
            if wanted(p) {
                groups.push(Group::new(Some(p), i));
            }
        }
    }
    let filtering = b.filter.filtering();
    let shown: Vec<&NodeRecord> = nodes
        .iter()
        .filter(|n| !(filtering && filtered_out(n, &b.filter)))
        .collect();
    for (i, part) in parts.iter().enumerate() {
        if filtering && b.filter.partitions.is_some() && !wanted(part) {
            continue;
        }
        for node in shown.iter().copied().filter(|n| in_partition(part, n)) {
            let slot = groups.iter_mut().find(|g| {
                part_matches(g, part, i, b) && (g.nodes.is_empty() || node_matches(g, node, b))
            });
            match slot {
                Some(g) => g.add(node),
                None => {
                    let mut g = Group::new(Some(part), i);
                    g.add(node);
                    groups.push(g);
                }
            }
        }
    }
    groups
}

/// `hostlist_sort` order: by prefix, then by numeric suffix.
pub fn host_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let split = |s: &str| {
        let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (p, n) = s.split_at(s.len() - digits);
        (p.to_string(), n.parse::<u64>().unwrap_or(0), n.len())
    };
    split(a).cmp(&split(b))
}
