//! Allocations made from the command line (srun outside a job, salloc).

use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::options::srun::SrunRequest;

/// srun outside any allocation: ask for one, run the step in it, give it back.
pub fn run_in_new_allocation(
    inv: &mut Invocation<'_>,
    _cluster: &dyn Cluster,
    _req: &SrunRequest,
) -> i32 {
    inv.error("srun outside a job allocation is not available yet; run it inside sbatch or salloc");
    1
}
