//! Hostile neighbours and broken disks, on the local backend, with real Unix users: a
//! second user planting a state directory or squatting the runner's socket, a launcher
//! killed with SIGKILL, a disk that fills up, empty, corrupt and unwritable state files, a
//! bad record, an oversized script, and the clean-up of finished jobs.
//!
//! The users are made by the test itself (`useradd`), so these tests need root, as the
//! README's test command does; without it they fail, never skip.

mod harness;

use harness::{Cluster, Run, secs};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_bai-slurm");

/// A real Unix user made for these tests.
struct User {
    uid: u32,
    gid: u32,
    home: PathBuf,
}

fn user(name: &str) -> User {
    assert!(
        nix::unistd::getuid().is_root(),
        "tests/hostile_local.rs makes real users with useradd and needs root (the README's test command runs as root)"
    );
    if nix::unistd::User::from_name(name).unwrap().is_none() {
        let out = Command::new("useradd")
            .args(["-m", "-s", "/bin/sh", name])
            .output()
            .expect("useradd");
        // Two tests may race to make the same user.
        assert!(
            out.status.success() || nix::unistd::User::from_name(name).unwrap().is_some(),
            "useradd {name}: {out:?}"
        );
    }
    let u = nix::unistd::User::from_name(name).unwrap().unwrap();
    std::fs::create_dir_all(&u.dir).unwrap();
    nix::unistd::chown(&u.dir, Some(u.uid), Some(u.gid)).unwrap();
    std::fs::set_permissions(&u.dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    User {
        uid: u.uid.as_raw(),
        gid: u.gid.as_raw(),
        home: u.dir,
    }
}

impl User {
    /// `bai-slurm <args>` as this user, with only `env` (and PATH) in the environment.
    fn run(&self, args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Run {
        let mut c = Command::new(EXE);
        c.args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .envs(env.iter().copied())
            .current_dir(cwd)
            .stdin(Stdio::null())
            .uid(self.uid)
            .gid(self.gid);
        // (std drops root's supplementary groups when it changes the uid.)
        c.output().expect("spawn").into()
    }

    /// A fresh directory of this user's, for one test.
    fn scratch(&self, tag: &str) -> PathBuf {
        let d = self.home.join(format!("hostile-{tag}"));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        chown_tree(&d, self);
        d
    }
}

fn chown_tree(p: &Path, u: &User) {
    let _ = nix::unistd::chown(
        p,
        Some(nix::unistd::Uid::from_raw(u.uid)),
        Some(nix::unistd::Gid::from_raw(u.gid)),
    );
    if p.is_dir()
        && let Ok(rd) = std::fs::read_dir(p)
    {
        for e in rd.flatten() {
            chown_tree(&e.path(), u);
        }
    }
}

/// The environment of a user's private cluster under `dir`.
fn cluster_env(dir: &Path) -> Vec<(String, String)> {
    vec![
        ("HOME".into(), dir.display().to_string()),
        (
            "BAI_SLURM_SYSTEM_CONFIG".into(),
            dir.join("none.toml").display().to_string(),
        ),
        (
            "BAI_SLURM_STATE_DIR".into(),
            dir.join("state").display().to_string(),
        ),
        ("TZ".into(), "UTC".into()),
    ]
}

fn pairs(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

fn wait_for(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while !f() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_state_directory_planted_by_another_user_is_refused() {
    let a = user("baitest-a");
    let b = user("baitest-b");
    // B prepares a state directory where A's HOME points (a shared place, as /tmp was),
    // with a job in it, and makes the job A's: uid 0 for root in the original attack.
    let planted = b.scratch("planted");
    let benv = cluster_env(&planted);
    let marker = planted.join("ran-as");
    let r = b.run(
        &[
            "sbatch",
            "--hold",
            "--wrap",
            &format!("id -u > {}", marker.display()),
        ],
        &pairs(&benv),
        &planted,
    );
    assert_eq!(r.code, 0, "{r:?}");
    let db = planted.join("state/state.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE jobs SET uid = ?1, held = 0, priority = 100, reason = 'None'",
        [a.uid],
    )
    .unwrap();
    drop(conn);
    chown_tree(&planted, &b);
    // A is sent into it, by HOME or by name; each is refused, naming what and why.
    let aenv_home = vec![
        ("HOME", planted.to_str().unwrap()),
        ("BAI_SLURM_SYSTEM_CONFIG", "/nonexistent.toml"),
    ];
    let mut aenv_dir = aenv_home.clone();
    let state = planted.join("state");
    aenv_dir.push(("BAI_SLURM_STATE_DIR", state.to_str().unwrap()));
    let a_scratch = a.scratch("planted");
    let r = a.run(&["squeue"], &aenv_dir, &a_scratch);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("squeue: error: state directory:")
            && r.stderr.contains(&format!("belongs to uid {}", b.uid))
            && r.stderr.contains(state.to_str().unwrap()),
        "{r:?}"
    );
    // With HOME pointing there, XDG-less: the default path under it is B's too.
    let hidden = planted.join(".local/state");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::rename(&state, hidden.join("bai-slurm")).unwrap();
    chown_tree(&planted, &b);
    let r = a.run(&["squeue"], &aenv_home, &a_scratch);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("belongs to uid"), "{r:?}");
    std::thread::sleep(secs(3));
    assert!(!marker.exists(), "B's planted job ran");
}

#[test]
fn without_a_usable_home_there_is_no_fallback_to_tmp_or_the_current_directory() {
    let a = user("baitest-a");
    let cwd = a.scratch("nohome");
    // What an older bai-slurm left there for this user (its fallback), if anything.
    let tmp_state = Path::new("/tmp/.local/state/bai-slurm");
    let owned_by_a = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).is_ok_and(|m| m.uid() == a.uid)
    };
    if owned_by_a(tmp_state) {
        std::fs::remove_dir_all(tmp_state).unwrap();
    }
    for env in [
        vec![("BAI_SLURM_SYSTEM_CONFIG", "/nonexistent.toml")],
        vec![
            ("HOME", ""),
            ("BAI_SLURM_SYSTEM_CONFIG", "/nonexistent.toml"),
        ],
        vec![
            ("HOME", "relative/home"),
            ("BAI_SLURM_SYSTEM_CONFIG", "/nonexistent.toml"),
        ],
    ] {
        let r = a.run(&["sinfo"], &env, &cwd);
        assert_eq!(r.code, 0, "{env:?}: {r:?}");
        // The user database's home, the user's own.
        assert!(a.home.join(".local/state/bai-slurm/state.db").exists());
        assert!(!cwd.join("relative").exists() && !cwd.join(".local").exists());
    }
    assert!(!owned_by_a(tmp_state));
    let r = a.run(
        &["sinfo"],
        &[
            ("BAI_SLURM_STATE_DIR", "rel/state"),
            ("BAI_SLURM_SYSTEM_CONFIG", "/nonexistent.toml"),
        ],
        &cwd,
    );
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("not an absolute path"), "{r:?}");
}

