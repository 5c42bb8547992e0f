//! The Slurm commands on the Backend.AI backend, against a REAL Backend.AI stack (manager,
//! Docker agent, storage-proxy): 23.09 (`ci/backendai/up.sh`) or 26.9
//! (`ci/backendai26/up.sh`); `./scripts/test.sh` starts both and runs these tests against
//! each. Jobs run in real containers of the stack's image; their
//! output lands in a real vfolder mounted at the same path as on this host; the launcher
//! reaches the containers through a tools vfolder, as an operator would deploy it.
//!
//! Each keypair (the normal user's BACKEND_*, the superadmin's BAI_ADMIN_*) gets a "site":
//! its two vfolders, a config file, the command links and a state directory. Without the
//! stack these tests FAIL, saying how to start it: they never skip.

mod stack;

use bai_slurm::backend::backendai::client::{Client, ClientError, Settings};
use serde_json::{Value, json};
use stack::{HOW, vfolder};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const COMMANDS: [&str; 9] = [
    "sbatch",
    "squeue",
    "scancel",
    "srun",
    "salloc",
    "sinfo",
    "sacct",
    "scontrol",
    "bai-slurm",
];

fn var(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("{name} is not set; {HOW}"),
    }
}

/// One keypair's view of the stack, set up once per test process.
struct Site {
    access_key: String,
    secret_key: String,
    /// Host path of the work vfolder (mounted at the same path in job containers).
    work_root: PathBuf,
    home: PathBuf,
    bin: PathBuf,
    state: PathBuf,
    counter: AtomicU32,
    /// The Unix user (uid, gid, name) its commands run as; None: this process's (root).
    unix: Option<(u32, u32, String)>,
}

fn user() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| Site::new("user", var("BACKEND_ACCESS_KEY"), var("BACKEND_SECRET_KEY")))
}

/// The user's keypair on a login node where alice (uid 1001, a real Unix user the README's
/// test command makes) runs the commands: root is somebody else to her jobs.
fn alice() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| {
        let site = Site::new(
            "alice",
            var("BACKEND_ACCESS_KEY"),
            var("BACKEND_SECRET_KEY"),
        );
        let who = nix::unistd::User::from_name("alice")
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("no Unix user alice; {HOW}"));
        let (uid, gid) = (who.uid.as_raw(), who.gid.as_raw());
        let chown = Command::new("chown")
            .args(["-R", &format!("{uid}:{gid}")])
            .arg(&site.home)
            .status()
            .expect("chown");
        assert!(chown.success(), "chown -R {}", site.home.display());
        Site {
            unix: Some((uid, gid, "alice".into())),
            ..site
        }
    })
}

fn admin() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| {
        Site::new(
            "admin",
            var("BAI_ADMIN_ACCESS_KEY"),
            var("BAI_ADMIN_SECRET_KEY"),
        )
    })
}

impl Site {
    fn new(kind: &str, access_key: String, secret_key: String) -> Site {
        let settings = Settings {
            access_key: access_key.clone(),
            secret_key: secret_key.clone(),
            ..Settings::from_env(|k| std::env::var(k).ok()).unwrap_or_else(|| panic!("{HOW}"))
        };
        let client = Client::new(settings).expect("settings");
        if let Err(e @ ClientError::Unreachable { .. }) = client.server_info() {
            panic!("no Backend.AI manager answers ({e}); {HOW}");
        }
        let tools = vfolder(&client, "bai-slurm-tools");
        let work_root = vfolder(&client, "bai-slurm-work");
        // The launcher inside the containers: this build (Debian 12's glibc, as the image).
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_bai-slurm"));
        let tmp = tools.join(format!(".bai-slurm.{kind}.{}", std::process::id()));
        std::fs::copy(&exe, &tmp).expect("copy the launcher into the tools vfolder");
        std::fs::rename(&tmp, tools.join("bai-slurm")).expect("install the launcher");
        set_mode(&work_root, 0o777);

        let home = std::env::temp_dir().join(format!("bai-slurm-it-{kind}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let config_dir = home.join(".config/bai-slurm");
        std::fs::create_dir_all(&config_dir).unwrap();
        std::fs::write(
            config_dir.join("config.toml"),
            format!(
                r#"cluster_name = "bai"
[backendai]
launcher_vfolder = "bai-slurm-tools"
launcher_dir = "/opt/bai-slurm"
cluster_mode = "single-node"
kill_wait = 5
[[backendai.storage]]
path = "{}"
vfolder = "bai-slurm-work"
[[partitions]]
name = "batch"
resource_group = "{}"
default_image = "{}"
default = true
"#,
                work_root.display(),
                std::env::var("BAI_SCALING_GROUP").unwrap_or_else(|_| "default".into()),
                var("BAI_IMAGE"),
            ),
        )
        .unwrap();
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for c in COMMANDS {
            std::os::unix::fs::symlink(&exe, bin.join(c)).unwrap();
        }
        Site {
            access_key,
            secret_key,
            work_root,
            state: home.join("state"),
            home,
            bin,
            counter: AtomicU32::new(0),
            unix: None,
        }
    }

    /// A client with this site's keypair.
    fn client(&self) -> Client {
        let settings = Settings {
            access_key: self.access_key.clone(),
            secret_key: self.secret_key.clone(),
            ..Settings::from_env(|k| std::env::var(k).ok()).unwrap_or_else(|| panic!("{HOW}"))
        };
        Client::new(settings).expect("settings")
    }

    /// A fresh directory in the work vfolder, writable by the container's user.
    fn workdir(&self, name: &str) -> PathBuf {
        let d = self.work_root.join(format!(
            "{name}-{}-{}",
            std::process::id(),
            self.counter.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&d).unwrap();
        set_mode(&d, 0o777);
        d
    }

    fn command(&self, dir: &Path, cmd: &str, args: &[&str]) -> Command {
        let mut c = Command::new(self.bin.join(cmd));
        c.args(args)
            .current_dir(dir)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .env(
                "USER",
                self.unix
                    .as_ref()
                    .map_or("root", |(_, _, name)| name.as_str()),
            )
            .env("XDG_STATE_HOME", &self.state)
            .env("BAI_SLURM_SYSTEM_CONFIG", self.home.join("no-site-config"))
            .env("BACKEND_ENDPOINT", var("BACKEND_ENDPOINT"))
            .env("BACKEND_ACCESS_KEY", &self.access_key)
            .env("BACKEND_SECRET_KEY", &self.secret_key)
            .env("BACKEND_DOMAIN", "default")
            .env("BACKEND_GROUP", "default");
        if let Some((uid, gid, _)) = &self.unix {
            use std::os::unix::process::CommandExt;
            c.uid(*uid).gid(*gid);
        }
        c
    }

    /// Runs a command; returns what it printed, its exit code and the HTTP requests it made.
    fn run(&self, dir: &Path, cmd: &str, args: &[&str]) -> Run {
        self.run_with(dir, cmd, args, &[])
    }

    fn run_with(&self, dir: &Path, cmd: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let log = self.home.join(format!(
            "requests-{}",
            self.counter.fetch_add(1, Ordering::SeqCst)
        ));
        let mut c = self.command(dir, cmd, args);
        c.env("BAI_SLURM_REQUEST_LOG", &log);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().expect("run a command");
        let requests = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        let _ = std::fs::remove_file(&log);
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
            requests,
        }
    }

    fn sbatch(&self, dir: &Path, args: &[&str]) -> String {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let r = self.run(dir, "sbatch", &all);
        assert_eq!(r.code, 0, "sbatch {args:?}: {r:?}");
        r.stdout.trim().to_string()
    }

    /// `sacct -X -P -n -o <fields>` rows of `job`, once `done` says so.
    fn wait_sacct(
        &self,
        dir: &Path,
        job: &str,
        fields: &str,
        timeout: Duration,
        done: impl Fn(&[Vec<String>]) -> bool,
    ) -> Vec<Vec<String>> {
        self.wait_sacct_with(dir, job, fields, &[], timeout, done)
    }

    /// [`Site::wait_sacct`] from a login node that `env` configures (a site with a job
    /// directory, whose views act on what they find there).
    fn wait_sacct_with(
        &self,
        dir: &Path,
        job: &str,
        fields: &str,
        env: &[(&str, &str)],
        timeout: Duration,
        done: impl Fn(&[Vec<String>]) -> bool,
    ) -> Vec<Vec<String>> {
        let deadline = Instant::now() + timeout;
        loop {
            let args = ["-X", "-P", "-n", "-j", job, "-o", fields];
            let r = self.run_with(dir, "sacct", &args, env);
            assert_eq!(r.code, 0, "{r:?}");
            let rows: Vec<Vec<String>> = r
                .stdout
                .lines()
                .map(|l| l.split('|').map(str::to_string).collect())
                .collect();
            if !rows.is_empty() && done(&rows) {
                return rows;
            }
            assert!(
                Instant::now() < deadline,
                "job {job} did not get there in {timeout:?}: {rows:?}"
            );
            std::thread::sleep(Duration::from_millis(POLL_MS));
        }
    }

    /// Waits until every row of `job` has finished; returns `jobid|state|exitcode` rows.
    fn wait_finished(&self, dir: &Path, job: &str, timeout: Duration) -> Vec<Vec<String>> {
        self.wait_sacct(dir, job, "jobid,state,exitcode", timeout, |rows| {
            rows.iter()
                .all(|r| !matches!(r[1].as_str(), "PENDING" | "RUNNING" | "REQUEUED"))
        })
    }
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Cancels jobs when a test ends, passed or not, so no session outlives its test.
struct CancelOnDrop<'a> {
    site: &'a Site,
    dir: PathBuf,
    jobs: Vec<String>,
}

impl CancelOnDrop<'_> {
    /// `sbatch --parsable ARGS` with `env`; the job is cancelled when the test ends.
    fn sbatch_with(&mut self, args: &[&str], env: &[(&str, &str)]) -> String {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let r = self.site.run_with(&self.dir, "sbatch", &all, env);
        assert_eq!(r.code, 0, "sbatch {args:?}: {r:?}");
        let id = r.stdout.trim().to_string();
        self.jobs.push(id.clone());
        id
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if !self.jobs.is_empty() {
            let jobs: Vec<&str> = self.jobs.iter().map(String::as_str).collect();
            self.site.run(&self.dir, "scancel", &jobs);
        }
    }
}

#[derive(Debug)]
struct Run {
    stdout: String,
    stderr: String,
    code: i32,
    requests: Vec<String>,
}

fn count(requests: &[String], prefix: &str) -> usize {
    requests.iter().filter(|r| r.starts_with(prefix)).count()
}

const START: Duration = Duration::from_secs(300);
/// How long a wait for a job's state sleeps between looks. Each look is a view (a few
/// queries); a 23.09 manager kept busy by them misses its agent's heartbeats and stops
/// scheduling for a while (CI saw a suite run half again as long).
const POLL_MS: u64 = 1500;

/// The 500-session test runs alone: hundreds of pending sessions slow the manager's
/// scheduler down for everybody else on this two-CPU machine. So do the tests whose jobs
/// hold the agent's CPUs for a while (a 2-CPU job takes all of them, a `sleep 600` one of
/// them for minutes): the others' waits would count that time against them.
static EXCLUSIVE: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    EXCLUSIVE.read().unwrap_or_else(|e| e.into_inner())
}

/// A site that replaces Slurm 24.11 (`slurm_version = "24.11"`) on Backend.AI: a job's
/// `-c` is its TRES per task (TresPerTask, `SLURM_TRES_PER_TASK`, its steps' CPUs) as the
/// live 24.11 shows it (tests/scenarios/tres_per_task.24.11, job 3), `--tres-per-task=cpu=N`
/// gives the session N CPUs, what 24.11 refuses is refused, and the views speak 24.11.
#[test]
fn a_24_11_site_runs_its_jobs_as_24_11_does() {
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let site = user();
    let dir = site.workdir("v24");
    let env = [("BAI_SLURM_SLURM_VERSION", "24.11")];
    let run = |cmd: &str, args: &[&str]| site.run_with(&dir, cmd, args, &env);
    let sbatch = |args: &[&str]| {
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let r = run("sbatch", &all);
        assert_eq!(r.code, 0, "{r:?}");
        r.stdout.trim().to_string()
    };
    let show = "env | grep -E ^SLURM_\\(TRES_\\|CPUS_PER_TASK\\) | sort";
    let steps = sbatch(&[
        "-c",
        "2",
        "-o",
        "tpt-%j.out",
        "--wrap",
        &format!("srun -n 1 bash -c '{show}'; srun -n 1 -c 1 bash -c '{show}'"),
    ]);
    let per_task = sbatch(&["--tres-per-task=cpu=2", "--wrap", "nproc"]);
    let rows = site.wait_finished(&dir, &format!("{steps},{per_task}"), START);
    assert!(rows.iter().all(|r| r[1] == "COMPLETED"), "{rows:?}");
    let out = std::fs::read_to_string(dir.join(format!("tpt-{steps}.out"))).unwrap();
    assert_eq!(
        out,
        "SLURM_CPUS_PER_TASK=2\nSLURM_TRES_PER_TASK=cpu=2\n\
         SLURM_CPUS_PER_TASK=1\nSLURM_TRES_PER_TASK=cpu=1\n"
    );
    let r = run(
        "sacct",
        &["-n", "-P", "-j", &steps, "-o", "jobid,alloccpus,state"],
    );
    assert_eq!(
        r.stdout,
        format!(
            "{steps}|2|COMPLETED\n{steps}.batch|2|COMPLETED\n{steps}.0|2|COMPLETED\n{steps}.1|1|COMPLETED\n"
        ),
        "{r:?}"
    );
    // The session was made with the CPUs the text asks for: the job's container has them.
    let r = run("scontrol", &["show", "job", &per_task]);
    for field in ["NumCPUs=2 ", "TresPerTask=cpu=2\n", "ReqTRES=cpu=2,"] {
        assert!(r.stdout.contains(field), "{field}: {r:?}");
    }
    let nproc = std::fs::read_to_string(dir.join(format!("slurm-{per_task}.out"))).unwrap();
    assert_eq!(nproc.trim().parse::<u32>().ok(), Some(2), "{nproc:?}");
    // 24.11's refusals, before any request.
    let r = run("sbatch", &["--tres-per-task=mem=2", "--wrap", "true"]);
    assert_eq!(
        (r.stderr.as_str(), r.code, r.requests.len()),
        (
            "sbatch: fatal: Invalid TRES for --tres-per-task: mem\n",
            1,
            0
        ),
        "{r:?}"
    );
    // sacct --json is data_parser v0.0.42's.
    let r = run("sacct", &["--json", "-j", &per_task]);
    let json: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        json["meta"]["plugin"]["data_parser"], "data_parser/v0.0.42",
        "{r:?}"
    );
    assert_eq!(json["jobs"][0]["state"]["current"], json!(["COMPLETED"]));
    // Under the default 22.05 the option does not exist.
    let r = site.run(&dir, "sbatch", &["--tres-per-task=cpu=2", "--wrap", "true"]);
    assert_eq!(
        (r.stderr.as_str(), r.code),
        (
            "sbatch: unrecognized option '--tres-per-task=cpu=2'\n\
             Try \"sbatch --help\" for more information\n",
            255
        ),
        "{r:?}"
    );
}

