//! A `Cluster` over what a real Slurm 22.05.8 reported at one moment (`tests/golden/_records/<phase>`):
//! `squeue --json` for jobs, `sacct --json` for accounting, `sinfo --json` for nodes, and
//! the `scontrol show` captures for what those JSON dumps leave out.
//!
//! Where the recorded JSON is known to be wrong or silent, this loader fills the gap, and
//! each such place says so:
//! - Slurm 22.05's `sacct --json` reports a non-zero exit status as `SUCCESS/0` (job 2
//!   exited 3, its JSON says 0). For a FAILED job claiming success, the exit and derived
//!   exit codes come from `squeue --json` (raw wait status words); a FAILED step claiming
//!   success gets the job's exit code (batch step) or derived exit code (srun steps),
//!   which is what sacct printed.
//! - `sacct --json` has `kill_request_user: null` even for jobs sacct shows as
//!   `CANCELLED by 1001`. Every cancellation in the capture script was made by the job's
//!   owner (`scancel 11`, `scancel 19` as alice), so CANCELLED jobs get their owner's uid.
//! - `squeue --json` lacks AllocNode:Sid, CPUs/Task and the per-node allocation lines;
//!   they are read from `scontrol show job -d`.
//! - `sinfo --json` has no partitions; they come from `scontrol show partition`.
//! - `sacct --json` names a job's memory request only as a number (`required/memory`);
//!   whether it is per CPU or per node, and whether the job is a batch job, come from the
//!   controller's record of the same job.

use bai_slurm::backend::{AccountingQuery, BackendError, Cluster};
use bai_slurm::model::job::{CpuTime, StepUsage, TresUsage};
use bai_slurm::model::{
    ArrayPart, ExitStatus, JobRecord, JobState, MemoryRequest, NodeAllocation, NodeRecord,
    NodeState, PartitionRecord, StateFlag, StepId, StepRecord, TimeLimit,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One recorded moment of the reference cluster.
pub struct Recorded {
    jobs: Vec<JobRecord>,
    accounting: Vec<JobRecord>,
    partitions: Vec<PartitionRecord>,
    nodes: Vec<NodeRecord>,
    /// The controller's last backfill cycle with jobs to test (24.11's records say it).
    last_backfill: i64,
}

impl Cluster for Recorded {
    fn cluster_name(&self) -> String {
        "refcluster".to_string()
    }
    fn jobs(&self) -> Result<Vec<JobRecord>, BackendError> {
        Ok(self.jobs.clone())
    }
    fn accounting(&self, _query: &AccountingQuery) -> Result<Vec<JobRecord>, BackendError> {
        Ok(self.accounting.clone())
    }
    fn partitions(&self) -> Result<Vec<PartitionRecord>, BackendError> {
        Ok(self.partitions.clone())
    }
    fn nodes(&self) -> Result<Vec<NodeRecord>, BackendError> {
        Ok(self.nodes.clone())
    }
    fn last_backfill(&self) -> Result<i64, BackendError> {
        Ok(self.last_backfill)
    }
}

pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

impl Recorded {
    /// Loads `_records/<phase>` (`P1`, `P2`, `P3`, `drain`) of the 22.05 goldens.
    pub fn load(phase: &str) -> Recorded {
        Recorded::load_in(&golden_dir(), phase)
    }

    /// Loads `_records/<phase>` of the golden set in `root` (`tests/golden` for 22.05,
    /// `tests/golden/24.11`). 24.11's records are data_parser v0.0.42 documents; they are
    /// read through [`v42`], which turns them into the v0.0.38 shapes this loader reads.
    pub fn load_in(root: &Path, phase: &str) -> Recorded {
        let dir = root.join("_records").join(phase);
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        let json = |f: &str| -> Value { serde_json::from_str(&read(f)).unwrap_or(Value::Null) };
        let scontrol_jobs = parse_blocks(&read("scontrol_show_job.txt"));
        let mut squeue = json("squeue.json");
        let mut sacct = json("sacct.json");
        let is_v42 = !squeue["meta"]["plugin"]["data_parser"].is_null();
        let last_backfill = squeue["last_backfill"]["number"].as_i64().unwrap_or(0);
        if is_v42 {
            v42::squeue(&mut squeue);
            v42::sacct(&mut sacct);
        }
        let raw_exits: BTreeMap<u64, (i64, i64)> = arr(&squeue["jobs"])
            .iter()
            .map(|j| {
                (
                    u(&j["job_id"]),
                    (i(&j["exit_code"]), i(&j["derived_exit_code"])),
                )
            })
            .collect();
        let mut accounting: Vec<JobRecord> = arr(&sacct["jobs"])
            .iter()
            .map(|j| accounting_job(j, &raw_exits))
            .collect();
        let mut jobs: Vec<JobRecord> = arr(&squeue["jobs"])
            .iter()
            .map(|j| {
                let mut job = controller_job(j);
                if let Some(block) = scontrol_jobs
                    .iter()
                    .find(|b| b.get("JobId") == Some(&job.job_id.to_string()))
                {
                    apply_scontrol(&mut job, block);
                }
                if let Some(acct) = accounting.iter().find(|a| a.job_id == job.job_id) {
                    job.steps = acct.steps.clone();
                }
                job
            })
            .collect();
        // The controller keeps running steps with the job; they come from accounting.
        for job in &mut jobs {
            if job.state.is_finished() {
                continue;
            }
            for step in &mut job.steps {
                step.end_time = None;
            }
        }
        // 24.11's accounting keeps the -o/-e/-i patterns as submitted.
        if is_v42 {
            for j in arr(&sacct["jobs"]) {
                let id = u(&j["job_id"]) as u32;
                let out = s(&j["stdout"]);
                let patterns = bai_slurm::model::job::IoPatterns {
                    std_err: nz_str(&j["stderr"]).unwrap_or_else(|| out.clone()),
                    std_in: s(&j["stdin"]),
                    std_out: out,
                };
                for rec in jobs.iter_mut().chain(accounting.iter_mut()) {
                    if rec.job_id == id {
                        rec.io_patterns = Some(patterns.clone());
                    }
                }
                // What 24.11's accounting adds: the expanded paths, the submit line and
                // the association's id.
                if let Some(acct) = accounting.iter_mut().find(|a| a.job_id == id) {
                    acct.std_out = s(&j["stdout_expanded"]);
                    acct.std_err = s(&j["stderr_expanded"]);
                    acct.std_in = s(&j["stdin_expanded"]);
                    acct.submit_line = nz_str(&j["submit_line"]);
                    acct.assoc_id = u(&j["association"]["id"]) as u32;
                }
            }
            // Jobs not yet eligible are not in accounting: every such job of the
            // scenario writes to the default `slurm-%j.out`, which its path shows.
            for rec in jobs
                .iter_mut()
                .filter(|r| r.batch && r.io_patterns.is_none())
            {
                let default = format!("{}/slurm-{}.out", rec.work_dir, rec.job_id);
                if rec.std_out == default && rec.std_err == default {
                    let pattern = format!("{}/slurm-%j.out", rec.work_dir);
                    rec.io_patterns = Some(bai_slurm::model::job::IoPatterns {
                        std_out: pattern.clone(),
                        std_err: pattern,
                        std_in: rec.std_in.clone(),
                    });
                }
            }
        }
        for acct in &mut accounting {
            if let Some(j) = jobs.iter().find(|j| j.job_id == acct.job_id) {
                acct.cluster = j.cluster.clone();
                acct.batch = j.batch;
                acct.memory = j.memory;
            }
        }
        let partitions = parse_blocks(&read("scontrol_show_partition.txt"))
            .iter()
            .map(partition)
            .collect();
        let node_blocks = parse_blocks(&read("scontrol_show_node.txt"));
        let node_json = if is_v42 {
            v42::nodes(&node_blocks, &json("sinfo.json"))
        } else {
            json("sinfo.json")["nodes"].clone()
        };
        let nodes = arr(&node_json)
            .iter()
            .map(|n| node(n, &node_blocks))
            .collect();
        Recorded {
            jobs,
            accounting,
            partitions,
            nodes,
            last_backfill,
        }
    }
}

/// The reference machine's users (and their same-named groups): sacct's JSON names them
/// but gives no ids.
pub fn uid_of(name: &str) -> u32 {
    match name {
        "root" => 0,
        "alice" => 1001,
        "bob" => 1002,
        _ => 65534,
    }
}

fn arr(v: &Value) -> Vec<Value> {
    v.as_array().cloned().unwrap_or_default()
}
fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}
fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}
fn s(v: &Value) -> String {
    v.as_str().unwrap_or("").to_string()
}
fn nz_str(v: &Value) -> Option<String> {
    Some(s(v)).filter(|x| !x.is_empty())
}
fn time(v: &Value) -> Option<i64> {
    Some(i(v)).filter(|&t| t != 0)
}
fn u16o(v: &Value) -> Option<u16> {
    v.as_u64().and_then(|n| u16::try_from(n).ok())
}

