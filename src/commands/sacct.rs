//! `sacct`: options as `src/sacct/options.c` reads them, the job condition with sacct's
//! defaults, then the rows from [`crate::format::sacct`].

use super::common::{self, out};
use crate::backend::{AccountingQuery, Cluster};
use crate::cli::Invocation;
use crate::format::openapi::{self, Mime, Plugin};
use crate::format::sacct::cell::Layout;
use crate::format::sacct::select::{self, JobCond, Selected};
use crate::format::sacct::spec::{self, SpecError};
use crate::format::sacct::{self as fmt, Options};
use crate::model::cnum::atoi;
use crate::model::time_limit::{Duration, time_str2mins};
use crate::model::units::{Convert, Unit};
use crate::model::{JobState, StepId, hostlist, timestamp};
use crate::options::getopt::{self, Event};
use crate::options::query::c;
use crate::options::query::sacct::{
    ARRAY, AUTOCOMP, DELIMITER, ENV, EXPAND_PATTERNS, FEDERATION, HELPREASON, HELPSTATE, JSON,
    LOCAL, LOCAL_UID, NAME, NOCONVERT, SHORT, UNITS, WHOLE_HETJOB, YAML,
};
use crate::options::values::begin::parse_time;

/// What the command line asked for.
#[derive(Default)]
struct Params {
    all_users: bool,
    brief: bool,
    long_output: bool,
    field_list: Option<String>,
    help: u8,
    no_header: bool,
    no_steps: bool,
    layout_ending: Option<bool>,
    delimiter: Option<String>,
    convert: Option<Convert>,
    units: Option<Unit>,
    start: Option<i64>,
    end: Option<i64>,
    script: bool,
    env: bool,
    completion: bool,
    verbose: u32,
    mimetype: Option<Mime>,
    /// 24.11's data_parser for `--json`/`--yaml`.
    data_parser: Option<openapi::data_parser::Parser>,
    /// 24.11's `--expand-patterns`.
    expand_patterns: bool,
    cond: JobCond,
    users: Option<Vec<u32>>,
    states: Option<Vec<JobState>>,
    clusters: Clusters,
}

/// `-M`, `-L`, `--local` and `--federation` as `options.c` keeps them: `-M all` (or the
/// vestigial `-1`) and `-L` ask for every cluster; other `-M` names add up to the list the
/// database filters on; `--local` and `--federation` undo an earlier `-L`. No list means
/// every cluster here: the records are this cluster's own, and there is no federation.
#[derive(Default)]
struct Clusters {
    all: bool,
    list: Option<Vec<String>>,
}

impl Clusters {
    fn named(&mut self, arg: &str) {
        if arg.eq_ignore_ascii_case("all") || arg.eq_ignore_ascii_case("-1") {
            self.all = true;
            return;
        }
        self.all = false;
        extend(&mut self.list, arg);
    }

    fn condition(&self) -> Option<Vec<String>> {
        if self.all { None } else { self.list.clone() }
    }
}

struct Exit(i32);

pub fn run(inv: &mut Invocation, cluster: &dyn Cluster) -> i32 {
    let mut p = Params::default();
    match parse(inv, &mut p) {
        Ok(()) => {}
        Err(Exit(code)) => return code,
    }
    match p.help {
        1 => {
            let text = crate::options::texts::help(inv.profile, "sacct");
            out(inv, text.as_bytes());
            return 0;
        }
        2 => {
            out(inv, spec::help_fields_in(inv.profile.sacct).as_bytes());
            return 0;
        }
        3 => {
            let text = crate::options::texts::usage(inv.profile, "sacct");
            out(inv, text.as_bytes());
            return 0;
        }
        _ => {}
    }
    if let Some(mime) = p.mimetype {
        return dump_data(inv, cluster, &p, mime);
    }
    let layout = match (p.layout_ending, p.delimiter.clone()) {
        (None, _) => Layout::Fixed,
        (Some(true), d) => Layout::Parsable {
            delimiter: d.unwrap_or_else(|| "|".into()),
        },
        (Some(false), d) => Layout::Parsable2 {
            delimiter: d.unwrap_or_else(|| "|".into()),
        },
    };
    let columns = match columns(inv, &p) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let opts = Options {
        columns,
        layout,
        header: !p.no_header && !p.script && !p.env,
        no_steps: p.no_steps,
        convert: match (p.units, p.convert) {
            (Some(u), _) => Convert::To(u),
            (None, Some(c)) => c,
            (None, None) => Convert::Exact,
        },
        cond: p.cond.clone(),
        profile: inv.profile,
        expand_patterns: p.expand_patterns,
    };
    let query = AccountingQuery {
        job_ids: opts.cond.jobs.iter().flatten().map(|s| s.job_id).collect(),
        uids: opts.cond.users.clone().unwrap_or_default(),
        start: Some(opts.cond.start),
        end: Some(opts.cond.end),
    };
    let records = match cluster.accounting(&query) {
        Ok(r) => r,
        Err(e) => {
            inv.error(&format!("Problem talking to the database: {e}"));
            return 1;
        }
    };
    let clock = common::clock(inv);
    if p.script || p.env {
        let text = scripts(&records, &opts, p.script);
        out(inv, text.as_bytes());
        return 0;
    }
    let bytes = fmt::render(&records, &opts, &clock);
    out(inv, &bytes);
    0
}

