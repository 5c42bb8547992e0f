//! The Slurm a site replaces (DESIGN.md §3.11): `slurm_version` in the site config picks
//! one [`Profile`], and every command asks it where two Slurm releases differ.
//!
//! A profile is data: the release it presents, and one switch per difference between the
//! releases recorded from the real thing (the 22.05.8 and 24.11.5 goldens; the list is in
//! `slurm-ref-24/DIFF-22.05-vs-24.11.md`). The code that renders, parses and runs is one
//! implementation; it consults these switches at the few places the releases part. A
//! switch is named after what the newer release does, so 22.05's profile is all `false`.

use super::release::Release;

/// A Slurm release series bai-slurm can present itself as.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum SlurmVersion {
    /// Slurm 22.05 (recorded from 22.05.8): the default.
    #[default]
    V22_05,
    /// Slurm 24.11 (recorded from 24.11.5).
    V24_11,
}

/// A `slurm_version` value that names no profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "slurm_version \"{0}\" is not a Slurm release bai-slurm can present: use \"22.05\" or \"24.11\""
)]
pub struct UnknownVersion(pub String);

impl SlurmVersion {
    /// Every profile, oldest first.
    pub const ALL: [SlurmVersion; 2] = [SlurmVersion::V22_05, SlurmVersion::V24_11];

    /// Reads a `slurm_version` setting: the series (`24.11`), or a full release of it
    /// (`24.11.5`).
    pub fn parse(text: &str) -> Result<SlurmVersion, UnknownVersion> {
        let t = text.trim();
        SlurmVersion::ALL
            .into_iter()
            .find(|v| {
                let series = v.series();
                t == series
                    || t.strip_prefix(series)
                        .and_then(|rest| rest.strip_prefix('.'))
                        .is_some_and(|micro| {
                            !micro.is_empty() && micro.bytes().all(|b| b.is_ascii_digit())
                        })
            })
            .ok_or_else(|| UnknownVersion(text.to_string()))
    }

    /// The series as the setting spells it: `22.05`, `24.11`.
    pub fn series(self) -> &'static str {
        match self {
            SlurmVersion::V22_05 => "22.05",
            SlurmVersion::V24_11 => "24.11",
        }
    }

    pub fn profile(self) -> &'static Profile {
        match self {
            SlurmVersion::V22_05 => &V22_05,
            SlurmVersion::V24_11 => &V24_11,
        }
    }
}

/// What one Slurm release does where releases differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub version: SlurmVersion,
    /// What `--version` prints and the nodes report.
    pub release: Release,
    /// `--json[=...]`/`--yaml[=...]`: the data_parser plugins the commands offer, the
    /// default first (`--json=list`). Empty: 22.05's fixed `openapi/v0.0.38` documents.
    pub data_parsers: &'static [&'static str],
    pub scontrol: ScontrolDeltas,
    pub squeue: SqueueDeltas,
    pub sinfo: SinfoDeltas,
    pub sacct: SacctDeltas,
    pub job_env: JobEnvDeltas,
    pub submit: SubmitDeltas,
    /// The controller's priority plugin when the site's slurm.conf names none
    /// (read_config.h DEFAULT_PRIORITY_TYPE): 22.05 `priority/basic`, 24.11
    /// `priority/multifactor` (every weight 0 by default).
    pub default_priority_type: PriorityType,
}

/// Slurm's `PriorityType`: how the controller gives pending jobs their priorities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PriorityType {
    /// `priority/basic`: first come, first served; each job one below the last.
    #[serde(rename = "priority/basic")]
    Basic,
    /// `priority/multifactor` with its default weights (all 0): every job 1, raised
    /// only by a negative nice.
    #[serde(rename = "priority/multifactor")]
    Multifactor,
}

impl PriorityType {
    /// As slurm.conf and `scontrol show config` spell it.
    pub fn name(self) -> &'static str {
        match self {
            PriorityType::Basic => "priority/basic",
            PriorityType::Multifactor => "priority/multifactor",
        }
    }
}

