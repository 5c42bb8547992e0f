//! salloc: obtain an allocation, run a command in it (default: your shell), give it back.

use super::allocate;
use crate::backend::Cluster;
use crate::cli::Invocation;
use crate::launcher::env::AllocationUser;
use crate::model::ExitStatus;
use crate::options::salloc::{self, SallocOutcome};

pub fn run(inv: &mut Invocation<'_>, cluster: &dyn Cluster) -> i32 {
    let args = inv.args.clone();
    let req = match salloc::parse_for(inv.profile, &args, &inv.env, inv.now) {
        SallocOutcome::Exit {
            stdout,
            stderr,
            code,
        } => return inv.finish(&stdout, &stderr, code),
        SallocOutcome::Run(req) => req,
    };
    let (spec, messages) =
        match allocate::allocation_spec(inv, &req.opts, "salloc", "interactive".into()) {
            Ok(s) => s,
            Err(f) => {
                let _ = inv.err.write_all(f.stderr.as_bytes());
                return f.code;
            }
        };
    for m in messages {
        let _ = writeln!(inv.err, "{m}");
    }
    let (id, details) = match allocate::obtain(inv, cluster, &spec, "salloc") {
        Ok(a) => a,
        Err(code) => return code,
    };
    let _ = writeln!(inv.err, "salloc: Granted job allocation {id}");
    if inv.profile.job_env.salloc_nodes_ready_line {
        let nodes: Vec<String> = details.nodes.iter().map(|(n, _)| n.clone()).collect();
        let _ = writeln!(
            inv.err,
            "salloc: Nodes {} are ready for job",
            crate::model::hostlist::compress(&nodes)
        );
    }
    let env = allocate::env_of(inv, id, &details, &spec, AllocationUser::Salloc);
    // srun in the command finds the allocation's step servers in the file we hold.
    let _held = match allocate::job_file(cluster, id, &details).hold() {
        Ok(h) => Some(h),
        Err(e) => {
            inv.error(&format!("cannot hold the job file of job {id}: {e}"));
            None
        }
    };
    let argv = if req.argv.is_empty() {
        vec![
            inv.var_nonempty("SHELL")
                .map_or_else(|| inv.user.shell.clone(), str::to_string),
        ]
    } else {
        req.argv.clone()
    };
    let status = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .envs(&env)
        .current_dir(&inv.cwd)
        .status();
    let (code, exit) = match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            match (s.code(), s.signal()) {
                (Some(c), _) => (c, ExitStatus::code(c)),
                (None, Some(sig)) => (128 + sig, ExitStatus::signal(sig)),
                _ => (1, ExitStatus::code(1)),
            }
        }
        Err(e) => {
            inv.error(&format!("Unable to exec command \"{}\": {e}", argv[0]));
            (1, ExitStatus::code(1))
        }
    };
    let _ = writeln!(inv.err, "salloc: Relinquishing job allocation {id}");
    if let Err(e) = cluster.release(id, exit) {
        inv.error(&format!("Unable to release job allocation {id}: {e}"));
    }
    code
}
