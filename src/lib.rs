//! bai-slurm: Slurm's commands, backed by Backend.AI or by this machine.

pub mod backend;
pub mod cli;
pub mod commands;
pub mod format;
pub mod model;
pub mod sys;
