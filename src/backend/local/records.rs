//! Stored rows -> the model records that squeue, sacct and scontrol render.

use super::db::{HeldResources, JobRow, StepRow};
use super::node::{LocalNode, LocalPartition};
use crate::model::array::ranges;
use crate::model::fname::{FnameContext, expand};
use crate::model::job::NodeAllocation;
use crate::model::jobspec::GpuPer;
use crate::model::{
    ArrayPart, ExitStatus, JobRecord, JobSpec, JobState, MemoryRequest, StepRecord, TimeLimit,
};

pub struct RecordContext<'a> {
    pub node: &'a LocalNode,
    /// The partitions (a job's limits and defaults are its partition's).
    pub settings: &'a super::LocalSettings,
    pub cluster: &'a str,
    /// The Slurm release the site replaces (what the controller records differently).
    pub profile: &'static crate::model::profile::Profile,
}

pub fn memory_request(spec: &JobSpec, partition: &LocalPartition) -> MemoryRequest {
    match (spec.mem_per_node, spec.mem_per_cpu) {
        (Some(mb), _) => MemoryRequest::PerNode(mb),
        (None, Some(mb)) => MemoryRequest::PerCpu(mb),
        (None, None) => MemoryRequest::PerCpu(partition.def_mem_per_cpu),
    }
}

pub fn time_limit(spec: &JobSpec, partition: &LocalPartition) -> TimeLimit {
    partition.times().job_limit(spec.time_limit)
}

/// The output file names as scontrol shows them (expanded, with `%a` of a pending array
/// shown as NO_VAL the way Slurm does).
pub fn io_paths(row: &JobRow, spec: &JobSpec, user: &str, node: &str) -> (String, String, String) {
    let array = match &row.array {
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => Some((*array_job_id, *task_id)),
        Some(ArrayPart::Pending { array_job_id, .. }) => {
            Some((*array_job_id, crate::model::fname::NO_VAL))
        }
        None => None,
    };
    let ctx = FnameContext {
        job_id: row.job_id,
        array,
        node_name: node,
        user,
        job_name: &row.name,
        ..Default::default()
    };
    let (out_pat, err_pat, in_pat) = io_patterns_of(spec);
    let (out_pat, err_pat) = (out_pat.as_str(), err_pat.as_str());
    let out = expand(out_pat, &ctx, &spec.work_dir);
    let err = expand(err_pat, &ctx, &spec.work_dir);
    let input = expand(&in_pat, &ctx, &spec.work_dir);
    (out, err, input)
}

/// The -o/-e/-i patterns of a job, defaults filled in (`slurm-%j.out`, `slurm-%A_%a.out`
/// for arrays, stderr with stdout, stdin /dev/null).
fn io_patterns_of(spec: &JobSpec) -> (String, String, String) {
    let default_out = if spec.array.is_some() {
        "slurm-%A_%a.out"
    } else {
        "slurm-%j.out"
    };
    let out = spec.stdout.as_deref().unwrap_or(default_out).to_string();
    let err = spec.stderr.clone().unwrap_or_else(|| out.clone());
    let input = spec.stdin.as_deref().unwrap_or("/dev/null").to_string();
    (out, err, input)
}

/// [`io_patterns_of`] as absolute paths, as the controller stores them.
pub fn io_patterns(spec: &JobSpec) -> crate::model::job::IoPatterns {
    let (out, err, input) = io_patterns_of(spec);
    let abs = |p: String| {
        if p.starts_with('/') || spec.work_dir.is_empty() {
            p
        } else {
            format!("{}/{p}", spec.work_dir.trim_end_matches('/'))
        }
    };
    crate::model::job::IoPatterns {
        std_out: abs(out),
        std_err: abs(err),
        std_in: abs(input),
    }
}

pub fn step_record(s: &StepRow) -> StepRecord {
    StepRecord {
        step_id: s.step,
        name: s.name.clone(),
        state: s.state,
        exit_code: s.exit,
        start_time: s.start_time,
        end_time: s.end_time,
        num_cpus: s.ncpus,
        num_tasks: s.ntasks,
        num_nodes: s.nnodes,
        nodes: s.nodes.clone(),
        cancelled_by: s.cancelled_by,
        ..Default::default()
    }
}

