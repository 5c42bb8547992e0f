//! squeue's step view (`-s`): step fields, their letters and names, and the step filter.

use crate::format::common::Clock;
use crate::format::text::{print_str, print_text};
use crate::model::time_limit::squeue_duration;
use crate::model::{ArrayPart, JobRecord, JobState, StepId, StepRecord};

macro_rules! step_fields {
    ($( $variant:ident, $letter:expr, [$($name:expr),*], $header:expr; )*) => {
        /// A step field squeue can print.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum StepField { $($variant),* }

        impl StepField {
            pub fn from_letter(c: char) -> Option<StepField> {
                $( if $letter == Some(c) { return Some(StepField::$variant); } )*
                None
            }

            pub fn from_name(name: &str) -> Option<StepField> {
                let b = name.as_bytes();
                if b.len() >= 9 && b[..9].eq_ignore_ascii_case(b"container") {
                    return Some(StepField::Container);
                }
                if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"numtask") {
                    return Some(StepField::NumTasks);
                }
                $( $( if name.eq_ignore_ascii_case($name) { return Some(StepField::$variant); } )* )*
                None
            }

            pub fn header(self) -> &'static str {
                match self { $( StepField::$variant => $header ),* }
            }
        }
    };
}

step_fields! {
    Cluster, None, ["cluster"], "CLUSTER";
    Container, None, [], "CONTAINER";
    NumTasks, Some('A'), [], "TASKS";
    TresPerNode, Some('b'), ["gres", "tres-per-node"], "TRES_PER_JOB";
    Id, Some('i'), ["stepid"], "STEPID";
    Name, Some('j'), ["stepname"], "NAME";
    TimeLimit, Some('l'), ["timelimit"], "TIME_LIMIT";
    TimeUsed, Some('M'), ["timeused"], "TIME";
    Nodes, Some('N'), ["nodes"], "NODELIST";
    Partition, Some('P'), ["partition"], "PARTITION";
    StartTime, Some('S'), ["starttime"], "START_TIME";
    UserId, Some('U'), ["userid"], "UID";
    UserName, Some('u'), ["username"], "USER";
    ArrayJobId, None, ["arrayjobid"], "ARRAY_JOB_ID";
    ArrayTaskId, None, ["arraytaskid"], "ARRAY_TASK_ID";
    JobId, None, ["jobid"], "JOB_ID";
    Network, None, ["network"], "NETWORK";
    NumCpus, None, ["numcpus"], "NUM_CPUS";
    CpuFreq, None, ["cpufreq"], "CPU_FREQ";
    ResvPorts, None, ["resvports"], "RESERVED_PORTS";
    State, None, ["stepstate"], "STATE";
    CpusPerTres, None, ["cpus-per-tres"], "CPUS_PER_TRES";
    MemPerTres, None, ["mem-per-tres"], "MEM_PER_TRES";
    TresBind, None, ["tres-bind"], "TRES_BIND";
    TresFreq, None, ["tres-freq"], "TRES_FREQ";
    TresPerStep, None, ["tres-per-job", "tres-per-step"], "TRES_PER_STEP";
    TresPerSocket, None, ["tres-per-socket"], "TRES_PER_SOCKET";
    TresPerTask, None, ["tres-per-task"], "TRES_PER_TASK";
}

/// A step as the step view sees it.
pub type StepRow<'a> = (&'a JobRecord, &'a StepRecord);

/// `log_build_step_id_str` without prefix: `12.batch`, `13_4.0`.
pub fn step_id_text(job: &JobRecord, step: &StepRecord) -> String {
    match &job.array {
        Some(ArrayPart::Task {
            array_job_id,
            task_id,
        }) => format!("{array_job_id}_{task_id}.{}", step.step_id.suffix()),
        _ => format!("{}.{}", job.job_id, step.step_id.suffix()),
    }
}

impl StepField {
    pub fn print_header(self, out: &mut Vec<u8>, width: usize, right: bool) {
        let cut = self != StepField::Nodes;
        // Slurm prints this header left-justified whatever the format says.
        let right = right && self != StepField::StartTime;
        print_text(out, self.header(), width, right, cut);
    }

