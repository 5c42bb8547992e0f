//! `--json`/`--yaml` of Slurm 24.11: the `data_parser` plugins v0.0.42 (the default),
//! v0.0.41 and v0.0.40, for squeue and `scontrol show job` (the `jobs[]` of
//! `openapi_resp_job_info_msg`).
//!
//! The documents have 24.11's shape key for key, in its order: numbers that may be unset
//! or infinite are `{set, infinite, number}` objects, states and flags are lists, exit
//! codes are `{status, return_code, signal}` objects, and the `meta` block names the
//! parser, the client and the command line. v0.0.41 and v0.0.40 are small deltas over
//! v0.0.42 ([`Parser`]). Values the backends do not keep (the controller's job flags,
//! its expected start of a pending job, per-core allocation status) are filled as a
//! fresh 24.11 controller fills them for a job submitted without options.

use super::value::{Dict, Value};
use crate::model::hostlist;
use crate::model::release::Release;
use crate::model::{ArrayPart, ExitStatus, JobRecord, JobState, MemoryRequest, TimeLimit};

/// A data_parser plugin of 24.11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Parser {
    V0040,
    V0041,
    V0042,
}

impl Parser {
    /// `v0.0.42` or `data_parser/v0.0.42`.
    pub fn parse(name: &str) -> Option<Parser> {
        match name.strip_prefix("data_parser/").unwrap_or(name) {
            "v0.0.40" => Some(Parser::V0040),
            "v0.0.41" => Some(Parser::V0041),
            "v0.0.42" => Some(Parser::V0042),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Parser::V0040 => "data_parser/v0.0.40",
            Parser::V0041 => "data_parser/v0.0.41",
            Parser::V0042 => "data_parser/v0.0.42",
        }
    }
}

/// Who asked, for `meta`.
#[derive(Debug, Clone)]
pub struct Client<'a> {
    pub release: Release,
    pub parser: Parser,
    pub user: &'a str,
    pub group: &'a str,
    /// The command line (`meta.command`).
    pub argv: &'a [String],
    pub cluster: &'a str,
    /// The cluster's default partition: a job in it is taken to have been put there.
    pub default_partition: Option<&'a str>,
    /// When the command runs (flags that age, such as DEPENDENT).
    pub now: i64,
}

/// `meta.command` as 24.11 fills it: the command line without its last word (its loop
/// stops one short: `squeue --json -t all` gives `["squeue", "--json", "-t"]`, `squeue
/// --json` gives `["squeue"]`, scontrol's `show job 2` gives `["show", "job"]`).
pub fn command_words(words: &[String]) -> &[String] {
    let keep = if words.len() > 1 {
        words.len() - 1
    } else {
        words.len()
    };
    &words[..keep]
}

/// `{set, infinite, number}` of a number that is set.
pub fn num(n: impl Into<i64>) -> Value {
    nv(true, false, Value::Int(n.into()))
}

/// An unset number (`NO_VAL`).
pub fn unset() -> Value {
    nv(false, false, Value::Int(0))
}

/// An infinite number (`INFINITE`).
pub fn infinite() -> Value {
    nv(false, true, Value::Int(0))
}

fn nv(set: bool, inf: bool, number: Value) -> Value {
    let mut d = Dict::with_capacity(3);
    d.push("set", Value::Bool(set));
    d.push("infinite", Value::Bool(inf));
    d.push("number", number);
    d.into()
}

fn opt_num(n: Option<impl Into<i64>>) -> Value {
    n.map_or_else(unset, num)
}

fn text(s: &str) -> Value {
    Value::text(s)
}

fn opt_text(s: &Option<String>) -> Value {
    Value::text(s.as_deref().unwrap_or(""))
}

fn list(items: &[&str]) -> Value {
    Value::List(items.iter().map(|s| text(s)).collect())
}

