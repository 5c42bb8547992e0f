//! `bai-slurm login` and `bai-slurm logout`: store (and remove) the user's Backend.AI keypair
//! for the configured endpoint, in the OS keyring where there is one, else in the 0600
//! credentials file (see [`crate::credentials`]).
//!
//! The secret key is never taken from the command line (every user can read other users'
//! arguments with `ps`): it is asked for with echo off on a terminal, else read from stdin.
//! It is never printed, and no message quotes it.

use crate::backend::backendai::client::{Client, ClientError, Method, Options, RetryPolicy};
use crate::backend::backendai::settings::{self, KeySource};
use crate::cli::Invocation;
use crate::config::Loaded;
use crate::credentials::{Keypair, Place};
use std::io::{IsTerminal, Read};

const LOGIN_USAGE: &str = "Usage: bai-slurm login [--access-key KEY] [--no-verify]

Stores your Backend.AI keypair for the configured endpoint (BACKEND_ENDPOINT or
[backendai] endpoint): in the OS keyring where there is one, else in
~/.config/bai-slurm/credentials (mode 0600). The keypair is checked against the
manager first unless --no-verify is given.

On a terminal the access key (unless given) and the secret key are asked for, the
secret without echo. Otherwise stdin gives them one per line: the access key (unless
--access-key is given), then the secret key. The secret key is never accepted as an
argument: other users can see arguments.";

const LOGOUT_USAGE: &str = "Usage: bai-slurm logout

Removes the keypair `bai-slurm login` stored for the configured endpoint from the OS
keyring and from ~/.config/bai-slurm/credentials.";

struct LoginArgs {
    access_key: Option<String>,
    verify: bool,
}

fn parse(args: &[String]) -> Result<Option<LoginArgs>, String> {
    let mut a = LoginArgs {
        access_key: None,
        verify: true,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--no-verify" => a.verify = false,
            "--access-key" | "-a" => {
                a.access_key = Some(
                    it.next()
                        .ok_or("--access-key needs a value")?
                        .trim()
                        .to_string(),
                )
            }
            s if s.starts_with("--access-key=") => {
                a.access_key = Some(s["--access-key=".len()..].trim().to_string())
            }
            s if s.starts_with("--secret-key") || s == "-s" => {
                return Err(
                    "the secret key is not taken from the command line (other users \
                            can see arguments): give it on stdin or at the prompt"
                        .into(),
                );
            }
            s => return Err(format!("unknown argument '{s}'")),
        }
    }
    if a.access_key.as_deref() == Some("") {
        return Err("--access-key is empty".into());
    }
    Ok(Some(a))
}