#[test]
fn another_user_cannot_reach_or_squat_the_runners_socket() {
    let a = user("baitest-a");
    let b = user("baitest-b");
    let dir = a.scratch("socket");
    let env = cluster_env(&dir);
    // B binds the abstract name the runner used to listen on (a hash of the state path):
    // it stalled A's queue then; it must not matter now.
    let state = dir.join("state");
    let old_name = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        state.hash(&mut h);
        format!("bai-slurm-runner-{:016x}", h.finish())
    };
    let mut squat = Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import socket,sys,time\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\ns.bind('\\0'+sys.argv[1])\nprint('bound',flush=True)\ntime.sleep(30)",
            &old_name,
        ])
        .uid(b.uid)
        .gid(b.gid)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(squat.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line, "bound\n", "B could not bind {old_name}");
    let r = a.run(
        &["sbatch", "--parsable", "--wrap", "echo ok"],
        &pairs(&env),
        &dir,
    );
    assert_eq!(r.code, 0, "{r:?}");
    let id = r.stdout.trim().to_string();
    wait_for("A's job to complete", secs(20), || {
        a.run(
            &["sacct", "-n", "-P", "-X", "-o", "State", "-j", &id],
            &pairs(&env),
            &dir,
        )
        .stdout
        .trim()
            == "COMPLETED"
    });
    // The socket is a file in A's private directory: B cannot even send to it.
    let sock = state.join("runner.sock");
    let mode = std::fs::metadata(&state).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    let sent = Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\ntry:\n  s.sendto(b'k',sys.argv[1]); print('sent')\nexcept OSError as e: print(e.errno)",
            sock.to_str().unwrap(),
        ])
        .uid(b.uid)
        .gid(b.gid)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&sent.stdout).trim().to_string();
    assert_eq!(
        said,
        libc::EACCES.to_string(),
        "B reached A's runner: {sent:?}"
    );
    let _ = squat.kill();
    let _ = squat.wait();
}

/// Processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    String::from_utf8_lossy(&c)
                        .replace('\0', " ")
                        .contains(needle)
                })
                .unwrap_or(false)
        })
        .filter(|pid| {
            // Zombies have ended.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| {
                    !s.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
                .unwrap_or(false)
        })
        .collect()
}

#[test]
fn no_process_of_a_job_survives_its_launchers_kill_9() {
    let c = Cluster::new(4, 4000, 2);
    // A background process, one that left the job's process group, one that left its
    // session (a daemon), and an srun step.
    let tag = format!("{}", std::process::id());
    let script = c.write_script(
        "orphans.sh",
        &format!(
            "#!/bin/bash\nsleep 3{tag}1 &\n(set -m; sleep 3{tag}2 &)\nsetsid sleep 3{tag}3 &\nsrun sleep 3{tag}4 &\necho started > started\nwait\n"
        ),
    );
    let id = c.submit(&[script.to_str().unwrap()]);
    wait_for("the job's processes", secs(20), || {
        (1..=4).all(|i| !processes_with(&format!("sleep 3{tag}{i}")).is_empty())
    });
    let launcher = processes_with(&format!("__launch {} {id} ", c.state.display()));
    assert_eq!(launcher.len(), 1, "{launcher:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(launcher[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let rows = c.wait_done(&id.to_string(), secs(20));
    assert_eq!(rows[0].1, "NODE_FAIL", "{rows:?}");
    let started = Instant::now();
    wait_for("the job's processes to be gone", secs(5), || {
        (1..=4).all(|i| processes_with(&format!("sleep 3{tag}{i}")).is_empty())
    });
    println!(
        "no_process_of_a_job_survives: all 4 gone {:?} after NODE_FAIL",
        started.elapsed()
    );
    // And the CPUs are free again: a job asking for all of them runs.
    let all = c.submit(&["-c", "4", "--wrap", "true"]);
    let rows = c.wait_done(&all.to_string(), secs(20));
    assert_eq!(rows[0].1, "COMPLETED", "{rows:?}");
}

#[test]
fn a_job_ending_while_the_state_disk_is_full_keeps_its_exit_code() {
    assert!(
        nix::unistd::getuid().is_root(),
        "mounting a tmpfs needs root"
    );
    let c = Cluster::new(2, 2000, 2);
    let mnt = c.dir.path().join("small-disk");
    std::fs::create_dir_all(&mnt).unwrap();
    let out = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(&mnt)
        .output()
        .unwrap();
    assert!(out.status.success(), "mount: {out:?}");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("pkill")
                .arg("-f")
                .arg(format!("__local-runner {}", self.0.display()))
                .status();
            std::thread::sleep(Duration::from_millis(500));
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mnt.clone());
    let mut c = c;
    let state = mnt.join("state");
    c.env
        .insert("BAI_SLURM_STATE_DIR".into(), state.display().to_string());
    c.state = state.clone();
    let id = c.submit(&["--wrap", "sleep 3; exit 7"]);
    c.wait_state(&id.to_string(), "RUNNING", secs(10));
    // Empty the WAL (its blocks could otherwise absorb the job's last write), then fill
    // the disk.
    let fill = |name: &str| {
        let _ = Command::new("dd")
            .args(["if=/dev/zero", "bs=4k"])
            .arg(format!("of={}", mnt.join(name).display()))
            .stderr(Stdio::null())
            .status();
    };
    let db = rusqlite::Connection::open(state.join("state.db")).unwrap();
    db.busy_timeout(secs(5)).unwrap();
    db.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    drop(db);
    fill("fill1");
    fill("fill2");
    // Meanwhile nothing can be written: sbatch says so, naming the file.
    let r = c.run("sbatch", &["--wrap", "true"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("the disk is full") && r.stderr.contains("state.db"),
        "{r:?}"
    );
    std::thread::sleep(secs(6));
    let during = c.job_row(&id.to_string());
    // The job has ended; usually its end cannot be written yet (RUNNING: late, not lost).
    // Now and then SQLite still finds room in pages it already holds: then the end is
    // there already. Never NODE_FAIL. When no connection holds the database's shared
    // memory index at that moment, even a reader cannot map it on the full disk: then
    // sacct says why instead.
    let during_state = during.as_ref().map(|r| r.1.clone()).unwrap_or_default();
    if during.is_none() {
        let r = c.run("sacct", &["-j", &id.to_string()]);
        assert!(
            r.code == 1 && r.stderr.contains("the disk is full") && r.stderr.contains("state.db"),
            "{r:?}"
        );
    } else {
        assert!(
            during_state == "RUNNING"
                || during == Some((id.to_string(), "FAILED".into(), "7:0".into())),
            "{during:?}"
        );
    }
    println!("full disk: while full the job showed {during_state}");
    std::fs::remove_file(mnt.join("fill1")).unwrap();
    std::fs::remove_file(mnt.join("fill2")).unwrap();
    // The launcher retries its write every few seconds. Measured: usually at once, now and
    // then close to a minute after space returns (SQLite's 30 s busy timeout, met twice
    // behind a connection the full disk left holding its lock: not yet understood).
    let rows = c.wait_done(&id.to_string(), secs(150));
    assert_eq!(
        rows[0],
        (id.to_string(), "FAILED".into(), "7:0".into()),
        "during: {during:?}"
    );
}

/// A cluster with one finished job, and the time a command takes on it.
fn timed(c: &Cluster, name: &str, args: &[&str]) -> (Run, Duration) {
    let start = Instant::now();
    let r = c.run(name, args);
    (r, start.elapsed())
}

#[test]
fn an_empty_state_file_is_refused_not_made_a_new_cluster() {
    let c = Cluster::new(2, 2000, 2);
    let id = c.submit(&["--wrap", "true"]);
    c.wait_done(&id.to_string(), secs(20));
    // Stop the runner, then lose the file's contents (a failed copy, a truncation).
    let _ = Command::new("pkill")
        .arg("-f")
        .arg(format!("__local-runner {}", c.state.display()))
        .status();
    std::thread::sleep(Duration::from_millis(500));
    for side in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(c.state.join(side));
    }
    std::fs::write(c.state.join("state.db"), b"").unwrap();
    let (r, took) = timed(&c, "sbatch", &["--wrap", "true"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("is empty") && r.stderr.contains(c.state.to_str().unwrap()),
        "{r:?}"
    );
    assert!(took < secs(1), "{took:?}");
    assert_eq!(
        std::fs::metadata(c.state.join("state.db")).unwrap().len(),
        0
    );
    let (r, _) = timed(&c, "squeue", &[]);
    assert_eq!(r.code, 1, "{r:?}");
}

#[test]
fn a_corrupt_state_file_fails_at_once_naming_it() {
    let c = Cluster::new(2, 2000, 2);
    c.run("sinfo", &[]).ok();
    let _ = Command::new("pkill")
        .arg("-f")
        .arg(format!("__local-runner {}", c.state.display()))
        .status();
    for side in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(c.state.join(side));
    }
    std::fs::write(c.state.join("state.db"), vec![0x5a_u8; 65536]).unwrap();
    for cmd in ["squeue", "sacct", "sbatch"] {
        let args: &[&str] = if cmd == "sbatch" {
            &["--wrap", "true"]
        } else {
            &[]
        };
        let (r, took) = timed(&c, cmd, args);
        assert_eq!(r.code, 1, "{cmd}: {r:?}");
        assert!(
            r.stderr.contains("is not a bai-slurm state database")
                && r.stderr.contains(c.state.to_str().unwrap()),
            "{cmd}: {r:?}"
        );
        assert!(took < secs(1), "{cmd} took {took:?}");
    }
}

