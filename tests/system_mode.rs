//! The local backend's system mode (issue 15): one queue for every user of the machine,
//! kept by `bai-slurm service` started as the packages' systemd unit starts it (its
//! `ExecStart` and `UMask`, a clean environment), driven by real users (alice and bob,
//! whom scripts/test.sh makes) through the real commands, and by raw clients on its socket.
//! Runs as root (the service must); the users' two-user scenario against Slurm 22.05 is
//! tests/scenarios/two_users.scn, replayed on this mode by tests/scenario_replay.rs.

mod harness;

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const UNIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/bai-slurm.service");

struct User {
    name: &'static str,
    uid: u32,
    gid: u32,
    home: PathBuf,
}

fn user(name: &'static str) -> User {
    let u = nix::unistd::User::from_name(name)
        .ok()
        .flatten()
        .unwrap_or_else(|| panic!("user {name} is needed (./scripts/test.sh makes alice and bob)"));
    User {
        name,
        uid: u.uid.as_raw(),
        gid: u.gid.as_raw(),
        home: u.dir,
    }
}

/// A service of our own: its directory (the binary, the configuration, the state, the
/// socket, a working directory per user), and the process.
struct Site {
    base: PathBuf,
    _tmp: tempfile::TempDir,
    service: Option<std::process::Child>,
}

/// `Key=value` of the packages' unit.
fn unit_setting(key: &str) -> String {
    let unit = std::fs::read_to_string(UNIT).unwrap();
    unit.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{UNIT} has no {key}="))
        .to_string()
}

impl Site {
    fn new() -> Site {
        Site::with_config("")
    }

