//! `scontrol`: options and keywords as `src/scontrol/scontrol.c` reads them. `show` is
//! rendered here; job-control verbs go to [`super::scontrol_control`].

use super::common::{self, out};
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::format::scontrol::{self as fmt, Style};
use crate::model::cnum::strncasecmp_eq;
use crate::model::{JobRecord, hostlist};
use crate::options::getopt::{self, Event};
use crate::options::query::c;
use crate::options::query::scontrol::{
    AUTOCOMP, FEDERATION, HIDE, JSON, LOCAL, SHORT, SIBLING, YAML, long_options,
};

/// `scontrol`'s global state, changed by options and keywords alike.
struct State {
    one_liner: bool,
    detail: bool,
    /// 1 = quiet, -1 = verbose, 0 = normal (Slurm's `quiet_flag`).
    quiet: i32,
    exit_code: i32,
    exit: bool,
    profile: &'static crate::model::profile::Profile,
    /// 24.11's `--json`/`--yaml`: the document and its data_parser.
    data: Option<(
        crate::format::openapi::Mime,
        crate::format::openapi::data_parser::Parser,
    )>,
    /// The words of the command being run (`show job 2`), for the document's `meta`.
    words: Vec<String>,
}

impl State {
    fn style(&self) -> Style {
        Style {
            one_liner: self.one_liner,
            detail: self.detail,
            profile: self.profile,
        }
    }
}

pub fn run(inv: &mut Invocation, cluster: &dyn Cluster) -> i32 {
    let mut st = State {
        one_liner: false,
        detail: false,
        quiet: 0,
        exit_code: 0,
        exit: false,
        profile: inv.profile,
        data: None,
        words: Vec::new(),
    };
    if let Some(list) = inv.var("SLURM_CLUSTERS").map(String::from)
        && let Err(e) = common::clusters(&list, &cluster.cluster_name(), true)
    {
        inv.error(&e);
        return 1;
    }
    let parsed = getopt::parse(inv.prog, &inv.args, SHORT, long_options(inv.profile));
    for ev in parsed.events {
        let (opt, arg) = match ev {
            Event::Error(msg) => {
                common::raw_err(inv, &msg);
                common::raw_err(inv, "Try \"scontrol --help\" for more information");
                return 1;
            }
            Event::Opt(o, a) => (o, a.unwrap_or_default()),
        };
        match opt {
            o if o == c('a') || o == c('F') => {}
            o if o == c('d') => st.detail = true,
            o if o == c('h') => {
                let text = crate::options::texts::help(inv.profile, "scontrol");
                out(inv, text.as_bytes());
                return st.exit_code;
            }
            HIDE => st.detail = false,
            FEDERATION | LOCAL | SIBLING => {}
            // 24.11: data_parser documents (listed, or said not to be produced yet).
            JSON | YAML => match common::data_parser(inv, &arg) {
                Ok(parser) => {
                    let mime = if opt == JSON {
                        crate::format::openapi::Mime::Json
                    } else {
                        crate::format::openapi::Mime::Yaml
                    };
                    st.data = parser.map(|p| (mime, p));
                }
                Err(code) => return code,
            },
            AUTOCOMP => {
                inv.error("--autocomplete is not supported by bai-slurm");
                return 1;
            }
            o if o == c('M') => {
                if let Err(e) = common::clusters(&arg, &cluster.cluster_name(), false) {
                    inv.error(&e);
                    return 1;
                }
            }
            o if o == c('o') => st.one_liner = true,
            o if o == c('Q') => st.quiet = 1,
            o if o == c('u') && inv.users.resolve(&arg).is_none() => {
                inv.error(&format!("--uid=\"{arg}\" invalid"));
                return st.exit_code;
            }
            o if o == c('v') => st.quiet = -1,
            o if o == c('V') => {
                print_version(inv, &st);
                return st.exit_code;
            }
            _ => {}
        }
    }
    if !parsed.operands.is_empty() {
        process(inv, cluster, &mut st, &parsed.operands);
    } else {
        interactive(inv, cluster, &mut st);
    }
    st.exit_code
}

