//! `sinfo`: options as `src/sinfo/opts.c` reads them, then [`crate::format::sinfo`].

use super::common::{self, comma_list, out};
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::format::openapi::{self, Mime, Plugin};
use crate::format::sinfo::group::{Build, NodeFilter};
use crate::format::sinfo::{self as fmt, Format, View};
use crate::model::cnum::strtol;
use crate::model::node_state::{self as ns};
use crate::model::units::Convert;
use crate::model::{hostlist, timestamp};
use crate::options::getopt::{self, Event};
use crate::options::query::c;
use crate::options::query::sinfo::{
    AUTOCOMP, FEDERATION, HELP, HELPFORMAT, HELPFORMAT2, HELPSTATE, HIDE, JSON, LOCAL, NOCONVERT,
    USAGE, YAML, tables,
};

#[derive(Default)]
struct Params {
    format: Option<Format>,
    long_output: bool,
    node_flag: bool,
    summarize: bool,
    list_reasons: bool,
    reservations: bool,
    iterate: u64,
    verbose: u32,
    no_header: bool,
    exact: bool,
    sort: Option<String>,
    convert: Option<Convert>,
    filter: NodeFilter,
    clusters: Option<Vec<String>>,
    mimetype: Option<Mime>,
    /// 24.11's data_parser for `--json`/`--yaml`.
    data_parser: Option<openapi::data_parser::Parser>,
}

struct Exit(i32);

pub fn run(inv: &mut Invocation, cluster: &dyn Cluster) -> i32 {
    let mut p = Params::default();
    let view = match parse(inv, cluster, &mut p) {
        Ok(v) => v,
        Err(Exit(code)) => return code,
    };
    if let Some(mime) = p.mimetype {
        return match p.data_parser {
            Some(parser) => dump_data_parser(inv, cluster, mime, parser),
            None => dump_data(inv, cluster, mime),
        };
    }
    let mut rc = 0;
    loop {
        if !p.no_header && (p.iterate > 0 || p.verbose > 0 || p.long_output) {
            let line = format!("{}\n", timestamp::date_line(inv.now));
            out(inv, line.as_bytes());
        }
        let ok = match p.clusters.clone() {
            None => print_once(inv, cluster, &p, &view, None),
            Some(names) => {
                let mut ok = true;
                for (i, name) in names.iter().enumerate() {
                    if !p.no_header {
                        let head = format!("{}CLUSTER: {name}\n", if i > 0 { "\n" } else { "" });
                        out(inv, head.as_bytes());
                    }
                    ok &= print_once(inv, cluster, &p, &view, Some(name.clone()));
                }
                ok
            }
        };
        if !ok {
            rc = 1;
        }
        if p.iterate == 0 {
            break;
        }
        out(inv, b"\n");
        if inv.out.flush().is_err() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(p.iterate));
        inv.now = crate::sys::now();
    }
    rc
}

/// `--json`/`--yaml` (`dump_data`): the v0.0.38 plugin's `GET /nodes` answer for every
/// node, whatever the filter options; exit 0 even when loading failed.
fn dump_data(inv: &mut Invocation, cluster: &dyn Cluster, mime: Mime) -> i32 {
    let (errors, items) = match cluster.nodes() {
        Ok(nodes) if nodes.is_empty() => (
            vec![openapi::nodes_error(2017, "Invalid node name specified")],
            Vec::new(),
        ),
        Ok(nodes) => {
            let users = inv.users;
            let name = |uid: u32| users.by_uid(uid).map(|u| u.name);
            (Vec::new(), openapi::nodes::dump_nodes(&nodes, &name))
        }
        Err(_) => (
            vec![openapi::nodes_error(-1, "Unspecified error")],
            Vec::new(),
        ),
    };
    let doc = openapi::response(Plugin::V0038, &errors, "nodes", items);
    out(inv, &openapi::serialize(&doc, mime));
    0
}