/// A process exit as `{status: [...], return_code, signal: {id, name}}`.
pub fn exit_code(e: ExitStatus) -> Value {
    let (status, rc, signal) = if e.signal != 0 {
        ("SIGNALED", unset(), num(e.signal))
    } else if e.code != 0 {
        ("ERROR", num(e.code), unset())
    } else {
        ("SUCCESS", num(0), unset())
    };
    let name = signal_name(e.signal);
    let mut sig = Dict::with_capacity(2);
    sig.push("id", signal);
    sig.push("name", text(&name));
    let mut d = Dict::with_capacity(3);
    d.push("status", list(&[status]));
    d.push("return_code", rc);
    d.push("signal", sig.into());
    d.into()
}

/// A Linux signal's name without `SIG` (`TERM`), as 24.11's parser prints it.
fn signal_name(sig: i32) -> String {
    const NAMES: [&str; 31] = [
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
        "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
        "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "POLL", "PWR", "SYS",
    ];
    usize::try_from(sig)
        .ok()
        .and_then(|s| s.checked_sub(1))
        .and_then(|i| NAMES.get(i))
        .map_or_else(String::new, |n| n.to_string())
}

/// The `meta` block of every 24.11 document.
pub fn meta(c: &Client) -> Value {
    let mut plugin = Dict::with_capacity(4);
    plugin.push("type", text(""));
    plugin.push("name", text(""));
    plugin.push("data_parser", text(c.parser.name()));
    plugin.push("accounting_storage", text("accounting_storage/slurmdbd"));
    let mut client = Dict::with_capacity(3);
    client.push("source", text(""));
    client.push("user", text(c.user));
    client.push("group", text(c.group));
    let mut version = Dict::with_capacity(3);
    version.push("major", text(&c.release.major.to_string()));
    version.push("micro", text(&c.release.micro.to_string()));
    version.push("minor", text(&c.release.minor.to_string()));
    let mut slurm = Dict::with_capacity(3);
    slurm.push("version", version.into());
    slurm.push("release", text(&c.release.text()));
    slurm.push("cluster", text(c.cluster));
    let mut m = Dict::with_capacity(4);
    m.push("plugin", plugin.into());
    m.push("client", client.into());
    m.push(
        "command",
        Value::List(c.argv.iter().map(|a| text(a)).collect()),
    );
    m.push("slurm", slurm.into());
    m.into()
}

/// A 24.11 document as its serializers print it: json-c 0.18 (empty lists and objects
/// inline) or libyaml, each followed by one more newline than 22.05's.
pub fn serialize(doc: &Value, mime: super::Mime) -> Vec<u8> {
    let mut text = match mime {
        super::Mime::Json => super::json::to_string_24(doc),
        super::Mime::Yaml => super::yaml::to_string(doc),
    };
    text.push('\n');
    text.into_bytes()
}

/// `squeue --json` / `scontrol --json show job`: `{jobs, last_backfill, last_update, meta,
/// errors, warnings}`. `last_update` is when the job list was loaded (0 for one job, as
/// `slurm_load_job` answers); `last_backfill` when the backfill scheduler last ran a cycle
/// with jobs to test (0: never, or a backend without one).
pub fn jobs_document(
    jobs: &[&JobRecord],
    last_update: i64,
    last_backfill: i64,
    c: &Client,
) -> Value {
    let mut d = Dict::with_capacity(6);
    d.push(
        "jobs",
        Value::List(
            jobs.iter()
                .map(|j| job_in(j, c.parser, c.default_partition, c.now))
                .collect(),
        ),
    );
    d.push("last_backfill", num(last_backfill));
    d.push("last_update", num(last_update));
    d.push("meta", meta(c));
    d.push("errors", Value::List(Vec::new()));
    d.push("warnings", Value::List(Vec::new()));
    d.into()
}

fn ran(job: &JobRecord) -> bool {
    job.start_time.is_some_and(|t| t != 0) && job.nodes.as_deref().is_some_and(|n| !n.is_empty())
}

/// slurmctld's pass over the pending jobs' dependencies (`purge_old_job`), in seconds.
const PURGE_JOB_INTERVAL: i64 = 60;