/// Builds a record. `accounting` selects slurmdbd's view: a job ended by the controller
/// (cancel, time limit) is accounted with exit code 0:0 while scontrol shows the signal.
pub fn job_record(
    row: &JobRow,
    spec: &JobSpec,
    steps: &[StepRow],
    ctx: &RecordContext<'_>,
    accounting: bool,
) -> JobRecord {
    let (user, gid, group) = match crate::sys::lookup_user_by_uid(row.uid) {
        Some(u) => (u.name, u.gid, u.group),
        None => (row.uid.to_string(), row.uid, row.uid.to_string()),
    };
    // The controller keeps the -o/-e/-i patterns as given (made absolute): squeue -O STDOUT
    // and --json print them so, scontrol expands them; none given, the default names.
    let std_out = spec.stdout.clone().unwrap_or_default();
    let std_err = spec.stderr.clone().unwrap_or_default();
    let std_in = spec.stdin.clone().unwrap_or_else(|| "/dev/null".into());
    let mail_to_user = user.clone();
    let mut command = spec.command.clone();
    // 24.11's controller keeps the script's path without its arguments.
    let args: &[String] = if ctx.profile.scontrol.command_with_args {
        &spec.script_args
    } else {
        &[]
    };
    for a in args {
        command.push(' ');
        command.push_str(a);
    }
    let mut exit_code = row.exit;
    if accounting && matches!(row.state, JobState::Cancelled | JobState::Timeout) {
        exit_code = ExitStatus::OK;
    }
    // slurmdbd (`as_mysql_job_complete`) takes a raw status of 1 as set by Slurm itself
    // (a deadline, a launch failure), not as signal 1: exit code 1.
    if accounting && exit_code == ExitStatus::signal(1) {
        exit_code = ExitStatus::code(1);
    }
    let started = row.start_time.is_some() && row.node.is_some();
    let partition = ctx.settings.partition_of(spec);
    let mut array = row.array.clone();
    // Accounting holds a meta record's task set as it was last sent there (when the record
    // ended unsent: as it was then; a meta record left without tasks has none, and sacct
    // shows it by its job id alone).
    if accounting
        && let Some(ArrayPart::Pending { tasks, .. }) = &mut array
        && let Some(sent) = &row.acct_tasks
    {
        tasks.clone_from(sent);
    }
    let mut record = JobRecord {
        job_id: row.job_id,
        array,
        name: row.name.clone(),
        user,
        uid: row.uid,
        group,
        gid,
        account: spec.account.clone(),
        // A job that may use several partitions names them all until it runs in one.
        partition: match &spec.partition {
            Some(list) if !started => list.clone(),
            _ => partition.name.clone(),
        },
        qos: Some(spec.qos.clone().unwrap_or_else(|| "normal".to_string())),
        state: row.state,
        flag: row.flag,
        // slurmdbd keeps the last reason the scheduler saw, not the current one.
        reason: if accounting {
            row.acct_reason
                .clone()
                .unwrap_or_else(|| row.reason_prev.clone())
        } else {
            row.reason.clone()
        },
        reason_code: if accounting {
            None
        } else {
            super::schedule::reason::code_of(&row.reason).map(str::to_string)
        },
        priority: row.priority,
        nice: spec.nice.unwrap_or(0),
        submit_time: row.submit_time,
        eligible_time: row.eligible_time,
        accrue_time: row.eligible_time,
        // A deferred job's expected start, in the controller's view, is its begin time.
        start_time: row.start_time.or_else(|| {
            (!accounting && row.state == JobState::Pending && !row.held)
                .then_some(spec.begin)
                .flatten()
                .filter(|&b| b > row.submit_time)
        }),
        end_time: row.end_time.or_else(|| {
            // A running job's EndTime is its expected end.
            match (
                row.state,
                row.start_time,
                time_limit(spec, partition).seconds(),
            ) {
                (JobState::Running, Some(s), Some(l)) => Some(s + l),
                _ => None,
            }
        }),
        last_sched_eval: row.last_sched_eval,
        time_limit: time_limit(spec, partition),
        num_nodes: spec.nodes(),
        num_cpus: row.alloc_cpus,
        // slurmctld shows a task count it was not given while the job waits or runs, and
        // none (N/A) for one that ended without starting (checked on 24.11.5).
        num_tasks: spec
            .task_count()
            .or((started || !row.state.is_finished()).then_some(1)),
        ntasks_requested: spec.task_count().is_some(),
        step_ended_after_job: spec.made_by_srun && started && row.state.is_finished(),
        cpus_per_task: spec.cpus_per_task.unwrap_or(1),
        ntasks_per_node: Some(spec.ntasks_per_node.unwrap_or(0)),
        min_cpus_per_node: spec.min_cpus_per_node(),
        memory: memory_request(spec, partition),
        nodes: if started { row.node.clone() } else { None },
        batch_host: if started {
            row.node
                .as_deref()
                .and_then(crate::model::hostlist::expand)
                .and_then(|n| n.into_iter().next())
        } else {
            None
        },
        req_nodes: spec.nodelist.clone(),
        exc_nodes: spec.exclude.clone(),
        features: spec.constraint.clone(),
        command,
        work_dir: spec.work_dir.clone(),
        std_out,
        std_err,
        std_in,
        exit_code,
        derived_exit_code: derived_exit(steps),
        dependency: row.dependency.as_ref().and_then(|d| d.display_remaining()),
        cancelled_by: row.cancelled_by,
        tres_per_node: spec.tres_per_node(),
        tres_per_job: spec.gpus_tres(GpuPer::Job),
        tres_per_task: spec.tres_per_task_shown(),
        comment: spec.comment.clone(),
        batch: !spec.interactive,
        requeue: spec.requeue.unwrap_or(true),
        restarts: row.restarts,
        // slurmctld names the host a request came from by its address; the local
        // backend's requests never leave the machine, so like a Slurm whose clients reach
        // slurmctld over the loopback (the reference cluster) it records `localhost`.
        alloc_node: "localhost".to_string(),
        alloc_sid: spec.submit_sid,
        cluster: ctx.cluster.to_string(),
        steps: steps.iter().map(step_record).collect(),
        // slurmctld mails the submitting user when --mail-user is not given.
        mail_user: spec
            .mail_user
            .clone()
            .or_else(|| spec.mail_type.as_ref().map(|_| mail_to_user.clone())),
        mail_type: spec.mail_type.clone(),
        kill_on_invalid_dep: spec.kill_on_invalid_dep,
        cpus_per_tres: spec.cpus_per_gpu.map(|c| format!("gres:gpu:{c}")),
        mem_per_tres: spec.mem_per_gpu.map(|m| format!("gres:gpu:{m}")),
        time_min: spec.time_min_minutes(),
        deadline: spec.deadline,
        max_nodes: spec.nodes_max.unwrap_or(0),
        // A task keeps its array's throttle (scontrol ArrayTaskThrottle).
        array_throttle: match &row.array {
            Some(ArrayPart::Task { .. }) => spec.array.as_ref().and_then(|a| a.throttle),
            _ => None,
        },
        submit_line: spec.submit_line.clone(),
        io_patterns: Some(io_patterns(spec)),
        ..Default::default()
    };
    if spec.exclusive {
        // slurmctld keeps what was asked (ReqTRES) apart from the whole node it gives,
        // and shows the node as not shared (checked on 24.11.5).
        record.over_subscribe = Some("NO".into());
        record.tres_req = Some(record.tres_with_cpus(spec.cpus()));
    }
    // What the job was given, once it runs (sacct's AllocTRES).
    if started {
        record.tres_alloc = Some(if spec.exclusive {
            whole_nodes_tres(&record, ctx.node)
        } else {
            record.tres()
        });
    }
    record
}