#[test]
fn jobs_run_in_containers_and_sacct_shows_their_exit_codes() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("exit");
    let image = format!("--container-image={}", var("BAI_IMAGE"));
    let ok = site.sbatch(
        &dir,
        &[
            &image,
            "-J",
            "hello",
            "--wrap",
            "echo hello from $SLURM_JOB_NAME $SLURM_JOB_ID in $(pwd); echo oops >&2",
        ],
    );
    let three = site.sbatch(
        &dir,
        &["-o", "three-%j.log", "--wrap", "echo failing; exit 3"],
    );
    let rows = site.wait_finished(&dir, &format!("{ok},{three}"), START);
    let row = |id: &str| rows.iter().find(|r| r[0] == id).cloned().unwrap();
    assert_eq!(row(&ok)[1..], ["COMPLETED", "0:0"]);
    assert_eq!(row(&three)[1..], ["FAILED", "3:0"]);

    let out = std::fs::read_to_string(dir.join(format!("slurm-{ok}.out"))).unwrap();
    assert_eq!(
        out,
        format!("hello from hello {ok} in {}\noops\n", dir.display())
    );
    let out = std::fs::read_to_string(dir.join(format!("three-{three}.log"))).unwrap();
    assert_eq!(out, "failing\n");

    // sacct's batch step and scontrol's view agree with the job.
    let r = site.run(
        &dir,
        "sacct",
        &["-j", &three, "-P", "-n", "-o", "jobid,state,exitcode"],
    );
    assert_eq!(
        r.stdout,
        format!("{three}|FAILED|3:0\n{three}.batch|FAILED|3:0\n"),
        "{r:?}"
    );
}

#[test]
fn a_job_past_its_time_limit_ends_as_timeout() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("timeout");
    let id = site.sbatch(&dir, &["--time=1", "--wrap", "echo start; exec sleep 600"]);
    let rows = site.wait_finished(&dir, &id, Duration::from_secs(200));
    // sacct records a job the controller ended as 0:0, as slurmdbd does; scontrol shows
    // the signal.
    assert_eq!(rows[0][1..], ["TIMEOUT", "0:0"], "{rows:?}");
    let r = site.run(&dir, "scontrol", &["show", "job", &id]);
    assert!(
        r.stdout.contains("JobState=TIMEOUT Reason=TimeLimit"),
        "{r:?}"
    );
    assert!(r.stdout.contains(" ExitCode=0:15\n"), "{r:?}");
    let out = std::fs::read_to_string(dir.join(format!("slurm-{id}.out"))).unwrap();
    assert!(out.starts_with("start\n"), "{out}");
    assert!(out.contains(&format!("*** JOB {id} ON ")), "{out}");
    assert!(out.contains("DUE TO TIME LIMIT ***"), "{out}");
}

#[test]
fn scancel_cancels_pending_and_running_jobs() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("cancel");
    // Pending: --begin in an hour.
    let later = site.sbatch(&dir, &["--begin=now+1hour", "--wrap", "echo never"]);
    let r = site.run(&dir, "squeue", &["-h", "-j", &later, "-o", "%i %t %r"]);
    assert_eq!(r.stdout, format!("{later} PD BeginTime\n"), "{r:?}");
    // Running: squeue shows it while it runs.
    let running = site.sbatch(&dir, &["--wrap", "echo started; exec sleep 600"]);
    let _cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: vec![later.clone(), running.clone()],
    };
    let deadline = Instant::now() + START;
    loop {
        let r = site.run(&dir, "squeue", &["-h", "-j", &running, "-o", "%i %t"]);
        if r.stdout == format!("{running} R\n") {
            break;
        }
        assert!(Instant::now() < deadline, "never ran: {r:?}");
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    // Its launcher is asked once the session has run a few seconds (before, it is deleted).
    std::thread::sleep(Duration::from_secs(6));
    for id in [&later, &running] {
        let r = site.run(&dir, "scancel", &[id]);
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    }
    let rows = site.wait_finished(&dir, &format!("{later},{running}"), START);
    let row = |id: &str| rows.iter().find(|r| r[0] == id).cloned().unwrap();
    assert_eq!(row(&later)[1..], ["CANCELLED by 0", "0:0"]);
    assert_eq!(row(&running)[1..], ["CANCELLED by 0", "0:0"]);
    let r = site.run(&dir, "scontrol", &["show", "job", &running]);
    assert!(r.stdout.contains(" ExitCode=0:15\n"), "{r:?}");
    // The launcher ended it as slurmstepd does, and said so in the job's output.
    let out = std::fs::read_to_string(dir.join(format!("slurm-{running}.out"))).unwrap();
    assert!(out.starts_with("started\n"), "{out}");
    assert!(
        out.contains(&format!(": error: *** JOB {running} ON ")) && out.contains(" CANCELLED AT "),
        "{out}"
    );
    assert!(!dir.join(format!("slurm-{later}.out")).exists());
    // Cancelling again, or an unknown id: silent and 0, as real Slurm (goldens
    // scancel_completed, scancel_unknown); -v says why.
    let r = site.run(&dir, "scancel", &[&later]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let r = site.run(&dir, "scancel", &["-v", &later]);
    assert!(
        r.stderr.contains(&format!(
            "scancel: error: Kill job error on job id {later}: Job/step already completing or completed\n"
        )),
        "{r:?}"
    );
    let r = site.run(&dir, "scancel", &["12345"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
}

/// Signals reach the job's script through its launcher, as slurmstepd delivers them
/// (tests/scenarios/signals.scn on the local backend): `scancel -b -s USR1` to the batch
/// shell, `--signal=B:USR2@50` before the time limit, `scancel --signal=TERM --batch` with
/// slurmstepd's CANCELLED line, after which the script's trap decides how the job ends.
#[test]
fn signals_reach_the_script_in_its_container() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("signals");
    std::fs::write(
        dir.join("trap.sh"),
        "#!/bin/sh\n\
         trap 'echo got USR1' USR1\n\
         trap 'echo got USR2' USR2\n\
         trap 'echo got TERM; exit 9' TERM\n\
         echo ready\n\
         i=0; while [ $i -lt 100 ]; do sleep 1; i=$((i+1)); done\n\
         echo never\n",
    )
    .unwrap();
    let id = site.sbatch(
        &dir,
        &[
            "-t",
            "1",
            "--signal=B:USR2@45",
            "-o",
            "trap_%j.out",
            "trap.sh",
        ],
    );
    let _cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: vec![id.clone()],
    };
    let out_file = dir.join(format!("trap_{id}.out"));
    let wait_for = |text: &str| {
        let deadline = Instant::now() + START;
        loop {
            let out = std::fs::read_to_string(&out_file).unwrap_or_default();
            if out.contains(text) {
                return out;
            }
            assert!(Instant::now() < deadline, "no {text:?} in {out:?}");
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    wait_for("ready\n");
    let r = site.run(&dir, "scancel", &["-b", "-s", "USR1", &id]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    // scancel's view of the jobs (queries, the logs of jobs that ended meanwhile, read
    // once, and on 23.09 the ending of other jobs' sessions it left running), then one
    // tunnel to the launcher; the job runs on (below).
    let tunnel = format!("GET /stream/session/j{id}/tcpproxy");
    assert_eq!(r.requests.last(), Some(&tunnel), "{r:?}");
    assert_eq!(count(&r.requests, "GET /stream/"), 1, "{r:?}");
    wait_for("got USR1\n");
    // 45 s before the one-minute limit: 15 s after the start.
    wait_for("got USR2\n");
    // scontrol notify: slurmstepd's error line in the job's error stream.
    let r = site.run(&dir, "scontrol", &["notify", &id, "checkpoint", "now"]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (0, "", ""),
        "{r:?}"
    );
    wait_for(": error: checkpoint now\n");
    let r = site.run(&dir, "scancel", &["--signal=TERM", "--batch", &id]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1..], ["FAILED", "9:0"], "{rows:?}");
    let out = std::fs::read_to_string(&out_file).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(lines[0], "ready");
    let mut got: Vec<&str> = lines[1..3].to_vec();
    got.sort_unstable();
    assert_eq!(got, ["got USR1", "got USR2"], "{out}");
    let stepd = lines[3].split(':').next().unwrap();
    assert!(stepd.starts_with("slurmstepd-"), "{out}");
    assert_eq!(lines[3], format!("{stepd}: error: checkpoint now"));
    assert!(
        lines[4].starts_with(&format!("{stepd}: error: *** JOB {id} ON "))
            && lines[4].contains(" CANCELLED AT "),
        "{out}"
    );
    assert_eq!(lines[5], "got TERM");
    let r = site.run(&dir, "scontrol", &["notify", &id, "too late"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "job notify failure: Job/step already completing or completed\n"
        ),
        "{r:?}"
    );
    // A job that has ended is no longer there to signal, as slurmctld says.
    let r = site.run(&dir, "scancel", &["-s", "USR1", &id]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!("scancel: error: Kill job error on job id {id}: Invalid job id specified\n")
                .as_str()
        ),
        "{r:?}"
    );
}

/// A cancel sticks while the manager starts the job: 23.09 refuses to destroy a session it
/// is scheduling or preparing (a 403), and scancel keeps ending it until it can; the job
/// never runs its script to the end. (A cancel of a pending session that the 23.09
/// scheduler picked in the same moment can still be overridden by it; scancel reads such a
/// session back twice, at once and 3 s later, which a heavily loaded manager can outlast:
/// COMPAT.md, "On the Backend.AI backend".)
#[test]
fn a_cancel_while_the_job_starts_sticks() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("early-cancel");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let id = site.sbatch(&dir, &["--wrap", "sleep 20; touch ran-$SLURM_JOB_ID"]);
        let deadline = Instant::now() + START;
        loop {
            let r = site.run(&dir, "squeue", &["-h", "-j", &id, "-o", "%t"]);
            if matches!(r.stdout.trim(), "CF" | "R") {
                break;
            }
            assert!(Instant::now() < deadline, "never started: {r:?}");
            std::thread::sleep(Duration::from_millis(200));
        }
        let r = site.run(&dir, "scancel", &[&id]);
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
        ids.push(id);
    }
    let rows = site.wait_finished(&dir, &ids.join(","), START);
    for r in &rows {
        assert!(r[1].starts_with("CANCELLED"), "{rows:?}");
    }
    std::thread::sleep(Duration::from_secs(25));
    for id in &ids {
        assert!(!dir.join(format!("ran-{id}")).exists(), "job {id} ran");
    }
}

/// `--array=1-4%1` on an agent with room for two: the tasks run one at a time, in order,
/// a failing task does not stop the rest, and the pending ones show as slurmctld shows them
/// (`J_[2-4%1] PD JobArrayTaskLimit`) while one runs.
#[test]
fn a_throttled_array_runs_its_tasks_n_at_a_time() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("throttle");
    let array = site.sbatch(
        &dir,
        &[
            "--array=1-4%1",
            "--wrap",
            "t=$SLURM_ARRAY_TASK_ID; date +%s.%N > start-$t; sleep 4; date +%s.%N > end-$t; \
             [ $t = 2 ] && exit 3; exit 0",
        ],
    );
    let _cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: vec![array.clone()],
    };
    let r = site.run(&dir, "scontrol", &["show", "job", &array]);
    assert!(
        r.stdout.contains(" ArrayTaskThrottle=1 ") || r.stdout.contains("_[1-4%1]"),
        "{r:?}"
    );
    // Seen while a task runs: the others folded, held back by the throttle.
    let deadline = Instant::now() + START;
    let mut seen = String::new();
    while !seen.contains("%1] PD JobArrayTaskLimit") {
        let r = site.run(&dir, "squeue", &["-h", "-j", &array, "-o", "%i %t %r"]);
        seen = r.stdout;
        assert!(
            Instant::now() < deadline,
            "never held back by the throttle: {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(
        seen.lines().any(|l| l.starts_with(&format!("{array}_"))
            && (l.ends_with(" R None") || l.ends_with(" CF None"))),
        "{seen:?}"
    );
    // Task 3 alone cannot go: task 4 waits for it.
    let r = site.run(&dir, "scancel", &[&format!("{array}_3")]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.starts_with(&format!(
            "scancel: error: Kill job error on job id {array}_3: task 3 of throttled array {array} has not started, and the tasks after it wait for it"
        )),
        "{r:?}"
    );
    // (task 3 still runs and completes: the rows below)
    let rows = site.wait_sacct(
        &dir,
        &array,
        "jobid,state,exitcode",
        Duration::from_secs(400),
        |rows| rows.len() == 4 && rows.iter().all(|r| r[1] != "PENDING" && r[1] != "RUNNING"),
    );
    let mut rows = rows;
    rows.sort();
    let want: Vec<Vec<String>> = (1..=4)
        .map(|t| {
            let (state, code) = if t == 2 {
                ("FAILED", "3:0")
            } else {
                ("COMPLETED", "0:0")
            };
            vec![format!("{array}_{t}"), state.to_string(), code.to_string()]
        })
        .collect();
    assert_eq!(rows, want);
    // One at a time, in order: each task started after the one before it ended.
    let time = |name: String| -> f64 {
        std::fs::read_to_string(dir.join(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .trim()
            .parse()
            .unwrap()
    };
    for t in 2..=4 {
        let (start, before_end) = (time(format!("start-{t}")), time(format!("end-{}", t - 1)));
        assert!(
            start >= before_end,
            "task {t} started at {start}, task {} ended at {before_end}",
            t - 1
        );
    }
}

/// Sets (or clears, with nulls) the Backend.AI user's container identity, as an
/// administrator does on 25.2 and later.
fn set_container_identity(email: &str, uid: Value, gid: Value, gids: Value) {
    let d = admin()
        .client()
        .graphql_once(
            "mutation($e: String!, $p: ModifyUserInput!) { modify_user(email: $e, props: $p) { ok msg } }",
            json!({"e": email, "p": {"container_uid": uid, "container_main_gid": gid, "container_gids": gids}}),
        )
        .expect("modify_user");
    assert_eq!(d["modify_user"]["ok"], true, "{d}");
}

/// Jobs run as the uid, gid and groups the administrator set on the Backend.AI user
/// (26.9: `container_uid`, `container_main_gid`, `container_gids`), and doctor says whether
/// they are the submitter's; 23.09 has no such thing, and doctor says so.
#[test]
fn jobs_run_as_the_users_container_identity() {
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let site = user();
    let dir = site.workdir("identity");
    let doctor = |site: &Site| {
        let r = site.run(&dir, "bai-slurm", &["doctor"]);
        r.stdout
            .lines()
            .find(|l| l.starts_with("container identity: "))
            .unwrap_or_else(|| panic!("{r:?}"))
            .to_string()
    };
    if site.client().api_version().unwrap().major < 9 {
        assert!(
            doctor(site).contains("jobs run as the agent's container user"),
            "{}",
            doctor(site)
        );
        return;
    }
    let email = "user@lablup.com";
    assert!(doctor(site).contains("WARNING: not set for this Backend.AI user"));
    struct Restore(&'static str);
    impl Drop for Restore {
        fn drop(&mut self) {
            set_container_identity(self.0, Value::Null, Value::Null, Value::Null);
        }
    }
    let _restore = Restore(email);
    set_container_identity(email, json!(4321), json!(4321), json!([4321, 5678]));
    let line = doctor(site);
    let me = bai_slurm::sys::UserInfo::current();
    assert_eq!(
        line,
        format!(
            "container identity: uid 4321, gid 4321, groups [4321,5678]: WARNING: differs from {} (uid {}, gid {}): the jobs' files belong to uid 4321",
            me.name, me.uid, me.gid
        )
    );
    // The job's own files are written as that user: its directory must let it.
    set_mode(&dir, 0o777);
    let id = site.sbatch(&dir, &["--wrap", "id -u; id -g; id -G"]);
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1..], ["COMPLETED", "0:0"], "{rows:?}");
    let out = std::fs::read_to_string(dir.join(format!("slurm-{id}.out"))).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[..2], ["4321", "4321"], "{out}");
    let groups: Vec<&str> = lines[2].split_whitespace().collect();
    assert!(
        groups.contains(&"5678") && groups.contains(&"4321"),
        "{out}"
    );
    use std::os::unix::fs::MetadataExt;
    let owner = std::fs::metadata(dir.join(format!("slurm-{id}.out")))
        .unwrap()
        .uid();
    assert_eq!(owner, 4321, "the output file belongs to the job's user");
}