fn state_of(name: &str) -> (JobState, StateFlag) {
    match name {
        "COMPLETING" => (JobState::Completed, StateFlag::Completing),
        "CONFIGURING" => (JobState::Running, StateFlag::Configuring),
        other => (JobState::parse(other).unwrap_or_default(), StateFlag::None),
    }
}

fn tasks_from_ranges(s: &str) -> Vec<u32> {
    let body = s.split('%').next().unwrap_or("");
    bai_slurm::model::jobid::parse_task_list(body).unwrap_or_default()
}

/// A job from `squeue --json`.
fn controller_job(j: &Value) -> JobRecord {
    let (state, flag) = state_of(&s(&j["job_state"]));
    let array_job_id = u(&j["array_job_id"]) as u32;
    let task_str = s(&j["array_task_string"]);
    let throttle = Some(u(&j["array_max_tasks"]) as u32).filter(|&t| t != 0);
    let array = if !task_str.is_empty() {
        Some(ArrayPart::Pending {
            array_job_id,
            tasks: tasks_from_ranges(&task_str),
            throttle,
        })
    } else if array_job_id != 0 {
        j["array_task_id"].as_u64().map(|t| ArrayPart::Task {
            array_job_id,
            task_id: t as u32,
        })
    } else {
        None
    };
    let desc = s(&j["state_description"]);
    let memory = match (j["memory_per_node"].as_u64(), j["memory_per_cpu"].as_u64()) {
        (Some(n), _) => MemoryRequest::PerNode(n),
        (None, Some(c)) => MemoryRequest::PerCpu(c),
        _ => MemoryRequest::PerNode(0),
    };
    let tres_req = nz_str(&j["tres_req_str"]);
    let num_cpus = j["cpus"]
        .as_u64()
        .map(|c| c as u32)
        .or_else(|| {
            tres_req
                .as_deref()
                .and_then(|t| bai_slurm::model::tres::count(t, "cpu"))
                .map(|c| c as u32)
        })
        .unwrap_or(0);
    JobRecord {
        job_id: u(&j["job_id"]) as u32,
        array,
        array_throttle: throttle,
        name: s(&j["name"]),
        user: s(&j["user_name"]),
        uid: u(&j["user_id"]) as u32,
        group: s(&j["group_name"]),
        gid: u(&j["group_id"]) as u32,
        account: nz_str(&j["account"]),
        partition: s(&j["partition"]),
        qos: nz_str(&j["qos"]),
        state,
        flag,
        reason_code: (!desc.is_empty()).then(|| s(&j["state_reason"])),
        reason: if desc.is_empty() {
            s(&j["state_reason"])
        } else {
            desc
        },
        priority: u(&j["priority"]) as u32,
        nice: i(&j["nice"]) as i32,
        submit_time: i(&j["submit_time"]),
        eligible_time: time(&j["eligible_time"]),
        accrue_time: time(&j["accrue_time"]),
        start_time: time(&j["start_time"]),
        end_time: time(&j["end_time"]),
        last_sched_eval: time(&j["last_sched_evaluation"]),
        time_limit: j["time_limit"]
            .as_u64()
            .map_or(TimeLimit::Infinite, |m| TimeLimit::Minutes(m as u32)),
        time_min: Some(u(&j["time_minimum"]) as u32).filter(|&m| m != 0),
        num_nodes: u(&j["node_count"]) as u32,
        num_cpus,
        num_tasks: j["tasks"].as_u64().map(|t| t as u32),
        ntasks_requested: arr(&j["flags"])
            .iter()
            .any(|f| f.as_str() == Some("EXACT_TASK_COUNT_REQUESTED")),
        step_ended_after_job: arr(&j["flags"])
            .iter()
            .any(|f| f.as_str() == Some("SKIP_TRES_STRING_ACCOUNTING")),
        cpus_per_task: u(&j["cpus_per_task"]) as u32,
        ntasks_per_node: Some(u(&j["tasks_per_node"]) as u32),
        memory,
        nodes: nz_str(&j["nodes"]),
        batch_host: nz_str(&j["batch_host"]),
        req_nodes: nz_str(&j["required_nodes"]),
        exc_nodes: nz_str(&j["excluded_nodes"]),
        features: nz_str(&j["features"]),
        command: s(&j["command"]),
        work_dir: s(&j["current_working_directory"]),
        std_out: s(&j["standard_output"]),
        std_err: s(&j["standard_error"]),
        std_in: s(&j["standard_input"]),
        exit_code: ExitStatus::from_wait_status(i(&j["exit_code"]) as i32),
        derived_exit_code: ExitStatus::from_wait_status(i(&j["derived_exit_code"]) as i32),
        dependency: nz_str(&j["dependency"]),
        tres_per_node: nz_str(&j["tres_per_node"]),
        comment: nz_str(&j["comment"]),
        batch: j["batch_flag"].as_bool().unwrap_or(false),
        requeue: j["requeue"].as_bool().unwrap_or(false),
        restarts: u(&j["restart_cnt"]) as u32,
        cluster: s(&j["cluster"]),
        max_nodes: u(&j["max_nodes"]) as u32,
        max_cpus: u(&j["max_cpus"]) as u32,
        min_cpus_per_node: u(&j["minimum_cpus_per_node"]) as u32,
        min_tmp_disk: u(&j["minimum_tmp_disk_per_node"]),
        tres_req,
        tres_alloc: nz_str(&j["tres_alloc_str"]),
        licenses: nz_str(&j["licenses"]),
        reservation: nz_str(&j["resv_name"]),
        wckey: nz_str(&j["wckey"]),
        mcs_label: nz_str(&j["mcs_label"]),
        contiguous: j["contiguous"].as_bool().unwrap_or(false),
        reboot: j["reboot"].as_bool().unwrap_or(false),
        sockets_per_node: u16o(&j["sockets_per_node"]),
        cores_per_socket: u16o(&j["cores_per_socket"]),
        threads_per_core: u16o(&j["threads_per_core"]),
        core_spec: u16o(&j["core_spec"]),
        deadline: time(&j["deadline"]),
        suspend_time: time(&j["suspend_time"]),
        pre_sus_time: i(&j["pre_sus_time"]),
        preempt_time: time(&j["preempt_time"]),
        resize_time: time(&j["resize_time"]),
        delay_boot: u(&j["delay_boot"]) as u32,
        assoc_id: u(&j["association_id"]) as u32,
        admin_comment: nz_str(&j["admin_comment"]),
        system_comment: nz_str(&j["system_comment"]),
        container: nz_str(&j["container"]),
        burst_buffer: nz_str(&j["burst_buffer"]),
        cluster_features: nz_str(&j["cluster_features"]),
        prefer: nz_str(&j["prefer"]),
        batch_features: nz_str(&j["batch_features"]),
        tres_per_job: nz_str(&j["tres_per_job"]),
        tres_per_socket: nz_str(&j["tres_per_socket"]),
        tres_per_task: nz_str(&j["tres_per_task"]),
        cpus_per_tres: nz_str(&j["cpus_per_tres"]),
        mem_per_tres: nz_str(&j["memory_per_tres"]),
        tres_bind: nz_str(&j["tres_bind"]),
        tres_freq: nz_str(&j["tres_freq"]),
        ..Default::default()
    }
}

