//! The one option table of sbatch, srun and salloc: every option of Slurm 22.05 (from
//! `common_options[]` in src/common/slurm_opt.c), pyxis' container options, which commands
//! take each one, its SBATCH_* input variable, and what bai-slurm does with it. Parsing of
//! the command line, `#SBATCH` directives and the environment is driven by this table.

use super::getopt::{HasArg, LongOpt};
use crate::model::profile::SlurmVersion;

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
    /// Asks for what bai-slurm always does: accepted, and it changes nothing.
    Default(&'static str),
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
    Opt {
        long: "accel-bind",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "account",
        short: Some('A'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_ACCOUNT"],
        support: Support::Honoured,
    },
    Opt {
        long: "acctg-freq",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_ACCTG_FREQ"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "array",
        short: Some('a'),
        arg: HasArg::Required,
        cmds: SBATCH,
        sbatch_env: &["SBATCH_ARRAY_INX"],
        support: Support::Honoured,
    },
    Opt {
        long: "batch",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH,
        sbatch_env: &["SBATCH_BATCH"],
        support: Support::Rejected("node features are not supported"),
    },
    Opt {
        long: "bcast",
        short: None,
        arg: HasArg::Optional,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here: programs are read where they are"),
    },
    Opt {
        long: "bcast-exclude",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "begin",
        short: Some('b'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "bell",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "bb",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_BURST_BUFFER"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "bbf",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "cluster-constraint",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CLUSTER_CONSTRAINT"],
        support: Support::Ignored("has no meaning with one cluster"),
    },
    Opt {
        long: "chdir",
        short: Some('D'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "cluster",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "clusters",
        short: Some('M'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CLUSTERS", "SLURM_CLUSTERS"],
        support: Support::Honoured,
    },
    Opt {
        long: "comment",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "compress",
        short: None,
        arg: HasArg::Optional,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "container",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CONTAINER"],
        support: Support::Rejected("OCI bundles are not supported, use --container-image"),
    },
    Opt {
        long: "context",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Rejected("SELinux contexts are not supported"),
    },
    Opt {
        long: "container-id",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Rejected("OCI containers are not supported, use --container-image"),
    },
    Opt {
        long: "contiguous",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "constraint",
        short: Some('C'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CONSTRAINT"],
        support: Support::Honoured,
    },
    Opt {
        long: "core-spec",
        short: Some('S'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CORE_SPEC"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "cores-per-socket",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "cpu-bind",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("does nothing here: tasks are not bound to CPUs"),
    },
    Opt {
        long: "cpu_bind",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("does nothing here: tasks are not bound to CPUs"),
    },
    Opt {
        long: "cpu-freq",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CPU_FREQ_REQ"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "cpus-per-gpu",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_CPUS_PER_GPU"],
        support: Support::Honoured,
    },
    Opt {
        long: "cpus-per-task",
        short: Some('c'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "deadline",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "debugger-test",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Rejected("it needs a Slurm controller"),
    },
    Opt {
        long: "delay-boot",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_DELAY_BOOT"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "dependency",
        short: Some('d'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "disable-status",
        short: Some('X'),
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "distribution",
        short: Some('m'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH,
        sbatch_env: &["SBATCH_DISTRIBUTION"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "distribution",
        short: Some('m'),
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "epilog",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "error",
        short: Some('e'),
        arg: HasArg::Required,
        cmds: SBATCH | SRUN,
        sbatch_env: &["SBATCH_ERROR"],
        support: Support::Honoured,
    },
    Opt {
        long: "exact",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here: steps share the job's CPUs"),
    },
    Opt {
        long: "exclude",
        short: Some('x'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "exclusive",
        short: None,
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_EXCLUSIVE"],
        support: Support::Honoured,
    },
    Opt {
        long: "export",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH | SRUN,
        sbatch_env: &["SBATCH_EXPORT"],
        support: Support::Honoured,
    },
    Opt {
        long: "export-file",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "extra-node-info",
        short: Some('B'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "get-user-env",
        short: None,
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH,
        sbatch_env: &["SBATCH_GET_USER_ENV"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "gid",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Rejected("jobs always run as the submitting user"),
    },
    Opt {
        long: "gpu-bind",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPU_BIND"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "gpu-freq",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPU_FREQ"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "gpus",
        short: Some('G'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPUS"],
        support: Support::Honoured,
    },
    Opt {
        long: "gpus-per-node",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPUS_PER_NODE"],
        support: Support::Honoured,
    },
    Opt {
        long: "gpus-per-socket",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPUS_PER_SOCKET"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "gpus-per-task",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GPUS_PER_TASK"],
        support: Support::Honoured,
    },
    Opt {
        long: "gres",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GRES"],
        support: Support::Honoured,
    },
    Opt {
        long: "gres-flags",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_GRES_FLAGS"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "help",
        short: Some('h'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "het-group",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Rejected("heterogeneous jobs are not supported"),
    },
    Opt {
        long: "hint",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SLURM_HINT", "SBATCH_HINT"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "hold",
        short: Some('H'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "ignore-pbs",
        short: None,
        arg: HasArg::No,
        cmds: SBATCH,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "immediate",
        short: Some('I'),
        arg: HasArg::Optional,
        cmds: SALLOC | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "input",
        short: Some('i'),
        arg: HasArg::Required,
        cmds: SBATCH | SRUN,
        sbatch_env: &["SBATCH_INPUT"],
        support: Support::Honoured,
    },
    Opt {
        long: "interactive",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Rejected("it needs a Slurm controller"),
    },
    Opt {
        long: "jobid",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "job-name",
        short: Some('J'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_JOB_NAME"],
        support: Support::Honoured,
    },
    Opt {
        long: "kill-command",
        short: Some('K'),
        arg: HasArg::Optional,
        cmds: SALLOC,
        sbatch_env: &[],
        support: Support::Rejected("it is not implemented yet"),
    },
    Opt {
        long: "kill-on-bad-exit",
        short: Some('K'),
        arg: HasArg::Optional,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "kill-on-invalid-dep",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "label",
        short: Some('l'),
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "licenses",
        short: Some('L'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "mail-type",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "mail-user",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "threads",
        short: Some('T'),
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "mcs-label",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "mem",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_MEM_PER_NODE"],
        support: Support::Honoured,
    },
    Opt {
        long: "mem-bind",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_MEM_BIND"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "mem-per-cpu",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_MEM_PER_CPU"],
        support: Support::Honoured,
    },
    Opt {
        long: "mem-per-gpu",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_MEM_PER_GPU"],
        support: Support::Honoured,
    },
    Opt {
        long: "mincpus",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "mpi",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored(
            "has no effect here: every step offers PMI-1 (MPICH's simple PMI), see docs/COMPAT.md",
        ),
    },
    Opt {
        long: "msg-timeout",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "multi-prog",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "network",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_NETWORK"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "nice",
        short: None,
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "no-allocate",
        short: Some('Z'),
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Rejected("it needs a Slurm controller"),
    },
    Opt {
        long: "no-bell",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "no-kill",
        short: Some('k'),
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_NO_KILL"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "no-shell",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC,
        sbatch_env: &[],
        support: Support::Rejected("it is not implemented yet"),
    },
    Opt {
        long: "no-requeue",
        short: None,
        arg: HasArg::No,
        cmds: SBATCH,
        sbatch_env: &["SBATCH_NO_REQUEUE"],
        support: Support::Honoured,
    },
    Opt {
        long: "nodefile",
        short: Some('F'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Rejected("node lists come from the platform"),
    },
    Opt {
        long: "nodelist",
        short: Some('w'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "nodes",
        short: Some('N'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "ntasks",
        short: Some('n'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "ntasks-per-core",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "ntasks-per-gpu",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "ntasks-per-node",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "ntasks-per-socket",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "ntasks-per-tres",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "oom-kill-step",
        short: None,
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "open-mode",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH | SRUN,
        sbatch_env: &["SBATCH_OPEN_MODE"],
        support: Support::Honoured,
    },
    Opt {
        long: "output",
        short: Some('o'),
        arg: HasArg::Required,
        cmds: SBATCH | SRUN,
        sbatch_env: &["SBATCH_OUTPUT"],
        support: Support::Honoured,
    },
    Opt {
        long: "overcommit",
        short: Some('O'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_OVERCOMMIT"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "overlap",
        short: None,
        arg: HasArg::Optional,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here: steps share the job's CPUs"),
    },
    Opt {
        long: "oversubscribe",
        short: Some('s'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "pack-group",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Rejected("heterogeneous jobs are not supported"),
    },
    Opt {
        long: "parsable",
        short: None,
        arg: HasArg::No,
        cmds: SBATCH,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "partition",
        short: Some('p'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_PARTITION"],
        support: Support::Honoured,
    },
    Opt {
        long: "power",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_POWER"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "prefer",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no meaning without node features"),
    },
    Opt {
        long: "preserve-env",
        short: Some('E'),
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("is not implemented: step variables are always set"),
    },
    Opt {
        long: "priority",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "profile",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_PROFILE"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "prolog",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "propagate",
        short: None,
        arg: HasArg::Optional,
        cmds: SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "pty",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "qos",
        short: Some('q'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_QOS"],
        support: Support::Honoured,
    },
    Opt {
        long: "quiet",
        short: Some('Q'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "quit-on-interrupt",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "reboot",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "relative",
        short: Some('r'),
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "requeue",
        short: None,
        arg: HasArg::No,
        cmds: SBATCH,
        sbatch_env: &["SBATCH_REQUEUE"],
        support: Support::Honoured,
    },
    Opt {
        long: "reservation",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_RESERVATION"],
        support: Support::Honoured,
    },
    Opt {
        long: "resv-ports",
        short: None,
        arg: HasArg::Optional,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "send-libs",
        short: None,
        arg: HasArg::Optional,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "signal",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_SIGNAL"],
        support: Support::Honoured,
    },
    Opt {
        long: "slurmd-debug",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "sockets-per-node",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "spread-job",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_SPREAD_JOB"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "switches",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        // Slurm reads the count and the wait from two variables; both mean nothing here.
        sbatch_env: &["SBATCH_REQ_SWITCH", "SBATCH_WAIT4SWITCH"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "task-epilog",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "task-prolog",
        short: None,
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "tasks-per-node",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "test-only",
        short: None,
        arg: HasArg::No,
        cmds: SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "thread-spec",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_THREAD_SPEC"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "threads-per-core",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_THREADS_PER_CORE"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "time",
        short: Some('t'),
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_TIMELIMIT"],
        support: Support::Honoured,
    },
    Opt {
        long: "time-min",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "tmp",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "tres-bind",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "tres-per-task",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_TRES_PER_TASK"],
        support: Support::Honoured,
    },
    Opt {
        long: "uid",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Rejected("jobs always run as the submitting user"),
    },
    Opt {
        long: "unbuffered",
        short: Some('u'),
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "use-min-nodes",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_USE_MIN_NODES"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "verbose",
        short: Some('v'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_DEBUG"],
        support: Support::Honoured,
    },
    Opt {
        long: "version",
        short: Some('V'),
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "usage",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "wait",
        short: Some('W'),
        arg: HasArg::No,
        cmds: SBATCH,
        sbatch_env: &["SBATCH_WAIT"],
        support: Support::Honoured,
    },
    Opt {
        long: "wait-all-nodes",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH,
        sbatch_env: &["SBATCH_WAIT_ALL_NODES"],
        support: Support::Ignored("has no effect here"),
    },
    Opt {
        long: "wait",
        short: Some('W'),
        arg: HasArg::Required,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "wckey",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &["SBATCH_WCKEY"],
        support: Support::Ignored("has nowhere to be accounted"),
    },
    Opt {
        long: "whole",
        short: None,
        arg: HasArg::No,
        cmds: SRUN,
        sbatch_env: &[],
        support: Support::Ignored("has no effect here: steps share the job's CPUs"),
    },
    Opt {
        long: "wrap",
        short: None,
        arg: HasArg::Required,
        cmds: SBATCH,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    // pyxis (SPANK plugin) container options, taken by all three commands.
    Opt {
        long: "container-image",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "container-mounts",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "container-workdir",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "container-name",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Honoured,
    },
    Opt {
        long: "container-save",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("images are not saved back"),
    },
    Opt {
        long: "container-mount-home",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored(
            "mounts nothing by itself: the home directory is mounted only when it is on configured storage",
        ),
    },
    Opt {
        long: "no-container-mount-home",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored(
            "mounts nothing away: the storage holding the working directory is mounted in any case",
        ),
    },
    Opt {
        long: "container-remap-root",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("jobs run as the submitting user"),
    },
    Opt {
        long: "no-container-remap-root",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Default("jobs run as the submitting user"),
    },
    Opt {
        long: "container-entrypoint",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("the image entrypoint is not run"),
    },
    Opt {
        long: "no-container-entrypoint",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Default("the image entrypoint is not run"),
    },
    Opt {
        long: "container-writable",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Default("container file systems are writable"),
    },
    Opt {
        long: "container-readonly",
        short: None,
        arg: HasArg::No,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Ignored("container file systems are writable"),
    },
    Opt {
        long: "container-env",
        short: None,
        arg: HasArg::Required,
        cmds: SALLOC | SBATCH | SRUN,
        sbatch_env: &[],
        support: Support::Default("every exported variable already overrides the image's"),
    },
];

impl Opt {
    /// Whether sbatch acts on this option in its first pass only (`sbatch_early_pass` in
    /// slurm_opt.c). Its second pass, over the directives and the command line, skips it,
    /// so `#SBATCH --wrap=...` or `#SBATCH -v` does nothing; the input variable is still
    /// read (SBATCH_DEBUG for `--verbose`).
    pub fn sbatch_early_pass(&self) -> bool {
        matches!(
            self.long,
            "help" | "quiet" | "usage" | "verbose" | "version" | "wrap"
        )
    }
}

/// Options of one Slurm release only (DESIGN.md §3.11): [`OPTIONS`] holds every
/// release's options, and these rows say which commands gained one (`Added`) or lost one
/// (`Removed`) in which release.
#[derive(Debug, Clone, Copy)]
pub enum ReleaseDelta {
    Added(&'static str, u8, SlurmVersion),
    Removed(&'static str, u8, SlurmVersion),
}

pub const RELEASE_DELTAS: &[ReleaseDelta] = &[
    ReleaseDelta::Added("container-id", SALLOC | SBATCH | SRUN, SlurmVersion::V24_11),
    ReleaseDelta::Added(
        "oom-kill-step",
        SALLOC | SBATCH | SRUN,
        SlurmVersion::V24_11,
    ),
    ReleaseDelta::Added("tres-bind", SALLOC | SBATCH | SRUN, SlurmVersion::V24_11),
    ReleaseDelta::Added(
        "tres-per-task",
        SALLOC | SBATCH | SRUN,
        SlurmVersion::V24_11,
    ),
    ReleaseDelta::Added("resv-ports", SALLOC | SBATCH, SlurmVersion::V24_11),
    // Root only since 24.11, and gone from salloc's table.
    ReleaseDelta::Removed("uid", SALLOC, SlurmVersion::V24_11),
    ReleaseDelta::Removed("gid", SALLOC, SlurmVersion::V24_11),
];

/// Whether `cmd` of release `version` takes `o`.
pub fn offered(o: &Opt, cmd: u8, version: SlurmVersion) -> bool {
    o.cmds & cmd != 0
        && !RELEASE_DELTAS.iter().any(|d| match *d {
            ReleaseDelta::Added(long, cmds, since) => {
                long == o.long && cmds & cmd != 0 && version < since
            }
            ReleaseDelta::Removed(long, cmds, since) => {
                long == o.long && cmds & cmd != 0 && version >= since
            }
        })
}

/// The options one command of the default release (22.05) takes.
pub fn for_command(cmd: u8) -> impl Iterator<Item = &'static Opt> {
    for_command_in(cmd, SlurmVersion::default())
}

/// The options one command of `version` takes.
pub fn for_command_in(cmd: u8, version: SlurmVersion) -> impl Iterator<Item = &'static Opt> {
    OPTIONS.iter().filter(move |o| offered(o, cmd, version))
}

/// Values getopt reports for options without a short letter: this base plus the option's
/// index in [`OPTIONS`].
const LONG_ONLY_BASE: i32 = 0x1000;

/// getopt's optstring and long option table for one command. An option with a short
/// letter is reported as that letter, by either spelling, as in Slurm's own tables.
pub fn getopt_tables(cmd: u8) -> (String, Vec<LongOpt>) {
    getopt_tables_in(cmd, SlurmVersion::default())
}

/// [`getopt_tables`] of `version`.
pub fn getopt_tables_in(cmd: u8, version: SlurmVersion) -> (String, Vec<LongOpt>) {
    let mut short = String::from("+");
    let mut long = Vec::new();
    for (i, o) in OPTIONS
        .iter()
        .enumerate()
        .filter(|(_, o)| offered(o, cmd, version))
    {
        let val = match o.short {
            Some(c) => {
                short.push(c);
                short.push_str(match o.arg {
                    HasArg::No => "",
                    HasArg::Required => ":",
                    HasArg::Optional => "::",
                });
                c as i32
            }
            None => LONG_ONLY_BASE + i as i32,
        };
        long.push(LongOpt {
            name: o.long,
            has_arg: o.arg,
            val,
        });
    }
    (short, long)
}

/// The option a getopt value stands for.
pub fn by_getopt_val(cmd: u8, val: i32) -> Option<&'static Opt> {
    if val >= LONG_ONLY_BASE {
        return OPTIONS
            .get((val - LONG_ONLY_BASE) as usize)
            .filter(|o| o.cmds & cmd != 0);
    }
    let c = char::from_u32(val as u32)?;
    for_command(cmd).find(|o| o.short == Some(c))
}

pub fn find(cmd: u8, long: &str) -> Option<&'static Opt> {
    for_command(cmd).find(|o| o.long == long)
}

/// The command bit of a program name (`sbatch`, `srun`, `salloc`).
pub fn command_named(prog: &str) -> u8 {
    match prog {
        "srun" => SRUN,
        "salloc" => SALLOC,
        _ => SBATCH,
    }
}

/// `<prog>: warning: --<option> <why> and is ignored` for each of `names` that `prog`
/// accepts without acting on it (the table's [`Support::Ignored`]). The names were parsed
/// already, under whichever release's table: any release's row says what they are.
pub fn ignored_warnings<'a>(prog: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let cmd = command_named(prog);
    names
        .into_iter()
        .filter_map(
            |name| match OPTIONS.iter().find(|o| o.long == name && o.cmds & cmd != 0) {
                Some(Opt {
                    support: Support::Ignored(why),
                    ..
                }) => Some(format!("{prog}: warning: --{name} {why} and is ignored")),
                _ => None,
            },
        )
        .collect()
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

    #[test]
    fn each_release_offers_its_own_options() {
        let names = |cmd, v| -> Vec<&str> { for_command_in(cmd, v).map(|o| o.long).collect() };
        let (old, new) = (SlurmVersion::V22_05, SlurmVersion::V24_11);
        for cmd in [SALLOC, SBATCH, SRUN] {
            for added in [
                "container-id",
                "oom-kill-step",
                "tres-bind",
                "tres-per-task",
            ] {
                assert!(!names(cmd, old).contains(&added), "{added}");
                assert!(names(cmd, new).contains(&added), "{added}");
            }
        }
        assert!(names(SRUN, old).contains(&"resv-ports"));
        assert!(!names(SBATCH, old).contains(&"resv-ports"));
        assert!(names(SBATCH, new).contains(&"resv-ports"));
        assert!(names(SALLOC, old).contains(&"uid"));
        assert!(!names(SALLOC, new).contains(&"uid"));
        assert!(names(SBATCH, new).contains(&"uid"));
        // Every delta names a row of the table for each command it mentions.
        for d in RELEASE_DELTAS {
            let (ReleaseDelta::Added(long, cmds, _) | ReleaseDelta::Removed(long, cmds, _)) = *d;
            let o = OPTIONS.iter().find(|o| o.long == long).expect(long);
            assert_eq!(o.cmds & cmds, cmds, "{long}");
        }
        let (short, _) = getopt_tables_in(SBATCH, new);
        assert_eq!(short, getopt_tables(SBATCH).0);
    }

    #[test]
    fn ignored_warnings_use_the_command_s_own_rows() {
        // --cpu-bind is srun's alone: looked up among sbatch's options it was never found.
        assert_eq!(
            ignored_warnings("srun", ["cpu-bind", "ntasks"]),
            [
                "srun: warning: --cpu-bind does nothing here: tasks are not bound to CPUs and is ignored"
            ]
        );
        assert!(ignored_warnings("sbatch", ["cpu-bind"]).is_empty());
        assert_eq!(
            ignored_warnings("sbatch", ["acctg-freq"]),
            ["sbatch: warning: --acctg-freq has no effect here and is ignored"]
        );
    }

    /// docs/COMPAT.md lists every option of the table with its class.
    #[test]
    fn compat_doc_lists_every_option_with_its_class() {
        let doc = include_str!("../../docs/COMPAT.md");
        for o in OPTIONS {
            let class = match o.support {
                Support::Honoured => "| honoured |",
                Support::Ignored(_) => "| ignored (warning) |",
                Support::Rejected(_) => "| rejected |",
                Support::Default(_) => "| honoured (default) |",
            };
            // An option spelled the same for several commands (`--wait`) has a row each.
            let rows: Vec<&str> = doc
                .lines()
                .filter(|l| l.starts_with(&format!("| `--{}`", o.long)))
                .collect();
            assert!(!rows.is_empty(), "--{} missing from docs/COMPAT.md", o.long);
            assert!(
                rows.iter().any(|r| r.contains(class)),
                "--{}: docs/COMPAT.md says {rows:?}",
                o.long
            );
        }
    }
}