/// The controller's job flags, as far as a record tells them, in data_parser's order.
/// Records do not say whether the account, QOS or wckey was asked for (the defaults are
/// what jobs mostly run with), nor whether `--mem-per-cpu` was (a `--mem` was: its
/// per-node request); a job in the default partition is taken to have been put there.
/// DEPENDENT is set on every new job and cleared when slurmctld first finds it free of
/// dependencies (`test_job_dependency`): the scheduler does so for an eligible job at once,
/// and `purge_old_job` for every pending job, held ones too, once a minute
/// (PURGE_JOB_INTERVAL, same in 22.05 and 24.11): a job with a dependency keeps it, one held
/// since its submission (never eligible) loses it at the first pass, taken here as a
/// minute after its submission (the pass's phase is the controller's).
fn flags(job: &JobRecord, default_partition: Option<&str>, now: i64) -> Value {
    let mut f: Vec<&str> = Vec::new();
    if job.step_ended_after_job {
        f.push("SKIP_TRES_STRING_ACCOUNTING");
    }
    if job.ntasks_requested {
        f.push("EXACT_TASK_COUNT_REQUESTED");
    }
    if job.state == JobState::Running {
        f.push("JOB_WAS_RUNNING");
    }
    if matches!(job.memory, crate::model::MemoryRequest::PerNode(_)) {
        f.push("EXACT_MEMORY_REQUESTED");
    }
    let default_part = default_partition.is_none_or(|p| p == job.partition);
    f.push("USING_DEFAULT_ACCOUNT");
    if default_part {
        f.push("USING_DEFAULT_PARTITION");
    }
    f.extend(["USING_DEFAULT_QOS", "USING_DEFAULT_WCKEY"]);
    let never_tested = job.priority == 0
        && job.eligible_time.is_none()
        && now - job.submit_time < PURGE_JOB_INTERVAL;
    if job.state == JobState::Pending && (job.dependency.is_some() || never_tested) {
        f.push("DEPENDENT");
    }
    if default_part {
        f.push("PARTITION_ASSIGNED");
    }
    list(&f)
}

/// `job_state`: the base state, with COMPLETING and friends after it.
fn job_state(job: &JobRecord) -> Value {
    let mut s = vec![job.state.long()];
    if matches!(job.flag, crate::model::StateFlag::Completing) {
        s.push("COMPLETING");
    }
    list(&s)
}

/// CPUs allocated on each node of the job, and those nodes.
fn allocation(job: &JobRecord) -> Vec<(String, Vec<u32>, u64)> {
    if !job.node_alloc.is_empty() {
        let mut out = Vec::new();
        for a in &job.node_alloc {
            let cpus: Vec<u32> = a
                .cpu_ids
                .split(',')
                .filter_map(|r| match r.split_once('-') {
                    Some((lo, hi)) => Some((lo.parse().ok()?..=hi.parse().ok()?).collect()),
                    None => r.parse().ok().map(|c| vec![c]),
                })
                .flatten()
                .collect::<Vec<u32>>();
            for n in hostlist::expand(&a.nodes).unwrap_or_default() {
                out.push((n, cpus.clone(), a.mem_mb));
            }
        }
        return out;
    }
    let names = job
        .nodes
        .as_deref()
        .and_then(hostlist::expand)
        .unwrap_or_default();
    let per_node = job.num_cpus / (names.len().max(1) as u32);
    let cpus: Vec<u32> = (0..per_node.min(1 << 12)).collect();
    let mem = job.memory.per_node_mb(per_node);
    names.into_iter().map(|n| (n, cpus.clone(), mem)).collect()
}