/// Fields only `scontrol show job -d` has.
fn apply_scontrol(job: &mut JobRecord, block: &Block) {
    if let Some((node, sid)) = block.get("AllocNode:Sid").and_then(|v| v.rsplit_once(':')) {
        job.alloc_node = node.to_string();
        job.alloc_sid = sid.parse().unwrap_or(0);
    }
    if let Some(c) = block.get("CPUs/Task").and_then(|v| v.parse().ok()) {
        job.cpus_per_task = c;
    }
    if let Some(g) = block.get("JOB_GRES").filter(|g| *g != "(null)") {
        job.gres_total = Some(g.clone());
    }
    job.node_alloc = block
        .alloc_lines
        .iter()
        .map(|l| NodeAllocation {
            nodes: l.get("Nodes").cloned().unwrap_or_default(),
            cpu_ids: l.get("CPU_IDs").cloned().unwrap_or_default(),
            mem_mb: l.get("Mem").and_then(|m| m.parse().ok()).unwrap_or(0),
            gres: l.get("GRES").cloned().unwrap_or_default(),
        })
        .collect();
}

fn exit_from_json(e: &Value) -> Option<ExitStatus> {
    match e["status"].as_str()? {
        "SIGNALED" => Some(ExitStatus::signal(i(&e["signal"]["signal_id"]) as i32)),
        "SUCCESS" => Some(ExitStatus::OK),
        _ => Some(ExitStatus::code(i(&e["return_code"]) as i32)),
    }
}

