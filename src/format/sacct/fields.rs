//! sacct's field table (`fields[]` in `src/sacct/sacct.c`: name, default width, printer)
//! and the value of every field for a job row and a step row (`src/sacct/print.c`).

use super::cell::{self, Layout};
use crate::format::common::Clock;
use crate::model::profile::SacctDeltas;
use crate::model::time_limit::long_duration;
use crate::model::tres;
use crate::model::units::{Convert, Unit, convert_num_unit};
use crate::model::{ExitStatus, JobRecord, JobState, StepRecord, TimeLimit};

macro_rules! sacct_fields {
    ($( $variant:ident, $width:expr, $name:expr; )*) => {
        /// A field sacct can print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Field { $($variant),* }

        /// The table in Slurm's order, which decides prefix matches (`jobid` → JobID).
        pub const FIELDS: &[(Field, i32, &str)] = &[ $( (Field::$variant, $width, $name) ),* ];
    };
}

sacct_fields! {
    Account, 10, "Account";
    AdminComment, 15, "AdminComment";
    AllocCpus, 10, "AllocCPUS";
    AllocNodes, 10, "AllocNodes";
    AllocTres, 10, "AllocTRES";
    AssocId, 7, "AssocID";
    AveCpu, 10, "AveCPU";
    AveCpuFreq, 10, "AveCPUFreq";
    AveDiskRead, 14, "AveDiskRead";
    AveDiskWrite, 14, "AveDiskWrite";
    AvePages, 10, "AvePages";
    AveRss, 10, "AveRSS";
    AveVmSize, 10, "AveVMSize";
    BlockId, 16, "BlockID";
    Cluster, 10, "Cluster";
    Comment, 14, "Comment";
    Constraints, 19, "Constraints";
    ConsumedEnergy, 14, "ConsumedEnergy";
    ConsumedEnergyRaw, 17, "ConsumedEnergyRaw";
    Container, 19, "Container";
    CpuTime, 10, "CPUTime";
    CpuTimeRaw, 10, "CPUTimeRAW";
    DbIndex, -10, "DBIndex";
    DerivedExitCode, 15, "DerivedExitCode";
    Elapsed, 10, "Elapsed";
    ElapsedRaw, 10, "ElapsedRaw";
    Eligible, 19, "Eligible";
    End, 19, "End";
    ExitCode, 8, "ExitCode";
    Extra, 14, "Extra";
    FailedNode, 8, "FailedNode";
    Flags, 19, "Flags";
    Gid, 6, "GID";
    Group, 9, "Group";
    JobId, -12, "JobID";
    JobIdRaw, -12, "JobIDRaw";
    JobName, 10, "JobName";
    Layout, 9, "Layout";
    Licenses, 10, "Licenses";
    MaxDiskRead, 12, "MaxDiskRead";
    MaxDiskReadNode, 15, "MaxDiskReadNode";
    MaxDiskReadTask, 15, "MaxDiskReadTask";
    MaxDiskWrite, 12, "MaxDiskWrite";
    MaxDiskWriteNode, 16, "MaxDiskWriteNode";
    MaxDiskWriteTask, 16, "MaxDiskWriteTask";
    MaxPages, 8, "MaxPages";
    MaxPagesNode, 12, "MaxPagesNode";
    MaxPagesTask, 14, "MaxPagesTask";
    MaxRss, 10, "MaxRSS";
    MaxRssNode, 10, "MaxRSSNode";
    MaxRssTask, 10, "MaxRSSTask";
    MaxVmSize, 10, "MaxVMSize";
    MaxVmSizeNode, 14, "MaxVMSizeNode";
    MaxVmSizeTask, 14, "MaxVMSizeTask";
    McsLabel, 12, "McsLabel";
    MinCpu, 10, "MinCPU";
    MinCpuNode, 10, "MinCPUNode";
    MinCpuTask, 10, "MinCPUTask";
    NCpus, 10, "NCPUS";
    NNodes, 8, "NNodes";
    NodeList, 15, "NodeList";
    NTasks, 8, "NTasks";
    Partition, 10, "Partition";
    Planned, 10, "Planned";
    PlannedCpu, 10, "PlannedCPU";
    PlannedCpuRaw, 13, "PlannedCPURAW";
    Priority, 10, "Priority";
    Qos, 10, "QOS";
    QosRaw, 6, "QOSRAW";
    QosReq, 10, "QOSREQ";
    Reason, 22, "Reason";
    ReqCpuFreq, 10, "ReqCPUFreq";
    ReqCpuFreqGov, 13, "ReqCPUFreqGov";
    ReqCpuFreqMax, 13, "ReqCPUFreqMax";
    ReqCpuFreqMin, 13, "ReqCPUFreqMin";
    ReqCpus, 8, "ReqCPUS";
    ReqMem, 10, "ReqMem";
    ReqNodes, 8, "ReqNodes";
    ReqTres, 10, "ReqTRES";
    Reservation, 20, "Reservation";
    ReservationId, 8, "ReservationId";
    Reserved, 10, "Reserved";
    ResvCpu, 10, "ResvCPU";
    ResvCpuRaw, 10, "ResvCPURAW";
    Restarts, 8, "Restarts";
    Sluid, 14, "SLUID";
    Start, 19, "Start";
    State, 10, "State";
    StdErr, 20, "StdErr";
    StdIn, 20, "StdIn";
    StdOut, 20, "StdOut";
    Submit, 19, "Submit";
    SubmitLine, 20, "SubmitLine";
    Suspended, 10, "Suspended";
    SystemComment, 15, "SystemComment";
    SystemCpu, 10, "SystemCPU";
    Timelimit, 10, "Timelimit";
    TimelimitRaw, 10, "TimelimitRaw";
    TotalCpu, 10, "TotalCPU";
    TresUsageInAve, 14, "TRESUsageInAve";
    TresUsageInMax, 14, "TRESUsageInMax";
    TresUsageInMaxNode, 18, "TRESUsageInMaxNode";
    TresUsageInMaxTask, 18, "TRESUsageInMaxTask";
    TresUsageInMin, 14, "TRESUsageInMin";
    TresUsageInMinNode, 18, "TRESUsageInMinNode";
    TresUsageInMinTask, 18, "TRESUsageInMinTask";
    TresUsageInTot, 14, "TRESUsageInTot";
    TresUsageOutAve, 15, "TRESUsageOutAve";
    TresUsageOutMax, 15, "TRESUsageOutMax";
    TresUsageOutMaxNode, 19, "TRESUsageOutMaxNode";
    TresUsageOutMaxTask, 19, "TRESUsageOutMaxTask";
    TresUsageOutMin, 15, "TRESUsageOutMin";
    TresUsageOutMinNode, 19, "TRESUsageOutMinNode";
    TresUsageOutMinTask, 19, "TRESUsageOutMinTask";
    TresUsageOutTot, 15, "TRESUsageOutTot";
    Uid, 6, "UID";
    User, 9, "User";
    UserCpu, 10, "UserCPU";
    WcKey, 10, "WCKey";
    WcKeyId, 10, "WCKeyID";
    WorkDir, 20, "WorkDir";
}