fn job_resources(job: &JobRecord, parser: Parser) -> Value {
    if !ran(job) {
        return if parser == Parser::V0040 {
            Dict::new().into()
        } else {
            Value::Null
        };
    }
    let nodes = allocation(job);
    let list_text = job.nodes.clone().unwrap_or_default();
    if parser == Parser::V0040 {
        let mut allocated = Vec::new();
        for (name, cpus, mem) in &nodes {
            let mut cores = Dict::new();
            for c in cpus {
                cores.push(&c.to_string(), text("allocated"));
            }
            let mut socket = Dict::new();
            socket.push("cores", cores.into());
            let mut sockets = Dict::new();
            sockets.push("0", socket.into());
            let mut n = Dict::with_capacity(5);
            n.push("sockets", sockets.into());
            n.push("nodename", text(name));
            n.push("cpus_used", Value::Int(0));
            n.push("memory_used", Value::Int(0));
            n.push("memory_allocated", Value::u64_wrapping(*mem));
            allocated.push(n.into());
        }
        let mut d = Dict::with_capacity(5);
        d.push("nodes", text(&list_text));
        d.push("allocated_cores", Value::int(job.num_cpus));
        d.push("allocated_cpus", Value::Int(0));
        d.push("allocated_hosts", Value::Int(nodes.len() as i64));
        d.push("allocated_nodes", Value::List(allocated));
        return d.into();
    }
    let mut allocation = Vec::new();
    for (i, (name, cpus, mem)) in nodes.iter().enumerate() {
        let total = cpus.iter().copied().max().map_or(1, |m| m + 1).max(2);
        let cores: Vec<Value> = (0..total)
            .map(|c| {
                let mut core = Dict::with_capacity(2);
                core.push("index", Value::int(c));
                core.push(
                    "status",
                    list(&[if cpus.contains(&c) {
                        "ALLOCATED"
                    } else {
                        "UNALLOCATED"
                    }]),
                );
                core.into()
            })
            .collect();
        let mut socket = Dict::with_capacity(2);
        socket.push("index", Value::Int(0));
        socket.push("cores", Value::List(cores));
        let mut c = Dict::with_capacity(2);
        c.push("count", Value::Int(cpus.len() as i64));
        c.push("used", Value::Int(0));
        let mut m = Dict::with_capacity(2);
        m.push("used", Value::Int(0));
        m.push("allocated", Value::u64_wrapping(*mem));
        let mut n = Dict::with_capacity(6);
        n.push("index", Value::Int(i as i64));
        n.push("name", text(name));
        n.push("cpus", c.into());
        n.push("memory", m.into());
        n.push("sockets", Value::List(vec![socket.into()]));
        allocation.push(n.into());
    }
    let mut ns = Dict::with_capacity(5);
    ns.push("count", Value::Int(nodes.len() as i64));
    ns.push("select_type", list(&["ONE_ROW"]));
    ns.push("list", text(&list_text));
    ns.push("whole", Value::Bool(false));
    ns.push("allocation", Value::List(allocation));
    let mut d = Dict::with_capacity(4);
    d.push("select_type", list(&["CORE"]));
    d.push("nodes", ns.into());
    d.push("cpus", Value::int(job.num_cpus));
    d.push("threads_per_core", unset());
    d.into()
}

fn time_limit(t: TimeLimit) -> Value {
    match t {
        TimeLimit::Infinite => infinite(),
        TimeLimit::Minutes(m) => num(m),
    }
}

/// One job of `jobs[]`, as of `now`.
pub fn job(job: &JobRecord, parser: Parser, now: i64) -> Value {
    job_in(job, parser, None, now)
}

