//! The Backend.AI keypairs that `bai-slurm login` stores, one per endpoint:
//!
//! - in the OS keyring where there is one (the Secret Service on Linux: service
//!   `bai-slurm`, user = the endpoint as [`endpoint_key`] writes it, secret = the keypair as
//!   JSON), so the secret key is never on disk in clear;
//! - else in `~/.config/bai-slurm/credentials` (TOML, one table per endpoint), created with
//!   mode 0600 and refused when anybody else may read it.
//!
//! A lookup asks the keyring first, then the file. The secret key never reaches a log, an
//! error message or `--verbose` output: errors name the place, never the value.

mod os_keyring;

pub use os_keyring::OsKeyring;

use std::collections::BTreeMap;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The keyring service name every entry is stored under.
pub const KEYRING_SERVICE: &str = "bai-slurm";

#[derive(Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Keypair {
    pub access_key: String,
    pub secret_key: String,
}

impl std::fmt::Debug for Keypair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keypair")
            .field("access_key", &self.access_key)
            .field("secret_key", &"<hidden>")
            .finish()
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CredentialsError {
    #[error("{0} may be read by other users (mode {1:o}); run `chmod 600 {0}`")]
    TooOpen(String, u32),
    #[error("cannot read {0}: {1}")]
    Unreadable(String, String),
    #[error("cannot write {0}: {1}")]
    Unwritable(String, String),
    #[error("no credentials file: neither HOME nor XDG_CONFIG_HOME is set")]
    NoHome,
}

/// The name a keypair is stored under: the endpoint's first entry (the SDK allows a
/// comma-separated list; the client uses the first), without spaces or trailing slashes.
/// `https://api.example.org/` and `https://api.example.org` are the same endpoint.
pub fn endpoint_key(endpoint: &str) -> String {
    endpoint
        .split(',')
        .map(str::trim)
        .find(|e| !e.is_empty())
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string()
}

/// Where the credentials file lives for this environment.
pub fn path(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let base = match env.get("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => Path::new(env.get("HOME").filter(|v| !v.is_empty())?).join(".config"),
    };
    Some(base.join("bai-slurm").join("credentials"))
}

/// Every keypair in the file, by endpoint; an absent file holds none.
fn read_all(file: &Path) -> Result<BTreeMap<String, Keypair>, CredentialsError> {
    let shown = file.display().to_string();
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(CredentialsError::Unreadable(shown, e.to_string())),
    };
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(CredentialsError::TooOpen(shown, mode));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| CredentialsError::Unreadable(shown.clone(), e.to_string()))?;
    // The parser's message could quote the file's text: say only that it is malformed.
    toml::from_str(&text)
        .map_err(|_| CredentialsError::Unreadable(shown, "not a valid credentials file".into()))
}

/// Replaces the file's contents (atomically, mode 0600); no keypairs left removes it.
fn write_all(file: &Path, all: &BTreeMap<String, Keypair>) -> Result<(), CredentialsError> {
    let shown = file.display().to_string();
    let fail = |e: std::io::Error| CredentialsError::Unwritable(shown.clone(), e.to_string());
    if all.is_empty() {
        return match std::fs::remove_file(file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e)),
            _ => Ok(()),
        };
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = file.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let text = toml::to_string(all).map_err(|e| fail(std::io::Error::other(e.to_string())))?;
    let text = format!(
        "# Backend.AI keypairs stored by `bai-slurm login`, one table per endpoint.\n\
         # Keep this file private (mode 0600): bai-slurm refuses it otherwise.\n{text}"
    );
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(fail)?;
        f.write_all(text.as_bytes()).map_err(fail)?;
        f.sync_all().map_err(fail)?;
    }
    std::fs::rename(&tmp, file).map_err(fail)
}

/// The keypair the file holds for `endpoint`, if any.
pub fn load(file: &Path, endpoint: &str) -> Result<Option<Keypair>, CredentialsError> {
    Ok(read_all(file)?.remove(&endpoint_key(endpoint)))
}

/// Stores the keypair for `endpoint`, keeping the others; the file is readable by its
/// owner only.
pub fn store(file: &Path, endpoint: &str, keypair: &Keypair) -> Result<(), CredentialsError> {
    let mut all = match read_all(file) {
        Ok(all) => all,
        // A malformed file is replaced; one others may read is refused (it may be
        // somebody else's, or a mistake the user must see).
        Err(CredentialsError::Unreadable(..)) if file.exists() => BTreeMap::new(),
        Err(e) => return Err(e),
    };
    all.insert(endpoint_key(endpoint), keypair.clone());
    write_all(file, &all)
}

/// Removes the keypair for `endpoint`; says whether there was one.
pub fn remove(file: &Path, endpoint: &str) -> Result<bool, CredentialsError> {
    let mut all = read_all(file)?;
    if all.remove(&endpoint_key(endpoint)).is_none() {
        return Ok(false);
    }
    write_all(file, &all)?;
    Ok(true)
}

