//! `squeue`: command line and environment as `src/squeue/opts.c` reads them, then the
//! job or step view from [`crate::format::squeue`].

use super::common::{self, comma_list, out};
use crate::backend::{BackendError, Cluster};
use crate::cli::Invocation;
use crate::format::openapi::{self, Mime, Plugin};
use crate::format::squeue::select::{JobIdSel, StateFilter, StateSel, valid_states_text};
use crate::format::squeue::{self as fmt, Format, Note, View};
use crate::model::cnum::strtol;
use crate::model::units::Convert;
use crate::model::{JobRecord, StepId, hostlist, timestamp};
use crate::options::getopt::{self, Event};
use crate::options::query::c;
use crate::options::query::squeue::{
    ARRAY_UNIQUE, AUTOCOMP, EXPAND_PATTERNS, FEDERATION, HELP, HELPFORMAT, HELPFORMAT2, HELPSTATE,
    HIDE, JSON, LOCAL, ME, NOCONVERT, NOTME, ONLY_JOB_STATE, SHORT, SIBLING, START, USAGE, YAML,
    long_options,
};
use crate::options::texts::{self, Text};

/// squeue's parameters after the command line and environment are read.
#[derive(Default)]
struct Params {
    view: View,
    format: Option<String>,
    format_long: Option<String>,
    long_list: bool,
    iterate: u64,
    job_flag: bool,
    step_flag: bool,
    start_flag: bool,
    verbose: u32,
    /// `-a`: show hidden partitions (we have none; kept for `-v`).
    all_flag: bool,
    clusters: Option<Vec<String>>,
    mimetype: Option<Mime>,
    jobs_arg: Option<String>,
    steps_arg: Option<String>,
    states_arg: Option<String>,
    users_arg: Option<String>,
    partitions_arg: Option<String>,
    /// `-w` hosts before they are checked against the node table.
    nodes_arg: Option<Vec<String>>,
    /// 24.11's `--only-job-state`: job ids and states only.
    only_state: bool,
    /// 24.11's data_parser for `--json`/`--yaml`.
    data_parser: Option<openapi::data_parser::Parser>,
}

/// A parse step that ends squeue with this exit status.
struct Exit(i32);

