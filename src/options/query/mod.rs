//! The option tables of the query commands (squeue, sacct, sinfo, scontrol, scancel), for
//! [`getopt`](super::getopt): what each accepts lives here, with the other option tables;
//! what each option does is the command's (`commands/`).

pub mod sacct;
pub mod scancel;
pub mod scontrol;
pub mod sinfo;
pub mod squeue;

/// The value getopt returns for a short option: the letter itself, as in C.
pub const fn c(ch: char) -> i32 {
    ch as i32
}