    /// A site whose `[local]` table also holds `local` (TOML lines).
    fn with_config(local: &str) -> Site {
        assert!(
            nix::unistd::geteuid().is_root(),
            "the system mode's tests run as root (the service starts jobs as their users)"
        );
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().to_path_buf();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        let bin = base.join("bin");
        std::fs::create_dir(&bin).unwrap();
        // A copy every user can run, whatever the build directory's permissions.
        harness::copy_program(&bin.join("bai-slurm"));
        for c in [
            "sbatch", "squeue", "scancel", "srun", "salloc", "sinfo", "sacct", "scontrol",
        ] {
            std::os::unix::fs::symlink("bai-slurm", bin.join(c)).unwrap();
        }
        std::fs::write(
            base.join("config.toml"),
            format!(
                "cluster_name = \"shared\"\n[local]\nmode = \"system\"\nsocket = \"{}\"\n\
                 state_dir = \"{}\"\nnode_name = \"box\"\ncpus = 2\nmemory_mb = 4000\n\
                 kill_wait = 2\nidle_exit = 5\n{local}",
                base.join("run/local.sock").display(),
                base.join("state").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(
            base.join("config.toml"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        for u in ["alice", "bob"] {
            let u = user(u);
            let work = base.join(format!("work-{}", u.name));
            std::fs::create_dir(&work).unwrap();
            nix::unistd::chown(
                &work,
                Some(nix::unistd::Uid::from_raw(u.uid)),
                Some(nix::unistd::Gid::from_raw(u.gid)),
            )
            .unwrap();
        }
        let mut site = Site {
            base,
            _tmp: tmp,
            service: None,
        };
        site.start();
        site
    }

    fn socket(&self) -> PathBuf {
        self.base.join("run/local.sock")
    }

    fn state(&self) -> PathBuf {
        self.base.join("state")
    }

    /// Starts the service the way the unit does: its ExecStart (bai-slurm at our path),
    /// its UMask, an environment as clean as systemd gives.
    fn start(&mut self) {
        let exec = unit_setting("ExecStart");
        let mut words = exec.split_whitespace();
        assert_eq!(words.next(), Some("/usr/bin/bai-slurm"), "{exec}");
        let umask = u32::from_str_radix(&unit_setting("UMask"), 8).unwrap();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.base.join("service.log"))
            .unwrap();
        let mut cmd = Command::new(self.base.join("bin/bai-slurm"));
        cmd.args(words)
            .env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("BAI_SLURM_SYSTEM_CONFIG", self.base.join("config.toml"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        // SAFETY: umask is async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                libc::umask(umask);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("bai-slurm service");
        self.service = Some(child);
        let started = Instant::now();
        while std::os::unix::net::UnixStream::connect(self.socket()).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the service never listened: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill_service(&mut self) {
        if let Some(mut c) = self.service.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.base.join("service.log")).unwrap_or_default()
    }

    /// Runs `script` (bash) as `who` ("root" too), in their working directory, with a
    /// login-like environment and our commands first on PATH.
    fn run(&self, who: &str, script: &str) -> Output {
        let (uid, gid, home, work) = if who == "root" {
            (0, 0, PathBuf::from("/root"), self.base.clone())
        } else {
            let u = user(if who == "alice" { "alice" } else { "bob" });
            let work = self.base.join(format!("work-{}", u.name));
            (u.uid, u.gid, u.home, work)
        };
        let mut cmd = Command::new("/bin/bash");
        cmd.arg("-c")
            .arg(script)
            .current_dir(&work)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.base.join("bin").display()),
            )
            .env("HOME", home)
            .env("USER", who)
            .env("LOGNAME", who)
            .env("LANG", "C")
            .env("BAI_SLURM_SYSTEM_CONFIG", self.base.join("config.toml"))
            .stdin(Stdio::null());
        if uid != 0 {
            let groups = nix::unistd::getgrouplist(
                &std::ffi::CString::new(who).unwrap(),
                nix::unistd::Gid::from_raw(gid),
            )
            .unwrap()
            .into_iter()
            .map(|g| g.as_raw())
            .collect::<Vec<_>>();
            // SAFETY: setgroups, setgid and setuid are async-signal-safe; `groups` is only
            // read.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setgroups(groups.len(), groups.as_ptr()) != 0
                        || libc::setgid(gid) != 0
                        || libc::setuid(uid) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        cmd.output().unwrap()
    }

    /// [`Site::run`] that must succeed; its stdout.
    fn ok(&self, who: &str, script: &str) -> String {
        let o = self.run(who, script);
        assert!(
            o.status.success(),
            "{who}: {script}: {}\n{}\nservice log:\n{}",
            o.status,
            String::from_utf8_lossy(&o.stderr),
            self.log()
        );
        String::from_utf8(o.stdout).unwrap()
    }

    fn submit(&self, who: &str, args: &str) -> u32 {
        self.ok(who, &format!("sbatch --parsable {args}"))
            .trim()
            .parse()
            .unwrap()
    }

    /// Waits until job `id` is in one of `states` (as sacct says; root sees every job).
    fn wait_state(&self, id: u32, states: &[&str]) -> String {
        let started = Instant::now();
        loop {
            let o = self.run("root", &format!("sacct -X -n -P -j {id} -o state"));
            let state = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if states.iter().any(|s| state.starts_with(s)) {
                return state;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "job {id} never got to {states:?} (it is {state:?}); service log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends `bytes` on the service's socket as `uid` (a raw client, not our commands),
    /// returns what came back.
    fn raw(&self, uid: u32, bytes: &[u8]) -> Vec<u8> {
        let socket = self.socket();
        let bytes = bytes.to_vec();
        let (tx, rx) = std::sync::mpsc::channel();
        // A child process, so that the kernel sees `uid` on the connection.
        let mut child = Command::new("/usr/bin/python3")
            .args([
                "-c",
                "import socket,sys\n\
                 s=socket.socket(socket.AF_UNIX)\n\
                 s.connect(sys.argv[1])\n\
                 s.sendall(sys.stdin.buffer.read())\n\
                 s.shutdown(socket.SHUT_WR)\n\
                 out=b''\n\
                 while True:\n\
                 \x20   b=s.recv(65536)\n\
                 \x20   if not b: break\n\
                 \x20   out+=b\n\
                 sys.stdout.buffer.write(out)\n",
            ])
            .arg(&socket)
            .uid(uid)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            let _ = tx.send(out);
        });
        let out = rx.recv_timeout(Duration::from_secs(40)).expect("no answer");
        let _ = child.wait();
        out
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = self.run("root", "scancel -u alice; scancel -u bob");
        self.kill_service();
    }
}

/// A framed request as the commands send it.
fn frame(json: &str) -> Vec<u8> {
    let mut v = (json.len() as u32).to_be_bytes().to_vec();
    v.extend_from_slice(json.as_bytes());
    v
}

/// The JSON of a framed answer.
fn unframe(bytes: &[u8]) -> serde_json::Value {
    assert!(bytes.len() >= 4, "no answer: {bytes:?}");
    let len = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
    assert_eq!(bytes.len(), 4 + len, "one answer, whole");
    serde_json::from_slice(&bytes[4..]).unwrap()
}

#[test]
fn two_users_share_one_queue_and_each_job_runs_as_its_user() {
    let site = Site::new();
    let alice = user("alice");
    let bob = user("bob");
    let a = site.submit(
        "alice",
        "-J ajob -o out-%j.txt --wrap 'id -un; id -u; id -g; echo HOME=$HOME USER=$USER; umask; srun id -un; sleep 2'",
    );
    let b = site.submit("bob", "-J bjob --wrap 'sleep 3'");
    // The job takes the submitting shell's soft limits (PropagateResourceLimits=ALL).
    let lim = site.ok(
        "alice",
        "ulimit -S -n 300; sbatch --parsable -o lim.txt --wrap 'ulimit -S -n'",
    );
    let lim: u32 = lim.trim().parse().unwrap();
    // Each sees both, with the right user and uid.
    for who in ["alice", "bob", "root"] {
        let q = site.ok(who, &format!("squeue -h -j {a},{b} -o '%i %j %u %U'"));
        let lines: Vec<&str> = q.lines().collect();
        assert!(
            lines.contains(&format!("{a} ajob alice {}", alice.uid).as_str())
                && lines.contains(&format!("{b} bjob bob {}", bob.uid).as_str()),
            "{who}'s squeue:\n{q}"
        );
    }
    site.wait_state(a, &["COMPLETED"]);
    site.wait_state(b, &["COMPLETED"]);
    site.wait_state(lim, &["COMPLETED"]);
    let text = std::fs::read_to_string(site.base.join("work-alice/lim.txt")).unwrap();
    assert_eq!(text, "300\n", "the job's soft limit on open files");
    // The job ran as alice, in her environment, and its files are hers.
    let out = site.base.join(format!("work-alice/out-{a}.txt"));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text,
        format!(
            "alice\n{}\n{}\nHOME={} USER=alice\n0022\nalice\n",
            alice.uid,
            alice.gid,
            alice.home.display()
        ),
        "the job's output"
    );
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (alice.uid, alice.gid));
    // sacct: one's own jobs by default, everyone's with -a or named by -j; the step ran
    // as a step of hers.
    let own = site.ok("bob", "sacct -X -n -P -o jobid,user");
    assert_eq!(own, format!("{b}|bob\n"), "bob's sacct");
    let named = site.ok("bob", &format!("sacct -X -n -P -j {a},{b} -o jobid,user"));
    assert_eq!(named, format!("{a}|alice\n{b}|bob\n"), "bob's sacct -j");
    let all = site.ok("bob", &format!("sacct -n -P -a -j {a} -o jobid,user,state"));
    assert_eq!(
        all,
        format!("{a}|alice|COMPLETED\n{a}.batch||COMPLETED\n{a}.0||COMPLETED\n"),
        "bob's sacct -a"
    );
    // The queue's records and job directories are not for users to read.
    let state = site.state();
    for f in ["state.db", "runner.log"] {
        let mode = std::fs::metadata(state.join(f)).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600, "{f}");
    }
    let r = site.run("bob", &format!("ls {}", state.display()));
    assert!(!r.status.success(), "bob listed the state directory");
    let r = site.run("bob", &format!("cat {}/state.db", state.display()));
    assert!(!r.status.success(), "bob read the database");
}

#[test]
fn users_act_on_their_own_jobs_and_root_on_all() {
    let site = Site::new();
    let a = site.submit("alice", "-J mine --hold --wrap 'sleep 30'");
    // bob is refused everything on alice's job, in Slurm's words, and nothing changes.
    let r = site.run("bob", &format!("scancel {a}"));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        format!("scancel: error: Kill job error on job id {a}: Access/permission denied\n")
    );
    let r = site.run("bob", &format!("scontrol release {a}"));
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        format!("Invalid user id for job {a}\nslurm_suspend error: Invalid user id\n")
    );
    let r = site.run("bob", &format!("scontrol update JobId={a} TimeLimit=5"));
    assert!(!r.status.success());
    let shown = site.ok("alice", &format!("scontrol show job {a}"));
    assert!(
        shown.contains("JobState=PENDING Reason=JobHeldUser"),
        "{shown}"
    );
    assert!(shown.contains("TimeLimit=UNLIMITED"), "{shown}");
    // root changes, releases and cancels it.
    site.ok(
        "root",
        &format!("scontrol update JobId={a} TimeLimit=5 Comment=byroot"),
    );
    let shown = site.ok("alice", &format!("scontrol show job {a}"));
    assert!(
        shown.contains("TimeLimit=00:05:00") && shown.contains("Comment=byroot"),
        "{shown}"
    );
    site.ok("root", &format!("scontrol hold {a}"));
    // An administrator's hold is not the user's to release.
    let r = site.run("alice", &format!("scontrol release {a}"));
    assert!(!r.status.success(), "alice released root's hold");
    site.ok("root", &format!("scontrol release {a}"));
    site.wait_state(a, &["RUNNING"]);
    site.ok("root", &format!("scancel {a}"));
    site.wait_state(a, &["CANCELLED"]);
    let rec = site.ok("alice", &format!("sacct -X -n -P -j {a} -o state,user"));
    assert_eq!(rec, "CANCELLED by 0|alice\n");
    // A job of bob's that alice cannot touch, which bob can.
    let b = site.submit("bob", "--hold --wrap true");
    let r = site.run("alice", &format!("scancel {b}"));
    assert!(!r.status.success() || !r.stderr.is_empty(), "{r:?}");
    site.ok("bob", &format!("scancel {b}"));
    site.wait_state(b, &["CANCELLED"]);
}