pub fn run(inv: &mut Invocation, cluster: &dyn Cluster) -> i32 {
    let mut p = Params::default();
    if let Err(Exit(code)) = parse(inv, cluster, &mut p) {
        return code;
    }
    if let Some(mime) = p.mimetype {
        return match p.data_parser {
            Some(parser) => dump_data_parser(inv, cluster, &p, mime, parser),
            None => dump_data(inv, cluster, mime),
        };
    }
    let mut rc = 0;
    loop {
        if !p.view.no_header && (p.iterate > 0 || p.verbose > 0 || p.long_list) {
            let line = format!("{}\n", timestamp::date_line(inv.now));
            out(inv, line.as_bytes());
        }
        let ok = match p.clusters.clone() {
            None => print_once(inv, cluster, &mut p, false),
            Some(names) => {
                let mut ok = true;
                let tag = names.len() > 1 && p.view.no_header;
                for (i, name) in names.iter().enumerate() {
                    if !p.view.no_header {
                        let head = format!("{}CLUSTER: {name}\n", if i > 0 { "\n" } else { "" });
                        out(inv, head.as_bytes());
                    }
                    ok &= print_once(inv, cluster, &mut p, tag);
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

fn parse(inv: &mut Invocation, cluster: &dyn Cluster, p: &mut Params) -> Result<(), Exit> {
    let mut override_format_env = false;
    p.view.profile = inv.profile;
    p.all_flag = inv.var("SQUEUE_ALL").is_some();
    if inv.var("SQUEUE_ARRAY").is_some() {
        p.view.array_expand = true;
    }
    if let Some(s) = inv.var("SQUEUE_SORT") {
        p.view.sort = Some(s.to_string());
    }
    if inv.var("SQUEUE_ARRAY_UNIQUE").is_some() {
        p.view.array_unique = true;
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
    p.view.bitstr_len_set = inv.var("SLURM_BITSTR_LEN").is_some();
    if inv.var("SQUEUE_PRIORITY").is_some() {
        p.view.per_partition = true;
    }

    let parsed = getopt::parse(inv.prog, &inv.args, SHORT, long_options(inv.profile));
    for ev in parsed.events {
        let (opt, arg) = match ev {
            Event::Error(msg) => {
                common::raw_err(inv, &msg);
                common::raw_err(inv, "Try \"squeue --help\" for more information");
                return Err(Exit(1));
            }
            Event::Opt(o, a) => (o, a.unwrap_or_default()),
        };
        match opt {
            o if o == c('A') || o == c('U') => p.view.jobs.accounts = Some(comma_list(&arg)),
            o if o == c('a') => p.all_flag = true,
            o if o == c('h') => p.view.no_header = true,
            o if o == c('i') => {
                let n = strtol(arg.as_bytes()).value;
                if n <= 0 {
                    inv.error(&format!("--iterate={arg}\n"));
                    return Err(Exit(1));
                }
                p.iterate = n as u64;
            }
            o if o == c('j') => {
                if !arg.is_empty() {
                    p.jobs_arg = Some(arg.clone());
                    p.view.jobs.jobs = Some(build_job_list(inv, &arg)?);
                }
                p.job_flag = true;
            }
            o if o == c('l') => {
                p.long_list = true;
                override_format_env = true;
            }
            o if o == c('L') => p.view.jobs.licenses = Some(comma_list(&arg)),
            o if o == c('M') => match common::clusters(&arg, &cluster.cluster_name(), false) {
                Ok(names) => p.clusters = Some(names),
                Err(e) => {
                    inv.error(&e);
                    return Err(Exit(1));
                }
            },
            o if o == c('n') => p.view.jobs.names = Some(comma_list(&arg)),
            o if o == c('O') => {
                if p.format.is_some() {
                    inv.error("-O (--Format) is incompatible with -o (--format)");
                    return Err(Exit(1));
                }
                p.format_long = Some(arg);
                override_format_env = true;
            }
            o if o == c('o') => {
                if p.format_long.is_some() {
                    inv.error("-o (--format) is incompatible with -O (--Format)");
                    return Err(Exit(1));
                }
                p.format = Some(arg);
                override_format_env = true;
            }
            o if o == c('p') => {
                p.partitions_arg = Some(arg.clone());
                p.view.jobs.partitions = Some(comma_list(&arg));
                p.all_flag = true;
            }
            o if o == c('P') => p.view.per_partition = true,
            o if o == c('q') => p.view.jobs.qos = Some(comma_list(&arg)),
            o if o == c('R') => p.view.jobs.reservation = Some(arg),
            o if o == c('r') => {
                p.view.array_expand = true;
                p.view.bitstr_len_set = true;
            }
            o if o == c('s') => {
                if !arg.is_empty() {
                    p.steps_arg = Some(arg.clone());
                    p.view.step_filter.steps = Some(build_step_list(inv, &arg)?);
                }
                p.step_flag = true;
                override_format_env = true;
            }
            o if o == c('S') => p.view.sort = Some(arg),
            o if o == c('t') => {
                p.states_arg = Some(arg.clone());
                p.view.jobs.states = build_state_list(inv, &arg)?;
            }
            o if o == c('u') => {
                p.users_arg = Some(arg.clone());
                p.view.jobs.users = Some(build_user_list(inv, &arg));
            }
            o if o == c('v') => p.verbose += 1,
            o if o == c('V') => {
                common::print_version(inv);
                return Err(Exit(0));
            }
            o if o == c('w') => match hostlist::expand(&arg) {
                Some(hosts) => p.nodes_arg = Some(hosts),
                None => {
                    inv.error(&format!("'{arg}' invalid entry for --nodelist"));
                    return Err(Exit(1));
                }
            },
            ARRAY_UNIQUE => p.view.array_unique = true,
            HELP => {
                let text = crate::options::texts::help(inv.profile, "squeue");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            HIDE => p.all_flag = false,
            FEDERATION | LOCAL | SIBLING => {}
            ME => {
                let me = inv.user.uid.to_string();
                p.users_arg = Some(me.clone());
                p.view.jobs.users = Some(build_user_list(inv, &me));
            }
            START => {
                p.start_flag = true;
                override_format_env = true;
            }
            NOCONVERT => p.view.convert = Convert::No,
            USAGE => {
                let text = crate::options::texts::usage(inv.profile, "squeue");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            JSON | YAML => {
                p.mimetype = Some(if opt == JSON { Mime::Json } else { Mime::Yaml });
                p.data_parser = common::data_parser(inv, &arg).map_err(Exit)?;
            }
            HELPFORMAT | HELPFORMAT2 => {
                let kind = if opt == HELPFORMAT {
                    Text::HelpFormat
                } else {
                    Text::HelpFormatLong
                };
                let text = texts::text(inv.profile, "squeue", kind).unwrap_or("");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            HELPSTATE => {
                let text = texts::text(inv.profile, "squeue", Text::HelpState).unwrap_or("");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            ONLY_JOB_STATE => p.only_state = true,
            // Paths are always shown expanded here, which is what this asks for.
            EXPAND_PATTERNS => {}
            NOTME => p.view.jobs.not_user = Some(inv.user.uid),
            AUTOCOMP => {
                inv.error("--autocomplete is not supported by bai-slurm");
                return Err(Exit(1));
            }
            _ => {}
        }
    }
    if p.only_state && p.step_flag {
        return Err(Exit(common::fatal(
            inv,
            "Options --only-job-state and -s(--steps) are mutually exclusive. Please remove one and retry.",
        )));
    }

    if p.long_list && p.format.is_some() {
        return Err(Exit(common::fatal(
            inv,
            "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.",
        )));
    }
    if !override_format_env {
        if let Some(f) = inv.var("SQUEUE_FORMAT") {
            p.format = Some(f.to_string());
        } else if let Some(f) = inv.var("SQUEUE_FORMAT2") {
            p.format_long = Some(f.to_string());
        }
    }

    if p.only_state && p.format.is_none() && p.format_long.is_none() {
        p.format = Some("%.18i %.2t".to_string());
    }

    let mut operands = parsed.operands.into_iter();
    if let Some(first) = operands.next() {
        if p.job_flag {
            p.jobs_arg = Some(first.clone());
            p.view.jobs.jobs = Some(build_job_list(inv, &first)?);
        } else if p.step_flag {
            p.steps_arg = Some(first.clone());
            p.view.step_filter.steps = Some(build_step_list(inv, &first)?);
        }
        let extra = if p.job_flag || p.step_flag {
            operands.next()
        } else {
            Some(first)
        };
        if let Some(x) = extra {
            inv.error(&format!("Unrecognized option: {x}"));
            let text = crate::options::texts::usage(inv.profile, "squeue");
            out(inv, text.as_bytes());
            return Err(Exit(1));
        }
    }

    if p.job_flag && p.step_flag {
        if p.view.jobs.jobs.is_some() {
            p.job_flag = false;
        } else {
            inv.error("Incompatible options --jobs and --steps");
            return Err(Exit(1));
        }
    }

    if let Some(hosts) = p.nodes_arg.take() {
        p.view.jobs.nodes = Some(check_nodes(inv, cluster, hosts)?);
    }

    if p.view.jobs.accounts.is_none()
        && let Some(v) = inv.var("SQUEUE_ACCOUNT")
    {
        p.view.jobs.accounts = Some(comma_list(v));
    }
    if p.view.jobs.names.is_none()
        && let Some(v) = inv.var("SQUEUE_NAMES")
    {
        p.view.jobs.names = Some(comma_list(v));
    }
    // Slurm tests the partition list here, so -p hides SQUEUE_LICENSES.
    if p.partitions_arg.is_none()
        && let Some(v) = inv.var("SQUEUE_LICENSES")
    {
        p.view.jobs.licenses = Some(comma_list(v));
    }
    if p.partitions_arg.is_none()
        && let Some(v) = inv.var("SQUEUE_PARTITION").map(String::from)
    {
        p.partitions_arg = Some(v.clone());
        p.view.jobs.partitions = Some(comma_list(&v));
    }
    if p.view.jobs.qos.is_none()
        && let Some(v) = inv.var("SQUEUE_QOS")
    {
        p.view.jobs.qos = Some(comma_list(v));
    }
    if p.states_arg.is_none()
        && let Some(v) = inv.var("SQUEUE_STATES").map(String::from)
    {
        p.states_arg = Some(v.clone());
        p.view.jobs.states = build_state_list(inv, &v)?;
    }
    if p.users_arg.is_none()
        && let Some(v) = inv.var("SQUEUE_USERS").map(String::from)
    {
        p.users_arg = Some(v.clone());
        p.view.jobs.users = Some(build_user_list(inv, &v));
    }

    if p.start_flag && !p.step_flag {
        if p.format.is_none() {
            p.format = Some(fmt::START_FORMAT.to_string());
        }
        if p.view.sort.is_none() {
            p.view.sort = Some("S".to_string());
        }
        if p.states_arg.is_none() {
            p.states_arg = Some("PD".to_string());
            p.view.jobs.states =
                StateFilter::List(vec![StateSel::Base(crate::model::JobState::Pending)]);
        }
    }

    p.view.steps = p.step_flag;
    p.view.step_filter.jobs = p.view.jobs.jobs.clone();
    p.view.step_filter.partitions = p.view.jobs.partitions.clone();
    p.view.step_filter.users = p.view.jobs.users.clone();
    p.view.step_filter.nodes = p.view.jobs.nodes.clone();

    if p.verbose > 0 {
        print_options(inv, p);
    }
    Ok(())
}

/// `_build_job_list`: `id` or `id_task`, parsed with `strtol` into an `int`; an id that is
/// not positive is fatal.
fn build_job_list(inv: &mut Invocation, s: &str) -> Result<Vec<JobIdSel>, Exit> {
    let mut list = Vec::new();
    for item in s.split(',').filter(|t| !t.is_empty()) {
        let (id, used) = strtol(item.as_bytes()).value_and_end();
        let rest = &item[used..];
        let task = rest
            .strip_prefix('_')
            .map(|t| strtol(t.as_bytes()).value)
            .and_then(|t| u32::try_from(t).ok());
        // Slurm keeps the number in an `int`: 2147483648 is negative, 2^32 + 1 is 1.
        let id = id as i32;
        if id <= 0 {
            inv.error(&format!("Invalid job id: {item}"));
            return Err(Exit(1));
        }
        list.push(JobIdSel {
            job_id: id as u32,
            task,
        });
    }
    Ok(list)
}

/// `_build_step_list`: `job[_task].step`; Slurm reads the step number with `strtol`, so
/// `12.batch` names step 0.
fn build_step_list(inv: &mut Invocation, s: &str) -> Result<Vec<(u32, Option<u32>, StepId)>, Exit> {
    let mut list = Vec::new();
    for item in s.split(',').filter(|t| !t.is_empty()) {
        let mut parts = item.split('.').filter(|t| !t.is_empty());
        let Some(job) = parts.next() else { break };
        let (id, used) = strtol(job.as_bytes()).value_and_end();
        let task = job[used..]
            .strip_prefix('_')
            .map(|t| strtol(t.as_bytes()).value)
            .and_then(|t| u32::try_from(t).ok());
        let Some(step) = parts.next() else {
            inv.error(&format!("Invalid job_step id: {job}.??"));
            return Err(Exit(1));
        };
        let step_num = strtol(step.as_bytes()).value;
        if id <= 0 || step_num < 0 {
            inv.error(&format!("Invalid job_step id: {job}.{step}"));
            return Err(Exit(1));
        }
        list.push((
            u32::try_from(id).unwrap_or(u32::MAX),
            task,
            StepId::Numbered(u32::try_from(step_num).unwrap_or(u32::MAX)),
        ));
    }
    Ok(list)
}

fn build_state_list(inv: &mut Invocation, s: &str) -> Result<StateFilter, Exit> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(StateFilter::All);
    }
    let mut sels = Vec::new();
    for name in s.split(',').filter(|t| !t.is_empty()) {
        match StateSel::parse(name) {
            Some(sel) => sels.push(sel),
            None => {
                inv.error(&format!("Invalid job state specified: {name}"));
                inv.error(&format!(
                    "Valid job states include: {}\n",
                    valid_states_text()
                ));
                return Err(Exit(1));
            }
        }
    }
    Ok(StateFilter::List(sels))
}

/// `_build_user_list`: unknown users are reported and skipped (the list may end empty,
/// which then matches no job).
fn build_user_list(inv: &mut Invocation, s: &str) -> Vec<u32> {
    let mut uids = Vec::new();
    for user in s.split(',').filter(|t| !t.is_empty()) {
        match inv.users.resolve(user) {
            Some(uid) => uids.push(uid),
            None => inv.error(&format!("Invalid user: {user}\n")),
        }
    }
    uids
}

/// `_filter_nodes`: every `-w` name must be a node (or its host name); `localhost` is
/// this machine.
fn check_nodes(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    hosts: Vec<String>,
) -> Result<Vec<String>, Exit> {
    let nodes = match cluster.nodes() {
        Ok(n) => n,
        Err(e) => {
            common::raw_err(inv, &format!("slurm_load_node error: {e}"));
            return Err(Exit(1));
        }
    };
    let mut names = Vec::new();
    for host in hosts {
        let wanted = if host.eq_ignore_ascii_case("localhost") {
            crate::sys::short_hostname()
        } else {
            host.clone()
        };
        match nodes
            .iter()
            .find(|n| n.name == wanted || n.hostname == wanted)
        {
            Some(n) => names.push(n.name.clone()),
            None => {
                inv.error(&format!("Invalid node name {host}"));
                return Err(Exit(1));
            }
        }
    }
    Ok(names)
}

fn print_options(inv: &mut Invocation, p: &Params) {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(null)".into());
    let tf = |b: bool| if b { "true" } else { "false" };
    let nodes = p
        .view
        .jobs
        .nodes
        .as_ref()
        .map(|n| hostlist::compress(n))
        .unwrap_or_default();
    let text = format!(
        "-----------------------------\n\
         all         = {}\n\
         array       = {}\n\
         federation  = false\n\
         format      = {}\n\
         iterate     = {}\n\
         job_flag    = {}\n\
         jobs        = {}\n\
         licenses    = (null)\n\
         local       = false\n\
         names       = (null)\n\
         nodes       = {nodes}\n\
         partitions  = {}\n\
         priority    = {}\n\
         reservation = {}\n\
         sibling      = false\n\
         sort        = {}\n\
         start_flag  = {}\n\
         states      = {}\n\
         step_flag   = {}\n\
         steps       = {}\n\
         users       = {}\n\
         verbose     = {}\n\
         -----------------------------\n\n\n",
        tf(p.all_flag),
        tf(p.view.array_expand),
        show(&p.format),
        p.iterate,
        u8::from(p.job_flag),
        show(&p.jobs_arg),
        show(&p.partitions_arg),
        tf(p.view.per_partition),
        show(&p.view.jobs.reservation),
        show(&p.view.sort),
        u8::from(p.start_flag),
        show(&p.states_arg),
        u8::from(p.step_flag),
        show(&p.steps_arg),
        show(&p.users_arg),
        p.verbose,
    );
    out(inv, text.as_bytes());
}

/// `_print_job` / `_print_job_steps`: load, then render. False when loading failed.
fn print_once(inv: &mut Invocation, cluster: &dyn Cluster, p: &mut Params, tag: bool) -> bool {
    let jobs = match load_jobs(cluster, p) {
        Ok(j) => j,
        Err(e) => {
            let what = if p.view.steps {
                "slurm_get_job_steps error"
            } else {
                "slurm_load_jobs error"
            };
            common::raw_err(inv, &format!("{what}: {e}"));
            return false;
        }
    };
    if p.verbose > 0 {
        let line = format!("last_update_time={} records={}\n", inv.now, jobs.len());
        out(inv, line.as_bytes());
    }
    let jobs = if p.only_state { job_states(jobs) } else { jobs };
    p.view.format = if p.view.steps {
        match (&p.format, &p.format_long) {
            (Some(f), _) => Format::Letters(f.clone()),
            (None, Some(f)) => Format::Names(f.clone()),
            (None, None) => Format::Letters(fmt::STEP_FORMAT.to_string()),
        }
    } else {
        match (&p.format, &p.format_long) {
            (Some(f), _) => Format::Letters(f.clone()),
            (None, Some(f)) => Format::Names(f.clone()),
            (None, None) => {
                let base = if p.long_list {
                    fmt::LONG_JOB_FORMAT
                } else {
                    fmt::DEFAULT_JOB_FORMAT
                };
                let prefix = if tag { "cluster:10 ," } else { "" };
                Format::Names(format!("{prefix}{base}"))
            }
        }
    };
    let partitions = if p.view.steps {
        Vec::new()
    } else {
        match cluster.queue_partitions() {
            Ok(parts) => parts,
            Err(e) => {
                common::raw_err(inv, &format!("slurm_load_partitions: {e}"));
                Vec::new()
            }
        }
    };
    let clock = common::clock(inv);
    let rendered = fmt::render(&jobs, &partitions, &p.view, &clock);
    for note in &rendered.notes {
        match note {
            Note::Error(m) => inv.error(m),
            Note::Info(m) => common::info(inv, m),
        }
    }
    out(inv, &rendered.out);
    !rendered.failed
}

/// 24.11's `--only-job-state` asks the controller for job states only: records with no
/// partition, priority, times or array throttle, which squeue's sort then orders by state
/// alone (its start-time pass, with no times, reverses the list).
fn job_states(mut jobs: Vec<JobRecord>) -> Vec<JobRecord> {
    for j in &mut jobs {
        j.partition.clear();
        j.priority = 0;
        j.start_time = None;
        j.end_time = None;
        j.array_throttle = None;
        if let Some(crate::model::ArrayPart::Pending { throttle, .. }) = &mut j.array {
            *throttle = None;
        }
    }
    jobs
}

/// `--json`/`--yaml` (`dump_data`): the v0.0.38 plugin's `GET /jobs` answer for every job
/// the controller has, whatever the filter options; exit 0 even when loading failed (the
/// failure is an entry of `errors`).
fn dump_data(inv: &mut Invocation, cluster: &dyn Cluster, mime: Mime) -> i32 {
    let (errors, items) = match cluster.jobs() {
        Ok(jobs) => {
            // Node topology places each allocated CPU on its socket and core.
            let nodes = cluster.nodes().unwrap_or_default();
            (Vec::new(), openapi::jobs::dump_jobs(&jobs, &nodes))
        }
        Err(_) => (vec![openapi::load_jobs_error()], Vec::new()),
    };
    let doc = openapi::response(Plugin::V0038, &errors, "jobs", items);
    out(inv, &openapi::serialize(&doc, mime));
    0
}

/// 24.11's `--json`/`--yaml`: the jobs plain squeue would list (its filters, the default
/// state filter included), in a data_parser document.
fn dump_data_parser(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    p: &Params,
    mime: Mime,
    parser: openapi::data_parser::Parser,
) -> i32 {
    let jobs = match cluster.jobs() {
        Ok(j) => j,
        Err(e) => {
            common::raw_err(inv, &format!("slurm_load_jobs error: {e}"));
            return 1;
        }
    };
    let rows =
        crate::format::squeue::select::job_rows(&jobs, &p.view.jobs, false, &|_| 1, false, false);
    let selected: Vec<&JobRecord> = rows.iter().map(|r| r.job).collect();
    let words = common::command_line(inv);
    let cluster_name = cluster.cluster_name();
    let default_partition = default_partition_of(cluster);
    let client = common::data_parser_client(
        inv,
        parser,
        &words,
        &cluster_name,
        default_partition.as_deref(),
    );
    let doc = openapi::data_parser::jobs_document(
        &selected,
        inv.now,
        cluster.last_backfill().unwrap_or(0),
        &client,
    );
    out(inv, &openapi::data_parser::serialize(&doc, mime));
    0
}

/// The name of the cluster's default partition, if it has one.
pub fn default_partition_of(cluster: &dyn Cluster) -> Option<String> {
    cluster
        .partitions()
        .ok()?
        .into_iter()
        .find(|p| p.is_default)
        .map(|p| p.name)
}

/// `slurm_load_jobs`, or `slurm_load_job` when exactly one job id was given (which fails
/// for an id the controller does not know).
fn load_jobs(cluster: &dyn Cluster, p: &Params) -> Result<Vec<JobRecord>, BackendError> {
    let ids: Vec<u32> = p
        .view
        .jobs
        .jobs
        .iter()
        .flatten()
        .map(|s| s.job_id)
        .collect();
    if ids.is_empty() {
        return cluster.jobs();
    }
    let found = cluster.jobs_with_ids(&ids)?;
    if found.is_empty() && ids.len() == 1 && !p.view.steps {
        return Err(BackendError::Slurm(
            crate::backend::SlurmErrno::InvalidJobId,
        ));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    // What the real Slurm 22.05.8's squeue printed for each.
    use crate::commands::testkit::{Fake, pending, run};

    #[test]
    fn job_ids_are_kept_in_an_int() {
        let fake = Fake::with_jobs(vec![pending(1, "a")]);
        for id in [
            "2147483648",
            "4294967295",
            "4294967296",
            "6442450945",
            &"9".repeat(300),
        ] {
            let p = run(&fake, &[b"squeue", b"-h", b"-j", id.as_bytes()]);
            assert_eq!(
                (p.err(), p.rc),
                (format!("squeue: error: Invalid job id: {id}\n"), 1)
            );
        }
        // 2^32 + 1 is job 1.
        let p = run(
            &fake,
            &[b"squeue", b"-h", b"-o", b"%i", b"-j", b"4294967297"],
        );
        assert_eq!((p.out, p.rc), (b"1\n".to_vec(), 0));
    }

    #[test]
    fn invalid_ids_are_echoed_byte_for_byte() {
        let fake = Fake::default();
        for id in [&b"\xff"[..], b"\xff\xfe", b"Job=999999_\xff"] {
            let p = run(&fake, &[b"squeue", b"-j", id]);
            let want = [&b"squeue: error: Invalid job id: "[..], id, b"\n"].concat();
            assert_eq!((p.err, p.rc), (want, 1));
        }
        // A number first, then anything: that number (job 999999, which is not there).
        for id in [
            "999999日本".as_bytes(),
            b"999999\xff",
            "999999_日本".as_bytes(),
        ] {
            let p = run(&fake, &[b"squeue", b"-j", id]);
            assert_eq!(
                (p.err(), p.rc),
                (
                    "slurm_load_jobs error: Invalid job id specified\n".into(),
                    1
                )
            );
        }
    }
}
