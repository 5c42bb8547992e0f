//! Interactive work on a REAL Backend.AI stack (23.09: `ci/backendai/up.sh`, or 26.9:
//! `ci/backendai26/up.sh`; `./scripts/test.sh` runs these against each): `salloc` with a
//! command that runs `srun` steps from the login node in the allocation's containers,
//! `salloc -N2` reaching both containers, `srun` outside a job as a blocking job, and
//! `srun --pty` on a real terminal (util-linux `script` gives srun one). The login node
//! reaches the containers through the manager's `tcpproxy` websocket. Without the stack
//! these tests FAIL, saying how to start it.

mod stack;
mod support;

use bai_slurm::backend::backendai::client::{Client, ClientError, Settings};
use stack::{HOW, vfolder};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::terminal::{OnTerminal, cooked};

fn var(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("{name} is not set; {HOW}"),
    }
}

/// A login node of the stack's normal user: config, command links, state directory.
struct Site {
    home: PathBuf,
    bin: PathBuf,
}

fn site() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| {
        let settings =
            Settings::from_env(|k| std::env::var(k).ok()).unwrap_or_else(|| panic!("{HOW}"));
        let client = Client::new(settings).expect("settings");
        if let Err(e @ ClientError::Unreachable { .. }) = client.server_info() {
            panic!("no Backend.AI manager answers ({e}); {HOW}");
        }
        // This build of the launcher, in a tools vfolder of these tests.
        let tools = vfolder(&client, "bai-slurm-ia-tools");
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_bai-slurm"));
        let tmp = tools.join(format!(".bai-slurm.{}", std::process::id()));
        std::fs::copy(&exe, &tmp).expect("copy the launcher into the tools vfolder");
        std::fs::rename(&tmp, tools.join("bai-slurm")).expect("install the launcher");
        let home = std::env::temp_dir().join(format!("bai-slurm-ia-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let config_dir = home.join(".config/bai-slurm");
        std::fs::create_dir_all(&config_dir).unwrap();
        std::fs::write(
            config_dir.join("config.toml"),
            format!(
                r#"cluster_name = "bai"
[backendai]
launcher_vfolder = "bai-slurm-ia-tools"
launcher_dir = "/opt/bai-slurm"
cluster_mode = "single-node"
kill_wait = 5
[[partitions]]
name = "batch"
resource_group = "{}"
default_image = "{}"
default = true
"#,
                std::env::var("BAI_SCALING_GROUP").unwrap_or_else(|_| "default".into()),
                var("BAI_IMAGE"),
            ),
        )
        .unwrap();
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for c in [
            "sbatch",
            "squeue",
            "srun",
            "salloc",
            "sacct",
            "scancel",
            "bai-slurm",
        ] {
            std::os::unix::fs::symlink(&exe, bin.join(c)).unwrap();
        }
        Site { home, bin }
    })
}

#[derive(Debug)]
struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