/// 24.11's `--json`/`--yaml`: `sinfo[]`, the lines of the default format as entries.
fn dump_data_parser(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    mime: Mime,
    parser: openapi::data_parser::Parser,
) -> i32 {
    let (parts, nodes) = match (cluster.partitions(), cluster.nodes()) {
        (Ok(p), Ok(n)) => (p, n),
        (Err(e), _) | (_, Err(e)) => {
            common::raw_err(inv, &format!("slurm_load_partitions: {e}"));
            return 1;
        }
    };
    let words = common::command_line(inv);
    let cluster_name = cluster.cluster_name();
    let client = common::data_parser_client(inv, parser, &words, &cluster_name, None);
    let mut d = openapi::value::Dict::with_capacity(4);
    d.push(
        "sinfo",
        openapi::value::Value::List(openapi::data_parser_sinfo::entries(&parts, &nodes, parser)),
    );
    d.push("meta", openapi::data_parser::meta(&client));
    d.push("errors", openapi::value::Value::List(Vec::new()));
    d.push("warnings", openapi::value::Value::List(Vec::new()));
    out(inv, &openapi::data_parser::serialize(&d.into(), mime));
    0
}

fn print_once(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    p: &Params,
    view: &View,
    cluster_name: Option<String>,
) -> bool {
    if p.reservations {
        out(inv, fmt::reservations_header().as_bytes());
        return true;
    }
    let parts = match cluster.partitions() {
        Ok(v) => v,
        Err(e) => {
            common::raw_err(inv, &format!("slurm_load_partitions: {e}"));
            return false;
        }
    };
    let nodes = match cluster.nodes() {
        Ok(v) => v,
        Err(e) => {
            common::raw_err(inv, &format!("slurm_load_node: {e}"));
            return false;
        }
    };
    let mut view = view.clone();
    view.cluster_name = cluster_name;
    let clock = common::clock(inv);
    let r = fmt::render(&parts, &nodes, &view, &clock);
    out(inv, &r.out);
    true
}

