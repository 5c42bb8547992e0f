//! `bai-slurm __generate DIR` writes the man pages and shell completions (see
//! [`crate::generate`]); `bai-slurm __complete jobs|partitions` prints what the completion
//! scripts offer after `scancel`, `scontrol show job` and `-p`.

use super::with_cluster;
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::model::ArrayPart;
use std::collections::BTreeSet;

/// `bai-slurm __generate DIR`: writes man/ and completions/ under DIR.
pub fn generate(inv: &mut Invocation<'_>) -> i32 {
    let [dir] = inv.args.as_slice() else {
        let _ = writeln!(inv.err, "Usage: bai-slurm __generate DIR");
        return 2;
    };
    let dir = inv.cwd.join(dir);
    match crate::generate::write_to(&dir) {
        Ok(n) => {
            let _ = writeln!(inv.out, "wrote {n} files under {}", dir.display());
            0
        }
        Err(e) => {
            let _ = writeln!(inv.err, "bai-slurm: cannot write {}: {e}", dir.display());
            1
        }
    }
}

/// `bai-slurm __complete jobs|partitions`: one candidate a line. Errors print nothing (a
/// completion must never spill messages onto the user's command line).
pub fn complete(inv: &mut Invocation<'_>) -> i32 {
    let what = inv.args.first().cloned().unwrap_or_default();
    if !matches!(what.as_str(), "jobs" | "partitions") {
        return 2;
    }
    with_cluster(inv, |inv, cluster| {
        let words = match what.as_str() {
            "jobs" => job_words(inv, cluster),
            _ => cluster
                .partitions()
                .map(|ps| ps.into_iter().map(|p| p.name).collect())
                .unwrap_or_default(),
        };
        for w in words {
            let _ = writeln!(inv.out, "{w}");
        }
        0
    })
}

/// The ids of the caller's jobs that have not ended (everyone's for root): plain ids, and
/// for arrays the array id and each running task as `ID_TASK`.
fn job_words(inv: &Invocation<'_>, cluster: &dyn Cluster) -> Vec<String> {
    let Ok(jobs) = cluster.jobs() else {
        return Vec::new();
    };
    let mut ids: BTreeSet<(u32, Option<u32>)> = BTreeSet::new();
    for j in jobs {
        if j.state.is_finished() || (inv.user.uid != 0 && j.uid != inv.user.uid) {
            continue;
        }
        match &j.array {
            Some(ArrayPart::Task {
                array_job_id,
                task_id,
            }) => {
                ids.insert((*array_job_id, None));
                ids.insert((*array_job_id, Some(*task_id)));
            }
            Some(ArrayPart::Pending { array_job_id, .. }) => {
                ids.insert((*array_job_id, None));
            }
            None => {
                ids.insert((j.job_id, None));
            }
        }
    }
    ids.into_iter()
        .map(|(id, task)| match task {
            Some(t) => format!("{id}_{t}"),
            None => id.to_string(),
        })
        .collect()
}