/// `scontrol show job/node/partition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScontrolDeltas {
    /// `ReqTRES=` and `AllocTRES=` lines where 22.05 had one `TRES=` line.
    pub req_and_alloc_tres: bool,
    /// 22.05's `Power=` line of a job.
    pub power_line: bool,
    /// `Command=` shows the script's arguments after its path (22.05).
    pub command_with_args: bool,
    /// A held job's node count as its range (`NumNodes=1-1`).
    pub held_num_nodes_range: bool,
    /// Nodes: `ResumeAfterTime=None`, and no `CapWatts=` nor `ExtSensors*` lines.
    pub node_resume_after_time: bool,
    /// `scontrol update NodeName=` knows `ResumeAfter=`, `InstanceId=` and
    /// `InstanceType=`, and a bad `Weight=` stops it (`Invalid value Weight=x for Weight`).
    pub node_update_24_11: bool,
    /// Partitions: `ExclusiveTopo=` and `MaxCPUsPerSocket=`.
    pub partition_topo_fields: bool,
    /// `--json`/`--yaml` and the `listjobs`/`liststeps`/`power` commands.
    pub data_and_list_commands: bool,
    /// `scontrol update` changes a pending job's `StdErr=` and `StdIn=` (22.05 knows only
    /// `StdOut=`).
    pub update_std_err_and_in: bool,
    /// `scontrol update NumTasks=` is weighed first, against the tasks the job asked for
    /// (0 when it asked for none; `_figure_out_num_tasks`): the same count is no change,
    /// another one of a job no longer pending is refused before any other field (Comment,
    /// TimeLimit) is applied, and 0 for a job that asked for tasks is a bad CPU count.
    /// 22.05 applied earlier fields first and refused every count of a running job and 0.
    pub task_count_weighed_first: bool,
}

/// `squeue`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqueueDeltas {
    /// GRES in TRES spelling (`gres/gpu:2`, 22.05 `gres:gpu:2`) in `%b`/`tres-per-node`
    /// and scontrol's `TresPerNode=`.
    pub gres_tres_spelling: bool,
    /// `-O STDOUT/STDERR/STDIN` print the path pattern as given, not expanded.
    pub std_paths_unexpanded: bool,
    /// `--json`/`--yaml` list only the jobs plain squeue shows (22.05 listed every job).
    pub data_default_states: bool,
    /// `--helpformat`, `--helpFormat`, `--helpstate`, `--only-job-state`; no `--array-unique`.
    pub new_options: bool,
}

/// `sinfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinfoDeltas {
    /// `sinfo -l` has a RESERVATION column before NODELIST.
    pub long_reservation_column: bool,
    /// `--json` lists `sinfo[]` entries (partition x state groups), not node records.
    pub data_groups: bool,
    /// `-F/--future`, `--helpformat`, `--helpFormat`, `--helpstate`.
    pub new_options: bool,
    /// A node whose only jobs are suspended is MIXED (with no CPU allocated); 22.05 shows
    /// it IDLE.
    pub suspended_jobs_keep_node: bool,
}

/// `sacct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SacctDeltas {
    /// AllocCPUS is 0 for a job that never started (22.05: the requested count).
    pub unstarted_alloc_cpus_zero: bool,
    /// A job cancelled while pending has Start=None (22.05: the cancel time).
    pub cancelled_pending_start_none: bool,
    /// `sacct -e`: 24.11's field list (Planned for Reserved, StdOut, SLUID, ...).
    pub fields_24_11: bool,
    /// `--array`, `--expand-pattern`, `--helpreason`, `--helpstate`.
    pub new_options: bool,
}

/// The environment of jobs and steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobEnvDeltas {
    /// SLURM_JOB_START_TIME, SLURM_JOB_END_TIME (epoch seconds), SLURM_OOM_KILL_STEP=0.
    pub start_end_oom: bool,
    /// Steps carry SLURMD_DEBUG=2; srun's own allocations SLURM_JOB_GROUP.
    pub step_debug_and_group: bool,
    /// 22.05's SLURM_NODE_ALIASES=(null), SLURM_WORKING_CLUSTER and
    /// SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0.
    pub legacy_variables: bool,
    /// salloc says `salloc: Nodes <list> are ready for job` once the allocation is ready.
    pub salloc_nodes_ready_line: bool,
    /// Jobs and steps tell MPI launchers to start their processes with srun
    /// (HYDRA_BOOTSTRAP=slurm, OMPI_MCA_plm_slurm_args=--external-launcher, ...).
    pub mpi_launcher_variables: bool,
    /// srun's and slurmstepd's step messages as 24.11 words them: no launch plugin in
    /// `srun: StepId=J.S aborted before step completely launched.`, and run_command's `is
    /// not a fully qualified pathname` (22.05: `is not fully qualified pathname`); and
    /// srun's `Force Terminated JobId=N` before `Job allocation N has been revoked` when a
    /// signal ends its wait for an allocation (allocate.c no longer says the latter itself).
    pub step_messages_24: bool,
    /// A signal that salloc catches while its command runs ends the allocation with status
    /// 128+signal (FAILED, `0:sig`); 22.05 cancelled it (CANCELLED by the user, `0:0`).
    pub salloc_signal_fails_job: bool,
    /// The tasks that srun's `-W` killed count in the step's end when the others exited 0
    /// (24.11: CANCELLED `0:9`); 22.05 left them out (COMPLETED `0:0`). An exit code of
    /// the others outranks them in both (FAILED `3:0`).
    pub waited_out_tasks_count: bool,
    /// A task whose launch failed (its I/O could not be connected) makes srun exit 1
    /// whatever the other tasks' codes (step_launch.c's `ret_code`, which srun.c's exit
    /// status takes over); 22.05 counted it as exited 0.
    pub launch_failure_fails_srun: bool,
}