/// TRES in the controller's order (cpu, mem, energy, node, billing, fs, vmem, pages, gres).
fn tres_string(list: &Value) -> Option<String> {
    let mut items: Vec<(u64, String)> = arr(list)
        .iter()
        .filter(|t| t["count"].is_u64())
        .map(|t| {
            let kind = s(&t["type"]);
            let name = t["name"]
                .as_str()
                .map(|n| format!("{kind}/{n}"))
                .unwrap_or(kind.clone());
            let count = u(&t["count"]);
            let value = if kind == "mem" {
                bai_slurm::model::units::mb_str(count)
            } else {
                count.to_string()
            };
            (u(&t["id"]), format!("{name}={value}"))
        })
        .collect();
    items.sort_by_key(|(id, _)| *id);
    let s: Vec<String> = items.into_iter().map(|(_, t)| t).collect();
    Some(s.join(",")).filter(|x| !x.is_empty())
}

fn cpu_time(v: &Value) -> CpuTime {
    CpuTime {
        secs: u(&v["seconds"]),
        usecs: u(&v["microseconds"]),
    }
}

/// A usage list of `sacct --json` (`{type, name, id, count[, task, node]}`).
fn usage(list: &Value) -> Vec<TresUsage> {
    arr(list)
        .iter()
        .map(|t| TresUsage {
            tres: match t["name"].as_str() {
                Some(n) => format!("{}/{n}", s(&t["type"])),
                None => s(&t["type"]),
            },
            count: u(&t["count"]),
            node: t["node"].as_str().map(String::from),
            task: u(&t["task"]),
        })
        .collect()
}