fn print_version(inv: &mut Invocation, st: &State) {
    common::print_version(inv);
    if st.quiet == -1 {
        // Verbose (`-v -V`) adds the API version, unpadded: `22.5.8`.
        let r = inv.profile.release;
        let line = format!(
            "slurm_api_version: {}, {}.{}.{}\n",
            r.number(),
            r.major,
            r.minor,
            r.micro
        );
        out(inv, line.as_bytes());
    }
}

/// Without a command, scontrol reads commands from standard input, a line at a time (so
/// that nothing past the line is taken from a terminal or a pipe). A line's bytes are kept
/// as an argument's are ([`crate::cli::arg_string`]): one that is not UTF-8 is still a
/// command, and its words print back as they were typed.
///
/// Slurm reads them with readline, which echoes a line that does not come from a terminal
/// after its prompt (`scontrol: hold 12`).
fn interactive(inv: &mut Invocation, cluster: &dyn Cluster, st: &mut State) {
    use std::io::IsTerminal;
    let echo = !std::io::stdin().is_terminal();
    while !st.exit {
        out(inv, b"scontrol: ");
        let _ = inv.out.flush();
        let Some(line) = read_line(inv.stdin) else {
            out(inv, b"\n");
            break;
        };
        if echo {
            out(inv, &line);
            out(inv, b"\n");
        }
        let line = crate::cli::arg_string(std::os::unix::ffi::OsStringExt::from_vec(line));
        let words = split_command(&line);
        process(inv, cluster, st, &words);
    }
}

/// One line of `input` without its newline; `None` at the end of input.
fn read_line(input: &mut dyn std::io::Read) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match input.read(&mut byte) {
            Ok(0) => return (!line.is_empty()).then_some(line),
            Ok(_) if byte[0] == b'\n' => return Some(line),
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return (!line.is_empty()).then_some(line),
        }
    }
}

