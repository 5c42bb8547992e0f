//! The local backend's own processes, started by bai-slurm itself.

use crate::backend::local::{LocalCluster, LocalSettings, executor, runner};
use crate::cli::Invocation;
use crate::config::Loaded;
use std::path::PathBuf;

/// `bai-slurm __local-runner STATE_DIR`: the queue runner.
pub fn runner(inv: &mut Invocation<'_>) -> i32 {
    let Some(dir) = inv.args.first().map(PathBuf::from) else {
        return 2;
    };
    let loaded = match Loaded::load(&inv.env) {
        Ok(l) => l,
        Err(e) => {
            inv.error(&e.to_string());
            return 1;
        }
    };
    // The directory named by the caller wins over whatever this environment says.
    let cluster = LocalCluster::open(&loaded, &inv.env)
        .and_then(|c| LocalCluster::with_settings(dir, c.settings));
    match cluster {
        Ok(c) => runner::run(&c),
        Err(e) => {
            inv.error(&e.to_string());
            1
        }
    }
}

/// `bai-slurm __launch STATE_DIR JOB_ID SETTINGS_JSON`: runs one job.
pub fn launch(inv: &mut Invocation<'_>) -> i32 {
    let [dir, job, settings] = inv.args.as_slice() else {
        return 2;
    };
    let (Ok(job_id), Ok(settings)) = (
        job.parse::<u32>(),
        serde_json::from_str::<LocalSettings>(settings),
    ) else {
        return 2;
    };
    match LocalCluster::with_settings(PathBuf::from(dir), settings) {
        Ok(c) => executor::launch(&c, job_id),
        Err(e) => {
            inv.error(&e.to_string());
            1
        }
    }
}

/// `bai-slurm __bai-launch [META]`: runs a job inside its Backend.AI session (the
/// metadata from the argument, else from `BAI_SLURM_META`).
pub fn bai_launch(inv: &mut Invocation<'_>) -> i32 {
    let meta = match inv.args.as_slice() {
        [meta] => meta.clone(),
        [] => match inv.env.get(crate::backend::backendai::meta::META_ENV) {
            Some(m) => m.clone(),
            None => return 2,
        },
        _ => return 2,
    };
    let env = inv.env.clone();
    crate::launcher::container::run(&meta, env, inv.out)
}