#[test]
fn operators_act_on_every_job_as_root_does() {
    let site = Site::with_config("operators = [\"bob\"]\n");
    let bob = user("bob");
    let a = site.submit("alice", "-J mine --hold --wrap 'sleep 30'");
    // bob, an operator: his hold of alice's job is an administrator's, which she cannot
    // release; he can.
    site.ok("bob", &format!("scontrol release {a}"));
    site.ok("bob", &format!("scontrol hold {a}"));
    let shown = site.ok("alice", &format!("squeue -h -j {a} -o '%r'"));
    assert_eq!(shown, "JobHeldAdmin\n");
    let r = site.run("alice", &format!("scontrol release {a}"));
    assert!(!r.status.success(), "alice released an operator's hold");
    site.ok("bob", &format!("scontrol update JobId={a} TimeLimit=7"));
    site.ok("bob", &format!("scontrol release {a}"));
    site.wait_state(a, &["RUNNING"]);
    site.ok("bob", &format!("scancel {a}"));
    site.wait_state(a, &["CANCELLED"]);
    let rec = site.ok(
        "alice",
        &format!("sacct -X -n -P -j {a} -o state,timelimit"),
    );
    assert_eq!(rec, format!("CANCELLED by {}|00:07:00\n", bob.uid));
    // alice is no operator: bob's jobs are not hers to touch.
    let b = site.submit("bob", "--hold --wrap true");
    let r = site.run("alice", &format!("scontrol release {b}"));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        format!("Invalid user id for job {b}\nslurm_suspend error: Invalid user id\n")
    );
    // An operator's `scontrol uhold` stays a user hold.
    site.ok("bob", &format!("scontrol uhold {b}"));
    let shown = site.ok("bob", &format!("squeue -h -j {b} -o '%r'"));
    assert_eq!(shown, "JobHeldUser\n");
}