#[test]
fn an_unwritable_state_file_fails_at_once_naming_it() {
    let a = user("baitest-a");
    let dir = a.scratch("readonly");
    let env = cluster_env(&dir);
    let r = a.run(&["sbatch", "--hold", "--wrap", "true"], &pairs(&env), &dir);
    assert_eq!(r.code, 0, "{r:?}");
    let _ = Command::new("pkill")
        .arg("-f")
        .arg(format!("__local-runner {}", dir.join("state").display()))
        .status();
    std::thread::sleep(Duration::from_millis(300));
    let db = dir.join("state/state.db");
    // Make the WAL empty first, so that reads need no write.
    rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    chown_tree(&dir, &a);
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o400)).unwrap();
    let start = Instant::now();
    let r = a.run(&["sbatch", "--wrap", "true"], &pairs(&env), &dir);
    let took = start.elapsed();
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("cannot be written") && r.stderr.contains(db.to_str().unwrap()),
        "{r:?}"
    );
    assert!(took < secs(1), "{took:?}");
}

#[test]
fn one_bad_record_affects_only_its_own_job() {
    let c = Cluster::new(2, 2000, 2);
    let ids: Vec<u32> = (0..3).map(|_| c.submit(&["--wrap", "true"])).collect();
    for id in &ids {
        c.wait_done(&id.to_string(), secs(20));
    }
    let conn = rusqlite::Connection::open(c.state.join("state.db")).unwrap();
    conn.execute(
        "UPDATE jobs SET state = 'GARBAGE' WHERE job_id = ?1",
        [ids[1]],
    )
    .unwrap();
    drop(conn);
    let r = c.run(
        "sacct",
        &["-n", "-X", "-P", "-o", "JobID,State", "-E", "now+60"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(
        r.stdout,
        format!("{}|COMPLETED\n{}|COMPLETED\n", ids[0], ids[2]),
        "{r:?}"
    );
    assert!(
        r.stderr
            .contains(&format!("sacct: error: job {}: unreadable record", ids[1])),
        "{r:?}"
    );
    // The queue goes on: a new job still runs.
    let id = c.submit(&["--wrap", "true"]);
    assert_eq!(c.wait_done(&id.to_string(), secs(20))[0].1, "COMPLETED");
}

#[test]
fn a_script_over_max_script_size_is_refused_as_slurm_refuses_it() {
    let c = Cluster::new(2, 2000, 2);
    let script = |n: usize| {
        let head = b"#!/bin/bash\ntrue\n";
        let mut s = head.to_vec();
        s.resize(n - 1, b'#');
        s.push(b'\n');
        s
    };
    // Recorded from the real Slurm 22.05.8 (default max_script_size, 4 MiB): 4194304
    // bytes are accepted, one more is refused, with exit status 1.
    let big = c.work.join("big.sh");
    std::fs::write(&big, script(4_194_305)).unwrap();
    let r = c.run("sbatch", &["-o", "/dev/null", big.to_str().unwrap()]);
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            1,
            "",
            "sbatch: error: Batch job submission failed: Pathname of a file, directory or other parameter too long\n"
        )
    );
    std::fs::write(&big, script(4_194_304)).unwrap();
    let r = c.run("sbatch", &["-o", "/dev/null", big.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    // A site may lower (or raise) it.
    let small = Cluster::with_config(2, 2000, 2, "[local]\n");
    std::fs::write(
        small.dir.path().join("config.toml"),
        "max_script_size = 100\n[local]\ncpus = 2\nmemory_mb = 2000\n",
    )
    .unwrap();
    let s = small.write_script("s.sh", &format!("#!/bin/sh\n{}\n", "#".repeat(100)));
    let r = small.run("sbatch", &[s.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{r:?}");
}

#[test]
fn finished_jobs_files_are_cleaned_after_min_job_age_and_stay_in_sacct() {
    let c = Cluster::with_config(2, 2000, 2, "min_job_age = 2\n");
    let id = c.submit(&["--wrap", "echo hello"]);
    c.wait_done(&id.to_string(), secs(20));
    let job_dir = c.state.join("jobs").join(id.to_string());
    // A runner log grown past 1 MiB is rotated by the next runner.
    let _ = Command::new("pkill")
        .arg("-f")
        .arg(format!("__local-runner {}", c.state.display()))
        .status();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(c.state.join("runner.log"), vec![b'x'; (1 << 20) + 1]).unwrap();
    // Keep a job pending, so the runner stays to clean up.
    let held = c.submit(&["--hold", "--wrap", "true"]);
    wait_for("the job's directory to be removed", secs(20), || {
        !job_dir.exists()
    });
    let script_len: i64 = rusqlite::Connection::open(c.state.join("state.db"))
        .unwrap()
        .query_row(
            "SELECT length(script) FROM submissions WHERE submission_id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(script_len, 0);
    assert_eq!(c.job_row(&id.to_string()).unwrap().1, "COMPLETED");
    assert_eq!(c.read(&format!("slurm-{id}.out")), "hello\n");
    let log = std::fs::metadata(c.state.join("runner.log")).unwrap().len();
    let old_log = std::fs::metadata(c.state.join("runner.log.1"))
        .unwrap()
        .len();
    assert!(log < 4096 && old_log > 1 << 20, "{log} {old_log}");
    // The held job keeps its script: it has not run yet.
    c.run("scontrol", &["release", &held.to_string()]).ok();
    assert_eq!(c.wait_done(&held.to_string(), secs(20))[0].1, "COMPLETED");
}