#[test]
fn arrays_and_afterok_chains() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("array");
    let array = site.sbatch(
        &dir,
        &[
            "--array=0-2",
            "--wrap",
            "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID",
        ],
    );
    let after = site.sbatch(
        &dir,
        &[
            &format!("--dependency=afterok:{array}"),
            "--wrap",
            "cat slurm-*_*.out | sort",
        ],
    );
    let r = site.run(&dir, "squeue", &["-h", "-j", &after, "-o", "%i %t"]);
    assert!(
        r.stdout.is_empty() || r.stdout == format!("{after} PD\n"),
        "the dependent job waits: {r:?}"
    );
    let rows = site.wait_sacct(
        &dir,
        &format!("{array},{after}"),
        "jobid,state,exitcode,start,end",
        Duration::from_secs(180),
        |rows| rows.len() == 4 && rows.iter().all(|r| r[1] == "COMPLETED"),
    );
    let tasks: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] != after).collect();
    let mut ids: Vec<&str> = tasks.iter().map(|r| r[0].as_str()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [0, 1, 2]
            .map(|t| format!("{array}_{t}"))
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    let dependent = rows.iter().find(|r| r[0] == after).unwrap();
    assert!(
        tasks.iter().all(|t| t[4] <= dependent[3]),
        "afterok started before its dependency ended: {rows:?}"
    );
    for t in 0..3 {
        let out = std::fs::read_to_string(dir.join(format!("slurm-{array}_{t}.out"))).unwrap();
        assert_eq!(out, format!("task {t} of {array}\n"));
    }
    let out = std::fs::read_to_string(dir.join(format!("slurm-{after}.out"))).unwrap();
    assert_eq!(
        out,
        (0..3)
            .map(|t| format!("task {t} of {array}\n"))
            .collect::<String>()
    );
}

fn row_of(rows: &[Vec<String>], id: &str) -> Vec<String> {
    rows.iter()
        .find(|r| r[0] == id)
        .unwrap_or_else(|| panic!("{id}: {rows:?}"))
        .clone()
}

/// The site's job directory: shared by this run's tests, mode 1777 as OPERATIONS.md says,
/// and this run's own (an earlier run's places, left in the vfolder by a killed run or
/// given to another owner since, are not this run's state).
fn job_dir_of(site: &Site) -> PathBuf {
    site.work_root.join(format!("jobs-{}", std::process::id()))
}

/// [`job_dir_of`], made, and a configuration file in `dir` that names it.
fn with_job_dir(site: &Site, dir: &Path) -> (PathBuf, PathBuf) {
    let job_dir = job_dir_of(site);
    std::fs::create_dir_all(&job_dir).unwrap();
    set_mode(&job_dir, 0o1777);
    let config = job_dir_config(dir, "gated.toml", &job_dir);
    (job_dir, config)
}

/// A configuration file `name` in `dir` that names `job_dir` as the site's job directory.
fn job_dir_config(dir: &Path, name: &str, job_dir: &Path) -> PathBuf {
    let config = dir.join(name);
    let text = format!("[backendai]\njob_dir = \"{}\"\n", job_dir.display());
    std::fs::write(&config, text).unwrap();
    config
}

/// A test's working directory on a site with a job directory: the directory, the
/// configuration file that names the job directory, and the canceller of its jobs.
fn job_dir_test<'a>(site: &'a Site, name: &str) -> (PathBuf, String, CancelOnDrop<'a>) {
    let dir = site.workdir(name);
    let (_, gated) = with_job_dir(site, &dir);
    let cancel = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: Vec::new(),
    };
    (dir, gated.display().to_string(), cancel)
}

/// `scontrol write batch_script`: the script comes back from the request kept in the job
/// directory, to stdout (`-`) or to a file (`slurm-<id>.sh` by default), as slurmctld gives
/// it back; a job that does not exist, and a site without a job directory (where the
/// script is not kept), are answered in Slurm's words with exit code 0, as scontrol's.
#[test]
fn a_job_s_script_is_written_back_from_the_job_directory() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "script");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let script = "#!/bin/bash\n#SBATCH -J kept\necho 'the script' \"$@\"\n";
    std::fs::write(dir.join("kept.sh"), script).unwrap();
    let held = cancel.sbatch_with(&["-H", "kept.sh", "one"], &env);
    let scontrol = |args: &[&str], env: &[(&str, &str)]| {
        let r = site.run_with(&dir, "scontrol", args, env);
        (r.code, r.stdout, r.stderr)
    };
    assert_eq!(
        scontrol(&["write", "batch_script", &held, "-"], &env),
        (0, script.to_string(), String::new())
    );
    assert_eq!(
        scontrol(&["write", "batch_script", &held], &env),
        (
            0,
            format!("batch script for job {held} written to slurm-{held}.sh\n"),
            String::new()
        )
    );
    assert_eq!(
        std::fs::read_to_string(dir.join(format!("slurm-{held}.sh"))).unwrap(),
        script
    );
    assert_eq!(
        scontrol(&["write", "batch_script", "12345", "gone.sh"], &env),
        (
            0,
            String::new(),
            "job script retrieval failed: Invalid job id specified\n".to_string()
        )
    );
    assert!(!dir.join("gone.sh").exists(), "an unfilled file is removed");
    // Without a job directory the script is only in the session, which the manager does
    // not give back.
    let plain = cancel.sbatch_with(&["--begin=now+3600", "kept.sh"], &[]);
    assert_eq!(
        scontrol(&["write", "batch_script", &plain, "-"], &[]),
        (
            0,
            String::new(),
            "job script retrieval failed: Job script not specified\n".to_string()
        )
    );
    // A job directory where the user's place cannot be made (a file stands there): the
    // job is submitted and waits as asked, and its user is told what it cannot do.
    let broken = dir.join("broken-jobs");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("0.requests"), "").unwrap();
    let config = job_dir_config(&dir, "broken.toml", &broken);
    let env = [("BAI_SLURM_CONFIG", config.to_str().unwrap())];
    let r = site.run_with(&dir, "sbatch", &["--parsable", "-H", "kept.sh"], &env);
    let id = r.stdout.trim().to_string();
    cancel.jobs.push(id.clone());
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        r.stderr,
        format!(
            "sbatch: error: job {id}: its request could not be kept in the job directory ({}: File exists (os error 17)): it cannot be held, released, updated or requeued\n",
            broken.join("0.requests").display()
        )
    );
    let r = site.run_with(&dir, "squeue", &["-h", "-j", &id, "-o", "%t %r"], &env);
    assert_eq!(r.stdout, "PD JobHeldUser\n", "{r:?}");
}

