//! `scontrol show job`: one record in 22.05's layout (`slurm_sprint_job_info`).

use crate::format::common::{Clock, state_long, time_used};
use crate::format::squeue::fields::{core_spec_text, sorted_nodes};
use crate::model::profile::Profile;
use crate::model::time_limit::{long_duration, long_limit};
use crate::model::units::mb_str;
use crate::model::{ArrayPart, ExitStatus, JobRecord, JobState, MemoryRequest, TimeLimit};

/// NO_VAL, as Slurm prints an unset array task id.
const NO_VAL: u32 = 0xffff_fffe;

/// How records are laid out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// `-o`: one line per record.
    pub one_liner: bool,
    /// `-d`: derived exit code and the per-node allocation lines.
    pub detail: bool,
    /// The Slurm release whose layout is printed.
    pub profile: &'static Profile,
}

fn exit(e: ExitStatus) -> String {
    format!("{}:{}", e.code.max(0), e.signal.max(0))
}

fn or_null(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("(null)")
}

fn count_or_star(n: Option<u16>) -> String {
    n.map_or_else(|| "*".to_string(), |n| n.to_string())
}

/// The array task id Slurm holds for a record (NO_VAL for plain jobs and the meta record).
fn array_task_id(job: &JobRecord) -> u32 {
    match &job.array {
        Some(ArrayPart::Task { task_id, .. }) => *task_id,
        _ => NO_VAL,
    }
}

/// `_fname_format`: `%A %a %j %u %x` in an output path, made absolute under the work dir.
fn fname(job: &JobRecord, pattern: &str) -> String {
    let task = array_task_id(job);
    let mut s = pattern.to_string();
    let array_id = if task == NO_VAL {
        job.job_id
    } else {
        job.array_job_id()
    };
    s = s.replace("%A", &array_id.to_string());
    s = s.replace("%a", &task.to_string());
    s = s.replace("%j", &job.job_id.to_string());
    s = s.replace("%u", &user_name(job));
    s = s.replace("%x", &job.name);
    if s.starts_with('/') {
        s
    } else {
        format!("{}/{}", job.work_dir, s)
    }
}

/// The default output file of a batch job.
fn default_out(job: &JobRecord) -> String {
    if job.array.is_some() {
        format!(
            "{}/slurm-{}_{}.out",
            job.work_dir,
            job.array_job_id(),
            array_task_id(job)
        )
    } else {
        format!("{}/slurm-{}.out", job.work_dir, job.job_id)
    }
}

fn nonempty(s: &str) -> Option<&str> {
    if s.is_empty() { None } else { Some(s) }
}

fn user_name(job: &JobRecord) -> String {
    nonempty(&job.user).map_or_else(|| job.uid.to_string(), String::from)
}

fn group_name(job: &JobRecord) -> String {
    nonempty(&job.group).map_or_else(|| job.gid.to_string(), String::from)
}

/// `NumNodes=1` or `1-3`.
fn range(lo: u32, hi: u32) -> String {
    if hi > 0 {
        format!("{lo}-{hi}")
    } else {
        lo.to_string()
    }
}

