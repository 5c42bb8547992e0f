//! sinfo's fields: `-o` letters, `-O` names, headers, the match flag each sets, and the
//! value of each for one line (`src/sinfo/print.c`).

use super::group::{Group, MatchFlags};
use crate::format::common::Clock;
use crate::format::text::{print_str, print_text};
use crate::model::node_state;
use crate::model::units::{Convert, Unit, convert_num_unit};
use crate::model::{PartitionRecord, TimeLimit};

macro_rules! sinfo_fields {
    ($( $variant:ident, $letter:expr, [$($name:expr),*], $header:expr, $flag:expr; )*) => {
        /// A field sinfo can print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Field { $($variant),* }

        impl Field {
            pub fn from_letter(c: char) -> Option<Field> {
                $( if $letter == Some(c) { return Some(Field::$variant); } )*
                None
            }

            pub fn from_name(name: &str) -> Option<Field> {
                $( $( if name.eq_ignore_ascii_case($name) { return Some(Field::$variant); } )* )*
                None
            }

            pub fn header(self) -> &'static str {
                match self { $( Field::$variant => $header ),* }
            }

            /// Records that this field is printed, so lines must agree on it.
            pub fn set_flag(self, f: &mut MatchFlags) {
                let set: fn(&mut MatchFlags) = match self { $( Field::$variant => $flag ),* };
                set(f);
            }
        }
    };
}

fn none(_: &mut MatchFlags) {}

sinfo_fields! {
    Avail, Some('a'), ["available"], "AVAIL", |f| f.avail = true;
    NodesAi, Some('A'), ["nodeai"], "NODES(A/I)", none;
    FeaturesAct, Some('b'), ["features_act"], "ACTIVE_FEATURES", |f| f.features_act = true;
    MaxCpusPerNode, Some('B'), ["maxcpuspernode"], "MAX_CPUS_PER_NODE", |f| f.max_cpus_per_node = true;
    Cpus, Some('c'), ["cpus"], "CPUS", |f| f.cpus = true;
    CpusAiot, Some('C'), ["cpusstate"], "CPUS(A/I/O/T)", |f| f.cpus = true;
    Disk, Some('d'), ["disk"], "TMP_DISK", |f| f.disk = true;
    Nodes, Some('D'), ["nodes"], "NODES", none;
    FreeMem, Some('e'), ["freemem"], "FREE_MEM", |f| f.free_mem = true;
    Reason, Some('E'), ["reason"], "REASON", |f| f.reason = true;
    Features, Some('f'), ["features"], "AVAIL_FEATURES", |f| f.features = true;
    NodesAiot, Some('F'), ["nodeaiot"], "NODES(A/I/O/T)", none;
    Groups, Some('g'), ["groups"], "GROUPS", |f| f.groups = true;
    Gres, Some('G'), ["gres"], "GRES", |f| f.gres = true;
    OverSubscribe, Some('h'), ["oversubscribe", "share"], "OVERSUBSCRIBE", |f| f.oversubscribe = true;
    Timestamp, Some('H'), ["timestamp"], "TIMESTAMP", |f| f.reason_timestamp = true;
    PriorityJobFactor, Some('I'), ["priorityjobfactor"], "PRIO_JOB_FACTOR", |f| f.priority_job_factor = true;
    Time, Some('l'), ["time"], "TIMELIMIT", |f| f.max_time = true;
    DefaultTime, Some('L'), ["defaulttime"], "DEFAULTTIME", |f| f.default_time = true;
    Memory, Some('m'), ["memory"], "MEMORY", |f| f.memory = true;
    PreemptMode, Some('M'), ["preemptmode"], "PREEMPT_MODE", |f| f.preempt_mode = true;
    NodeHost, Some('n'), ["nodehost"], "HOSTNAMES", |f| f.hostnames = true;
    NodeList, Some('N'), ["nodelist"], "NODELIST", none;
    NodeAddr, Some('o'), ["nodeaddr"], "NODE_ADDR", |f| f.node_addr = true;
    CpuLoad, Some('O'), ["cpusload"], "CPU_LOAD", |f| f.cpu_load = true;
    PriorityTier, Some('p'), ["prioritytier"], "PRIO_TIER", |f| f.priority_tier = true;
    Partition, Some('P'), ["partition"], "PARTITION", |f| f.partition = true;
    Root, Some('r'), ["root"], "ROOT", |f| f.root = true;
    PartitionName, Some('R'), ["partitionname"], "PARTITION", |f| f.partition = true;
    Size, Some('s'), ["size"], "JOB_SIZE", |f| f.job_size = true;
    AllocNodes, Some('S'), ["allocnodes"], "ALLOCNODES", none;
    StateCompact, Some('t'), ["statecompact"], "STATE", |f| f.state = true;
    StateLong, Some('T'), ["statelong"], "STATE", |f| f.state = true;
    User, Some('u'), ["user"], "USER", |f| f.reason_user = true;
    UserLong, Some('U'), ["userlong"], "USER", |f| f.reason_user = true;
    Version, Some('v'), ["version"], "VERSION", |f| f.version = true;
    Cluster, Some('V'), ["cluster"], "CLUSTER", none;
    Weight, Some('w'), ["weight"], "WEIGHT", |f| f.weight = true;
    Sockets, Some('X'), ["sockets"], "SOCKETS", |f| f.sockets = true;
    Cores, Some('Y'), ["cores"], "CORES", |f| f.cores = true;
    Sct, Some('z'), ["socketcorethread"], "S:C:T", |f| f.sct = true;
    Threads, Some('Z'), ["threads"], "THREADS", |f| f.threads = true;
    AllocMem, None, ["allocmem"], "ALLOCMEM", |f| f.alloc_mem = true;
    Comment, None, ["comment"], "COMMENT", |f| f.comment = true;
    Extra, None, ["extra"], "EXTRA", |f| f.extra = true;
    GresUsed, None, ["gresused"], "GRES_USED", |f| f.gres_used = true;
    Port, None, ["port"], "PORT", |f| f.port = true;
    // 24.11's `sinfo -l` column: the reservation a node is in (there are none here).
    Reservation, None, ["reservation"], "RESERVATION", none;
    StateComplete, None, ["statecomplete"], "STATECOMPLETE", |f| f.state_complete = true;
}