/// `--json`/`--yaml` (`dump_data`): sacct hands its job condition to the dbv0.0.38
/// plugin as a query. The user list is not part of that query, so every user's matching
/// jobs are listed; `-X` skips steps. No match is an `errors` entry; exit 0 regardless.
fn dump_data(inv: &mut Invocation, cluster: &dyn Cluster, p: &Params, mime: Mime) -> i32 {
    let mut cond = p.cond.clone();
    cond.users = None;
    let query = AccountingQuery {
        job_ids: cond.jobs.iter().flatten().map(|s| s.job_id).collect(),
        uids: Vec::new(),
        start: Some(cond.start),
        end: Some(cond.end),
    };
    if let Some(parser) = p.data_parser {
        return dump_data_parser(inv, cluster, p, &cond, &query, mime, parser);
    }
    let (errors, items) = match cluster.accounting(&query) {
        Err(_) => (vec![openapi::db_connection_error()], Vec::new()),
        Ok(records) => {
            let selected = fmt::data_jobs(&records, &cond);
            if selected.is_empty() {
                (vec![openapi::db_nothing_found()], Vec::new())
            } else {
                let ids = openapi::db_jobs::TresIds::from_jobs(selected.iter().map(|(j, _)| *j));
                let users = inv.users;
                let name = |uid: u32| users.by_uid(uid).map(|u| u.name);
                let ctx = openapi::db_jobs::DbCtx {
                    now: inv.now,
                    ids: &ids,
                    user_name: &name,
                    skip_steps: p.no_steps,
                };
                let items = selected
                    .iter()
                    .map(|(job, steps)| openapi::db_jobs::dump_db_job(job, steps, &ctx))
                    .collect();
                (Vec::new(), items)
            }
        }
    };
    let doc = openapi::response(Plugin::DbV0038, &errors, "jobs", items);
    out(inv, &openapi::serialize(&doc, mime));
    0
}

/// 24.11's `--json`/`--yaml`: the same selection in a data_parser document.
fn dump_data_parser(
    inv: &mut Invocation,
    cluster: &dyn Cluster,
    p: &Params,
    cond: &crate::format::sacct::select::JobCond,
    query: &AccountingQuery,
    mime: Mime,
    parser: openapi::data_parser::Parser,
) -> i32 {
    let (errors, items) = match cluster.accounting(query) {
        Err(_) => (vec![openapi::db_connection_error()], Vec::new()),
        Ok(records) => {
            let selected = fmt::data_jobs(&records, cond);
            let ids = openapi::db_jobs::TresIds::from_jobs(selected.iter().map(|(j, _)| *j));
            let users = inv.users;
            let name = |uid: u32| users.by_uid(uid).map(|u| u.name);
            let ctx = openapi::data_parser_db::Ctx {
                now: inv.now,
                ids: &ids,
                user_name: &name,
                skip_steps: p.no_steps,
                parser,
            };
            let items = selected
                .iter()
                .map(|(job, steps)| openapi::data_parser_db::job(job, steps, &ctx))
                .collect();
            (Vec::new(), items)
        }
    };
    let words = common::command_line(inv);
    let cluster_name = cluster.cluster_name();
    let client = common::data_parser_client(inv, parser, &words, &cluster_name, None);
    let doc = openapi::data_parser_db::document(items, errors, &client);
    out(inv, &openapi::data_parser::serialize(&doc, mime));
    0
}

