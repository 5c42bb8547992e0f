//! `bai-slurm doctor`: which backend and configuration are in force, and whether they work.
//! Secrets are never printed, only whether they are set.

use crate::backend::Cluster;
use crate::backend::local::{LocalCluster, control};
use crate::cli::Invocation;
use crate::config::{BackendKind, Loaded};

pub fn run(inv: &mut Invocation<'_>) -> i32 {
    let loaded = match Loaded::load(&inv.env) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(inv.err, "bai-slurm doctor: configuration: {e}");
            return 1;
        }
    };
    let out = &mut *inv.out;
    let _ = writeln!(out, "bai-slurm {}", env!("CARGO_PKG_VERSION"));
    if loaded.files.is_empty() {
        let _ = writeln!(out, "config files: none (defaults)");
    } else {
        for f in &loaded.files {
            let _ = writeln!(out, "config file: {}", f.display());
        }
    }
    if !loaded.env_overrides.is_empty() {
        let _ = writeln!(
            out,
            "environment overrides: {}",
            loaded.env_overrides.join(", ")
        );
    }
    let _ = writeln!(out, "cluster: {}", loaded.cluster_name());
    match loaded.backend_kind() {
        BackendKind::Local => local(inv, &loaded),
        BackendKind::BackendAi => {
            let b = &loaded.config.backendai;
            let _ = writeln!(inv.out, "backend: backend.ai");
            let _ = writeln!(
                inv.out,
                "endpoint: {}",
                b.endpoint.as_deref().unwrap_or("(not set)")
            );
            let _ = writeln!(
                inv.out,
                "access key: {}",
                if b.access_key.is_some() {
                    "set"
                } else {
                    "not set"
                }
            );
            let _ = writeln!(
                inv.out,
                "secret key: {}",
                if b.secret_key.is_some() {
                    "set"
                } else {
                    "not set"
                }
            );
            let _ = writeln!(
                inv.out,
                "status: FAILED (the Backend.AI backend is not available in this build yet)"
            );
            1
        }
    }
}

fn local(inv: &mut Invocation<'_>, loaded: &Loaded) -> i32 {
    let cluster = match LocalCluster::open(loaded, &inv.env) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(inv.out, "backend: local\nstatus: FAILED ({e})");
            return 1;
        }
    };
    let s = &cluster.settings;
    let out = &mut *inv.out;
    let _ = writeln!(out, "backend: local (jobs run on this machine)");
    let _ = writeln!(out, "state directory: {}", cluster.state_dir.display());
    let _ = writeln!(
        out,
        "node: {} ({} CPUs, {} MB)",
        s.node.name, s.node.cpus, s.node.memory_mb
    );
    let _ = writeln!(
        out,
        "partition: {} (DefMemPerCPU={} MB)",
        s.partition.name, s.partition.def_mem_per_cpu
    );
    let running = control::kick(&cluster.state_dir);
    let _ = writeln!(
        out,
        "queue runner: {}",
        if running {
            "running"
        } else {
            "not running (starts with the next command that needs it)"
        }
    );
    match cluster.jobs() {
        Ok(jobs) => {
            let _ = writeln!(out, "jobs known to the controller: {}", jobs.len());
            let _ = writeln!(out, "status: OK");
            0
        }
        Err(e) => {
            let _ = writeln!(out, "status: FAILED ({e})");
            1
        }
    }
}
