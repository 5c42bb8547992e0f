//! `sacct --json`: the job records of `GET /slurmdb/v0.0.38/jobs`, as the dbv0.0.38
//! plugin's table-driven dumper (`parse_job`, `parse_job_step`) builds them (22.05.8).
//!
//! The dumper walks a table of `path -> field` entries, creating nested dictionaries on
//! the way, so the key order is the table's. Reproduced slips of 22.05:
//! - An exit code that is not a signal prints `SUCCESS` with `return_code` 0, whatever
//!   the code (`WIFEXITED` is tested before the code is read).
//! - `reservation/name` is a pointer read as an integer: 0 without a reservation.
//! - `array/task` is the pending tasks' bitmap in hex (`0xF`).
//!
//! Values a backend cannot know (see docs/COMPAT.md, "--json and --yaml"):
//! - `flags` (how the job was started): CLEAR_SCHEDULING plus STARTED_ON_BACKFILL for a
//!   job the backfill scheduler started, STARTED_ON_SCHEDULE for other batch jobs and
//!   STARTED_ON_SUBMIT for the rest, which is how jobs start on an idle cluster.
//! - TRES ids: the built-in TRES have Slurm's fixed ids (cpu 1 ... pages 8); others are
//!   numbered from 1001 (`gres/gpu` first, then by name), where slurmdbd numbers them in
//!   the order they were first configured.
//! - Steps: CPU frequency requests and the task distribution are not kept; batch, extern
//!   and interactive steps show 0/0/no governor and `Unknown`, srun steps the unset
//!   request (null/null/every governor flag, as 22.05 prints NO_VAL) and `Block`.
//! - Energy and CPU frequency statistics are 0; job-level CPU times are 0 (slurmdbd
//!   keeps them per step); the association is the job's account, cluster and user.

use super::strsignal::strsignal;
use super::value::{Dict, Value};
use crate::format::common::{reason_text, state_long};
use crate::model::job::{CpuTime, TresUsage};
use crate::model::{ArrayPart, ExitStatus, JobRecord, StepId, StepRecord, TimeLimit, tres};

/// TRES ids as the accounting database numbers them.
pub struct TresIds {
    dynamic: Vec<String>,
}

const BUILTIN: [(&str, u32); 8] = [
    ("cpu", 1),
    ("mem", 2),
    ("energy", 3),
    ("node", 4),
    ("billing", 5),
    ("fs/disk", 6),
    ("vmem", 7),
    ("pages", 8),
];

impl TresIds {
    /// Every TRES name the records mention, numbered.
    pub fn from_jobs<'a>(jobs: impl IntoIterator<Item = &'a JobRecord>) -> TresIds {
        let mut names: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            for (name, _) in tres::entries(t) {
                if !BUILTIN.iter().any(|(b, _)| *b == name) && !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
        };
        for j in jobs {
            if let Some(t) = &j.tres_req {
                add(t);
            }
            if let Some(t) = &j.tres_alloc {
                add(t);
            }
            if let Some(t) = &j.tres_per_node {
                add(&t.replacen("gres:", "gres/", 1).replacen(':', "=", 1));
            }
            for s in &j.steps {
                if let Some(t) = &s.tres_alloc {
                    add(t);
                }
                for u in usage_lists(s) {
                    for e in u {
                        add(&format!("{}=0", e.tres));
                    }
                }
            }
        }
        names.sort_by(|a, b| (a != "gres/gpu", a).cmp(&(b != "gres/gpu", b)));
        TresIds { dynamic: names }
    }

    pub fn id(&self, name: &str) -> u32 {
        if let Some((_, id)) = BUILTIN.iter().find(|(b, _)| *b == name) {
            return *id;
        }
        match self.dynamic.iter().position(|n| n == name) {
            Some(i) => 1001 + i as u32,
            None => 1001 + self.dynamic.len() as u32,
        }
    }
}

