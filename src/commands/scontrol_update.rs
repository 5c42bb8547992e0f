//! `scontrol update JobId=... <Field>=<value>...`, read as Slurm 22.05's
//! `scontrol_update_job` (src/scontrol/update_job.c) reads it: each word's value is
//! checked here with scontrol's own messages, `TimeLimit+=`/`-=` is resolved against the
//! job's current limit, then each id goes to the backend, whose answer is printed as
//! scontrol prints the controller's.

use crate::backend::JobReply;
use crate::cli::Invocation;
use crate::model::cnum::{strncasecmp_eq, strtol};
use crate::model::time_limit::{Duration, time_str2mins};
use crate::model::{ArrayPart, JobRecord, JobUpdate, MemoryRequest, TimeLimit};

/// Slurm's NO_VAL, INFINITE and NICE_OFFSET.
const NO_VAL: u32 = 0xffff_fffe;
const INFINITE: u32 = 0xffff_ffff;
const NICE_OFFSET: i64 = 0x8000_0000;

/// What the words asked for, once scontrol accepted them.
pub struct Request {
    pub job_id_str: Option<String>,
    pub name: Option<String>,
    pub uid: Option<u32>,
    /// `NumNodes=` or `NodeList=` was given: only one job may be named.
    pub update_size: bool,
    pub change: JobUpdate,
}

/// scontrol stopped before asking the controller (its messages are printed), with this
/// exit status.
pub struct Stop(pub i32);

/// `parse_uint{16,32,64}`: `strtoll`, the whole word, `0 <= v < max` (NO_VAL).
fn parse_uint(s: &str, max: i64) -> Option<i64> {
    let p = strtol(s.as_bytes());
    let (v, end) = p.value_and_end();
    (end == s.len() && v != i64::MIN && v != i64::MAX && (0..max).contains(&v)).then_some(v)
}

/// `get_resource_arg_range`: `min[-max]` with `k`/`m` suffixes; `*` or nothing is
/// "any". The error is scontrol's line (without the `scontrol: error: ` prefix).
fn resource_range(arg: &str, what: &str) -> Result<(i64, Option<i64>), String> {
    if arg.is_empty() || arg.starts_with('*') {
        return Ok((1, Some(i64::from(i32::MAX))));
    }
    let b = arg.as_bytes();
    let number = |at: usize| -> (i64, usize) {
        let (mut v, used) = strtol(&b[at..]).value_and_end();
        let mut end = at + used;
        match b.get(end) {
            Some(b'k' | b'K') => {
                v = v.saturating_mul(1024);
                end += 1;
            }
            Some(b'm' | b'M') => {
                v = v.saturating_mul(1_048_576);
                end += 1;
            }
            _ => {}
        }
        (v, end)
    };
    let invalid = || format!("Invalid numeric value \"{arg}\" for {what}.");
    let (min, end) = number(0);
    if !matches!(b.get(end), None | Some(b'-')) || min < 0 {
        return Err(invalid());
    }
    if min > i64::from(i32::MAX) {
        return Err(format!("Numeric argument ({min}) to big for {what}."));
    }
    if end == b.len() {
        return Ok((min, None));
    }
    let (max, end2) = number(end + 1);
    if !matches!(b.get(end2), None | Some(b'-')) || max <= 0 {
        return Err(invalid());
    }
    if max > i64::from(i32::MAX) {
        return Err(format!("Numeric argument ({max}) to big for {what}."));
    }
    Ok((min, Some(max)))
}

/// A limit as the controller holds it in minutes (INFINITE for none).
fn minutes(limit: TimeLimit) -> u32 {
    match limit {
        TimeLimit::Infinite => INFINITE,
        TimeLimit::Minutes(m) => m,
    }
}

fn limit_of(m: u32) -> TimeLimit {
    if m == INFINITE {
        TimeLimit::Infinite
    } else {
        TimeLimit::Minutes(m)
    }
}