/// `_get_command`'s tokenizer: whitespace separates words, quotes keep spaces.
fn split_command(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let (mut dq, mut sq) = (false, false);
    for ch in line.chars() {
        match ch {
            '"' if !sq => {
                dq = !dq;
                cur.push(ch);
            }
            '\'' if !dq => {
                sq = !sq;
                cur.push(ch);
            }
            c if c.is_whitespace() && !dq && !sq => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// `xstrncasecmp(tag, name, MAX(tag_len, min))`: the keyword abbreviated to at least
/// `min` letters.
fn is(tag: &str, name: &str, min: usize) -> bool {
    strncasecmp_eq(tag, name, tag.len().max(min))
}

/// The keywords handed to the job-control module.
const CONTROL_VERBS: &[(&str, usize)] = &[
    ("requeue", 3),
    ("requeuehold", 11),
    ("release", 3),
    ("suspend", 2),
    ("resume", 3),
    ("top", 3),
    ("wait_job", 2),
    ("update", 1),
    ("notify", 1),
];

/// Keywords that need a controller we do not have.
const UNSUPPORTED: &[(&str, usize)] = &[
    ("abort", 5),
    ("cancel_reboot", 3),
    ("completing", 2),
    ("cluster", 2),
    ("create", 2),
    ("errnumstr", 2),
    ("errnostr", 2),
    ("gethost", 7),
    ("hash_file", 15),
    ("hash", 9),
    ("pidinfo", 3),
    ("ping", 3),
    ("reboot_nodes", 3),
    ("reconfigure", 3),
    ("token", 3),
    ("setdebugflags", 9),
    ("fsdampeningfactor", 3),
    ("setdebug", 2),
    ("schedloglevel", 3),
    ("takeover", 8),
    ("shutdown", 8),
    ("delete", 1),
    ("listpids", 1),
    ("getent", 6),
    ("callerid", 3),
];

/// `_process_command`: one command line.
fn process(inv: &mut Invocation, cluster: &dyn Cluster, st: &mut State, argv: &[String]) {
    let Some(tag) = argv.first() else {
        st.exit_code = 1;
        return;
    };
    let tag = tag.as_str();
    let argc = argv.len();
    let too_many = |inv: &mut Invocation, st: &mut State| {
        st.exit_code = 1;
        common::raw_err(inv, &format!("too many arguments for keyword:{tag}"));
    };
    // Order follows Slurm's chain of keyword tests, which matters for abbreviations.
    if is(tag, "all", 2) {
        // Hidden partitions: this implementation has none.
    } else if is(tag, "details", 1) {
        if argc > 1 {
            too_many(inv, st);
            return;
        }
        st.detail = true;
    } else if is(tag, "exit", 2) || is(tag, "quit", 4) {
        if argc > 1 {
            too_many(inv, st);
        }
        st.exit = true;
    } else if is(tag, "help", 2) {
        if argc > 1 {
            too_many(inv, st);
        }
        let text = crate::options::texts::help(inv.profile, "scontrol");
        out(inv, text.as_bytes());
    } else if is(tag, "hide", 2) {
        st.detail = false;
    } else if is(tag, "oneliner", 1) {
        if argc > 1 {
            too_many(inv, st);
        }
        st.one_liner = true;
    } else if strncasecmp_eq(tag, "\\q", 2) || is(tag, "quiet", 4) {
        if argc > 1 {
            too_many(inv, st);
        }
        st.quiet = 1;
    } else if is(tag, "show", 3) {
        show(inv, cluster, st, argv);
    } else if is(tag, "verbose", 4) {
        if argc > 1 {
            st.exit_code = 1;
            common::raw_err(inv, &format!("too many arguments for {tag} keyword"));
        }
        st.quiet = -1;
    } else if is(tag, "version", 4) {
        if argc > 1 {
            st.exit_code = 1;
            common::raw_err(inv, &format!("too many arguments for {tag} keyword"));
        }
        print_version(inv, st);
    } else if strncasecmp_eq(tag, "hold", 4)
        || strncasecmp_eq(tag, "holdu", 5)
        || strncasecmp_eq(tag, "uhold", 5)
        || CONTROL_VERBS.iter().any(|(n, m)| is(tag, n, *m))
    {
        let rc = super::scontrol_control::run(inv, cluster, tag, &argv[1..], st.quiet == 1);
        if rc != 0 {
            st.exit_code = rc;
        }
    } else if is(tag, "write", 5) {
        let rc = super::scontrol_write::run(inv, cluster, argv, st.quiet == 1);
        if rc != 0 {
            st.exit_code = rc;
        }
    } else if UNSUPPORTED.iter().any(|(n, m)| is(tag, n, *m)) {
        st.exit_code = 1;
        inv.error(&format!("{tag} is not supported by this implementation"));
    } else {
        st.exit_code = 1;
        common::raw_err(inv, &format!("invalid keyword: {tag}"));
    }
}

/// `_show_it`: `show <entity> [name]` or `show <entity>=<name>`.
fn show(inv: &mut Invocation, cluster: &dyn Cluster, st: &mut State, argv: &[String]) {
    let quiet = st.quiet == 1;
    if argv.len() < 2 {
        st.exit_code = 1;
        if !quiet {
            common::raw_err(inv, &format!("too few arguments for keyword:{}", argv[0]));
        }
        return;
    }
    if argv.len() > 3 {
        st.exit_code = 1;
        if !quiet {
            common::raw_err(inv, &format!("too many arguments for keyword:{}", argv[0]));
        }
        return;
    }
    let (tag, val) = match argv[1].split_once('=') {
        Some((t, v)) => (t.to_string(), Some(v.to_string())),
        None => (argv[1].clone(), argv.get(2).cloned()),
    };
    let t = tag.as_str();
    st.words = argv.to_vec();
    if let Some((_, parser)) = st.data
        && !is(t, "job", 1)
        && !is(t, "node", 1)
    {
        st.exit_code = common::data_parser_not_produced(inv, parser);
        return;
    }
    if is(t, "config", 1) {
        show_config(inv, cluster, st);
    } else if is(t, "hostnames", 5) {
        let list = val.or_else(|| inv.var("SLURM_NODELIST").map(String::from));
        match list {
            None => inv.error("host list is empty"),
            Some(l) => match hostlist::expand(&l) {
                Some(hosts) => {
                    let text: String = hosts.iter().map(|h| format!("{h}\n")).collect();
                    out(inv, text.as_bytes());
                }
                None => common::raw_err(inv, &format!("Invalid hostlist: {l}")),
            },
        }
    } else if is(t, "hostlist", 5) || is(t, "hostlistsorted", 9) {
        let sorted = is(t, "hostlistsorted", 9);
        match val {
            None => {
                st.exit_code = 1;
                common::raw_err(inv, "invalid encode argument");
                let text = crate::options::texts::help(inv.profile, "scontrol");
                out(inv, text.as_bytes());
            }
            Some(v) => {
                if encode_hostlist(inv, &v, sorted).is_err() {
                    st.exit_code = 1;
                }
            }
        }
    } else if is(t, "jobs", 1) || is(t, "jobid", 1) {
        show_jobs(inv, cluster, st, val.as_deref());
    } else if is(t, "nodes", 1) {
        show_nodes(inv, cluster, st, val.as_deref());
    } else if is(t, "partitions", 2) || is(t, "partitionname", 2) {
        show_partitions(inv, cluster, st, val.as_deref());
    } else if [
        "aliases",
        "bbstat",
        "dwstat",
        "burstbuffer",
        "assoc_mgr",
        "cache",
        "daemons",
        "Federations",
        "FrontendName",
        "licenses",
        "reservations",
        "reservationname",
        "slurmd",
        "steps",
        "topology",
    ]
    .iter()
    .any(|n| is(t, n, 1))
    {
        st.exit_code = 1;
        inv.error(&format!("show {t} is not supported by this implementation"));
    } else {
        st.exit_code = 1;
        if !quiet {
            common::raw_err(inv, &format!("invalid entity:{t} for keyword:{} ", argv[0]));
        }
    }
}

fn show_config(inv: &mut Invocation, cluster: &dyn Cluster, _st: &mut State) {
    let clock = common::clock(inv);
    let text = fmt::config(
        &clock.time_str(Some(inv.now), 32),
        &cluster.cluster_name(),
        inv.profile.release,
        &cluster.config(),
    );
    out(inv, text.as_bytes());
}

/// `scontrol_encode_hostlist`: a list (or a file of names when it starts with `/`) in
/// Slurm's ranged form.
fn encode_hostlist(inv: &mut Invocation, arg: &str, sorted: bool) -> Result<(), ()> {
    let list = if arg.starts_with('/') {
        match std::fs::read_to_string(arg) {
            Ok(text) => {
                let joined = text.replace('\n', ",");
                let mut s = String::new();
                for ch in joined.chars() {
                    if !(ch == ',' && s.ends_with(',')) {
                        s.push(ch);
                    }
                }
                s
            }
            Err(_) => {
                common::raw_err(inv, &format!("Can not open {arg}"));
                return Err(());
            }
        }
    } else {
        arg.to_string()
    };
    let Some(mut hosts) = hostlist::expand(&list) else {
        common::raw_err(inv, &format!("Invalid hostlist: {list}"));
        return Err(());
    };
    let text = if sorted {
        hosts.sort_by(|a, b| crate::format::sinfo::group::host_cmp(a, b));
        hostlist::compress(&hosts)
    } else {
        hostlist::compress_ordered(&hosts)
    };
    out(inv, format!("{text}\n").as_bytes());
    Ok(())
}

/// `scontrol_print_job`: all jobs, or the job (and its array tasks) with an id.
fn show_jobs(inv: &mut Invocation, cluster: &dyn Cluster, st: &mut State, id: Option<&str>) {
    let quiet = st.quiet == 1;
    // (job, array task, hetjob offset); job 0 loads every job, as Slurm's does.
    let mut want: Option<(u32, Option<u32>, Option<i64>)> = None;
    if let Some(s) = id {
        let parsed = (s
            .chars()
            .all(|c| c.is_ascii_digit() || c == '_' || c == '+'))
        .then(|| print_job_id(s))
        .flatten();
        let Some(w) = parsed else {
            st.exit_code = 1;
            if !quiet {
                common::raw_err(inv, "scontrol_print_job error: Invalid job id specified");
            }
            return;
        };
        want = Some(w);
    }
    // `slurm_load_job` for an id (the job and its array's records), which fails for one
    // the controller does not know; all jobs for none (or 0).
    let one = want.map(|w| w.0).filter(|&id| id != 0);
    let loaded = match one {
        Some(id) => cluster.jobs_with_ids(&[id]).and_then(|found| {
            if found.is_empty() {
                Err(crate::backend::BackendError::Slurm(
                    crate::backend::SlurmErrno::InvalidJobId,
                ))
            } else {
                Ok(found)
            }
        }),
        None => cluster.jobs(),
    };
    let jobs = match loaded {
        Ok(j) => j,
        Err(e) => {
            st.exit_code = 1;
            if !quiet {
                common::raw_err(inv, &format!("slurm_load_jobs error: {e}"));
            }
            return;
        }
    };
    let loaded: Vec<&JobRecord> = jobs.iter().collect();
    let clock = common::clock(inv);
    if st.quiet == -1 {
        let line = format!(
            "last_update_time={}, records={}\n",
            clock.time_str(Some(inv.now), 32),
            loaded.len()
        );
        out(inv, line.as_bytes());
    }
    let mut printed = 0;
    let mut documented: Vec<JobRecord> = Vec::new();
    for job in loaded {
        let task = want.and_then(|w| w.1);
        let het = want.and_then(|w| w.2);
        let shown = match (task, &job.array) {
            // No job here is part of a heterogeneous job.
            _ if het.is_some() => None,
            (None, _) => Some(job.clone()),
            (Some(t), Some(crate::model::ArrayPart::Task { task_id, .. })) if *task_id == t => {
                Some(job.clone())
            }
            (
                Some(t),
                Some(crate::model::ArrayPart::Pending {
                    array_job_id,
                    tasks,
                    ..
                }),
            ) if tasks.contains(&t) => {
                // One task of the pending record is shown as that task.
                let mut one = job.clone();
                one.array = Some(crate::model::ArrayPart::Task {
                    array_job_id: *array_job_id,
                    task_id: t,
                });
                Some(one)
            }
            _ => None,
        };
        if let Some(j) = shown {
            if st.data.is_some() {
                documented.push(j);
            } else {
                out(inv, fmt::job::render(&j, st.style(), &clock).as_bytes());
            }
            printed += 1;
        }
    }
    if let Some((mime, parser)) = st.data
        && printed > 0
    {
        let refs: Vec<&JobRecord> = documented.iter().collect();
        let cluster_name = cluster.cluster_name();
        let default_partition = super::squeue::default_partition_of(cluster);
        let client = common::data_parser_client(
            inv,
            parser,
            &st.words,
            &cluster_name,
            default_partition.as_deref(),
        );
        let last_update = if want.is_some_and(|w| w.0 != 0) {
            0
        } else {
            inv.now
        };
        let doc = crate::format::openapi::data_parser::jobs_document(
            &refs,
            last_update,
            cluster.last_backfill().unwrap_or(0),
            &client,
        );
        out(
            inv,
            &crate::format::openapi::data_parser::serialize(&doc, mime),
        );
    }
    if printed == 0 {
        match want {
            Some((id, task, Some(h))) => {
                st.exit_code = 1;
                if !quiet {
                    let task = task.map(|t| format!("_{t}")).unwrap_or_default();
                    out(inv, format!("Job {id}{task}+{h} not found\n").as_bytes());
                }
            }
            Some((id, Some(t), None)) => {
                st.exit_code = 1;
                if !quiet {
                    out(inv, format!("Job {id}_{t} not found\n").as_bytes());
                }
            }
            None => {
                if !quiet {
                    out(inv, b"No jobs in the system\n");
                }
            }
            Some((id, None, None)) => {
                st.exit_code = 1;
                if !quiet {
                    out(inv, format!("Job {id} not found\n").as_bytes());
                }
            }
        }
    }
}

/// `scontrol_print_job`'s reading of an id: `job[_task][+offset]`, each with `strtol`,
/// the job kept in 32 bits as C's `uint32_t` keeps it.
fn print_job_id(s: &str) -> Option<(u32, Option<u32>, Option<i64>)> {
    use crate::model::cnum::strtol;
    let (job, used) = strtol(s.as_bytes()).value_and_end();
    let mut rest = &s[used..];
    let mut task = None;
    if let Some(t) = rest.strip_prefix('_') {
        let (v, u) = strtol(t.as_bytes()).value_and_end();
        task = Some(v as u32);
        rest = &t[u..];
    }
    let het = rest.strip_prefix('+').map(|h| strtol(h.as_bytes()).value);
    // Whatever follows is not looked at.
    Some((job as u32, task, het))
}

fn show_partitions(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    st: &mut State,
    name: Option<&str>,
) {
    let quiet = st.quiet == 1;
    let parts = match cluster.partitions() {
        Ok(p) => p,
        Err(e) => {
            st.exit_code = 1;
            if !quiet {
                common::raw_err(inv, &format!("slurm_load_partitions error: {e}"));
            }
            return;
        }
    };
    if st.quiet == -1 {
        let clock = common::clock(inv);
        let line = format!(
            "last_update_time={}, records={}\n",
            clock.time_str(Some(inv.now), 32),
            parts.len()
        );
        out(inv, line.as_bytes());
    }
    let mut printed = 0;
    for p in parts.iter().filter(|p| name.is_none_or(|n| n == p.name)) {
        out(inv, fmt::partition::render(p, st.style()).as_bytes());
        printed += 1;
        if name.is_some() {
            break;
        }
    }
    if printed == 0 && !quiet {
        match name {
            Some(n) => {
                st.exit_code = 1;
                out(inv, format!("Partition {n} not found\n").as_bytes());
            }
            None => out(inv, b"No partitions in the system\n"),
        }
    } else if printed == 0 && name.is_some() {
        st.exit_code = 1;
    }
}

fn show_nodes(inv: &mut Invocation, cluster: &dyn Cluster, st: &mut State, list: Option<&str>) {
    let quiet = st.quiet == 1;
    let nodes = match cluster.nodes() {
        Ok(n) => n,
        Err(e) => {
            st.exit_code = 1;
            if !quiet {
                common::raw_err(inv, &format!("slurm_load_node error: {e}"));
            }
            return;
        }
    };
    let parts = match cluster.partitions() {
        Ok(p) => p,
        Err(e) => {
            st.exit_code = 1;
            if !quiet {
                common::raw_err(inv, &format!("slurm_load_partitions error: {e}"));
            }
            return;
        }
    };
    let clock = common::clock(inv);
    if st.quiet == -1 {
        let line = format!(
            "last_update_time={}, records={}\n",
            clock.time_str(Some(inv.now), 32),
            nodes.len()
        );
        out(inv, line.as_bytes());
    }
    let part_names = |n: &crate::model::NodeRecord| -> Vec<String> {
        let from_parts: Vec<String> = parts
            .iter()
            .filter(|p| p.nodes.contains(&n.name))
            .map(|p| p.name.clone())
            .collect();
        if from_parts.is_empty() {
            n.partitions.clone()
        } else {
            from_parts
        }
    };
    if let Some((mime, parser)) = st.data {
        // 24.11's document: the nodes named (all of them without a list).
        let wanted: Vec<String> = match list {
            None => nodes.iter().map(|n| n.name.clone()).collect(),
            Some(l) => hostlist::expand(l).unwrap_or_default(),
        };
        let mut shown: Vec<crate::model::NodeRecord> = nodes
            .iter()
            .filter(|n| wanted.contains(&n.name))
            .cloned()
            .collect();
        for n in &mut shown {
            n.partitions = part_names(n);
        }
        let refs: Vec<&crate::model::NodeRecord> = shown.iter().collect();
        let cluster_name = cluster.cluster_name();
        let client = common::data_parser_client(inv, parser, &st.words, &cluster_name, None);
        let doc = crate::format::openapi::data_parser::nodes_document(&refs, inv.now, &client);
        out(
            inv,
            &crate::format::openapi::data_parser::serialize(&doc, mime),
        );
        return;
    }
    match list {
        None => {
            if nodes.is_empty() {
                if !quiet {
                    out(inv, b"No nodes in the system\n");
                }
                return;
            }
            for n in &nodes {
                let text = fmt::node::render(n, &part_names(n), st.style(), &clock);
                out(inv, text.as_bytes());
            }
        }
        Some(l) => {
            let Some(names) = hostlist::expand(l) else {
                st.exit_code = 1;
                if !quiet {
                    common::raw_err(inv, &format!("unable to parse node list {l}"));
                }
                return;
            };
            for name in names {
                match nodes.iter().find(|n| n.name == name) {
                    Some(n) => {
                        let text = fmt::node::render(n, &part_names(n), st.style(), &clock);
                        out(inv, text.as_bytes());
                    }
                    None => {
                        st.exit_code = 1;
                        if !quiet {
                            out(inv, format!("Node {name} not found\n").as_bytes());
                        }
                    }
                }
            }
        }
    }
}