/// Holds on a site with a job directory: `sbatch -H` waits (JobHeldUser, priority 0, not
/// eligible) and does not run; a job submitted meanwhile that depends on it waits too, and
/// `scontrol release` lets both run in order (the dependent's session was made again to
/// name the held job's new session); `scontrol hold` and `uhold` of a waiting job and their
/// release give it back its deferred start; `scontrol update` of its time limit, name and
/// start time; the job keeps its submission time; what cannot be held or changed is
/// refused in Slurm's words.
#[test]
fn holds_and_releases_on_a_site_with_a_job_directory() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "holds");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let mut sbatch = |args: &[&str]| cancel.sbatch_with(args, &env);
    let squeue = |id: &str| {
        site.run_with(&dir, "squeue", &["-h", "-j", id, "-o", "%t %r %Q"], &env)
            .stdout
    };
    let scontrol = |args: &[&str]| {
        let r = site.run_with(&dir, "scontrol", args, &env);
        (r.code, r.stdout, r.stderr)
    };
    let held = sbatch(&["-H", "--wrap", "touch ran-held"]);
    let dependent = sbatch(&[
        &format!("--dependency=afterok:{held}"),
        "--wrap",
        "touch ran-dependent",
    ]);
    let later = sbatch(&["--begin=now+3600", "--wrap", "touch ran-later"]);
    // A held throttled array: its chains name sessions that its release makes again.
    let chained = sbatch(&[
        "-H",
        "--array=0-3%2",
        "--wrap",
        "touch ran-chained-$SLURM_ARRAY_TASK_ID",
    ]);
    assert_eq!(squeue(&held), "PD JobHeldUser 0\n");
    assert_eq!(squeue(&chained), "PD JobHeldUser 0\n");
    let show = scontrol(&["show", "job", &held]).1;
    assert!(
        show.contains("Priority=0 ")
            && show.contains("JobState=PENDING Reason=JobHeldUser ")
            && show.contains("EligibleTime=Unknown"),
        "{show}"
    );
    let submitted = |id: &str| {
        let show = scontrol(&["show", "job", id]).1;
        show.split_whitespace()
            .find(|w| w.starts_with("SubmitTime="))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{show}"))
    };
    let held_submitted = submitted(&held);

    // hold and uhold of a waiting job, and their release: its deferred start is back.
    assert_eq!(squeue(&later), "PD BeginTime 1\n");
    assert_eq!(
        scontrol(&["hold", &later]),
        (0, String::new(), String::new())
    );
    // `hold` is an administrator's hold for root (the tests' user), as slurmctld makes it.
    assert_eq!(squeue(&later), "PD JobHeldAdmin 0\n");
    assert_eq!(
        scontrol(&["release", &later]),
        (0, String::new(), String::new())
    );
    assert_eq!(squeue(&later), "PD BeginTime 1\n");
    assert_eq!(
        scontrol(&["uhold", &later]),
        (0, String::new(), String::new())
    );
    assert_eq!(squeue(&later), "PD JobHeldUser 0\n");
    // A second hold of a held job changes nothing; releasing a job not held neither.
    assert_eq!(scontrol(&["uhold", &later]).0, 0);
    assert_eq!(scontrol(&["release", &later]).0, 0);
    assert_eq!(scontrol(&["release", &later]).0, 0);
    assert_eq!(squeue(&later), "PD BeginTime 1\n");

    // scontrol update of a waiting job: what its session can be made again with.
    let job_id = format!("JobId={later}");
    let update = [
        "update",
        &job_id,
        "TimeLimit=5",
        "JobName=renamed",
        "Requeue=0",
    ];
    assert_eq!(scontrol(&update), (0, String::new(), String::new()));
    let r = site.run_with(
        &dir,
        "squeue",
        &["-h", "-j", &later, "-o", "%j %l %t %r"],
        &env,
    );
    assert_eq!(r.stdout, "renamed 5:00 PD BeginTime\n", "{r:?}");
    assert!(
        scontrol(&["show", "job", &later])
            .1
            .contains("   Requeue=0 Restarts=0 ")
    );
    // What it has already is no change (nothing is made again).
    let same = ["update", &job_id, "NumNodes=1"];
    assert_eq!(scontrol(&same), (0, String::new(), String::new()));
    let (code, _, err) = scontrol(&["update", &job_id, "NumCPUs=2"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Requested operation not supported on this system"),
        "{err}"
    );
    // A start now lets it go.
    assert_eq!(
        scontrol(&["update", &job_id, "StartTime=now"]),
        (0, String::new(), String::new())
    );

    // Nothing held runs.
    std::thread::sleep(Duration::from_secs(10));
    assert_eq!(squeue(&held), "PD JobHeldUser 0\n");
    assert!(!dir.join("ran-held").exists() && !dir.join("ran-dependent").exists());
    assert_eq!(
        scontrol(&["release", &held, &chained]),
        (0, String::new(), String::new())
    );
    let rows = site.wait_sacct(
        &dir,
        &format!("{held},{dependent},{chained},{later}"),
        "jobid,state,start,end,jobname,timelimit",
        Duration::from_secs(600),
        |rows| rows.len() == 7 && rows.iter().all(|r| r[1] == "COMPLETED"),
    );
    // The updated job ran as it was changed (its launcher read the new description).
    assert_eq!(
        row_of(&rows, &later)[4..],
        ["renamed", "00:05:00"],
        "{rows:?}"
    );
    assert!(dir.join("ran-later").exists());
    for t in 0..4 {
        assert!(dir.join(format!("ran-chained-{t}")).exists(), "{rows:?}");
    }
    // The chains still hold: task 2 after task 0, task 3 after task 1.
    for (first, next) in [(0, 2), (1, 3)] {
        assert!(
            row_of(&rows, &format!("{chained}_{next}"))[2]
                >= row_of(&rows, &format!("{chained}_{first}"))[3],
            "{rows:?}"
        );
    }
    let row = |id: &str| row_of(&rows, id);
    assert!(
        row(&dependent)[2] >= row(&held)[3],
        "the dependent started before the released job ended: {rows:?}"
    );
    assert!(dir.join("ran-held").exists() && dir.join("ran-dependent").exists());
    // The job was submitted when sbatch ran, whatever sessions it had since (sacct's
    // record: scontrol forgets a job MinJobAge after its end, which a loaded manager's
    // slow queue can make come before this line).
    let r = site.run_with(
        &dir,
        "sacct",
        &["-n", "-X", "-P", "-j", &held, "-o", "submit"],
        &env,
    );
    assert_eq!(
        format!("SubmitTime={}", r.stdout.trim()),
        held_submitted,
        "{r:?}"
    );
    let r = site.run_with(
        &dir,
        "sacct",
        &["-n", "-X", "-j", &held, "-o", "jobid"],
        &env,
    );
    assert_eq!(r.stdout.trim(), held, "one job, one record: {r:?}");

    // A finished job cannot be held; without a job directory nothing can.
    let (code, _, err) = scontrol(&["hold", &held]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Job has already finished"), "{err}");
    let r = site.run(&dir, "sbatch", &["-H", "--wrap", "true"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains(
            "--hold is not supported by the Backend.AI backend without [backendai] job_dir"
        ),
        "{r:?}"
    );
}

/// `scontrol requeue` and `requeuehold` on a site with a job directory: a finished job and
/// a running one (stopped as a cancel stops it) go back to the queue under their ids,
/// eligible again after slurmctld's 121 s (`BeginTime`) or held ("job requeued in held
/// state"), with `Restarts=1` and `SLURM_RESTART_COUNT=1` in their next run, one record
/// each, and with `sacct -D` the earlier run's too (REQUEUED: the failed run's exit code,
/// 0:0 and a batch step CANCELLED by SIGTERM for the stopped one, as slurmdbd keeps
/// them); a pending job and one submitted `--no-requeue` are refused in Slurm's words.
#[test]
fn requeue_on_a_site_with_a_job_directory() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "requeue");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let mut sbatch = |args: &[&str]| cancel.sbatch_with(args, &env);
    let scontrol = |args: &[&str]| {
        let r = site.run_with(&dir, "scontrol", args, &env);
        (r.code, r.stdout, r.stderr)
    };
    let squeue = |id: &str| {
        site.run_with(&dir, "squeue", &["-h", "-j", id, "-o", "%t %r"], &env)
            .stdout
    };
    // Each run appends its restart count; the first run of `done` fails, the second run
    // of `running` ends at once.
    let done = sbatch(&[
        "--wrap",
        "echo run $SLURM_RESTART_COUNT >> runs-done; [ -n \"$SLURM_RESTART_COUNT\" ] || exit 3",
    ]);
    let running = sbatch(&[
        "--wrap",
        "echo run $SLURM_RESTART_COUNT >> runs-running; [ -n \"$SLURM_RESTART_COUNT\" ] || exec sleep 600",
    ]);
    let never = sbatch(&["--no-requeue", "--wrap", "true"]);
    let waiting = sbatch(&["--begin=now+3600", "--wrap", "true"]);
    let (code, _, err) = scontrol(&["requeue", &waiting]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Job is pending execution"), "{err}");
    site.wait_finished(&dir, &format!("{done},{never}"), START);
    let deadline = Instant::now() + START;
    while squeue(&running) != "R None\n" {
        assert!(Instant::now() < deadline, "never ran");
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    std::thread::sleep(Duration::from_secs(6));

    assert_eq!(
        scontrol(&["requeue", &done]),
        (0, String::new(), String::new())
    );
    assert_eq!(squeue(&done), "PD BeginTime\n");
    assert!(scontrol(&["show", "job", &done]).1.contains(" Restarts=1 "));
    assert_eq!(
        scontrol(&["requeuehold", &running]),
        (0, String::new(), String::new())
    );
    assert_eq!(squeue(&running), "PD job requeued in held state\n");
    let out = std::fs::read_to_string(dir.join(format!("slurm-{running}.out"))).unwrap();
    assert!(
        out.contains(" CANCELLED AT "),
        "stopped as a cancel stops it: {out}"
    );
    // Let both go now.
    assert_eq!(scontrol(&["release", &running]).0, 0);
    for id in [&done, &running] {
        let job_id = format!("JobId={id}");
        assert_eq!(
            scontrol(&["update", &job_id, "StartTime=now"]),
            (0, String::new(), String::new())
        );
    }
    let rows = site.wait_sacct(
        &dir,
        &format!("{done},{running}"),
        "jobid,state",
        Duration::from_secs(300),
        |rows| rows.len() == 2 && rows.iter().all(|r| r[1] == "COMPLETED"),
    );
    assert_eq!(rows.len(), 2, "one record per job: {rows:?}");
    for id in ["done", "running"] {
        let runs = std::fs::read_to_string(dir.join(format!("runs-{id}"))).unwrap();
        assert_eq!(runs, "run\nrun 1\n", "{id}");
    }
    // (by submission: the first runs, then the runs each requeue submitted, in its order)
    let sacct = |args: &[&str]| site.run_with(&dir, "sacct", args, &env).stdout;
    let ids = format!("{done},{running}");
    assert_eq!(
        sacct(&["-D", "-n", "-P", "-j", &ids, "-o", "jobid,state,exitcode"]),
        format!(
            "{done}|REQUEUED|3:0\n{done}.batch|FAILED|3:0\n{running}|REQUEUED|0:0\n\
             {running}.batch|CANCELLED|0:15\n{done}|COMPLETED|0:0\n\
             {done}.batch|COMPLETED|0:0\n{running}|COMPLETED|0:0\n\
             {running}.batch|COMPLETED|0:0\n"
        )
    );
    assert_eq!(
        sacct(&[
            "-X",
            "-n",
            "-P",
            "-s",
            "RQ",
            "-j",
            &ids,
            "-o",
            "jobid,state"
        ]),
        format!("{done}|REQUEUED\n{running}|REQUEUED\n")
    );
    // slurmctld looks at --no-requeue before anything else about the job.
    let (code, _, err) = scontrol(&["requeue", &never]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Requested operation is presently disabled"),
        "{err}"
    );
}

/// A running job is held as slurmctld holds it (scenario hold_running): it runs on with
/// priority 0 and the hold's reason, released it has its priority back, and it ends with
/// the hold's reason, then "Job has already finished" to a release, and a requeue brings it
/// back held. A running session cannot change: the hold is a mark beside its kept request.
#[test]
fn a_running_job_is_held_as_slurmctld_holds_it() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "hold-running");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    // It runs until the test lets it end.
    let job = cancel.sbatch_with(&["--wrap", "until [ -e ended ]; do sleep 1; done"], &env);
    let scontrol = |args: &[&str]| {
        let r = site.run_with(&dir, "scontrol", args, &env);
        (r.code, r.stdout, r.stderr)
    };
    let squeue = || {
        site.run_with(&dir, "squeue", &["-h", "-j", &job, "-o", "%t %r %Q"], &env)
            .stdout
    };
    let deadline = Instant::now() + START;
    while squeue() != "R None 1\n" {
        assert!(Instant::now() < deadline, "never ran: {}", squeue());
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    let ok = (0, String::new(), String::new());
    // `hold` is an administrator's hold for root (the tests' user).
    assert_eq!(scontrol(&["hold", &job]), ok);
    assert_eq!(squeue(), "R JobHeldAdmin 0\n");
    assert_eq!(scontrol(&["release", &job]), ok);
    assert_eq!(squeue(), "R None 1\n");
    // `scontrol update Priority=0` is the same hold.
    let job_id = format!("JobId={job}");
    assert_eq!(scontrol(&["update", &job_id, "Priority=0"]), ok);
    assert_eq!(squeue(), "R JobHeldAdmin 0\n");
    assert_eq!(scontrol(&["release", &job]), ok);
    assert_eq!(scontrol(&["uhold", &job]), ok);
    assert_eq!(scontrol(&["uhold", &job]), ok);
    let show = scontrol(&["show", "job", &job]).1;
    assert!(
        show.contains("   Priority=0 ") && show.contains("   JobState=RUNNING Reason=JobHeldUser "),
        "{show}"
    );
    std::fs::write(dir.join("ended"), b"").unwrap();
    site.wait_finished(&dir, &job, Duration::from_secs(120));
    let show = scontrol(&["show", "job", &job]).1;
    assert!(
        show.contains("   Priority=0 ")
            && show.contains("   JobState=COMPLETED Reason=JobHeldUser "),
        "{show}"
    );
    let (code, _, err) = scontrol(&["release", &job]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Job has already finished"), "{err}");
    // Its priority stays 0: requeued, it waits held (as 22.05 does).
    assert_eq!(scontrol(&["requeue", &job]), ok);
    assert_eq!(squeue(), "PD JobHeldUser 0\n");
}

/// `scontrol update TimeLimit=` of a running job: its session cannot change, so the new
/// limit is a mark its launcher polls; lowered, it ends the job at the new limit
/// (TIMEOUT, slurmstepd's "DUE TO TIME LIMIT" line), and the views show it. Raised
/// past the limit the session was made with (its backstop) it is refused. Its name,
/// comment, nice value and requeue flag change as marks too (scenario update_running).
#[test]
fn a_running_job_s_limit_name_and_comment_are_changed() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "limit-running");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let job = cancel.sbatch_with(&["-t", "5", "--wrap", "sleep 600"], &env);
    let squeue = || {
        site.run_with(&dir, "squeue", &["-h", "-j", &job, "-o", "%t %l"], &env)
            .stdout
    };
    let update = |limit: &str| {
        let job_id = format!("JobId={job}");
        let limit = format!("TimeLimit={limit}");
        let r = site.run_with(&dir, "scontrol", &["update", &job_id, &limit], &env);
        (r.code, r.stderr)
    };
    let deadline = Instant::now() + START;
    while squeue() != "R 5:00\n" {
        assert!(Instant::now() < deadline, "never ran: {}", squeue());
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    let (code, err) = update("10");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Requested operation not supported on this system"),
        "{err}"
    );
    assert_eq!(update("3"), (0, String::new()));
    assert_eq!(squeue(), "R 3:00\n");
    // Raised again as far as the session's own limit (root may), then lowered for good.
    assert_eq!(update("+2"), (0, String::new()));
    assert_eq!(squeue(), "R 5:00\n");
    assert_eq!(update("1"), (0, String::new()));
    assert_eq!(squeue(), "R 1:00\n");
    // Its name and comment change too.
    let job_id = format!("JobId={job}");
    let r = site.run_with(
        &dir,
        "scontrol",
        &["update", &job_id, "JobName=renamed", "Comment=busy now"],
        &env,
    );
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let r = site.run_with(&dir, "squeue", &["-h", "-j", &job, "-o", "%j|%k"], &env);
    assert_eq!(r.stdout, "renamed|busy now\n");
    // So do its nice value and requeue flag (which `scontrol requeue` then obeys); what it
    // already has is no change (22.05: `NumNodes=1`, its own partition); nothing else is.
    let scontrol = |args: &[&str]| site.run_with(&dir, "scontrol", args, &env);
    for (change, refused) in [
        (&["Nice=5", "Requeue=0"][..], false),
        (&["NumNodes=1"][..], false),
        (&["NumNodes=3"][..], true),
    ] {
        let r = scontrol(&[&["update", job_id.as_str()][..], change].concat());
        assert_eq!(r.code, i32::from(refused), "{change:?}: {r:?}");
    }
    let shown = scontrol(&["show", "job", &job]).stdout;
    assert!(
        shown.contains(" Nice=5 ") && shown.contains("   Requeue=0 Restarts=0 "),
        "{shown}"
    );
    let r = scontrol(&["requeue", &job]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("Requested operation is presently disabled"),
        "{r:?}"
    );
    let rows = site.wait_sacct(
        &dir,
        &job,
        "jobid,state,timelimit,jobname",
        Duration::from_secs(240),
        |rows| rows.first().is_some_and(|r| r[1] != "RUNNING"),
    );
    assert_eq!(
        row_of(&rows, &job)[1..],
        ["TIMEOUT", "00:01:00", "renamed"],
        "{rows:?}"
    );
    let out = std::fs::read_to_string(dir.join(format!("slurm-{job}.out"))).unwrap();
    assert!(out.contains(" DUE TO TIME LIMIT ***"), "{out}");
}

/// A job cancelled while it waits never ran, so Backend.AI never sees it succeed: its
/// dependents would wait for it for ever. scancel makes them again without it (the user's
/// own, on a site with a job directory), and their launchers judge the dependency as
/// slurmctld does for a cancelled job: `afterany` and `afternotok` run, `afterok` is
/// never satisfied (CANCELLED, DependencyNeverSatisfied).
#[test]
fn dependents_of_a_job_cancelled_while_it_waits_are_judged() {
    let _shared = shared();
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "cancel-deps");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let mut sbatch = |args: &[&str]| cancel.sbatch_with(args, &env);
    let waiting = sbatch(&["--begin=now+3600", "--wrap", "true"]);
    let kinds = ["afterany", "afternotok", "afterok"];
    let dependents: Vec<String> = kinds
        .iter()
        .map(|k| {
            sbatch(&[
                &format!("--dependency={k}:{waiting}"),
                "--wrap",
                &format!("touch ran-{k}"),
            ])
        })
        .collect();
    let r = site.run_with(&dir, "scancel", &[&waiting], &env);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = site.wait_finished(&dir, &dependents.join(","), Duration::from_secs(300));
    for (kind, id) in kinds.iter().zip(&dependents) {
        let state = &row_of(&rows, id)[1];
        let ran = dir.join(format!("ran-{kind}")).exists();
        match *kind {
            "afterok" => assert!(state == "CANCELLED" && !ran, "{kind}: {rows:?}"),
            _ => assert!(state == "COMPLETED" && ran, "{kind}: {rows:?}"),
        }
    }
    let r = site.run_with(&dir, "scontrol", &["show", "job", &dependents[2]], &env);
    assert!(
        r.stdout.contains("Reason=DependencyNeverSatisfied") || r.stdout.is_empty(),
        "{r:?}"
    );
}