/// A keyring that holds keypairs by endpoint. Errors are one line and never hold a secret.
pub trait Keyring {
    fn get(&self, endpoint: &str) -> Result<Option<Keypair>, String>;
    fn set(&self, endpoint: &str, keypair: &Keypair) -> Result<(), String>;
    /// Says whether there was an entry.
    fn delete(&self, endpoint: &str) -> Result<bool, String>;
}

/// Where a stored keypair is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Keyring,
    File(PathBuf),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Keyring => write!(
                f,
                "the OS keyring (Secret Service, service \"{KEYRING_SERVICE}\")"
            ),
            Place::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// What a lookup found, and why the keyring could not be asked (when it could not).
#[derive(Debug, Default)]
pub struct Found {
    pub keypair: Option<(Keypair, Place)>,
    /// The keyring is absent or failed (e.g. no D-Bus session bus); the file was read.
    pub keyring_problem: Option<String>,
}

/// Where a save went.
#[derive(Debug)]
pub struct Saved {
    pub place: Place,
    /// Why the keyring was not used, when it was not.
    pub keyring_problem: Option<String>,
}

/// The two places a keypair may be stored, in the order they are read.
pub struct Stores {
    /// The keyring, or why there is none.
    pub keyring: Result<Box<dyn Keyring>, String>,
    /// The credentials file, unless there is no home directory.
    pub file: Option<PathBuf>,
}

impl Stores {
    /// The OS keyring (unless `use_keyring` is false or there is no session bus) and the
    /// credentials file of this environment.
    pub fn for_env(env: &BTreeMap<String, String>, use_keyring: bool) -> Stores {
        let keyring = if use_keyring {
            OsKeyring::open(env).map(|k| Box::new(k) as Box<dyn Keyring>)
        } else {
            Err("turned off by [backendai] keyring = false".to_string())
        };
        Stores {
            keyring,
            file: path(env),
        }
    }

    /// The keypair for `endpoint`: the keyring's, else the file's. A keyring that fails is
    /// passed over (and reported); a file others may read is an error.
    pub fn lookup(&self, endpoint: &str) -> Result<Found, CredentialsError> {
        let mut found = Found::default();
        match &self.keyring {
            Ok(k) => match k.get(&endpoint_key(endpoint)) {
                Ok(Some(kp)) => {
                    found.keypair = Some((kp, Place::Keyring));
                    return Ok(found);
                }
                Ok(None) => {}
                Err(e) => found.keyring_problem = Some(e),
            },
            Err(e) => found.keyring_problem = Some(e.clone()),
        }
        if let Some(file) = &self.file
            && let Some(kp) = load(file, endpoint)?
        {
            found.keypair = Some((kp, Place::File(file.clone())));
        }
        Ok(found)
    }

    /// Stores the keypair for `endpoint` in the keyring, else in the file. Stored in the
    /// keyring, it leaves the file (an older copy there is removed).
    pub fn save(&self, endpoint: &str, keypair: &Keypair) -> Result<Saved, CredentialsError> {
        let key = endpoint_key(endpoint);
        let problem = match &self.keyring {
            Ok(k) => match k.set(&key, keypair) {
                Ok(()) => {
                    if let Some(file) = &self.file {
                        let _ = remove(file, &key);
                    }
                    return Ok(Saved {
                        place: Place::Keyring,
                        keyring_problem: None,
                    });
                }
                Err(e) => e,
            },
            Err(e) => e.clone(),
        };
        let file = self.file.clone().ok_or(CredentialsError::NoHome)?;
        store(&file, &key, keypair)?;
        Ok(Saved {
            place: Place::File(file),
            keyring_problem: Some(problem),
        })
    }