#[test]
fn operators_drain_down_and_resume_the_node() {
    let site = Site::with_config("operators = [\"bob\"]\n");
    let refused = site.run(
        "alice",
        "scontrol update NodeName=box State=DRAIN Reason=mine",
    );
    assert_eq!(
        (
            refused.status.code(),
            String::from_utf8_lossy(&refused.stderr).as_ref()
        ),
        (Some(1), "slurm_update error: Invalid user id\n")
    );
    let running = site.submit("alice", "--wrap 'sleep 30'");
    site.wait_state(running, &["RUNNING"]);
    site.ok(
        "bob",
        "scontrol update NodeName=box State=DRAIN Reason='disk check'",
    );
    // Draining: the running job goes on, a new one waits with Slurm's reason.
    assert_eq!(site.ok("alice", "sinfo -h -o '%t|%E'"), "drng|disk check\n");
    assert_eq!(
        site.ok("alice", "sinfo -h -R -o '%E|%u|%N'"),
        "disk check|bob|box\n"
    );
    let waiting = site.submit("alice", "--wrap true");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = site.ok("alice", &format!("squeue -h -j {waiting} -o '%t|%r'"));
        if r == "PD|Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions\n"
        {
            break;
        }
        assert!(Instant::now() < deadline, "{r}");
        std::thread::sleep(Duration::from_millis(200));
    }
    let shown = site.ok("alice", "scontrol show node box");
    assert!(shown.contains("State=MIXED+DRAIN "), "{shown}");
    assert!(shown.contains("   Reason=disk check [bob@"), "{shown}");
    // DOWN: the running job is requeued (it may be: JobRequeue=1), one that may not be
    // requeued ends NODE_FAIL.
    site.ok("root", "scontrol update NodeName=box State=RESUME");
    let fragile = site.submit("alice", "--no-requeue --wrap 'sleep 30'");
    site.wait_state(waiting, &["COMPLETED"]);
    site.wait_state(fragile, &["RUNNING"]);
    site.ok("root", "scontrol update NodeName=box State=DOWN Reason=fan");
    site.wait_state(fragile, &["NODE_FAIL"]);
    site.wait_state(running, &["PENDING", "REQUEUED"]);
    assert_eq!(site.ok("alice", "sinfo -h -o '%t|%E'"), "down|fan\n");
    let again = site.run("root", "scontrol update NodeName=box State=DOWN");
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        "You must specify a reason when DOWNING or DRAINING a node. Request denied\n"
    );
    site.ok("root", "scontrol update NodeName=box State=RESUME");
    assert_eq!(site.ok("alice", "sinfo -h -R"), "");
    // Requeued: it waits out the requeue delay as in Slurm, then runs again.
    let requeued = site.ok("alice", &format!("scontrol show job {running}"));
    assert!(
        requeued.contains("JobState=PENDING Reason=BeginTime"),
        "{requeued}"
    );
    assert!(requeued.contains(" Restarts=1 "), "{requeued}");
    let twice = site.run("root", "scontrol update NodeName=box State=RESUME");
    assert_eq!(
        String::from_utf8_lossy(&twice.stderr),
        "slurm_update error: Invalid node state specified\n"
    );
    site.ok("alice", &format!("scancel {running}"));
}