fn parse(inv: &mut Invocation, cluster: &dyn Cluster, p: &mut Params) -> Result<View, Exit> {
    let mut opt_a = false;
    let mut opt_p = false;
    let env_all = inv.var("SINFO_ALL").is_some();
    if let Some(v) = inv.var("SINFO_PARTITION").map(String::from) {
        p.filter.partitions = Some(part_list(&v));
        if env_all {
            inv.error("Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. Please choose one or the other.");
            return Err(Exit(1));
        }
    }
    if let Some(v) = inv.var("SINFO_SORT") {
        p.sort = Some(v.to_string());
    }
    if let Some(list) = inv.var("SLURM_CLUSTERS").map(String::from) {
        match common::clusters(&list, &cluster.cluster_name(), true) {
            Ok(names) => p.clusters = Some(names),
            Err(e) => {
                inv.error(&e);
                return Err(Exit(1));
            }
        }
    }

    let (short, long) = tables(inv.profile);
    let parsed = getopt::parse(inv.prog, &inv.args, short, long);
    for ev in parsed.events {
        let (opt, arg) = match ev {
            Event::Error(msg) => {
                common::raw_err(inv, &msg);
                common::raw_err(inv, "Try \"sinfo --help\" for more information");
                return Err(Exit(1));
            }
            Event::Opt(o, a) => (o, a.unwrap_or_default()),
        };
        match opt {
            o if o == c('a') => {
                opt_a = true;
                p.filter.partitions = None;
            }
            o if o == c('d') => p.filter.dead = true,
            o if o == c('e') => p.exact = true,
            o if o == c('h') => p.no_header = true,
            o if o == c('i') => {
                let n = strtol(arg.as_bytes()).value;
                if n <= 0 {
                    inv.error(&format!("Error: invalid entry for --iterate={arg}"));
                    return Err(Exit(1));
                }
                p.iterate = n as u64;
            }
            o if o == c('l') => p.long_output = true,
            o if o == c('M') => match common::clusters(&arg, &cluster.cluster_name(), false) {
                Ok(names) => p.clusters = Some(names),
                Err(e) => {
                    inv.error(&e);
                    return Err(Exit(1));
                }
            },
            NOCONVERT => p.convert = Some(Convert::No),
            o if o == c('n') => match hostlist::expand(&arg) {
                Some(hosts) => p.filter.nodes = Some(hosts),
                None => {
                    inv.error(&format!("'{arg}' invalid entry for --nodes"));
                    return Err(Exit(1));
                }
            },
            o if o == c('N') => p.node_flag = true,
            o if o == c('o') => p.format = Some(Format::Letters(arg)),
            o if o == c('O') => p.format = Some(Format::Names(arg)),
            o if o == c('p') => {
                opt_p = true;
                p.filter.partitions = Some(part_list(&arg));
            }
            o if o == c('r') => p.filter.responding = true,
            o if o == c('R') => p.list_reasons = true,
            o if o == c('s') => p.summarize = true,
            o if o == c('S') => p.sort = Some(arg),
            o if o == c('t') => match state_list(&arg) {
                Some((states, and)) => {
                    p.filter.states = states;
                    p.filter.states_and = and;
                }
                None => {
                    if let Some(bad) = first_bad_state(&arg) {
                        inv.error(&format!("Bad state string: \"{bad}\""));
                    }
                    inv.error(&format!("valid states: {}", valid_states()));
                    return Err(Exit(1));
                }
            },
            o if o == c('T') => p.reservations = true,
            o if o == c('v') => p.verbose += 1,
            o if o == c('V') => {
                common::print_version(inv);
                return Err(Exit(0));
            }
            FEDERATION | LOCAL | HIDE => {}
            HELP => {
                let text = crate::options::texts::help(inv.profile, "sinfo");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            USAGE => {
                let text = crate::options::texts::usage(inv.profile, "sinfo");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            JSON | YAML => {
                p.mimetype = Some(if opt == JSON { Mime::Json } else { Mime::Yaml });
                p.data_parser = common::data_parser(inv, &arg).map_err(Exit)?;
            }
            // 24.11's `-F`: nodes in the FUTURE state too; backends have none.
            o if o == c('F') => {}
            HELPFORMAT | HELPFORMAT2 => {
                let kind = if opt == HELPFORMAT {
                    crate::options::texts::Text::HelpFormat
                } else {
                    crate::options::texts::Text::HelpFormatLong
                };
                let text = crate::options::texts::text(inv.profile, "sinfo", kind).unwrap_or("");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            HELPSTATE => {
                let text = crate::options::texts::text(
                    inv.profile,
                    "sinfo",
                    crate::options::texts::Text::HelpState,
                )
                .unwrap_or("");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            AUTOCOMP => {
                inv.error("--autocomplete is not supported by bai-slurm");
                return Err(Exit(1));
            }
            _ => {}
        }
    }
    if p.long_output && p.format.is_some() {
        return Err(Exit(common::fatal(
            inv,
            "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.",
        )));
    }
    if opt_a && opt_p {
        inv.error("Conflicting options, -a and -p, specified. Please choose one or the other.");
        return Err(Exit(1));
    }

    let mut part_from_data = false;
    let mut node_from_data = false;
    let format = match p.format.clone() {
        Some(f) => f,
        None => {
            let names = if p.summarize {
                part_from_data = true;
                fmt::SUMMARIZE_FORMAT
            } else if p.node_flag {
                node_from_data = true;
                part_from_data = true;
                if p.long_output {
                    fmt::NODE_LONG_FORMAT
                } else {
                    fmt::NODE_FORMAT
                }
            } else if p.list_reasons {
                if p.long_output {
                    fmt::REASON_LONG_FORMAT
                } else {
                    fmt::REASON_FORMAT
                }
            } else if let Some(env) = inv.var("SINFO_FORMAT") {
                p.format = Some(Format::Letters(env.to_string()));
                ""
            } else {
                part_from_data = true;
                if p.long_output && inv.profile.sinfo.long_reservation_column {
                    fmt::LONG_FORMAT_24_11
                } else if p.long_output {
                    fmt::LONG_FORMAT
                } else {
                    fmt::DEFAULT_FORMAT
                }
            };
            p.format
                .clone()
                .unwrap_or_else(|| Format::Names(names.to_string()))
        }
    };
    if p.list_reasons && p.filter.states.is_none() {
        p.filter.states = state_list("down,fail,drain").map(|s| s.0).unwrap_or(None);
    }
    let parsed = fmt::parse_format(&format);
    match format {
        Format::Letters(_) => {
            for u in &parsed.unknown {
                common::raw_err(inv, &format!("Invalid node format specification: {u}"));
            }
        }
        Format::Names(_) => {
            for u in &parsed.unknown {
                inv.error(&format!("Invalid job format specification: {u}"));
            }
        }
    }
    Ok(View {
        format,
        no_header: p.no_header,
        part_width_from_data: part_from_data,
        node_width_from_data: node_from_data,
        build: Build {
            node_view: p.node_flag,
            list_reasons: p.list_reasons,
            exact: p.exact,
            filter: p.filter.clone(),
            ..Default::default()
        },
        sort: p.sort.clone(),
        convert: p.convert.unwrap_or(Convert::Exact),
        cluster_name: None,
    })
}

/// `_build_part_list`: comma-separated, empty items skipped.
fn part_list(s: &str) -> Vec<String> {
    comma_list(s)
}

/// The first `-t` item Slurm calls bad (`Bad state string`).
fn first_bad_state(arg: &str) -> Option<String> {
    arg.split([',', '&'])
        .filter(|s| !s.is_empty())
        .find(|s| state_id(s).is_none())
        .map(String::from)
}

/// `_build_state_list`: state words to match, and whether `&` joined them. `all` means
/// no filter. None when a state is unknown.
fn state_list(s: &str) -> Option<(Option<Vec<u32>>, bool)> {
    if s.eq_ignore_ascii_case("all") {
        return Some((None, false));
    }
    let mut ids = Vec::new();
    for tok in s.split([',', '&']).filter(|t| !t.is_empty()) {
        ids.push(state_id(tok)?);
    }
    Some((Some(ids), s.contains('&')))
}

/// `_node_state_id`: a prefix of a base state's compact or long name, or a flag state.
fn state_id(s: &str) -> Option<u32> {
    let pre = |name: &str| name.len() >= s.len() && name[..s.len()].eq_ignore_ascii_case(s);
    for base in [
        ns::UNKNOWN,
        ns::DOWN,
        ns::IDLE,
        ns::ALLOCATED,
        ns::ERROR,
        ns::MIXED,
        ns::FUTURE,
    ] {
        if pre(&ns::compact_name(base)) || pre(&ns::long_name(base)) {
            return Some(base);
        }
    }
    let named: [(&[&str], u32); 15] = [
        (&["PLANNED", "PLND"], ns::PLANNED),
        (&["DRAIN"], ns::DRAIN),
        (&["DRAINED"], ns::DRAIN | ns::IDLE),
        (&["RESV", "RESERVED"], ns::RES),
        (&["PERFCTRS", "NPC"], ns::NET),
        (&["DRAINING", "DRNG"], ns::DRAIN | ns::ALLOCATED),
        (&["COMPLETING", "COMP"], ns::COMPLETING),
        (&["NO_RESPOND"], ns::NO_RESPOND),
        (&["POWERING_DOWN", "POWRING_DN"], ns::POWERING_DOWN),
        (&["POWERED_DOWN", "POWERED_DN"], ns::POWERED_DOWN),
        (&["POWER_DOWN", "POW_DN"], ns::POWER_DOWN),
        (&["POWERING_UP"], ns::POWERING_UP),
        (&["FAIL"], ns::FAIL),
        (&["MAINT"], ns::MAINT),
        (&["REBOOT", "BOOT"], ns::REBOOT_REQUESTED),
    ];
    for (names, id) in named {
        if names.iter().any(|n| pre(n)) {
            return Some(id);
        }
    }
    if pre("REBOOT^") || pre("BOOT^") {
        return Some(ns::REBOOT_ISSUED);
    }
    if pre("CLOUD") {
        return Some(ns::CLOUD);
    }
    None
}

/// `_node_state_list`, lower-cased.
fn valid_states() -> String {
    let mut names: Vec<String> = [
        ns::UNKNOWN,
        ns::DOWN,
        ns::IDLE,
        ns::ALLOCATED,
        ns::ERROR,
        ns::MIXED,
        ns::FUTURE,
    ]
    .iter()
    .map(|&b| ns::long_name(b))
    .collect();
    names.push("DRAIN,DRAINED,DRAINING,NO_RESPOND,RESERVED,PERFCTRS".into());
    for w in [
        ns::CLOUD,
        ns::IDLE | ns::COMPLETING,
        ns::POWERING_DOWN,
        ns::POWERED_DOWN,
        ns::POWER_DOWN,
        ns::POWERING_UP,
        ns::IDLE | ns::FAIL,
        ns::IDLE | ns::MAINT,
        ns::IDLE | ns::REBOOT_REQUESTED,
        ns::IDLE | ns::REBOOT_ISSUED,
        ns::IDLE | ns::PLANNED,
    ] {
        names.push(ns::long_name(w));
    }
    names.join(",").to_lowercase()
}
