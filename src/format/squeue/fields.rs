//! squeue's job fields: their `-o` letters, `-O` names, headers and values
//! (`src/squeue/print.c`, `_print_job_*`).

use super::row::JobRow;
use crate::format::common::{
    Clock, is_completing, raw_exit, reason_text, state_compact, state_long, time_used,
};
use crate::format::text::{print_str, print_text};
use crate::model::hostlist;
use crate::model::time_limit::squeue_duration;
use crate::model::units::{Convert, Unit, convert_num_unit};
use crate::model::{JobState, TimeLimit};

/// What a value needs besides the row.
pub struct Ctx<'a> {
    pub clock: &'a Clock,
    pub profile: &'static crate::model::profile::Profile,
    pub convert: Convert,
    /// SLURM_BITSTR_LEN is set (then long array ids are not cut).
    pub bitstr_len_set: bool,
}

macro_rules! job_fields {
    ($( $variant:ident, $letter:expr, [$($name:expr),*], $header:expr; )*) => {
        /// A job field squeue can print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum JobField { $($variant),* }

        impl JobField {
            /// The field of a `-o` letter.
            pub fn from_letter(c: char) -> Option<JobField> {
                $( if $letter == Some(c) { return Some(JobField::$variant); } )*
                None
            }

            /// The field of a `-O` name (case-insensitive).
            pub fn from_name(name: &str) -> Option<JobField> {
                // `numtasks` is matched on its first 7 letters, as Slurm does.
                if name.len() >= 7 && name.as_bytes()[..7].eq_ignore_ascii_case(b"numtask") {
                    return Some(JobField::NumTasks);
                }
                $( $( if name.eq_ignore_ascii_case($name) { return Some(JobField::$variant); } )* )*
                None
            }

            pub fn header(self) -> &'static str {
                match self { $( JobField::$variant => $header ),* }
            }
        }
    };
}

