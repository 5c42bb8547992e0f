//! The one option table of sbatch, srun and salloc: every option of Slurm 22.05 (from
//! `common_options[]` in src/common/slurm_opt.c), pyxis' container options, which commands
//! take each one, its SBATCH_* input variable, and what bai-slurm does with it. Parsing of
//! the command line, `#SBATCH` directives and the environment is driven by this table.

use super::getopt::{HasArg, Spec};

pub const SALLOC: u8 = 1;
pub const SBATCH: u8 = 2;
pub const SRUN: u8 = 4;

/// What bai-slurm does with an option (docs/COMPAT.md lists the same classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Has its Slurm meaning.
    Honoured,
    /// Accepted and validated, with a one-line warning: it cannot mean anything here.
    Ignored(&'static str),
    /// Refused with an error naming the reason.
    Rejected(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    pub long: &'static str,
    pub short: Option<char>,
    pub arg: HasArg,
    /// Bit set of SALLOC, SBATCH, SRUN.
    pub cmds: u8,
    /// Input variables that set this option for sbatch (processed after directives).
    pub sbatch_env: &'static [&'static str],
    pub support: Support,
}

pub const OPTIONS: &[Opt] = &[
    Opt { long: "accel-bind", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "account", short: Some('A'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_ACCOUNT"], support: Support::Honoured },
    Opt { long: "acctg-freq", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_ACCTG_FREQ"], support: Support::Ignored("has no effect here") },
    Opt { long: "array", short: Some('a'), arg: HasArg::Required, cmds: SBATCH, sbatch_env: &["SBATCH_ARRAY_INX"], support: Support::Honoured },
    Opt { long: "batch", short: None, arg: HasArg::Required, cmds: SBATCH, sbatch_env: &["SBATCH_BATCH"], support: Support::Rejected("node features are not supported") },
    Opt { long: "bcast", short: None, arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "bcast-exclude", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "begin", short: Some('b'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "bell", short: None, arg: HasArg::No, cmds: SALLOC, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "bb", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_BURST_BUFFER"], support: Support::Ignored("has no effect here") },
    Opt { long: "bbf", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "cluster-constraint", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CLUSTER_CONSTRAINT"], support: Support::Rejected("there is one cluster") },
    Opt { long: "chdir", short: Some('D'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "cluster", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("there is one cluster") },
    Opt { long: "clusters", short: Some('M'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CLUSTERS", "SLURM_CLUSTERS"], support: Support::Rejected("there is one cluster") },
    Opt { long: "comment", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "compress", short: None, arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CONTAINER"], support: Support::Rejected("OCI bundles are not supported; use --container-image") },
    Opt { long: "context", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("SELinux contexts are not supported") },
    Opt { long: "contiguous", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "constraint", short: Some('C'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CONSTRAINT"], support: Support::Rejected("node features are not supported") },
    Opt { long: "core-spec", short: Some('S'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CORE_SPEC"], support: Support::Ignored("has no effect here") },
    Opt { long: "cores-per-socket", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "cpu-bind", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "cpu_bind", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "cpu-freq", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CPU_FREQ_REQ"], support: Support::Ignored("has no effect here") },
    Opt { long: "cpus-per-gpu", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_CPUS_PER_GPU"], support: Support::Honoured },
    Opt { long: "cpus-per-task", short: Some('c'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "deadline", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("not implemented yet") },
    Opt { long: "debugger-test", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "delay-boot", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_DELAY_BOOT"], support: Support::Ignored("has no effect here") },
    Opt { long: "dependency", short: Some('d'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "disable-status", short: Some('X'), arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "distribution", short: Some('m'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_DISTRIBUTION"], support: Support::Ignored("has no effect here") },
    Opt { long: "epilog", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "error", short: Some('e'), arg: HasArg::Required, cmds: SBATCH | SRUN, sbatch_env: &["SBATCH_ERROR"], support: Support::Honoured },
    Opt { long: "exact", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "exclude", short: Some('x'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "exclusive", short: None, arg: HasArg::Optional, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_EXCLUSIVE"], support: Support::Honoured },
    Opt { long: "export", short: None, arg: HasArg::Required, cmds: SBATCH | SRUN, sbatch_env: &["SBATCH_EXPORT"], support: Support::Honoured },
    Opt { long: "export-file", short: None, arg: HasArg::Required, cmds: SBATCH, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "extra-node-info", short: Some('B'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "get-user-env", short: None, arg: HasArg::Optional, cmds: SALLOC | SBATCH, sbatch_env: &["SBATCH_GET_USER_ENV"], support: Support::Ignored("has no effect here") },
    Opt { long: "gid", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("jobs always run as the submitting user") },
    Opt { long: "gpu-bind", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPU_BIND"], support: Support::Ignored("has no effect here") },
    Opt { long: "gpu-freq", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPU_FREQ"], support: Support::Ignored("has no effect here") },
    Opt { long: "gpus", short: Some('G'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPUS"], support: Support::Honoured },
    Opt { long: "gpus-per-node", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPUS_PER_NODE"], support: Support::Honoured },
    Opt { long: "gpus-per-socket", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPUS_PER_SOCKET"], support: Support::Ignored("has no effect here") },
    Opt { long: "gpus-per-task", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GPUS_PER_TASK"], support: Support::Honoured },
    Opt { long: "gres", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GRES"], support: Support::Honoured },
    Opt { long: "gres-flags", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_GRES_FLAGS"], support: Support::Ignored("has no effect here") },
    Opt { long: "help", short: Some('h'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "het-group", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "hint", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SLURM_HINT", "SBATCH_HINT"], support: Support::Ignored("has no effect here") },
    Opt { long: "hold", short: Some('H'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "ignore-pbs", short: None, arg: HasArg::No, cmds: SBATCH, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "immediate", short: Some('I'), arg: HasArg::Optional, cmds: SALLOC | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "input", short: Some('i'), arg: HasArg::Required, cmds: SBATCH | SRUN, sbatch_env: &["SBATCH_INPUT"], support: Support::Honoured },
    Opt { long: "interactive", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "jobid", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "job-name", short: Some('J'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_JOB_NAME"], support: Support::Honoured },
    Opt { long: "kill-command", short: Some('K'), arg: HasArg::Optional, cmds: SALLOC, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "kill-on-bad-exit", short: Some('K'), arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "kill-on-invalid-dep", short: None, arg: HasArg::Required, cmds: SBATCH, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "label", short: Some('l'), arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "licenses", short: Some('L'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("there are no licenses") },
    Opt { long: "mail-type", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "mail-user", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "threads", short: Some('T'), arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "mcs-label", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "mem", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_MEM_PER_NODE"], support: Support::Honoured },
    Opt { long: "mem-bind", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_MEM_BIND"], support: Support::Ignored("has no effect here") },
    Opt { long: "mem-per-cpu", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_MEM_PER_CPU"], support: Support::Honoured },
    Opt { long: "mem-per-gpu", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_MEM_PER_GPU"], support: Support::Honoured },
    Opt { long: "mincpus", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "mpi", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "msg-timeout", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "multi-prog", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "network", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_NETWORK"], support: Support::Ignored("has no effect here") },
    Opt { long: "nice", short: None, arg: HasArg::Optional, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "no-allocate", short: Some('Z'), arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "no-bell", short: None, arg: HasArg::No, cmds: SALLOC, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "no-kill", short: Some('k'), arg: HasArg::Optional, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_NO_KILL"], support: Support::Ignored("has no effect here") },
    Opt { long: "no-shell", short: None, arg: HasArg::No, cmds: SALLOC, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "no-requeue", short: None, arg: HasArg::No, cmds: SBATCH, sbatch_env: &["SBATCH_NO_REQUEUE"], support: Support::Honoured },
    Opt { long: "nodefile", short: Some('F'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("node lists come from the platform") },
    Opt { long: "nodelist", short: Some('w'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "nodes", short: Some('N'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "ntasks", short: Some('n'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "ntasks-per-core", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "ntasks-per-gpu", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "ntasks-per-node", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "ntasks-per-socket", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "ntasks-per-tres", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "open-mode", short: None, arg: HasArg::Required, cmds: SBATCH | SRUN, sbatch_env: &["SBATCH_OPEN_MODE"], support: Support::Honoured },
    Opt { long: "output", short: Some('o'), arg: HasArg::Required, cmds: SBATCH | SRUN, sbatch_env: &["SBATCH_OUTPUT"], support: Support::Honoured },
    Opt { long: "overcommit", short: Some('O'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_OVERCOMMIT"], support: Support::Ignored("has no effect here") },
    Opt { long: "overlap", short: None, arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "oversubscribe", short: Some('s'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "pack-group", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "parsable", short: None, arg: HasArg::No, cmds: SBATCH, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "partition", short: Some('p'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_PARTITION"], support: Support::Honoured },
    Opt { long: "power", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_POWER"], support: Support::Ignored("has no effect here") },
    Opt { long: "prefer", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("node features are not supported") },
    Opt { long: "preserve-env", short: Some('E'), arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "priority", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "profile", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_PROFILE"], support: Support::Ignored("has no effect here") },
    Opt { long: "prolog", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "propagate", short: None, arg: HasArg::Optional, cmds: SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "pty", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "qos", short: Some('q'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_QOS"], support: Support::Honoured },
    Opt { long: "quiet", short: Some('Q'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "quit-on-interrupt", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "reboot", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "relative", short: Some('r'), arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "requeue", short: None, arg: HasArg::No, cmds: SBATCH, sbatch_env: &["SBATCH_REQUEUE"], support: Support::Honoured },
    Opt { long: "reservation", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_RESERVATION"], support: Support::Rejected("there are no reservations") },
    Opt { long: "resv-ports", short: None, arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "send-libs", short: None, arg: HasArg::Optional, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "signal", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_SIGNAL"], support: Support::Honoured },
    Opt { long: "slurmd-debug", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "sockets-per-node", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "spread-job", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_SPREAD_JOB"], support: Support::Ignored("has no effect here") },
    Opt { long: "switches", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "task-epilog", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "task-prolog", short: None, arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "tasks-per-node", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "test-only", short: None, arg: HasArg::No, cmds: SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("not implemented yet") },
    Opt { long: "thread-spec", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_THREAD_SPEC"], support: Support::Ignored("has no effect here") },
    Opt { long: "threads-per-core", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_THREADS_PER_CORE"], support: Support::Ignored("has no effect here") },
    Opt { long: "time", short: Some('t'), arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_TIMELIMIT"], support: Support::Honoured },
    Opt { long: "time-min", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "tmp", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("has no effect here") },
    Opt { long: "uid", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Rejected("jobs always run as the submitting user") },
    Opt { long: "unbuffered", short: Some('u'), arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "use-min-nodes", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_USE_MIN_NODES"], support: Support::Ignored("has no effect here") },
    Opt { long: "verbose", short: Some('v'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_DEBUG"], support: Support::Honoured },
    Opt { long: "version", short: Some('V'), arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "usage", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "wait", short: Some('W'), arg: HasArg::No, cmds: SBATCH, sbatch_env: &["SBATCH_WAIT"], support: Support::Honoured },
    Opt { long: "wait-all-nodes", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH, sbatch_env: &["SBATCH_WAIT_ALL_NODES"], support: Support::Ignored("has no effect here") },
    Opt { long: "wait", short: Some('W'), arg: HasArg::Required, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "wckey", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &["SBATCH_WCKEY"], support: Support::Rejected("no accounting storage") },
    Opt { long: "whole", short: None, arg: HasArg::No, cmds: SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "wrap", short: None, arg: HasArg::Required, cmds: SBATCH, sbatch_env: &[], support: Support::Honoured },
    // pyxis (SPANK plugin) container options, taken by all three commands.
    Opt { long: "container-image", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-mounts", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-workdir", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-name", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-save", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("images are not saved back") },
    Opt { long: "container-mount-home", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "no-container-mount-home", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-remap-root", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("jobs run as the submitting user") },
    Opt { long: "no-container-remap-root", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-entrypoint", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("the image entrypoint is not run") },
    Opt { long: "no-container-entrypoint", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-writable", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
    Opt { long: "container-readonly", short: None, arg: HasArg::No, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Ignored("container file systems are writable") },
    Opt { long: "container-env", short: None, arg: HasArg::Required, cmds: SALLOC | SBATCH | SRUN, sbatch_env: &[], support: Support::Honoured },
];

/// The options one command takes.
pub fn for_command(cmd: u8) -> impl Iterator<Item = &'static Opt> {
    OPTIONS.iter().filter(move |o| o.cmds & cmd != 0)
}

/// getopt specs for one command; each option is identified by its long name.
pub fn getopt_specs(cmd: u8) -> Vec<Spec<&'static str>> {
    for_command(cmd)
        .map(|o| Spec { long: Some(o.long), short: o.short, has_arg: o.arg, id: o.long })
        .collect()
}

pub fn find(cmd: u8, long: &str) -> Option<&'static Opt> {
    for_command(cmd).find(|o| o.long == long)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_unique_per_command() {
        for cmd in [SALLOC, SBATCH, SRUN] {
            let mut names: Vec<&str> = for_command(cmd).map(|o| o.long).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(before, names.len());
        }
    }

    #[test]
    fn short_letters_are_unique_per_command() {
        for cmd in [SALLOC, SBATCH, SRUN] {
            let mut letters: Vec<char> = for_command(cmd).filter_map(|o| o.short).collect();
            letters.sort_unstable();
            let before = letters.len();
            letters.dedup();
            assert_eq!(before, letters.len(), "command {cmd}");
        }
    }
}
