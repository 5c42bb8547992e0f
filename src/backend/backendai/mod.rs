//! The Backend.AI backend: every job is a Backend.AI batch session.

pub mod jobid;
pub mod meta;
pub mod records;
pub mod submit;
