//! `sacct --json`/`--yaml` of Slurm 24.11: the accounting jobs of data_parser v0.0.42
//! (v0.0.41 and v0.0.40 as deltas), built from the same records and TRES numbering as
//! 22.05's `dbv0.0.38` dump ([`super::db_jobs`]).
//!
//! Differences with 22.05 besides the shape: exit codes are right (22.05 called a failed
//! job's status SUCCESS), the TRES names are `""` rather than null, the allocation's unset
//! energy is -2 (NO_VAL64 as 24.11 prints it), and a job's start is NO_VAL when it never
//! ran. Values the records do not keep are as in [`super::db_jobs`] (CPU frequencies,
//! task distribution, per-job CPU times) and 24.11's defaults (`flags`
//! `STARTED_ON_SCHEDULE`/`START_RECEIVED` for a job that ran).

use super::data_parser::{Client, Parser, exit_code, infinite, meta, num, unset};
use super::db_jobs::{TresIds, elapsed, hex_mask, step_tres, tres_list_of, usage_list_of};
use super::value::{Dict, Value};
use crate::model::job::{CpuTime, TresUsage};
use crate::model::{ArrayPart, JobRecord, JobState, MemoryRequest, StepId, StepRecord, TimeLimit};

/// What the dump needs besides the records.
pub struct Ctx<'a> {
    pub now: i64,
    pub ids: &'a TresIds,
    pub user_name: &'a dyn Fn(u32) -> Option<String>,
    pub skip_steps: bool,
    pub parser: Parser,
}

/// NO_VAL as a time: a job that never started.
const NO_VAL: i64 = 0xffff_fffe;

fn text(s: &str) -> Value {
    Value::text(s)
}

fn opt_text(s: &Option<String>) -> Value {
    text(s.as_deref().unwrap_or(""))
}

fn cpu_time(t: CpuTime) -> Value {
    let mut d = Dict::with_capacity(2);
    d.push("seconds", Value::u64_wrapping(t.secs));
    d.push("microseconds", Value::u64_wrapping(t.usecs));
    d.into()
}

/// `{type, name, id, count}`; a count that is unset or does not fit is -2.
fn entry(ids: &TresIds, name: &str, count: Option<u64>) -> Dict {
    let count = count.map_or(-2, |c| i64::try_from(c).unwrap_or(-2));
    let (kind, sub) = name.split_once('/').unwrap_or((name, ""));
    let mut d = Dict::with_capacity(6);
    d.push("type", text(kind));
    d.push("name", text(sub));
    d.push("id", Value::int(ids.id(name)));
    d.push("count", Value::Int(count));
    d
}

/// A TRES string as `[{type, name, id, count}]` by id; `energy` -2 where it is unset.
fn tres_list(ids: &TresIds, t: &str, energy_unset: bool) -> Value {
    tres_list_of(ids, t, energy_unset, |name, count| entry(ids, name, count))
}

fn usage(ids: &TresIds, list: &[TresUsage], with_place: bool) -> Value {
    usage_list_of(ids, list, |u| {
        let mut d = entry(ids, &u.tres, Some(u.count));
        if with_place {
            d.push("task", Value::u64_wrapping(u.task));
            d.push("node", text(u.node.as_deref().unwrap_or("")));
        }
        d
    })
}

/// `{max, min, average, total}` of one side of a step's usage; the extremes say on which
/// task and node they were reached (24.11 prints them, though its schemas do not list them).
fn usage_side(ids: &TresIds, [max, min, ave, tot]: [&[TresUsage]; 4]) -> Value {
    let mut d = Dict::with_capacity(4);
    d.push("max", usage(ids, max, true));
    d.push("min", usage(ids, min, true));
    d.push("average", usage(ids, ave, false));
    d.push("total", usage(ids, tot, false));
    d.into()
}

fn states(s: JobState) -> Value {
    Value::List(vec![text(s.long())])
}

/// `{jobs, meta, errors, warnings}`.
pub fn document(items: Vec<Value>, errors: Vec<Value>, c: &Client) -> Value {
    let mut d = Dict::with_capacity(4);
    d.push("jobs", Value::List(items));
    d.push("meta", meta(c));
    d.push("errors", Value::List(errors));
    d.push("warnings", Value::List(Vec::new()));
    d.into()
}

