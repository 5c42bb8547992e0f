//! sinfo's text output: lines built from partitions and nodes, sorted, printed.

pub mod fields;
pub mod group;

use crate::format::common::Clock;
use crate::format::msort::{c_cmp, sort_by};
use crate::format::spec::{self, Item, Lookup, Parsed};
use crate::format::squeue::print_line;
use crate::model::units::Convert;
use crate::model::{NodeRecord, PartitionRecord};
use fields::{Ctx, Field};
use group::{Build, Group};

pub const DEFAULT_FORMAT: &str =
    "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0";
pub const LONG_FORMAT: &str = "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0";
/// 24.11's `sinfo -l`: a RESERVATION column before NODELIST.
pub const LONG_FORMAT_24_11: &str = "partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,reservation:.11 ,nodelist:0";
pub const SUMMARIZE_FORMAT: &str = "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
pub const NODE_FORMAT: &str = "nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6";
pub const NODE_LONG_FORMAT: &str = "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,reason:20";
pub const REASON_FORMAT: &str = "reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
pub const REASON_LONG_FORMAT: &str =
    "reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0";

/// A format as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Letters(String),
    Names(String),
}

/// Everything that shapes sinfo's output.
#[derive(Debug, Clone)]
pub struct View {
    pub format: Format,
    pub no_header: bool,
    /// The default formats size the partition and node list columns to the data.
    pub part_width_from_data: bool,
    pub node_width_from_data: bool,
    pub build: Build,
    pub sort: Option<String>,
    pub convert: Convert,
    pub cluster_name: Option<String>,
}

/// Output and the diagnostics printed while parsing the format.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub out: Vec<u8>,
    /// `Invalid node format specification: X` lines (printed without prefix).
    pub letter_errors: Vec<String>,
    /// `Invalid job format specification: X` lines (printed as errors).
    pub name_errors: Vec<String>,
}

/// Parses a format; `-O all` expands to every letter, as Slurm does.
pub fn parse_format(format: &Format) -> Parsed<Field> {
    let lookup = Lookup {
        letter: &Field::from_letter,
        name: &Field::from_name,
        all_upper_suffix: " ",
    };
    match format {
        Format::Letters(f) => spec::parse_letters(f, &lookup),
        Format::Names(f) => {
            // `all` in a name list stands for `%all`.
            let mut items = Vec::new();
            let mut unknown = Vec::new();
            for token in f.split(',').filter(|t| !t.is_empty()) {
                let (name, ..) = spec::parse_long_token(token);
                if name.eq_ignore_ascii_case("all") {
                    items.extend(spec::parse_letters("%all", &lookup).items);
                } else {
                    let one = spec::parse_names(token, &lookup);
                    items.extend(one.items);
                    unknown.extend(one.unknown);
                }
            }
            Parsed { items, unknown }
        }
    }
}

/// Renders sinfo's lines.
pub fn render(
    parts: &[PartitionRecord],
    nodes: &[NodeRecord],
    view: &View,
    clock: &Clock,
) -> Rendered {
    let parsed = parse_format(&view.format);
    let mut r = Rendered::default();
    match view.format {
        Format::Letters(_) => r.letter_errors = parsed.unknown.clone(),
        Format::Names(_) => r.name_errors = parsed.unknown.clone(),
    }
    let mut build = view.build.clone();
    for item in &parsed.items {
        if let Item::Field { field, .. } = item {
            field.set_flag(&mut build.flags);
        }
    }
    let mut groups = group::build(parts, nodes, &build);
    let default_sort = if build.node_view { "N" } else { "#P,-t" };
    sort_groups(&mut groups, view.sort.as_deref().unwrap_or(default_sort));
    let part_width = view.part_width_from_data.then(|| {
        groups
            .iter()
            .filter_map(|g| g.part)
            .map(|p| p.name.len() + usize::from(p.is_default))
            .fold(9, usize::max)
    });
    let node_width = view.node_width_from_data.then(|| {
        groups
            .iter()
            .map(|g| g.node_list().len())
            .fold(9, usize::max)
    });
    let ctx = Ctx {
        clock,
        convert: view.convert,
        cluster_name: view.cluster_name.as_deref(),
        part_width,
        node_width,
    };
    if !view.no_header {
        print_line(&mut r.out, &parsed.items, |out, f: Field, w, right| {
            f.print_header(out, w, right, &ctx)
        });
    }
    for g in &groups {
        print_line(&mut r.out, &parsed.items, |out, f: Field, w, right| {
            f.print_value(out, g, &ctx, w, right)
        });
    }
    r
}

