//! What the local backend does with each part of a job request (see `backend::support`).

use crate::backend::SlurmErrno;
use crate::backend::support::{Handling, Refusal};
use crate::model::jobspec::Field;

const NOT_IN_A_CONTAINER: &str =
    "has no effect on the local backend (jobs run on this machine, not in a container)";

pub fn handling(f: Field) -> Handling {
    use Handling::*;
    match f {
        Field::Name => Honoured("the job's name"),
        Field::Script => Honoured("stored at submission and run by the launcher"),
        Field::ScriptArgs => Launcher("passed to the script"),
        Field::WorkDir => Honoured("the job's working directory"),
        Field::Stdout | Field::Stderr | Field::Stdin => {
            Honoured("Slurm's file name patterns, opened by the launcher")
        }
        Field::OpenMode => Launcher("output files appended to or truncated"),
        Field::TimeLimit => Honoured(
            "the launcher ends the job at its limit; over the partition's MaxTime it waits (PartitionTimeLimit)",
        ),
        Field::TimeMin => Recorded("scontrol TimeMin; the job may run to its time limit"),
        Field::Nodes => {
            Honoured("up to `[local] nodes`; more waits (PartitionNodeLimit) as in Slurm")
        }
        Field::Ntasks | Field::CpusPerTask | Field::NtasksPerNode | Field::MinCpus => {
            Honoured("the CPUs allocated on the node(s)")
        }
        Field::Memory => Honoured("the memory allocated; more than a node has is refused"),
        Field::Gpus => Honoured(
            "GPU devices of `[local] gpus` given to the job; more than a node has is refused",
        ),
        Field::CpusPerGpu => Recorded("scontrol CpusPerTres"),
        Field::MemPerGpu => Recorded("scontrol MemPerTres"),
        Field::Gres => Honoured(
            "`gpu[:type]:N` per node from `[local] gpus`; other names are refused as Slurm refuses them",
        ),
        Field::Partition => Honoured("the configured partitions; another name is refused"),
        Field::Account | Field::Qos | Field::Comment => {
            Recorded("shown by squeue, sacct and scontrol")
        }
        Field::Array => Honoured("one record until tasks start, task ids as slurmctld gives them"),
        Field::ArrayThrottle => Honoured("at most N tasks run at once"),
        Field::Dependency => Honoured("every dependency type, `,` and `?`"),
        Field::Hold => Honoured("the job waits with reason JobHeldUser"),
        Field::Begin => Honoured("the job waits with reason BeginTime"),
        Field::Deadline => Honoured(
            "a pending job that can no longer end by then ends DEADLINE (reason DeadLine); one that starts gets at most the time left",
        ),
        Field::Nice | Field::Priority => Honoured("the order pending jobs start in"),
        Field::Requeue => Recorded("scontrol Requeue=; nothing here requeues a job by itself"),
        Field::Signal => Launcher("the signal sent before the time limit"),
        Field::Mail => Recorded("scontrol MailUser/MailType; no mail is sent"),
        Field::Nodelist => Honoured(
            "the job runs on the nodes named; an unknown name is refused with Invalid node name specified",
        ),
        Field::Exclude => Honoured(
            "the job runs on other nodes; excluding too many is refused with Requested node configuration is not available",
        ),
        Field::Constraint => Refused(Refusal::Errno(SlurmErrno::InvalidFeature)),
        Field::Exclusive => Honoured("the job gets every CPU of its node(s)"),
        Field::KillOnInvalidDep => {
            Launcher("the queue runner cancels a job whose dependency can never be met")
        }
        Field::Immediate => Honoured(
            "the queue runner fails the job (BadConstraints) when it cannot start it at once; with a number of seconds, salloc/srun cancel it when it has not started by then",
        ),
        Field::Reservation => Refused(Refusal::Errno(SlurmErrno::ReservationInvalid)),
        Field::Licenses => Refused(Refusal::Errno(SlurmErrno::InvalidLicenses)),
        Field::ContainerImage
        | Field::ContainerMounts
        | Field::ContainerWorkdir
        | Field::ContainerName => Warned(NOT_IN_A_CONTAINER),
        Field::Environment => Launcher("the job's environment, as --export chose it"),
        Field::Umask => Launcher("the job's umask"),
        Field::Rlimits => Launcher(
            "the submitting shell's soft limits, set for the batch script (up to the hard limits the launcher has)",
        ),
    }
}
