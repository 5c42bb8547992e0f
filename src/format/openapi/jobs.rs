//! `squeue --json`: the job records of `GET /slurm/v0.0.38/jobs`, as the v0.0.38 plugin's
//! `dump_job_info` builds them (22.05.8), one dictionary per job in the controller's
//! order, with its key order, its null rules and its known slips reproduced:
//!
//! - `cpus_per_task` is null unless a minimum CPU frequency was requested (the plugin
//!   tests the wrong field); we keep no CPU frequency, so it is always null, as are the
//!   three `cpu_frequency_*` keys.
//! - `core_spec` and `thread_spec` are swapped with respect to the thread flag.
//! - `container` is set twice; the second write lands on the first key.
//!
//! Values a backend cannot know (see docs/COMPAT.md, "--json and --yaml"):
//! - `flags`: only JOB_WAS_RUNNING (a running or suspended job) and JOB_MEM_SET (memory
//!   per node given) are derived; a `--mem-per-cpu` request looks like the partition's
//!   default and does not set JOB_MEM_SET.
//! - `profile`, `sockets_per_board`, `het_job_*` and the federation strings are unset.
//! - `job_resources.allocated_nodes[].cpus_used` and `memory_used` are 0 and every
//!   allocated core shows `allocated`, as 22.05 reports jobs whose steps hold no cores.
//! - The select plugin is taken to be cons_tres with CR_Core (`allocated_cores`).

use super::value::{Dict, Value};
use crate::format::common::{raw_exit, state_long};
use crate::model::array::pending_tasks_str;
use crate::model::{
    ArrayPart, JobRecord, JobState, MemoryRequest, NodeRecord, TimeLimit, hostlist, tres,
};

const NO_VAL: u32 = 0xffff_fffe;
const INFINITE: u32 = 0xffff_ffff;

/// Every job, in the order given.
pub fn dump_jobs(jobs: &[JobRecord], nodes: &[NodeRecord]) -> Vec<Value> {
    jobs.iter().map(|j| dump_job(j, nodes)).collect()
}

/// TRES of the allocation, when the job has one.
fn alloc_tres(job: &JobRecord) -> Option<String> {
    if let Some(t) = &job.tres_alloc {
        return Some(t.clone()).filter(|t| !t.is_empty());
    }
    let allocated = job.nodes.is_some() && job.start_time.is_some_and(|s| s != 0);
    allocated.then(|| job.tres())
}

/// The `flags` list (`job->bitflags`), in the plugin's order.
fn bitflags(job: &JobRecord) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if matches!(job.state, JobState::Running | JobState::Suspended) {
        flags.push("JOB_WAS_RUNNING");
    }
    if matches!(job.memory, MemoryRequest::PerNode(mb) if mb != 0) {
        flags.push("JOB_MEM_SET");
    }
    flags
}

/// `job_share_string` text (our record) back to the plugin's `shared` word.
fn shared(job: &JobRecord) -> Value {
    match job.over_subscribe.as_deref() {
        Some("NO") => Value::text("none"),
        Some("YES") => Value::text("shared"),
        Some("USER") => Value::text("user"),
        Some("MCS") => Value::text("mcs"),
        _ => Value::Null,
    }
}

fn opt_u16(v: Option<u16>) -> Value {
    Value::opt_int(v.filter(|&n| n != 0xfffe && n != 0xffff))
}

/// A string the controller may have sent as NULL; an empty one prints as unset.
fn s(v: &Option<String>) -> Value {
    Value::opt_str(v.as_deref())
}

/// Name lookups (`gid_to_string_or_null`): an unknown name is a real null.
fn name_or_null(v: &str) -> Value {
    if v.is_empty() {
        Value::Null
    } else {
        Value::text(v)
    }
}

/// The node the job's CPUs sit on: sockets, cores per socket, threads per core.
fn topology(nodes: &[NodeRecord], name: &str) -> (u32, u32, u32) {
    match nodes.iter().find(|n| n.name == name) {
        Some(n) => (
            n.sockets.max(1),
            n.cores_per_socket.max(1),
            n.threads_per_core.max(1),
        ),
        None => (1, u32::MAX, 1),
    }
}