/// A session Backend.AI leaves RUNNING after its job ended (a loaded 23.09 manager that
/// marks a session RUNNING only after its script has ended never hears of the end, and
/// the session holds its resources for good): once its launcher's result in the job
/// directory is a minute old, the next view ends the session and makes its native
/// dependents again, whose gates judge the result it left. The stuck state is made here by
/// leaving a result for a job that still sleeps; without the cure its dependent would wait
/// ten minutes.
#[test]
fn a_session_left_running_after_its_job_ended_is_ended_and_its_dependents_run() {
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "left-running");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    // A job that ends first has its launcher make the user's results directory, as the
    // container's user (the test then writes into it as root, never makes it).
    let first = cancel.sbatch_with(&["--wrap", "true"], &env);
    site.wait_finished(&dir, &first, START);
    let stuck = cancel.sbatch_with(&["-t", "15", "--wrap", "sleep 600"], &env);
    let dependent = cancel.sbatch_with(
        &[
            &format!("--dependency=afterany:{stuck}"),
            "--wrap",
            "touch ran",
        ],
        &env,
    );
    site.wait_sacct(
        &dir,
        &stuck,
        "jobid,state",
        Duration::from_secs(300),
        |rows| rows[0][1] == "RUNNING",
    );
    let job_dir = job_dir_of(site);
    // Left while the session runs (an older result would be an earlier run's).
    let ended = bai_slurm::sys::now();
    let result = job_dir
        .join(nix::unistd::getuid().as_raw().to_string())
        .join(format!("{stuck}.result"));
    // As the launcher leaves it (`launcher::gate::write_result`).
    assert!(result.parent().unwrap().is_dir(), "{result:?}");
    std::fs::write(&result, format!("exited 0:0 {ended}\n")).unwrap();
    // The views of the site's login nodes (which name its job directory) find it.
    let both = format!("{stuck},{dependent}");
    let ended = |r: &Vec<String>| !matches!(r[1].as_str(), "PENDING" | "RUNNING");
    let rows = site.wait_sacct_with(
        &dir,
        &both,
        "jobid,state",
        &env,
        Duration::from_secs(300),
        |rows| rows.len() == 2 && rows.iter().all(ended),
    );
    assert_eq!(row_of(&rows, &dependent)[1], "COMPLETED", "{rows:?}");
    assert!(dir.join("ran").exists(), "{rows:?}");
    assert_ne!(row_of(&rows, &stuck)[1], "RUNNING", "{rows:?}");
}

/// `?`: the job starts at its first satisfied alternative, as slurmctld starts it, while
/// the other job it names still runs: a view of its owner's (here sacct, polled as a
/// workflow engine polls) finds the alternative decided by the results in the job
/// directory and makes the waiting session again without its native dependencies.
#[test]
fn an_or_dependency_starts_at_its_first_satisfied_alternative() {
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let site = user();
    let (dir, gated, mut cancel) = job_dir_test(site, "or-dependency");
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    let slow = cancel.sbatch_with(&["-t", "15", "--wrap", "sleep 600"], &env);
    let quick = cancel.sbatch_with(&["--wrap", "true"], &env);
    let either = cancel.sbatch_with(
        &[
            &format!("--dependency=afterok:{slow}?afterok:{quick}"),
            "--wrap",
            "touch ran",
        ],
        &env,
    );
    let all = format!("{slow},{quick},{either}");
    let rows = site.wait_sacct_with(
        &dir,
        &all,
        "jobid,state",
        &env,
        Duration::from_secs(300),
        |rows| rows.len() == 3 && row_of(rows, &either)[1] == "COMPLETED",
    );
    assert_eq!(row_of(&rows, &quick)[1], "COMPLETED", "{rows:?}");
    assert_eq!(row_of(&rows, &slow)[1], "RUNNING", "{rows:?}");
    assert!(dir.join("ran").exists(), "{rows:?}");
}

/// Every dependency type, on a site with a job directory (`[backendai] job_dir`): each
/// launcher leaves its job's result there and ends its session with success, so a session's
/// Backend.AI `dependencies` mean "ended", and the dependent's launcher judges Slurm's
/// condition from the results (`launcher::gate`). A dependency that can never be satisfied
/// ends the job as slurmctld's `kill_invalid_depend` does: CANCELLED, reason
/// DependencyNeverSatisfied, its script not run.
#[test]
fn every_dependency_type_on_a_site_with_a_job_directory() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("deps");
    let (job_dir, gated) = with_job_dir(site, &dir);
    let env = [("BAI_SLURM_CONFIG", gated.to_str().unwrap())];
    let mut cancel = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: Vec::new(),
    };
    let mut sbatch = |args: &[&str]| cancel.sbatch_with(args, &env);
    // Each job writes a file named after itself when its script runs.
    let ran = |name: &str| format!("sleep 2; touch ran-{name}");
    let ok = sbatch(&["--wrap", &ran("ok")]);
    let bad = sbatch(&["--wrap", &format!("{}; exit 3", ran("bad"))]);
    let arr = sbatch(&["--array=0-1", "--wrap", "exit $SLURM_ARRAY_TASK_ID"]);
    let cases: Vec<(String, &str, &str)> = vec![
        (format!("afterok:{ok}"), "okok", "COMPLETED"),
        (format!("afterok:{bad}"), "okbad", "CANCELLED"),
        (format!("afternotok:{bad}"), "notokbad", "COMPLETED"),
        (format!("afternotok:{ok}"), "notokok", "CANCELLED"),
        (format!("afterany:{bad}"), "anybad", "COMPLETED"),
        (format!("afterok:{bad}?afterok:{ok}"), "either", "COMPLETED"),
    ];
    let mut dependents = Vec::new();
    for (dep, name, _) in &cases {
        let id = sbatch(&[&format!("--dependency={dep}"), "--wrap", &ran(name)]);
        dependents.push(id);
    }
    let corr = sbatch(&[
        "--array=0-1",
        &format!("--dependency=aftercorr:{arr}"),
        "--wrap",
        "touch ran-corr-$SLURM_ARRAY_TASK_ID",
    ]);
    // singleton: the second waits for the first, still running, of the same name.
    let solo1 = sbatch(&["-J", "solo", "--dependency=singleton", "--wrap", "sleep 10"]);
    let solo2 = sbatch(&["-J", "solo", "--dependency=singleton", "--wrap", "true"]);
    // A dependency the dependent's gate judged impossible, as scontrol shows it (pending
    // meanwhile, with what it waits for; RUNNING for the moment its launcher judges the
    // gate in its container, seen once on a loaded 23.09).
    let r = site.run_with(
        &dir,
        "squeue",
        &["-h", "-j", &dependents[1], "-o", "%t %E"],
        &env,
    );
    assert!(
        r.stdout.is_empty()
            || r.stdout.starts_with(&format!("PD afterok:{bad}("))
            || r.stdout.starts_with("CA ")
            || r.stdout == "R (null)\n",
        "{r:?}"
    );

    // scontrol says why, as slurmctld does for such a job (while it still shows it:
    // MinJobAge after its end).
    let deadline = Instant::now() + Duration::from_secs(420);
    let r = loop {
        let r = site.run_with(&dir, "scontrol", &["show", "job", &dependents[1]], &env);
        if r.stdout.contains("JobState=CANCELLED") || Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_secs(2));
    };
    assert!(
        r.stdout.contains(&format!(
            "JobState=CANCELLED Reason=DependencyNeverSatisfied Dependency=afterok:{bad}(failed)\n"
        )) && r
            .stdout
            .contains("EligibleTime=Unknown\n   AccrueTime=Unknown\n"),
        "{r:?}"
    );

    let all: Vec<&str> = [&ok, &bad, &arr, &corr, &solo1, &solo2]
        .into_iter()
        .chain(&dependents)
        .map(String::as_str)
        .collect();
    let rows = site.wait_sacct(
        &dir,
        &all.join(","),
        "jobid,state,exitcode,start,end",
        Duration::from_secs(420),
        |rows| {
            rows.len() == all.len() + 2
                && rows
                    .iter()
                    .all(|r| !matches!(r[1].as_str(), "PENDING" | "RUNNING"))
        },
    );
    let row = |id: &str| {
        rows.iter()
            .find(|r| r[0] == id)
            .unwrap_or_else(|| panic!("{id}: {rows:?}"))
    };
    assert_eq!(row(&ok)[1], "COMPLETED", "{rows:?}");
    assert_eq!(
        (row(&bad)[1].as_str(), row(&bad)[2].as_str()),
        ("FAILED", "3:0")
    );
    for ((dep, name, state), id) in cases.iter().zip(&dependents) {
        let r = row(id);
        assert_eq!(r[1], *state, "--dependency={dep}: {rows:?}");
        assert_eq!(
            dir.join(format!("ran-{name}")).exists(),
            *state == "COMPLETED",
            "--dependency={dep}: the script ran only if the condition held"
        );
        if *state == "CANCELLED" {
            // slurmdbd's record of a job slurmctld ended for it: never started.
            assert_eq!((r[2].as_str(), r[3].as_str()), ("0:0", "None"), "{rows:?}");
        }
    }
    assert_eq!(row(&format!("{corr}_0"))[1], "COMPLETED", "{rows:?}");
    assert_eq!(row(&format!("{corr}_1"))[1], "CANCELLED", "{rows:?}");
    assert!(dir.join("ran-corr-0").exists() && !dir.join("ran-corr-1").exists());
    assert!(
        row(&solo2)[3] >= row(&solo1)[4],
        "singleton started before its namesake ended: {rows:?}"
    );
    // The results the launchers left, one per job or task, in the user's directory.
    let left = std::fs::read_dir(&job_dir).unwrap().flatten().count();
    assert!(left >= 1, "nothing in {}", job_dir.display());

    // afterany of a job nobody knows is satisfied at once; afterok of one is refused.
    let r = site.run_with(
        &dir,
        "sbatch",
        &["--parsable", "--dependency=afterok:1", "--wrap", "true"],
        &env,
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "sbatch: error: Batch job submission failed: Job dependency problem\n"
        )
    );
    // after (a start, not an end) is judged at submission, with or without a job
    // directory: a job that has started (here: ended) fulfils it at once, and the rest of
    // a `+minutes` delay is a deferred start.
    let no_dir: [(&str, &str); 0] = [];
    let after = cancel.sbatch_with(
        &[&format!("--dependency=after:{ok}"), "--wrap", "true"],
        &no_dir,
    );
    let delayed = cancel.sbatch_with(
        &[&format!("--dependency=after:{ok}+30"), "--wrap", "true"],
        &no_dir,
    );
    let r = site.run(&dir, "squeue", &["-h", "-j", &delayed, "-o", "%t %r %E"]);
    assert_eq!(r.stdout, "PD BeginTime (null)\n", "{r:?}");
    // A job still waiting: with a job directory the dependent waits for its start, and
    // starts while it runs (a view of the owner's makes it again); without one, refused.
    let held = cancel.sbatch_with(&["-H", "--wrap", "sleep 45"], &env);
    let waiter = cancel.sbatch_with(
        &[&format!("--dependency=after:{held}"), "--wrap", "true"],
        &env,
    );
    let r = site.run_with(
        &dir,
        "squeue",
        &["-h", "-j", &waiter, "-o", "%t %r %E"],
        &env,
    );
    assert_eq!(
        r.stdout,
        format!("PD Dependency after:{held}(unfulfilled)\n"),
        "{r:?}"
    );
    let r = site.run(
        &dir,
        "sbatch",
        &[&format!("--dependency=after:{held}"), "--wrap", "true"],
    );
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!(
                "sbatch: error: Batch job submission failed: --dependency=after:{held}: job {held} has not started yet, and waiting for a start (not an end) on Backend.AI needs [backendai] job_dir (the job's session is made again once job {held} starts)\n"
            )
            .as_str()
        ),
        "{r:?}"
    );
    let r = site.run_with(&dir, "scontrol", &["release", &held], &env);
    assert_eq!(r.code, 0, "{r:?}");
    // The dependent stops waiting for its dependency while its job runs (as squeue shows
    // it: a view of the owner's makes it again); when it starts after that is the
    // scheduler's business (a loaded agent may start it after its job has ended).
    let both = format!("{held},{waiter}");
    let deadline = Instant::now() + Duration::from_secs(420);
    let released_while = loop {
        let r = site.run_with(&dir, "squeue", &["-h", "-j", &both, "-o", "%i %t %r"], &env);
        assert_eq!(r.code, 0, "{r:?}");
        let line = |id: &str| {
            r.stdout
                .lines()
                .find(|l| l.starts_with(&format!("{id} ")))
                .map(str::to_string)
        };
        let waits = line(&waiter).is_none_or(|l| l.ends_with(" PD Dependency"));
        if !waits {
            break line(&held);
        }
        assert!(Instant::now() < deadline, "after: still waiting: {r:?}");
        // Each look is a view (a few queries): a 23.09 manager kept busy misses its agent's
        // heartbeats, so not every second.
        std::thread::sleep(Duration::from_secs(3));
    };
    // Started, as slurmctld's test for `after` (not pending): running or configuring.
    let started = [format!("{held} R None"), format!("{held} CF None")];
    assert!(
        released_while.as_ref().is_some_and(|l| started.contains(l)),
        "after: the dependent is released once its job has started, before it ends: {released_while:?}"
    );
    let rows = site.wait_sacct_with(
        &dir,
        &both,
        "jobid,state,start,end",
        &env,
        Duration::from_secs(420),
        |rows| {
            rows.iter().any(|r| r[0] == waiter && r[1] == "COMPLETED")
                && rows.iter().any(|r| r[0] == held && r[1] == "COMPLETED")
        },
    );
    let row = |id: &str| rows.iter().find(|r| r[0] == id).unwrap().clone();
    assert_eq!(row(&waiter)[1], "COMPLETED", "{rows:?}");
    assert!(
        row(&waiter)[2] >= row(&held)[2],
        "after: the dependent starts once its job has started: {rows:?}"
    );
    let at = |t: &str| {
        chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S")
            .unwrap_or_else(|e| panic!("{t}: {e}"))
    };
    println!(
        "after: the dependent started {} s after its job did (the next view's release)",
        (at(&row(&waiter)[2]) - at(&row(&held)[2])).num_seconds()
    );
    let rows = site.wait_sacct(
        &dir,
        &after,
        "jobid,state",
        Duration::from_secs(300),
        |rows| rows.iter().any(|r| r[0] == after && r[1] == "COMPLETED"),
    );
    assert!(rows.iter().any(|r| r[1] == "COMPLETED"), "{rows:?}");
    // afterany needs the directory.
    let r = site.run(
        &dir,
        "sbatch",
        &[&format!("--dependency=afterany:{ok}"), "--wrap", "true"],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("without [backendai] job_dir"), "{r:?}");
    // doctor says what the site has; a directory the jobs could not see is refused.
    let r = site.run_with(&dir, "bai-slurm", &["doctor"], &env);
    let line = format!(
        "job directory: {} (every dependency type, holds, updates and requeue)\n",
        job_dir.display()
    );
    assert!(r.stdout.contains(&line), "{r:?}");
    let outside = dir.join("outside.toml");
    std::fs::write(&outside, "[backendai]\njob_dir = \"/var/tmp/jobs\"\n").unwrap();
    let env = [("BAI_SLURM_CONFIG", outside.to_str().unwrap())];
    let r = site.run_with(&dir, "sbatch", &["--wrap", "true"], &env);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("job_dir = \"/var/tmp/jobs\" is not under a [[backendai.storage]] path"),
        "{r:?}"
    );
    let r = site.run_with(&dir, "bai-slurm", &["doctor"], &env);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains("job directory: FAILED ("), "{r:?}");
}