/// A row of sacct: a job, or one of its steps.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    Job(&'a JobRecord),
    Step(&'a JobRecord, &'a StepRecord),
}

/// What values depend on besides the row.
pub struct Ctx<'a> {
    pub clock: &'a Clock,
    pub convert: Convert,
    pub deltas: SacctDeltas,
    pub expand_patterns: bool,
}

/// A field's value, before layout.
enum Value {
    /// A C string; `None` is NULL.
    Str(Option<String>),
    /// A number; `None` is NO_VAL (printed blank).
    Num(Option<u64>),
    /// A timestamp (0 = `Unknown`).
    Date(Option<i64>),
    /// A date column's word for a time Slurm does not have (`None`).
    DateText(&'static str),
    /// Seconds for `secs2time_str`; `None` is NO_VAL64 (blank).
    Secs(Option<u64>),
}

/// `<status>:<signal>`, with statuses above 127 reduced as Slurm does.
fn exit_text(e: ExitStatus) -> String {
    if e.signal != 0 {
        format!("0:{}", e.signal)
    } else {
        let code = if e.code >= 128 { e.code - 128 } else { e.code };
        format!("{code}:0")
    }
}

/// The job's TRES as the database holds them (requested, and allocated once started).
fn job_tres(job: &JobRecord, alloc: bool) -> Option<String> {
    if alloc {
        job.tres_alloc.clone()
    } else {
        job.tres_req.clone().or_else(|| Some(job.tres()))
    }
}

/// The TRES count sacct takes CPUs and nodes from: allocated when there is an allocation.
fn job_count(job: &JobRecord, name: &str) -> Option<u64> {
    let t = job_tres(job, true)
        .filter(|t| !t.is_empty())
        .or_else(|| job_tres(job, false))?;
    tres::count(&t, name)
}

/// A job that never held nodes: no allocated TRES and no node list.
fn never_ran(job: &JobRecord) -> bool {
    job.tres_alloc.as_deref().is_none_or(str::is_empty) && job.nodes.is_none()
}

fn job_cpus(job: &JobRecord) -> u64 {
    job_count(job, "cpu").unwrap_or(u64::from(job.num_cpus))
}

fn step_cpus(job: &JobRecord, step: &StepRecord) -> u64 {
    if step.num_cpus != 0 {
        u64::from(step.num_cpus)
    } else {
        job_cpus(job)
    }
}

/// Seconds between start and end (or now while running), less suspended time.
fn elapsed(start: Option<i64>, end: Option<i64>, suspended: i64, now: i64) -> u64 {
    match start.filter(|&s| s != 0) {
        None => 0,
        Some(s) => {
            let e = end.filter(|&e| e != 0).unwrap_or(now);
            u64::try_from(e.saturating_sub(s).saturating_sub(suspended)).unwrap_or(0)
        }
    }
}

pub fn job_elapsed(job: &JobRecord, now: i64) -> u64 {
    if job.state == JobState::Pending {
        return 0;
    }
    elapsed(job.start_time, job.end_time, job.suspended_secs, now)
}

/// `%s by %u` for a cancellation whose requester is known.
fn state_text(state: JobState, cancelled_by: Option<u32>) -> String {
    match (state, cancelled_by) {
        (JobState::Cancelled, Some(uid)) => format!("CANCELLED by {uid}"),
        (s, _) => s.long().to_string(),
    }
}

/// `sacct`'s JobID: `12`, `13_4`, `13_[0-3%2]`.
pub fn job_id_text(job: &JobRecord) -> String {
    job.array_display_id()
}

/// `_elapsed_time` for CPU times we do not measure: zero.
const ZERO_CPU_TIME: &str = "00:00:00";

/// NO_VAL as `(uint64_t)` — what Slurm passes for a step's Reserved time.
const NO_VAL_AS_U64: u64 = 0xffff_fffe;

/// sacct's table in one release: 24.11 added Extra, FailedNode, Licenses, QOSREQ,
/// Restarts, SLUID, StdErr, StdIn and StdOut, and renamed Reserved, ResvCPU and ResvCPURAW
/// to Planned, PlannedCPU and PlannedCPURAW.
pub fn fields_in(deltas: SacctDeltas) -> impl Iterator<Item = &'static (Field, i32, &'static str)> {
    use Field as F;
    FIELDS.iter().filter(move |(f, _, _)| {
        let newer = matches!(
            f,
            F::Extra
                | F::FailedNode
                | F::Licenses
                | F::Planned
                | F::PlannedCpu
                | F::PlannedCpuRaw
                | F::QosReq
                | F::Restarts
                | F::Sluid
                | F::StdErr
                | F::StdIn
                | F::StdOut
        );
        let older = matches!(f, F::Reserved | F::ResvCpu | F::ResvCpuRaw);
        if deltas.fields_24_11 { !older } else { !newer }
    })
}