/// One line from `r` without its line end; `None` at the end of input. Reads byte by byte
/// so that nothing after the line is consumed.
fn read_line(r: &mut dyn Read) -> std::io::Result<Option<String>> {
    let mut bytes = Vec::new();
    let mut b = [0u8; 1];
    loop {
        match r.read(&mut b) {
            Ok(0) if bytes.is_empty() => return Ok(None),
            Ok(0) => break,
            Ok(_) if b[0] == b'\n' => break,
            Ok(_) => bytes.push(b[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(Some(String::from_utf8_lossy(&bytes).trim().to_string()))
}

/// A line read from the terminal with echo off (restored afterwards, also when the user
/// gives up with Ctrl-C or is sent SIGTERM/SIGHUP). The prompt is shown once echo is off, so
/// that nothing typed after it can be echoed.
fn read_hidden(inv: &mut Invocation<'_>, prompt: &str) -> std::io::Result<Option<String>> {
    // SAFETY: tcgetattr fills the struct it is given; fd 0 is this process's stdin.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    let have = unsafe { libc::tcgetattr(0, &mut saved) } == 0;
    let mut guards = Vec::new();
    if have {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
            // SAFETY: the handler only calls tcsetattr (an ioctl) and re-raises the
            // signal with its default action: both async-signal-safe.
            let id = unsafe {
                signal_hook::low_level::register(sig, move || {
                    libc::tcsetattr(0, libc::TCSANOW, &saved);
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                })
            };
            guards.extend(id.ok());
        }
        let mut quiet = saved;
        quiet.c_lflag &= !libc::ECHO;
        quiet.c_lflag |= libc::ECHONL;
        // SAFETY: as above.
        unsafe { libc::tcsetattr(0, libc::TCSAFLUSH, &quiet) };
    }
    let _ = write!(inv.err, "{prompt}");
    let _ = inv.err.flush();
    let line = read_line(inv.stdin);
    if have {
        // SAFETY: as above.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &saved) };
        for id in guards {
            signal_hook::low_level::unregister(id);
        }
    }
    line
}

fn fail(inv: &mut Invocation<'_>, cmd: &str, msg: &str) -> i32 {
    let _ = writeln!(inv.err, "bai-slurm {cmd}: {msg}");
    1
}

/// The configuration and the endpoint it names, or the one-line reason there is none.
fn endpoint(inv: &Invocation<'_>) -> Result<(Loaded, String), String> {
    let loaded = Loaded::load(&inv.env).map_err(|e| format!("configuration: {e}"))?;
    let ep = loaded
        .config
        .backendai
        .endpoint
        .clone()
        .filter(|e| !e.trim().is_empty())
        .ok_or_else(|| settings::SettingsError::NoEndpoint.to_string())?;
    Ok((loaded, ep.trim().to_string()))
}

pub fn login(inv: &mut Invocation<'_>) -> i32 {
    let args = match parse(&inv.args) {
        Ok(Some(a)) => a,
        Ok(None) => {
            let _ = writeln!(inv.out, "{LOGIN_USAGE}");
            return 0;
        }
        Err(e) => {
            let _ = writeln!(inv.err, "bai-slurm login: {e}\n{LOGIN_USAGE}");
            return 2;
        }
    };
    let (loaded, endpoint) = match endpoint(inv) {
        Ok(x) => x,
        Err(e) => return fail(inv, "login", &e),
    };

    // The keypair: the access key from the argument, the prompt or stdin's first line; the
    // secret from the hidden prompt or stdin's next line.
    let interactive = std::io::stdin().is_terminal();
    let access_key = match args.access_key {
        Some(a) => a,
        None => {
            if interactive {
                let _ = write!(inv.err, "Backend.AI access key for {endpoint}: ");
                let _ = inv.err.flush();
            }
            match read_line(inv.stdin) {
                Ok(Some(a)) if !a.is_empty() => a,
                Ok(_) => {
                    return fail(
                        inv,
                        "login",
                        "no access key given (--access-key, or the first line of stdin)",
                    );
                }
                Err(e) => return fail(inv, "login", &format!("cannot read the access key: {e}")),
            }
        }
    };
    let secret = if interactive {
        read_hidden(inv, &format!("Secret key for {access_key} (not shown): "))
    } else {
        read_line(inv.stdin)
    };
    let secret_key = match secret {
        Ok(Some(s)) if !s.is_empty() => s,
        Ok(_) => {
            let whence = if interactive {
                "at the prompt"
            } else {
                "on stdin"
            };
            return fail(inv, "login", &format!("no secret key given {whence}"));
        }
        Err(e) => return fail(inv, "login", &format!("cannot read the secret key: {e}")),
    };
    let keypair = Keypair {
        access_key,
        secret_key,
    };

    if args.verify {
        match verify(&loaded, &endpoint, &keypair) {
            Ok(who) => {
                let _ = writeln!(
                    inv.out,
                    "Backend.AI at {endpoint} accepted access key {} ({who}).",
                    keypair.access_key
                );
            }
            Err(e) => return fail(inv, "login", &e),
        }
    } else {
        let _ = writeln!(
            inv.out,
            "Not checked against {endpoint} (--no-verify): `bai-slurm doctor` checks it."
        );
    }

    let stores = settings::stores(&loaded, &inv.env);
    match stores.save(&endpoint, &keypair) {
        Ok(saved) => {
            let why = saved
                .keyring_problem
                .map(|p| format!("; the OS keyring could not be used ({p})"))
                .unwrap_or_default();
            let what = match &saved.place {
                Place::Keyring => format!("{} for {endpoint}", saved.place),
                Place::File(_) => format!("{} (mode 0600)", saved.place),
            };
            let _ = writeln!(inv.out, "Stored the keypair in {what}{why}.");
        }
        Err(e) => return fail(inv, "login", &format!("cannot store the keypair: {e}")),
    }
    if let Ok((_, KeySource::Configured)) = settings::resolve_from(&loaded, &stores) {
        let _ = writeln!(
            inv.err,
            "bai-slurm login: note: a keypair is also configured (BACKEND_ACCESS_KEY and \
             BACKEND_SECRET_KEY, or [backendai] access_key and secret_key); it takes \
             precedence over the stored one"
        );
    }
    0
}

/// Checks the keypair with a signed request that the manager authenticates (`GET
/// /auth/role`; `GET /` is not authenticated). Returns who the keypair is, or the one-line
/// reason it cannot be used (never quoting the secret).
fn verify(loaded: &Loaded, endpoint: &str, kp: &Keypair) -> Result<String, String> {
    let b = &loaded.config.backendai;
    let settings = crate::backend::backendai::client::Settings {
        endpoint: endpoint.to_string(),
        access_key: kp.access_key.clone(),
        secret_key: kp.secret_key.clone(),
        domain: b.domain.clone().unwrap_or_else(|| "default".into()),
        group: b.group.clone().unwrap_or_else(|| "default".into()),
        skip_tls_verify: b.skip_sslcert_validation.unwrap_or(false),
    };
    let options = Options {
        retry: RetryPolicy {
            attempts: 2,
            ..RetryPolicy::default()
        },
        ..Options::default()
    };
    let unchecked = "; nothing stored (--no-verify stores it unchecked)";
    let client = Client::with_options(settings, options).map_err(|e| e.to_string())?;
    let role = match client.request(Method::Get, "/auth/role", None) {
        Ok((_, v)) => v
            .get("global_role")
            .and_then(|r| r.as_str())
            .unwrap_or("?")
            .to_string(),
        Err(ClientError::AuthRejected { status, message }) => {
            return Err(format!(
                "Backend.AI at {endpoint} refused the keypair (access key {}): {message} \
                 (HTTP {status}); nothing stored",
                kp.access_key
            ));
        }
        Err(e) => return Err(format!("{e}{unchecked}")),
    };
    // Who this is, for the message; the check above is what counts.
    let email = client
        .graphql("{ user { email } }", serde_json::json!({}))
        .ok()
        .and_then(|d| d["user"]["email"].as_str().map(str::to_string));
    Ok(match email {
        Some(e) => format!("{e}, role {role}"),
        None => format!("role {role}"),
    })
}

pub fn logout(inv: &mut Invocation<'_>) -> i32 {
    match inv.args.first().map(String::as_str) {
        None => {}
        Some("-h" | "--help") => {
            let _ = writeln!(inv.out, "{LOGOUT_USAGE}");
            return 0;
        }
        Some(other) => {
            let _ = writeln!(
                inv.err,
                "bai-slurm logout: unknown argument '{other}'\n{LOGOUT_USAGE}"
            );
            return 2;
        }
    }
    let (loaded, endpoint) = match endpoint(inv) {
        Ok(x) => x,
        Err(e) => return fail(inv, "logout", &e),
    };
    let stores = settings::stores(&loaded, &inv.env);
    let (removed, problems) = stores.forget(&endpoint);
    if removed.is_empty() && problems.is_empty() {
        let _ = writeln!(inv.out, "No keypair was stored for {endpoint}.");
    }
    for p in &removed {
        let _ = writeln!(inv.out, "Removed the keypair for {endpoint} from {p}.");
    }
    if settings::resolve_from(&loaded, &stores).is_ok_and(|(_, src)| src == KeySource::Configured) {
        let _ = writeln!(
            inv.err,
            "bai-slurm logout: note: the keypair in the configuration (BACKEND_ACCESS_KEY and \
             BACKEND_SECRET_KEY, or [backendai] access_key and secret_key) is still in force"
        );
    }
    for p in &problems {
        let _ = writeln!(inv.err, "bai-slurm logout: {p}");
    }
    i32::from(!problems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_secret_is_never_an_argument() {
        for a in [
            &["--secret-key", "x"][..],
            &["--secret-key=x"],
            &["-s", "x"],
        ] {
            let e = parse(&args(a)).err().unwrap();
            assert!(e.contains("not taken from the command line"), "{e}");
        }
        let a = parse(&args(&["--access-key", "AK", "--no-verify"]))
            .unwrap()
            .unwrap();
        assert_eq!((a.access_key.as_deref(), a.verify), (Some("AK"), false));
        let a = parse(&args(&["--access-key=AK2"])).unwrap().unwrap();
        assert_eq!((a.access_key.as_deref(), a.verify), (Some("AK2"), true));
        assert!(parse(&args(&["--help"])).unwrap().is_none());
        assert!(parse(&args(&["--access-key"])).is_err());
        assert!(parse(&args(&["--access-key="])).is_err());
        assert!(parse(&args(&["extra"])).is_err());
    }

    #[test]
    fn lines_are_read_one_at_a_time() {
        let mut input: &[u8] = b"AK \r\nsecret\nrest";
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("AK"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("secret"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("rest"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