/// Why a pending job waits, in Slurm's words, on each release: 23.09's scheduler says it
/// (status_info, failed predicates), 26.9's says nothing (both null), and bai-slurm derives
/// the reason from what it knows: a deferred start, the states of the jobs an afterok job
/// waits for, the queue. A dependency that failed is `DependencyNeverSatisfied` on both
/// (Backend.AI keeps such a session pending for good).
#[test]
fn pending_jobs_say_why_they_wait() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("reasons");
    let failing = site.sbatch(&dir, &["--wrap", "exit 7"]);
    let never = site.sbatch(
        &dir,
        &[
            &format!("--dependency=afterok:{failing}"),
            "--wrap",
            "echo never",
        ],
    );
    let later = site.sbatch(&dir, &["--begin=now+1hour", "--wrap", "true"]);
    let behind = site.sbatch(
        &dir,
        &[&format!("--dependency=afterok:{later}"), "--wrap", "true"],
    );
    // More memory than the agent has: they wait for resources, the second behind the first.
    let big = site.sbatch(&dir, &["--mem=64G", "--wrap", "true"]);
    let bigger = site.sbatch(&dir, &["--mem=64G", "--wrap", "true"]);
    let _cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: vec![
            never.clone(),
            later.clone(),
            behind.clone(),
            big.clone(),
            bigger.clone(),
        ],
    };
    // (`big` is behind any job of the other tests that waits too: Priority then)
    let wanted = [
        (later.as_str(), "BeginTime"),
        (behind.as_str(), "Dependency"),
        (big.as_str(), "Resources|Priority"),
        (bigger.as_str(), "Priority"),
    ];
    let ids = format!("{later},{behind},{big},{bigger}");
    let deadline = Instant::now() + START;
    loop {
        // (a job the 23.09 scheduler has not looked at yet says None for a moment, as in Slurm)
        let r = site.run(&dir, "squeue", &["-h", "-j", &ids, "-o", "%i %t %r"]);
        let got: Vec<String> = r.stdout.lines().map(str::to_string).collect();
        let shown = |id: &str, why: &str| {
            why.split('|')
                .any(|w| got.contains(&format!("{id} PD {w}")))
        };
        if wanted.iter().all(|(id, why)| shown(id, why)) {
            break;
        }
        assert!(Instant::now() < deadline, "{wanted:?}: {r:?}");
        std::thread::sleep(Duration::from_millis(700));
    }
    site.wait_finished(&dir, &failing, START);
    let r = site.run(&dir, "squeue", &["-h", "-j", &never, "-o", "%i %t %r %E"]);
    assert_eq!(
        r.stdout,
        format!("{never} PD DependencyNeverSatisfied afterok:{failing}(failed)\n"),
        "{r:?}"
    );
}

/// What a job asked for and when it became eligible stay after its end: 26.9 empties a
/// session's occupied_slots then (`mem=0` in scontrol before), and its starts_at is the
/// actual start (not a deferred start, as on 23.09).
#[test]
fn an_ended_job_keeps_its_memory_and_its_eligible_time() {
    let shared_guard = shared();
    let site = user();
    let dir = site.workdir("ended");
    let id = site.sbatch(&dir, &["--wrap", "sleep 6"]);
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1], "COMPLETED", "{rows:?}");
    // a login node that never saw the job (its own state directory: nothing cached)
    let fresh = dir.join("other-login-node");
    let r = site.run_with(
        &dir,
        "scontrol",
        &["show", "job", &id],
        &[("XDG_STATE_HOME", fresh.to_str().unwrap())],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        !r.stdout.contains("mem=0,") && !r.stdout.contains("MinMemoryNode=0 "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(",mem="), "{}", r.stdout);
    let r = site.run(
        &dir,
        "sacct",
        &[
            "-X",
            "-P",
            "-n",
            "-j",
            &id,
            "-o",
            "submit,eligible,start,end",
        ],
    );
    let f: Vec<&str> = r.stdout.trim().split('|').collect();
    assert_eq!(f.len(), 4, "{r:?}");
    assert_eq!(f[1], f[0], "eligible when submitted (no --begin): {r:?}");
    assert!(f[2] >= f[1] && f[3] >= f[2], "{r:?}");

    // A login node whose ids ran ahead of the clock (its counter says the id before this
    // job's) does not hand out the ended job's id again: Backend.AI would take the name.
    // This second login node submits while no other test does: two login nodes that check
    // one id within the same request's time and create, one an array and one not, both
    // get it (the residual race docs/ARCHITECTURE.md describes), and the other tests'
    // ids are this one's next.
    drop(shared_guard);
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let counter = find_file(&site.state, "jobid").expect("sbatch keeps a job id counter");
    let relative = counter.strip_prefix(&site.state).unwrap();
    // (its state directory private, as sbatch wants it)
    let node = site.home.join(format!("ahead-{id}"));
    let ahead = node.join(relative);
    std::fs::create_dir_all(ahead.parent().unwrap()).unwrap();
    let before: u32 = id.parse::<u32>().unwrap() - 1;
    std::fs::write(&ahead, before.to_string()).unwrap();
    let r = site.run_with(
        &dir,
        "sbatch",
        &["--parsable", "--begin=now+1hour", "--wrap", "true"],
        &[("XDG_STATE_HOME", node.to_str().unwrap())],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let next = r.stdout.trim().to_string();
    site.run(&dir, "scancel", &[&next]);
    assert!(next.parse::<u32>().unwrap() > before + 1, "{r:?}");
}

/// The first file called `name` under `dir`.
fn find_file(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if entry.file_name() == name {
            return Some(path);
        }
    }
    None
}

/// The site's vfolders are mounted by id (API v8 and later): 26.9 resolves a vfolder name
/// among every user's folders and refuses the create (400 `Cannot resolve the given
/// vfolder key`) once another user owns one of the same name, as the superadmin here does.
#[test]
fn a_vfolder_name_another_user_also_has_is_mounted() {
    let _shared = shared();
    // both keypairs own bai-slurm-tools and bai-slurm-work
    let _ = admin();
    let site = user();
    let dir = site.workdir("same-name");
    let id = site.sbatch(&dir, &["--wrap", "echo mine > mine.txt"]);
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1], "COMPLETED", "{rows:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("mine.txt")).unwrap(),
        "mine\n"
    );
}

/// Two containers, and `scancel -s USR1` (without `-b`: the steps alone) reaching the
/// step's tasks on both, though the login node reaches node 0 only (its launcher passes
/// the signal on); the batch shell, which would die of USR1, is not signalled.
#[test]
fn a_two_node_job_runs_two_containers() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("nodes");
    let id = site.sbatch(
        &dir,
        &[
            "-N2",
            "-o",
            "nodes-%j.out",
            "--wrap",
            // sub1's sshd answering on the session's network shows its container runs.
            "echo $SLURM_JOB_NUM_NODES $SLURM_JOB_NODELIST; \
             nc -z -w 10 sub1 2200 && echo sub1 is up; \
             srun -N2 -n2 bash -c 'trap \"echo got USR1 on $SLURMD_NODENAME; exit 0\" USR1; \
             echo ready $SLURMD_NODENAME; sleep 100 & wait'; echo srun=$?",
        ],
    );
    let _cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: vec![id.clone()],
    };
    let out_file = dir.join(format!("nodes-{id}.out"));
    // Two containers at once may wait a while for the other tests' sessions to end.
    let deadline = Instant::now() + 2 * START;
    loop {
        let out = std::fs::read_to_string(&out_file).unwrap_or_default();
        if out.contains("ready main1\n") && out.contains("ready sub1\n") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the tasks did not start: {out:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let r = site.run(&dir, "scancel", &["-s", "USR1", &id]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1..], ["COMPLETED", "0:0"], "{rows:?}");
    let out = std::fs::read_to_string(&out_file).unwrap();
    let mut lines: Vec<&str> = out.lines().collect();
    lines[2..4].sort();
    lines[4..6].sort();
    assert_eq!(
        lines,
        [
            "2 main1,sub1",
            "sub1 is up",
            "ready main1",
            "ready sub1",
            "got USR1 on main1",
            "got USR1 on sub1",
            "srun=0"
        ][..],
        "{out}"
    );
    let r = site.run(
        &dir,
        "sacct",
        &["-X", "-n", "-P", "-j", &id, "-o", "nnodes,alloccpus"],
    );
    assert_eq!(r.stdout, "2|2\n", "{r:?}");
}

#[test]
fn sinfo_lists_the_resource_group_and_its_agent() {
    let _shared = shared();
    for site in [user(), admin()] {
        let dir = site.workdir("sinfo");
        let r = site.run(&dir, "sinfo", &["-h", "-o", "%P %a %D %N"]);
        assert_eq!(r.code, 0, "{r:?}");
        let fields: Vec<&str> = r.stdout.split_whitespace().collect();
        assert_eq!(fields[..3], ["batch*", "up", "1"], "{r:?}");
        assert!(!fields[3].is_empty());
        assert_eq!(count(&r.requests, "GET /scaling-groups"), 1, "{r:?}");
        assert_eq!(count(&r.requests, "POST /admin/gql"), 1, "{r:?}");
    }
}

