//! scancel: cancel or signal jobs by id or by filters (src/scancel in Slurm 22.05).

use crate::backend::{BackendError, Cluster, SignalRequest, SlurmErrno};
use crate::cli::Invocation;
use crate::model::{ArrayPart, JobRecord, JobSelector, JobState, TaskSelector};
use crate::options::getopt::{self, HasArg, Spec};

const HELP: &str = include_str!("text/scancel_help.txt");
const USAGE: &str = include_str!("text/scancel_usage.txt");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum O {
    Account,
    Batch,
    Ctld,
    Full,
    Help,
    Hurry,
    Interactive,
    Clusters,
    Name,
    Me,
    Nodelist,
    Partition,
    Qos,
    Quiet,
    Reservation,
    Sibling,
    Signal,
    State,
    Usage,
    User,
    Verbose,
    Version,
    Wckey,
}

const fn spec(long: &'static str, short: Option<char>, has_arg: HasArg, id: O) -> Spec<O> {
    Spec {
        long: Some(long),
        short,
        has_arg,
        id,
    }
}

const SPECS: &[Spec<O>] = &[
    spec("account", Some('A'), HasArg::Required, O::Account),
    spec("batch", Some('b'), HasArg::No, O::Batch),
    spec("ctld", None, HasArg::No, O::Ctld),
    spec("full", Some('f'), HasArg::No, O::Full),
    spec("help", None, HasArg::No, O::Help),
    spec("hurry", Some('H'), HasArg::No, O::Hurry),
    spec("interactive", Some('i'), HasArg::No, O::Interactive),
    spec("cluster", None, HasArg::Required, O::Clusters),
    spec("clusters", Some('M'), HasArg::Required, O::Clusters),
    spec("jobname", None, HasArg::Required, O::Name),
    spec("me", None, HasArg::No, O::Me),
    spec("name", Some('n'), HasArg::Required, O::Name),
    spec("nodelist", Some('w'), HasArg::Required, O::Nodelist),
    spec("partition", Some('p'), HasArg::Required, O::Partition),
    spec("qos", Some('q'), HasArg::Required, O::Qos),
    spec("quiet", Some('Q'), HasArg::No, O::Quiet),
    spec("reservation", Some('R'), HasArg::Required, O::Reservation),
    spec("sibling", None, HasArg::Required, O::Sibling),
    spec("signal", Some('s'), HasArg::Required, O::Signal),
    spec("state", Some('t'), HasArg::Required, O::State),
    spec("usage", None, HasArg::No, O::Usage),
    spec("user", Some('u'), HasArg::Required, O::User),
    spec("verbose", Some('v'), HasArg::No, O::Verbose),
    spec("version", Some('V'), HasArg::No, O::Version),
    spec("wckey", None, HasArg::Required, O::Wckey),
];

#[derive(Default)]
struct Opts {
    account: Option<String>,
    batch: bool,
    full: bool,
    interactive: bool,
    name: Option<String>,
    nodelist: Option<String>,
    partition: Option<String>,
    qos: Option<String>,
    reservation: Option<String>,
    signal: Option<i32>,
    state: Option<JobState>,
    user: Option<String>,
    verbose: i32,
    wckey: Option<String>,
    clusters: Option<String>,
}

impl Opts {
    fn has_filters(&self) -> bool {
        self.account.is_some()
            || self.name.is_some()
            || self.nodelist.is_some()
            || self.partition.is_some()
            || self.qos.is_some()
            || self.reservation.is_some()
            || self.state.is_some()
            || self.user.is_some()
            || self.wckey.is_some()
    }
}

/// `-t`/SCANCEL_STATE: only pending, running and suspended jobs can be cancelled.
fn state_arg(inv: &mut Invocation<'_>, value: &str, from_env: bool) -> Result<JobState, i32> {
    if let Some(s) = JobState::parse(value) {
        return Ok(s);
    }
    let what = if from_env {
        "Unrecognized SCANCEL_STATE value"
    } else {
        "Invalid job state specified"
    };
    let _ = writeln!(inv.err, "{what}: {value}");
    let _ = writeln!(
        inv.err,
        "Valid job states are PENDING, RUNNING, and SUSPENDED"
    );
    Err(1)
}