// Order of the `-O` name checks follows Slurm's `parse_long_format`, which matters only
// for names that appear twice (none do).
job_fields! {
    Account, Some('a'), ["account"], "ACCOUNT";
    Container, None, ["container"], "CONTAINER";
    JobId, Some('A'), ["jobid"], "JOBID";
    TresPerNode, Some('b'), ["gres", "tres-per-node"], "TRES_PER_NODE";
    BatchHost, Some('B'), ["batchhost"], "EXEC_HOST";
    BurstBuffer, None, ["burstbuffer"], "BURST_BUFFER";
    BurstBufferState, None, ["burstbufferstate"], "BURST_BUFFER_STATE";
    Cluster, None, ["cluster"], "CLUSTER";
    DelayBoot, None, ["delayboot"], "DELAY_BOOT";
    MinCpus, Some('c'), ["mincpus"], "MIN_CPUS";
    NumCpus, Some('C'), ["numcpus"], "CPUS";
    MinTmpDisk, Some('d'), ["mintmpdisk"], "MIN_TMP_DISK";
    NumNodes, Some('D'), ["numnodes"], "NODES";
    NumTasks, None, [], "TASKS";
    EndTime, Some('e'), ["endtime"], "END_TIME";
    Dependency, Some('E'), ["dependency"], "DEPENDENCY";
    Features, Some('f'), ["feature"], "FEATURES";
    ClusterFeatures, None, ["clusterfeature"], "CLUSTER_FEATURES";
    Prefer, None, ["prefer"], "PREFER";
    ArrayJobId, Some('F'), ["arrayjobid"], "ARRAY_JOB_ID";
    GroupName, Some('g'), ["groupname"], "GROUP";
    GroupId, Some('G'), ["groupid"], "GROUP";
    OverSubscribe, Some('h'), ["oversubscribe", "shared"], "OVER_SUBSCRIBE";
    Sockets, Some('H'), ["sockets"], "SOCKETS_PER_NODE";
    JobArrayId, Some('i'), ["jobarrayid"], "JOBID";
    Cores, Some('I'), ["cores"], "CORES_PER_SOCKET";
    Name, Some('j'), ["name"], "NAME";
    Threads, Some('J'), ["threads"], "THREADS_PER_CORE";
    AdminComment, None, ["admin_comment"], "ADMIN_COMMENT";
    SystemComment, None, ["system_comment"], "SYSTEM_COMMENT";
    Comment, Some('k'), ["comment"], "COMMENT";
    ArrayTaskId, Some('K'), ["arraytaskid"], "ARRAY_TASK_ID";
    TimeLimit, Some('l'), ["timelimit"], "TIME_LIMIT";
    TimeLeft, Some('L'), ["timeleft"], "TIME_LEFT";
    MinMemory, Some('m'), ["minmemory"], "MIN_MEMORY";
    TimeUsed, Some('M'), ["timeused"], "TIME";
    ReqNodes, Some('n'), ["reqnodes"], "REQ_NODES";
    NodeList, Some('N'), ["nodelist"], "NODELIST";
    Command, Some('o'), ["command"], "COMMAND";
    Contiguous, Some('O'), ["contiguous"], "CONTIGUOUS";
    Priority, Some('p'), ["priority"], "PRIORITY";
    Partition, Some('P'), ["partition"], "PARTITION";
    Qos, Some('q'), ["qos"], "QOS";
    PriorityLong, Some('Q'), ["prioritylong"], "PRIORITY";
    Reason, Some('r'), ["reason"], "REASON";
    ReasonList, Some('R'), ["reasonlist"], "NODELIST(REASON)";
    SelectJobInfo, Some('s'), ["selectjobinfo"], "";
    StartTime, Some('S'), ["starttime"], "START_TIME";
    LastSchedEval, None, ["lastschedeval"], "LAST_SCHED_EVAL";
    StateCompact, Some('t'), ["statecompact"], "ST";
    State, Some('T'), ["state"], "STATE";
    UserId, Some('U'), ["userid"], "UID";
    UserName, Some('u'), ["username"], "USER";
    Reservation, Some('v'), ["reservation"], "RESERVATION";
    SubmitTime, Some('V'), ["submittime"], "SUBMIT_TIME";
    PendingTime, None, ["pendingtime"], "PENDING_TIME";
    WcKey, Some('w'), ["wckey"], "WCKEY";
    Licenses, Some('W'), ["licenses"], "LICENSES";
    ExcNodes, Some('x'), [], "EXC_NODES";
    CoreSpec, Some('X'), ["corespec"], "CORE_SPEC";
    Nice, Some('y'), ["nice"], "NICE";
    SchedNodes, Some('Y'), ["schednodes"], "SCHEDNODES";
    Sct, Some('z'), ["sct"], "S:C:T";
    WorkDir, Some('Z'), ["workdir"], "WORK_DIR";
    AccrueTime, None, ["accruetime"], "ACCRUE_TIME";
    AllocNodes, None, ["allocnodes"], "ALLOC_NODES";
    AllocSid, None, ["allocsid"], "ALLOC_SID";
    AssocId, None, ["associd"], "ASSOC_ID";
    BatchFlag, None, ["batchflag"], "BATCH_FLAG";
    BoardsPerNode, None, ["boardspernode"], "BOARDS_PER_NODE";
    CpusPerTask, None, ["cpuspertask", "cpus-per-task"], "CPUS_PER_TASK";
    DerivedEc, None, ["derivedec"], "DERIVED_EC";
    EligibleTime, None, ["eligibletime"], "ELIGIBLE_TIME";
    ExitCode, None, ["exit_code"], "EXIT_CODE";
    Origin, None, ["origin"], "ORIGIN";
    OriginRaw, None, ["originraw"], "ORIGIN_RAW";
    SiblingsActive, None, ["siblingsactive"], "ACTIVE_SIBLINGS";
    SiblingsActiveRaw, None, ["siblingsactiveraw"], "ACTIVE_SIBLINGS_RAW";
    SiblingsViable, None, ["siblingsviable"], "VIABLE_SIBLINGS";
    SiblingsViableRaw, None, ["siblingsviableraw"], "VIALBLE_SIBLINGS_RAW";
    MaxCpus, None, ["maxcpus"], "MAX_CPUS";
    MaxNodes, None, ["maxnodes"], "MAX_NODES";
    Network, None, ["network"], "NETWORK";
    NtPerCore, None, ["ntpercore"], "NTASKS_PER_CORE";
    NtPerNode, None, ["ntpernode"], "NTASKS_PER_NODE";
    NtPerSocket, None, ["ntpersocket"], "NTASKS_PER_SOCKET";
    NtPerBoard, None, ["ntperboard"], "NTASKS_PER_BOARD";
    PreemptTime, None, ["preempttime"], "PREEMPT_TIME";
    Profile, None, ["profile"], "PROFILE";
    Reboot, None, ["reboot"], "REBOOT";
    ReqSwitch, None, ["reqswitch"], "REQ_SWITCH";
    Requeue, None, ["requeue"], "REQUEUE";
    ResizeTime, None, ["resizetime"], "RESIZE_TIME";
    RestartCnt, None, ["restartcnt"], "RESTART_COUNT";
    SocketsPerBoard, None, ["sperboard"], "SOCKETS_PER_BOARD";
    StdErr, None, ["stderr"], "STDERR";
    StdIn, None, ["stdin"], "STDIN";
    StdOut, None, ["stdout"], "STDOUT";
    MinTime, None, ["mintime"], "TIME_MIN";
    Wait4Switch, None, ["wait4switch"], "WAIT4SWITCH";
    CpusPerTres, None, ["cpus-per-tres"], "CPUS_PER_TRES";
    MemPerTres, None, ["mem-per-tres"], "MEM_PER_TRES";
    TresAlloc, None, ["tres", "tres-alloc"], "TRES_ALLOC";
    TresBind, None, ["tres-bind"], "TRES_BIND";
    TresFreq, None, ["tres-freq"], "TRES_FREQ";
    TresPerJob, None, ["tres-per-job"], "TRES_PER_JOB";
    TresPerSocket, None, ["tres-per-socket"], "TRES_PER_SOCKET";
    TresPerTask, None, ["tres-per-task"], "TRES_PER_TASK";
    McsLabel, None, ["mcslabel"], "MCSLABEL";
    Deadline, None, ["deadline"], "DEADLINE";
    HetJobId, None, ["packjobid", "hetjobid"], "HET_JOB_ID";
    HetJobOffset, None, ["packjoboffset", "hetjoboffset"], "HET_JOB_OFFSET";
    HetJobIdSet, None, ["packjobidset", "hetjobidset"], "HET_JOB_ID_SET";
}