impl Field {
    pub fn name(self) -> &'static str {
        FIELDS
            .iter()
            .find(|(f, _, _)| *f == self)
            .map_or("", |(_, _, n)| n)
    }

    pub fn default_width(self) -> i32 {
        FIELDS
            .iter()
            .find(|(f, _, _)| *f == self)
            .map_or(10, |(_, w, _)| *w)
    }

    /// Prints this field's cell of `row`.
    pub fn print(
        self,
        out: &mut Vec<u8>,
        row: Row,
        ctx: &Ctx,
        layout: &Layout,
        len: i32,
        last: bool,
    ) {
        match self.value(row, ctx) {
            Value::Str(s) => cell::string(out, layout, len, s.as_deref(), last),
            Value::Num(n) => cell::number(out, layout, len, n, last),
            Value::Secs(None) => cell::number(out, layout, len, None, last),
            Value::Secs(Some(s)) => {
                let t = long_duration(i64::try_from(s).unwrap_or(i64::MAX));
                cell::text_uncut(out, layout, len, &t, last)
            }
            Value::Date(t) => {
                let size = len.unsigned_abs() as usize + 1;
                let text = ctx.clock.time_str(t.filter(|&t| t != 0), size);
                cell::date(out, layout, len, &text, last)
            }
            Value::DateText(text) => cell::date(out, layout, len, text, last),
        }
    }

    fn value(self, row: Row, ctx: &Ctx) -> Value {
        use Field as F;
        let now = ctx.clock.now;
        let (job, step) = match row {
            Row::Job(j) => (j, None),
            Row::Step(j, s) => (j, Some(s)),
        };
        let str_job = |v: Option<String>| Value::Str(if step.is_none() { v } else { None });
        let num_job = |v: Option<u64>| Value::Num(if step.is_none() { v } else { None });
        match self {
            F::Account => Value::Str(job.account.clone()),
            F::AdminComment => str_job(job.admin_comment.clone()),
            F::AllocCpus | F::NCpus => Value::Num(Some(match step {
                // 24.11 counts only what was allocated: a job that never ran has none.
                None if ctx.deltas.unstarted_alloc_cpus_zero && never_ran(job) => 0,
                None => job_cpus(job),
                Some(s) => step_cpus(job, s),
            })),
            F::AllocNodes => {
                let n = match step {
                    None => u64::from(job.num_nodes),
                    Some(s) => u64::from(s.num_nodes),
                };
                let n = if n == 0 && step.is_none() {
                    job.tres_alloc
                        .as_deref()
                        .and_then(|t| tres::count(t, "node"))
                        .unwrap_or(0)
                } else {
                    n
                };
                Value::Str(Some(convert_num_unit(n as f64, Unit::None, ctx.convert)))
            }
            F::AllocTres => Value::Str(match step {
                None => job
                    .tres_alloc
                    .as_deref()
                    .map(|t| tres::sacct_string(t, ctx.convert)),
                // A step holds its CPUs and, on each of its nodes, the job's memory there.
                Some(s) => Some(s.tres_alloc.clone().unwrap_or_else(|| {
                    format!(
                        "cpu={},mem={}M,node={}",
                        step_cpus(job, s),
                        job.memory_per_node_mb()
                            .saturating_mul(u64::from(s.num_nodes.max(1))),
                        s.num_nodes.max(1)
                    )
                }))
                .map(|t| tres::sacct_string(&t, ctx.convert)),
            }),
            F::AssocId => Value::Num(Some(u64::from(job.assoc_id)).filter(|&a| a != 0)),
            F::AveCpu
            | F::AveDiskRead
            | F::AveDiskWrite
            | F::AvePages
            | F::AveRss
            | F::AveVmSize
            | F::MaxDiskRead
            | F::MaxDiskReadNode
            | F::MaxDiskWrite
            | F::MaxDiskWriteNode
            | F::MaxPages
            | F::MaxPagesNode
            | F::MaxRss
            | F::MaxRssNode
            | F::MaxVmSize
            | F::MaxVmSizeNode
            | F::MinCpu
            | F::MinCpuNode
            | F::TresUsageInAve
            | F::TresUsageInMax
            | F::TresUsageInMaxNode
            | F::TresUsageInMaxTask
            | F::TresUsageInMin
            | F::TresUsageInMinNode
            | F::TresUsageInMinTask
            | F::TresUsageInTot
            | F::TresUsageOutAve
            | F::TresUsageOutMax
            | F::TresUsageOutMaxNode
            | F::TresUsageOutMaxTask
            | F::TresUsageOutMin
            | F::TresUsageOutMinNode
            | F::TresUsageOutMinTask
            | F::TresUsageOutTot => {
                // Usage statistics come from job accounting gather, which we do not run.
                Value::Str(None)
            }
            F::MaxDiskReadTask
            | F::MaxDiskWriteTask
            | F::MaxPagesTask
            | F::MaxRssTask
            | F::MaxVmSizeTask
            | F::MinCpuTask => Value::Num(None),
            F::AveCpuFreq => Value::Str(Some(if step.is_some() { "0" } else { "" }.to_string())),
            F::BlockId => Value::Str(None),
            F::Cluster => Value::Str(Some(job.cluster.clone()).filter(|c| !c.is_empty())),
            F::Comment => str_job(job.comment.clone()),
            F::Constraints => str_job(job.features.clone()),
            F::Container => Value::Str(job.container.clone()),
            F::ConsumedEnergy | F::ConsumedEnergyRaw => {
                // Energy is only known when the allocation recorded it.
                let e = job
                    .tres_alloc
                    .as_deref()
                    .and_then(|t| tres::count(t, "energy"));
                match (self, e) {
                    (F::ConsumedEnergy, Some(e)) if step.is_none() => {
                        Value::Str(Some(e.to_string()))
                    }
                    (F::ConsumedEnergy, _) => Value::Str(Some(String::new())),
                    (_, e) => Value::Num(e.filter(|_| step.is_none())),
                }
            }
            F::CpuTime | F::CpuTimeRaw => {
                let (secs, cpus) = match step {
                    None => (job_elapsed(job, now), job_cpus(job)),
                    Some(s) => (step_elapsed(job, s, now), step_cpus(job, s)),
                };
                if self == F::CpuTime {
                    Value::Secs(Some(secs.saturating_mul(cpus)))
                } else {
                    Value::Num(Some(secs.saturating_mul(cpus)))
                }
            }
            F::DbIndex => Value::Num(None),
            F::DerivedExitCode => Value::Str(Some(match step {
                None => exit_text(job.derived_exit_code),
                Some(_) => String::new(),
            })),
            F::Elapsed => Value::Secs(Some(match step {
                None => job_elapsed(job, now),
                Some(s) => step_elapsed(job, s, now),
            })),
            F::ElapsedRaw => Value::Num(Some(match step {
                None => job_elapsed(job, now),
                Some(s) => step_elapsed(job, s, now),
            })),
            F::Eligible => Value::Date(match step {
                None => job.eligible_time,
                Some(s) => s.start_time,
            }),
            F::End => Value::Date(match step {
                None => job.end_time,
                Some(s) => s.end_time.or(job.end_time),
            }),
            F::ExitCode => Value::Str(Some(exit_text(match step {
                None => job.exit_code,
                Some(s) => s.exit_code,
            }))),
            F::Flags => Value::Str(None),
            F::Gid => num_job(Some(u64::from(job.gid))),
            F::Group => str_job(Some(if job.group.is_empty() {
                job.gid.to_string()
            } else {
                job.group.clone()
            })),
            F::JobId => Value::Str(Some(match step {
                None => job_id_text(job),
                Some(s) => format!("{}.{}", job_id_text(job), s.step_id.suffix()),
            })),
            F::JobIdRaw => Value::Str(Some(match step {
                None => job.job_id.to_string(),
                Some(s) => format!("{}.{}", job.job_id, s.step_id.suffix()),
            })),
            F::JobName => Value::Str(Some(match step {
                None => job.name.clone(),
                Some(s) => s.name.clone(),
            })),
            F::Layout => Value::Str(step.map(|_| "Unknown".to_string())),
            F::McsLabel => str_job(job.mcs_label.clone()),
            F::NNodes => Value::Num(Some(match step {
                None => u64::from(job.num_nodes),
                Some(s) => u64::from(s.num_nodes),
            })),
            F::NodeList => Value::Str(match step {
                None => Some(
                    job.nodes
                        .clone()
                        .unwrap_or_else(|| "None assigned".to_string()),
                ),
                Some(s) => Some(s.nodes.clone()),
            }),
            F::NTasks => Value::Num(step.map(|s| u64::from(s.num_tasks))),
            F::Partition => str_job(Some(job.partition.clone())),
            F::Priority => num_job(Some(u64::from(job.priority))),
            F::Qos => str_job(job.qos.clone()),
            F::QosRaw => Value::Num(None),
            F::Reason => str_job(Some(
                crate::format::common::reason_text(&job.reason).to_string(),
            )),
            F::ReqCpuFreq | F::ReqCpuFreqGov | F::ReqCpuFreqMax | F::ReqCpuFreqMin => {
                Value::Str(Some("Unknown".to_string()))
            }
            F::ReqCpus => Value::Num(Some(match step {
                None => u64::from(job.num_cpus),
                Some(s) => step_cpus(job, s),
            })),
            F::ReqMem => Value::Str(Some(match step {
                None => job_tres(job, false)
                    .and_then(|t| tres::count(&t, "mem"))
                    .map(|mb| convert_num_unit(mb as f64, Unit::Mega, ctx.convert))
                    .unwrap_or_default(),
                Some(_) => String::new(),
            })),
            F::ReqNodes => {
                let n = match step {
                    None => job_tres(job, false)
                        .and_then(|t| tres::count(&t, "node"))
                        .unwrap_or(0),
                    Some(s) => u64::from(s.num_nodes),
                };
                Value::Str(Some(convert_num_unit(n as f64, Unit::None, ctx.convert)))
            }
            F::ReqTres => {
                str_job(job_tres(job, false).map(|t| tres::sacct_string(&t, ctx.convert)))
            }
            F::Reservation => str_job(job.reservation.clone()),
            F::ReservationId => Value::Num(None),
            F::Reserved | F::ResvCpu | F::Planned | F::PlannedCpu => match step {
                Some(_) => Value::Secs(Some(NO_VAL_AS_U64)),
                None => {
                    let r = reserved(job, now);
                    let cpus = if matches!(self, F::ResvCpu | F::PlannedCpu) {
                        u64::from(job.num_cpus)
                    } else {
                        1
                    };
                    Value::Secs(Some(r.saturating_mul(cpus)))
                }
            },
            F::ResvCpuRaw | F::PlannedCpuRaw => num_job(Some(
                reserved(job, now).saturating_mul(u64::from(job.num_cpus)),
            )),
            F::Start => match step {
                // 24.11's database keeps no start for a job cancelled before it ran, nor
                // does 22.05's for one that never became eligible (cancelled while it
                // waited for a dependency, by a user or by kill_invalid_depend).
                None if job.state == JobState::Cancelled
                    && never_ran(job)
                    && (ctx.deltas.cancelled_pending_start_none || job.eligible_time.is_none()) =>
                {
                    Value::DateText("None")
                }
                None => Value::Date(job.start_time),
                Some(s) => Value::Date(s.start_time),
            },
            F::State => Value::Str(Some(match step {
                None => state_text(job.state, job.cancelled_by),
                Some(s) => state_text(s.state, s.cancelled_by),
            })),
            F::Submit => Value::Date(match step {
                None => Some(job.submit_time),
                Some(s) => s.start_time,
            }),
            F::SubmitLine => str_job(job.submit_line.clone()),
            // Not kept by the backends: blank, as for a job that has none.
            F::Extra | F::FailedNode | F::QosReq | F::Sluid => Value::Str(None),
            F::Licenses => str_job(job.licenses.clone()),
            F::Restarts => num_job(Some(u64::from(job.restarts))),
            // 24.11 prints the patterns as submitted (`--expand-pattern` is not offered).
            F::StdOut | F::StdErr | F::StdIn if ctx.expand_patterns => str_job(
                Some(match self {
                    F::StdOut => job.std_out.clone(),
                    F::StdErr => job.std_err.clone(),
                    _ => job.std_in.clone(),
                })
                .filter(|s| !s.is_empty()),
            ),
            F::StdOut | F::StdErr | F::StdIn => {
                str_job(job.io_patterns.as_ref().map(|p| match self {
                    F::StdOut => p.std_out.clone(),
                    F::StdErr => p.std_err.clone(),
                    _ => p.std_in.clone(),
                }))
            }
            F::Suspended => Value::Secs(Some(match step {
                None => u64::try_from(job.suspended_secs).unwrap_or(0),
                Some(_) => 0,
            })),
            F::SystemComment => str_job(job.system_comment.clone()),
            F::SystemCpu | F::TotalCpu | F::UserCpu => Value::Str(Some(ZERO_CPU_TIME.into())),
            F::Timelimit | F::TimelimitRaw => str_job(match job.time_limit {
                TimeLimit::Infinite => Some("UNLIMITED".to_string()),
                TimeLimit::Minutes(0) => None,
                TimeLimit::Minutes(m) if self == F::Timelimit => {
                    Some(long_duration(i64::from(m) * 60))
                }
                TimeLimit::Minutes(m) => Some(m.to_string()),
            }),
            F::Uid => num_job(Some(u64::from(job.uid))),
            F::User => str_job(Some(job.user.clone()).filter(|u| !u.is_empty())),
            F::WcKey => str_job(job.wckey.clone()),
            F::WcKeyId => Value::Num(None),
            F::WorkDir => str_job(Some(job.work_dir.clone())),
        }
    }
}