fn signal_arg(inv: &mut Invocation<'_>, value: &str) -> Result<i32, i32> {
    match crate::options::values::signal::sig_name2num(value) {
        0 => {
            let _ = writeln!(inv.err, "Unknown job signal: {value}");
            Err(1)
        }
        n => Ok(n),
    }
}

/// Reads SCANCEL_* (the command line, processed after, wins).
fn from_env(inv: &mut Invocation<'_>, o: &mut Opts) -> Result<(), i32> {
    let get = |inv: &Invocation<'_>, k: &str| inv.var(k).map(str::to_string);
    if let Some(v) = get(inv, "SCANCEL_ACCOUNT") {
        o.account = Some(v.to_lowercase());
    }
    if let Some(v) = get(inv, "SCANCEL_BATCH") {
        o.batch = v.eq_ignore_ascii_case("true");
    }
    if let Some(v) = get(inv, "SCANCEL_FULL") {
        o.full = v.eq_ignore_ascii_case("true");
    }
    if let Some(v) = get(inv, "SCANCEL_INTERACTIVE") {
        o.interactive = v.eq_ignore_ascii_case("true");
    }
    if let Some(v) = get(inv, "SCANCEL_NAME") {
        o.name = Some(v);
    }
    if let Some(v) = get(inv, "SCANCEL_PARTITION") {
        o.partition = Some(v);
    }
    if let Some(v) = get(inv, "SCANCEL_QOS") {
        o.qos = Some(v.to_lowercase());
    }
    if let Some(v) = get(inv, "SCANCEL_STATE") {
        o.state = Some(state_arg(inv, &v, true)?);
    }
    if let Some(v) = get(inv, "SCANCEL_USER") {
        o.user = Some(v);
    }
    if get(inv, "SCANCEL_VERBOSE").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        o.verbose = 1;
    }
    if let Some(v) = get(inv, "SCANCEL_WCKEY") {
        o.wckey = Some(v);
    }
    Ok(())
}

