//! Slurm's options: value parsers and the `#SBATCH` directive lexer.
//!
//! Everything here is pure: strings in, typed values or typed errors out. Printing the
//! errors (with the `sbatch: error: ` prefix) and exiting is the caller's job; every error
//! carries the exact text and exit status Slurm 22.05 would use.

pub mod directives;
pub mod values;