fn parse(inv: &mut Invocation, p: &mut Params) -> Result<(), Exit> {
    let long = crate::options::query::sacct::long_options(inv.profile);
    let parsed = getopt::parse(inv.prog, &inv.args, SHORT, long);
    let mut jobs: Vec<Selected> = Vec::new();
    let mut jobs_given = false;
    for ev in parsed.events {
        let (opt, arg) = match ev {
            Event::Error(msg) => {
                common::raw_err(inv, &msg);
                return Err(Exit(1));
            }
            Event::Opt(o, a) => (o, a),
        };
        let arg_s = arg.clone().unwrap_or_default();
        match opt {
            o if o == c('a') => p.all_users = true,
            o if o == c('A') => extend(&mut p.cond.accounts, &arg_s),
            o if o == c('b') => p.brief = true,
            o if o == c('B') => {
                p.script = true;
                p.no_steps = true;
            }
            o if o == c('c') => p.completion = true,
            o if o == c('C') => extend(&mut p.cond.constraints, &arg_s),
            DELIMITER => p.delimiter = Some(arg_s),
            o if o == c('M') => p.clusters.named(&arg_s),
            o if o == c('L') => p.clusters.all = true,
            o if o == c('D') => p.cond.duplicates = true,
            // Associations, scheduler flags and previous reasons are not recorded here.
            o if o == c('x') || o == c('F') || o == c('R') => {
                let name = match o {
                    o if o == c('x') => "--associations",
                    o if o == c('F') => "--flags",
                    _ => "--reason",
                };
                inv.warning(&format!("{name} has no effect here and is ignored"));
            }
            o if o == c('e') => p.help = 2,
            o if o == c('E') => p.end = Some(time_arg(inv, &arg_s)?),
            ENV => {
                p.env = true;
                p.no_steps = true;
            }
            o if o == c('f') => {
                common::raw_err(inv, &format!("{arg_s} is not a valid file"));
                return Err(Exit(1));
            }
            o if o == c('g') => {
                let mut gids = p.cond.gids.take().unwrap_or_default();
                for g in parse_char_list(&arg_s) {
                    match resolve_group(inv, &g) {
                        Some(gid) => gids.push(gid),
                        None => {
                            inv.error(&format!("Invalid group id: {g}"));
                            return Err(Exit(1));
                        }
                    }
                }
                p.cond.gids = Some(gids);
            }
            o if o == c('h') => p.help = 1,
            o if o == c('i') || o == c('I') => {
                let what = if o == c('i') { "node" } else { "cpu" };
                match range(&arg_s) {
                    Some(r) if o == c('i') => p.cond.node_range = Some(r),
                    Some(r) => p.cond.cpu_range = Some(r),
                    None => {
                        inv.error(&format!("invalid {what} range -i '{arg_s}'"));
                        return Err(Exit(1));
                    }
                }
            }
            o if o == c('j') => {
                jobs_given = true;
                for item in parse_char_list(&arg_s) {
                    let sel = step_selector(inv, &item)?;
                    // Job 0 (`0`, `4294967296`) selects nothing and filters nothing.
                    if sel.job_id != 0 {
                        jobs.push(sel);
                    }
                }
            }
            o if o == c('k') || o == c('K') => {
                // A positive count, or INFINITE (kept as u32::MAX).
                let mins = match time_str2mins(&arg_s) {
                    Some(Duration::Infinite) => u32::MAX,
                    Some(Duration::Value(m)) if m > 0 => m as u32,
                    _ => return Err(Exit(common::fatal(inv, "Invalid time limit specification"))),
                };
                if o == c('k') {
                    p.cond.timelimit_min = Some(mins);
                } else {
                    p.cond.timelimit_max = Some(mins);
                }
            }
            o if o == c('l') => p.long_output = true,
            FEDERATION | LOCAL => p.clusters.all = false,
            // User names are always resolved on this host; there are no heterogeneous jobs.
            LOCAL_UID | WHOLE_HETJOB => {}
            NOCONVERT => p.convert = Some(Convert::No),
            UNITS => match unit(&arg_s) {
                Some(u) => p.units = Some(u),
                None => return Err(Exit(common::fatal(inv, "Invalid unit type"))),
            },
            o if o == c('n') => p.no_header = true,
            o if o == c('N') => {
                if p.cond.nodes.is_some() {
                    inv.error("Already asked for nodes");
                } else {
                    p.cond.nodes = Some(hostlist::expand(&arg_s).unwrap_or_default());
                }
            }
            NAME => extend(&mut p.cond.names, &arg_s),
            o if o == c('o') => {
                let list = p.field_list.get_or_insert_with(String::new);
                list.push_str(&arg_s);
                list.push(',');
            }
            o if o == c('p') => p.layout_ending = Some(true),
            o if o == c('P') => p.layout_ending = Some(false),
            o if o == c('q') => extend(&mut p.cond.qos, &arg_s),
            o if o == c('r') => extend(&mut p.cond.partitions, &arg_s),
            o if o == c('s') => {
                let states = p.states.get_or_insert_with(Vec::new);
                for name in parse_char_list(&arg_s) {
                    match JobState::parse_accounted(&name) {
                        Ok(s) => {
                            if !states.contains(&s) {
                                states.push(s);
                            }
                        }
                        Err(known) => {
                            let msg = match known {
                                true => format!("job state {name} is not supported / accounted"),
                                false => format!("unrecognized job state value '{name}'"),
                            };
                            return Err(Exit(common::fatal(inv, &msg)));
                        }
                    }
                }
            }
            o if o == c('S') => p.start = Some(time_arg(inv, &arg_s)?),
            o if o == c('T') => p.cond.truncate = true,
            o if o == c('U') => p.help = 3,
            o if o == c('u') => {
                if arg_s == "-1" {
                    p.all_users = true;
                    continue;
                }
                p.all_users = false;
                let mut uids = p.users.take().unwrap_or_default();
                for name in parse_char_list(&arg_s) {
                    match inv.users.resolve(&name) {
                        Some(uid) => {
                            if !uids.contains(&uid) {
                                uids.push(uid);
                            }
                        }
                        None => {
                            inv.error(&format!("Invalid user id: {name}"));
                            return Err(Exit(1));
                        }
                    }
                }
                p.users = Some(uids);
            }
            o if o == c('v') => p.verbose += 1,
            o if o == c('V') => {
                common::print_version(inv);
                return Err(Exit(0));
            }
            o if o == c('W') => extend(&mut p.cond.wckeys, &arg_s),
            o if o == c('t') || o == c('X') => p.no_steps = true,
            JSON | YAML => {
                p.mimetype = Some(if opt == JSON { Mime::Json } else { Mime::Yaml });
                p.data_parser = common::data_parser(inv, &arg_s).map_err(Exit)?;
            }
            // 24.11's fixed lists.
            HELPREASON | HELPSTATE => {
                let text = crate::options::texts::text(
                    inv.profile,
                    "sacct",
                    if opt == HELPSTATE {
                        crate::options::texts::Text::HelpState
                    } else {
                        crate::options::texts::Text::HelpReason
                    },
                )
                .unwrap_or("");
                out(inv, text.as_bytes());
                return Err(Exit(0));
            }
            // StdOut/StdErr/StdIn as the paths the job wrote rather than the patterns.
            EXPAND_PATTERNS => p.expand_patterns = true,
            ARRAY | AUTOCOMP => {
                let name = if opt == ARRAY {
                    "--array"
                } else {
                    "--autocomplete"
                };
                inv.error(&format!("{name} is not supported by bai-slurm"));
                return Err(Exit(1));
            }
            _ => {}
        }
    }

    if !jobs_given || jobs.is_empty() {
        let reason = if p.env {
            Some("job environment")
        } else if p.script {
            Some("job scripts")
        } else {
            None
        };
        if let Some(r) = reason {
            return Err(Exit(common::fatal(
                inv,
                &format!(
                    "When requesting {r} you must also request specific jobs with the '-j' option."
                ),
            )));
        }
    }
    if p.script && p.env {
        return Err(Exit(common::fatal(
            inv,
            "Options --batch-script and --env-vars are mutually exclusive",
        )));
    }
    if p.long_output && p.field_list.is_some() {
        return Err(Exit(common::fatal(
            inv,
            "Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.",
        )));
    }

    let has_jobs = !jobs.is_empty();
    let (start, end) = select::default_window(
        p.start.filter(|&s| s != 0),
        p.end.filter(|&e| e != 0),
        p.states.as_ref().is_some_and(|s| !s.is_empty()),
        has_jobs,
        inv.now,
        timestamp::local_midnight(inv.now),
    );
    if end != 0 && start > end {
        let clock = common::clock(inv);
        inv.error(&format!(
            "Start time ({}) requested is after end time ({}).",
            clock.time_str(Some(start), 32),
            clock.time_str(Some(end), 32)
        ));
        return Err(Exit(1));
    }
    if p.verbose > 0 {
        let states = match &p.states {
            Some(s) if !s.is_empty() => s
                .iter()
                .map(|s| s.complete_name())
                .collect::<Vec<_>>()
                .join(","),
            _ => "Eligible".to_string(),
        };
        let start_text = if start == 0 {
            "Epoch 0".to_string()
        } else {
            timestamp::date_line(start)
        };
        let end_text = timestamp::date_line(end);
        if start_text != end_text {
            common::info(
                inv,
                &format!("Jobs {states} in the time window from {start_text} to {end_text}"),
            );
        } else {
            common::info(
                inv,
                &format!("Jobs {states} at the time instant {start_text}"),
            );
        }
    }
    if p.completion {
        common::raw_err(inv, "Slurm job completion is disabled");
        return Err(Exit(1));
    }

    // With jobs or nodes named, every user's jobs are candidates; root sees all.
    if p.users.as_ref().is_none_or(|u| u.is_empty()) && (has_jobs || p.cond.nodes.is_some()) {
        p.all_users = true;
    }
    if p.users.is_none() && inv.user.uid == 0 {
        p.all_users = true;
    }
    p.cond.users = if p.all_users {
        None
    } else {
        Some(p.users.clone().unwrap_or_else(|| vec![inv.user.uid]))
    };
    p.cond.start = start;
    // slurmdbd's window is [S,E): it widens E by a second when E == S (to include S) and
    // when E is the current second (`slurmdb_job_cond_def_start_end`).
    p.cond.end = if end == start || end == inv.now {
        end.saturating_add(1)
    } else {
        end
    };
    p.cond.states = p.states.clone().filter(|s| !s.is_empty());
    p.cond.jobs = if has_jobs { Some(jobs) } else { None };
    p.cond.clusters = p.clusters.condition();

    if !parsed.operands.is_empty() {
        inv.error("Unknown arguments:");
        for a in &parsed.operands {
            inv.error(&format!(" {a}"));
        }
        return Err(Exit(1));
    }
    Ok(())
}