/// One accounting job, with the steps given.
pub fn job(job: &JobRecord, steps: &[&StepRecord], ctx: &Ctx) -> Value {
    // v0.0.41 adds the planned time and the I/O paths, v0.0.42 qosreq and restart_cnt.
    let v41 = ctx.parser >= Parser::V0041;
    let v42 = ctx.parser >= Parser::V0042;
    let started = job.start_time.filter(|&s| s != 0 && s != NO_VAL);
    let allocated = started.is_some() && job.nodes.as_deref().is_some_and(|n| !n.is_empty());
    let mut d = Dict::with_capacity(50);
    d.push("account", opt_text(&job.account));
    let mut comment = Dict::with_capacity(3);
    comment.push("administrator", opt_text(&job.admin_comment));
    comment.push("job", opt_text(&job.comment));
    comment.push("system", opt_text(&job.system_comment));
    d.push("comment", comment.into());
    d.push("allocation_nodes", Value::int(job.num_nodes));
    let (array_job_id, task, task_id) = match &job.array {
        None => (0, String::new(), None),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (*array_job_id, String::new(), Some(*task_id)),
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            ..
        }) => (*array_job_id, hex_mask(tasks), None),
    };
    let throttle = match &job.array {
        Some(ArrayPart::Pending { throttle, .. }) => job.array_throttle.or(*throttle),
        _ => job.array_throttle,
    };
    let mut array = Dict::with_capacity(4);
    array.push("job_id", Value::int(array_job_id));
    let mut running = Dict::with_capacity(1);
    running.put("max/running/tasks", Value::int(throttle.unwrap_or(0)));
    array.push("limits", running.into());
    array.push("task_id", task_id.map_or_else(unset, num));
    array.push("task", text(&task));
    d.push("array", array.into());
    let mut assoc = Dict::with_capacity(5);
    assoc.push("account", opt_text(&job.account));
    assoc.push("cluster", text(&job.cluster));
    assoc.push("partition", text(""));
    assoc.push("user", text(&job.user));
    assoc.push("id", Value::int(job.assoc_id));
    d.push("association", assoc.into());
    d.push("block", text(""));
    d.push("cluster", text(&job.cluster));
    d.push("constraints", opt_text(&job.features));
    d.push("container", opt_text(&job.container));
    d.push("derived_exit_code", exit_code(job.derived_exit_code));
    let mut time = Dict::with_capacity(11);
    time.push(
        "elapsed",
        Value::int(elapsed(started, job.end_time, job.suspended_secs, ctx.now)),
    );
    let eligible = job.eligible_time.unwrap_or(0);
    time.push("eligible", Value::int(eligible));
    time.push("end", Value::int(job.end_time.unwrap_or(0)));
    if v41 {
        let planned = if eligible == 0 {
            0
        } else {
            (started.unwrap_or(ctx.now) - eligible).max(0)
        };
        time.push("planned", num(planned));
    }
    time.push(
        "start",
        Value::int(match (started, job.state) {
            (Some(s), _) => s,
            (None, JobState::Pending) => 0,
            (None, _) => NO_VAL,
        }),
    );
    time.push("submission", Value::int(job.submit_time));
    time.push("suspended", Value::int(job.suspended_secs));
    // 24.11 sums the steps' CPU times into the job's.
    let sum = |f: fn(&StepRecord) -> CpuTime| {
        job.steps.iter().fold(CpuTime::default(), |acc, s| {
            let t = f(s);
            let usecs = acc.usecs + t.usecs;
            CpuTime {
                secs: acc.secs + t.secs + usecs / 1_000_000,
                usecs: usecs % 1_000_000,
            }
        })
    };
    let (user_cpu, system_cpu) = (sum(|s| s.user_cpu), sum(|s| s.system_cpu));
    let total_usecs = user_cpu.usecs + system_cpu.usecs;
    let total_cpu = CpuTime {
        secs: user_cpu.secs + system_cpu.secs + total_usecs / 1_000_000,
        usecs: total_usecs % 1_000_000,
    };
    time.push("system", cpu_time(system_cpu));
    time.push(
        "limit",
        match job.time_limit {
            TimeLimit::Infinite => infinite(),
            TimeLimit::Minutes(m) => num(m),
        },
    );
    time.push("total", cpu_time(total_cpu));
    time.push("user", cpu_time(user_cpu));
    d.push("time", time.into());
    d.push("exit_code", exit_code(job.exit_code));
    d.push("extra", text(""));
    d.push("failed_node", text(""));
    let flags: Vec<&str> = if allocated {
        let how = if job.backfill_scheduled {
            "STARTED_ON_BACKFILL"
        } else if job.batch {
            "STARTED_ON_SCHEDULE"
        } else {
            "STARTED_ON_SUBMIT"
        };
        vec![how, "START_RECEIVED"]
    } else {
        Vec::new()
    };
    d.push("flags", Value::strings(flags));
    d.push("group", text(&job.group));
    let mut het = Dict::with_capacity(2);
    het.push("job_id", Value::Int(0));
    het.push("job_offset", unset());
    d.push("het", het.into());
    d.push("job_id", Value::int(job.job_id));
    d.push("name", text(&job.name));
    d.push("licenses", opt_text(&job.licenses));
    let mut mcs = Dict::with_capacity(1);
    mcs.push("label", opt_text(&job.mcs_label));
    d.push("mcs", mcs.into());
    d.push(
        "nodes",
        text(
            job.nodes
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or("None assigned"),
        ),
    );
    d.push("partition", text(&job.partition));
    d.push(
        "hold",
        Value::Bool(job.state == JobState::Pending && job.priority == 0),
    );
    d.push("priority", num(job.priority));
    d.push("qos", opt_text(&job.qos));
    if v42 {
        d.push("qosreq", text(""));
    }
    let mut required = Dict::with_capacity(3);
    required.push("CPUs", Value::int(job.num_cpus));
    let (per_cpu, per_node) = match job.memory {
        MemoryRequest::PerCpu(mb) => (num(mb as i64), unset()),
        MemoryRequest::PerNode(mb) => (unset(), num(mb as i64)),
    };
    required.push("memory_per_cpu", per_cpu);
    required.push("memory_per_node", per_node);
    d.push("required", required.into());
    d.push(
        "kill_request_user",
        text(
            &job.cancelled_by
                .and_then(|u| (ctx.user_name)(u))
                .unwrap_or_default(),
        ),
    );
    if v42 {
        d.push("restart_cnt", Value::int(job.restarts));
    }
    let mut resv = Dict::with_capacity(2);
    resv.push("id", Value::Int(0));
    resv.push("name", opt_text(&job.reservation));
    d.push("reservation", resv.into());
    d.push("script", text(""));
    if v41 {
        let (out_pat, err_pat, in_pat) = match &job.io_patterns {
            Some(p) => (
                p.std_out.clone(),
                // A stderr that follows stdout was not given: empty, as slurmdbd keeps it.
                if p.std_err == p.std_out {
                    String::new()
                } else {
                    p.std_err.clone()
                },
                p.std_in.clone(),
            ),
            None => (job.std_out.clone(), String::new(), job.std_in.clone()),
        };
        let err_expanded = if err_pat.is_empty() {
            String::new()
        } else {
            job.std_err.clone()
        };
        d.push("stdin_expanded", text(&job.std_in));
        d.push("stdout_expanded", text(&job.std_out));
        d.push("stderr_expanded", text(&err_expanded));
        d.push("stdout", text(&out_pat));
        d.push("stderr", text(&err_pat));
        d.push("stdin", text(&in_pat));
    }
    let mut state = Dict::with_capacity(2);
    state.push("current", states(job.state));
    state.push(
        "reason",
        text(
            job.reason_code
                .as_deref()
                .unwrap_or(if job.reason.is_empty() {
                    "None"
                } else {
                    &job.reason
                }),
        ),
    );
    d.push("state", state.into());
    let steps: Vec<Value> = if ctx.skip_steps {
        Vec::new()
    } else {
        steps.iter().map(|s| step(job, s, ctx)).collect()
    };
    d.push("steps", Value::List(steps));
    d.push("submit_line", opt_text(&job.submit_line));
    let alloc = match &job.tres_alloc {
        Some(t) => Some(t.clone()).filter(|t| !t.is_empty()),
        None => allocated.then(|| job.tres()),
    };
    let energy_unset = !job
        .steps
        .iter()
        .any(|s| matches!(s.step_id, StepId::Numbered(_)) && s.end_time.is_some());
    let mut t = Dict::with_capacity(2);
    t.push(
        "allocated",
        alloc.map_or(Value::List(Vec::new()), |a| {
            tres_list(ctx.ids, &a, energy_unset)
        }),
    );
    t.push(
        "requested",
        tres_list(
            ctx.ids,
            &job.tres_req.clone().unwrap_or_else(|| job.tres()),
            false,
        ),
    );
    d.push("tres", t.into());
    d.push("used_gres", text(""));
    d.push("user", text(&job.user));
    let mut wckey = Dict::with_capacity(2);
    let (key, flags) = match job.wckey.as_deref() {
        Some(w) => match w.strip_prefix('*') {
            Some(rest) => (rest, vec!["ASSIGNED_DEFAULT"]),
            None => (w, Vec::new()),
        },
        None => ("", Vec::new()),
    };
    wckey.push("wckey", text(key));
    wckey.push("flags", Value::strings(flags));
    d.push("wckey", wckey.into());
    d.push("working_directory", text(&job.work_dir));
    d.into()
}