pub fn step_elapsed(job: &JobRecord, step: &StepRecord, now: i64) -> u64 {
    let end = step.end_time.or(if job.state.is_finished() {
        job.end_time
    } else {
        None
    });
    elapsed(step.start_time, end, 0, now)
}

/// Time the job waited while eligible (`PRINT_RESV`).
fn reserved(job: &JobRecord, now: i64) -> u64 {
    match job
        .eligible_time
        .filter(|&e| e != 0 && e != i64::from(u32::MAX))
    {
        None => 0,
        Some(e) => {
            u64::try_from(job.start_time.filter(|&s| s != 0).unwrap_or(now) - e).unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::profile::SlurmVersion;

    #[test]
    fn table_matches_slurm() {
        // 22.05 has 109 fields, 24.11 118 (9 more, 3 renamed); the table holds both.
        assert_eq!(FIELDS.len(), 121);
        assert_eq!(fields_in(SlurmVersion::V22_05.profile().sacct).count(), 109);
        assert_eq!(fields_in(SlurmVersion::V24_11.profile().sacct).count(), 118);
        assert_eq!(Field::JobId.default_width(), -12);
        assert_eq!(Field::State.name(), "State");
    }

    #[test]
    fn exit_codes() {
        assert_eq!(exit_text(ExitStatus::code(3)), "3:0");
        assert_eq!(exit_text(ExitStatus::signal(15)), "0:15");
        assert_eq!(exit_text(ExitStatus::code(137)), "9:0");
    }

    #[test]
    fn cancelled_by() {
        assert_eq!(
            state_text(JobState::Cancelled, Some(1001)),
            "CANCELLED by 1001"
        );
        assert_eq!(state_text(JobState::Cancelled, None), "CANCELLED");
    }
}