impl Site {
    fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .current_dir(&self.home)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env("USER", "root")
            .env("SHELL", "/bin/bash")
            .env("XDG_STATE_HOME", self.home.join("state"))
            .env("BAI_SLURM_SYSTEM_CONFIG", self.home.join("no-site-config"))
            .env("BACKEND_ENDPOINT", var("BACKEND_ENDPOINT"))
            .env("BACKEND_ACCESS_KEY", var("BACKEND_ACCESS_KEY"))
            .env("BACKEND_SECRET_KEY", var("BACKEND_SECRET_KEY"))
            .env("BACKEND_DOMAIN", "default")
            .env("BACKEND_GROUP", "default");
        // Why a tunnel failed, in the failing command's stderr, when asked for.
        if let Some(v) = std::env::var_os("BAI_SLURM_TUNNEL_DEBUG") {
            c.env("BAI_SLURM_TUNNEL_DEBUG", v);
        }
        c
    }

    fn run(&self, cmd: &str, args: &[&str]) -> Run {
        let out = self
            .command(&self.bin.join(cmd).display().to_string(), args)
            .output()
            .expect("run a command");
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }

    /// Runs `prog args` and sends it each of `signals` once it says it waits for its
    /// allocation (again after each): its exit status, its stderr and the jobs it waited for.
    fn signal_while_queued(
        &self,
        prog: &str,
        args: &[&str],
        signals: &[i32],
    ) -> (i32, String, Vec<String>) {
        use std::io::BufRead;
        let mut child = self
            .command(&self.bin.join(prog).display().to_string(), args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start the command");
        let mut lines = std::io::BufReader::new(child.stderr.take().expect("stderr"));
        let (mut stderr, mut ids) = (String::new(), Vec::new());
        let marker = format!("{prog}: job ");
        for &sig in signals {
            loop {
                let mut line = String::new();
                let n = lines.read_line(&mut line).expect("read stderr");
                assert!(n > 0, "{prog} ended before it waited: {stderr}");
                stderr.push_str(&line);
                if let Some(id) = line
                    .strip_prefix(&marker)
                    .and_then(|l| l.strip_suffix(" queued and waiting for resources\n"))
                {
                    ids.push(id.to_string());
                    break;
                }
            }
            // SAFETY: kill(2) on our own child.
            unsafe { libc::kill(child.id() as i32, sig) };
        }
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut lines, &mut rest).expect("read stderr");
        stderr.push_str(&rest);
        let code = child.wait().expect("wait").code().unwrap_or(-1);
        (code, stderr, ids)
    }

    /// `sacct -X -P -n -o state,exitcode` of `job` once it is in a final state.
    fn ended(&self, job: &str) -> String {
        let t0 = Instant::now();
        loop {
            let r = self.run(
                "sacct",
                &["-X", "-P", "-n", "-j", job, "-o", "state,exitcode"],
            );
            let row = r.stdout.trim().to_string();
            // (a session on its way out shows COMPLETING first)
            let finished = [
                "COMPLETED",
                "FAILED",
                "CANCELLED",
                "TIMEOUT",
                "NODE_FAIL",
                "OUT_OF_MEMORY",
            ];
            if finished.iter().any(|s| row.starts_with(s)) {
                return row;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "job {job} did not end: {r:?}"
            );
            std::thread::sleep(Duration::from_millis(700));
        }
    }

    /// The steps sacct shows of an ended `job`: `jobid|name|state|exitcode|ntasks|nodes`.
    fn steps(&self, job: &str) -> Vec<String> {
        let r = self.run(
            "sacct",
            &[
                "-P",
                "-n",
                "-j",
                job,
                "-o",
                "jobid,jobname,state,exitcode,ntasks,nodelist",
            ],
        );
        assert_eq!(r.code, 0, "{r:?}");
        let prefix = format!("{job}.");
        r.stdout
            .lines()
            .filter(|l| l.starts_with(&prefix))
            .map(str::to_string)
            .collect()
    }
}

/// The tests share the stack; one that fills it has it alone.
static ALONE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// At most this many tests use the stack at once: each allocation's readiness is asked
/// through the manager's websocket, and a 23.09 manager with eight at once answered
/// upgrades after 20 s or with 500s (seen in CI).
const AT_ONCE: usize = 2;
static USING: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// A share of the stack: one of [`AT_ONCE`], and not while a test has it alone.
struct Share(#[allow(dead_code)] std::sync::RwLockReadGuard<'static, ()>);

impl Drop for Share {
    fn drop(&mut self) {
        let (count, freed) = &USING;
        *count.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        freed.notify_one();
    }
}

fn shared() -> Share {
    let (count, freed) = &USING;
    let mut n = count.lock().unwrap_or_else(|e| e.into_inner());
    while *n >= AT_ONCE {
        n = freed.wait(n).unwrap_or_else(|e| e.into_inner());
    }
    *n += 1;
    drop(n);
    Share(ALONE.read().unwrap_or_else(|e| e.into_inner()))
}

/// The job id in `salloc: Granted job allocation N` (or srun's `job N queued`).
fn granted(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("salloc: Granted job allocation "))
        .unwrap_or_else(|| panic!("no grant in {stderr:?}"))
        .trim()
        .to_string()
}