/// A sort key's comparator (C convention).
type GroupCmp = Box<dyn Fn(&Group, &Group) -> i32>;

/// `sort_sinfo_list`: keys applied right to left; `#P` is the partitions' table order.
fn sort_groups(groups: &mut Vec<Group>, spec: &str) {
    let chars: Vec<char> = spec.chars().collect();
    let mut i = chars.len();
    while i > 0 {
        i -= 1;
        let c = chars[i];
        if matches!(c, ',' | '#' | '+' | '-') {
            continue;
        }
        let reverse = i > 0 && chars[i - 1] == '-';
        let part_order = i > 0 && chars[i - 1] == '#';
        let key: Option<GroupCmp> = match c {
            'a' => Some(Box::new(|a, b| c_cmp(avail(a).cmp(&avail(b))))),
            'A' | 'F' => Some(Box::new(|a, b| c_cmp(a.nodes_alloc.cmp(&b.nodes_alloc)))),
            'c' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.cpus).cmp(&min(b, |n| n.cpus)))
            })),
            'd' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.tmp_disk).cmp(&min(b, |n| n.tmp_disk)))
            })),
            'D' => Some(Box::new(|a, b| {
                c_cmp(a.nodes_total().cmp(&b.nodes_total()))
            })),
            'E' => Some(Box::new(|a, b| {
                let r = |g: &Group| g.first().and_then(|n| n.reason.clone()).unwrap_or_default();
                c_cmp(r(a).cmp(&r(b)))
            })),
            'f' => Some(Box::new(|a, b| {
                let r = |g: &Group| {
                    g.first()
                        .and_then(|n| n.features.clone())
                        .unwrap_or_default()
                };
                c_cmp(r(a).cmp(&r(b)))
            })),
            'H' => Some(Box::new(|a, b| {
                let r = |g: &Group| g.first().and_then(|n| n.reason_time).unwrap_or(0);
                c_cmp(r(a).cmp(&r(b)))
            })),
            'l' => Some(Box::new(|a, b| {
                let t = |g: &Group| {
                    g.part.map_or(0, |p| match p.max_time {
                        crate::model::TimeLimit::Infinite => u32::MAX,
                        crate::model::TimeLimit::Minutes(m) => m,
                    })
                };
                c_cmp(t(a).cmp(&t(b)))
            })),
            'm' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.real_memory).cmp(&min(b, |n| n.real_memory)))
            })),
            'N' | 'n' | 'o' => Some(Box::new(|a, b| {
                let f = |g: &Group| {
                    let mut names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
                    names.sort_by(|x, y| group::host_cmp(x, y));
                    names.first().map(|s| s.to_string()).unwrap_or_default()
                };
                c_cmp(group::host_cmp(&f(a), &f(b)))
            })),
            'p' => Some(Box::new(|a, b| {
                let t = |g: &Group| g.part.map_or(1, |p| p.priority_tier.unwrap_or(1));
                c_cmp(t(a).cmp(&t(b)))
            })),
            'P' | 'R' => Some(if part_order {
                Box::new(|a, b| c_cmp(a.part_inx.cmp(&b.part_inx)))
            } else {
                Box::new(|a, b| {
                    let n = |g: &Group| g.part.map(|p| p.name.clone()).unwrap_or_default();
                    c_cmp(n(a).cmp(&n(b)))
                })
            }),
            'r' => Some(Box::new(|a, b| {
                let r = |g: &Group| g.part.is_some_and(|p| p.root_only);
                c_cmp(r(a).cmp(&r(b)))
            })),
            't' | 'T' => Some(Box::new(|a, b| {
                c_cmp((a.node_state as i32).cmp(&(b.node_state as i32)))
            })),
            'w' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.weight).cmp(&min(b, |n| n.weight)))
            })),
            'X' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.sockets).cmp(&min(b, |n| n.sockets)))
            })),
            'Y' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.cores_per_socket).cmp(&min(b, |n| n.cores_per_socket)))
            })),
            'Z' => Some(Box::new(|a, b| {
                c_cmp(min(a, |n| n.threads_per_core).cmp(&min(b, |n| n.threads_per_core)))
            })),
            _ => None,
        };
        if let Some(key) = key {
            sort_by(groups, |a, b| {
                let d = key(a, b);
                if reverse { -d } else { d }
            });
        }
    }
}

