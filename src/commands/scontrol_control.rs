//! scontrol's job-control verbs (hold, release, requeue, update, suspend, resume, ...).
//! A placeholder until the backend operations exist.

use crate::backend::Cluster;
use crate::cli::Invocation;

/// Runs one job-control verb with its arguments; returns scontrol's exit status.
pub fn run(inv: &mut Invocation, _cluster: &dyn Cluster, verb: &str, _args: &[String]) -> i32 {
    inv.error(&format!("{verb} is not available yet"));
    1
}
