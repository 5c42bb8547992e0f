//! Test support: recorded clusters and the golden-case runner.

pub mod golden;
pub mod recorded;