pub(super) fn usage_lists(s: &StepRecord) -> [&Vec<TresUsage>; 8] {
    let u = &s.usage;
    [
        &u.in_ave, &u.in_tot, &u.in_max, &u.in_min, &u.out_ave, &u.out_tot, &u.out_max, &u.out_min,
    ]
}

/// `parse_tres`: `{type, name, id, count}`; `gres/gpu` is type `gres`, name `gpu`.
fn tres_entry(ids: &TresIds, name: &str, count: Option<u64>) -> Dict {
    let (kind, sub) = match name.split_once('/') {
        Some((k, s)) => (k, Value::text(s)),
        None => (name, Value::Null),
    };
    let mut d = Dict::with_capacity(6);
    d.push("type", Value::text(kind));
    d.push("name", sub);
    d.push("id", Value::int(ids.id(name)));
    d.push(
        "count",
        count.map_or(Value::Null, |c| {
            if c == u64::MAX || c == u64::MAX - 1 {
                Value::Null
            } else {
                Value::u64_wrapping(c)
            }
        }),
    );
    d
}

/// A TRES string as a list sorted by id (memory in MB, as the database keeps it).
fn tres_list(ids: &TresIds, t: &str, energy_unset: bool) -> Value {
    tres_list_of(ids, t, energy_unset, |name, count| {
        tres_entry(ids, name, count)
    })
}

/// A TRES string as entries sorted by id, each made by `entry(name, count)` (a count that
/// does not parse is 0); with `energy_unset`, an `energy` entry of unset count (None) is
/// added where the string has none. Every data_parser release lists TRES so; only the
/// entry's encoding differs.
pub(super) fn tres_list_of(
    ids: &TresIds,
    t: &str,
    energy_unset: bool,
    entry: impl Fn(&str, Option<u64>) -> Dict,
) -> Value {
    let mut items: Vec<(u32, Dict)> = tres::entries(t)
        .into_iter()
        .map(|(name, v)| (ids.id(name), entry(name, tres::parse_value(v).or(Some(0)))))
        .collect();
    if energy_unset && !items.iter().any(|(id, _)| *id == 3) {
        items.push((3, entry("energy", None)));
    }
    sorted_by_id(items)
}

/// Usage figures: averages and totals as `{type, name, id, count}`; maxima and minima
/// add the `task` and `node` where they were reached.
fn usage_list(ids: &TresIds, list: &[TresUsage], with_place: bool) -> Value {
    usage_list_of(ids, list, |u| {
        let mut d = tres_entry(ids, &u.tres, Some(u.count));
        if with_place {
            d.push("task", Value::u64_wrapping(u.task));
            d.push("node", Value::str_or_null(u.node.as_deref()));
        }
        d
    })
}

/// Usage figures as entries sorted by their TRES id, each made by `entry`.
pub(super) fn usage_list_of(
    ids: &TresIds,
    list: &[TresUsage],
    entry: impl Fn(&TresUsage) -> Dict,
) -> Value {
    sorted_by_id(list.iter().map(|u| (ids.id(&u.tres), entry(u))).collect())
}

fn sorted_by_id(mut items: Vec<(u32, Dict)>) -> Value {
    items.sort_by_key(|(id, _)| *id);
    Value::List(items.into_iter().map(|(_, d)| d.into()).collect())
}

/// `_dump_job_exit_code`.
fn exit_code(e: ExitStatus) -> Value {
    let mut d = Dict::with_capacity(3);
    if e.signal != 0 {
        d.push("status", Value::text("SIGNALED"));
        d.push("return_code", Value::Null);
        let mut sig = Dict::with_capacity(2);
        sig.push("signal_id", Value::int(e.signal));
        sig.push("name", Value::text(&strsignal(e.signal)));
        d.push("signal", sig.into());
    } else {
        d.push("status", Value::text("SUCCESS"));
        d.push("return_code", Value::Int(0));
    }
    d.into()
}

