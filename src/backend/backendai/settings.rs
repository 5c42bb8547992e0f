//! Connection settings for the Backend.AI backend: the endpoint, domain and group from the
//! configuration (files, then `BACKEND_*` variables), and the keypair from the configuration
//! when set there, else from what `bai-slurm login` stored.

use super::client::Settings;
use crate::config::Loaded;
use crate::credentials;
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

/// The settings in force for this user.
pub fn resolve(loaded: &Loaded, env: &BTreeMap<String, String>) -> Result<Settings, SettingsError> {
    let b = &loaded.config.backendai;
    let endpoint = b
        .endpoint
        .clone()
        .filter(|e| !e.is_empty())
        .ok_or(SettingsError::NoEndpoint)?;
    let configured = match (&b.access_key, &b.secret_key) {
        (Some(a), Some(s)) if !a.is_empty() && !s.is_empty() => Some((a.clone(), s.clone())),
        _ => None,
    };
    let (access_key, secret_key) = match configured {
        Some(pair) => pair,
        None => {
            let stored = match credentials::path(env) {
                Some(file) => credentials::load(&file)
                    .map_err(|e| SettingsError::Credentials(e.to_string()))?,
                None => None,
            };
            let kp = stored.ok_or(SettingsError::NoKeypair)?;
            (kp.access_key, kp.secret_key)
        }
    };
    Ok(Settings {
        endpoint,
        access_key,
        secret_key,
        domain: b.domain.clone().unwrap_or_else(|| "default".into()),
        group: b.group.clone().unwrap_or_else(|| "default".into()),
        skip_tls_verify: b.skip_sslcert_validation.unwrap_or(false),
    })
}