/// Expands `0-1,4` into CPU ids.
fn cpu_ids(list: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            // Bounded: a CPU id range wider than any node is a malformed record.
            out.extend((a..=b).take(1 << 16));
        }
    }
    out
}

/// One `allocated_nodes` entry (`_dump_node_res`).
fn node_res(name: &str, cpus: &[u32], mem_mb: u64, nodes: &[NodeRecord]) -> Value {
    let (_sockets, cores_per_socket, threads) = topology(nodes, name);
    let mut cores: Vec<(u32, u32)> = cpus
        .iter()
        .map(|&cpu| {
            let core = cpu / threads;
            (core / cores_per_socket, core % cores_per_socket)
        })
        .collect();
    cores.sort_unstable();
    cores.dedup();
    let mut sockets = Dict::new();
    for (socket, core) in cores {
        let key = socket.to_string();
        if sockets.get(&key).is_none() {
            let mut sd = Dict::new();
            sd.push("cores", Dict::new().into());
            sockets.push(&key, sd.into());
        }
        if let Some(Value::Dict(sd)) = sockets.0.last_mut().map(|(_, v)| v)
            && let Some((_, Value::Dict(cd))) = sd.0.first_mut()
        {
            cd.push(&core.to_string(), Value::text("allocated"));
        }
    }
    let mut d = Dict::with_capacity(5);
    d.push("sockets", sockets.into());
    d.push("nodename", Value::text(name));
    d.push("cpus_used", Value::Int(0));
    d.push("memory_used", Value::Int(0));
    d.push("memory_allocated", Value::u64_wrapping(mem_mb));
    d.into()
}

/// `job_resources`, for a job that holds (or held) an allocation.
fn job_resources(job: &JobRecord, nodes: &[NodeRecord]) -> Option<Value> {
    let job_nodes = job.nodes.as_deref().filter(|n| !n.is_empty())?;
    let mut allocated = Vec::new();
    let mut hosts = 0usize;
    if job.node_alloc.is_empty() {
        // No per-node detail: the job's CPUs spread evenly, from CPU 0 of each node.
        if job.state == JobState::Pending || job.start_time.is_none_or(|s| s == 0) {
            return None;
        }
        let names = hostlist::expand(job_nodes).unwrap_or_default();
        let per_node = job.num_cpus / (names.len().max(1) as u32);
        let cpus: Vec<u32> = (0..per_node.min(1 << 16)).collect();
        let mem = job.memory.per_node_mb(per_node);
        for name in &names {
            allocated.push(node_res(name, &cpus, mem, nodes));
        }
        hosts = names.len();
    } else {
        for a in &job.node_alloc {
            let cpus = cpu_ids(&a.cpu_ids);
            for name in hostlist::expand(&a.nodes).unwrap_or_default() {
                allocated.push(node_res(&name, &cpus, a.mem_mb, nodes));
                hosts += 1;
            }
        }
    }
    let mut d = Dict::with_capacity(4);
    d.push("nodes", Value::text(job_nodes));
    d.push("allocated_cores", Value::int(job.num_cpus));
    d.push("allocated_hosts", Value::Int(hosts as i64));
    d.push("allocated_nodes", Value::List(allocated));
    Some(d.into())
}

/// `gres_detail`: one string per allocated node, when any node has GRES detail.
fn gres_detail(job: &JobRecord) -> Value {
    if job.node_alloc.iter().all(|a| a.gres.is_empty()) {
        return Value::List(Vec::new());
    }
    let mut list = Vec::new();
    for a in &job.node_alloc {
        let n = hostlist::expand(&a.nodes).map_or(1, |h| h.len());
        list.extend(std::iter::repeat_n(Value::str(&a.gres), n));
    }
    Value::List(list)
}