#[test]
fn salloc_runs_its_command_and_its_steps_in_the_container() {
    let _shared = shared();
    let s = site();
    let r = s.run(
        "salloc",
        &[
            "-t",
            "5",
            "bash",
            "-c",
            "echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NODELIST; srun hostname; \
             sacct -n -P -j $SLURM_JOB_ID -o jobid,jobname,state,exitcode; \
             srun -l bash -c 'echo rank $SLURM_PROCID of $SLURM_JOB_ID on $SLURMD_NODENAME'; exit 3",
        ],
    );
    let id = granted(&r.stderr);
    assert_eq!(r.code, 3, "{r:?}");
    assert_eq!(
        r.stdout,
        // sacct -j while the allocation runs: its steps so far, as slurmdbd has them
        format!(
            "job={id} nodes=main1\nmain1\n{id}|interactive|RUNNING|0:0\n\
             {id}.0|hostname|COMPLETED|0:0\n0: rank 0 of {id} on main1\n"
        ),
        "{r:?}"
    );
    assert!(
        r.stderr
            .ends_with(&format!("salloc: Relinquishing job allocation {id}\n")),
        "{r:?}"
    );
    // The allocation ended with its command's exit status, as slurmctld records it.
    assert_eq!(s.ended(&id), "FAILED|3:0");
    // Its steps, as node 0's launcher logged them.
    assert_eq!(
        s.steps(&id),
        [
            format!("{id}.0|hostname|COMPLETED|0:0|1|main1"),
            format!("{id}.1|bash|COMPLETED|0:0|1|main1"),
        ]
    );
}

#[test]
fn salloc_n2_reaches_both_containers() {
    let _shared = shared();
    let s = site();
    let r = s.run(
        "salloc",
        &[
            "-N",
            "2",
            "-t",
            "5",
            "srun",
            "-l",
            "bash",
            "-c",
            "echo $SLURM_NODEID $(hostname)",
        ],
    );
    let id = granted(&r.stderr);
    assert_eq!(r.code, 0, "{r:?}");
    let mut lines: Vec<&str> = r.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["0: 0 main1", "1: 1 sub1"], "{r:?}");
    assert_eq!(s.ended(&id), "COMPLETED|0:0");
    assert_eq!(
        s.steps(&id),
        [format!("{id}.0|bash|COMPLETED|0:0|2|main1,sub1")]
    );
}

#[test]
fn srun_outside_a_job_runs_a_blocking_job() {
    let _shared = shared();
    let s = site();
    let r = s.run(
        "srun",
        &[
            "-t",
            "5",
            "bash",
            "-c",
            "echo hi from $(hostname) ${BACKEND_SECRET_KEY:-without the keypair}; exit 4",
        ],
    );
    assert_eq!(r.code, 4, "{r:?}");
    // The login node's settings stay on it, as they do for a batch job.
    assert_eq!(r.stdout, "hi from main1 without the keypair\n", "{r:?}");
    assert!(
        r.stderr
            .ends_with("srun: error: main1: task 0: Exited with exit code 4\n"),
        "{r:?}"
    );
}

#[test]
fn srun_pty_gives_the_task_a_terminal() {
    let _shared = shared();
    let s = site();
    // util-linux `script` runs srun on a pseudo-terminal and returns its exit status.
    let srun = s.bin.join("srun").display().to_string();
    let out = s
        .command(
            "script",
            &[
                "-q",
                "-e",
                "-c",
                &format!(
                    "{srun} -t 5 --pty bash -c 'test -t 0 && test -t 1 && echo on-a-tty; exit 3'"
                ),
                "/dev/null",
            ],
        )
        .output()
        .expect("script(1) from util-linux");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("on-a-tty"), "{stdout}");
}

