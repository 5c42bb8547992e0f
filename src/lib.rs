//! bai-slurm: Slurm's commands, backed by Backend.AI or by this machine.

pub mod backend;
pub mod cli;
pub mod commands;
pub mod config;
pub mod credentials;
pub mod envvars;
pub mod format;
pub mod generate;
pub mod launcher;
pub mod model;
pub mod options;
pub mod sys;