fn job_in(job: &JobRecord, parser: Parser, default_partition: Option<&str>, now: i64) -> Value {
    let (array_job_id, task_id, task_string, throttle) = match &job.array {
        None => (0, None, String::new(), job.array_throttle),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (
            *array_job_id,
            Some(*task_id),
            String::new(),
            job.array_throttle,
        ),
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            throttle,
        }) => (
            *array_job_id,
            None,
            crate::model::array::pending_tasks_str(tasks, *throttle),
            *throttle,
        ),
    };
    let pending = job.state == JobState::Pending;
    let (mem_cpu, mem_node) = match job.memory {
        MemoryRequest::PerCpu(mb) => (num(mb as i64), unset()),
        MemoryRequest::PerNode(mb) => (unset(), num(mb as i64)),
    };
    let mut d = Dict::with_capacity(130);
    d.push("account", opt_text(&job.account));
    d.push("accrue_time", num(job.accrue_time.unwrap_or(0)));
    d.push("admin_comment", opt_text(&job.admin_comment));
    d.push("allocating_node", text(&job.alloc_node));
    d.push("array_job_id", num(array_job_id));
    d.push("array_task_id", opt_num(task_id));
    d.push("array_max_tasks", num(throttle.unwrap_or(0)));
    d.push("array_task_string", text(&task_string));
    d.push("association_id", Value::int(job.assoc_id));
    d.push("batch_features", opt_text(&job.batch_features));
    d.push("batch_flag", Value::Bool(job.batch));
    d.push("batch_host", opt_text(&job.batch_host));
    d.push("flags", flags(job, default_partition, now));
    d.push("burst_buffer", opt_text(&job.burst_buffer));
    d.push("burst_buffer_state", text(""));
    d.push("cluster", text(&job.cluster));
    d.push("cluster_features", opt_text(&job.cluster_features));
    d.push("command", text(&job.command));
    d.push("comment", opt_text(&job.comment));
    d.push("container", opt_text(&job.container));
    d.push("container_id", text(""));
    d.push("contiguous", Value::Bool(job.contiguous));
    d.push("core_spec", Value::int(job.core_spec.unwrap_or(0)));
    d.push("thread_spec", Value::Int(32766));
    d.push("cores_per_socket", opt_num(job.cores_per_socket));
    let billing = crate::model::tres::count(&job.tres(), "billing").unwrap_or(0);
    d.push(
        "billable_tres",
        if ran(job) {
            nv(true, false, Value::Float(billing as f64))
        } else {
            nv(false, false, Value::Float(0.0))
        },
    );
    d.push(
        "cpus_per_task",
        opt_num(Some(job.cpus_per_task).filter(|&c| c != 0)),
    );
    d.push("cpu_frequency_minimum", unset());
    d.push("cpu_frequency_maximum", unset());
    d.push("cpu_frequency_governor", unset());
    d.push("cpus_per_tres", opt_text(&job.cpus_per_tres));
    d.push("cron", text(""));
    d.push("deadline", num(job.deadline.unwrap_or(0)));
    d.push("delay_boot", num(job.delay_boot));
    d.push("dependency", opt_text(&job.dependency));
    d.push("derived_exit_code", exit_code(job.derived_exit_code));
    d.push("eligible_time", num(job.eligible_time.unwrap_or(0)));
    d.push("end_time", num(job.end_time.unwrap_or(0)));
    d.push("excluded_nodes", opt_text(&job.exc_nodes));
    d.push("exit_code", exit_code(job.exit_code));
    d.push("extra", text(""));
    d.push("failed_node", text(""));
    d.push("features", opt_text(&job.features));
    d.push("federation_origin", text(""));
    d.push("federation_siblings_active", text(""));
    d.push("federation_siblings_viable", text(""));
    d.push("gres_detail", Value::List(Vec::new()));
    d.push("group_id", Value::int(job.gid));
    d.push("group_name", text(&job.group));
    d.push("het_job_id", num(0));
    d.push("het_job_id_set", text(""));
    d.push("het_job_offset", num(0));
    d.push("job_id", Value::int(job.job_id));
    d.push("job_resources", job_resources(job, parser));
    d.push("job_size_str", Value::List(Vec::new()));
    d.push("job_state", job_state(job));
    d.push(
        "last_sched_evaluation",
        num(job.last_sched_eval.unwrap_or(0)),
    );
    d.push("licenses", opt_text(&job.licenses));
    d.push(
        "mail_type",
        Value::List(
            job.mail_type
                .as_deref()
                .map(|t| t.split(',').map(text).collect())
                .unwrap_or_default(),
        ),
    );
    d.push(
        "mail_user",
        text(job.mail_user.as_deref().unwrap_or(&job.user)),
    );
    d.push("max_cpus", num(job.max_cpus));
    d.push("max_nodes", num(job.max_nodes));
    d.push("mcs_label", opt_text(&job.mcs_label));
    d.push("memory_per_tres", opt_text(&job.mem_per_tres));
    d.push("name", text(&job.name));
    d.push("network", opt_text(&job.network));
    d.push("nodes", opt_text(&job.nodes));
    d.push("nice", Value::int(job.nice));
    d.push("tasks_per_core", infinite());
    d.push("tasks_per_tres", num(0));
    d.push("tasks_per_node", num(job.ntasks_per_node.unwrap_or(0)));
    d.push("tasks_per_socket", infinite());
    d.push("tasks_per_board", num(0));
    d.push("cpus", num(job.num_cpus));
    d.push("node_count", num(job.num_nodes));
    d.push("tasks", opt_num(job.num_tasks));
    d.push("partition", text(&job.partition));
    d.push("prefer", opt_text(&job.prefer));
    d.push("memory_per_cpu", mem_cpu);
    d.push("memory_per_node", mem_node);
    d.push("minimum_cpus_per_node", num(job.min_cpus_per_node));
    d.push(
        "minimum_tmp_disk_per_node",
        num(i64::try_from(job.min_tmp_disk).unwrap_or(i64::MAX)),
    );
    let mut power = Dict::with_capacity(1);
    power.push("flags", Value::List(Vec::new()));
    d.push("power", power.into());
    d.push("preempt_time", num(job.preempt_time.unwrap_or(0)));
    d.push("preemptable_time", num(0));
    d.push("pre_sus_time", num(job.pre_sus_time));
    d.push("hold", Value::Bool(pending && job.priority == 0));
    d.push("priority", num(job.priority));
    if parser >= Parser::V0042 {
        d.push("priority_by_partition", Value::List(Vec::new()));
    }
    d.push("profile", list(&["NOT_SET"]));
    d.push("qos", opt_text(&job.qos));
    d.push("reboot", Value::Bool(job.reboot));
    d.push("required_nodes", opt_text(&job.req_nodes));
    if parser >= Parser::V0042 {
        d.push("required_switches", Value::Int(0));
    } else {
        d.push("minimum_switches", Value::Int(0));
    }
    d.push("requeue", Value::Bool(job.requeue));
    d.push("resize_time", num(job.resize_time.unwrap_or(0)));
    d.push("restart_cnt", Value::int(job.restarts));
    d.push("resv_name", opt_text(&job.reservation));
    d.push("scheduled_nodes", text(""));
    d.push("selinux_context", text(""));
    d.push("shared", Value::List(Vec::new()));
    if parser < Parser::V0042 {
        d.push("exclusive", Value::List(Vec::new()));
        d.push("oversubscribe", Value::Bool(true));
        d.push("show_flags", Value::List(Vec::new()));
    }
    d.push("sockets_per_board", Value::Int(0));
    d.push("sockets_per_node", opt_num(job.sockets_per_node));
    d.push("start_time", num(job.start_time.unwrap_or(0)));
    d.push(
        "state_description",
        text(if job.reason_code.is_some() {
            &job.reason
        } else {
            ""
        }),
    );
    d.push(
        "state_reason",
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
    d.push("standard_error", text(&job.std_err));
    d.push("standard_input", text(&job.std_in));
    d.push("standard_output", text(&job.std_out));
    d.push("submit_time", num(job.submit_time));
    d.push("suspend_time", num(job.suspend_time.unwrap_or(0)));
    d.push("system_comment", opt_text(&job.system_comment));
    d.push("time_limit", time_limit(job.time_limit));
    d.push("time_minimum", num(job.time_min.unwrap_or(0)));
    d.push("threads_per_core", opt_num(job.threads_per_core));
    d.push("tres_bind", opt_text(&job.tres_bind));
    d.push("tres_freq", opt_text(&job.tres_freq));
    d.push("tres_per_job", opt_text(&job.tres_per_job));
    d.push("tres_per_node", opt_text(&job.tres_per_node));
    d.push("tres_per_socket", opt_text(&job.tres_per_socket));
    d.push("tres_per_task", opt_text(&job.tres_per_task));
    d.push(
        "tres_req_str",
        text(&job.tres_req.clone().unwrap_or_else(|| job.tres())),
    );
    d.push(
        "tres_alloc_str",
        text(
            &job.tres_alloc
                .clone()
                .or_else(|| ran(job).then(|| job.tres()))
                .unwrap_or_default(),
        ),
    );
    d.push("user_id", Value::int(job.uid));
    d.push("user_name", text(&job.user));
    d.push("maximum_switch_wait_time", Value::Int(0));
    d.push("wckey", opt_text(&job.wckey));
    d.push("current_working_directory", text(&job.work_dir));
    d.into()
}

