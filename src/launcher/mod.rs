//! The compute side: the batch wrapper and the srun step server that run inside a job's
//! allocation — a container on Backend.AI, this machine under the local backend.

pub mod admission;
pub mod batch;
pub mod container;
pub mod env;
pub mod gate;
pub mod jobfile;
pub mod meta;
pub mod pmi;
pub mod pty;
pub mod relay;
pub mod signal_mark;
pub mod srun_client;
pub mod step_proto;
pub mod stepd;
pub mod task_scripts;
