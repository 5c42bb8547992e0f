//! The commands: command-line parsing and glue between the backend and the renderers.

mod common;
pub mod getopt;
pub mod sacct;
pub mod scontrol;
pub mod scontrol_control;
pub mod sinfo;
pub mod squeue;
