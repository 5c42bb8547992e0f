//! Pure renderers: records, options and the clock in, bytes out. No I/O, no backend.

pub mod common;
pub mod msort;
pub mod openapi;
pub mod sacct;
pub mod scontrol;
pub mod sinfo;
pub mod spec;
pub mod squeue;
pub mod text;