/// scontrol -d's allocation lines (and `--json`'s job resources): the CPU ids, memory and,
/// while the job runs, GPU devices it holds on each node, alike nodes in one line; and
/// `JOB_GRES=` its GPUs in all (kept once it ends, when the per-node `GRES=` is empty, as
/// slurmctld shows them).
pub fn show_allocation(record: &mut JobRecord, held: &HeldResources) {
    let Some(names) = record
        .nodes
        .as_deref()
        .and_then(crate::model::hostlist::expand)
    else {
        return;
    };
    let cpus = super::gres::parse_held(&held.cpus);
    let gpus = held
        .gpus
        .as_deref()
        .map(super::gres::parse_held)
        .unwrap_or_default();
    let mem_mb = record.memory_per_node_mb();
    let holds_gpus = !record.state.is_finished();
    let mut groups: Vec<(Vec<&str>, NodeAllocation)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let devices = gpus.get(i).map_or(&[][..], Vec::as_slice);
        let line = NodeAllocation {
            nodes: String::new(),
            cpu_ids: ranges(cpus.get(i).map_or(&[][..], Vec::as_slice)),
            mem_mb,
            gres: if holds_gpus && !devices.is_empty() {
                format!("gpu:{}(IDX:{})", devices.len(), ranges(devices))
            } else {
                String::new()
            },
        };
        match groups.last_mut() {
            Some((nodes, last)) if *last == line => nodes.push(name),
            _ => groups.push((vec![name], line)),
        }
    }
    record.node_alloc = groups
        .into_iter()
        .map(|(nodes, line)| NodeAllocation {
            nodes: crate::model::hostlist::compress(&nodes),
            ..line
        })
        .collect();
    let total: usize = gpus.iter().map(Vec::len).sum();
    record.gres_total = (total > 0).then(|| format!("gpu:{total}"));
}