#[test]
fn failures_speak_slurm() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("errors");
    // A rejected keypair: one line naming the cause, never the secret.
    let r = site.run_with(
        &dir,
        "sbatch",
        &["--wrap", "true"],
        &[("BACKEND_SECRET_KEY", "not-the-secret-key-at-all")],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.starts_with(
            "sbatch: error: Batch job submission failed: Backend.AI refused the credentials"
        ),
        "{r:?}"
    );
    assert!(!r.stderr.contains("not-the-secret-key-at-all"));
    let r = site.run_with(
        &dir,
        "squeue",
        &[],
        &[("BACKEND_SECRET_KEY", "not-the-secret-key-at-all")],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("Backend.AI refused the credentials"),
        "{r:?}"
    );
    // A manager that does not answer: Slurm's own words.
    let down = [("BACKEND_ENDPOINT", "http://127.0.0.1:9")];
    let r = site.run_with(&dir, "squeue", &[], &down);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"
        ),
        "{r:?}"
    );
    let r = site.run_with(&dir, "sbatch", &["--wrap", "true"], &down);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n"
        ),
        "{r:?}"
    );
    // An image the registry does not have.
    let r = site.run(
        &dir,
        "sbatch",
        &["--container-image=local/no-such-image:1", "--wrap", "true"],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("No such environment image"), "{r:?}");
    // A partition that does not exist.
    let r = site.run(&dir, "sbatch", &["-p", "nope", "--wrap", "true"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "sbatch: error: invalid partition specified: nope\n\
             sbatch: error: Batch job submission failed: Invalid partition name specified\n"
        ),
        "{r:?}"
    );
    // What Backend.AI cannot do is refused, not dropped.
    let r = site.run(
        &dir,
        "sbatch",
        &["--dependency=afterany:1", "--wrap", "true"],
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("afterany is not supported"), "{r:?}");
    // A throttle that holds tasks back chains the tasks (task i+2 after task i: the
    // session ids are known once made, so translate names them); one that holds none
    // back (submitit's `%min(N,256)`) chains nothing and makes one session per task.
    let r = site.run(
        &dir,
        "bai-slurm",
        &["translate", "--array=0-3%2", "--wrap", "true"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.matches("\"/session\"").count(), 4, "{r:?}");
    assert_eq!(r.stdout.matches("\"(the session of j").count(), 2, "{r:?}");
    assert!(r.requests.iter().all(|q| q != "POST /session"), "{r:?}");
    let r = site.run(
        &dir,
        "bai-slurm",
        &["translate", "--array=0-2%3", "--wrap", "true"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.matches("\"/session\"").count(), 3, "{r:?}");
    assert_eq!(r.stdout.matches("(the session of").count(), 0, "{r:?}");
}

/// Jobs in the paging test. 500 would be the issue's number, but on this two-CPU stack
/// 23.09's manager slows down with every pending session (480 creates took 7.5 minutes,
/// deletes ran at 0.3-0.4 per second, and 120 jobs made this test take 10 minutes), so it
/// pages 60 jobs 25 at a time: one request for all of them at the default page size
/// (1000), three at 25. Paging is the same code whatever the page size.
const MANY: usize = 60;
const PAGE: usize = 25;

#[test]
fn requests_per_command_stay_bounded() {
    let _alone = EXCLUSIVE.write().unwrap_or_else(|e| e.into_inner());
    let site = admin();
    let dir = site.workdir("count");
    let mut cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: Vec::new(),
    };
    // sbatch: whether the id is free (an ended session keeps its name), then one create
    // (once the server's version is known).
    let first = site.run(
        &dir,
        "sbatch",
        &["--parsable", "--begin=now+1hour", "--wrap", "true"],
    );
    assert_eq!(first.code, 0, "{first:?}");
    cleanup.jobs.push(first.stdout.trim().to_string());
    let r = site.run(
        &dir,
        "sbatch",
        &["--parsable", "--begin=now+1hour", "--wrap", "true"],
    );
    cleanup.jobs.push(r.stdout.trim().to_string());
    assert_eq!(r.requests, ["POST /admin/gql", "POST /session"], "{r:?}");
    // translate: the requests sbatch would send, and none sent.
    let r = site.run(
        &dir,
        "bai-slurm",
        &[
            "translate",
            "--array=0-2",
            "-n",
            "2",
            "--mem=1G",
            "--wrap",
            "true",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.requests, Vec::<String>::new(), "{r:?}");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let id = doc["job_id"].as_u64().expect("the id it would get");
    let requests = doc["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 3, "{doc}");
    for (task, req) in requests.iter().enumerate() {
        assert_eq!(req["method"], "POST");
        assert_eq!(req["body"]["name"], format!("j{id}_{task}"));
        let config = &req["body"]["config"];
        assert_eq!(config["resources"]["cpu"], 2);
        assert_eq!(config["resources"]["mem"], "1024m");
        assert!(
            config["environ"].get("BACKEND_SECRET_KEY").is_none(),
            "{doc}"
        );
    }
    // An array: whether the id is free, then one create per task, nothing else.
    let range = format!("--array=0-{}", MANY - 1);
    let r = site.run(
        &dir,
        "sbatch",
        &["--parsable", &range, "--begin=now+1hour", "--wrap", "true"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let array = r.stdout.trim().to_string();
    cleanup.jobs.push(array.clone());
    // A create a loaded manager fails (a 5xx, no answer) is tried again, a few times at
    // most (submission.rs CREATE_ATTEMPTS): seen once in CI on 23.09, 61 for 60 tasks.
    let creates = count(&r.requests, "POST /session");
    assert!(
        (MANY..=MANY + 3).contains(&creates),
        "{creates}: {:?}",
        r.stderr
    );
    assert_eq!(r.requests.len(), creates + 1, "{:?}", r.requests);
    // squeue: one GraphQL request per page of sessions, never one per job.
    let paged = dir.join("paged.toml");
    std::fs::write(&paged, format!("[backendai]\npage_size = {PAGE}\n")).unwrap();
    let paged_env = [("BAI_SLURM_CONFIG", paged.to_str().unwrap())];
    let listing = |r: &Run| {
        // Anything else is a one-time log read of some other job that just finished, or
        // the end of a session Backend.AI left running after its job (batch_ended).
        assert!(
            r.requests.iter().all(|q| q == "POST /admin/gql"
                || q.ends_with("/logs")
                || q.starts_with("DELETE /session/")),
            "{r:?}"
        );
        count(&r.requests, "POST /admin/gql")
    };
    let r = site.run(&dir, "squeue", &["-h", "-j", &array, "-o", "%i %t"]);
    assert_eq!(r.stdout, format!("{array}_[0-{}] PD\n", MANY - 1), "{r:?}");
    assert_eq!(listing(&r), 1, "{r:?}");
    let r = site.run_with(
        &dir,
        "squeue",
        &["-h", "-j", &array, "-o", "%i %t"],
        &paged_env,
    );
    assert_eq!(r.stdout, format!("{array}_[0-{}] PD\n", MANY - 1), "{r:?}");
    let sessions = listing(&r);
    assert!(
        sessions >= MANY.div_ceil(PAGE) && sessions <= MANY.div_ceil(PAGE) + 2,
        "{MANY} jobs (and a few others) in pages of {PAGE}: {r:?}"
    );
    // sacct: the same single query for the jobs it names.
    let r = site.run(
        &dir,
        "sacct",
        &["-X", "-n", "-j", &array, "-o", "jobid%20,state"],
    );
    assert_eq!(listing(&r), 1, "{r:?}");
    // scancel: one query, one delete per session, and two queries that read them back (a
    // cancel must stick: once at once, once more when the scheduler can no longer start a
    // pending session it had picked). 23.09: none of these needs a second delete.
    // 26.9 moves pending sessions through DEPRIORITIZING, and one deleted then can come
    // back PENDING: another round deletes those again (one query and a delete each).
    let r = site.run(&dir, "scancel", &[&array]);
    assert_eq!(r.code, 0, "{r:?}");
    let (queries, deletes) = (
        count(&r.requests, "POST /admin/gql"),
        count(&r.requests, "DELETE /session/"),
    );
    let v9 = site.client().api_version().unwrap().major >= 9;
    if v9 && queries > 3 {
        assert!(
            queries <= 7 && deletes > MANY && deletes <= 2 * MANY,
            "{r:?}"
        );
    } else {
        // (one read more is allowed: seen once in CI under load, three reads in a row after
        // the deletes, none deleting again; a read-back that runs to a second page, or a
        // read the manager's database refused under concurrent writes and that is asked
        // again, both bounded; and a session the scheduler was starting as its DELETE
        // came, deleted again after the read-back: seen once on 23.09, 61 deletes for 60)
        assert!(
            (3..=4).contains(&queries) && (MANY..=MANY + 4).contains(&deletes),
            "{r:?}"
        );
    }
    let r = site.run(&dir, "squeue", &["-h", "-j", &array]);
    assert_eq!(r.stdout, "", "{r:?}");
    // sacct of the ended array: read once (one query), then from the cache with no
    // request at all, the same bytes (a session the manager has not marked ended yet
    // keeps the job out of the cache: asked again until it has).
    let sacct = || {
        site.run(
            &dir,
            "sacct",
            &["-n", "-j", &array, "-o", "jobid%20,state,exitcode"],
        )
    };
    let mut before = sacct();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = sacct();
        assert_eq!(r.code, 0, "{r:?}");
        if r.requests.is_empty() {
            assert_eq!(r.stdout, before.stdout, "{r:?}");
            assert_eq!(r.stdout.matches("CANCELLED").count(), MANY, "{r:?}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "sacct of an ended array still asks: {r:?}"
        );
        before = r;
        std::thread::sleep(Duration::from_secs(2));
    }
}

#[test]
fn the_superadmin_sees_and_cancels_a_users_job() {
    let _shared = shared();
    let dir = user().workdir("admin");
    let id = user().sbatch(
        &dir,
        &["-J", "users-job", "--begin=now+1hour", "--wrap", "true"],
    );
    let adir = admin().workdir("admin");
    // The admin's login node has never seen this job: its metadata comes from the manager.
    let r = admin().run(&adir, "squeue", &["-h", "-j", &id, "-o", "%i %j %u %t %r"]);
    assert_eq!(
        r.stdout,
        format!("{id} users-job root PD BeginTime\n"),
        "{r:?}"
    );
    let r = admin().run(&adir, "scancel", &[&id]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = user().wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1], "CANCELLED by 0", "{rows:?}");
}

/// An operator changes a user's jobs as slurmctld lets root: root (with the manager's
/// superadmin keypair) holds, updates, releases and requeues alice's job (uid 1001, her
/// own keypair). Each session is made again as hers (`owner_access_key`: she sees it in
/// her views, her dependent is made again to name it), from her kept request read as her;
/// what root writes in her places belongs to her; she cannot release root's hold; her own
/// `scancel -s` reaches the job root made again (its step secret is the one her commands
/// derive); and the job runs as hers to its end. Backend.AI 23.09 would mount root's own
/// vfolders of the names her job mounts in a session made for her: there root's changes
/// that make a session again are refused before anything ends, and those of a running
/// job (marks) are made.
#[test]
fn an_operator_changes_a_users_job_as_theirs() {
    let _shared = shared();
    let owner = alice();
    let root = admin();
    let (dir, gated, mut cancel) = job_dir_test(owner, "operator");
    let job_dir = job_dir_of(owner);
    let env = [("BAI_SLURM_CONFIG", gated.as_str())];
    // Root's login node knows the site's storage as every login node does.
    let root_config = dir.join("root.toml");
    std::fs::write(
        &root_config,
        format!(
            "[backendai]\njob_dir = \"{}\"\n[[backendai.storage]]\npath = \"{}\"\nvfolder = \"bai-slurm-work\"\n",
            job_dir.display(),
            owner.work_root.display()
        ),
    )
    .unwrap();
    let root_env = [("BAI_SLURM_CONFIG", root_config.to_str().unwrap())];
    let as_root = |args: &[&str]| {
        let r = root.run_with(&dir, "scontrol", args, &root_env);
        (r.code, r.stdout, r.stderr)
    };
    let refused = |args: &[&str]| {
        let (code, out, err) = as_root(args);
        assert_eq!((code, out.as_str()), (1, ""), "{args:?}: {err}");
        assert!(err.contains("mounts vfolders by name"), "{args:?}: {err}");
    };
    let remakes = root.client().api_version().unwrap().major >= 8;
    let ok = (0, String::new(), String::new());
    let squeue = |id: &str| {
        owner
            .run_with(
                &dir,
                "squeue",
                &["-h", "-j", id, "-o", "%t %r %Q %l %u"],
                &env,
            )
            .stdout
    };
    let job = cancel.sbatch_with(
        &[
            "--begin=now+1hour",
            "--wrap",
            "trap 'echo USR1 >> usr1' USR1; trap 'echo USR2 >> usr2' USR2; \
             until [ -e ended ]; do sleep 1; done",
        ],
        &env,
    );
    let dependent = cancel.sbatch_with(
        &[
            &format!("--dependency=afterok:{job}"),
            "--wrap",
            "touch dependent-ran",
        ],
        &env,
    );
    assert_eq!(squeue(&job), "PD BeginTime 1 UNLIMITED alice\n");
    let job_id = format!("JobId={job}");
    let limit = if remakes {
        // Root's hold is an administrator's: alice cannot take it back.
        assert_eq!(as_root(&["hold", &job]), ok);
        assert_eq!(squeue(&job), "PD JobHeldAdmin 0 UNLIMITED alice\n");
        let r = owner.run_with(&dir, "scontrol", &["release", &job], &env);
        assert_eq!(r.code, 1, "{r:?}");
        assert!(r.stderr.contains("Access/permission denied"), "{r:?}");
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let kept = std::fs::metadata(job_dir.join(format!("1001.requests/{job}.json"))).unwrap();
        assert_eq!(
            (kept.uid(), kept.permissions().mode() & 0o777),
            (1001, 0o600),
            "the kept request root wrote again stays alice's own"
        );
        assert_eq!(as_root(&["update", &job_id, "TimeLimit=7"]), ok);
        assert_eq!(squeue(&job), "PD JobHeldAdmin 0 7:00 alice\n");
        assert_eq!(as_root(&["release", &job]), ok);
        assert_eq!(squeue(&job), "PD BeginTime 1 7:00 alice\n");
        // Her dependent was made again to name the job's newest session.
        assert_eq!(squeue(&dependent), "PD Dependency 1 UNLIMITED alice\n");
        assert_eq!(as_root(&["update", &job_id, "StartTime=now"]), ok);
        "7:00"
    } else {
        refused(&["hold", &job]);
        refused(&["update", &job_id, "TimeLimit=7"]);
        // Nothing was ended: the job waits as it did, and its owner lets it start.
        assert_eq!(squeue(&job), "PD BeginTime 1 UNLIMITED alice\n");
        let r = owner.run_with(
            &dir,
            "scontrol",
            &["update", &job_id, "StartTime=now"],
            &env,
        );
        assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
        "UNLIMITED"
    };
    let running = format!("R None 1 {limit} alice\n");
    let deadline = Instant::now() + START;
    while squeue(&job) != running {
        assert!(Instant::now() < deadline, "never ran: {}", squeue(&job));
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }

    // A running job's hold is a mark in her place, hers.
    assert_eq!(as_root(&["hold", &job]), ok);
    assert_eq!(squeue(&job), format!("R JobHeldAdmin 0 {limit} alice\n"));
    let mark = std::fs::metadata(job_dir.join(format!("1001.running/{job}.held"))).unwrap();
    assert_eq!(mark.uid(), 1001, "root's mark belongs to alice");
    assert_eq!(as_root(&["release", &job]), ok);
    assert_eq!(squeue(&job), running);

    // Her scancel derives the secret of the session root made (`-b`: the batch shell).
    let r = owner.run_with(&dir, "scancel", &["-b", "-s", "USR1", &job], &env);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let arrived = |file: &str, line: &str| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::fs::read_to_string(dir.join(file)).unwrap_or_default() != line {
            assert!(
                Instant::now() < deadline,
                "{line:?} never reached the script"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    };
    arrived("usr1", "USR1\n");
    // Root's goes through a mark her job's launcher polls (the manager's tunnel reaches
    // a session only with its owner's keypair).
    let r = root.run_with(&dir, "scancel", &["-b", "-s", "USR2", &job], &root_env);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    arrived("usr2", "USR2\n");
    use std::os::unix::fs::MetadataExt;
    let mark = std::fs::metadata(job_dir.join(format!("1001.running/{job}.signal"))).unwrap();
    assert_eq!(mark.uid(), 1001, "root's signal mark belongs to alice");
    std::fs::write(dir.join("ended"), b"").unwrap();
    let rows = owner.wait_sacct_with(
        &dir,
        &format!("{job},{dependent}"),
        "jobid,state,exitcode,user",
        &env,
        Duration::from_secs(300),
        |rows| rows.len() == 2 && rows.iter().all(|r| r[1] == "COMPLETED"),
    );
    assert!(rows.iter().all(|r| r[2..] == ["0:0", "alice"]), "{rows:?}");
    assert!(dir.join("dependent-ran").exists());

    // Root's scancel of her running job: her launcher ends it as slurmstepd does.
    let other = cancel.sbatch_with(&["--wrap", "sleep 600"], &env);
    let deadline = Instant::now() + START;
    while !squeue(&other).starts_with("R ") {
        assert!(Instant::now() < deadline, "never ran: {}", squeue(&other));
        std::thread::sleep(Duration::from_millis(POLL_MS));
    }
    std::thread::sleep(Duration::from_secs(6)); // its launcher's script is started
    let r = root.run_with(&dir, "scancel", &[&other], &root_env);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = owner.wait_finished(&dir, &other, Duration::from_secs(120));
    assert_eq!(rows[0][1], "CANCELLED by 0", "{rows:?}");
    let out = std::fs::read_to_string(dir.join(format!("slurm-{other}.out"))).unwrap();
    assert!(
        out.contains(&format!("*** JOB {other} ON ")) && out.contains(" CANCELLED AT "),
        "{out}"
    );

    // Root's cancel of her waiting job: sacct names root, not her.
    let later = cancel.sbatch_with(&["--begin=now+1hour", "--wrap", "true"], &env);
    let r = root.run_with(&dir, "scancel", &[&later], &root_env);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{r:?}");
    let rows = owner.wait_finished(&dir, &later, Duration::from_secs(60));
    assert_eq!(rows[0][1], "CANCELLED by 0", "{rows:?}");

    // Requeued by root, it is submitted anew as hers.
    if !remakes {
        refused(&["requeue", &job]);
        return;
    }
    assert_eq!(as_root(&["requeue", &job]), ok);
    assert_eq!(squeue(&job), "PD BeginTime 1 7:00 alice\n");
    let show = owner
        .run_with(&dir, "scontrol", &["show", "job", &job], &env)
        .stdout;
    assert!(show.contains(" Restarts=1 "), "{show}");
}

/// Where a job runs and what it sees (issue 11): `--nodelist` and `--exclude` become the
/// session's `agent_list`, `--exclusive` a whole agent, `--container-mounts` vfolder mounts
/// by id (read-only with `ro`), `--container-workdir` the directory the script starts in;
/// what the cluster has not got is refused with slurmctld's words.
#[test]
fn placement_mounts_and_workdir_reach_the_containers() {
    let _shared = shared();
    let site = admin();
    let dir = site.workdir("placement");
    let mut cleanup = CancelOnDrop {
        site,
        dir: dir.clone(),
        jobs: Vec::new(),
    };
    let agent = site.run(&dir, "sinfo", &["-h", "-N", "-o", "%N"]);
    assert_eq!(agent.code, 0, "{agent:?}");
    let agent = agent
        .stdout
        .lines()
        .next()
        .expect("an agent")
        .trim()
        .to_string();

    // Read-only mounts (`ro`) need API v8 (Backend.AI 24.03+); 23.09 mounts by name.
    let api = site.client().api_version().unwrap().major;
    // A vfolder of the user's own, with a file in it.
    let data = {
        let settings = Settings {
            access_key: site.access_key.clone(),
            secret_key: site.secret_key.clone(),
            ..Settings::from_env(|k| std::env::var(k).ok()).unwrap()
        };
        vfolder(&Client::new(settings).unwrap(), "bai-slurm-data")
    };
    std::fs::write(data.join("hello"), "from the vfolder\n").unwrap();
    set_mode(&data.join("hello"), 0o644);
    let script = "pwd; cat /mnt/data/hello";
    let nodelist = format!("--nodelist={agent}");
    let id = site.sbatch(
        &dir,
        &[
            &nodelist,
            "--container-workdir=/tmp",
            "--container-mounts=bai-slurm-data:/mnt/data",
            "--wrap",
            script,
        ],
    );
    cleanup.jobs.push(id.clone());
    let show = site.run(&dir, "scontrol", &["show", "job", &id]);
    assert!(
        show.stdout.contains(&format!("ReqNodeList={agent} ")),
        "{show:?}"
    );
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1..], ["COMPLETED", "0:0"], "{rows:?}");
    let out = std::fs::read_to_string(dir.join(format!("slurm-{id}.out"))).unwrap();
    assert_eq!(out, "/tmp\nfrom the vfolder\n");
    let show = site.run(&dir, "scontrol", &["show", "job", &id]);
    assert!(
        show.stdout.contains(&format!(" NodeList={agent}\n")),
        "{show:?}"
    );

    // The request: agent_list, the mount, a whole agent for --exclusive.
    let r = site.run(
        &dir,
        "bai-slurm",
        &[
            "translate",
            &nodelist,
            "--exclusive",
            "--container-mounts=bai-slurm-data:/mnt/data",
            "--wrap",
            "true",
        ],
    );
    assert_eq!(r.code, 0, "{r:?}");
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let config = &doc["requests"][0]["body"]["config"];
    assert_eq!(config["agent_list"], serde_json::json!([agent]), "{config}");
    let cpus = site.run(&dir, "sinfo", &["-h", "-N", "-o", "%c"]);
    assert_eq!(
        config["resources"]["cpu"].to_string(),
        cpus.stdout.lines().next().unwrap().trim(),
        "{config}"
    );
    let mounted: Vec<&str> = config["mounts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    // a vfolder id: a UUID, with dashes (24.x) or 32 hex digits (26.9's GET /folders)
    let by_id = |m: &str| {
        let hex: String = m.chars().filter(|c| *c != '-').collect();
        hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit())
    };
    let key = if api >= 8 {
        // the site's own vfolders (tools, work) are mounted by id too
        assert!(mounted.iter().all(|m| by_id(m)), "{mounted:?}");
        *mounted
            .iter()
            .find(|m| config["mount_map"][**m] == "/mnt/data")
            .unwrap_or_else(|| panic!("no mount at /mnt/data in {config}"))
    } else {
        assert!(mounted.contains(&"bai-slurm-data"), "{mounted:?}");
        "bai-slurm-data"
    };
    assert_eq!(config["mount_map"][key], "/mnt/data", "{config}");
    let ro = site.run(
        &dir,
        "bai-slurm",
        &[
            "translate",
            "--container-mounts=bai-slurm-data:/mnt/data:ro",
            "--wrap",
            "true",
        ],
    );
    if api >= 8 {
        let doc: serde_json::Value = serde_json::from_str(&ro.stdout).expect("JSON");
        let config = &doc["requests"][0]["body"]["config"];
        // the data folder's id (the launcher's and the working directory's are mounted too)
        let key = config["mount_map"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(id, at)| by_id(id) && at.as_str() == Some("/mnt/data"))
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("{config}"));
        assert_eq!(
            config["mount_options"][&key]["permission"], "ro",
            "{config}"
        );
    } else {
        assert_eq!(ro.code, 1, "{ro:?}");
        assert!(
            ro.stderr
                .contains("read-only mounts need Backend.AI 24.03 or later"),
            "{ro:?}"
        );
    }

    // What the cluster has not got.
    for (args, want) in [
        (vec!["--nodelist=nosuch"], "Invalid node name specified"),
        (
            vec![&format!("--exclude={agent}")[..]],
            "Requested node configuration is not available",
        ),
        (vec!["--constraint=fast"], "Invalid feature specification"),
        (
            vec!["--reservation=resv"],
            "Requested reservation is invalid",
        ),
        (vec!["--licenses=lic:1"], "Invalid license specification"),
    ] {
        let mut all = args.clone();
        all.extend(["--wrap", "true"]);
        let r = site.run(&dir, "sbatch", &all);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (
                1,
                format!("sbatch: error: Batch job submission failed: {want}\n").as_str()
            ),
            "{args:?}"
        );
        assert_eq!(count(&r.requests, "POST /session"), 0, "{r:?}");
    }
    // Only a superadmin may choose agents: a user's keypair is told so, and nothing is made.
    let user_site = user();
    let udir = user_site.workdir("placement-user");
    let r = user_site.run(&udir, "sbatch", &[&nodelist, "--wrap", "true"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr
            .contains("--nodelist and --exclude need a Backend.AI superadmin's keypair"),
        "{r:?}"
    );
    assert_eq!(count(&r.requests, "POST /session"), 0, "{r:?}");

    // The site's own mounts cannot be moved; host paths off the storage cannot be mounted.
    for (mount, want) in [
        (
            "bai-slurm-tools:/elsewhere",
            "--container-mounts: vfolder bai-slurm-tools is mounted at /opt/bai-slurm for every job here",
        ),
        (
            "/not/storage:/x",
            "--container-mounts: /not/storage is not storage Backend.AI can mount",
        ),
    ] {
        let arg = format!("--container-mounts={mount}");
        let r = site.run(&dir, "sbatch", &[&arg, "--wrap", "true"]);
        assert_eq!(r.code, 1, "{r:?}");
        assert!(
            r.stderr.starts_with(&format!(
                "sbatch: error: Batch job submission failed: {want}"
            )),
            "{r:?}"
        );
        assert_eq!(count(&r.requests, "POST /session"), 0, "{r:?}");
    }
}

/// The simplest setup a site tries: no partition configured, the image given on the command
/// line. The manager chooses the resource group (a blank `scaling_group` was a 500 on 23.09),
/// and the views show the job in it.
#[test]
fn a_job_runs_with_no_partition_configured() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("nopart");
    let config = site.home.join("no-partitions");
    std::fs::create_dir_all(config.join("bai-slurm")).unwrap();
    let full = std::fs::read_to_string(site.home.join(".config/bai-slurm/config.toml")).unwrap();
    let without = full.split("[[partitions]]").next().unwrap().to_string();
    std::fs::write(config.join("bai-slurm/config.toml"), without).unwrap();
    let config = config.display().to_string();
    let env = [("XDG_CONFIG_HOME", config.as_str())];
    let image = format!("--container-image={}", var("BAI_IMAGE"));
    let r = site.run_with(
        &dir,
        "sbatch",
        &[
            "--parsable",
            &image,
            "--wrap",
            "srun -n 1 echo step-ok; exit 4",
        ],
        &env,
    );
    assert_eq!(r.code, 0, "{r:?}");
    let id = r.stdout.trim().to_string();
    let t = site.run_with(
        &dir,
        "bai-slurm",
        &["translate", &image, "--wrap", "true"],
        &env,
    );
    assert_eq!(t.code, 0, "{t:?}");
    assert!(
        t.stdout.contains("\"resources\"") && !t.stdout.contains("scaling_group"),
        "{t:?}"
    );
    let deadline = Instant::now() + START;
    let row = loop {
        let r = site.run_with(
            &dir,
            "sacct",
            &[
                "-X",
                "-P",
                "-n",
                "-j",
                &id,
                "-o",
                "jobid,partition,state,exitcode",
            ],
            &env,
        );
        assert_eq!(r.code, 0, "{r:?}");
        let row = r.stdout.trim().to_string();
        if row.ends_with("FAILED|4:0") || Instant::now() > deadline {
            break row;
        }
        std::thread::sleep(Duration::from_millis(POLL_MS));
    };
    assert_eq!(
        row,
        format!(
            "{id}|{}|FAILED|4:0",
            std::env::var("BAI_SCALING_GROUP").unwrap_or_else(|_| "default".into())
        )
    );
    // srun inside the job found its job, not the login node's Backend.AI settings (which
    // the job's environment, exported whole, does not carry into the session), and found
    // itself on PATH though the login node's PATH leads nowhere in the container.
    let out = std::fs::read_to_string(dir.join(format!("slurm-{id}.out"))).unwrap();
    assert_eq!(out, "step-ok\n");
}