    /// Removes the keypair for `endpoint` from both places; says where there was one. A
    /// keyring that fails is reported, not fatal (the file is still cleaned).
    pub fn forget(&self, endpoint: &str) -> (Vec<Place>, Vec<String>) {
        let key = endpoint_key(endpoint);
        let mut removed = Vec::new();
        let mut problems = Vec::new();
        if let Ok(k) = &self.keyring {
            match k.delete(&key) {
                Ok(true) => removed.push(Place::Keyring),
                Ok(false) => {}
                Err(e) => problems.push(format!("keyring: {e}")),
            }
        }
        if let Some(file) = &self.file {
            match remove(file, &key) {
                Ok(true) => removed.push(Place::File(file.clone())),
                Ok(false) => {}
                Err(e) => problems.push(e.to_string()),
            }
        }
        (removed, problems)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A keyring in memory, optionally broken.
    #[derive(Default)]
    pub(crate) struct MemKeyring {
        pub entries: RefCell<BTreeMap<String, Keypair>>,
        pub broken: bool,
    }

    impl Keyring for std::rc::Rc<MemKeyring> {
        fn get(&self, endpoint: &str) -> Result<Option<Keypair>, String> {
            if self.broken {
                return Err("the keyring is locked".into());
            }
            Ok(self.entries.borrow().get(endpoint).cloned())
        }
        fn set(&self, endpoint: &str, keypair: &Keypair) -> Result<(), String> {
            if self.broken {
                return Err("the keyring is locked".into());
            }
            self.entries
                .borrow_mut()
                .insert(endpoint.into(), keypair.clone());
            Ok(())
        }
        fn delete(&self, endpoint: &str) -> Result<bool, String> {
            if self.broken {
                return Err("the keyring is locked".into());
            }
            Ok(self.entries.borrow_mut().remove(endpoint).is_some())
        }
    }

    fn kp(a: &str, s: &str) -> Keypair {
        Keypair {
            access_key: a.into(),
            secret_key: s.into(),
        }
    }

    #[test]
    fn stored_privately_by_endpoint_and_refused_when_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bai-slurm/credentials");
        let one = kp("AKTEST", "s3cr3t");
        let two = kp("AKOTHER", "other-secret");
        store(&file, "http://a:8081/", &one).unwrap();
        store(&file, "https://b", &two).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(load(&file, "http://a:8081").unwrap(), Some(one.clone()));
        assert_eq!(load(&file, " https://b/ , https://c").unwrap(), Some(two));
        assert_eq!(load(&file, "https://c").unwrap(), None);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = load(&file, "http://a:8081").unwrap_err().to_string();
        assert!(
            err.contains("chmod 600") && err.contains("may be read by other users"),
            "{err}"
        );
        assert!(!err.contains("s3cr3t"), "{err}");
        assert!(store(&file, "http://a:8081", &one).is_err());
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(remove(&file, "http://a:8081").unwrap());
        assert!(!remove(&file, "http://a:8081").unwrap());
        assert!(remove(&file, "https://b").unwrap());
        assert!(!file.exists(), "an empty credentials file is removed");
        assert!(!format!("{one:?}").contains("s3cr3t"));
        assert_eq!(load(&dir.path().join("none"), "http://a").unwrap(), None);
    }

    #[test]
    fn a_malformed_file_is_named_but_not_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credentials");
        std::fs::write(&file, "secret_key = \"s3cr3t\" oops").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let err = load(&file, "http://a").unwrap_err().to_string();
        assert!(err.contains("not a valid credentials file"), "{err}");
        assert!(!err.contains("s3cr3t"), "{err}");
        // login replaces it
        store(&file, "http://a", &kp("A", "S")).unwrap();
        assert_eq!(load(&file, "http://a").unwrap(), Some(kp("A", "S")));
    }

    #[test]
    fn the_keyring_comes_first_and_the_file_is_the_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("credentials");
        let ring = std::rc::Rc::new(MemKeyring::default());
        let stores = Stores {
            keyring: Ok(Box::new(ring.clone())),
            file: Some(file.clone()),
        };
        store(&file, "http://a", &kp("FILE", "f")).unwrap();
        let found = stores.lookup("http://a").unwrap();
        assert_eq!(
            found.keypair,
            Some((kp("FILE", "f"), Place::File(file.clone())))
        );
        let saved = stores.save("http://a/", &kp("RING", "r")).unwrap();
        assert_eq!(saved.place, Place::Keyring);
        assert_eq!(load(&file, "http://a").unwrap(), None, "old copy removed");
        assert_eq!(
            stores.lookup("http://a").unwrap().keypair,
            Some((kp("RING", "r"), Place::Keyring))
        );
        assert_eq!(stores.forget("http://a"), (vec![Place::Keyring], vec![]));
        assert_eq!(stores.lookup("http://a").unwrap().keypair, None);

        // no keyring: the file, with the reason
        let stores = Stores {
            keyring: Err("no D-Bus session bus".into()),
            file: Some(file.clone()),
        };
        let saved = stores.save("http://a", &kp("FILE2", "f2")).unwrap();
        assert_eq!(saved.place, Place::File(file.clone()));
        assert_eq!(
            saved.keyring_problem.as_deref(),
            Some("no D-Bus session bus")
        );
        let found = stores.lookup("http://a").unwrap();
        assert_eq!(found.keypair.unwrap().0, kp("FILE2", "f2"));
        assert_eq!(
            found.keyring_problem.as_deref(),
            Some("no D-Bus session bus")
        );

        // a broken keyring: passed over on reads, the file on writes
        let broken = std::rc::Rc::new(MemKeyring {
            broken: true,
            ..MemKeyring::default()
        });
        let stores = Stores {
            keyring: Ok(Box::new(broken)),
            file: Some(file.clone()),
        };
        assert_eq!(
            stores.lookup("http://a").unwrap().keypair.unwrap().0,
            kp("FILE2", "f2")
        );
        let saved = stores.save("http://b", &kp("B", "b")).unwrap();
        assert_eq!(saved.place, Place::File(file.clone()));
        let (removed, problems) = stores.forget("http://b");
        assert_eq!(removed, vec![Place::File(file.clone())]);
        assert_eq!(problems, vec!["keyring: the keyring is locked".to_string()]);
    }

    #[test]
    fn endpoint_keys_are_normalised() {
        assert_eq!(endpoint_key("https://h/api/"), "https://h/api");
        assert_eq!(endpoint_key(" http://a:1 , http://b"), "http://a:1");
        assert_eq!(endpoint_key(""), "");
    }
}
