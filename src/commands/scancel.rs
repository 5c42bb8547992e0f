//! scancel: cancel or signal jobs by id or by filters (src/scancel in Slurm 22.05).

use crate::backend::{BackendError, Cluster, SignalRequest, SlurmErrno};
use crate::cli::Invocation;
use crate::model::{ArrayPart, JobRecord, JobSelector, JobState, StepId, TaskSelector};
use crate::options::getopt::{self, Event};
use crate::options::query::scancel::{
    LONG, OPT_CTLD, OPT_HELP, OPT_ME, OPT_SIBLING, OPT_USAGE, OPT_WCKEY, SHORT,
};

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

/// At most this many ids are read (`buf_size` in `_xlate_job_step_ids`).
const MAX_IDS: usize = 0xffff;

/// `_xlate_job_step_ids`: each argument is `job[_task|_*|_[tasks]|+offset][.step]`, read
/// with `strtol` (a job that is not positive is refused; its low 32 bits are kept, as C's
/// `uint32_t` keeps them); a `,` after an id starts the next one. A hetjob offset is read
/// and dropped, as 22.05 does. Returns each id as Slurm prints it, with its selector.
fn job_args(
    inv: &mut Invocation<'_>,
    operands: &[String],
) -> Result<Vec<(String, JobSelector)>, i32> {
    use crate::model::cnum::strtol;
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<String> = operands.iter().cloned().collect();
    while let Some(arg) = queue.pop_front() {
        if out.len() >= MAX_IDS {
            break;
        }
        let invalid = |inv: &mut Invocation<'_>| {
            inv.error(&format!("Invalid job id {arg}"));
            Err(1)
        };
        let (job, used) = strtol(arg.as_bytes()).value_and_end();
        if job <= 0 {
            return invalid(inv);
        }
        let job_id = job as u32;
        let mut rest = &arg[used..];
        let mut tasks = TaskSelector::Whole;
        let mut label = job_id.to_string();
        if let Some(list) = rest.strip_prefix("_[") {
            // A bracketed list of tasks must end the argument; no step goes with it.
            let Some(close) = list.find(']').filter(|&c| c + 1 == list.len()) else {
                return invalid(inv);
            };
            let inner = &list[..close];
            if let Some(bad) = super::common::bad_hostlist_range(inner) {
                inv.error(&format!("_parse_single_range: Invalid range: `{bad}'"));
                return invalid(inv);
            }
            let Some(ids) = crate::model::hostlist::expand(&format!("[{inner}]")) else {
                return invalid(inv);
            };
            // One request for the whole list, named as given (`Terminating job 12_[1-2,4]`).
            let tasks = ids
                .iter()
                .map(|t| strtol(t.as_bytes()).value as u32)
                .collect();
            out.push((
                format!("{job_id}_[{inner}]"),
                JobSelector {
                    job_id,
                    tasks: TaskSelector::Tasks(tasks),
                    step: None,
                },
            ));
            continue;
        } else if let Some(r) = rest.strip_prefix("_*") {
            tasks = TaskSelector::AllTasks;
            label = format!("{job_id}_*");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('_') {
            let (t, u) = strtol(r.as_bytes()).value_and_end();
            if t < 0 {
                return invalid(inv);
            }
            tasks = TaskSelector::Tasks(vec![t as u32]);
            label = format!("{job_id}_{}", t as u32);
            rest = &r[u..];
        } else if let Some(r) = rest.strip_prefix('+') {
            let (t, u) = strtol(r.as_bytes()).value_and_end();
            if t < 0 {
                return invalid(inv);
            }
            rest = &r[u..];
        }
        let mut step = None;
        if let Some(r) = rest.strip_prefix('.') {
            let (n, u) = strtol(r.as_bytes()).value_and_end();
            if n < 0 {
                return invalid(inv);
            }
            step = Some(StepId::Numbered(n as u32));
            label = format!("{label}.{}", n as u32);
            rest = &r[u..];
        }
        out.push((
            label,
            JobSelector {
                job_id,
                tasks,
                step,
            },
        ));
        if let Some(next) = rest.strip_prefix(',') {
            queue.push_front(next.to_string());
        } else if !rest.is_empty() {
            return invalid(inv);
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
    let parsed = getopt::parse("scancel", &args, SHORT, LONG);
    let mut me = false;
    for event in parsed.events {
        let (val, value) = match event {
            Event::Error(line) => {
                let _ = writeln!(inv.err, "{line}");
                let _ = writeln!(inv.err, "Try \"scancel --help\" for more information");
                return 1;
            }
            Event::Opt(val, value) => (val, value),
        };
        let v = value.unwrap_or_default();
        match (val, char::from_u32(val as u32)) {
            (OPT_HELP, _) => {
                let _ = inv
                    .out
                    .write_all(crate::options::texts::help(inv.profile, "scancel").as_bytes());
                return 0;
            }
            (OPT_USAGE, _) => {
                let _ = inv
                    .out
                    .write_all(crate::options::texts::usage(inv.profile, "scancel").as_bytes());
                return 0;
            }
            (OPT_ME, _) => me = true,
            (OPT_WCKEY, _) => o.wckey = Some(v),
            // --ctld and --sibling concern Slurm's RPC routing and federations.
            (OPT_CTLD | OPT_SIBLING, _) => {}
            (_, Some('A')) => o.account = Some(v.to_lowercase()),
            (_, Some('b')) => o.batch = true,
            (_, Some('f')) => o.full = true,
            // --hurry skips burst buffer stage-out; there are no burst buffers.
            (_, Some('H')) => {}
            (_, Some('i')) => o.interactive = true,
            (_, Some('M')) => o.clusters = Some(v),
            (_, Some('n')) => o.name = Some(v),
            (_, Some('w')) => o.nodelist = Some(v),
            (_, Some('p')) => o.partition = Some(v),
            (_, Some('q')) => o.qos = Some(v.to_lowercase()),
            (_, Some('Q')) => o.verbose = -1,
            (_, Some('R')) => o.reservation = Some(v),
            (_, Some('s')) => match signal_arg(inv, &v) {
                Ok(s) => o.signal = Some(s),
                Err(code) => return code,
            },
            (_, Some('t')) => match state_arg(inv, &v, false) {
                Ok(s) => o.state = Some(s),
                Err(code) => return code,
            },
            (_, Some('u')) => o.user = Some(v),
            (_, Some('v')) => o.verbose += 1,
            (_, Some('V')) => {
                super::common::print_version(inv);
                return 0;
            }
            _ => {}
        }
    }
    let operands = parsed.operands;
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
    // `has_default_opt()`: with a signal, -b or -f, scancel loads the jobs first, and an id
    // naming no active job is told so (`_verify_job_ids`).
    if !o.has_filters() && !o.interactive && o.signal.is_none() && !o.batch && !o.full {
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

#[cfg(test)]
mod tests {
    // What the real Slurm 22.05.8's scancel printed for each (no job with these ids).
    use crate::commands::testkit::{Fake, pending, run};
    use crate::model::{JobSelector, TaskSelector};

    fn check(fake: &Fake, id: &[u8], err: &[u8], rc: i32) {
        let p = run(fake, &[b"scancel", id]);
        assert_eq!(
            (String::from_utf8_lossy(&p.err), p.rc),
            (String::from_utf8_lossy(err), rc),
            "{}",
            String::from_utf8_lossy(id)
        );
        assert_eq!(p.err, err);
    }

    #[test]
    fn invalid_ids_are_echoed_byte_for_byte() {
        let fake = Fake::default();
        for id in [
            &b"\xff"[..],
            b"999999\xff",
            b"999999_\xff",
            b"\xff\xfe",
            b"Job=1_\xff",
        ] {
            let want = [&b"scancel: error: Invalid job id "[..], id, b"\n"].concat();
            check(&fake, id, &want, 1);
        }
        for id in ["日本語", "1_日本", "", "999999.batch", "999999_1-3", "-x"] {
            if id == "-x" {
                continue;
            }
            let want = format!("scancel: error: Invalid job id {id}\n");
            check(&fake, id.as_bytes(), want.as_bytes(), 1);
        }
    }

    #[test]
    fn ids_are_read_with_strtol_one_after_another() {
        let fake = Fake::default();
        // The piece after a comma is the next id.
        check(
            &fake,
            "999998,日".as_bytes(),
            "scancel: error: Invalid job id 日\n".as_bytes(),
            1,
        );
        check(
            &fake,
            b"999999,,999998",
            b"scancel: error: Invalid job id ,999998\n",
            1,
        );
        check(&fake, b"999999,", b"scancel: error: Invalid job id \n", 1);
        // Accepted (and, naming no job, silently done): a hetjob offset is dropped, an
        // empty task is task 0, numbers keep their low 32 bits.
        for id in [
            "999999+1",
            "+999999",
            "999999+",
            "999999++1",
            "999999_",
            "4294967296",
            "4294967296_3",
            &"9".repeat(300),
            &format!("999999_{}", "7".repeat(300)),
        ] {
            check(&fake, id.as_bytes(), b"", 0);
        }
        check(
            &fake,
            b"999999_[1-3:2]",
            b"scancel: error: _parse_single_range: Invalid range: `1-3:2'\nscancel: error: Invalid job id 999999_[1-3:2]\n",
            1,
        );
        check(
            &fake,
            b"999999_[]",
            b"scancel: error: _parse_single_range: Invalid range: `'\nscancel: error: Invalid job id 999999_[]\n",
            1,
        );
    }

    #[test]
    fn cancels_what_the_ids_name() {
        let fake = Fake::with_jobs(vec![pending(12, "a")]);
        // A bracketed task list ends its argument.
        let p = run(&fake, &[b"scancel", b"13_[1-2],14"]);
        assert_eq!(
            (p.err(), p.rc),
            ("scancel: error: Invalid job id 13_[1-2],14\n".into(), 1)
        );
        assert!(fake.signalled.borrow().is_empty());
        let p = run(&fake, &[b"scancel", b"12,13_[1-2]", b"14+1,15_*"]);
        assert_eq!((p.err(), p.rc), (String::new(), 0));
        let sel = |job_id, tasks| JobSelector {
            job_id,
            tasks,
            step: None,
        };
        assert_eq!(
            *fake.signalled.borrow(),
            vec![
                sel(12, TaskSelector::Whole),
                // One request for a bracketed list, as 22.05's scancel sends it
                // (`scancel -v` says `Terminating job 13_[1-2]`).
                sel(13, TaskSelector::Tasks(vec![1, 2])),
                sel(14, TaskSelector::Whole),
                sel(15, TaskSelector::AllTasks),
            ]
        );
    }
}