/// What values need besides the line.
pub struct Ctx<'a> {
    pub clock: &'a Clock,
    pub convert: Convert,
    /// Set with `-M`: the cluster shown by `%V`.
    pub cluster_name: Option<&'a str>,
    /// Widths computed from the data for the default formats.
    pub part_width: Option<usize>,
    pub node_width: Option<usize>,
}

/// `_build_min_max_32_string`/`_16_string`: `2`, `2+`, or `1-4` as a range.
fn min_max(min: u64, max: u64, range: bool, suffix: Option<Convert>) -> String {
    let show = |n: u64| match suffix {
        Some(c) => convert_num_unit(n as f64, Unit::None, c),
        None => n.to_string(),
    };
    if min == max {
        show(max)
    } else if range {
        if max == u64::from(u32::MAX) {
            format!("{}-infinite", show(min))
        } else {
            format!("{}-{}", show(min), show(max))
        }
    } else {
        format!("{}+", show(min))
    }
}

/// sinfo's `_print_secs` (no one-year limit, unlike squeue's).
fn secs(t: i64) -> String {
    let (d, h, m, s) = (t / 86400, (t / 3600) % 24, (t / 60) % 60, t % 60);
    if d != 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else if h != 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

fn limit(t: TimeLimit) -> String {
    match t {
        TimeLimit::Infinite => "infinite".into(),
        TimeLimit::Minutes(m) => secs(i64::from(m) * 60),
    }
}

fn part_field<'a>(g: &Group<'a>, f: impl Fn(&'a PartitionRecord) -> String) -> String {
    g.part.map_or_else(|| "n/a".to_string(), f)
}

impl Field {
    fn header_cut(self) -> bool {
        !matches!(self, Field::NodeList | Field::NodeHost | Field::NodeAddr)
    }

    fn width(self, width: usize, ctx: &Ctx) -> usize {
        match self {
            Field::Partition | Field::PartitionName => ctx.part_width.unwrap_or(width),
            Field::NodeList | Field::NodeHost => ctx.node_width.unwrap_or(width),
            _ => width,
        }
    }

    pub fn print_header(self, out: &mut Vec<u8>, width: usize, right: bool, ctx: &Ctx) {
        print_text(
            out,
            self.header(),
            self.width(width, ctx),
            right,
            self.header_cut(),
        );
    }

    pub fn print_value(self, out: &mut Vec<u8>, g: &Group, ctx: &Ctx, width: usize, right: bool) {
        let width = self.width(width, ctx);
        let text = self.value(g, ctx, width);
        print_str(out, text.as_deref().map(str::as_bytes), width, right, true);
    }

    /// The value; `None` is a C NULL string, printed `(null)`.
    fn value(self, g: &Group, ctx: &Ctx, width: usize) -> Option<String> {
        use Field as F;
        let rep = g.first();
        let node_str = |get: fn(&crate::model::NodeRecord) -> Option<String>| rep.and_then(get);
        let conv = Some(ctx.convert);
        Some(match self {
            F::Avail => part_field(g, |p| match p.availability.as_str() {
                "up" | "down" | "drain" | "inactive" => p.availability.clone(),
                _ => "unknown".to_string(),
            }),
            F::NodesAi => format!("{}/{}", g.nodes_alloc, g.nodes_idle),
            F::FeaturesAct => return node_str(|n| n.features_active.clone()),
            F::MaxCpusPerNode => match g.part.and_then(|p| p.max_cpus_per_node) {
                None => "UNLIMITED".into(),
                Some(n) => n.to_string(),
            },
            F::Cpus => {
                let (lo, hi) = g.min_max(|n| n.cpus).unwrap_or_default();
                min_max(lo.into(), hi.into(), false, conv)
            }
            F::CpusAiot => format!(
                "{}/{}/{}/{}",
                g.cpus_alloc, g.cpus_idle, g.cpus_other, g.cpus_total
            ),
            F::Disk => {
                let (lo, hi) = g.min_max(|n| n.tmp_disk).unwrap_or_default();
                min_max(lo, hi, false, None)
            }
            F::Nodes => g.nodes_total().to_string(),
            F::FreeMem => match g.min_max(|n| n.free_memory) {
                Some((Some(lo), Some(hi))) => min_max(lo, hi, true, None),
                Some((None, Some(hi))) => format!("N/A-{hi}"),
                _ => "N/A".into(),
            },
            F::Reason => match rep.and_then(|n| n.reason.clone()) {
                Some(r) if !r.starts_with("(null)") => r,
                _ => "none".into(),
            },
            F::Features => return node_str(|n| n.features.clone()),
            F::NodesAiot => format!(
                "{}/{}/{}/{}",
                g.nodes_alloc,
                g.nodes_idle,
                g.nodes_other,
                g.nodes_total()
            ),
            F::Groups => part_field(g, |p| {
                p.allow_groups.clone().unwrap_or_else(|| "all".into())
            }),
            F::Gres => return node_str(|n| n.gres.clone()),
            F::GresUsed => return node_str(|n| n.gres_used.clone()),
            F::OverSubscribe => g
                .part
                .and_then(|p| p.oversubscribe.clone())
                .unwrap_or_else(|| "NO".into()),
            F::Timestamp => match rep.and_then(|n| n.reason_time) {
                Some(t) => ctx.clock.time_str(Some(t), 32),
                None => "Unknown".into(),
            },
            F::PriorityJobFactor => g
                .part
                .map_or(1, |p| p.priority_job_factor.unwrap_or(1))
                .to_string(),
            F::PriorityTier => g
                .part
                .map_or(1, |p| p.priority_tier.unwrap_or(1))
                .to_string(),
            F::Time => part_field(g, |p| limit(p.max_time)),
            F::DefaultTime => match g.part.and_then(|p| p.default_time) {
                None => "n/a".into(),
                Some(t) => limit(t),
            },
            F::Memory => {
                let (lo, hi) = g.min_max(|n| n.real_memory).unwrap_or_default();
                min_max(lo, hi, false, None)
            }
            F::PreemptMode => g
                .part
                .and_then(|p| p.preempt_mode.clone())
                .unwrap_or_else(|| "OFF".into()),
            F::NodeHost => compress_sorted(g.nodes.iter().map(|n| n.hostname.clone())),
            F::NodeList => g.node_list(),
            F::NodeAddr => compress_sorted(g.nodes.iter().map(|n| n.address.clone())),
            F::CpuLoad => {
                let load =
                    |n: &crate::model::NodeRecord| n.cpu_load.map(|l| (l * 100.0).round() as u64);
                match g.min_max(load) {
                    Some((Some(lo), Some(hi))) => {
                        let f = |v: u64| format!("{:.2}", v as f64 / 100.0);
                        if lo == hi {
                            f(hi)
                        } else {
                            format!("{}-{}", f(lo), f(hi))
                        }
                    }
                    _ => "N/A".into(),
                }
            }
            F::Partition => part_field(g, |p| {
                let mut name = p.name.clone();
                if p.is_default {
                    if name.len() < width || width == 0 {
                        name.push('*');
                    } else if width > 0 && width <= name.len() {
                        name.truncate(width - 1);
                        name.push('*');
                    }
                }
                name
            }),
            F::PartitionName => part_field(g, |p| p.name.clone()),
            F::Root => part_field(g, |p| if p.root_only { "yes" } else { "no" }.into()),
            F::Size => part_field(g, |p| {
                let max = p.max_nodes.map_or(u64::from(u32::MAX), u64::from);
                let min = if p.min_nodes < 1 && max > 0 {
                    1
                } else {
                    u64::from(p.min_nodes)
                };
                min_max(min, max, true, conv)
            }),
            F::AllocNodes => part_field(g, |p| {
                p.allow_alloc_nodes.clone().unwrap_or_else(|| "all".into())
            }),
            F::StateCompact | F::StateLong | F::StateComplete => {
                if g.nodes_total() == 0 {
                    "n/a".into()
                } else {
                    match self {
                        F::StateCompact => node_state::compact_name(g.node_state),
                        F::StateLong => node_state::long_name(g.node_state),
                        _ => node_state::complete_name(g.node_state),
                    }
                    .to_lowercase()
                }
            }
            F::User | F::UserLong => match rep.and_then(|n| n.reason_uid) {
                None => "Unknown".into(),
                Some(uid) => match (rep.and_then(|n| n.reason_user.clone()), self) {
                    (Some(name), F::User) => name,
                    (Some(name), _) => format!("{name}({uid})"),
                    (None, _) => format!("Unk({uid})"),
                },
            },
            F::Version => rep
                .map(|n| n.version.clone())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "N/A".into()),
            F::Cluster => ctx.cluster_name.unwrap_or("N/A").to_string(),
            F::Weight => {
                let (lo, hi) = g.min_max(|n| n.weight).unwrap_or_default();
                min_max(lo.into(), hi.into(), false, None)
            }
            F::Sockets => self.sct_part(g, |n| n.sockets, ctx),
            F::Cores => self.sct_part(g, |n| n.cores_per_socket, ctx),
            F::Threads => self.sct_part(g, |n| n.threads_per_core, ctx),
            F::Sct => format!(
                "{}:{}:{}",
                self.sct_part(g, |n| n.sockets, ctx),
                self.sct_part(g, |n| n.cores_per_socket, ctx),
                self.sct_part(g, |n| n.threads_per_core, ctx)
            ),
            F::AllocMem => g.alloc_memory.to_string(),
            F::Comment => return node_str(|n| n.comment.clone()),
            F::Extra => return node_str(|n| n.extra.clone()),
            // The slurmd port is not something backends report.
            F::Port => "0".into(),
            F::Reservation => String::new(),
        })
    }

    fn sct_part(self, g: &Group, get: fn(&crate::model::NodeRecord) -> u32, ctx: &Ctx) -> String {
        let (lo, hi) = g.min_max(get).unwrap_or_default();
        min_max(lo.into(), hi.into(), false, Some(ctx.convert))
    }
}