/// What slurmctld refuses at submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubmitDeltas {
    /// A request the nodes can never satisfy (more nodes than there are, more CPUs than a
    /// node or all of them have) is refused (`Requested node configuration is not
    /// available`); 22.05 let a batch job pend (PartitionConfig, PartitionNodeLimit).
    pub refuse_unsatisfiable: bool,
    /// A dependency on a job that does not exist is refused (`Job dependency problem`);
    /// 22.05 accepted it.
    pub refuse_unknown_dependency: bool,
    /// `--deadline` as 24.11 checks it: at submission against the job's earliest start
    /// (its `--begin`) and its time limit too, and afterwards for every pending job, held
    /// or not; 22.05 checked it against now (the limit only with `--time-min=0`) and only
    /// for a job its scheduler could start.
    pub deadline_of_every_pending_job: bool,
    /// `--container-id`, `--oom-kill-step`, `--tres-bind`, `--tres-per-task`, sbatch and
    /// salloc `--resv-ports`; salloc without `--uid`/`--gid`.
    pub new_options: bool,
    /// A job submitted while its partition's nodes are drained waits with
    /// `ReqNodeNotAvail, May be reserved for other job`; 22.05 named the nodes
    /// (`ReqNodeNotAvail, UnavailableNodes:node01`).
    pub node_not_avail_unnamed: bool,
    /// salloc sends its command's argv, which the controller keeps as the job's
    /// `Command=` (salloc.c `desc->argv = opt.argv`); 22.05's sent none (`(null)`).
    pub salloc_sends_command: bool,
    /// A job over its partition's time limit waits from its submission with the reason
    /// `_top_priority` gave it (None, or Priority behind another pending job) until the
    /// scheduler names the limit; 22.05 said PartitionConfig.
    pub over_time_limit_keeps_priority_reason: bool,
}

const V22_05: Profile = Profile {
    version: SlurmVersion::V22_05,
    release: Release {
        major: 22,
        minor: 5,
        micro: 8,
    },
    data_parsers: &[],
    scontrol: ScontrolDeltas {
        req_and_alloc_tres: false,
        power_line: true,
        command_with_args: true,
        held_num_nodes_range: false,
        node_resume_after_time: false,
        node_update_24_11: false,
        partition_topo_fields: false,
        data_and_list_commands: false,
        update_std_err_and_in: false,
        task_count_weighed_first: false,
    },
    squeue: SqueueDeltas {
        gres_tres_spelling: false,
        std_paths_unexpanded: false,
        data_default_states: false,
        new_options: false,
    },
    sinfo: SinfoDeltas {
        long_reservation_column: false,
        data_groups: false,
        new_options: false,
        suspended_jobs_keep_node: false,
    },
    sacct: SacctDeltas {
        unstarted_alloc_cpus_zero: false,
        cancelled_pending_start_none: false,
        fields_24_11: false,
        new_options: false,
    },
    job_env: JobEnvDeltas {
        start_end_oom: false,
        step_debug_and_group: false,
        legacy_variables: true,
        salloc_nodes_ready_line: false,
        mpi_launcher_variables: false,
        step_messages_24: false,
        salloc_signal_fails_job: false,
        waited_out_tasks_count: false,
        launch_failure_fails_srun: false,
    },
    submit: SubmitDeltas {
        refuse_unsatisfiable: false,
        refuse_unknown_dependency: false,
        deadline_of_every_pending_job: false,
        new_options: false,
        node_not_avail_unnamed: false,
        salloc_sends_command: false,
        over_time_limit_keeps_priority_reason: false,
    },
    default_priority_type: PriorityType::Basic,
};