/// `scontrol --json show node`: `{nodes, last_update, meta, errors, warnings}` (the
/// same shape for every parser version here).
pub fn nodes_document(nodes: &[&crate::model::NodeRecord], now: i64, c: &Client) -> Value {
    let mut d = Dict::with_capacity(5);
    d.push(
        "nodes",
        Value::List(nodes.iter().map(|n| node(n, c.parser)).collect()),
    );
    d.push("last_update", num(now));
    d.push("meta", meta(c));
    d.push("errors", Value::List(Vec::new()));
    d.push("warnings", Value::List(Vec::new()));
    d.into()
}

fn csv_list(s: &Option<String>) -> Value {
    Value::List(
        s.as_deref()
            .unwrap_or("")
            .split(',')
            .filter(|x| !x.is_empty())
            .map(text)
            .collect(),
    )
}

/// One node of `nodes[]` (v0.0.40 has no `gpu_spec` nor `res_cores_per_gpu`).
pub fn node(n: &crate::model::NodeRecord, parser: Parser) -> Value {
    let v41 = parser >= Parser::V0041;
    use crate::model::node_state;
    let mut d = Dict::with_capacity(64);
    d.push("architecture", text(&n.arch));
    d.push("burstbuffer_network_address", text(""));
    d.push("boards", Value::int(n.boards));
    d.push("boot_time", num(n.boot_time.unwrap_or(0)));
    d.push("cluster_name", text(""));
    d.push("cores", Value::int(n.cores_per_socket));
    d.push("specialized_cores", Value::Int(0));
    d.push("cpu_binding", Value::Int(0));
    d.push(
        "cpu_load",
        Value::Int(n.cpu_load.map_or(0, |l| (l * 100.0).round() as i64)),
    );
    d.push(
        "free_mem",
        n.free_memory
            .map_or_else(unset, |f| num(i64::try_from(f).unwrap_or(i64::MAX))),
    );
    d.push("cpus", Value::int(n.cpus));
    d.push("effective_cpus", Value::int(n.cpus));
    d.push("specialized_cpus", text(""));
    let mut energy = Dict::with_capacity(6);
    energy.push("average_watts", Value::int(n.ave_watts.unwrap_or(0)));
    energy.push("base_consumed_energy", Value::Int(0));
    energy.push("consumed_energy", Value::Int(0));
    energy.push("current_watts", num(n.current_watts.unwrap_or(0)));
    energy.push("previous_consumed_energy", Value::Int(0));
    energy.push("last_collected", Value::Int(0));
    d.push("energy", energy.into());
    d.push("external_sensors", Dict::new().into());
    d.push("extra", opt_text(&n.extra));
    d.push("power", Dict::new().into());
    d.push("features", csv_list(&n.features));
    d.push("active_features", csv_list(&n.features_active));
    if v41 {
        d.push("gpu_spec", text(""));
    }
    d.push("gres", opt_text(&n.gres));
    d.push("gres_drained", text("N/A"));
    d.push("gres_used", opt_text(&n.gres_used));
    d.push("instance_id", text(""));
    d.push("instance_type", text(""));
    d.push("last_busy", num(n.last_busy.unwrap_or(0)));
    d.push("mcs_label", opt_text(&n.mcs_label));
    d.push("specialized_memory", Value::Int(0));
    d.push("name", text(&n.name));
    d.push("next_state_after_reboot", list(&["INVALID"]));
    d.push("address", text(&n.address));
    d.push("hostname", text(&n.hostname));
    let complete = node_state::complete_name(node_state::state_word(n));
    d.push(
        "state",
        Value::List(complete.split('+').map(text).collect()),
    );
    d.push("operating_system", text(&n.os));
    d.push("owner", text(""));
    d.push(
        "partitions",
        Value::List(n.partitions.iter().map(|p| text(p)).collect()),
    );
    d.push("port", Value::int(n.port.unwrap_or(0)));
    d.push(
        "real_memory",
        Value::Int(i64::try_from(n.real_memory).unwrap_or(i64::MAX)),
    );
    if v41 {
        d.push("res_cores_per_gpu", Value::Int(0));
    }
    d.push("comment", opt_text(&n.comment));
    d.push("reason", opt_text(&n.reason));
    d.push("reason_changed_at", num(n.reason_time.unwrap_or(0)));
    d.push("reason_set_by_user", opt_text(&n.reason_user));
    d.push("resume_after", num(0));
    d.push("reservation", text(""));
    d.push(
        "alloc_memory",
        Value::Int(i64::try_from(n.alloc_memory).unwrap_or(i64::MAX)),
    );
    d.push("alloc_cpus", Value::int(n.alloc_cpus));
    d.push(
        "alloc_idle_cpus",
        Value::int(n.cpus.saturating_sub(n.alloc_cpus)),
    );
    d.push("tres_used", opt_text(&n.alloc_tres));
    let billing = n
        .alloc_tres
        .as_deref()
        .and_then(|t| crate::model::tres::count(t, "cpu"))
        .unwrap_or(0);
    d.push("tres_weighted", Value::Float(billing as f64));
    d.push("slurmd_start_time", num(n.slurmd_start_time.unwrap_or(0)));
    d.push("sockets", Value::int(n.sockets));
    d.push("threads", Value::int(n.threads_per_core));
    d.push(
        "temporary_disk",
        Value::Int(i64::try_from(n.tmp_disk).unwrap_or(i64::MAX)),
    );
    d.push("weight", Value::int(n.weight));
    d.push("tres", opt_text(&n.cfg_tres));
    d.push("version", text(&n.version));
    d.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_states_and_exit_codes_are_objects() {
        let j = JobRecord {
            job_id: 7,
            state: JobState::Failed,
            exit_code: ExitStatus::code(3),
            ..Default::default()
        };
        let Value::Dict(d) = job(&j, Parser::V0042, 0) else {
            panic!()
        };
        assert_eq!(d.get("job_state"), Some(&list(&["FAILED"])));
        assert_eq!(d.get("priority"), Some(&num(0)));
        assert_eq!(d.get("time_limit"), Some(&infinite()));
        let Some(Value::Dict(e)) = d.get("exit_code") else {
            panic!()
        };
        assert_eq!(e.get("status"), Some(&list(&["ERROR"])));
        assert_eq!(e.get("return_code"), Some(&num(3)));
        // v0.0.41 and v0.0.40 are deltas of v0.0.42.
        let Value::Dict(old) = super::job(&j, Parser::V0041, 0) else {
            panic!()
        };
        assert!(old.get("priority_by_partition").is_none());
        assert!(old.get("minimum_switches").is_some());
        assert_eq!(Parser::parse("data_parser/v0.0.40"), Some(Parser::V0040));
        assert_eq!(Parser::parse("v0.0.39"), None);
    }

    /// A job held since its submission is DEPENDENT until slurmctld's first pass over the
    /// pending jobs' dependencies (a minute at most); one that waits for a dependency stays
    /// so; a task count asked for is EXACT_TASK_COUNT_REQUESTED, before JOB_WAS_RUNNING.
    #[test]
    fn flags_follow_the_controller_s_bits() {
        let held = JobRecord {
            state: JobState::Pending,
            priority: 0,
            submit_time: 1000,
            ..Default::default()
        };
        let dependent = |j: &JobRecord, now| {
            let Value::List(f) = flags(j, None, now) else {
                panic!()
            };
            f.contains(&text("DEPENDENT"))
        };
        assert!(dependent(&held, 1005));
        assert!(!dependent(&held, 1000 + PURGE_JOB_INTERVAL));
        let waiting = JobRecord {
            dependency: Some("afterok:3(unfulfilled)".into()),
            ..held.clone()
        };
        assert!(dependent(&waiting, 5000));
        let running = JobRecord {
            state: JobState::Running,
            ntasks_requested: true,
            ..Default::default()
        };
        let Value::List(f) = flags(&running, None, 0) else {
            panic!()
        };
        assert_eq!(
            f[..2],
            [text("EXACT_TASK_COUNT_REQUESTED"), text("JOB_WAS_RUNNING")]
        );
    }
}