/// `bit_fmt_hexmask` of the pending tasks: `0x` and upper-case hex digits, high first.
pub(super) fn hex_mask(tasks: &[u32]) -> String {
    let Some(&max) = tasks.iter().max() else {
        return "0x0".to_string();
    };
    let size = max as usize + 1;
    let mut nibbles = vec![0u8; size.div_ceil(4)];
    for &t in tasks {
        nibbles[t as usize / 4] |= 1 << (t % 4);
    }
    let mut s = String::with_capacity(nibbles.len() + 2);
    s.push_str("0x");
    for n in nibbles.iter().rev() {
        s.push(char::from_digit(u32::from(*n), 16).map_or('0', |c| c.to_ascii_uppercase()));
    }
    s
}

fn u32_or_null(n: u32) -> Value {
    if n == 0xffff_fffe || n == 0xffff_ffff {
        Value::Null
    } else {
        Value::int(n)
    }
}

fn or_null(s: &Option<String>) -> Value {
    Value::str_or_null(s.as_deref())
}

fn name_or_null(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        Value::text(s)
    }
}

fn cpu_time(d: &mut Dict, path: &str, t: CpuTime) {
    d.put(&format!("{path}/seconds"), Value::u64_wrapping(t.secs));
    d.put(
        &format!("{path}/microseconds"),
        Value::u64_wrapping(t.usecs),
    );
}

/// Seconds between start and end (or now), less time suspended.
pub(super) fn elapsed(start: Option<i64>, end: Option<i64>, suspended: i64, now: i64) -> i64 {
    match start.filter(|&s| s != 0) {
        None => 0,
        Some(s) => {
            let e = end.filter(|&e| e != 0).unwrap_or(now);
            (e - s - suspended).max(0)
        }
    }
}

/// Everything the job dumper needs besides the records.
pub struct DbCtx<'a> {
    pub now: i64,
    pub ids: &'a TresIds,
    /// `uid_to_string_or_null`.
    pub user_name: &'a dyn Fn(u32) -> Option<String>,
    /// `-X`: the query skips steps.
    pub skip_steps: bool,
}

