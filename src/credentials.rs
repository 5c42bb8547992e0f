//! The Backend.AI keypair on disk: `~/.config/bai-slurm/credentials` (TOML), created with
//! mode 0600 and refused when anybody else may read it. The secret key never reaches a log,
//! an error message or `--verbose` output.

use std::collections::BTreeMap;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

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
}

/// Where the credentials live for this environment.
pub fn path(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let base = match env.get("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => Path::new(env.get("HOME")?).join(".config"),
    };
    Some(base.join("bai-slurm").join("credentials"))
}

/// Reads the stored keypair, if there is one.
pub fn load(file: &Path) -> Result<Option<Keypair>, CredentialsError> {
    let shown = file.display().to_string();
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
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
        .map(Some)
        .map_err(|_| CredentialsError::Unreadable(shown, "not a valid credentials file".into()))
}

/// Stores a keypair, readable by its owner only.
pub fn store(file: &Path, keypair: &Keypair) -> Result<(), CredentialsError> {
    let shown = file.display().to_string();
    let fail = |e: std::io::Error| CredentialsError::Unwritable(shown.clone(), e.to_string());
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = file.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let text = toml::to_string(keypair).map_err(|e| fail(std::io::Error::other(e.to_string())))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_privately_and_refused_when_open() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bai-slurm/credentials");
        let kp = Keypair {
            access_key: "AKTEST".into(),
            secret_key: "s3cr3t".into(),
        };
        store(&file, &kp).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(load(&file).unwrap(), Some(kp.clone()));
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = load(&file).unwrap_err().to_string();
        assert!(
            err.contains("chmod 600") && !err.contains("s3cr3t"),
            "{err}"
        );
        assert!(!format!("{kp:?}").contains("s3cr3t"));
        assert_eq!(load(&dir.path().join("none")).unwrap(), None);
    }
}