/// A job from `sacct --json`.
fn accounting_job(j: &Value, raw_exits: &BTreeMap<u64, (i64, i64)>) -> JobRecord {
    let job_id = u(&j["job_id"]);
    let (state, _) = state_of(&s(&j["state"]["current"]));
    let a = &j["array"];
    let array_job_id = u(&a["job_id"]) as u32;
    let throttle = Some(u(&a["limits"]["max"]["running"]["tasks"]) as u32).filter(|&t| t != 0);
    let array = if array_job_id == 0 {
        None
    } else if let Some(task) = a["task_id"].as_u64() {
        Some(ArrayPart::Task {
            array_job_id,
            task_id: task as u32,
        })
    } else {
        // The meta record's bitmap, in hex (`0xF` = tasks 0-3).
        let hex = s(&a["task"]);
        let bits = u64::from_str_radix(hex.trim_start_matches("0x"), 16).unwrap_or(0);
        Some(ArrayPart::Pending {
            array_job_id,
            tasks: (0..64).filter(|b| bits & (1 << b) != 0).collect(),
            throttle,
        })
    };
    // The JSON's exit codes are right except that it calls a failed job's non-zero
    // status SUCCESS; for those, the controller's raw status words are the truth. A
    // signal there cannot be what the database holds (the JSON would say SIGNALED): a job
    // that failed before it ran (BadConstraints) has the controller's bare `1`, which is
    // not a wait status, and the database 0.
    let (raw_exit, raw_derived) = raw_exits.get(&job_id).copied().unwrap_or((0, 0));
    let json_exit = exit_from_json(&j["exit_code"]).unwrap_or_default();
    let json_derived = exit_from_json(&j["derived_exit_code"]).unwrap_or_default();
    let failed_but_success = state == JobState::Failed;
    let truth = |json: ExitStatus, raw: i64| {
        let raw = ExitStatus::from_wait_status(raw as i32);
        if failed_but_success && json.is_success() && raw.signal == 0 {
            raw
        } else {
            json
        }
    };
    let exit_code = truth(json_exit, raw_exit);
    let derived = truth(json_derived, raw_derived);
    let t = &j["time"];
    let tres_alloc = tres_string(&j["tres"]["allocated"]);
    let tres_req = tres_string(&j["tres"]["requested"]);
    let cpus = tres_alloc
        .as_deref()
        .or(tres_req.as_deref())
        .and_then(|t| bai_slurm::model::tres::count(t, "cpu"))
        .unwrap_or(0) as u32;
    let steps = arr(&j["steps"])
        .iter()
        .map(|st| {
            let (sstate, _) = state_of(&s(&st["state"]));
            let id = match &st["step"]["id"] {
                Value::Number(n) => StepId::Numbered(n.as_u64().unwrap_or(0) as u32),
                other => StepId::parse(other.as_str().unwrap_or("")).unwrap_or(StepId::Batch),
            };
            let mut exit = exit_from_json(&st["exit_code"]).unwrap_or_default();
            if sstate == JobState::Failed && exit.is_success() {
                exit = if id == StepId::Batch {
                    exit_code
                } else {
                    derived
                };
            }
            let tres_alloc = tres_string(&st["tres"]["allocated"]);
            let t = &st["time"];
            let (req, used) = (&st["tres"]["requested"], &st["tres"]["consumed"]);
            StepRecord {
                step_id: id,
                name: s(&st["step"]["name"]),
                state: sstate,
                exit_code: exit,
                start_time: time(&t["start"]),
                end_time: time(&t["end"]),
                num_cpus: tres_alloc
                    .as_deref()
                    .and_then(|t| bai_slurm::model::tres::count(t, "cpu"))
                    .unwrap_or(0) as u32,
                num_tasks: u(&st["tasks"]["count"]) as u32,
                num_nodes: u(&st["nodes"]["count"]) as u32,
                nodes: s(&st["nodes"]["range"]),
                tres_alloc,
                user_cpu: cpu_time(&t["user"]),
                system_cpu: cpu_time(&t["system"]),
                usage: StepUsage {
                    in_ave: usage(&req["average"]),
                    in_tot: usage(&req["total"]),
                    in_max: usage(&req["max"]),
                    in_min: usage(&req["min"]),
                    out_ave: usage(&used["average"]),
                    out_tot: usage(&used["total"]),
                    out_max: usage(&used["max"]),
                    out_min: usage(&used["min"]),
                },
                ..Default::default()
            }
        })
        .collect();
    JobRecord {
        job_id: job_id as u32,
        array,
        array_throttle: throttle,
        name: s(&j["name"]),
        user: s(&j["user"]),
        uid: uid_of(&s(&j["user"])),
        group: s(&j["group"]),
        gid: uid_of(&s(&j["group"])),
        account: nz_str(&j["account"]),
        partition: s(&j["partition"]),
        qos: nz_str(&j["qos"]),
        state,
        reason: s(&j["state"]["reason"]),
        priority: u(&j["priority"]) as u32,
        submit_time: i(&t["submission"]),
        eligible_time: time(&t["eligible"]),
        start_time: time(&t["start"]),
        end_time: time(&t["end"]),
        suspended_secs: i(&t["suspended"]),
        time_limit: t["limit"]
            .as_u64()
            .map_or(TimeLimit::Infinite, |m| TimeLimit::Minutes(m as u32)),
        num_cpus: cpus,
        num_nodes: u(&j["allocation_nodes"]) as u32,
        // slurmdbd stores a job that never held nodes with the text `None assigned`.
        nodes: nz_str(&j["nodes"]).filter(|n| n != "None assigned"),
        work_dir: s(&j["working_directory"]),
        exit_code,
        derived_exit_code: derived,
        // See the module comment: every recorded cancellation was by the job's owner.
        cancelled_by: (state == JobState::Cancelled).then(|| uid_of(&s(&j["user"]))),
        cluster: s(&j["cluster"]),
        tres_req,
        tres_alloc,
        wckey: nz_str(&j["wckey"]["wckey"]),
        steps,
        ..Default::default()
    }
}

/// A `key=value` record of a `scontrol show` capture, plus the indented allocation lines.
#[derive(Debug, Default, Clone)]
pub struct Block {
    pub fields: BTreeMap<String, String>,
    pub alloc_lines: Vec<BTreeMap<String, String>>,
}

impl Block {
    fn get(&self, k: &str) -> Option<&String> {
        self.fields.get(k)
    }
}

/// Splits a capture into records (blank-line separated) and each line into `key=value`
/// pairs; values may contain spaces when the next word has no `=` (`OS=Linux 6.1 #1`).
pub fn parse_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    for chunk in text.split("\n\n") {
        if chunk.trim().is_empty() {
            continue;
        }
        let mut b = Block::default();
        for line in chunk.lines() {
            let pairs = split_pairs(line.trim());
            if line.starts_with("     Nodes=") {
                b.alloc_lines.push(pairs);
            } else {
                b.fields.extend(pairs);
            }
        }
        blocks.push(b);
    }
    blocks
}

fn split_pairs(line: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut key: Option<String> = None;
    let mut val = String::new();
    for word in line.split(' ') {
        match word.split_once('=') {
            Some((k, v)) if !k.is_empty() && !k.contains('(') => {
                if let Some(k0) = key.take() {
                    out.insert(k0, val.trim_end().to_string());
                }
                key = Some(k.to_string());
                val = v.to_string();
            }
            _ => {
                val.push(' ');
                val.push_str(word);
            }
        }
    }
    if let Some(k0) = key {
        out.insert(k0, val.trim_end().to_string());
    }
    out
}

