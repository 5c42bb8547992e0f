//! `bai-slurm login`, `logout` and `doctor` against a REAL Backend.AI manager: the 23.09 one
//! that `ci/backendai/up.sh` brings up or the 26.9 one of `ci/backendai26/up.sh`
//! (`./scripts/test.sh` starts both and runs these tests against each, with
//! `ci/backendai/env.sh` or `ci/backendai26/env.sh`). Each test runs the built binary with a cleared environment and a
//! temporary HOME, and no D-Bus session bus: there is no OS keyring, so login must fall back
//! to the 0600 credentials file and say so. No output may ever contain a secret key.
//!
//! Without BACKEND_ENDPOINT, or with the manager down, they fail (they never skip).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The test stack's endpoint and keypairs, from `ci/backendai/env.sh`.
struct Stack {
    endpoint: String,
    access_key: String,
    secret_key: String,
    admin_access_key: String,
    admin_secret_key: String,
}

fn stack(test: &str) -> Stack {
    let endpoint = match std::env::var("BACKEND_ENDPOINT") {
        Ok(e) if !e.is_empty() => e,
        _ => panic!(
            "{test}: BACKEND_ENDPOINT is not set (./scripts/test.sh sets it; or run \
             ci/backendai/up.sh as root and `. ci/backendai/env.sh`)"
        ),
    };
    let var = |k: &str| match std::env::var(k) {
        Ok(v) if !v.is_empty() => v,
        _ => panic!("BACKEND_ENDPOINT is set but {k} is not: `. ci/backendai/env.sh`"),
    };
    Stack {
        endpoint,
        access_key: var("BACKEND_ACCESS_KEY"),
        secret_key: var("BACKEND_SECRET_KEY"),
        admin_access_key: var("BAI_ADMIN_ACCESS_KEY"),
        admin_secret_key: var("BAI_ADMIN_SECRET_KEY"),
    }
}

/// A user with an empty home, no site configuration and no session bus.
struct User {
    home: tempfile::TempDir,
    runtime: tempfile::TempDir,
    endpoint: String,
    /// Secrets that must never be printed.
    secrets: Vec<String>,
}

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

