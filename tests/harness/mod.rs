//! A private local cluster for one test: the Slurm command links in a temporary bin
//! directory (pointing at the freshly built binary), its own state directory and config,
//! and helpers to run commands and wait for jobs. Every test gets its own queue runner.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const COMMANDS: [&str; 8] = [
    "sbatch", "squeue", "scancel", "srun", "salloc", "sinfo", "sacct", "scontrol",
];

pub struct Cluster {
    pub dir: tempfile::TempDir,
    pub bin: PathBuf,
    pub work: PathBuf,
    pub state: PathBuf,
    pub env: BTreeMap<String, String>,
}

/// What a command printed and returned.
#[derive(Debug, Clone)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            code: o.status.code().unwrap_or(-1),
        }
    }
}

impl Run {
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(self.code, 0, "command failed: {self:?}");
        self
    }
}

impl Cluster {
    /// A cluster with `cpus` CPUs and `memory_mb` of memory, KillWait `kill_wait` seconds.
    pub fn new(cpus: u32, memory_mb: u64, kill_wait: u32) -> Cluster {
        Cluster::with_config(cpus, memory_mb, kill_wait, "")
    }

    /// Like [`Cluster::new`], with more TOML appended to its `[local]` table (and after it).
    pub fn with_config(cpus: u32, memory_mb: u64, kill_wait: u32, extra: &str) -> Cluster {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        let work = dir.path().join("work");
        let state = dir.path().join("state");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_bai-slurm"));
        let out = Command::new(&exe)
            .args(["install-links", "--links-only"])
            .arg(&bin)
            .output()
            .expect("install-links");
        assert!(out.status.success(), "install-links: {out:?}");
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "cluster_name = \"testcluster\"\n[local]\nnode_name = \"node01\"\ncpus = {cpus}\nmemory_mb = {memory_mb}\nkill_wait = {kill_wait}\nidle_exit = 20\n{extra}"
            ),
        )
        .unwrap();
        let mut env = BTreeMap::new();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        env.insert("PATH".to_string(), path);
        env.insert("HOME".to_string(), dir.path().display().to_string());
        env.insert(
            "BAI_SLURM_SYSTEM_CONFIG".to_string(),
            dir.path().join("no-system.toml").display().to_string(),
        );
        env.insert("BAI_SLURM_CONFIG".to_string(), config.display().to_string());
        env.insert(
            "BAI_SLURM_STATE_DIR".to_string(),
            state.display().to_string(),
        );
        env.insert("TZ".to_string(), "UTC".to_string());
        env.insert("LANG".to_string(), "C".to_string());
        Cluster {
            dir,
            bin,
            work,
            state,
            env,
        }
    }

    pub fn cmd(&self, name: &str) -> Command {
        let mut c = Command::new(self.bin.join(name));
        c.env_clear()
            .envs(&self.env)
            .current_dir(&self.work)
            .stdin(Stdio::null());
        c
    }

    /// `bai-slurm <args>` with this cluster's environment, in the work directory.
    pub fn tool(&self, args: &[&str]) -> Run {
        Command::new(env!("CARGO_BIN_EXE_bai-slurm"))
            .args(args)
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.work)
            .stdin(Stdio::null())
            .output()
            .expect("spawn")
            .into()
    }

    /// Runs a Slurm command through its link, in the work directory.
    pub fn run(&self, name: &str, args: &[&str]) -> Run {
        self.cmd(name).args(args).output().expect("spawn").into()
    }

    pub fn run_with_stdin(&self, name: &str, args: &[&str], stdin: &[u8]) -> Run {
        let mut child = self
            .cmd(name)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap().into()
    }

    pub fn write_script(&self, name: &str, body: &str) -> PathBuf {
        let p = self.work.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    /// Submits with `--parsable` and returns the job id.
    #[track_caller]
    pub fn submit(&self, args: &[&str]) -> u32 {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let r = self.run("sbatch", &all);
        assert_eq!(r.code, 0, "sbatch {args:?}: {r:?}");
        r.stdout
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("sbatch printed {:?}", r.stdout))
    }

    /// `sacct -P -n -o JobID,State,ExitCode -j <id>`: (id, state, exit) rows. The window
    /// ends a minute ahead: by default it ends now, and the database (like slurmdbd) only
    /// returns jobs submitted before its end, so a job from this very second would not show.
    pub fn acct(&self, job: &str) -> Vec<(String, String, String)> {
        let r = self.run(
            "sacct",
            &[
                "-P",
                "-n",
                "-o",
                "JobID,State,ExitCode",
                "-E",
                "now+60",
                "-j",
                job,
            ],
        );
        r.stdout
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split('|').collect();
                (f.len() == 3).then(|| (f[0].to_string(), f[1].to_string(), f[2].to_string()))
            })
            .collect()
    }

    /// The job's own row (not its steps).
    pub fn job_row(&self, job: &str) -> Option<(String, String, String)> {
        self.acct(job).into_iter().find(|(id, _, _)| id == job)
    }

    /// Waits until every row of `job` (and of its array tasks) is in a finished state.
    #[track_caller]
    pub fn wait_done(&self, job: &str, timeout: Duration) -> Vec<(String, String, String)> {
        let start = Instant::now();
        loop {
            let rows = self.acct(job);
            let finished = |s: &str| {
                !(s.starts_with("PENDING")
                    || s.starts_with("RUNNING")
                    || s.starts_with("REQUEUED")
                    || s.starts_with("SUSPENDED"))
            };
            if !rows.is_empty() && rows.iter().all(|(_, s, _)| finished(s)) {
                return rows;
            }
            assert!(
                start.elapsed() < timeout,
                "job {job} not done after {timeout:?}: {rows:?}\nrunner log:\n{}",
                self.runner_log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits until `job`'s own row is in `state`.
    #[track_caller]
    pub fn wait_state(&self, job: &str, state: &str, timeout: Duration) {
        let start = Instant::now();
        loop {
            if let Some((_, s, _)) = self.job_row(job)
                && s == state
            {
                return;
            }
            assert!(
                start.elapsed() < timeout,
                "job {job} never {state}: {:?}\n{}",
                self.acct(job),
                self.runner_log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn runner_log(&self) -> String {
        std::fs::read_to_string(self.state.join("runner.log")).unwrap_or_default()
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.work.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.work.join(rel)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Leave nothing running behind: cancel what is left, stop the runner.
        let _ = self.cmd("scancel").args(["-u", &whoami()]).output();
        if let Ok(pids) = std::fs::read_dir("/proc") {
            for p in pids.flatten() {
                let Ok(pid) = p.file_name().to_string_lossy().parse::<i32>() else {
                    continue;
                };
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let cmdline = String::from_utf8_lossy(&cmdline);
                if cmdline.contains("__local-runner")
                    && cmdline.contains(&*self.state.to_string_lossy())
                {
                    // SAFETY: plain kill(2) of a process this test started.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                }
            }
        }
    }
}

pub fn whoami() -> String {
    nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_else(|| nix::unistd::getuid().to_string())
}

pub fn uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

pub fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A private copy of the freshly built binary at `to`, made by `cp` rather than in this
/// process: a write descriptor of ours, inherited by another test thread's fork in the
/// moment before its exec, would make running the copy fail with ETXTBSY.
pub fn copy_program(to: &Path) {
    let status = Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_bai-slurm"))
        .arg(to)
        .status()
        .expect("cp");
    assert!(status.success(), "cp of the binary to {}", to.display());
}