/// A value to print: a string (`None` is a C NULL, printed as `(null)`), and whether
/// Slurm cuts it to the field width when right-justified.
struct Value {
    text: Option<String>,
    cut: bool,
}

fn v(s: impl Into<String>) -> Value {
    Value {
        text: Some(s.into()),
        cut: true,
    }
}

fn opt(s: &Option<String>) -> Value {
    Value {
        text: s.clone(),
        cut: true,
    }
}

fn uncut(s: impl Into<String>) -> Value {
    Value {
        text: Some(s.into()),
        cut: false,
    }
}

/// An optional string that Slurm prints as `N/A` when unset.
fn or_na(s: &Option<String>) -> Value {
    v(s.clone().unwrap_or_else(|| "N/A".into()))
}

fn num_or_na(n: Option<u16>) -> Value {
    v(n.map_or_else(|| "N/A".to_string(), |n| n.to_string()))
}

/// `%ld` seconds as `_print_secs` shows them.
fn secs(s: i64, cut: bool) -> Value {
    Value {
        text: Some(squeue_duration(s)),
        cut,
    }
}

/// `_print_time`: 0 prints `N/A`.
fn time(ctx: &Ctx, t: Option<i64>) -> Value {
    match t.filter(|&t| t != 0) {
        None => v("N/A"),
        Some(t) => v(ctx.clock.time_str(Some(t), 32)),
    }
}

/// `_print_nodes`: a node list sorted and compressed, never cut; NULL prints nothing.
fn nodes(list: &Option<String>) -> Value {
    uncut(sorted_nodes(list.as_deref().unwrap_or("")))
}

/// `slurm_sort_node_list_str`.
pub fn sorted_nodes(list: &str) -> String {
    match hostlist::expand(list) {
        Some(mut hosts) => {
            hosts.sort();
            hostlist::compress(&hosts)
        }
        None => list.to_string(),
    }
}

/// `*` for an unset count, else the count through `convert_num_unit`.
fn count_or_star(n: Option<u16>, convert: Convert) -> String {
    match n {
        None => "*".to_string(),
        Some(n) => convert_num_unit(f64::from(n), Unit::None, convert),
    }
}

fn default_output(row: &JobRow) -> String {
    format!("{}/slurm-{}.out", row.job.work_dir, row.job.job_id)
}

fn nonempty(s: &str) -> Option<&str> {
    if s.is_empty() { None } else { Some(s) }
}