/// An exclusive job's allocation: its CPUs (every one of its nodes') and every GPU of its
/// nodes, asked for or not, as slurmctld's whole-node allocation counts them.
fn whole_nodes_tres(record: &JobRecord, node: &LocalNode) -> String {
    let mut tres: Vec<String> = record
        .tres()
        .split(',')
        .filter(|t| !t.starts_with("gres/gpu="))
        .map(str::to_string)
        .collect();
    let gpus = node.gpus.saturating_mul(record.num_nodes.max(1));
    if gpus > 0 {
        tres.push(format!("gres/gpu={gpus}"));
    }
    tres.join(",")
}

/// slurmctld's derived exit code: the highest exit status of the job's srun steps (the
/// batch step's own is the job's ExitCode), compared as wait statuses.
fn derived_exit(steps: &[StepRow]) -> ExitStatus {
    steps
        .iter()
        .filter(|s| matches!(s.step, crate::model::StepId::Numbered(_)))
        .map(|s| s.exit)
        .max_by_key(|e| (i64::from(e.code) << 8) | i64::from(e.signal & 0x7f))
        .unwrap_or(ExitStatus::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_lines_group_alike_nodes_and_show_gpus_while_the_job_runs() {
        let mut running = JobRecord {
            state: JobState::Running,
            nodes: Some("n[1-3]".into()),
            num_nodes: 3,
            num_cpus: 6,
            memory: MemoryRequest::PerNode(100),
            ..Default::default()
        };
        let held = HeldResources {
            cpus: "0,1;0,1;2,3".into(),
            gpus: Some("0;0;1".into()),
        };
        show_allocation(&mut running, &held);
        let lines: Vec<(&str, &str, u64, &str)> = running
            .node_alloc
            .iter()
            .map(|a| {
                (
                    a.nodes.as_str(),
                    a.cpu_ids.as_str(),
                    a.mem_mb,
                    a.gres.as_str(),
                )
            })
            .collect();
        assert_eq!(
            lines,
            [
                ("n[1-2]", "0-1", 100, "gpu:1(IDX:0)"),
                ("n3", "2-3", 100, "gpu:1(IDX:1)")
            ]
        );
        assert_eq!(running.gres_total.as_deref(), Some("gpu:3"));

        let mut ended = JobRecord {
            state: JobState::Cancelled,
            ..running.clone()
        };
        show_allocation(&mut ended, &held);
        assert!(ended.node_alloc.iter().all(|a| a.gres.is_empty()));
        assert_eq!(ended.gres_total.as_deref(), Some("gpu:3"));

        let mut waiting = JobRecord {
            state: JobState::Pending,
            nodes: None,
            ..Default::default()
        };
        show_allocation(&mut waiting, &held);
        assert!(waiting.node_alloc.is_empty() && waiting.gres_total.is_none());
    }
}