fn compress_sorted(items: impl Iterator<Item = String>) -> String {
    let mut v: Vec<String> = items.collect();
    v.sort_by(|a, b| super::group::host_cmp(a, b));
    v.dedup();
    crate::model::hostlist::compress(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_shapes() {
        assert_eq!(min_max(2, 2, false, None), "2");
        assert_eq!(min_max(2, 4, false, None), "2+");
        assert_eq!(min_max(1, u64::from(u32::MAX), true, None), "1-infinite");
        assert_eq!(min_max(1, 4, true, None), "1-4");
    }

    #[test]
    fn time_limits() {
        assert_eq!(limit(TimeLimit::Infinite), "infinite");
        assert_eq!(limit(TimeLimit::Minutes(1440)), "1-00:00:00");
        assert_eq!(limit(TimeLimit::Minutes(60)), "1:00:00");
        assert_eq!(limit(TimeLimit::Minutes(30)), "30:00");
    }

    #[test]
    fn lookup() {
        assert_eq!(Field::from_letter('P'), Some(Field::Partition));
        assert_eq!(Field::from_name("StateLong"), Some(Field::StateLong));
        assert_eq!(Field::from_name("share"), Some(Field::OverSubscribe));
        let mut f = MatchFlags::default();
        Field::Gres.set_flag(&mut f);
        assert!(f.gres);
    }
}