impl JobField {
    /// The header is cut to the width except for the node list columns.
    fn header_cut(self) -> bool {
        !matches!(
            self,
            JobField::NodeList | JobField::SchedNodes | JobField::ReasonList
        )
    }

    /// Prints the header cell.
    pub fn print_header(self, out: &mut Vec<u8>, width: usize, right: bool) {
        print_text(out, self.header(), width, right, self.header_cut());
    }

    /// Prints the value cell of one row.
    pub fn print_value(
        self,
        out: &mut Vec<u8>,
        row: &JobRow,
        ctx: &Ctx,
        width: usize,
        right: bool,
    ) {
        let val = self.value(row, ctx);
        print_str(
            out,
            val.text.as_deref().map(str::as_bytes),
            width,
            right,
            val.cut,
        );
    }

    fn value(self, row: &JobRow, ctx: &Ctx) -> Value {
        let job = row.job;
        let now = ctx.clock.now;
        use JobField as F;
        match self {
            F::Account => opt(&job.account),
            F::Container => opt(&job.container),
            F::JobId => v(job.job_id.to_string()),
            F::TresPerNode
            | F::TresPerJob
            | F::TresPerSocket
            | F::TresPerTask
            | F::CpusPerTres
            | F::MemPerTres
            | F::TresBind
            | F::TresFreq => or_na(
                &match self {
                    F::TresPerNode => &job.tres_per_node,
                    F::TresPerJob => &job.tres_per_job,
                    F::TresPerSocket => &job.tres_per_socket,
                    F::TresPerTask => &job.tres_per_task,
                    F::CpusPerTres => &job.cpus_per_tres,
                    F::MemPerTres => &job.mem_per_tres,
                    F::TresBind => &job.tres_bind,
                    _ => &job.tres_freq,
                }
                .as_deref()
                .map(|t| crate::format::common::gres_spelling(t, ctx.profile)),
            ),
            F::BatchHost => {
                let host = if job.batch {
                    job.batch_host.clone()
                } else {
                    nonempty(&job.alloc_node).map(String::from)
                };
                v(host.unwrap_or_else(|| "n/a".into()))
            }
            F::BurstBuffer => opt(&job.burst_buffer),
            F::BurstBufferState => Value {
                text: None,
                cut: true,
            },
            F::Cluster => v(job.cluster.clone()),
            F::DelayBoot => secs(i64::from(job.delay_boot), true),
            F::MinCpus => v(convert_num_unit(
                f64::from(job.min_cpus_per_node),
                Unit::None,
                ctx.convert,
            )),
            F::NumCpus => v(job.num_cpus.to_string()),
            F::MinTmpDisk => v(convert_num_unit(
                job.min_tmp_disk as f64,
                Unit::Mega,
                ctx.convert,
            )),
            F::NumNodes => v(job.num_nodes.to_string()),
            F::NumTasks => v(job.num_tasks.unwrap_or(0xffff_fffe).to_string()),
            F::EndTime => {
                let end = job.end_time.unwrap_or(0);
                if job.time_limit == TimeLimit::Infinite && end > now {
                    v("NONE")
                } else {
                    time(ctx, job.end_time)
                }
            }
            F::Dependency => opt(&job.dependency),
            F::Features => opt(&job.features),
            F::ClusterFeatures => opt(&job.cluster_features),
            F::Prefer => opt(&job.prefer),
            F::ArrayJobId => v(if row.is_array() {
                row.array_job_id
            } else {
                job.job_id
            }
            .to_string()),
            F::GroupName => v(if job.group.is_empty() {
                job.gid.to_string()
            } else {
                job.group.clone()
            }),
            F::GroupId => v(job.gid.to_string()),
            F::OverSubscribe => v(job.over_subscribe.clone().unwrap_or_else(|| "OK".into())),
            F::Sockets => v(count_or_star(job.sockets_per_node, ctx.convert)),
            F::Cores => v(count_or_star(job.cores_per_socket, ctx.convert)),
            F::Threads => v(count_or_star(job.threads_per_core, ctx.convert)),
            F::JobArrayId => match (&row.array_task_str, row.array_task_id) {
                (Some(tasks), _) => {
                    let mut id = format!("{}_[{}]", row.array_job_id, tasks);
                    // Slurm formats into a 32-byte buffer unless SLURM_BITSTR_LEN is set.
                    if !ctx.bitstr_len_set {
                        id.truncate(31);
                    }
                    Value {
                        text: Some(id),
                        cut: !ctx.bitstr_len_set,
                    }
                }
                (None, Some(task)) => v(format!("{}_{}", row.array_job_id, task)),
                (None, None) => v(job.job_id.to_string()),
            },
            F::Name => v(job.name.clone()),
            F::AdminComment => opt(&job.admin_comment),
            F::SystemComment => opt(&job.system_comment),
            F::Comment => opt(&job.comment),
            F::ArrayTaskId => match (&row.array_task_str, row.array_task_id) {
                (Some(tasks), _) => v(tasks.clone()),
                (None, Some(task)) => v(task.to_string()),
                (None, None) => v("N/A"),
            },
            F::TimeLimit => match job.time_limit {
                TimeLimit::Infinite => v("UNLIMITED"),
                TimeLimit::Minutes(m) => secs(i64::from(m) * 60, false),
            },
            F::TimeLeft => match job.time_limit {
                TimeLimit::Infinite => v("UNLIMITED"),
                TimeLimit::Minutes(m) => secs(i64::from(m) * 60 - time_used(job, now), false),
            },
            F::MinMemory => v(convert_num_unit(
                job.memory.mb() as f64,
                Unit::Mega,
                ctx.convert,
            )),
            F::TimeUsed => secs(time_used(job, now), false),
            F::ReqNodes => nodes(&job.req_nodes),
            F::NodeList => nodes(&job.nodes),
            F::ExcNodes => nodes(&job.exc_nodes),
            F::Command => v(job.command.clone()),
            F::Contiguous => v(u8::from(job.contiguous).to_string()),
            F::Priority => v(format!(
                "{:16.14}",
                f64::from(job.priority) / f64::from(u32::MAX)
            )),
            F::PriorityLong => v(job.priority.to_string()),
            F::Partition => v(row.partition.to_string()),
            F::Qos => opt(&job.qos),
            F::Reason => v(reason_text(&row.reason)),
            F::ReasonList => {
                let shows_reason = !is_completing(job)
                    && matches!(
                        job.state,
                        JobState::Pending
                            | JobState::Timeout
                            | JobState::OutOfMemory
                            | JobState::Deadline
                            | JobState::Failed
                    );
                if shows_reason {
                    v(format!("({})", reason_text(&row.reason)))
                } else {
                    nodes(&job.nodes)
                }
            }
            // The cons_tres select plugin prints nothing for job info.
            F::SelectJobInfo => v(""),
            F::StartTime => time(ctx, job.start_time),
            F::LastSchedEval => time(ctx, job.last_sched_eval),
            F::StateCompact => v(state_compact(job)),
            F::State => v(state_long(job)),
            F::UserId => v(job.uid.to_string()),
            F::UserName => v(if job.user.is_empty() {
                job.uid.to_string()
            } else {
                job.user.clone()
            }),
            F::Reservation => opt(&job.reservation),
            F::SubmitTime => time(ctx, Some(job.submit_time)),
            F::PendingTime => {
                let start = job.start_time.unwrap_or(0);
                v(if start != 0 && start < now {
                    start - job.submit_time
                } else {
                    now - job.submit_time
                }
                .to_string())
            }
            F::WcKey => opt(&job.wckey),
            F::Licenses => opt(&job.licenses),
            F::CoreSpec => v(job
                .core_spec
                .map_or_else(|| "N/A".to_string(), core_spec_text)),
            F::Nice => v(job.nice.to_string()),
            F::SchedNodes => Value {
                text: job.sched_nodes.clone(),
                cut: false,
            },
            F::Sct => v(format!(
                "{}:{}:{}",
                count_or_star(job.sockets_per_node, ctx.convert),
                count_or_star(job.cores_per_socket, ctx.convert),
                count_or_star(job.threads_per_core, ctx.convert)
            )),
            F::WorkDir => v(job.work_dir.clone()),
            F::AccrueTime => time(ctx, job.accrue_time),
            F::AllocNodes => v(job.alloc_node.clone()),
            F::AllocSid => v(job.alloc_sid.to_string()),
            F::AssocId => v(job.assoc_id.to_string()),
            F::BatchFlag => v(u8::from(job.batch).to_string()),
            F::BoardsPerNode => num_or_na(job.boards_per_node),
            F::CpusPerTask => num_or_na(u16::try_from(job.cpus_per_task).ok().filter(|&c| c != 0)),
            F::DerivedEc => v(raw_exit(job.derived_exit_code).to_string()),
            F::EligibleTime => time(ctx, job.eligible_time),
            F::ExitCode => v(raw_exit(job.exit_code).to_string()),
            F::Origin
            | F::SiblingsActive
            | F::SiblingsActiveRaw
            | F::SiblingsViable
            | F::SiblingsViableRaw => v("NA"),
            F::OriginRaw => match job.job_id >> 26 {
                0 => v("NA"),
                id => v(id.to_string()),
            },
            F::MaxCpus => v(if job.max_cpus != 0 {
                job.max_cpus
            } else {
                job.num_cpus
            }
            .to_string()),
            F::MaxNodes => v(if job.max_nodes != 0 {
                job.max_nodes
            } else {
                job.num_nodes
            }
            .to_string()),
            F::Network => opt(&job.network),
            F::NtPerCore => num_or_na(job.ntasks_per_core),
            F::NtPerNode => num_or_na(job.ntasks_per_node.and_then(|n| u16::try_from(n).ok())),
            F::NtPerSocket => num_or_na(job.ntasks_per_socket),
            F::NtPerBoard => num_or_na(job.ntasks_per_board),
            F::PreemptTime => time(ctx, job.preempt_time),
            F::Profile => v("NotSet"),
            F::Reboot => v(u8::from(job.reboot).to_string()),
            F::ReqSwitch => v("0"),
            F::Requeue => v(u8::from(job.requeue).to_string()),
            F::ResizeTime => match job.resize_time.filter(|&t| t != 0) {
                Some(t) => secs(t * 60, true),
                None => uncut("N/A"),
            },
            F::RestartCnt => v(job.restarts.to_string()),
            F::SocketsPerBoard => v("0"),
            F::StdErr | F::StdIn | F::StdOut
                if ctx.profile.squeue.std_paths_unexpanded
                    && job.batch
                    && job.io_patterns.is_some() =>
            {
                let p = job.io_patterns.clone().unwrap_or_default();
                v(match self {
                    F::StdErr => p.std_err.clone(),
                    F::StdIn => p.std_in.clone(),
                    _ => p.std_out.clone(),
                })
            }
            F::StdErr => {
                if !job.batch {
                    v("N/A")
                } else if let Some(e) = nonempty(&job.std_err) {
                    v(e)
                } else if let Some(o) = nonempty(&job.std_out) {
                    v(o)
                } else {
                    v(default_output(row))
                }
            }
            F::StdIn => v(job.std_in.clone()),
            F::StdOut => match nonempty(&job.std_out) {
                Some(o) => v(o),
                None => v(default_output(row)),
            },
            F::MinTime => secs(i64::from(job.time_min.unwrap_or(0)) * 60, true),
            F::Wait4Switch => secs(0, true),
            F::TresAlloc => v(job
                .tres_alloc
                .clone()
                .or_else(|| job.tres_req.clone())
                .unwrap_or_else(|| job.tres())),
            F::McsLabel => opt(&job.mcs_label),
            F::Deadline => time(ctx, job.deadline),
            F::HetJobId | F::HetJobOffset | F::HetJobIdSet => v("N/A"),
        }
    }
}

/// `CoreSpec`: a count of cores, or of threads when Slurm's thread flag (0x8000) is set.
pub fn core_spec_text(spec: u16) -> String {
    if spec & 0x8000 != 0 {
        format!("{} Threads", spec & 0x7fff)
    } else {
        spec.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_names_resolve() {
        assert_eq!(JobField::from_letter('i'), Some(JobField::JobArrayId));
        assert_eq!(JobField::from_letter('A'), Some(JobField::JobId));
        assert_eq!(JobField::from_letter('!'), None);
        assert_eq!(
            JobField::from_name("JobArrayID"),
            Some(JobField::JobArrayId)
        );
        assert_eq!(
            JobField::from_name("tres-per-node"),
            Some(JobField::TresPerNode)
        );
        assert_eq!(JobField::from_name("numtasks"), Some(JobField::NumTasks));
        assert_eq!(JobField::from_name("NumTask"), Some(JobField::NumTasks));
        assert_eq!(JobField::from_name("bogus"), None);
        assert_eq!(JobField::ReasonList.header(), "NODELIST(REASON)");
    }
}