#[test]
fn operators_suspend_and_resume_jobs() {
    let site = Site::new();
    let job = site.submit(
        "alice",
        "--time=10 -o ticks.out --wrap 'while :; do echo tick; sleep 0.2; done'",
    );
    site.wait_state(job, &["RUNNING"]);
    let refused = site.run("alice", &format!("scontrol suspend {job}"));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!("Access/permission denied for job {job}\n")
    );
    std::thread::sleep(Duration::from_millis(600));
    site.ok("root", &format!("scontrol suspend {job}"));
    let ticks = || {
        site.ok("alice", "wc -l < ticks.out")
            .trim()
            .parse::<u32>()
            .unwrap()
    };
    // Stopped: the job writes nothing more, its CPUs are free, squeue says S.
    std::thread::sleep(Duration::from_millis(500));
    let stopped = ticks();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(ticks(), stopped, "the suspended job went on running");
    assert_eq!(
        site.ok("alice", &format!("squeue -h -j {job} -o '%t'")),
        "S\n"
    );
    assert_eq!(site.ok("alice", "sinfo -h -o '%C'"), "0/2/0/2\n");
    site.ok("root", &format!("scontrol resume {job}"));
    std::thread::sleep(Duration::from_millis(1000));
    assert!(ticks() > stopped, "the resumed job does not run");
    // Its clock stopped while it was: the expected end moved by the time suspended.
    let shown = site.ok("alice", &format!("scontrol show job {job}"));
    let field = |name: &str| {
        let v = shown
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap();
        chrono::NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M:%S")
            .unwrap()
            .and_utc()
            .timestamp()
    };
    let span = field("EndTime") - field("StartTime");
    assert!((602..=605).contains(&span), "{span}: {shown}");
    site.ok("root", &format!("scontrol suspend {job}"));
    site.ok("alice", &format!("scancel {job}"));
    site.wait_state(job, &["CANCELLED"]);
}