    pub fn print_value(
        self,
        out: &mut Vec<u8>,
        (job, step): StepRow,
        clock: &Clock,
        width: usize,
        right: bool,
    ) {
        use StepField as F;
        let (text, cut): (Option<String>, bool) = match self {
            F::Cluster => (Some(job.cluster.clone()), true),
            F::Container
            | F::Network
            | F::ResvPorts
            | F::CpusPerTres
            | F::MemPerTres
            | F::TresBind
            | F::TresFreq
            | F::TresPerStep
            | F::TresPerSocket
            | F::TresPerTask
            | F::TresPerNode => (None, true),
            F::NumTasks => (Some(step.num_tasks.to_string()), true),
            F::Id => (Some(step_id_text(job, step)), true),
            F::Name => (Some(step.name.clone()), true),
            F::TimeLimit => match step.time_limit {
                None => (Some("UNLIMITED".into()), true),
                Some(m) => (Some(squeue_duration(i64::from(m) * 60)), false),
            },
            F::TimeUsed => {
                let used = step
                    .start_time
                    .map_or(0, |s| (step.end_time.unwrap_or(clock.now) - s).max(0));
                (Some(squeue_duration(used)), false)
            }
            F::Nodes => (Some(super::fields::sorted_nodes(&step.nodes)), false),
            F::Partition => (Some(job.partition.clone()), true),
            F::StartTime => (
                Some(match step.start_time.filter(|&t| t != 0) {
                    None => "N/A".into(),
                    Some(t) => clock.time_str(Some(t), 32),
                }),
                true,
            ),
            F::UserId => (Some(job.uid.to_string()), true),
            F::UserName => (Some(job.user.clone()), true),
            F::ArrayJobId => (
                Some(match &job.array {
                    Some(a) => a.array_job_id().to_string(),
                    None => "0".into(),
                }),
                true,
            ),
            F::ArrayTaskId => (
                Some(match &job.array {
                    Some(ArrayPart::Task { task_id, .. }) => task_id.to_string(),
                    _ => "N/A".into(),
                }),
                true,
            ),
            F::JobId => (Some(job.job_id.to_string()), true),
            F::NumCpus => (Some(step.num_cpus.to_string()), true),
            F::CpuFreq => (Some("Unknown-Unknown:Unknown".into()), true),
            F::State => (Some(step.state.long().into()), true),
        };
        print_str(out, text.as_deref().map(str::as_bytes), width, right, cut);
    }
}

/// `-s` filters: `job.step` items, job ids, partitions, users.
#[derive(Debug, Clone, Default)]
pub struct StepFilter {
    pub jobs: Option<Vec<super::select::JobIdSel>>,
    /// (job id, array task, step).
    pub steps: Option<Vec<(u32, Option<u32>, StepId)>>,
    pub partitions: Option<Vec<String>>,
    pub users: Option<Vec<u32>>,
    pub nodes: Option<Vec<String>>,
}

/// The steps the controller reports (those of jobs still running) that pass the filter.
pub fn step_rows<'a>(jobs: &'a [JobRecord], f: &StepFilter) -> Vec<StepRow<'a>> {
    let mut rows = Vec::new();
    for job in jobs {
        if !matches!(job.state, JobState::Running | JobState::Suspended) {
            continue;
        }
        let (array_job_id, task) = match &job.array {
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }) => (*array_job_id, Some(*task_id)),
            _ => (0, None),
        };
        let id_match = |id: u32, t: Option<u32>| match t {
            None => id == job.job_id || (array_job_id != 0 && id == array_job_id),
            Some(t) => task == Some(t) && id == array_job_id,
        };
        for step in &job.steps {
            if step.state == JobState::Pending || step.state.is_finished() {
                continue;
            }
            if let Some(sel) = &f.jobs
                && !sel.iter().any(|s| id_match(s.job_id, s.task))
            {
                continue;
            }
            if let Some(parts) = &f.partitions
                && !parts.contains(&job.partition)
            {
                continue;
            }
            if let Some(sel) = &f.steps
                && !sel
                    .iter()
                    .any(|(id, t, s)| *s == step.step_id && id_match(*id, *t))
            {
                continue;
            }
            if let Some(wanted) = &f.nodes {
                let on = crate::model::hostlist::expand(&step.nodes).unwrap_or_default();
                if !on.iter().any(|n| wanted.contains(n)) {
                    continue;
                }
            }
            if let Some(users) = &f.users
                && !users.contains(&job.uid)
            {
                continue;
            }
            rows.push((job, step));
        }
    }
    rows
}