/// Splits `12,13_[1-3],14.0` style arguments into selectors (`_xlate_job_step_ids`).
fn job_args(
    inv: &mut Invocation<'_>,
    operands: &[String],
) -> Result<Vec<(String, JobSelector)>, i32> {
    let mut out = Vec::new();
    for arg in operands {
        let mut rest = arg.as_str();
        while !rest.is_empty() {
            // A comma outside brackets separates ids; inside `_[...]` it separates tasks.
            let mut depth = 0;
            let mut end = rest.len();
            for (i, c) in rest.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    ',' if depth == 0 => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            let item = &rest[..end];
            match JobSelector::parse(item) {
                Some(sel) => out.push((item.to_string(), sel)),
                None => {
                    inv.error(&format!("Invalid job id {arg}"));
                    return Err(1);
                }
            }
            rest = rest.get(end + 1..).unwrap_or("");
        }
    }
    Ok(out)
}

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    let mut o = Opts::default();
    if let Err(code) = from_env(inv, &mut o) {
        return code;
    }
    let args = inv.args.clone();
    let (found, operands) = match getopt::parse_permuted(&args, SPECS) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(inv.err, "scancel: {}", e.0);
            let _ = writeln!(inv.err, "Try \"scancel --help\" for more information");
            return 1;
        }
    };
    let mut me = false;
    for f in found {
        let v = f.value.clone().unwrap_or_default();
        match f.id {
            O::Account => o.account = Some(v.to_lowercase()),
            O::Batch => o.batch = true,
            O::Ctld | O::Hurry | O::Sibling => {}
            O::Full => o.full = true,
            O::Help => {
                let _ = inv.out.write_all(HELP.as_bytes());
                return 0;
            }
            O::Usage => {
                let _ = inv.out.write_all(USAGE.as_bytes());
                return 0;
            }
            O::Version => {
                let _ = writeln!(inv.out, "{}", super::SLURM_VERSION_LINE);
                return 0;
            }
            O::Interactive => o.interactive = true,
            O::Clusters => o.clusters = Some(v),
            O::Name => o.name = Some(v),
            O::Me => me = true,
            O::Nodelist => o.nodelist = Some(v),
            O::Partition => o.partition = Some(v),
            O::Qos => o.qos = Some(v.to_lowercase()),
            O::Quiet => o.verbose = -1,
            O::Reservation => o.reservation = Some(v),
            O::Signal => match signal_arg(inv, &v) {
                Ok(s) => o.signal = Some(s),
                Err(c) => return c,
            },
            O::State => match state_arg(inv, &v, false) {
                Ok(s) => o.state = Some(s),
                Err(c) => return c,
            },
            O::User => o.user = Some(v),
            O::Verbose => o.verbose += 1,
            O::Wckey => o.wckey = Some(v),
        }
    }
    if me {
        o.user = Some(inv.user.uid.to_string());
    }
    if let Some(c) = &o.clusters
        && !c
            .split(',')
            .any(|c| c == cluster.cluster_name() || c == "all")
    {
        inv.error(&format!("No cluster '{c}' known by database."));
        return 1;
    }
    let ids = match job_args(inv, &operands) {
        Ok(ids) => ids,
        Err(c) => return c,
    };
    let user_id = match &o.user {
        Some(u) => match crate::sys::lookup_user(u) {
            Some(info) => Some(info.uid),
            None => {
                inv.error(&format!("Invalid user name: {u}"));
                return 1;
            }
        },
        None => None,
    };
    if ids.is_empty() && !o.has_filters() {
        inv.error("No job identification provided");
        return 1;
    }
    let req = SignalRequest {
        signal: o.signal,
        batch_only: o.batch,
        full: o.full,
        requester: inv.user.uid,
    };
    if !o.has_filters() && !o.interactive {
        let mut rc = 0;
        for (text, sel) in &ids {
            rc = rc.max(signal_one(inv, cluster, text, sel, &req, o.verbose));
        }
        return rc;
    }
    signal_filtered(inv, cluster, &o, user_id, &ids, &req)
}

/// The errno value scancel exits with when the controller refuses.
fn errno_of(e: &BackendError) -> i32 {
    match e {
        BackendError::Slurm(e) => e.number(),
        // SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR
        BackendError::Unreachable(_) => 1800,
        BackendError::Other(_) => 1,
    }
}

/// Signals one job id as `_cancel_job_id` does; returns the exit status it contributes.
fn signal_one(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    text: &str,
    sel: &JobSelector,
    req: &SignalRequest,
    verbose: i32,
) -> i32 {
    if verbose > 0 {
        let msg = match req.signal {
            None => format!("Terminating job {text}"),
            Some(s) => format!("Signal {s} to job {text}"),
        };
        let _ = writeln!(inv.err, "scancel: {msg}");
    }
    match cluster.signal(sel, req) {
        Ok(()) => 0,
        Err(e) => {
            let quiet_kinds = matches!(
                e,
                BackendError::Slurm(SlurmErrno::InvalidJobId | SlurmErrno::AlreadyDone)
            );
            if verbose > 0 || !quiet_kinds {
                inv.error(&format!("Kill job error on job id {text}: {e}"));
            }
            if quiet_kinds && matches!(req.signal, None | Some(libc::SIGKILL)) {
                0
            } else {
                errno_of(&e) & 0xff
            }
        }
    }
}

