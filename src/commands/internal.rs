//! The local backend's own processes, started by bai-slurm itself.

use crate::backend::local::{LocalCluster, LocalSettings, executor, runner};
use crate::cli::Invocation;
use crate::config::Loaded;
use crate::launcher::admission::Limits;
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
    let cluster = LocalCluster::with_settings(dir, LocalCluster::settings(&loaded));
    match cluster {
        Ok(c) => runner::run(&c),
        Err(e) => {
            inv.error(&e.to_string());
            1
        }
    }
}

/// `bai-slurm service`: the system mode's service (system/server.rs), as the packages'
/// systemd unit runs it.
pub fn service(inv: &mut Invocation<'_>) -> i32 {
    if !inv.args.is_empty() {
        inv.error("usage: bai-slurm service (configured by [local] in /etc/bai-slurm/config.toml)");
        return 2;
    }
    let started = Loaded::load(&inv.env)
        .map_err(|e| e.to_string())
        .and_then(|loaded| LocalCluster::open(&loaded, &inv.env).map_err(|e| e.to_string()))
        .and_then(|cluster| crate::backend::local::system::server::serve(&cluster));
    match started {
        Ok(()) => 0,
        Err(e) => {
            inv.error(&e);
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
    match LocalCluster::for_launcher(PathBuf::from(dir), settings) {
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
        [] => match inv.env.get(crate::launcher::meta::META_ENV) {
            Some(m) => m.clone(),
            None => return 2,
        },
        _ => return 2,
    };
    let env = inv.env.clone();
    crate::launcher::container::run(&meta, env, inv.out)
}

/// `bai-slurm __stepd NODE BIND [--tunnel]`: one node's step server (see
/// `launcher::stepd::run_process`); `--tunnel` when its peers come through a platform's
/// tunnel (an allocation's relays).
pub fn stepd(inv: &mut Invocation<'_>) -> i32 {
    let (node, bind, limits) = match inv.args.as_slice() {
        [node, bind] => (node.clone(), bind.clone(), Limits::default()),
        [node, bind, t] if t == "--tunnel" => {
            (node.clone(), bind.clone(), Limits::through_tunnel())
        }
        _ => return 2,
    };
    let mut stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    crate::launcher::stepd::run_process(
        &node,
        &bind,
        limits,
        &mut stdin,
        &mut StdoutThenNull(&mut out),
        Box::new(std::io::stderr()),
    )
}

/// `bai-slurm __task-prolog WORDING PROLOG PROGRAM ARGS...`: a task that runs its
/// `--task-prolog` first (see `launcher::task_scripts::task_prolog_then_exec`).
pub fn task_prolog(inv: &mut Invocation<'_>) -> i32 {
    crate::launcher::task_scripts::task_prolog_then_exec(&inv.args)
}

/// stdout until the first line is out, then /dev/null in its place (fd 1 itself), so the
/// step server and its tasks hold no pipe of whoever started it.
struct StdoutThenNull<'a>(&'a mut std::io::StdoutLock<'static>);

impl std::io::Write for StdoutThenNull<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()?;
        let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
        use std::os::fd::AsRawFd;
        // SAFETY: dup2(2) onto fd 1, which this process owns; `null` closes after.
        if unsafe { libc::dup2(null.as_raw_fd(), 1) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}