/// One job (`parse_job`), with the steps given.
pub fn dump_db_job(job: &JobRecord, steps: &[&StepRecord], ctx: &DbCtx) -> Value {
    let mut d = Dict::with_capacity(40);
    d.put("account", or_null(&job.account));
    d.put("comment/administrator", or_null(&job.admin_comment));
    d.put("allocation_nodes", u32_or_null(job.num_nodes));
    let (array_job_id, task, task_id) = match &job.array {
        None => (0, None, None),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (*array_job_id, None, Some(*task_id)),
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            ..
        }) => (*array_job_id, Some(hex_mask(tasks)), None),
    };
    let throttle = match &job.array {
        Some(ArrayPart::Pending { throttle, .. }) => job.array_throttle.or(*throttle),
        _ => job.array_throttle,
    };
    d.put("array/job_id", Value::int(array_job_id));
    d.put(
        "array/limits/max/running/tasks",
        Value::int(throttle.unwrap_or(0)),
    );
    d.put("array/task", Value::str_or_null(task.as_deref()));
    d.put("array/task_id", Value::opt_int(task_id));
    let assoc = if job.account.is_some() || job.assoc_id != 0 {
        let mut a = Dict::with_capacity(4);
        a.push("account", or_null(&job.account));
        a.push("cluster", name_or_null(&job.cluster));
        a.push("partition", Value::Null);
        a.push("user", name_or_null(&job.user));
        a.into()
    } else {
        Value::Null
    };
    d.put("association", assoc);
    d.put("cluster", name_or_null(&job.cluster));
    d.put(
        "constraints",
        Value::text(job.features.as_deref().unwrap_or("")),
    );
    d.put("container", or_null(&job.container));
    d.put("derived_exit_code", exit_code(job.derived_exit_code));
    d.put("comment/job", or_null(&job.comment));
    let started = job.start_time.filter(|&s| s != 0);
    // A job cancelled while pending has a start time (its end) but never held nodes.
    let allocated = started.is_some() && job.nodes.as_deref().is_some_and(|n| !n.is_empty());
    d.put(
        "time/elapsed",
        Value::int(elapsed(started, job.end_time, job.suspended_secs, ctx.now)),
    );
    d.put("time/eligible", Value::int(job.eligible_time.unwrap_or(0)));
    d.put("time/end", Value::int(job.end_time.unwrap_or(0)));
    d.put("exit_code", exit_code(job.exit_code));
    let flags: Vec<&str> = if allocated {
        let how = if job.backfill_scheduled {
            "STARTED_ON_BACKFILL"
        } else if job.batch {
            "STARTED_ON_SCHEDULE"
        } else {
            "STARTED_ON_SUBMIT"
        };
        vec!["CLEAR_SCHEDULING", how]
    } else {
        Vec::new()
    };
    d.put("flags", Value::strings(flags));
    d.put("group", name_or_null(&job.group));
    d.put("het/job_id", Value::Int(0));
    d.put("het/job_offset", Value::Null);
    d.put("job_id", Value::int(job.job_id));
    d.put("name", Value::text(&job.name));
    d.put(
        "mcs/label",
        Value::text(job.mcs_label.as_deref().unwrap_or("")),
    );
    d.put(
        "nodes",
        Value::text(
            job.nodes
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or("None assigned"),
        ),
    );
    d.put("partition", name_or_null(&job.partition));
    d.put("priority", u32_or_null(job.priority));
    d.put("qos", or_null(&job.qos));
    d.put("required/CPUs", u32_or_null(job.num_cpus));
    d.put(
        "required/memory",
        u32_or_null((job.memory.mb() & 0xffff_ffff) as u32),
    );
    d.put(
        "kill_request_user",
        job.cancelled_by
            .and_then(|u| (ctx.user_name)(u))
            .map_or(Value::Null, Value::Str),
    );
    d.put("reservation/id", Value::Int(0));
    d.put("reservation/name", Value::Int(0));
    d.put("time/start", Value::int(started.unwrap_or(0)));
    d.put("state/current", Value::text(state_long(job)));
    d.put(
        "state/reason",
        Value::text(
            job.reason_code
                .as_deref()
                .unwrap_or_else(|| reason_text(&job.reason)),
        ),
    );
    d.put("time/submission", Value::int(job.submit_time));
    let steps: Vec<Value> = if ctx.skip_steps {
        Vec::new()
    } else {
        steps.iter().map(|s| dump_step(job, s, ctx)).collect()
    };
    d.put("steps", Value::List(steps));
    d.put("time/suspended", Value::int(job.suspended_secs));
    d.put("comment/system", or_null(&job.system_comment));
    cpu_time(&mut d, "time/system", CpuTime::default());
    d.put(
        "time/limit",
        match job.time_limit {
            TimeLimit::Infinite => Value::Null,
            TimeLimit::Minutes(m) => u32_or_null(m),
        },
    );
    cpu_time(&mut d, "time/total", CpuTime::default());
    let alloc = match &job.tres_alloc {
        Some(t) => Some(t.clone()).filter(|t| !t.is_empty()),
        None => allocated.then(|| job.tres()),
    };
    // slurmctld records the allocation's energy as unset (NO_VAL64, printed null) until a
    // finished srun step reports some; a batch step never does.
    let energy_unset = !job
        .steps
        .iter()
        .any(|s| matches!(s.step_id, StepId::Numbered(_)) && s.end_time.is_some());
    d.put(
        "tres/allocated",
        match &alloc {
            Some(t) => tres_list(ctx.ids, t, energy_unset),
            None => Value::List(Vec::new()),
        },
    );
    d.put(
        "tres/requested",
        tres_list(
            ctx.ids,
            &job.tres_req.clone().unwrap_or_else(|| job.tres()),
            false,
        ),
    );
    d.put("user", name_or_null(&job.user));
    cpu_time(&mut d, "time/user", CpuTime::default());
    let mut wckey = Dict::with_capacity(2);
    let (key, flags) = match job.wckey.as_deref() {
        Some(w) => match w.strip_prefix('*') {
            Some(rest) => (rest, vec!["ASSIGNED_DEFAULT"]),
            None => (w, Vec::new()),
        },
        None => ("", Vec::new()),
    };
    wckey.push("wckey", Value::text(key));
    wckey.push("flags", Value::strings(flags));
    d.put("wckey", wckey.into());
    d.put("working_directory", name_or_null(&job.work_dir));
    d.into()
}