/// The columns: brief, long, `-o`, SACCT_FORMAT or the default, in Slurm's precedence.
fn columns(inv: &mut Invocation, p: &Params) -> Result<Vec<spec::Column>, i32> {
    let mut list = p.field_list.clone().unwrap_or_default();
    if p.brief {
        list.push_str(spec::BRIEF_FIELDS);
        list.push(',');
    }
    if p.long_output {
        list.push_str(spec::LONG_FIELDS);
        list.push(',');
    }
    if p.field_list.is_none() && !p.brief && !p.long_output {
        let base = inv
            .var("SACCT_FORMAT")
            .map_or_else(|| spec::DEFAULT_FIELDS.to_string(), String::from);
        list.push_str(&base);
        list.push(',');
    }
    match spec::parse_in(&list, inv.profile.sacct) {
        Ok(cols) => Ok(cols),
        Err(SpecError::Invalid(msg)) => {
            inv.error(&msg);
            Err(1)
        }
        Err(SpecError::Fatal(msg)) => Err(common::fatal(inv, &msg)),
    }
}

/// `-B` / `--env-vars`: we keep neither scripts nor environments, as a Slurm database
/// without `AccountingStoreFlags=job_script,job_env` does not; Slurm then prints `NONE`.
fn scripts(records: &[crate::model::JobRecord], opts: &Options, script: bool) -> String {
    let mut text = String::new();
    for job in select::selected(records, &opts.cond) {
        let id = fmt::fields::job_id_text(job);
        let dashes = "-".repeat(80);
        if script {
            text.push_str(&format!("Batch Script for {id}\n{dashes}\nNONE\n\n"));
        } else {
            text.push_str(&format!(
                "Environment used for {id} (must be batch to display)\n{dashes}\nNONE\n\n"
            ));
        }
    }
    text
}