fn unlimited(v: Option<&String>) -> Option<u32> {
    v.filter(|v| *v != "UNLIMITED").and_then(|v| v.parse().ok())
}

fn duration_minutes(v: &str) -> Option<TimeLimit> {
    match v {
        "UNLIMITED" => Some(TimeLimit::Infinite),
        "NONE" => None,
        other => {
            let (days, hms) = match other.split_once('-') {
                Some((d, r)) => (d.parse::<u32>().unwrap_or(0), r),
                None => (0, other),
            };
            let parts: Vec<u32> = hms.split(':').filter_map(|p| p.parse().ok()).collect();
            let mins = match parts.as_slice() {
                [h, m, _s] => h * 60 + m,
                [m, _s] => *m,
                _ => 0,
            };
            Some(TimeLimit::Minutes(days * 1440 + mins))
        }
    }
}

fn partition(b: &Block) -> PartitionRecord {
    let get = |k: &str| b.get(k).cloned();
    let yes = |k: &str| b.get(k).is_some_and(|v| v == "YES");
    let not_all = |k: &str| get(k).filter(|v| v != "ALL");
    PartitionRecord {
        name: get("PartitionName").unwrap_or_default(),
        is_default: yes("Default"),
        availability: get("State").unwrap_or_default().to_lowercase(),
        max_time: get("MaxTime")
            .and_then(|v| duration_minutes(&v))
            .unwrap_or(TimeLimit::Infinite),
        default_time: get("DefaultTime").and_then(|v| duration_minutes(&v)),
        nodes: get("Nodes")
            .and_then(|n| bai_slurm::model::hostlist::expand(&n))
            .unwrap_or_default(),
        total_cpus: get("TotalCPUs").and_then(|v| v.parse().ok()).unwrap_or(0),
        allow_groups: not_all("AllowGroups"),
        allow_accounts: not_all("AllowAccounts"),
        allow_qos: not_all("AllowQos"),
        allow_alloc_nodes: not_all("AllocNodes"),
        qos: get("QoS").filter(|v| v != "N/A"),
        hidden: yes("Hidden"),
        root_only: yes("RootOnly"),
        exclusive_user: yes("ExclusiveUser"),
        disable_root_jobs: yes("DisableRootJobs"),
        lln: yes("LLN"),
        req_resv: yes("ReqResv"),
        grace_time: get("GraceTime").and_then(|v| v.parse().ok()).unwrap_or(0),
        max_nodes: unlimited(b.get("MaxNodes")),
        min_nodes: get("MinNodes").and_then(|v| v.parse().ok()).unwrap_or(0),
        max_cpus_per_node: unlimited(b.get("MaxCPUsPerNode")),
        priority_job_factor: get("PriorityJobFactor").and_then(|v| v.parse().ok()),
        priority_tier: get("PriorityTier").and_then(|v| v.parse().ok()),
        oversubscribe: get("OverSubscribe"),
        preempt_mode: get("PreemptMode"),
        select_type_parameters: get("SelectTypeParameters").filter(|v| v != "NONE"),
        job_defaults: get("JobDefaults").filter(|v| v != "(null)"),
        tres: get("TRES"),
        ..Default::default()
    }
}

fn node(n: &Value, blocks: &[Block]) -> NodeRecord {
    let name = s(&n["name"]);
    let block = blocks.iter().find(|b| b.get("NodeName") == Some(&name));
    let sensor = |k: &str| block.and_then(|b| b.get(k)).and_then(|v| v.parse().ok());
    let flags: Vec<String> = arr(&n["state_flags"]).iter().map(s).collect();
    let drain = flags.iter().any(|f| f == "DRAIN");
    let state = match (s(&n["state"]).as_str(), drain) {
        ("idle", false) => NodeState::Idle,
        ("idle", true) => NodeState::Drained,
        ("mixed", false) => NodeState::Mixed,
        ("allocated", false) => NodeState::Allocated,
        (_, true) => NodeState::Draining,
        _ => NodeState::Down,
    };
    NodeRecord {
        name,
        hostname: s(&n["hostname"]),
        address: s(&n["address"]),
        state,
        cpus: u(&n["cpus"]) as u32,
        alloc_cpus: u(&n["alloc_cpus"]) as u32,
        sockets: u(&n["sockets"]) as u32,
        cores_per_socket: u(&n["cores"]) as u32,
        threads_per_core: u(&n["threads"]) as u32,
        real_memory: u(&n["real_memory"]),
        alloc_memory: u(&n["alloc_memory"]),
        free_memory: n["free_memory"].as_u64(),
        tmp_disk: u(&n["temporary_disk"]),
        weight: u(&n["weight"]) as u32,
        features: nz_str(&n["features"]),
        gres: nz_str(&n["gres"]),
        reason: nz_str(&n["reason"]),
        cpu_load: n["cpu_load"].as_f64().map(|l| l / 100.0),
        partitions: arr(&n["partitions"]).iter().map(s).collect(),
        boot_time: time(&n["boot_time"]),
        slurmd_start_time: time(&n["slurmd_start_time"]),
        os: s(&n["operating_system"]),
        arch: s(&n["architecture"]),
        version: s(&n["slurmd_version"]),
        boards: u(&n["boards"]) as u32,
        features_active: nz_str(&n["active_features"]),
        gres_used: nz_str(&n["gres_used"]),
        last_busy: time(&n["last_busy"]),
        cfg_tres: nz_str(&n["tres"]),
        alloc_tres: nz_str(&n["tres_used"]),
        reason_time: time(&n["reason_changed_at"]),
        reason_user: nz_str(&n["reason_set_by_user"]),
        reason_uid: n["reason_set_by_user"].as_str().map(uid_of),
        mcs_label: nz_str(&n["mcs_label"]),
        comment: nz_str(&n["comment"]),
        extra: nz_str(&n["extra"]),
        current_watts: sensor("CurrentWatts"),
        ave_watts: sensor("AveWatts"),
        ext_sensors_joules: block
            .and_then(|b| b.get("ExtSensorsJoules"))
            .and_then(|v| v.parse().ok()),
        ext_sensors_watts: sensor("ExtSensorsWatts"),
        ext_sensors_temp: sensor("ExtSensorsTemp"),
        port: n["port"].as_u64().and_then(|p| u16::try_from(p).ok()),
        ..Default::default()
    }
}

