//! Connection settings for the Backend.AI backend: the endpoint, domain and group from the
//! configuration (files, then `BACKEND_*` variables), and the keypair from, in this order:
//!
//! 1. the configuration (`BACKEND_ACCESS_KEY` and `BACKEND_SECRET_KEY`, or `access_key` and
//!    `secret_key` in `[backendai]`), when both keys are set there;
//! 2. the OS keyring, where `bai-slurm login` stored it (unless `[backendai] keyring = false`);
//! 3. the credentials file `~/.config/bai-slurm/credentials`, where `bai-slurm login` stored
//!    it when there was no keyring.
//!
//! The stored keypairs are looked up by endpoint ([`crate::credentials::endpoint_key`]).

use super::client::Settings;
use crate::config::Loaded;
use crate::credentials::{Place, Stores};
use std::collections::BTreeMap;

/// Why no usable settings could be formed (one line, never containing a secret).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("no Backend.AI endpoint is configured (BACKEND_ENDPOINT or [backendai] endpoint)")]
    NoEndpoint,
    #[error(
        "no Backend.AI keypair: run `bai-slurm login` or set BACKEND_ACCESS_KEY and BACKEND_SECRET_KEY"
    )]
    NoKeypair,
    #[error("{0}")]
    Credentials(String),
}

/// Where the keypair in force came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// Config files or `BACKEND_ACCESS_KEY`/`BACKEND_SECRET_KEY`.
    Configured,
    /// What `bai-slurm login` stored.
    Stored(Place),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Configured => f.write_str("the configuration"),
            KeySource::Stored(p) => write!(f, "{p}"),
        }
    }
}

/// The settings in force for this user.
pub fn resolve(loaded: &Loaded, env: &BTreeMap<String, String>) -> Result<Settings, SettingsError> {
    resolve_from(loaded, &stores(loaded, env)).map(|(s, _)| s)
}

/// The places `bai-slurm login` stores keypairs in, as the configuration allows.
pub fn stores(loaded: &Loaded, env: &BTreeMap<String, String>) -> Stores {
    Stores::for_env(env, loaded.config.backendai.keyring.unwrap_or(true))
}

/// The settings in force and where their keypair came from, looking in `stores`.
pub fn resolve_from(
    loaded: &Loaded,
    stores: &Stores,
) -> Result<(Settings, KeySource), SettingsError> {
    resolve_reporting(loaded, stores).0
}

/// [`resolve_from`], and why the keyring could not be read when it was asked and could
/// not answer (for `bai-slurm doctor`).
pub fn resolve_reporting(
    loaded: &Loaded,
    stores: &Stores,
) -> (Result<(Settings, KeySource), SettingsError>, Option<String>) {
    let b = &loaded.config.backendai;
    let Some(endpoint) = b.endpoint.clone().filter(|e| !e.is_empty()) else {
        return (Err(SettingsError::NoEndpoint), None);
    };
    let configured = match (&b.access_key, &b.secret_key) {
        (Some(a), Some(s)) if !a.is_empty() && !s.is_empty() => Some((a.clone(), s.clone())),
        _ => None,
    };
    let mut keyring_problem = None;
    let keys = match configured {
        Some((a, s)) => Ok((a, s, KeySource::Configured)),
        None => match stores.lookup(&endpoint) {
            Err(e) => Err(SettingsError::Credentials(e.to_string())),
            Ok(found) => {
                keyring_problem = found.keyring_problem;
                found
                    .keypair
                    .map(|(kp, place)| (kp.access_key, kp.secret_key, KeySource::Stored(place)))
                    .ok_or(SettingsError::NoKeypair)
            }
        },
    };
    let result = keys.map(|(access_key, secret_key, source)| {
        (
            Settings {
                endpoint,
                access_key,
                secret_key,
                domain: b.domain.clone().unwrap_or_else(|| "default".into()),
                group: b.group.clone().unwrap_or_else(|| "default".into()),
                skip_tls_verify: b.skip_sslcert_validation.unwrap_or(false),
            },
            source,
        )
    });
    (result, keyring_problem)
}

/// Whether only one half of a keypair is configured (it is then ignored).
pub fn half_configured(loaded: &Loaded) -> Option<&'static str> {
    let b = &loaded.config.backendai;
    let set = |v: &Option<String>| v.as_deref().is_some_and(|v| !v.is_empty());
    match (set(&b.access_key), set(&b.secret_key)) {
        (true, false) => Some("an access key is configured without a secret key"),
        (false, true) => Some("a secret key is configured without an access key"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::tests::MemKeyring;
    use crate::credentials::{self, Keypair};
    use std::rc::Rc;

    fn loaded(endpoint: Option<&str>, keys: Option<(&str, &str)>) -> Loaded {
        let mut l = Loaded::default();
        l.config.backendai.endpoint = endpoint.map(str::to_string);
        if let Some((a, s)) = keys {
            l.config.backendai.access_key = Some(a.into());
            l.config.backendai.secret_key = Some(s.into());
        }
        l
    }

    fn kp(a: &str, s: &str) -> Keypair {
        Keypair {
            access_key: a.into(),
            secret_key: s.into(),
        }
    }

    #[test]
    fn configured_keys_win_then_the_keyring_then_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credentials");
        let ring = Rc::new(MemKeyring::default());
        let stores = Stores {
            keyring: Ok(Box::new(ring.clone())),
            file: Some(file.clone()),
        };
        let ep = "http://127.0.0.1:8081";
        assert_eq!(
            resolve_from(&loaded(Some(ep), None), &stores).unwrap_err(),
            SettingsError::NoKeypair
        );
        credentials::store(&file, ep, &kp("FILE", "f")).unwrap();
        let (s, src) = resolve_from(&loaded(Some(ep), None), &stores).unwrap();
        assert_eq!(
            (s.access_key.as_str(), src),
            ("FILE", KeySource::Stored(Place::File(file.clone())))
        );
        ring.entries.borrow_mut().insert(ep.into(), kp("RING", "r"));
        let (s, src) = resolve_from(&loaded(Some(&format!("{ep}/")), None), &stores).unwrap();
        assert_eq!(
            (s.access_key.as_str(), src),
            ("RING", KeySource::Stored(Place::Keyring))
        );
        let (s, src) = resolve_from(&loaded(Some(ep), Some(("CONF", "c"))), &stores).unwrap();
        assert_eq!(
            (s.access_key.as_str(), s.secret_key.as_str()),
            ("CONF", "c")
        );
        assert_eq!(src, KeySource::Configured);
        assert_eq!(s.domain, "default");
        assert_eq!(
            resolve_from(&loaded(None, Some(("A", "S"))), &stores).unwrap_err(),
            SettingsError::NoEndpoint
        );
    }

    #[test]
    fn an_open_credentials_file_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credentials");
        credentials::store(&file, "http://h", &kp("A", "s3cr3t")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let stores = Stores {
            keyring: Err("none".into()),
            file: Some(file),
        };
        let e = resolve_from(&loaded(Some("http://h"), None), &stores).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("chmod 600") && !m.contains("s3cr3t"), "{m}");
    }

    #[test]
    fn half_a_keypair_is_noticed() {
        let mut l = loaded(Some("http://h"), None);
        assert_eq!(half_configured(&l), None);
        l.config.backendai.access_key = Some("A".into());
        assert!(
            half_configured(&l)
                .unwrap()
                .contains("without a secret key")
        );
    }
}
