//! What the Backend.AI backend does with each part of a job request (see
//! `backend::support`). The session request carries what Backend.AI can act on; the
//! launcher in the job's container acts on the rest, from the job's description.

use crate::backend::SlurmErrno;
use crate::backend::support::{Handling, Refusal};
use crate::model::jobspec::Field;

pub fn handling(f: Field) -> Handling {
    use Handling::*;
    match f {
        Field::Name => Honoured("the session's tag; records"),
        Field::Script => Honoured("sent with the session, run by the launcher"),
        Field::ScriptArgs => Launcher("passed to the script"),
        Field::WorkDir => Launcher(
            "the launcher's working directory; the storage holding it is mounted at the same path",
        ),
        Field::Stdout | Field::Stderr | Field::Stdin => {
            Launcher("Slurm's file name patterns, opened by the launcher where the path is mounted")
        }
        Field::OpenMode => Launcher("output files appended to or truncated"),
        Field::TimeLimit => Honoured(
            "the launcher ends the job at its limit; `batchTimeout` (API v8+) as a backstop",
        ),
        Field::TimeMin => Recorded("scontrol TimeMin; the job may run to its time limit"),
        Field::Nodes => Honoured("`clusterSize`: one container per node"),
        Field::Ntasks | Field::CpusPerTask | Field::NtasksPerNode | Field::MinCpus => {
            Honoured("`resources.cpu` of each container")
        }
        Field::Memory => Honoured("`resources.mem` of each container"),
        Field::Gpus | Field::Gres => {
            Honoured("`cuda.device` (whole GPUs) or `cuda.shares` (fractions)")
        }
        Field::CpusPerGpu | Field::MemPerGpu => {
            Honoured("each container's CPUs and memory grow with its GPUs")
        }
        Field::Partition => Honoured("the resource group (`scaling_group`)"),
        Field::Account | Field::Qos | Field::Comment => {
            Recorded("shown by squeue, sacct and scontrol")
        }
        Field::Array => Honoured("one session per task"),
        Field::ArrayThrottle => Honoured(
            "`%N`: the tasks in N chains, each task's session `dependencies` on the one N before it, whose launcher reports success whatever its script's exit code (kept in its result line)",
        ),
        Field::Dependency => Honoured(
            "`dependencies` (the sessions' ids): afterok; with `[backendai] job_dir` also afterany, afternotok, aftercorr, singleton and `?`, judged by the dependent's launcher from the results left there; `after` of jobs that have started is fulfilled at submission (a `+minutes` delay becomes `startsAt`), of a job still waiting refused",
        ),
        Field::Hold => Honoured(
            "with `[backendai] job_dir`: a far `startsAt` and the hold in the tag (reason JobHeldUser); `scontrol release` makes the session again from the request kept there; refused without it",
        ),
        Field::Begin => Honoured("`startsAt`"),
        Field::Deadline => Refused(Refusal::Unsupported(
            "is not supported by the Backend.AI backend",
        )),
        Field::Priority => Honoured("`priority` (at most 100)"),
        Field::Nice => Warned("does not change Backend.AI's order of sessions (--priority does)"),
        Field::Requeue => Recorded("scontrol Requeue="),
        Field::Signal => Launcher("the signal sent before the time limit"),
        Field::Mail => Recorded("scontrol MailUser/MailType; no mail is sent"),
        Field::Nodelist => Honoured(
            "`agent_list`: the agents named, then others with the most free CPUs (a superadmin's keypair only; otherwise refused)",
        ),
        Field::Exclude => Honoured(
            "`agent_list`: the group's other agents with the most free CPUs (a superadmin's keypair only; otherwise refused)",
        ),
        Field::Constraint => Refused(Refusal::Errno(SlurmErrno::InvalidFeature)),
        Field::Exclusive => Honoured(
            "each container asks for every CPU and all the memory of an agent (the group's largest, or the smallest assigned by --nodelist/--exclude)",
        ),
        Field::KillOnInvalidDep => Warned(
            "has no effect on Backend.AI: with `[backendai] job_dir` a job whose dependency can never be satisfied always ends (CANCELLED, DependencyNeverSatisfied); without, its session waits until cancelled",
        ),
        Field::Immediate => Honoured(
            "salloc/srun cancel the session when the scheduler has not placed it within the seconds given (-I alone: 10 s, the manager's scheduling round)",
        ),
        Field::Reservation => Refused(Refusal::Errno(SlurmErrno::ReservationInvalid)),
        Field::Licenses => Refused(Refusal::Errno(SlurmErrno::InvalidLicenses)),
        Field::ContainerImage => Honoured("the session's image"),
        Field::ContainerMounts => Honoured(
            "vfolder mounts (`mounts`/`mount_map` by the vfolder's id): SRC a vfolder name or a path under a configured storage root; `ro` flag",
        ),
        Field::ContainerWorkdir => Launcher("the launcher's working directory in the container"),
        Field::ContainerName => Warned("names no container (containers are not kept between jobs)"),
        Field::Environment => Honoured("the session's `environ`, as --export chose it"),
        Field::Umask => Launcher("the job's umask"),
        Field::Rlimits => Launcher(
            "the submitting shell's soft limits, set for the batch script in the container (up to the container's hard limits)",
        ),
    }
}