#[test]
fn operators_put_jobs_first_with_top() {
    let site = Site::new();
    let blocker = site.submit("alice", "-c 2 --wrap 'sleep 30'");
    site.wait_state(blocker, &["RUNNING"]);
    let a = site.submit("alice", "-o /dev/null --wrap true");
    let b = site.submit("alice", "-o /dev/null --wrap true");
    let c = site.submit("alice", "-o /dev/null --wrap true");
    let bob = site.submit("bob", "-o /dev/null --wrap true");
    let order = || site.ok("alice", "squeue -h -t PD -o '%i'");
    assert_eq!(order(), format!("{a}\n{b}\n{c}\n{bob}\n"));
    let refused = site.run("alice", &format!("scontrol top {c}"));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!("Access/permission denied for job {c}\n")
    );
    // c takes a's place among alice's jobs; bob's job keeps its own.
    site.ok("root", &format!("scontrol top {c}"));
    assert_eq!(order(), format!("{c}\n{a}\n{b}\n{bob}\n"));
    site.ok("root", &format!("scontrol top {b},{a}"));
    assert_eq!(order(), format!("{b}\n{a}\n{c}\n{bob}\n"));
    let running = site.run("root", &format!("scontrol top {blocker}"));
    assert_eq!(
        String::from_utf8_lossy(&running.stderr),
        format!("Job is no longer pending execution for job {blocker}\n")
    );
    // The queue starts them in that order.
    site.ok("alice", &format!("scancel {blocker}"));
    for j in [a, b, c, bob] {
        site.wait_state(j, &["COMPLETED"]);
    }
    let started = |j: u32| {
        site.ok("alice", &format!("sacct -X -n -P -j {j} -o start"))
            .trim()
            .to_string()
    };
    assert!(started(b) <= started(a) && started(a) <= started(c));
}

#[test]
fn private_data_hides_other_users_jobs_from_them() {
    let site = Site::with_config("private_data = [\"jobs\"]\n");
    let a = site.submit("alice", "-J secret --hold --wrap true");
    let b = site.submit("bob", "-J open --hold --wrap true");
    // Each sees their own; root sees both.
    assert_eq!(
        site.ok("bob", "squeue -h -o '%i %j'"),
        format!("{b} open\n")
    );
    assert_eq!(
        site.ok("alice", "squeue -h -o '%i %j'"),
        format!("{a} secret\n")
    );
    assert_eq!(
        site.ok("root", "squeue -h -o '%i %j' --sort=i"),
        format!("{a} secret\n{b} open\n")
    );
    // Named, alice's job is not there for bob, in every view (Slurm 22.05.8 with
    // PrivateData=jobs answers so, checked by hand against the reference).
    let r = site.run("bob", &format!("squeue -h -j {a}"));
    assert_eq!(
        (r.status.code(), String::from_utf8_lossy(&r.stderr).as_ref()),
        (Some(1), "slurm_load_jobs error: Invalid job id specified\n")
    );
    let r = site.run("bob", &format!("scontrol show job {a}"));
    assert_eq!(
        (r.status.code(), String::from_utf8_lossy(&r.stderr).as_ref()),
        (Some(1), "slurm_load_jobs error: Invalid job id specified\n")
    );
    let all = site.ok("bob", "scontrol show job | grep -c JobId");
    assert_eq!(all, "1\n");
    // Hidden, not gone: acting on it is refused as before (all as Slurm 22.05.8 with
    // PrivateData=jobs answers).
    let r = site.run("bob", &format!("scontrol release {a}"));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        format!("Invalid user id for job {a}\nslurm_suspend error: Invalid user id\n")
    );
    let r = site.run("bob", &format!("scancel {a}"));
    assert_eq!(
        (
            r.status.code(),
            String::from_utf8_lossy(&r.stderr).into_owned()
        ),
        (
            Some(210),
            format!("scancel: error: Kill job error on job id {a}: Access/permission denied\n")
        )
    );
    let acct = site.ok("bob", &format!("sacct -X -n -P -a -j {a},{b} -o jobid"));
    assert_eq!(acct, format!("{b}\n"));
}