fn extend(list: &mut Option<Vec<String>>, arg: &str) {
    let l = list.get_or_insert_with(Vec::new);
    for item in parse_char_list(arg) {
        let item = item.to_lowercase();
        if !l.contains(&item) {
            l.push(item);
        }
    }
}

/// `slurm_parse_char_list`: comma-separated, an opening quote ends the list at its match.
fn parse_char_list(s: &str) -> Vec<String> {
    let (body, quote) = match s.chars().next() {
        Some(q @ ('"' | '\'')) => (&s[1..], Some(q)),
        _ => (s, None),
    };
    let body = match quote.and_then(|q| body.find(q)) {
        Some(end) => &body[..end],
        None => body,
    };
    body.split(',')
        .filter(|t| !t.is_empty())
        .map(|t| t.replace(['"', '\''], "`"))
        .collect()
}

/// `-j`: `job[_task][.step]`; anything not starting with a digit is fatal.
fn step_selector(inv: &mut Invocation, item: &str) -> Result<Selected, Exit> {
    if !item.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(Exit(common::fatal(
            inv,
            &format!("Bad job/step specified: {item}"),
        )));
    }
    let (job_part, step) = match item.split_once('.') {
        None => (item, None),
        Some((j, s)) => {
            let step = match s {
                "batch" => StepId::Batch,
                "extern" => StepId::Extern,
                "interactive" => StepId::Interactive,
                n if n.starts_with(|c: char| c.is_ascii_digit()) => {
                    StepId::Numbered(atoi(n.as_bytes()) as u32)
                }
                _ => {
                    return Err(Exit(common::fatal(
                        inv,
                        &format!("Bad step specified: {j}"),
                    )));
                }
            };
            (j, Some(step))
        }
    };
    // A hetjob offset must be a number; no job here is part of a hetjob, so it is read
    // and dropped.
    let job_part = match job_part.split_once('+') {
        None => job_part,
        Some((j, off)) => {
            if !off.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(Exit(common::fatal(
                    inv,
                    &format!("Bad hetjob offset specified: {j}"),
                )));
            }
            j
        }
    };
    let (id, task) = match job_part.split_once('_') {
        None => (job_part, None),
        Some((id, t)) => {
            if !t.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(Exit(common::fatal(
                    inv,
                    &format!("Bad job array element specified: {id}"),
                )));
            }
            (id, Some(atoi(t.as_bytes()) as u32))
        }
    };
    Ok(Selected {
        job_id: atoi(id.as_bytes()) as u32,
        task,
        step,
    })
}

