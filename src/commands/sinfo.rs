//! `sinfo` (in progress).

use crate::backend::Cluster;
use crate::cli::Invocation;

pub fn run(inv: &mut Invocation, _cluster: &dyn Cluster) -> i32 {
    inv.error("not implemented yet");
    1
}