#[test]
fn scancel_of_the_allocation_is_told_to_salloc() {
    use std::io::{BufRead, BufReader, Read};
    let _shared = shared();
    let s = site();
    let mut child = s
        .command(
            &s.bin.join("salloc").display().to_string(),
            // The command outlasts the cancel: a loaded 23.09 manager kept the cancelled
            // session TERMINATING for over 20 s once (a full suite run).
            &["-t", "5", "bash", "-c", "sleep 60; echo command-ended"],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("salloc");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let id = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "salloc ended: {said}"
        );
        said.push_str(&line);
        if let Some(id) = line.strip_prefix("salloc: Granted job allocation ") {
            break id.trim().to_string();
        }
    };
    let r = s.run("scancel", &[&id]);
    assert_eq!(r.code, 0, "{r:?}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    // As Slurm's salloc: said once, the command goes on, its status is salloc's, and the
    // allocation is not relinquished (it is over).
    assert_eq!(
        rest,
        format!("salloc: Job allocation {id} has been revoked.\n")
    );
    assert_eq!(stdout, "command-ended\n");
    assert_eq!(status.code(), Some(0));
    assert!(s.ended(&id).starts_with("CANCELLED"), "{}", s.ended(&id));
}

#[test]
fn srun_pty_bash_is_a_shell_in_the_container() {
    let _shared = shared();
    let s = site();
    let mut cmd = s.command(&s.bin.join("srun").display().to_string(), &[]);
    cmd.args(["-t", "5", "--pty", "bash", "--norc", "-i"]);
    let t0 = Instant::now();
    let mut t = OnTerminal::start(cmd, 24, 80).with_patience(Duration::from_secs(240));
    // (quoted apart, so that the terminal's echo of this line is not taken for the prompt)
    t.send(b"PS1='re''ady> '\n");
    t.expect("ready> ");
    // Printed, not asserted: the time to a prompt depends on the stack and its load.
    println!(
        "srun --pty bash: a prompt after {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    t.send(b"echo job=$SLURM_JOB_ID on $(hostname) cols=$(tput cols 2>/dev/null || stty size)\n");
    t.expect("on main1");
    // Ctrl-C ends what runs in the shell, not the shell (the key reaches the container raw).
    t.send(b"sleep 100; echo after-sleep\n");
    // (the line's echo: the prompt expected next is the one after the Ctrl-C)
    t.expect("echo after-sleep");
    std::thread::sleep(Duration::from_secs(2));
    t.send(b"\x03");
    t.expect("ready> ");
    t.send(b"exit 3\n");
    let (code, shown, slave) = t.finish();
    assert_eq!(code, 3, "{shown:?}");
    // (the typed line is echoed; its second command never printed a line of its own)
    assert!(!shown.contains("\nafter-sleep\r\n"), "{shown:?}");
    assert!(
        shown.contains("srun: error: main1: task 0: Exited with exit code 3"),
        "{shown:?}"
    );
    assert!(cooked(&slave), "srun left its terminal in raw mode");
    // (the terminal echoes the keys typed before the shell ran: the answer is the line
    // that starts with `job=` and a number)
    let id: String = shown
        .lines()
        .find_map(|l| l.strip_prefix("job="))
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
        .unwrap_or_default();
    assert!(!id.is_empty(), "{shown:?}");
    assert_eq!(s.ended(&id), "FAILED|3:0");
    assert_eq!(s.steps(&id), [format!("{id}.0|bash|FAILED|3:0|1|main1")]);
}

/// `--immediate` on a full stack (a job holding the agent with `--exclusive`): srun's bare
/// `-I` gives up when the manager has not placed the session within its patience, salloc's
/// `--immediate=3` after three seconds; each says so as Slurm does, leaves with 1 or
/// SLURM_EXIT_IMMEDIATE, and its session is cancelled (nothing left pending). A signal
/// while they wait cancels the pending session too (srun's SIGCONT asks again instead).
#[test]
fn a_full_stack_makes_salloc_and_srun_wait_until_given_up_or_signalled() {
    let _alone = ALONE.write().unwrap_or_else(|e| e.into_inner());
    let s = site();
    let r = s.run(
        "sbatch",
        &[
            "--parsable",
            "--exclusive",
            "-t",
            "5",
            "--wrap",
            "sleep 240",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let filler = r.stdout.trim().to_string();
    let t0 = Instant::now();
    loop {
        let q = s.run("squeue", &["-h", "-j", &filler, "-o", "%T"]);
        if q.stdout.trim() == "RUNNING" {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(180),
            "the filler job {filler} did not start: {q:?}"
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    let queued = |stderr: &str, prog: &str| -> String {
        stderr
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{prog}: job ")))
            .and_then(|l| l.strip_suffix(" queued and waiting for resources"))
            .unwrap_or_else(|| panic!("no queued line in {stderr:?}"))
            .to_string()
    };
    let r = s.run("srun", &["-I", "-t", "1", "true"]);
    let id = queued(&r.stderr, "srun");
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            1,
            "",
            format!(
                "srun: job {id} queued and waiting for resources\n\
                 srun: error: Unable to allocate resources: Requested nodes are busy\n"
            )
            .as_str()
        )
    );
    assert!(s.ended(&id).starts_with("CANCELLED"), "{}", s.ended(&id));
    let mut salloc = s.command(
        &s.bin.join("salloc").display().to_string(),
        &["--immediate=3", "-t", "1", "true"],
    );
    let out = salloc
        .env("SLURM_EXIT_IMMEDIATE", "7")
        .output()
        .expect("salloc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let id = queued(&stderr, "salloc");
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "salloc: Pending job allocation {id}\n\
             salloc: job {id} queued and waiting for resources\n\
             salloc: error: Unable to allocate resources: Connection timed out\n"
        )
    );
    assert!(s.ended(&id).starts_with("CANCELLED"), "{}", s.ended(&id));
    // A signal while they wait: the pending session is cancelled, in Slurm's words.
    let (code, stderr, ids) = s.signal_while_queued("srun", &["-t", "1", "true"], &[libc::SIGINT]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            1,
            format!(
                "srun: job {0} queued and waiting for resources\n\
                 srun: Job allocation {0} has been revoked\n\
                 srun: Force Terminated JobId={0}\n",
                ids[0]
            )
            .as_str()
        )
    );
    assert_eq!(s.ended(&ids[0]), "CANCELLED by 0|0:0");
    let (code, stderr, ids) =
        s.signal_while_queued("salloc", &["-t", "1", "true"], &[libc::SIGTERM]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            1,
            format!(
                "salloc: Pending job allocation {0}\n\
                 salloc: job {0} queued and waiting for resources\n\
                 salloc: Job allocation {0} has been revoked.\n\
                 salloc: Job aborted due to signal\n",
                ids[0]
            )
            .as_str()
        )
    );
    assert_eq!(s.ended(&ids[0]), "CANCELLED by 0|0:0");
    // srun's SIGCONT: the request starts over as a new job; the first is cancelled.
    let (code, stderr, ids) =
        s.signal_while_queued("srun", &["-t", "1", "true"], &[libc::SIGCONT, libc::SIGINT]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(ids.len(), 2, "{stderr}");
    assert_ne!(ids[0], ids[1], "{stderr}");
    for id in &ids {
        assert_eq!(s.ended(id), "CANCELLED by 0|0:0", "{stderr}");
    }
    let r = s.run("scancel", &[&filler]);
    assert_eq!(r.code, 0, "{r:?}");
    s.ended(&filler);
}

/// An allocation that reaches its time limit under salloc's command: salloc says so in
/// Slurm's words, the command goes on to its end and gives salloc its status, nothing is
/// relinquished, and sacct has the job TIMEOUT (as the live Slurm 22.05 and 24.11 do).
#[test]
fn salloc_is_told_when_its_time_limit_revokes_the_allocation() {
    let _shared = shared();
    let s = site();
    let r = s.run(
        "salloc",
        &["-t", "1", "bash", "-c", "sleep 100; echo command-ended"],
    );
    let id = granted(&r.stderr);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "command-ended\n", "{r:?}");
    assert!(
        r.stderr.ends_with(&format!(
            "salloc: Granted job allocation {id}\n\
             salloc: Job {id} has exceeded its time limit and its allocation has been revoked.\n"
        )),
        "{r:?}"
    );
    assert_eq!(s.ended(&id), "TIMEOUT|0:0");
}