fn time_arg(inv: &mut Invocation, spec: &str) -> Result<i64, Exit> {
    match parse_time(spec, inv.now, true) {
        Ok(t) => Ok(t),
        Err(e) => {
            common::raw_err(inv, &e.to_string());
            Err(Exit(1))
        }
    }
}

fn resolve_group(inv: &Invocation, g: &str) -> Option<u32> {
    if let Ok(n) = g.parse::<u32>() {
        return Some(n);
    }
    let _ = inv;
    nix::unistd::Group::from_name(g)
        .ok()
        .flatten()
        .map(|gr| gr.gid.as_raw())
}

/// `get_resource_arg_range`: `N` or `N-M`.
fn range(s: &str) -> Option<(u32, u32)> {
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (a, b),
        None => (s, s),
    };
    let a: u32 = a.trim().parse().ok()?;
    let b: u32 = if b.trim().is_empty() {
        u32::MAX
    } else {
        b.trim().parse().ok()?
    };
    (a <= b).then_some((a, b))
}

/// `get_unit_type`: the first letter of `--units`.
fn unit(s: &str) -> Option<Unit> {
    match s.chars().next()?.to_ascii_uppercase() {
        'K' => Some(Unit::Kilo),
        'M' => Some(Unit::Mega),
        'G' => Some(Unit::Giga),
        'T' => Some(Unit::Tera),
        'P' => Some(Unit::Peta),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Clusters;

    fn condition(args: &[&str]) -> Option<Vec<String>> {
        let mut c = Clusters::default();
        for a in args {
            match *a {
                "-L" => c.all = true,
                "--local" => c.all = false,
                m => c.named(m),
            }
        }
        c.condition()
    }

    #[test]
    fn clusters_all_and_lists() {
        // snakemake-executor-plugin-slurm's status query: `--clusters all`.
        assert_eq!(condition(&["all"]), None);
        assert_eq!(condition(&["ALL"]), None);
        assert_eq!(condition(&["-1"]), None);
        assert_eq!(condition(&[]), None);
        assert_eq!(
            condition(&["Testcluster,other"]),
            Some(vec!["testcluster".to_string(), "other".to_string()])
        );
        // Names add up; a later `all` or -L wins, a later name undoes `all` but keeps
        // the names given before it.
        assert_eq!(
            condition(&["a", "b,a"]),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert_eq!(condition(&["a", "all"]), None);
        assert_eq!(condition(&["a", "-L"]), None);
        assert_eq!(
            condition(&["a", "all", "b"]),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(condition(&["-L", "--local"]), None);
        assert_eq!(condition(&["a", "-L", "--local"]), Some(vec!["a".into()]));
    }

    // What the real Slurm 22.05.8's sacct printed for each.
    use crate::commands::testkit::{Fake, pending, run};

    #[test]
    fn time_limits_are_read_as_time_str2mins_reads_them() {
        let fake = Fake::default();
        let fatal = "sacct: fatal: Invalid time limit specification\n";
        for ok in ["10", "UNLIMITED", "1-0", "5-"] {
            let p = run(&fake, &[b"sacct", b"-n", b"-k", ok.as_bytes()]);
            assert_ne!(p.err(), fatal, "-k {ok}");
        }
        // 0, minus 3 days, and 30000 days (2.6e9 seconds wrap a 32-bit int negative).
        for bad in ["0", "-3", "30000-0", "x"] {
            let p = run(&fake, &[b"sacct", b"-K", bad.as_bytes()]);
            assert_eq!((p.err(), p.rc), (fatal.into(), 1), "-K {bad}");
        }
    }

    #[test]
    fn bad_job_ids_are_echoed_byte_for_byte() {
        let fake = Fake::default();
        for id in [
            &b"\xff"[..],
            b"\xff\xfe",
            "日本".as_bytes(),
            b"Job=999999_\xff",
        ] {
            let p = run(&fake, &[b"sacct", b"-j", id]);
            let want = [&b"sacct: fatal: Bad job/step specified: "[..], id, b"\n"].concat();
            assert_eq!((p.err, p.rc), (want, 1));
        }
        for id in ["999999_\u{ff}", "999999_日本"] {
            let p = run(&fake, &[b"sacct", b"-j", id.as_bytes()]);
            assert_eq!(
                (p.err(), p.rc),
                (
                    "sacct: fatal: Bad job array element specified: 999999\n".into(),
                    1
                )
            );
        }
        for id in ["999999+", "999999++1", "999999+[1-2]", "999999+-1"] {
            let p = run(&fake, &[b"sacct", b"-j", id.as_bytes()]);
            assert_eq!(
                (p.err(), p.rc),
                (
                    "sacct: fatal: Bad hetjob offset specified: 999999\n".into(),
                    1
                )
            );
        }
    }

    #[test]
    fn job_zero_filters_nothing() {
        let mut job = pending(7, "seven");
        job.state = crate::model::JobState::Completed;
        job.start_time = Some(super::super::testkit::NOW - 30);
        job.end_time = Some(super::super::testkit::NOW - 10);
        job.eligible_time = Some(super::super::testkit::NOW - 60);
        let fake = Fake::with_jobs(vec![job]);
        for id in ["", "0", "4294967296", "0_3", "0.batch"] {
            let p = run(
                &fake,
                &[
                    b"sacct",
                    b"-X",
                    b"-n",
                    b"-o",
                    b"jobid",
                    b"-j",
                    id.as_bytes(),
                ],
            );
            assert_eq!(
                (String::from_utf8_lossy(&p.out).trim(), p.rc),
                ("7", 0),
                "{id:?}"
            );
        }
        let p = run(
            &fake,
            &[b"sacct", b"-X", b"-n", b"-o", b"jobid", b"-j", b"0,999999"],
        );
        assert_eq!((p.out, p.rc), (Vec::new(), 0));
    }
}