/// The step's allocated TRES, derived from its CPUs when the record has none.
pub(super) fn step_tres(job: &JobRecord, s: &StepRecord) -> String {
    if let Some(t) = &s.tres_alloc {
        return t.clone();
    }
    let nodes = s.num_nodes.max(1);
    let mem = job
        .memory
        .per_node_mb(s.num_cpus / nodes)
        .saturating_mul(u64::from(nodes));
    format!(
        "cpu={},mem={},node={}",
        s.num_cpus,
        crate::model::units::mb_str(mem),
        s.num_nodes
    )
}

/// One step (`_foreach_step`, then `parse_job_step`).
fn dump_step(job: &JobRecord, s: &StepRecord, ctx: &DbCtx) -> Value {
    let ids = ctx.ids;
    let mut d = Dict::with_capacity(16);
    let hosts = crate::model::hostlist::expand(&s.nodes).unwrap_or_default();
    if !hosts.is_empty() {
        d.put("nodes/list", Value::strings(&hosts));
    }
    d.put("tres/requested/max", usage_list(ids, &s.usage.in_max, true));
    d.put("tres/requested/min", usage_list(ids, &s.usage.in_min, true));
    d.put("tres/consumed/max", usage_list(ids, &s.usage.out_max, true));
    d.put("tres/consumed/min", usage_list(ids, &s.usage.out_min, true));
    d.put(
        "time/elapsed",
        Value::int(elapsed(s.start_time, s.end_time, 0, ctx.now)),
    );
    d.put("time/end", Value::int(s.end_time.unwrap_or(0)));
    d.put("exit_code", exit_code(s.exit_code));
    d.put("nodes/count", Value::int(s.num_nodes));
    d.put("nodes/range", name_or_null(&s.nodes));
    d.put("tasks/count", Value::int(s.num_tasks));
    d.put("pid", Value::Null);
    let srun = matches!(s.step_id, StepId::Numbered(_));
    let freq = if srun { Value::Null } else { Value::Int(0) };
    d.put("CPU/requested_frequency/min", freq.clone());
    d.put("CPU/requested_frequency/max", freq);
    d.put(
        "CPU/governor",
        if srun {
            Value::strings([
                "Conservative",
                "Performance",
                "PowerSave",
                "OnDemand",
                "UserSpace",
            ])
        } else {
            Value::List(Vec::new())
        },
    );
    d.put(
        "kill_request_user",
        s.cancelled_by
            .and_then(|u| (ctx.user_name)(u))
            .map_or(Value::Null, Value::Str),
    );
    d.put("time/start", Value::int(s.start_time.unwrap_or(0)));
    d.put("state", Value::text(s.state.long()));
    d.put("statistics/CPU/actual_frequency", Value::Int(0));
    d.put("statistics/energy/consumed", Value::Int(0));
    d.put("step/job_id", Value::int(job.job_id));
    d.put("step/het/component", Value::Null);
    d.put(
        "step/id",
        match s.step_id {
            StepId::Numbered(n) => Value::int(n),
            other => Value::text(&other.suffix()),
        },
    );
    d.put("step/name", Value::text(&s.name));
    d.put("time/suspended", Value::Int(0));
    cpu_time(&mut d, "time/system", s.system_cpu);
    d.put(
        "task/distribution",
        Value::text(if srun { "Block" } else { "Unknown" }),
    );
    cpu_time(
        &mut d,
        "time/total",
        CpuTime {
            secs: s.user_cpu.secs.saturating_add(s.system_cpu.secs),
            usecs: s.user_cpu.usecs.saturating_add(s.system_cpu.usecs),
        },
    );
    cpu_time(&mut d, "time/user", s.user_cpu);
    d.put(
        "tres/requested/average",
        usage_list(ids, &s.usage.in_ave, false),
    );
    d.put(
        "tres/requested/total",
        usage_list(ids, &s.usage.in_tot, false),
    );
    d.put(
        "tres/consumed/average",
        usage_list(ids, &s.usage.out_ave, false),
    );
    d.put(
        "tres/consumed/total",
        usage_list(ids, &s.usage.out_tot, false),
    );
    d.put("tres/allocated", tres_list(ids, &step_tres(job, s), false));
    d.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{JobState, MemoryRequest};

    fn ctx_for<'a>(ids: &'a TresIds, names: &'a dyn Fn(u32) -> Option<String>) -> DbCtx<'a> {
        DbCtx {
            now: 1000,
            ids,
            user_name: names,
            skip_steps: false,
        }
    }

    #[test]
    fn hex_masks_as_bit_fmt_hexmask() {
        assert_eq!(hex_mask(&[0, 1, 2, 3]), "0xF");
        assert_eq!(hex_mask(&[1, 2, 3]), "0xE");
        assert_eq!(hex_mask(&[4]), "0x10");
        assert_eq!(hex_mask(&[]), "0x0");
    }

    #[test]
    fn exit_codes_keep_the_22_05_slip() {
        let text = |e| super::super::json::to_string(&exit_code(e));
        assert_eq!(
            text(ExitStatus::code(3)),
            "{\n  \"status\": \"SUCCESS\",\n  \"return_code\": 0\n}"
        );
        assert!(text(ExitStatus::signal(15)).contains("\"name\": \"Terminated\""));
    }

    #[test]
    fn tres_lists_sort_by_id_and_mark_energy_unset() {
        let ids = TresIds::from_jobs([]);
        let v = tres_list(&ids, "cpu=1,mem=1G,node=1,billing=1,gres/gpu=2", true);
        let text = super::super::json::to_string(&v);
        let order: Vec<&str> = ["\"cpu\"", "\"mem\"", "\"energy\"", "\"node\"", "\"gres\""]
            .into_iter()
            .collect();
        let pos: Vec<usize> = order.iter().map(|k| text.find(k).unwrap()).collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]));
        assert!(text.contains("\"count\": 1024"));
        assert!(text.contains("\"id\": 1001"));
        assert!(text.contains("\"id\": 3,\n    \"count\": null"));
    }

    #[test]
    fn pending_job_keys_and_flags() {
        let job = JobRecord {
            job_id: 19,
            name: "cancel_pending".into(),
            user: "alice".into(),
            group: "alice".into(),
            account: Some("research".into()),
            cluster: "refcluster".into(),
            partition: "debug".into(),
            state: JobState::Cancelled,
            cancelled_by: Some(1001),
            num_cpus: 1,
            num_nodes: 0,
            memory: MemoryRequest::PerCpu(1024),
            ..Default::default()
        };
        let ids = TresIds::from_jobs([&job]);
        let names = |uid: u32| (uid == 1001).then(|| "alice".to_string());
        let v = dump_db_job(&job, &[], &ctx_for(&ids, &names));
        let Value::Dict(d) = &v else { panic!() };
        let keys: Vec<&str> = d.0.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "account",
                "comment",
                "allocation_nodes",
                "array",
                "association",
                "cluster",
                "constraints",
                "container",
                "derived_exit_code",
                "time",
                "exit_code",
                "flags",
                "group",
                "het",
                "job_id",
                "name",
                "mcs",
                "nodes",
                "partition",
                "priority",
                "qos",
                "required",
                "kill_request_user",
                "reservation",
                "state",
                "steps",
                "tres",
                "user",
                "wckey",
                "working_directory"
            ]
        );
        assert_eq!(d.get("flags"), Some(&Value::List(vec![])));
        assert_eq!(d.get("kill_request_user"), Some(&Value::text("alice")));
        assert_eq!(d.get("nodes"), Some(&Value::text("None assigned")));
    }
}