const V24_11: Profile = Profile {
    version: SlurmVersion::V24_11,
    release: Release {
        major: 24,
        minor: 11,
        micro: 5,
    },
    data_parsers: &["v0.0.42", "v0.0.41", "v0.0.40"],
    scontrol: ScontrolDeltas {
        req_and_alloc_tres: true,
        power_line: false,
        command_with_args: false,
        held_num_nodes_range: true,
        node_resume_after_time: true,
        node_update_24_11: true,
        partition_topo_fields: true,
        data_and_list_commands: true,
        update_std_err_and_in: true,
        task_count_weighed_first: true,
    },
    squeue: SqueueDeltas {
        gres_tres_spelling: true,
        std_paths_unexpanded: true,
        data_default_states: true,
        new_options: true,
    },
    sinfo: SinfoDeltas {
        long_reservation_column: true,
        data_groups: true,
        new_options: true,
        suspended_jobs_keep_node: true,
    },
    sacct: SacctDeltas {
        unstarted_alloc_cpus_zero: true,
        cancelled_pending_start_none: true,
        fields_24_11: true,
        new_options: true,
    },
    job_env: JobEnvDeltas {
        start_end_oom: true,
        step_debug_and_group: true,
        legacy_variables: false,
        salloc_nodes_ready_line: true,
        mpi_launcher_variables: true,
        step_messages_24: true,
        salloc_signal_fails_job: true,
        waited_out_tasks_count: true,
        launch_failure_fails_srun: true,
    },
    submit: SubmitDeltas {
        refuse_unsatisfiable: true,
        refuse_unknown_dependency: true,
        deadline_of_every_pending_job: true,
        new_options: true,
        node_not_avail_unnamed: true,
        salloc_sends_command: true,
        over_time_limit_keeps_priority_reason: true,
    },
    default_priority_type: PriorityType::Multifactor,
};

impl Default for JobEnvDeltas {
    fn default() -> Self {
        V22_05.job_env
    }
}

impl Profile {
    /// The profile of a site that chose nothing: Slurm 22.05.
    pub fn default_profile() -> &'static Profile {
        SlurmVersion::default().profile()
    }

    /// Whether this profile is at least `v` (for the rare place a difference is a
    /// matter of "since").
    pub fn at_least(&self, v: SlurmVersion) -> bool {
        self.version >= v
    }

    /// The data_parser `--json`/`--yaml` use when none is named.
    pub fn default_data_parser(&self) -> Option<&'static str> {
        self.data_parsers.first().copied()
    }
}

impl Default for &'static Profile {
    fn default() -> Self {
        Profile::default_profile()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_as_series_or_releases_of_them() {
        assert_eq!(SlurmVersion::parse("22.05"), Ok(SlurmVersion::V22_05));
        assert_eq!(SlurmVersion::parse("24.11"), Ok(SlurmVersion::V24_11));
        assert_eq!(SlurmVersion::parse("24.11.5"), Ok(SlurmVersion::V24_11));
        for bad in ["", "24", "23.11", "24.11.", "24.11.x", "24.110", "v24.11"] {
            let e = SlurmVersion::parse(bad).unwrap_err();
            assert!(e.to_string().contains("\"22.05\" or \"24.11\""), "{e}");
        }
    }

    #[test]
    fn each_profile_presents_its_release() {
        assert_eq!(SlurmVersion::V22_05.profile().release.text(), "22.05.8");
        assert_eq!(SlurmVersion::V24_11.profile().release.text(), "24.11.5");
        assert_eq!(Profile::default_profile().version, SlurmVersion::V22_05);
        assert_eq!(
            SlurmVersion::V24_11.profile().default_data_parser(),
            Some("v0.0.42")
        );
        assert!(
            SlurmVersion::V24_11
                .profile()
                .at_least(SlurmVersion::V22_05)
        );
        for v in SlurmVersion::ALL {
            assert_eq!(v.profile().version, v);
            assert_eq!(v.profile().release.series(), v.series());
        }
    }
}
