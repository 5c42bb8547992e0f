//! GPUs on the local backend: each node has `gpus` counted devices, numbered 0..N as
//! gres.conf's `File=/dev/nvidia[0-N]` list numbers them. A job asks for them with
//! `--gres=gpu[:type]:N` (per node) or `--gpus*`; the scheduler gives each started job
//! the lowest free device numbers of each of its nodes, and they are its own until it
//! ends.

use crate::model::JobSpec;
use crate::model::jobspec::GpuPer;

/// What is wrong with a GRES request, as slurmctld says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GresProblem {
    /// A resource the cluster does not have (GresTypes has only `gpu`).
    UnknownName,
    /// More GPUs than a node has, or a fraction of one.
    TooMany,
}

/// GPUs the job needs on each of its nodes (0: none).
pub fn gpus_per_node(spec: &JobSpec) -> Result<u32, GresProblem> {
    let nodes = spec.nodes().max(1);
    let mut per_node = 0u64;
    for item in spec.gres.iter().filter(|g| g.as_str() != "none") {
        let mut parts = item.split(':');
        if parts.next() != Some("gpu") {
            return Err(GresProblem::UnknownName);
        }
        let count = item.rsplit(':').next().unwrap_or("1");
        per_node += whole(count)?;
    }
    if let Some(g) = &spec.gpus {
        if g.count.fract() != 0.0 || g.count < 0.0 {
            return Err(GresProblem::TooMany);
        }
        let n = g.count as u64;
        per_node += match g.per {
            GpuPer::Node => n,
            GpuPer::Job => n.div_ceil(u64::from(nodes)),
            GpuPer::Task => {
                let tasks = spec
                    .ntasks
                    .or(spec.ntasks_per_node.map(|t| t * nodes))
                    .unwrap_or(nodes);
                n * u64::from(tasks.div_ceil(nodes))
            }
        };
    }
    u32::try_from(per_node).map_err(|_| GresProblem::TooMany)
}

fn whole(count: &str) -> Result<u64, GresProblem> {
    count.parse::<u64>().map_err(|_| GresProblem::TooMany)
}

/// Device numbers held on each node of a job, as stored: `0,1` per node, nodes apart by
/// `;` (empty for a node where it holds none).
pub fn parse_held(text: &str) -> Vec<Vec<u32>> {
    text.split(';')
        .map(|n| n.split(',').filter_map(|d| d.parse().ok()).collect())
        .collect()
}

pub fn format_held(held: &[Vec<u32>]) -> String {
    held.iter()
        .map(|d| d.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join(";")
}

/// The lowest `want` device numbers of a node with `total` that `taken` does not hold.
pub fn pick(total: u32, taken: &[u32], want: u32) -> Vec<u32> {
    (0..total)
        .filter(|d| !taken.contains(d))
        .take(want as usize)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::jobspec::GpuRequest;

    #[test]
    fn counts_per_node_from_gres_and_gpus() {
        let mut s = JobSpec {
            gres: vec!["gpu:2".into()],
            ..Default::default()
        };
        assert_eq!(gpus_per_node(&s), Ok(2));
        s.gres = vec!["gpu:a100:1".into()];
        assert_eq!(gpus_per_node(&s), Ok(1));
        s.gres = vec!["fpga:1".into()];
        assert_eq!(gpus_per_node(&s), Err(GresProblem::UnknownName));
        s.gres.clear();
        s.nodes_min = Some(2);
        s.gpus = Some(GpuRequest {
            gpu_type: None,
            count: 3.0,
            per: GpuPer::Job,
        });
        assert_eq!(gpus_per_node(&s), Ok(2));
        s.gpus = Some(GpuRequest {
            gpu_type: None,
            count: 0.5,
            per: GpuPer::Job,
        });
        assert_eq!(gpus_per_node(&s), Err(GresProblem::TooMany));
    }

    #[test]
    fn devices_are_the_lowest_free_ones() {
        assert_eq!(pick(4, &[0, 2], 2), vec![1, 3]);
        assert_eq!(pick(2, &[0, 1], 1), Vec::<u32>::new());
        assert_eq!(parse_held("0,1;;3"), vec![vec![0, 1], vec![], vec![3]]);
        assert_eq!(format_held(&[vec![0, 1], vec![], vec![3]]), "0,1;;3");
    }
}