/// Slurm takes any memory request; Backend.AI refuses one below the image's minimum. As
/// Snakemake sends `--mem 200`: the request is raised to the minimum, and `-v` says so.
#[test]
fn a_memory_request_below_the_images_minimum_is_raised() {
    let _shared = shared();
    let site = user();
    let dir = site.workdir("small-mem");
    let r = site.run(
        &dir,
        "sbatch",
        &["-v", "--parsable", "--mem=200", "--wrap", "echo small"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("sbatch: raised to the image's minimum for job ")
            && r.stderr.contains(": mem 200m -> "),
        "{r:?}"
    );
    let id = r.stdout.trim().to_string();
    let rows = site.wait_finished(&dir, &id, START);
    assert_eq!(rows[0][1..], ["COMPLETED", "0:0"], "{rows:?}");
}

/// Two Unix users sharing one keypair (root and alice on two login nodes whose id
/// counters stand at the same number) submit at the same moment: both ask for the same
/// session name, one is made and the other refused (or answered 500 by a 23.09 manager,
/// whose check both passed). Each gets a job of its own: distinct ids, each its owner's,
/// never the other's session taken for its own.
#[test]
fn two_users_sharing_a_keypair_never_take_one_id() {
    let _shared = shared();
    let (root, owner) = (user(), alice());
    let dir = root.workdir("same-id");
    let mut cancel = CancelOnDrop {
        site: root,
        dir: dir.clone(),
        jobs: Vec::new(),
    };
    let submit = |site: &'static Site, dir: PathBuf| {
        let r = site.run(
            &dir,
            "sbatch",
            &["--parsable", "--begin=now+1hour", "--wrap", "true"],
        );
        assert_eq!(r.code, 0, "{r:?}");
        r.stdout.trim().to_string()
    };
    // The first submissions make each login node's counter file.
    let first = [submit(root, dir.clone()), submit(owner, dir.clone())];
    cancel.jobs.extend(first.iter().cloned());
    let counter = |site: &Site| {
        let caches = site.state.join("bai-slurm/backendai");
        let hash = std::fs::read_dir(&caches).unwrap().next().unwrap().unwrap();
        hash.path().join("jobid")
    };
    let (root_counter, owner_counter) = (counter(root), counter(owner));
    let mut ids: Vec<(String, &str)> = Vec::new();
    for round in 0..3u32 {
        let last: u32 = first
            .iter()
            .map(|i| i.parse::<u32>().unwrap())
            .max()
            .unwrap();
        let same = (last + 100 + round * 10).to_string();
        std::fs::write(&root_counter, &same).unwrap();
        std::fs::write(&owner_counter, &same).unwrap();
        let (d1, d2) = (dir.clone(), dir.clone());
        let a = std::thread::spawn(move || submit(root, d1));
        let b = std::thread::spawn(move || submit(owner, d2));
        ids.push((a.join().unwrap(), "root"));
        ids.push((b.join().unwrap(), "alice"));
    }
    cancel.jobs.extend(ids.iter().map(|(id, _)| id.clone()));
    let distinct: std::collections::BTreeSet<&str> = ids.iter().map(|(i, _)| i.as_str()).collect();
    assert_eq!(distinct.len(), ids.len(), "one id given twice: {ids:?}");
    // Root's login node knows only what the sessions say: whose each job is.
    let all: Vec<&str> = ids.iter().map(|(i, _)| i.as_str()).collect();
    let r = root.run(&dir, "squeue", &["-h", "-j", &all.join(","), "-o", "%i %u"]);
    let mut shown: Vec<&str> = r.stdout.lines().collect();
    shown.sort();
    let mut want: Vec<String> = ids.iter().map(|(i, u)| format!("{i} {u}")).collect();
    want.sort();
    assert_eq!(shown, want, "{r:?}");
}