/// `_get_job_time`: the current limit of the job `id` names (`N` or `N_T`); None after
/// printing why not.
fn current_time(inv: &mut Invocation<'_>, jobs: &[JobRecord], id: &str) -> Option<u32> {
    let (job, used) = strtol(id.as_bytes()).value_and_end();
    let rest = &id[used..];
    let task = match rest.strip_prefix('_') {
        Some(t) => {
            let (task, tused) = strtol(t.as_bytes()).value_and_end();
            if tused != t.len() {
                inv.error(&format!("Invalid job ID {id}"));
                return None;
            }
            Some(task as u32)
        }
        None if rest.is_empty() => None,
        None => {
            inv.error(&format!("Invalid job ID {id}"));
            return None;
        }
    };
    let job = job as u32;
    // slurm_load_job(job): the job, or every record of the array it names.
    let records: Vec<&JobRecord> = jobs
        .iter()
        .filter(|j| j.job_id == job || j.array.as_ref().is_some_and(|a| a.array_job_id() == job))
        .collect();
    if records.is_empty() {
        inv.error(&format!(
            "Could not load state information for job {id}: Invalid job id specified"
        ));
        return None;
    }
    if records.len() > 1 && task.is_none() {
        inv.error("TimeLimit increment/decrement not supported for job arrays");
        return None;
    }
    let found = records.iter().find(|j| match (&j.array, task) {
        (None, _) => j.job_id == job,
        (Some(a), _) if a.array_job_id() != job => false,
        (_, None) => true,
        (Some(ArrayPart::Task { task_id, .. }), Some(t)) => *task_id == t,
        (Some(ArrayPart::Pending { tasks, .. }), Some(t)) => tasks.contains(&t),
    });
    // No record of that task: the controller's NO_VAL, which scontrol stops at silently.
    found.map(|j| minutes(j.time_limit))
}

/// `_is_single_job`: a resize names one job, not an array.
pub fn is_single_job(inv: &mut Invocation<'_>, jobs: &[JobRecord], id: &str) -> bool {
    let (job, used) = strtol(id.as_bytes()).value_and_end();
    let rest = &id[used..];
    let task = match rest.strip_prefix('_') {
        Some(t) => {
            if strtol(t.as_bytes()).value_and_end().1 != t.len() {
                inv.error(&format!("Invalid job ID {id}"));
                return false;
            }
            true
        }
        None if rest.is_empty() => false,
        None => {
            inv.error(&format!("Invalid job ID {id}"));
            return false;
        }
    };
    let job = job as u32;
    let count = jobs
        .iter()
        .filter(|j| j.job_id == job || j.array.as_ref().is_some_and(|a| a.array_job_id() == job))
        .count();
    if count == 0 {
        inv.error(&format!(
            "Could not load state information for job {id}: Invalid job id specified"
        ));
        return false;
    }
    if count > 1 && !task {
        inv.error("Job resizing not supported for job arrays");
        return false;
    }
    true
}

/// `_job_name2id`: the ids of the named jobs (`N`, or `A_T` for array tasks), joined
/// by commas.
pub fn name_to_ids(
    inv: &mut Invocation<'_>,
    jobs: &[JobRecord],
    name: &str,
    uid: Option<u32>,
) -> Option<String> {
    if jobs.is_empty() {
        inv.error(&format!("JobName {name} not found"));
        return None;
    }
    let ids: Vec<String> = jobs
        .iter()
        .filter(|j| uid.is_none_or(|u| u == j.uid) && j.name == name)
        .map(|j| match &j.array {
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }) => format!("{array_job_id}_{task_id}"),
            _ => j.job_id.to_string(),
        })
        .collect();
    if ids.is_empty() {
        match uid {
            None => inv.error(&format!("No jobs with name '{name}'")),
            Some(u) => inv.error(&format!("No jobs with user ID {u} and name '{name}'")),
        }
        return None;
    }
    Some(ids.join(","))
}