fn avail(g: &Group) -> u8 {
    g.part.map_or(0, |p| match p.availability.as_str() {
        "inactive" => 0,
        "up" => 1,
        "down" => 2,
        "drain" => 3,
        _ => 4,
    })
}

fn min<T: Ord + Copy + Default>(g: &Group, f: fn(&NodeRecord) -> T) -> T {
    g.min_max(f).map(|m| m.0).unwrap_or_default()
}

/// `sinfo -T`: the reservation table. Backends have no reservations, so it is the header.
pub fn reservations_header() -> String {
    format!(
        "{:<9}  {:>8}  {:>19}  {:>19}  {:>11}  {}\n",
        "RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION", "NODELIST"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeState, TimeLimit};

    fn node(name: &str, state: NodeState, alloc: u32) -> NodeRecord {
        NodeRecord {
            name: name.into(),
            state,
            cpus: 4,
            alloc_cpus: alloc,
            sockets: 1,
            cores_per_socket: 4,
            threads_per_core: 1,
            real_memory: 8000,
            weight: 1,
            ..Default::default()
        }
    }

    fn part(name: &str, nodes: &[&str], default: bool) -> PartitionRecord {
        PartitionRecord {
            name: name.into(),
            is_default: default,
            availability: "up".into(),
            max_time: TimeLimit::Infinite,
            nodes: nodes.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn render_str(
        parts: &[PartitionRecord],
        nodes: &[NodeRecord],
        format: &str,
        node_view: bool,
    ) -> String {
        let view = View {
            format: Format::Names(format.into()),
            no_header: false,
            part_width_from_data: true,
            node_width_from_data: node_view,
            build: Build {
                node_view,
                ..Default::default()
            },
            sort: None,
            convert: Convert::Exact,
            cluster_name: None,
        };
        String::from_utf8(render(parts, nodes, &view, &Clock::default()).out).unwrap()
    }

    #[test]
    fn nodes_group_by_state_per_partition() {
        let nodes = [
            node("n1", NodeState::Idle, 0),
            node("n2", NodeState::Idle, 0),
            node("n3", NodeState::Allocated, 4),
            node("n4", NodeState::Allocated, 2),
        ];
        let parts = [
            part("batch", &["n1", "n2", "n3", "n4"], true),
            part("long_partition_name", &[], false),
        ];
        let out = render_str(&parts, &nodes, DEFAULT_FORMAT, false);
        assert_eq!(
            out,
            "PARTITION           AVAIL  TIMELIMIT  NODES  STATE NODELIST\n\
             batch*                 up   infinite      1    mix n4\n\
             batch*                 up   infinite      1  alloc n3\n\
             batch*                 up   infinite      2   idle n[1-2]\n\
             long_partition_name    up   infinite      0    n/a \n"
        );
    }

    #[test]
    fn node_view_lists_each_node() {
        let nodes = [
            node("n10", NodeState::Idle, 0),
            node("n9", NodeState::Idle, 0),
        ];
        let parts = [part("p", &["n9", "n10"], false)];
        let out = render_str(&parts, &nodes, NODE_FORMAT, true);
        assert_eq!(
            out,
            "NODELIST   NODES PARTITION STATE \nn9             1         p idle  \nn10            1         p idle  \n"
        );
    }

    #[test]
    fn counts_and_ranges() {
        let mut big = node("n2", NodeState::Down, 0);
        big.cpus = 8;
        let nodes = [node("n1", NodeState::Idle, 0), big];
        let parts = [part("p", &["n1", "n2"], false)];
        let out = render_str(&parts, &nodes, "nodeaiot:0 ,cpus:0 ,cpusstate:0", false);
        assert_eq!(
            out,
            "NODES(A/I/O/T) CPUS CPUS(A/I/O/T)\n0/1/1/2 4+ 0/4/8/12\n"
        );
    }
}