/// One job record as scontrol prints it.
pub fn render(job: &JobRecord, style: Style, clock: &Clock) -> String {
    let le = style.line_end();
    let now = clock.now;
    let time = |t: Option<i64>| clock.time_str(t, 32);
    let mut o = String::new();

    o.push_str(&format!("JobId={} ", job.job_id));
    match &job.array {
        Some(ArrayPart::Pending {
            array_job_id,
            tasks,
            throttle,
        }) => {
            // No task left (all cancelled): slurmctld has no task string and prints the
            // record's task id, NO_VAL.
            let s = if tasks.is_empty() {
                crate::model::fname::NO_VAL.to_string()
            } else {
                crate::model::array::pending_tasks_str(tasks, *throttle)
            };
            o.push_str(&format!("ArrayJobId={array_job_id} ArrayTaskId={s} "));
            if let Some(t) = throttle {
                o.push_str(&format!("ArrayTaskThrottle={t} "));
            }
        }
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => {
            o.push_str(&format!("ArrayJobId={array_job_id} ArrayTaskId={task_id} "));
            if let Some(t) = job.array_throttle {
                o.push_str(&format!("ArrayTaskThrottle={t} "));
            }
        }
        None => {}
    }
    o.push_str(&format!("JobName={}{le}", job.name));

    o.push_str(&format!(
        "UserId={}({}) GroupId={}({}) MCS_label={}{le}",
        user_name(job),
        job.uid,
        group_name(job),
        job.gid,
        job.mcs_label.as_deref().unwrap_or("N/A")
    ));
    o.push_str(&format!(
        "Priority={} Nice={} Account={} QOS={}{le}",
        job.priority,
        job.nice,
        or_null(&job.account),
        or_null(&job.qos)
    ));
    let reason = crate::format::common::reason_text(&job.reason).replace(char::is_whitespace, "_");
    o.push_str(&format!(
        "JobState={} Reason={} Dependency={}{le}",
        state_long(job),
        reason,
        or_null(&job.dependency)
    ));
    o.push_str(&format!(
        "Requeue={} Restarts={} BatchFlag={} Reboot={} ExitCode={}{le}",
        u8::from(job.requeue),
        job.restarts,
        u8::from(job.batch),
        u8::from(job.reboot),
        exit(job.exit_code)
    ));
    if style.detail {
        o.push_str(&format!(
            "DerivedExitCode={}{le}",
            exit(job.derived_exit_code)
        ));
    }

    let run = time_used(job, now);
    let limit = match job.time_limit {
        TimeLimit::Infinite => "UNLIMITED".to_string(),
        t => long_limit(t),
    };
    let time_min = match job.time_min {
        None | Some(0) => "N/A".to_string(),
        Some(m) => long_duration(i64::from(m) * 60),
    };
    o.push_str(&format!(
        "RunTime={} TimeLimit={limit} TimeMin={time_min}{le}",
        long_duration(run)
    ));
    o.push_str(&format!(
        "SubmitTime={} EligibleTime={}{le}",
        time(Some(job.submit_time)),
        time(job.eligible_time)
    ));
    o.push_str(&format!("AccrueTime={}{le}", time(job.accrue_time)));
    if let Some(t) = job.resize_time.filter(|&t| t != 0) {
        o.push_str(&format!("ResizeTime={}{le}", time(Some(t))));
    }
    let end = if job.time_limit == TimeLimit::Infinite && job.end_time.unwrap_or(0) > now {
        "Unknown".to_string()
    } else {
        time(job.end_time)
    };
    let deadline = match job.deadline.filter(|&d| d != 0) {
        Some(d) => time(Some(d)),
        None => "N/A".to_string(),
    };
    o.push_str(&format!(
        "StartTime={} EndTime={end} Deadline={deadline}{le}",
        time(job.start_time)
    ));
    let suspend = match job.suspend_time.filter(|&t| t != 0) {
        Some(t) => time(Some(t)),
        None => "None".to_string(),
    };
    o.push_str(&format!(
        "SuspendTime={suspend} SecsPreSuspend={} LastSchedEval={} Scheduler={}{le}",
        job.pre_sus_time,
        time(job.last_sched_eval),
        if job.backfill_scheduled {
            "Backfill"
        } else {
            "Main"
        }
    ));
    o.push_str(&format!(
        "Partition={} AllocNode:Sid={}:{}{le}",
        job.partition, job.alloc_node, job.alloc_sid
    ));
    o.push_str(&format!(
        "ReqNodeList={} ExcNodeList={}{le}",
        or_null(&job.req_nodes),
        or_null(&job.exc_nodes)
    ));
    o.push_str(&format!(
        "NodeList={}",
        sorted_nodes(job.nodes.as_deref().unwrap_or(""))
    ));
    if let Some(s) = &job.sched_nodes {
        o.push_str(&format!(" SchedNodeList={s}"));
    }
    o.push_str(le);
    match (&job.batch_features, &job.batch_host) {
        (None, None) => {}
        (f, h) => {
            if let Some(f) = f {
                o.push_str(&format!("BatchFeatures={f}"));
            }
            if let Some(h) = h {
                let sep = if f.is_some() { " " } else { "" };
                o.push_str(&format!("{sep}BatchHost={h}"));
            }
            o.push_str(le);
        }
    }

    let (min_nodes, max_nodes) = if job.state == JobState::Pending {
        let lo = if job.max_nodes != 0 && job.max_nodes < job.num_nodes {
            job.max_nodes
        } else {
            job.num_nodes
        };
        (lo, job.max_nodes)
    } else {
        (job.num_nodes, 0)
    };
    // 24.11 gives a held job (one its scheduler never sized) its node count as the range
    // it may have, when the count comes from its tasks alone: not from tasks per node,
    // CPUs per task or tasks per core (`pack_job`'s last case).
    let max_nodes = if max_nodes == 0
        && style.profile.scontrol.held_num_nodes_range
        && job.state == JobState::Pending
        && job.priority == 0
        && job.ntasks_per_node.unwrap_or(0) == 0
        && job.cpus_per_task <= 1
        && job.ntasks_per_core.is_none_or(|n| n == 0 || n == u16::MAX)
    {
        min_nodes
    } else {
        max_nodes
    };
    let tasks = job
        .num_tasks
        .map_or_else(|| "N/A".to_string(), |t| t.to_string());
    let cpt = if job.cpus_per_task == 0 {
        "N/A".to_string()
    } else {
        job.cpus_per_task.to_string()
    };
    o.push_str(&format!(
        "NumNodes={} NumCPUs={} NumTasks={tasks} CPUs/Task={cpt} ReqB:S:C:T={}:0:{}:{}{le}",
        range(min_nodes, max_nodes),
        range(job.num_cpus, job.max_cpus),
        job.boards_per_node.unwrap_or(0),
        count_or_star(job.cores_per_socket),
        count_or_star(job.threads_per_core)
    ));
    if style.profile.scontrol.req_and_alloc_tres {
        let req = job.tres_req.clone().unwrap_or_else(|| job.tres());
        o.push_str(&format!("ReqTRES={req}{le}"));
        // Backends that keep no TRES strings allocate what was asked, once the job ran.
        let alloc = job.tres_alloc.clone().or_else(|| {
            (job.nodes.is_some() && job.start_time.is_some_and(|t| t != 0)).then(|| job.tres())
        });
        o.push_str(&format!("AllocTRES={}{le}", or_null(&alloc)));
    } else {
        let tres = job
            .tres_alloc
            .clone()
            .or_else(|| job.tres_req.clone())
            .unwrap_or_else(|| job.tres());
        o.push_str(&format!("TRES={tres}{le}"));
    }
    let core_spec = match job.core_spec {
        None => "CoreSpec=*".to_string(),
        Some(s) if s & 0x8000 != 0 => format!("ThreadSpec={}", s & 0x7fff),
        Some(s) => format!("CoreSpec={}", core_spec_text(s)),
    };
    o.push_str(&format!(
        "Socks/Node={} NtasksPerN:B:S:C={}:{}:{}:{} {core_spec}{le}",
        count_or_star(job.sockets_per_node),
        job.ntasks_per_node
            .map_or_else(|| "*".to_string(), |n| n.to_string()),
        job.ntasks_per_board.unwrap_or(0),
        count_or_star(job.ntasks_per_socket),
        count_or_star(job.ntasks_per_core)
    ));
    if style.detail && !job.node_alloc.is_empty() {
        o.push_str(&format!("JOB_GRES={}{le}", or_null(&job.gres_total)));
        for a in &job.node_alloc {
            o.push_str(&format!(
                "  Nodes={} CPU_IDs={} Mem={} GRES={}{le}",
                a.nodes, a.cpu_ids, a.mem_mb, a.gres
            ));
        }
    }
    let (mem_kind, mem) = match job.memory {
        MemoryRequest::PerCpu(mb) => ("CPU", mb),
        MemoryRequest::PerNode(mb) => ("Node", mb),
    };
    o.push_str(&format!(
        "MinCPUsNode={} MinMemory{mem_kind}={} MinTmpDiskNode={}{le}",
        job.min_cpus_per_node,
        mb_str(mem),
        mb_str(job.min_tmp_disk)
    ));
    o.push_str(&format!(
        "Features={} DelayBoot={}{le}",
        or_null(&job.features),
        long_duration(i64::from(job.delay_boot))
    ));
    for (key, val) in [
        ("ClusterFeatures", &job.cluster_features),
        ("Prefer", &job.prefer),
        ("Reservation", &job.reservation),
    ] {
        if let Some(v) = val {
            o.push_str(&format!("{key}={v}{le}"));
        }
    }
    o.push_str(&format!(
        "OverSubscribe={} Contiguous={} Licenses={} Network={}{le}",
        job.over_subscribe.as_deref().unwrap_or("OK"),
        u8::from(job.contiguous),
        or_null(&job.licenses),
        or_null(&job.network)
    ));
    o.push_str(&format!(
        "Command={}{le}",
        nonempty(&job.command).unwrap_or("(null)")
    ));
    o.push_str(&format!("WorkDir={}", job.work_dir));
    for (key, val) in [
        ("AdminComment", &job.admin_comment),
        ("SystemComment", &job.system_comment),
        ("Comment", &job.comment),
    ] {
        if let Some(v) = val {
            o.push_str(&format!("{le}{key}={v} "));
        }
    }
    if job.batch {
        let err = match (nonempty(&job.std_err), nonempty(&job.std_out)) {
            (Some(e), _) => fname(job, e),
            (None, Some(out)) => fname(job, out),
            (None, None) => default_out(job),
        };
        let input =
            nonempty(&job.std_in).map_or_else(|| "/dev/null".to_string(), |i| fname(job, i));
        let out = nonempty(&job.std_out).map_or_else(|| default_out(job), |p| fname(job, p));
        o.push_str(&format!(
            "{le}StdErr={err}{le}StdIn={input}{le}StdOut={out}"
        ));
    }
    if let Some(bb) = &job.burst_buffer {
        o.push_str(&format!("{le}BurstBuffer={bb}"));
    }
    if style.profile.scontrol.power_line {
        o.push_str(&format!("{le}Power="));
    }
    // The job's optional flags line (Slurm's own spelling).
    if let Some(kill) = job.kill_on_invalid_dep {
        let yes = if kill { "Yes" } else { "No" };
        o.push_str(&format!("{le}KillOInInvalidDependent={yes}"));
    }
    for (key, val) in [
        ("CpusPerTres", &job.cpus_per_tres),
        ("MemPerTres", &job.mem_per_tres),
        ("TresBind", &job.tres_bind),
        ("TresFreq", &job.tres_freq),
        ("TresPerJob", &job.tres_per_job),
        ("TresPerNode", &job.tres_per_node),
        ("TresPerSocket", &job.tres_per_socket),
        ("TresPerTask", &job.tres_per_task),
    ] {
        if let Some(v) = val {
            let v = crate::format::common::gres_spelling(v, style.profile);
            o.push_str(&format!("{le}{key}={v}"));
        }
    }
    if let (Some(user), Some(kind)) = (&job.mail_user, &job.mail_type) {
        o.push_str(&format!("{le}MailUser={user} MailType={kind}"));
    }
    if let Some(c) = &job.container {
        o.push_str(&format!("{le}Container={c}"));
    }
    o.push_str(le);
    o.push_str(if style.one_liner { "\n" } else { "\n\n" });
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_paths() {
        let mut j = JobRecord {
            job_id: 13,
            work_dir: "/w".into(),
            name: "n".into(),
            user: "alice".into(),
            ..Default::default()
        };
        assert_eq!(default_out(&j), "/w/slurm-13.out");
        assert_eq!(fname(&j, "out-%j-%u-%x.txt"), "/w/out-13-alice-n.txt");
        j.array = Some(ArrayPart::Pending {
            array_job_id: 13,
            tasks: vec![0, 1],
            throttle: None,
        });
        assert_eq!(default_out(&j), "/w/slurm-13_4294967294.out");
    }

    #[test]
    fn one_liner_ends_with_space_newline() {
        let j = JobRecord {
            job_id: 1,
            ..Default::default()
        };
        let s = render(
            &j,
            Style {
                one_liner: true,
                ..Style::default()
            },
            &Clock::default(),
        );
        assert!(s.ends_with("Power= \n"));
        assert!(!s.contains('\n') || s.matches('\n').count() == 1);
    }
}
