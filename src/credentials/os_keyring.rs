//! The OS keyring: the freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) on the
//! D-Bus session bus, through the `keyring` crate (its pure-Rust D-Bus client, so the static
//! build carries it too). Entries: service `bai-slurm`, user = the endpoint, secret = the
//! keypair as JSON.
//!
//! Where there is no session bus (servers, CI, `ssh` without a desktop session) the keyring
//! is not even tried. A keyring that hangs (a locked collection waiting for a prompt nobody
//! sees) is abandoned after [`TIMEOUT`]; callers then use the credentials file.

use super::{KEYRING_SERVICE, Keypair, Keyring};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

/// How long one keyring operation may take.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The Secret Service of this login session.
#[derive(Debug)]
pub struct OsKeyring {
    timeout: Duration,
}

impl OsKeyring {
    /// The keyring, when a D-Bus session bus is there to reach it; else why not.
    pub fn open(env: &BTreeMap<String, String>) -> Result<OsKeyring, String> {
        if !session_bus(env) {
            return Err("no D-Bus session bus".into());
        }
        Ok(OsKeyring { timeout: TIMEOUT })
    }

    /// Runs one keyring operation on its own thread, giving up after the timeout.
    fn run<T: Send + 'static>(
        &self,
        op: impl FnOnce() -> Result<T, keyring::Error> + Send + 'static,
    ) -> Result<T, String> {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("keyring".into())
            .spawn(move || {
                let _ = tx.send(op());
            })
            .map_err(|e| format!("cannot ask the keyring: {e}"))?;
        match rx.recv_timeout(self.timeout) {
            Ok(r) => r.map_err(|e| describe(&e)),
            Err(_) => Err(format!(
                "the keyring did not answer within {} s (is it locked?)",
                self.timeout.as_secs()
            )),
        }
    }
}

/// Whether the D-Bus session bus the keyring crate would use is there: the address in
/// DBUS_SESSION_BUS_ADDRESS, else the socket `$XDG_RUNTIME_DIR/bus` (`/run/user/<uid>/bus`).
fn session_bus(env: &BTreeMap<String, String>) -> bool {
    let nonempty = |k: &str| env.get(k).filter(|v| !v.is_empty());
    if nonempty("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| a != "disabled:") {
        return true;
    }
    let dir = nonempty("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("/run/user/{}", nix::unistd::geteuid())));
    dir.join("bus").exists()
}

/// A keyring error in one line; it never holds the secret.
fn describe(e: &keyring::Error) -> String {
    match e {
        keyring::Error::PlatformFailure(e) => format!("the keyring failed: {e}"),
        keyring::Error::NoStorageAccess(e) => format!("no access to the keyring: {e}"),
        keyring::Error::BadEncoding(_) => "the keyring entry is not text".into(),
        keyring::Error::Ambiguous(v) => format!(
            "{} keyring entries match service \"{KEYRING_SERVICE}\"; remove them with a keyring tool",
            v.len()
        ),
        other => other.to_string(),
    }
}

fn entry(endpoint: &str) -> Result<keyring::Entry, keyring::Error> {
    keyring::Entry::new(KEYRING_SERVICE, endpoint)
}

impl Keyring for OsKeyring {
    fn get(&self, endpoint: &str) -> Result<Option<Keypair>, String> {
        let ep = endpoint.to_string();
        let text = self.run(move || match entry(&ep)?.get_password() {
            Ok(t) => Ok(Some(t)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(e),
        })?;
        match text {
            None => Ok(None),
            Some(t) => serde_json::from_str(&t).map(Some).map_err(|_| {
                format!("the keyring entry for {endpoint} is not a keypair stored by bai-slurm")
            }),
        }
    }

    fn set(&self, endpoint: &str, keypair: &Keypair) -> Result<(), String> {
        let ep = endpoint.to_string();
        let text = serde_json::to_string(keypair).map_err(|e| e.to_string())?;
        self.run(move || entry(&ep)?.set_password(&text))
    }

    fn delete(&self, endpoint: &str) -> Result<bool, String> {
        let ep = endpoint.to_string();
        self.run(move || match entry(&ep)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_session_bus_means_no_keyring() {
        let dir = tempfile::tempdir().unwrap();
        let env: BTreeMap<String, String> = [(
            "XDG_RUNTIME_DIR".to_string(),
            dir.path().display().to_string(),
        )]
        .into();
        let err = OsKeyring::open(&env).unwrap_err();
        assert!(err.contains("no D-Bus session bus"), "{err}");
        let mut env = env;
        env.insert(
            "DBUS_SESSION_BUS_ADDRESS".into(),
            "unix:path=/nonexistent".into(),
        );
        assert!(OsKeyring::open(&env).is_ok());
    }

    #[test]
    fn an_unreachable_bus_fails_cleanly() {
        // The keyring crate finds the bus from the process's own environment: this checks
        // the error path only where that has no session bus (as on CI).
        let process_env: BTreeMap<String, String> = std::env::vars().collect();
        if session_bus(&process_env) {
            return;
        }
        let k = OsKeyring {
            timeout: Duration::from_secs(10),
        };
        let err = k.get("http://127.0.0.1:9").unwrap_err();
        assert!(err.contains("keyring"), "{err}");
    }
}