/// The id a job record is signalled by: `12`, `13_4`, `13_[1-3]`.
fn record_id(job: &JobRecord) -> (String, JobSelector) {
    match &job.array {
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            ..
        }) => (
            format!("{array_job_id}_[{}]", crate::model::array::ranges(tasks)),
            JobSelector {
                job_id: *array_job_id,
                tasks: TaskSelector::Tasks(tasks.clone()),
                step: None,
            },
        ),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (
            format!("{array_job_id}_{task_id}"),
            JobSelector {
                job_id: *array_job_id,
                tasks: TaskSelector::Tasks(vec![*task_id]),
                step: None,
            },
        ),
        None => (
            job.job_id.to_string(),
            JobSelector {
                job_id: job.job_id,
                tasks: TaskSelector::Whole,
                step: None,
            },
        ),
    }
}

/// The filter path: load the jobs, keep those matching every filter (`_filter_job_records`).
fn signal_filtered(
    inv: &mut Invocation<'_>,
    cluster: &dyn Cluster,
    o: &Opts,
    user_id: Option<u32>,
    ids: &[(String, JobSelector)],
    req: &SignalRequest,
) -> i32 {
    let jobs = match cluster.jobs() {
        Ok(j) => j,
        Err(e) => {
            let _ = writeln!(inv.err, "slurm_load_jobs error: {e}");
            return 1;
        }
    };
    let nodes_wanted = o
        .nodelist
        .as_deref()
        .and_then(crate::model::hostlist::expand);
    let matches: Vec<&JobRecord> = jobs
        .iter()
        .filter(|j| {
            matches!(
                j.state,
                JobState::Pending | JobState::Running | JobState::Suspended
            )
        })
        .filter(|j| {
            o.account
                .as_ref()
                .is_none_or(|a| j.account.as_deref() == Some(a.as_str()))
        })
        .filter(|j| o.name.as_ref().is_none_or(|n| &j.name == n))
        .filter(|j| o.partition.as_ref().is_none_or(|p| &j.partition == p))
        .filter(|j| {
            o.qos
                .as_ref()
                .is_none_or(|q| j.qos.as_deref() == Some(q.as_str()))
        })
        .filter(|_| o.reservation.is_none())
        .filter(|j| o.state.is_none_or(|s| j.state == s))
        .filter(|j| user_id.is_none_or(|u| j.uid == u))
        .filter(|j| {
            nodes_wanted.as_ref().is_none_or(|want| {
                j.nodes
                    .as_deref()
                    .and_then(crate::model::hostlist::expand)
                    .is_some_and(|have| have.iter().any(|h| want.contains(h)))
            })
        })
        .filter(|_| o.wckey.is_none())
        .filter(|j| ids.is_empty() || ids.iter().any(|(_, s)| s.matches(j)))
        .collect();
    let mut rc = 0;
    for (text, sel) in ids {
        if !matches.iter().any(|j| sel.matches(j)) {
            rc = 1;
            if o.verbose >= 0 {
                inv.error(&format!(
                    "Kill job error on job id {text}: {}",
                    SlurmErrno::InvalidJobId.text()
                ));
            }
        }
    }
    if matches.is_empty() && o.verbose > 0 {
        let mut filters = String::new();
        for (k, v) in [
            ("account", &o.account),
            ("job_name", &o.name),
            ("nodelist", &o.nodelist),
            ("partition", &o.partition),
            ("qos", &o.qos),
            ("reservation", &o.reservation),
        ] {
            if let Some(v) = v {
                filters.push_str(&format!("{k}={v} "));
            }
        }
        if let Some(s) = o.state {
            filters.push_str(&format!("state={} ", s.long()));
        }
        if let Some(u) = &o.user {
            filters.push_str(&format!("user_name={u} "));
        }
        if !filters.is_empty() {
            inv.error(&format!(
                "No active jobs match ALL job filters, including: {filters}"
            ));
        }
    }
    let targets: Vec<(String, JobSelector)> = matches.iter().map(|j| record_id(j)).collect();
    for (text, sel) in targets {
        rc = rc.max(signal_one(inv, cluster, &text, &sel, req, o.verbose));
    }
    rc
}