impl User {
    fn new(endpoint: &str, secrets: &[&str]) -> User {
        User {
            home: tempfile::tempdir().unwrap(),
            runtime: tempfile::tempdir().unwrap(),
            endpoint: endpoint.into(),
            secrets: secrets.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn credentials(&self) -> PathBuf {
        self.home.path().join(".config/bai-slurm/credentials")
    }

    /// Runs `bai-slurm args...` with `input` on stdin and `env` added.
    fn run(&self, args: &[&str], input: &str, env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_bai-slurm"));
        cmd.args(args)
            .env_clear()
            .env("HOME", self.home.path())
            .env("PATH", "/usr/bin:/bin")
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env(
                "BAI_SLURM_SYSTEM_CONFIG",
                self.home.path().join("no-site-config.toml"),
            )
            .env("BACKEND_ENDPOINT", &self.endpoint)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let r = Run {
            code: o.status.code(),
            out: String::from_utf8_lossy(&o.stdout).into_owned(),
            err: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        for s in &self.secrets {
            assert!(
                !r.out.contains(s.as_str()) && !r.err.contains(s.as_str()),
                "a secret key was printed by {args:?}:\n{}{}",
                r.out,
                r.err
            );
        }
        r
    }

    fn login(&self, access_key: &str, secret_key: &str) -> Run {
        self.run(
            &["login", "--access-key", access_key],
            &format!("{secret_key}\n"),
            &[],
        )
    }

    fn doctor(&self, env: &[(&str, &str)]) -> Run {
        self.run(&["doctor"], "", env)
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn login_without_a_keyring_stores_a_private_file_and_doctor_says_the_keypair_works() {
    let s =
        stack("login_without_a_keyring_stores_a_private_file_and_doctor_says_the_keypair_works");
    let u = User::new(&s.endpoint, &[&s.secret_key, &s.admin_secret_key]);
    let r = u.login(&s.access_key, &s.secret_key);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let file = u.credentials();
    assert!(
        r.out.contains(&format!(
            "accepted access key {} (user@lablup.com, role user)",
            s.access_key
        )),
        "{}",
        r.out
    );
    assert!(
        r.out.contains(&format!(
            "Stored the keypair in {} (mode 0600); the OS keyring could not be used (no D-Bus session bus).",
            file.display()
        )),
        "{}",
        r.out
    );
    assert_eq!(mode(&file), 0o600);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains(&format!("[\"{}\"]", s.endpoint)) && text.contains(&s.access_key),
        "{text}"
    );

    let d = u.doctor(&[]);
    assert_eq!(d.code, Some(0), "{}{}", d.out, d.err);
    for line in [
        "backend: backend.ai (jobs run as Backend.AI batch sessions)".to_string(),
        format!("endpoint: {}", s.endpoint),
        "keyring: not used (no D-Bus session bus)".to_string(),
        format!(
            "keypair: {} from {}: OK (role user)",
            s.access_key,
            file.display()
        ),
        "user: user@lablup.com (role user)".to_string(),
        "domain: default: OK".to_string(),
        "group: default: OK".to_string(),
        "resource groups: default (open to project default)".to_string(),
        "job directory: not set ([backendai] job_dir): only afterok and after dependencies, no holds".to_string(),
        "status: OK".to_string(),
    ] {
        assert!(
            d.out.lines().any(|l| l == line),
            "no {line:?} in:\n{}",
            d.out
        );
    }
    let manager = d.out.lines().find(|l| l.starts_with("manager: ")).unwrap();
    // the two releases the tests run against
    assert!(
        (manager.starts_with("manager: Backend.AI 23.09") && manager.contains("API v7.20230615"))
            || (manager.starts_with("manager: Backend.AI 26.9")
                && manager.contains("API v9.20250722")),
        "{manager}"
    );
}

#[test]
fn a_wrong_secret_is_refused_and_nothing_is_stored() {
    let s = stack("a_wrong_secret_is_refused_and_nothing_is_stored");
    let wrong = "Not-The-Secret-0123456789abcdefghijkl";
    let u = User::new(&s.endpoint, &[&s.secret_key, wrong]);
    let r = u.login(&s.access_key, wrong);
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    assert_eq!(r.err.lines().count(), 1, "one line: {}", r.err);
    assert!(
        r.err.starts_with(&format!(
            "bai-slurm login: Backend.AI at {} refused the keypair (access key {})",
            s.endpoint, s.access_key
        )) && r.err.to_lowercase().contains("signature mismatch")
            && r.err.trim_end().ends_with("nothing stored"),
        "{}",
        r.err
    );
    assert!(!u.credentials().exists());

    // An unknown access key, both keys on stdin.
    let r = u.run(&["login"], &format!("AKIANOSUCHKEY0000000\n{wrong}\n"), &[]);
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    assert!(r.err.contains("Access key not found"), "{}", r.err);
    assert!(!u.credentials().exists());

    // A good login stays when a later one is refused.
    assert_eq!(u.login(&s.access_key, &s.secret_key).code, Some(0));
    let before = std::fs::read(u.credentials()).unwrap();
    assert_eq!(u.login(&s.access_key, wrong).code, Some(1));
    assert_eq!(std::fs::read(u.credentials()).unwrap(), before);

    // --no-verify stores it unchecked, and doctor then says it does not work.
    let r = u.run(
        &["login", "--no-verify", "--access-key", &s.access_key],
        &format!("{wrong}\n"),
        &[],
    );
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    let d = u.doctor(&[]);
    assert_eq!(d.code, Some(1), "{}", d.out);
    assert!(
        d.out.lines().any(|l| l.starts_with("keypair: FAILED (")
            && l.contains("Backend.AI refused the credentials (401)")),
        "{}",
        d.out
    );
    assert!(
        d.out.lines().any(|l| l == "status: FAILED (keypair)"),
        "{}",
        d.out
    );
}

#[test]
fn doctor_says_when_it_cannot_reach_the_manager() {
    // A closed port: no stack needed.
    let secret = "Unreachable-Secret-Key-0123456789abcdef";
    let u = User::new("http://127.0.0.1:9", &[secret]);
    let d = u.doctor(&[
        ("BACKEND_ACCESS_KEY", "AKIAUNREACHABLE00000"),
        ("BACKEND_SECRET_KEY", secret),
    ]);
    assert_eq!(d.code, Some(1), "{}{}", d.out, d.err);
    assert!(
        d.out.lines().any(|l| l.starts_with(
            "manager: FAILED (cannot reach the Backend.AI manager at http://127.0.0.1:9: "
        ) && l.contains("Connection refused")),
        "{}",
        d.out
    );
    assert!(
        d.out.lines().any(|l| l
            == "keypair: AKIAUNREACHABLE00000 from the configuration; not checked (no manager)"),
        "{}",
        d.out
    );
    assert!(
        d.out.lines().any(|l| l == "status: FAILED (manager)"),
        "{}",
        d.out
    );

    // login checks too, and stores nothing.
    let r = u.login("AKIAUNREACHABLE00000", secret);
    assert_eq!(r.code, Some(1), "{}{}", r.out, r.err);
    assert!(
        r.err.starts_with(
            "bai-slurm login: cannot reach the Backend.AI manager at http://127.0.0.1:9: "
        ) && r.err.contains("nothing stored"),
        "{}",
        r.err
    );
    assert!(!u.credentials().exists());
}

#[test]
fn logout_removes_what_login_stored() {
    let s = stack("logout_removes_what_login_stored");
    let u = User::new(&s.endpoint, &[&s.secret_key]);
    assert_eq!(u.login(&s.access_key, &s.secret_key).code, Some(0));
    assert!(u.credentials().exists());
    let r = u.run(&["logout"], "", &[]);
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    assert_eq!(
        r.out,
        format!(
            "Removed the keypair for {} from {}.\n",
            s.endpoint,
            u.credentials().display()
        )
    );
    assert!(!u.credentials().exists());
    let r = u.run(&["logout"], "", &[]);
    assert_eq!(
        (r.code, r.out.as_str()),
        (
            Some(0),
            format!("No keypair was stored for {}.\n", s.endpoint).as_str()
        )
    );
    let d = u.doctor(&[]);
    assert_eq!(d.code, Some(1), "{}", d.out);
    assert!(
        d.out.lines().any(|l| l
            == "keypair: FAILED (no Backend.AI keypair: run `bai-slurm login` or set \
                BACKEND_ACCESS_KEY and BACKEND_SECRET_KEY)"),
        "{}",
        d.out
    );
}

#[test]
fn configured_keys_win_over_the_stored_ones() {
    let s = stack("configured_keys_win_over_the_stored_ones");
    let u = User::new(&s.endpoint, &[&s.secret_key, &s.admin_secret_key]);
    assert_eq!(u.login(&s.access_key, &s.secret_key).code, Some(0));
    let d = u.doctor(&[
        ("BACKEND_ACCESS_KEY", &s.admin_access_key),
        ("BACKEND_SECRET_KEY", &s.admin_secret_key),
    ]);
    assert_eq!(d.code, Some(0), "{}", d.out);
    assert!(
        d.out.lines().any(|l| l
            == format!(
                "keypair: {} from the configuration: OK (role superadmin)",
                s.admin_access_key
            )),
        "{}",
        d.out
    );
    assert!(
        d.out
            .lines()
            .any(|l| l == "user: admin@lablup.com (role superadmin)"),
        "{}",
        d.out
    );
    // Logging in while keys are configured works, with a note that they win.
    let r = u.run(
        &["login", "--access-key", &s.access_key],
        &format!("{}\n", s.secret_key),
        &[
            ("BACKEND_ACCESS_KEY", &s.admin_access_key),
            ("BACKEND_SECRET_KEY", &s.admin_secret_key),
        ],
    );
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    assert!(
        r.err.contains("takes precedence over the stored one"),
        "{}",
        r.err
    );
}

#[test]
fn a_credentials_file_others_may_read_is_refused() {
    let s = stack("a_credentials_file_others_may_read_is_refused");
    let u = User::new(&s.endpoint, &[&s.secret_key]);
    assert_eq!(u.login(&s.access_key, &s.secret_key).code, Some(0));
    std::fs::set_permissions(u.credentials(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let d = u.doctor(&[]);
    assert_eq!(d.code, Some(1), "{}", d.out);
    let file = u.credentials().display().to_string();
    assert!(
        d.out.lines().any(|l| l
            == format!(
                "keypair: FAILED ({file} may be read by other users (mode 644); run `chmod 600 {file}`)"
            )),
        "{}",
        d.out
    );
}

#[test]
fn doctor_checks_project_partitions_and_the_launcher_vfolder() {
    let s = stack("doctor_checks_project_partitions_and_the_launcher_vfolder");
    let u = User::new(&s.endpoint, &[&s.secret_key]);
    let dir = u.home.path().join(".config/bai-slurm");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "[backendai]\nlauncher_vfolder = \"no-such-tools\"\n\n\
         [[partitions]]\nname = \"batch\"\nresource_group = \"default\"\n\n\
         [[partitions]]\nname = \"gpu\"\n",
    )
    .unwrap();
    let env = [
        ("BACKEND_ACCESS_KEY", s.access_key.as_str()),
        ("BACKEND_SECRET_KEY", s.secret_key.as_str()),
    ];
    let d = u.doctor(&env);
    assert_eq!(d.code, Some(1), "{}", d.out);
    for line in [
        "partition batch: resource group default: OK",
        "partition gpu: FAILED (resource group gpu is not open to project default)",
        "launcher: FAILED (vfolder no-such-tools ([backendai] launcher_vfolder) is not visible to this user)",
        "status: FAILED (partitions, launcher)",
    ] {
        assert!(
            d.out.lines().any(|l| l == line),
            "no {line:?} in:\n{}",
            d.out
        );
    }
    let mut env = env.to_vec();
    env.push(("BACKEND_GROUP", "no-such-project"));
    let d = u.doctor(&env);
    assert_eq!(d.code, Some(1), "{}", d.out);
    // (26.9's fixtures also make the user a member of model-store and user)
    assert!(
        d.out.lines().any(|l| l
            .strip_prefix(
                "group: FAILED (the user is not a member of project no-such-project; member of: "
            )
            .is_some_and(|rest| rest
                .trim_end_matches(')')
                .split(", ")
                .any(|g| g == "default"))),
        "{}",
        d.out
    );
}

#[test]
fn the_secret_key_is_never_an_argument() {
    let u = User::new("http://127.0.0.1:9", &[]);
    for args in [
        &["login", "--secret-key", "x"][..],
        &["login", "--secret-key=x"],
    ] {
        let r = u.run(args, "", &[]);
        assert_eq!(r.code, Some(2), "{}{}", r.out, r.err);
        assert!(
            r.err.contains("not taken from the command line"),
            "{}",
            r.err
        );
    }
    let r = u.run(&["login", "--access-key", "AK"], "", &[]);
    assert_eq!(
        (r.code, r.err.as_str()),
        (Some(1), "bai-slurm login: no secret key given on stdin\n")
    );
}

/// Whether `prog` is on the PATH.
fn have(prog: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
}

#[test]
fn with_a_secret_service_login_stores_in_the_keyring_and_logout_removes_it() {
    let test = "with_a_secret_service_login_stores_in_the_keyring_and_logout_removes_it";
    let s = stack(test);
    // A real Secret Service: GNOME Keyring on a private session bus, its login collection
    // created and unlocked with a password on stdin (scripts/test.sh installs both).
    assert!(
        have("gnome-keyring-daemon") && have("dbus-run-session"),
        "{test}: gnome-keyring-daemon and dbus-run-session are needed \
         (apt-get install gnome-keyring dbus-daemon; scripts/test.sh does)"
    );
    let u = User::new(&s.endpoint, &[&s.secret_key]);
    let script = r#"
        eval "$(printf unlock-me | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)"
        step() { echo "== $1"; shift; "$@"; echo "== rc=$?"; }
        step login sh -c 'printf "%s\n" "$SECRET" | "$BIN" login --access-key "$AK"'
        unset SECRET
        step file ls "$HOME/.config/bai-slurm/credentials"
        step doctor "$BIN" doctor
        step logout "$BIN" logout
        step after "$BIN" doctor
    "#;
    let o = Command::new("timeout")
        .args(["120", "dbus-run-session", "--", "sh", "-c", script])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("HOME", u.home.path())
        .env("XDG_RUNTIME_DIR", u.runtime.path())
        .env("BAI_SLURM_SYSTEM_CONFIG", u.home.path().join("none.toml"))
        .env("BACKEND_ENDPOINT", &s.endpoint)
        .env("BIN", env!("CARGO_BIN_EXE_bai-slurm"))
        .env("AK", &s.access_key)
        .env("SECRET", &s.secret_key)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !out.contains(&s.secret_key) && !err.contains(&s.secret_key),
        "a secret was printed"
    );
    let step = |name: &str| -> String {
        let start = out
            .find(&format!("== {name}\n"))
            .unwrap_or_else(|| panic!("no step {name}:\n{out}\n{err}"));
        let rest = &out[start + name.len() + 4..];
        rest[..rest.find("== rc=").unwrap() + 7].to_string()
    };
    let ring = "the OS keyring (Secret Service, service \"bai-slurm\")";
    let login = step("login");
    assert!(
        login.contains(&format!(
            "Stored the keypair in {ring} for {}.\n",
            s.endpoint
        )) && login.ends_with("== rc=0"),
        "{login}\n{err}"
    );
    assert!(
        step("file").ends_with("== rc=2"),
        "no credentials file: {out}"
    );
    let doctor = step("doctor");
    assert!(
        doctor.contains("keyring: Secret Service on the D-Bus session bus\n")
            && doctor.contains(&format!(
                "keypair: {} from {ring}: OK (role user)\n",
                s.access_key
            ))
            && doctor.contains("status: OK\n")
            && doctor.ends_with("== rc=0"),
        "{doctor}"
    );
    let logout = step("logout");
    assert!(
        logout.contains(&format!(
            "Removed the keypair for {} from {ring}.\n",
            s.endpoint
        )),
        "{logout}"
    );
    let after = step("after");
    assert!(
        after.contains("keypair: FAILED (no Backend.AI keypair") && after.ends_with("== rc=1"),
        "{after}"
    );
}

#[test]
fn on_a_terminal_login_asks_and_does_not_echo_the_secret() {
    use std::io::Read;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    let secret = "Typed-Secret-Key-0123456789abcdefghijklmn";
    let u = User::new("http://127.0.0.1:9", &[]);
    let pty = nix::pty::openpty(None, None).unwrap();
    let slave = |_| Stdio::from(pty.slave.try_clone().unwrap());
    let mut child = Command::new(env!("CARGO_BIN_EXE_bai-slurm"))
        .args(["login", "--no-verify"])
        .env_clear()
        .env("HOME", u.home.path())
        .env("XDG_RUNTIME_DIR", u.runtime.path())
        .env("BAI_SLURM_SYSTEM_CONFIG", u.home.path().join("none.toml"))
        .env("BACKEND_ENDPOINT", &u.endpoint)
        .stdin(slave(0))
        .stdout(slave(1))
        .stderr(slave(2))
        .spawn()
        .unwrap();
    drop(pty.slave);
    let mut master = std::fs::File::from(pty.master);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut reader = master.try_clone().unwrap();
    let sink = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let wait_for = |what: &str| {
        let t0 = Instant::now();
        while !String::from_utf8_lossy(&seen.lock().unwrap()).contains(what) {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "no {what:?} in {:?}",
                String::from_utf8_lossy(&seen.lock().unwrap())
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for("Backend.AI access key for http://127.0.0.1:9: ");
    master.write_all(b"AKIATYPED00000000000\n").unwrap();
    wait_for("Secret key for AKIATYPED00000000000 (not shown): ");
    master.write_all(format!("{secret}\n").as_bytes()).unwrap();
    wait_for("Stored the keypair in ");
    assert_eq!(child.wait().unwrap().code(), Some(0));
    wait_for("(no D-Bus session bus).");
    let text = String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    assert!(!text.contains(secret), "the secret was echoed: {text}");
    assert!(
        text.contains("AKIATYPED00000000000\r\n"),
        "the access key is echoed: {text}"
    );
    let stored = std::fs::read_to_string(u.credentials()).unwrap();
    assert!(stored.contains(secret) && stored.contains("AKIATYPED00000000000"));
}

#[test]
fn ctrl_c_at_the_secret_prompt_gives_the_terminal_its_echo_back() {
    use std::io::Read;
    use std::time::{Duration, Instant};
    let u = User::new("http://127.0.0.1:9", &[]);
    let pty = nix::pty::openpty(None, None).unwrap();
    let slave = || Stdio::from(pty.slave.try_clone().unwrap());
    let echo_on = || {
        nix::sys::termios::tcgetattr(&pty.slave)
            .unwrap()
            .local_flags
            .contains(nix::sys::termios::LocalFlags::ECHO)
    };
    assert!(echo_on(), "a new terminal echoes");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bai-slurm"))
        .args([
            "login",
            "--no-verify",
            "--access-key",
            "AKIAINTERRUPTED00000",
        ])
        .env_clear()
        .env("HOME", u.home.path())
        .env("XDG_RUNTIME_DIR", u.runtime.path())
        .env("BAI_SLURM_SYSTEM_CONFIG", u.home.path().join("none.toml"))
        .env("BACKEND_ENDPOINT", &u.endpoint)
        .stdin(slave())
        .stdout(slave())
        .stderr(slave())
        .spawn()
        .unwrap();
    let mut master = std::fs::File::from(pty.master);
    let mut seen = Vec::new();
    let t0 = Instant::now();
    while !String::from_utf8_lossy(&seen).contains("(not shown): ") {
        assert!(t0.elapsed() < Duration::from_secs(20), "{seen:?}");
        let mut buf = [0u8; 256];
        let n = master.read(&mut buf).unwrap();
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(!echo_on(), "echo is off at the prompt");
    // What Ctrl-C does on a terminal: SIGINT to the foreground process group.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert!(echo_on(), "echo restored after SIGINT");
    assert!(!u.credentials().exists());
}