fn step(job: &JobRecord, s: &StepRecord, ctx: &Ctx) -> Value {
    let ids = ctx.ids;
    let mut d = Dict::with_capacity(12);
    let mut time = Dict::with_capacity(7);
    time.push(
        "elapsed",
        Value::int(elapsed(s.start_time, s.end_time, 0, ctx.now)),
    );
    time.push("end", s.end_time.map_or_else(unset, num));
    time.push("start", s.start_time.map_or_else(unset, num));
    time.push("suspended", Value::Int(0));
    time.push("system", cpu_time(s.system_cpu));
    time.push(
        "total",
        cpu_time(CpuTime {
            secs: s.user_cpu.secs.saturating_add(s.system_cpu.secs),
            usecs: s.user_cpu.usecs.saturating_add(s.system_cpu.usecs),
        }),
    );
    time.push("user", cpu_time(s.user_cpu));
    d.push("time", time.into());
    d.push("exit_code", exit_code(s.exit_code));
    let hosts = crate::model::hostlist::expand(&s.nodes).unwrap_or_default();
    let mut nodes = Dict::with_capacity(3);
    nodes.push("count", Value::int(s.num_nodes));
    nodes.push("range", text(&s.nodes));
    nodes.push("list", Value::strings(&hosts));
    d.push("nodes", nodes.into());
    let mut tasks = Dict::with_capacity(1);
    tasks.push("count", Value::int(s.num_tasks));
    d.push("tasks", tasks.into());
    d.push("pid", text(""));
    let mut cpu = Dict::with_capacity(2);
    let mut freq = Dict::with_capacity(2);
    freq.push("min", num(0));
    freq.push("max", num(0));
    cpu.push("requested_frequency", freq.into());
    cpu.push("governor", text("0"));
    d.push("CPU", cpu.into());
    d.push(
        "kill_request_user",
        text(
            &s.cancelled_by
                .and_then(|u| (ctx.user_name)(u))
                .unwrap_or_default(),
        ),
    );
    d.push("state", states(s.state));
    let mut stats = Dict::with_capacity(2);
    stats.put("CPU/actual_frequency", Value::Int(0));
    stats.put("energy/consumed", num(0));
    d.push("statistics", stats.into());
    let mut id = Dict::with_capacity(2);
    id.push(
        "id",
        text(&format!("{}.{}", job.job_id, s.step_id.suffix())),
    );
    id.push("name", text(&s.name));
    d.push("step", id.into());
    let mut task = Dict::with_capacity(1);
    let srun = matches!(s.step_id, StepId::Numbered(_));
    task.push("distribution", text(if srun { "Block" } else { "Unknown" }));
    d.push("task", task.into());
    let u = &s.usage;
    let mut t = Dict::with_capacity(3);
    t.push(
        "requested",
        usage_side(ids, [&u.in_max, &u.in_min, &u.in_ave, &u.in_tot]),
    );
    t.push(
        "consumed",
        usage_side(ids, [&u.out_max, &u.out_min, &u.out_ave, &u.out_tot]),
    );
    t.push("allocated", tres_list(ids, &step_tres(job, s), false));
    d.push("tres", t.into());
    d.into()
}
