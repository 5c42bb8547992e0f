//! Slurm's options: the option table, getopt, value parsers, the `#SBATCH` directive
//! lexer, and sbatch's processing that turns them into a JobSpec.
//!
//! Everything here is pure: strings in, typed values or typed errors out. Printing the
//! errors (with the `sbatch: error: ` prefix) and exiting is the caller's job; every error
//! carries the exact text and exit status Slurm 22.05 would use.

pub mod directives;
pub mod getopt;
pub mod job_opts;
pub mod query;
pub mod salloc;
pub mod sbatch;
pub mod srun;
pub mod table;
pub mod texts;
pub mod tres_per_task;
pub mod values;