/// Slurm 24.11's data_parser v0.0.42 records, turned into the v0.0.38 shapes the loader
/// reads (the same facts, spelled as 22.05 spelled them).
mod v42 {
    use super::{Block, arr, s};
    use serde_json::{Map, Value, json};

    /// `{set, infinite, number}` -> the number (null when unset or infinite), recursively.
    fn plain(v: &mut Value) {
        match v {
            Value::Object(m) => {
                if m.len() == 3
                    && m.contains_key("set")
                    && m.contains_key("infinite")
                    && m.contains_key("number")
                {
                    let set = m["set"].as_bool().unwrap_or(false);
                    let inf = m["infinite"].as_bool().unwrap_or(false);
                    *v = if set && !inf {
                        m["number"].clone()
                    } else {
                        Value::Null
                    };
                    return;
                }
                for (_, x) in m.iter_mut() {
                    plain(x);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(plain),
            _ => {}
        }
    }

    /// A state list (`["RUNNING", "COMPLETING"]`) as one name, COMPLETING first.
    fn state(v: &Value) -> Value {
        let names: Vec<String> = arr(v).iter().map(s).collect();
        if names.iter().any(|n| n == "COMPLETING") {
            return json!("COMPLETING");
        }
        json!(names.first().cloned().unwrap_or_default())
    }

    /// A v0.0.42 exit code object (`{status: [...], return_code, signal: {id, name}}`).
    fn exit_parts(e: &Value) -> (String, i64, i64) {
        let status = arr(&e["status"])
            .first()
            .map(s)
            .unwrap_or_else(|| "SUCCESS".into());
        let rc = e["return_code"].as_i64().unwrap_or(0);
        let sig = e["signal"]["id"].as_i64().unwrap_or(0);
        (status, rc, sig)
    }

    /// As v0.0.38's sacct: `{status, return_code, signal: {signal_id}}`.
    fn exit_object(e: &Value) -> Value {
        let (status, rc, sig) = exit_parts(e);
        json!({"status": status, "return_code": rc, "signal": {"signal_id": sig}})
    }

    /// As v0.0.38's squeue: the raw wait status word.
    fn wait_status(e: &Value) -> Value {
        let (status, rc, sig) = exit_parts(e);
        json!(if status == "SIGNALED" { sig } else { rc << 8 })
    }

    pub fn squeue(doc: &mut Value) {
        plain(doc);
        if let Some(jobs) = doc["jobs"].as_array_mut() {
            for j in jobs {
                j["job_state"] = state(&j["job_state"]);
                j["exit_code"] = wait_status(&j["exit_code"]);
                j["derived_exit_code"] = wait_status(&j["derived_exit_code"]);
                // v0.0.42 dumps an unset core specialisation as 0 (scontrol: `*`).
                if j["core_spec"].as_u64() == Some(0) {
                    j["core_spec"] = Value::Null;
                }
            }
        }
    }

    fn no_empty_names(list: &mut Value) {
        if let Some(items) = list.as_array_mut() {
            for t in items {
                if t["name"].as_str() == Some("") {
                    t["name"] = Value::Null;
                }
            }
        }
    }

    /// A job's `tres` (`allocated`, `requested` lists) or a step's (also `requested`
    /// and `consumed` usage objects).
    fn tres_lists(tres: &mut Value) {
        for key in ["allocated", "requested", "consumed"] {
            if tres[key].is_array() {
                no_empty_names(&mut tres[key]);
            } else if tres[key].is_object() {
                for stat in ["max", "min", "average", "total"] {
                    no_empty_names(&mut tres[key][stat]);
                }
            }
        }
    }

    pub fn sacct(doc: &mut Value) {
        plain(doc);
        let Some(jobs) = doc["jobs"].as_array_mut() else {
            return;
        };
        for j in jobs {
            j["state"]["current"] = state(&j["state"]["current"]);
            j["exit_code"] = exit_object(&j["exit_code"]);
            j["derived_exit_code"] = exit_object(&j["derived_exit_code"]);
            tres_lists(&mut j["tres"]);
            let job_id = j["job_id"].as_u64().unwrap_or(0);
            if let Some(steps) = j["steps"].as_array_mut() {
                for st in steps {
                    st["state"] = state(&st["state"]);
                    st["exit_code"] = exit_object(&st["exit_code"]);
                    tres_lists(&mut st["tres"]);
                    // `12.batch`, `12.0` -> `batch`, 0.
                    let id = s(&st["step"]["id"]);
                    let local = id
                        .strip_prefix(&format!("{job_id}."))
                        .unwrap_or(&id)
                        .to_string();
                    st["step"]["id"] = match local.parse::<u64>() {
                        Ok(n) => json!(n),
                        Err(_) => json!(local),
                    };
                }
            }
        }
    }

    /// `2026-12-01T17:04:15` (UTC) -> Unix seconds.
    fn epoch(text: &str) -> Value {
        let digits: Vec<i64> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse().ok())
            .collect();
        let [y, mo, d, h, mi, sec] = digits[..] else {
            return Value::Null;
        };
        // Days from civil (Howard Hinnant's algorithm).
        let y = if mo <= 2 { y - 1 } else { y };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (mo + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146097 + doe - 719468;
        json!(days * 86400 + h * 3600 + mi * 60 + sec)
    }

    /// The node records of `scontrol show node` (24.11's `sinfo --json` has none), in
    /// the v0.0.38 shape; the port and GRES in use come from the `sinfo[]` entries.
    pub fn nodes(blocks: &[Block], sinfo: &Value) -> Value {
        let entries = arr(&sinfo["sinfo"]);
        let mut out = Vec::new();
        for b in blocks {
            let get = |k: &str| b.get(k).cloned().unwrap_or_default();
            let null = |k: &str| {
                let v = get(k);
                if v == "(null)" || v == "N/A" {
                    String::new()
                } else {
                    v
                }
            };
            let num = |k: &str| get(k).parse::<u64>().map_or(Value::Null, |n| json!(n));
            let name = get("NodeName");
            let entry = entries.iter().find(|e| {
                arr(&e["nodes"]["nodes"])
                    .iter()
                    .any(|n| n.as_str() == Some(&name))
            });
            let state_text = get("State");
            let mut parts = state_text.split('+');
            let base = parts.next().unwrap_or("").to_lowercase();
            let flags: Vec<Value> = parts.map(|f| json!(f)).collect();
            let (reason, reason_user, reason_time) = match b.get("Reason") {
                Some(r) => match r.rsplit_once(" [") {
                    Some((text, who)) => {
                        let who = who.trim_end_matches(']');
                        let (user, when) = who.split_once('@').unwrap_or((who, ""));
                        (json!(text), json!(user), epoch(when))
                    }
                    None => (json!(r), Value::Null, Value::Null),
                },
                None => (json!(""), Value::Null, Value::Null),
            };
            let load = get("CPULoad")
                .parse::<f64>()
                .map_or(Value::Null, |l| json!((l * 100.0).round() as u64));
            let mut m = Map::new();
            m.insert("name".into(), json!(name));
            m.insert("hostname".into(), json!(get("NodeHostName")));
            m.insert("address".into(), json!(get("NodeAddr")));
            m.insert("state".into(), json!(base));
            m.insert("state_flags".into(), Value::Array(flags));
            m.insert("cpus".into(), num("CPUTot"));
            m.insert("alloc_cpus".into(), num("CPUAlloc"));
            m.insert("sockets".into(), num("Sockets"));
            m.insert("cores".into(), num("CoresPerSocket"));
            m.insert("threads".into(), num("ThreadsPerCore"));
            m.insert("real_memory".into(), num("RealMemory"));
            m.insert("alloc_memory".into(), num("AllocMem"));
            m.insert("free_memory".into(), num("FreeMem"));
            m.insert("temporary_disk".into(), num("TmpDisk"));
            m.insert("weight".into(), num("Weight"));
            m.insert("boards".into(), num("Boards"));
            m.insert("features".into(), json!(null("AvailableFeatures")));
            m.insert("active_features".into(), json!(null("ActiveFeatures")));
            m.insert("gres".into(), json!(null("Gres")));
            m.insert(
                "gres_used".into(),
                entry.map_or(Value::Null, |e| e["gres"]["used"].clone()),
            );
            m.insert("reason".into(), reason);
            m.insert("reason_set_by_user".into(), reason_user);
            m.insert("reason_changed_at".into(), reason_time);
            m.insert("cpu_load".into(), load);
            m.insert(
                "partitions".into(),
                json!(get("Partitions").split(',').collect::<Vec<_>>()),
            );
            m.insert("boot_time".into(), epoch(&get("BootTime")));
            m.insert("slurmd_start_time".into(), epoch(&get("SlurmdStartTime")));
            m.insert("last_busy".into(), epoch(&get("LastBusyTime")));
            m.insert("operating_system".into(), json!(get("OS")));
            m.insert("architecture".into(), json!(get("Arch")));
            m.insert("slurmd_version".into(), json!(get("Version")));
            m.insert("tres".into(), json!(null("CfgTRES")));
            m.insert("tres_used".into(), json!(null("AllocTRES")));
            m.insert("mcs_label".into(), json!(null("MCS_label")));
            m.insert(
                "port".into(),
                entry.map_or(Value::Null, |e| e["port"].clone()),
            );
            out.push(Value::Object(m));
        }
        Value::Array(out)
    }
}