/// One job (`dump_job_info`).
pub fn dump_job(job: &JobRecord, nodes: &[NodeRecord]) -> Value {
    let mut d = Dict::with_capacity(110);
    let (array_job_id, task_id, task_string, pending_throttle) = match &job.array {
        None => (0, None, None, None),
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => (*array_job_id, Some(*task_id), None, None),
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            throttle,
        }) => (
            *array_job_id,
            None,
            Some(pending_tasks_str(tasks, *throttle)),
            *throttle,
        ),
    };
    let tres_alloc = alloc_tres(job);
    d.push("account", s(&job.account));
    d.push("accrue_time", Value::int(job.accrue_time.unwrap_or(0)));
    d.push("admin_comment", s(&job.admin_comment));
    d.push("array_job_id", Value::int(array_job_id));
    d.push("array_task_id", Value::opt_int(task_id));
    d.push(
        "array_max_tasks",
        Value::int(job.array_throttle.or(pending_throttle).unwrap_or(0)),
    );
    d.push("array_task_string", s(&task_string));
    d.push("association_id", Value::int(job.assoc_id));
    d.push("batch_features", s(&job.batch_features));
    d.push("batch_flag", Value::Bool(job.batch));
    d.push("batch_host", s(&job.batch_host));
    d.push("flags", Value::strings(bitflags(job)));
    d.push("burst_buffer", s(&job.burst_buffer));
    d.push("burst_buffer_state", Value::NullStr);
    d.push("cluster", Value::str(&job.cluster));
    d.push("cluster_features", s(&job.cluster_features));
    d.push("command", Value::str(&job.command));
    d.push("comment", s(&job.comment));
    d.push("container", s(&job.container));
    d.push("contiguous", Value::Bool(job.contiguous));
    match job.core_spec.filter(|&c| c != 0xfffe) {
        None => {
            d.push("core_spec", Value::Null);
            d.push("thread_spec", Value::Null);
        }
        // The plugin prints a thread count under `core_spec` and a core count under
        // `thread_spec`.
        Some(c) if c & 0x8000 != 0 => {
            d.push("core_spec", Value::int(c));
            d.push("thread_spec", Value::Null);
        }
        Some(c) => {
            d.push("thread_spec", Value::int(c & 0x7fff));
            d.push("core_spec", Value::Null);
        }
    }
    d.push("cores_per_socket", opt_u16(job.cores_per_socket));
    d.push(
        "billable_tres",
        match &tres_alloc {
            Some(t) => {
                Value::Float(tres::count(t, "billing").unwrap_or(u64::from(job.num_cpus)) as f64)
            }
            None => Value::Null,
        },
    );
    d.push("cpus_per_task", Value::Null);
    d.push("cpu_frequency_minimum", Value::Null);
    d.push("cpu_frequency_maximum", Value::Null);
    d.push("cpu_frequency_governor", Value::Null);
    d.push("cpus_per_tres", s(&job.cpus_per_tres));
    d.push("deadline", Value::int(job.deadline.unwrap_or(0)));
    d.push("delay_boot", Value::int(job.delay_boot));
    d.push("dependency", s(&job.dependency));
    d.push(
        "derived_exit_code",
        Value::int(raw_exit(job.derived_exit_code)),
    );
    d.push("eligible_time", Value::int(job.eligible_time.unwrap_or(0)));
    d.push("end_time", Value::int(job.end_time.unwrap_or(0)));
    d.push("excluded_nodes", s(&job.exc_nodes));
    d.push("exit_code", Value::int(raw_exit(job.exit_code)));
    d.push("features", s(&job.features));
    d.push("federation_origin", Value::NullStr);
    d.push("federation_siblings_active", Value::NullStr);
    d.push("federation_siblings_viable", Value::NullStr);
    d.push("gres_detail", gres_detail(job));
    d.push("group_id", Value::int(job.gid));
    d.push("group_name", name_or_null(&job.group));
    d.push("job_id", Value::int(job.job_id));
    if let Some(r) = job_resources(job, nodes) {
        d.push("job_resources", r);
    }
    d.push("job_state", Value::text(state_long(job)));
    d.push(
        "last_sched_evaluation",
        Value::int(job.last_sched_eval.unwrap_or(0)),
    );
    d.push("licenses", s(&job.licenses));
    d.push("max_cpus", Value::int(job.max_cpus));
    d.push("max_nodes", Value::int(job.max_nodes));
    d.push("mcs_label", s(&job.mcs_label));
    d.push("memory_per_tres", s(&job.mem_per_tres));
    d.push("name", Value::str(&job.name));
    d.push("nodes", s(&job.nodes));
    d.push(
        "nice",
        if job.nice == 0 {
            Value::Null
        } else {
            Value::int(job.nice)
        },
    );
    d.push("tasks_per_core", opt_u16(job.ntasks_per_core));
    d.push(
        "tasks_per_node",
        Value::int(job.ntasks_per_node.unwrap_or(0)),
    );
    d.push("tasks_per_socket", opt_u16(job.ntasks_per_socket));
    d.push(
        "tasks_per_board",
        Value::int(job.ntasks_per_board.unwrap_or(0)),
    );
    let tasks = job.num_tasks.filter(|&t| t != NO_VAL && t != INFINITE);
    d.push(
        "cpus",
        match tasks {
            Some(_) => Value::int(job.num_cpus),
            None => Value::Null,
        },
    );
    d.push("node_count", Value::int(job.num_nodes));
    d.push("tasks", Value::opt_int(tasks));
    d.push("het_job_id", Value::Int(0));
    d.push("het_job_id_set", Value::NullStr);
    d.push("het_job_offset", Value::Int(0));
    d.push("partition", Value::str(&job.partition));
    d.push("prefer", s(&job.prefer));
    let (per_node, per_cpu) = match job.memory {
        MemoryRequest::PerCpu(mb) => (Value::Null, Value::u64_wrapping(mb)),
        MemoryRequest::PerNode(0) => (Value::Null, Value::Null),
        MemoryRequest::PerNode(mb) => (Value::u64_wrapping(mb), Value::Null),
    };
    d.push("memory_per_node", per_node);
    d.push("memory_per_cpu", per_cpu);
    d.push("minimum_cpus_per_node", Value::int(job.min_cpus_per_node));
    d.push(
        "minimum_tmp_disk_per_node",
        Value::u64_wrapping(job.min_tmp_disk),
    );
    d.push("preempt_time", Value::int(job.preempt_time.unwrap_or(0)));
    d.push("pre_sus_time", Value::int(job.pre_sus_time));
    d.push(
        "priority",
        if job.priority == NO_VAL || job.priority == INFINITE {
            Value::Null
        } else {
            Value::int(job.priority)
        },
    );
    d.push("profile", Value::Null);
    d.push("qos", s(&job.qos));
    d.push("reboot", Value::Bool(job.reboot));
    d.push("required_nodes", s(&job.req_nodes));
    d.push("requeue", Value::Bool(job.requeue));
    d.push("resize_time", Value::int(job.resize_time.unwrap_or(0)));
    d.push("restart_cnt", Value::int(job.restarts));
    d.push("resv_name", s(&job.reservation));
    d.push("shared", shared(job));
    d.push(
        "show_flags",
        Value::strings(["SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"]),
    );
    d.push("sockets_per_board", Value::Int(0));
    d.push("sockets_per_node", opt_u16(job.sockets_per_node));
    d.push("start_time", Value::int(job.start_time.unwrap_or(0)));
    let (desc, reason) = match &job.reason_code {
        Some(code) => (Value::str(&job.reason), code.as_str()),
        None => (
            Value::NullStr,
            crate::format::common::reason_text(&job.reason),
        ),
    };
    d.push("state_description", desc);
    d.push("state_reason", Value::text(reason));
    d.push("standard_error", Value::str(&job.std_err));
    d.push("standard_input", Value::str(&job.std_in));
    d.push("standard_output", Value::str(&job.std_out));
    d.push("submit_time", Value::int(job.submit_time));
    d.push("suspend_time", Value::int(job.suspend_time.unwrap_or(0)));
    d.push("system_comment", s(&job.system_comment));
    d.push(
        "time_limit",
        match job.time_limit {
            TimeLimit::Infinite => Value::Null,
            TimeLimit::Minutes(m) => Value::int(m),
        },
    );
    d.push("time_minimum", Value::int(job.time_min.unwrap_or(0)));
    d.push("threads_per_core", opt_u16(job.threads_per_core));
    d.push("tres_bind", s(&job.tres_bind));
    d.push("tres_freq", s(&job.tres_freq));
    d.push("tres_per_job", s(&job.tres_per_job));
    d.push("tres_per_node", s(&job.tres_per_node));
    d.push("tres_per_socket", s(&job.tres_per_socket));
    d.push("tres_per_task", s(&job.tres_per_task));
    d.push(
        "tres_req_str",
        Value::str(&job.tres_req.clone().unwrap_or_else(|| job.tres())),
    );
    d.push("tres_alloc_str", s(&tres_alloc));
    d.push("user_id", Value::int(job.uid));
    d.push("user_name", name_or_null(&job.user));
    d.push("wckey", s(&job.wckey));
    d.push("current_working_directory", Value::str(&job.work_dir));
    d.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ExitStatus, NodeAllocation};

    fn running() -> JobRecord {
        JobRecord {
            job_id: 11,
            name: "long".into(),
            user: "alice".into(),
            uid: 1001,
            group: "alice".into(),
            gid: 1001,
            partition: "debug".into(),
            state: JobState::Running,
            start_time: Some(100),
            submit_time: 90,
            num_cpus: 1,
            num_nodes: 1,
            num_tasks: Some(1),
            memory: MemoryRequest::PerCpu(1024),
            nodes: Some("node01".into()),
            node_alloc: vec![NodeAllocation {
                nodes: "node01".into(),
                cpu_ids: "1".into(),
                mem_mb: 1024,
                gres: String::new(),
            }],
            ..Default::default()
        }
    }

    fn get<'a>(v: &'a Value, key: &str) -> &'a Value {
        match v {
            Value::Dict(d) => d.get(key).expect(key),
            _ => panic!("not a dict"),
        }
    }

    #[test]
    fn running_job_has_resources_and_flags() {
        let nodes = [NodeRecord {
            name: "node01".into(),
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            ..Default::default()
        }];
        let v = dump_job(&running(), &nodes);
        assert_eq!(get(&v, "flags"), &Value::strings(["JOB_WAS_RUNNING"]));
        assert_eq!(get(&v, "billable_tres"), &Value::Float(1.0));
        assert_eq!(
            get(&v, "tres_alloc_str"),
            &Value::text("cpu=1,mem=1G,node=1,billing=1")
        );
        let text = super::super::json::to_string(get(&v, "job_resources"));
        assert!(text.contains("\"0\": {\n"));
        assert!(text.contains("\"1\": \"allocated\""));
        assert!(text.contains("\"allocated_hosts\": 1"));
        assert_eq!(get(&v, "memory_per_node"), &Value::Null);
        assert_eq!(get(&v, "memory_per_cpu"), &Value::Int(1024));
        assert_eq!(get(&v, "nice"), &Value::Null);
    }

    #[test]
    fn pending_job_has_no_resources() {
        let mut j = running();
        j.state = JobState::Pending;
        j.start_time = None;
        j.nodes = None;
        j.node_alloc.clear();
        j.memory = MemoryRequest::PerNode(2048);
        j.reason = "Nodes required for job are DOWN".into();
        j.reason_code = Some("Resources".into());
        j.exit_code = ExitStatus::code(3);
        let v = dump_job(&j, &[]);
        let Value::Dict(d) = &v else { panic!() };
        assert!(d.get("job_resources").is_none());
        assert_eq!(get(&v, "flags"), &Value::strings(["JOB_MEM_SET"]));
        assert_eq!(get(&v, "billable_tres"), &Value::Null);
        assert_eq!(get(&v, "tres_alloc_str"), &Value::NullStr);
        assert_eq!(get(&v, "state_reason"), &Value::text("Resources"));
        assert_eq!(
            get(&v, "state_description"),
            &Value::text("Nodes required for job are DOWN")
        );
        assert_eq!(get(&v, "exit_code"), &Value::Int(768));
    }

    #[test]
    fn thread_and_core_spec_are_swapped_as_in_22_05() {
        let mut j = running();
        j.core_spec = Some(2);
        let v = dump_job(&j, &[]);
        assert_eq!(get(&v, "thread_spec"), &Value::Int(2));
        assert_eq!(get(&v, "core_spec"), &Value::Null);
        let Value::Dict(d) = &v else { panic!() };
        let pos = |k: &str| d.0.iter().position(|(x, _)| x == k).unwrap();
        assert!(pos("thread_spec") < pos("core_spec"));
    }

    #[test]
    fn cpu_ids_expand_and_stay_bounded() {
        assert_eq!(cpu_ids("0-2,5"), vec![0, 1, 2, 5]);
        assert_eq!(cpu_ids("0-4294967295").len(), 1 << 16);
        assert!(cpu_ids("x-y,").is_empty());
    }
}