/// Reads the words of `scontrol update` (job entity). `jobs` is asked for only when a
/// `+=`/`-=` needs the job's current limit.
pub fn parse(
    inv: &mut Invocation<'_>,
    args: &[String],
    jobs: &mut dyn FnMut() -> Vec<JobRecord>,
) -> Result<Request, Stop> {
    let mut req = Request {
        job_id_str: None,
        name: None,
        uid: None,
        update_size: false,
        change: JobUpdate::default(),
    };
    let mut update_cnt = 0;
    let c = &mut req.change;
    let mut i = 0;
    // `scontrol: error: <msg>`, exit 1, nothing sent.
    macro_rules! fail {
        ($($t:tt)*) => {{
            inv.error(&format!($($t)*));
            return Err(Stop(1));
        }};
    }
    while i < args.len() {
        let arg = args[i].as_str();
        let (tag, taglen, val, mut add): (&str, usize, &str, Option<char>) = match arg.find('=') {
            Some(p) => {
                let prev = if p > 0 { arg.as_bytes()[p - 1] } else { 0 };
                if p > 0 && (prev == b'+' || prev == b'-') {
                    (arg, p - 1, &arg[p + 1..], Some(prev as char))
                } else {
                    (arg, p, &arg[p + 1..], None)
                }
            }
            None if strncasecmp_eq(arg, "Nice", arg.len().max(2)) => {
                c.nice = Some(100);
                update_cnt += 1;
                i += 1;
                continue;
            }
            None if strncasecmp_eq(arg, "ResetAccrueTime", arg.len().max(3)) => {
                c.unmodelled.push(arg.to_string());
                update_cnt += 1;
                i += 1;
                continue;
            }
            None if i + 1 < args.len() => {
                i += 1;
                (arg, arg.len(), args[i].as_str(), None)
            }
            None => {
                let _ = writeln!(inv.err, "Invalid input: {arg}");
                let _ = writeln!(inv.err, "Request aborted");
                return Err(Stop(1));
            }
        };
        i += 1;
        let is = |name: &str, min: usize| strncasecmp_eq(tag, name, taglen.max(min));
        let u32_of = |v: &str| parse_uint(v, i64::from(NO_VAL)).map(|v| v as u32);
        let u16_of = |v: &str| parse_uint(v, 0xfffe).map(|v| v as u32);
        if is("JobId", 3) {
            req.job_id_str = Some(val.to_string());
        } else if is("AdminComment", 6) {
            if add == Some('-') {
                fail!("Invalid syntax, AdminComment can not be subtracted from.");
            }
            add = None;
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("SiteFactor", 5) {
            let v = strtol(val.as_bytes()).value_and_end().0;
            if v.unsigned_abs() > (NICE_OFFSET - 3) as u64 {
                fail!(
                    "SiteFactor value out of range (+/- {}). Value ignored",
                    NICE_OFFSET - 3
                );
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("ArrayTaskThrottle", 10) {
            let v = strtol(val.as_bytes()).value_and_end().0 as i32;
            if v < 0 {
                fail!("Invalid ArrayTaskThrottle value");
            }
            c.array_throttle = Some(v as u32);
            update_cnt += 1;
        } else if is("Comment", 3) {
            c.comment = Some(val.to_string());
            update_cnt += 1;
        } else if is("Clusters", 8) || is("ClusterFeatures", 8) {
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("DelayBoot", 5) {
            if crate::model::time_limit::time_str2secs(val).is_none() {
                fail!("Invalid DelayBoot value");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("TimeLimit", 5) {
            let mut v = val;
            if let Some(sign) = v.chars().next().filter(|c| *c == '+' || *c == '-') {
                if add.is_some() {
                    fail!("Invalid syntax, variations of +=- are not accepted.");
                }
                add = Some(sign);
                v = &v[1..];
            }
            let mut limit = match time_str2mins(v) {
                None => fail!("Invalid TimeLimit value"),
                Some(Duration::Infinite) => INFINITE,
                Some(Duration::Value(m)) => m as u32,
            };
            if let Some(sign) = add.take() {
                let Some(id) = req.job_id_str.clone() else {
                    fail!("JobId must precede TimeLimit increment or decrement");
                };
                let all = jobs();
                let Some(current) = current_time(inv, &all, &id) else {
                    return Err(Stop(1));
                };
                if sign == '+' {
                    limit = limit.wrapping_add(current);
                } else if limit > current {
                    fail!(
                        "TimeLimit decrement larger than current time limit ({limit} > {current})"
                    );
                } else {
                    limit = current - limit;
                }
            }
            c.time_limit = Some(limit_of(limit));
            update_cnt += 1;
        } else if is("TimeMin", 5) {
            // time_str2mins() as an int: NO_VAL reads as -2, refused; INFINITE as -1.
            if time_str2mins(val).is_none() {
                fail!("Invalid TimeMin value");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("Priority", 2) {
            match u32_of(val) {
                Some(p) => c.priority = Some(p),
                None => fail!("Invalid Priority value: {val}"),
            }
            update_cnt += 1;
        } else if is("Nice", 2) {
            let v = strtol(val.as_bytes()).value_and_end().0;
            if v.unsigned_abs() > (NICE_OFFSET - 3) as u64 {
                fail!(
                    "Nice value out of range (+/- {}). Value ignored",
                    NICE_OFFSET - 3
                );
            }
            c.nice = Some(v as i32);
            update_cnt += 1;
        } else if is("CPUsPerTask", 9) {
            if u16_of(val).is_none() {
                fail!("Invalid CPUsPerTask value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("CpusPerTres", 9) {
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("NumCPUs", 6) {
            match resource_range(val, "NumCPUs") {
                Ok((min, max)) if min > 0 && max.is_none_or(|m| m >= min) => {
                    c.min_cpus = Some(min as u32);
                    c.max_cpus = max.map(|m| m as u32);
                }
                Ok(_) => fail!("Invalid NumCPUs value: {val}"),
                Err(e) => {
                    inv.error(&e);
                    fail!("Invalid NumCPUs value: {val}");
                }
            }
            update_cnt += 1;
        } else if is("NumTasks", 8) || is("ReqProcs", 8) {
            match u32_of(val) {
                Some(n) => c.num_tasks = Some(n),
                None => fail!("Invalid NumTasks value: {val}"),
            }
            update_cnt += 1;
        } else if is("Requeue", 4) {
            match u16_of(val) {
                Some(n) => c.requeue = Some(n != 0),
                None => fail!("Invalid Requeue value: {val}"),
            }
            update_cnt += 1;
        } else if is("ReqNodes", 8) || is("NumNodes", 8) {
            if val == "0" {
                c.min_nodes = Some(0);
            } else if val.eq_ignore_ascii_case("ALL") {
                c.min_nodes = Some(INFINITE);
            } else {
                match resource_range(val, "requested node count") {
                    Ok((min, max)) => {
                        c.min_nodes = Some(min as u32);
                        c.max_nodes = max.map(|m| m as u32);
                    }
                    Err(e) => {
                        // get_resource_arg_range's `return rc`: scontrol stops, exit 0.
                        inv.error(&e);
                        return Err(Stop(0));
                    }
                }
            }
            req.update_size = true;
            update_cnt += 1;
        } else if is("ReqSockets", 4)
            || is("ReqCores", 4)
            || is("TasksPerNode", 2)
            || is("ReqThreads", 4)
        {
            if u16_of(val).is_none() {
                let name = &tag[..taglen];
                let canonical = ["ReqSockets", "ReqCores", "TasksPerNode", "ReqThreads"]
                    .into_iter()
                    .find(|n| strncasecmp_eq(name, n, name.len()))
                    .unwrap_or(name);
                fail!("Invalid {canonical} value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("MinCPUsNode", 4) {
            match u16_of(val) {
                Some(n) => c.pn_min_cpus = Some(n),
                None => fail!("Invalid MinCPUsNode value: {val}"),
            }
            update_cnt += 1;
        } else if is("MinMemoryNode", 10) {
            match parse_uint(val, i64::MAX) {
                Some(n) => c.memory = Some(MemoryRequest::PerNode(n as u64)),
                None => fail!("Invalid MinMemoryNode value: {val}"),
            }
            update_cnt += 1;
        } else if is("MinMemoryCPU", 10) {
            match parse_uint(val, i64::MAX) {
                Some(n) => c.memory = Some(MemoryRequest::PerCpu(n as u64)),
                None => fail!("Invalid MinMemoryCPU value: {val}"),
            }
            update_cnt += 1;
        } else if is("MinTmpDiskNode", 5) {
            if u32_of(val).is_none() {
                fail!("Invalid MinTmpDiskNode value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("Partition", 2) {
            c.partition = Some(val.to_string());
            update_cnt += 1;
        } else if is("QOS", 2) {
            c.qos = Some(val.to_string());
            update_cnt += 1;
        } else if is("ReservationName", 3) {
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("Name", 2) || is("JobName", 4) {
            c.name = Some(val.to_string());
            req.name = Some(val.to_string());
            update_cnt += 1;
        } else if is("WCKey", 1) {
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if inv.profile.scontrol.update_std_err_and_in && is("StdErr", 6) {
            c.std_err = Some(val.to_string());
            update_cnt += 1;
        } else if inv.profile.scontrol.update_std_err_and_in && is("StdIn", 5) {
            c.std_in = Some(val.to_string());
            update_cnt += 1;
        } else if is("StdOut", 6) {
            c.std_out = Some(val.to_string());
            update_cnt += 1;
        } else if is("Switches", 5) || is("wait-for-switch", 5) {
            if is("wait-for-switch", 5) && u32_of(val).is_none() {
                fail!("Invalid wait-for-switch value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("OverSubscribe", 2) || is("Shared", 2) {
            let yes_no = strncasecmp_eq(val, "YES", val.len().max(1))
                || strncasecmp_eq(val, "NO", val.len().max(1));
            if !yes_no && u16_of(val).is_none() {
                fail!("Invalid OverSubscribe value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("Contiguous", 3) || is("Reboot", 3) {
            let yes_no = strncasecmp_eq(val, "YES", val.len().max(1))
                || strncasecmp_eq(val, "NO", val.len().max(1));
            if !yes_no && u16_of(val).is_none() {
                if is("Contiguous", 3) {
                    fail!("Invalid Contiguous value: {val}");
                }
                fail!("Invalid reboot value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("CoreSpec", 4) || is("ThreadSpec", 4) {
            if val != "-1" && val != "*" && u16_of(val).is_none() {
                if is("CoreSpec", 4) {
                    fail!("Invalid CoreSpec value: {val}");
                }
                fail!("Invalid ThreadSpec value: {val}");
            }
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else if is("MemPerTres", 5)
            || is("TresBind", 5)
            || is("TresFreq", 5)
            || is("TresPerJob", 8)
            || is("TresPerNode", 8)
            || is("TresPerSocket", 8)
            || is("TresPerTask", 8)
            || is("ExcNodeList", 3)
            || is("Features", 1)
            || is("Prefer", 3)
            || is("Account", 1)
            || is("BurstBuffer", 1)
            || is("Licenses", 1)
            || is("MailUser", 5)
        {
            if is("Account", 1) {
                c.account = Some(val.to_string());
            } else {
                c.unmodelled.push(arg.to_string());
            }
            update_cnt += 1;
        } else if is("NodeList", 8) || is("ReqNodeList", 8) {
            c.unmodelled.push(arg.to_string());
            req.update_size = true;
            update_cnt += 1;
        } else if is("Gres", 2) {
            if val.eq_ignore_ascii_case("help") || val.eq_ignore_ascii_case("list") {
                let _ = writeln!(inv.out, "Valid gres options are:");
                let _ = writeln!(inv.out, "gpu[[:type]:count]");
            } else {
                c.unmodelled.push(arg.to_string());
                update_cnt += 1;
            }
        } else if is("Dependency", 1) {
            use crate::options::values::dependency::{DependencyLimits, parse_dependency};
            c.dependency = Some(match parse_dependency(val, DependencyLimits::default()) {
                Ok(d) => crate::model::DependencyChange::Set(d),
                Err(_) => crate::model::DependencyChange::Invalid,
            });
            update_cnt += 1;
        } else if is("EligibleTime", 2) || is("StartTime", 2) {
            match crate::options::values::begin::parse_time(val, inv.now, false) {
                Ok(0) => {}
                Ok(t) => {
                    c.begin_time = Some(t.max(inv.now));
                    update_cnt += 1;
                }
                Err(e) => {
                    let _ = writeln!(inv.err, "{e}");
                }
            }
        } else if is("EndTime", 2) || is("Deadline", 3) {
            // EndTime always counts; a Deadline only when it reads as a time.
            if is("EndTime", 2)
                || crate::options::values::begin::parse_time(val, inv.now, false)
                    .is_ok_and(|t| t != 0)
            {
                update_cnt += 1;
            }
            c.unmodelled.push(arg.to_string());
        } else if is("UserID", 3) {
            match inv.users.resolve(val) {
                Some(uid) => req.uid = Some(uid),
                None => {
                    let _ = writeln!(inv.err, "Invalid UserID: {val}");
                    let _ = writeln!(inv.err, "Request aborted");
                    return Err(Stop(1));
                }
            }
        } else if is("WorkDir", 2) {
            c.work_dir = Some(val.to_string());
            update_cnt += 1;
        } else if is("MailType", 5) {
            c.unmodelled.push(arg.to_string());
            update_cnt += 1;
        } else {
            let _ = writeln!(inv.err, "Update of this parameter is not supported: {arg}");
            let _ = writeln!(inv.err, "Request aborted");
            return Err(Stop(1));
        }
        if add.is_some() {
            // Slurm names the whole word (`Comment+=x`).
            fail!("Option {tag} does not accept [+|-]= syntax");
        }
    }
    if update_cnt == 0 {
        let _ = writeln!(inv.err, "No changes specified");
        return Err(Stop(1));
    }
    Ok(req)
}

/// Prints an array answer as scontrol does: one line per result (`<job>_<tasks>: <text>`),
/// nothing when the only result is success. Returns whether anything was printed.
pub fn print_tasks(
    inv: &mut Invocation<'_>,
    job: u32,
    results: &[(u32, Result<(), crate::backend::SlurmErrno>)],
    quiet: bool,
) -> bool {
    let mut groups: Vec<(Result<(), crate::backend::SlurmErrno>, Vec<u32>)> = Vec::new();
    for &(task, r) in results {
        match groups.iter_mut().find(|(g, _)| *g == r) {
            Some((_, tasks)) => tasks.push(task),
            None => groups.push((r, vec![task])),
        }
    }
    for (_, tasks) in &mut groups {
        tasks.sort_unstable();
        tasks.dedup();
    }
    groups.sort_by_key(|(_, t)| t.first().copied());
    if groups.len() == 1 && groups[0].0.is_ok() {
        return false;
    }
    if !quiet {
        for (r, tasks) in &groups {
            let text = match r {
                Ok(()) => "No error",
                Err(e) => e.text(),
            };
            let ranges = crate::model::array::ranges(tasks);
            let _ = writeln!(inv.err, "{job}_{ranges}: {text}");
        }
    }
    true
}

/// Prints the controller's answer for one id; returns whether it was a failure.
pub fn print_reply(
    inv: &mut Invocation<'_>,
    id: &str,
    job: u32,
    reply: &JobReply,
    quiet: bool,
) -> bool {
    match reply {
        JobReply::Job(Ok(())) => false,
        JobReply::Job(Err(e)) => {
            if !quiet {
                let _ = writeln!(inv.err, "{} for job {id}", e.text());
            }
            true
        }
        JobReply::Tasks(results) => print_tasks(inv, job, results, quiet),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_ranges_read_as_slurm_reads_them() {
        assert_eq!(resource_range("2", "x"), Ok((2, None)));
        assert_eq!(resource_range("2-4", "x"), Ok((2, Some(4))));
        assert_eq!(resource_range("1k", "x"), Ok((1024, None)));
        assert_eq!(resource_range("", "x"), Ok((1, Some(i64::from(i32::MAX)))));
        assert!(resource_range("x", "NumCPUs").is_err());
        assert!(resource_range("2-0", "NumCPUs").is_err());
    }

    #[test]
    fn unsigned_values_refuse_what_slurm_refuses() {
        assert_eq!(parse_uint("12", 100), Some(12));
        assert_eq!(parse_uint("", 100), Some(0));
        assert_eq!(parse_uint("-1", 100), None);
        assert_eq!(parse_uint("100", 100), None);
        assert_eq!(parse_uint("1x", 100), None);
    }
}
