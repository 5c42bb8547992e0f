//! Test support: recorded clusters and the golden-case runner.
// Each test binary includes this module and uses a different part of it.
#![allow(dead_code)]

pub mod golden;
pub mod option_samples;
pub mod recorded;
pub mod terminal;