#[test]
fn the_service_killed_mid_run_loses_no_job() {
    let mut site = Site::new();
    let running = site.submit("alice", "-o run.txt --wrap 'sleep 3; echo done; exit 3'");
    site.wait_state(running, &["RUNNING"]);
    let pending = site.submit("bob", "-o later.txt --begin=now+4 --wrap 'echo later'");
    site.kill_service();
    // Without the service the commands say what Slurm's say without slurmctld.
    let r = site.run("alice", "squeue");
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n"
    );
    // The job runs on, and its end waits for the service.
    std::thread::sleep(Duration::from_secs(5));
    let text = std::fs::read_to_string(site.base.join("work-alice/run.txt")).unwrap();
    assert_eq!(text, "done\n");
    site.start();
    assert_eq!(site.wait_state(running, &["FAILED"]), "FAILED");
    let rec = site.ok("alice", &format!("sacct -X -n -P -j {running} -o exitcode"));
    assert_eq!(rec, "3:0\n");
    // The job that was waiting runs, once.
    site.wait_state(pending, &["COMPLETED"]);
    let text = std::fs::read_to_string(site.base.join("work-bob/later.txt")).unwrap();
    assert_eq!(text, "later\n");
}

#[test]
fn after_a_reboot_running_jobs_are_node_failures_and_pending_ones_run() {
    let mut site = Site::new();
    let running = site.submit(
        "alice",
        "-o r.txt --wrap 'ps -o sid= -p $$ | tr -d \" \" > sid.txt; sleep 60'",
    );
    let pending = site.submit("bob", "-o p.txt --begin=now+3 --wrap 'echo after'");
    site.wait_state(running, &["RUNNING"]);
    let sid_file = site.base.join("work-alice/sid.txt");
    let started = Instant::now();
    while std::fs::read_to_string(&sid_file).map_or(true, |s| s.trim().is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the job never wrote its session"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let sid = std::fs::read_to_string(&sid_file)
        .unwrap()
        .trim()
        .to_string();
    // What a reboot does: every process gone at once, the service, the queue runner, the
    // job's launcher (its session's leader) and the job.
    site.kill_service();
    let runner = format!("__local-runner {}", site.state().display());
    assert!(
        Command::new("pkill")
            .args(["-9", "-f", &runner])
            .status()
            .unwrap()
            .success()
    );
    assert!(
        Command::new("pkill")
            .args(["-9", "-s", &sid])
            .status()
            .unwrap()
            .success()
    );
    site.start();
    assert_eq!(site.wait_state(running, &["NODE_FAIL"]), "NODE_FAIL");
    site.wait_state(pending, &["COMPLETED"]);
    let text = std::fs::read_to_string(site.base.join("work-bob/p.txt")).unwrap();
    assert_eq!(text, "after\n");
}

#[test]
fn hostile_clients_get_errors_and_the_service_stays() {
    let site = Site::new();
    let alice = user("alice");
    let bob = user("bob");
    let a = site.submit("alice", "--hold -J victim --wrap true");
    // Garbage, an oversized length, a truncated message, nothing at all.
    let reply = unframe(&site.raw(bob.uid, &frame("{{{ not json")));
    assert!(
        reply["result"]["Err"]["Backend"]["Other"]
            .as_str()
            .is_some_and(|m| m.starts_with("malformed request")),
        "{reply}"
    );
    let reply = unframe(&site.raw(bob.uid, &u32::MAX.to_be_bytes()));
    assert!(reply["result"]["Err"].is_object(), "{reply}");
    assert!(site.raw(bob.uid, &[0, 0, 0, 50, b'{']).is_empty());
    assert!(site.raw(bob.uid, b"").is_empty());
    // A cancel claiming to be root's is bob's: refused.
    let signal = format!(
        r#"{{"Signal":[{{"job_id":{a},"tasks":"Whole","step":null}},{{"signal":null,"batch_only":false,"full":false,"requester":0}}]}}"#
    );
    let reply = unframe(&site.raw(bob.uid, &frame(&signal)));
    assert_eq!(
        reply["result"]["Err"]["Backend"]["Slurm"], "AccessDenied",
        "{reply}"
    );
    // A launcher's record for a job that is not bob's, or not running under the asker:
    // nothing happens.
    let end = format!(
        r#"{{"Ledger":{{"RecordEnd":{{"job_id":{a},"result":{{"kind":"Exited","exit":{{"code":0,"signal":0}},"end_time":1}}}}}}}}"#
    );
    let reply = unframe(&site.raw(bob.uid, &frame(&end)));
    assert!(reply["result"]["Ok"].is_null(), "{reply}");
    let reply = unframe(&site.raw(alice.uid, &frame(&end)));
    assert!(reply["result"]["Ok"].is_null(), "{reply}");
    let claim = format!(r#"{{"Ledger":{{"Claim":{{"job_id":{a}}}}}}}"#);
    let reply = unframe(&site.raw(bob.uid, &frame(&claim)));
    assert!(reply["result"]["Ok"].is_null(), "{reply}");
    // The allocation of someone else's job (it holds the job's secret) is refused.
    let reply = unframe(&site.raw(bob.uid, &frame(&format!(r#"{{"Allocation":{a}}}"#))));
    assert_eq!(
        reply["result"]["Err"]["Backend"]["Slurm"], "AccessDenied",
        "{reply}"
    );
    // The job is as it was, and the service answers.
    let shown = site.ok("alice", &format!("squeue -h -j {a} -o '%T %r %u'"));
    assert_eq!(shown, "PENDING JobHeldUser alice\n");
    assert!(site.log().lines().count() <= 2, "{}", site.log());
}

#[test]
fn doctor_reports_the_service() {
    let mut site = Site::new();
    let out = site.ok("alice", "bai-slurm doctor");
    assert!(
        out.contains("backend: local, system mode")
            && out.contains(&format!("service socket: {}", site.socket().display()))
            && out.contains("service: answers")
            && out.ends_with("status: OK\n"),
        "{out}"
    );
    site.kill_service();
    let r = site.run("alice", "bai-slurm doctor");
    assert_eq!(r.status.code(), Some(1));
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        out.contains("service: FAILED (does not answer") && out.ends_with("status: FAILED\n"),
        "{out}"
    );
}

#[test]
fn the_service_refuses_to_start_wrongly() {
    let site = Site::new();
    // A second service on the same socket.
    let o = Command::new(site.base.join("bin/bai-slurm"))
        .arg("service")
        .env_clear()
        .env("BAI_SLURM_SYSTEM_CONFIG", site.base.join("config.toml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("another bai-slurm service already listens"),
        "{o:?}"
    );
    // Not in system mode.
    let plain = site.base.join("plain.toml");
    let plain_state = site.base.join("plain-state");
    std::fs::write(
        &plain,
        format!("[local]\nstate_dir = \"{}\"\n", plain_state.display()),
    )
    .unwrap();
    let o = Command::new(site.base.join("bin/bai-slurm"))
        .arg("service")
        .env_clear()
        .env("BAI_SLURM_SYSTEM_CONFIG", &plain)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not in system mode"),
        "{o:?}"
    );
}
