//! Configuration: `/etc/bai-slurm/config.toml`, then `~/.config/bai-slurm/config.toml`, then
//! `$BAI_SLURM_CONFIG`, then environment variables; later sources override earlier ones key
//! by key. The backend is `local` unless a Backend.AI endpoint is configured.

use crate::envvars;
use crate::model::profile::{Profile, SlurmVersion};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const SYSTEM_CONFIG: &str = "/etc/bai-slurm/config.toml";

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// SLURM_CLUSTER_NAME and sacct's Cluster.
    pub cluster_name: Option<String>,
    /// `local` or `backend.ai`; chosen automatically when absent.
    pub backend: Option<String>,
    /// The Slurm release the site replaces, whose behaviour every command follows
    /// (`22.05`, the default, or `24.11`; DESIGN.md §3.11, `model::profile`).
    pub slurm_version: Option<String>,
    /// Longest batch script accepted, in bytes (Slurm's SchedulerParameters
    /// max_script_size; default 4 MiB).
    pub max_script_size: Option<u64>,
    #[serde(default)]
    pub local: LocalConfig,
    #[serde(default)]
    pub partitions: Vec<PartitionConfig>,
    #[serde(default)]
    pub backendai: BackendAiConfig,
    #[serde(default)]
    pub accounts: AccountsConfig,
}

/// Users' accounts, as slurmdbd's associations give them: the account a job is charged to
/// when it names none (the user's DefaultAccount), and the ones `--account` may name.
/// With no `[accounts]` table, jobs have no account (`(null)`) unless they name one, and
/// any name is recorded as given (a Slurm without accounting).
#[derive(Debug, Clone, Deserialize, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AccountsConfig {
    /// Every user's default (and only) account, unless `users` lists theirs.
    pub default: Option<String>,
    /// User name -> that user's accounts; the first is their default.
    #[serde(default)]
    pub users: BTreeMap<String, Vec<String>>,
    /// Refuse a job naming an account that is not the user's (Slurm's
    /// AccountingStorageEnforce=associations). Default false: such a job is charged to the
    /// user's default account, as slurmctld does without enforcement.
    #[serde(default)]
    pub enforce: bool,
}

impl AccountsConfig {
    /// Whether accounts are configured at all (then `--account` is checked).
    pub fn is_set(&self) -> bool {
        self.default.is_some() || !self.users.is_empty()
    }

    /// The accounts `user` may charge jobs to, their default first.
    pub fn of_user(&self, user: &str) -> Vec<String> {
        match self.users.get(user) {
            Some(list) => list.clone(),
            None => self.default.iter().cloned().collect(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct LocalConfig {
    pub state_dir: Option<PathBuf>,
    /// Node name shown in squeue/sinfo (default: this host's short name).
    pub node_name: Option<String>,
    /// CPUs the local node offers (default: what this machine has).
    pub cpus: Option<u32>,
    /// Memory the local node offers, in MB (default: MemTotal).
    pub memory_mb: Option<u64>,
    /// Seconds between SIGTERM and SIGKILL when a job is cancelled or times out (Slurm's KillWait).
    pub kill_wait: Option<u32>,
    /// Seconds the queue runner stays alive with nothing to do.
    pub idle_exit: Option<u32>,
    /// Largest array index + 1 (Slurm's MaxArraySize).
    pub max_array_size: Option<u32>,
    /// The first job id of a new state directory (Slurm's FirstJobId).
    pub first_job_id: Option<u32>,
    /// The priority the first job of a new state directory gets; each later one gets one
    /// less (priority/basic). Default 0xFFFF0000 less the first job's id, as in a fresh Slurm.
    pub first_priority: Option<u32>,
    /// The controller's priority plugin (Slurm's `PriorityType`): `priority/basic` or
    /// `priority/multifactor` (with every weight 0). Default: the `slurm_version`'s own
    /// default, basic for 22.05 and multifactor for 24.11.
    pub priority_type: Option<crate::model::profile::PriorityType>,
    /// Seconds a finished job stays in squeue, and keeps its files in the state directory
    /// (Slurm's MinJobAge; default 300). sacct keeps it for ever.
    pub min_job_age: Option<u32>,
    /// Memory per CPU of jobs that ask for none, in MB, for every partition that does not
    /// set its own (Slurm's cluster-wide DefMemPerCPU).
    pub def_mem_per_cpu: Option<u64>,
    /// GPUs on each node, given out as counted devices 0..N (Slurm's `Gres=gpu:N` with a
    /// gres.conf `File=` list): `--gres=gpu:N`/`--gpus=N` jobs get their own devices in
    /// CUDA_VISIBLE_DEVICES and SLURM_JOB_GPUS, and wait while the GPUs are taken.
    pub gpus: Option<u32>,
    /// Simulated nodes: this machine shown as that many nodes (each with `cpus` and
    /// `memory_mb`), whose step servers listen on 127.0.0.2, 127.0.0.3, ... (default 1).
    pub nodes: Option<u32>,
    /// `user` (default): each user's own queue in their state directory. `system`: one
    /// queue for every user of the machine, kept by the `bai-slurm service` (root).
    pub mode: Option<LocalMode>,
    /// The system service's socket (default /run/bai-slurm/local.sock).
    pub socket: Option<PathBuf>,
    /// Users (names or uids) who, like root, may act on every job: Slurm's operators
    /// (AdminLevel=Operator). Meaningful in system mode, where there are other users' jobs.
    pub operators: Option<Vec<String>>,
    /// What users may not see of each other's (Slurm's PrivateData): `jobs` hides other
    /// users' jobs from squeue, scontrol and sacct (root and operators see all).
    pub private_data: Option<Vec<String>>,
}

/// See [`LocalConfig::mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LocalMode {
    User,
    System,
}

/// Where the system service listens unless `[local] socket` says otherwise.
pub const SYSTEM_SOCKET: &str = "/run/bai-slurm/local.sock";
/// The system service's state directory unless `[local] state_dir` says otherwise.
pub const SYSTEM_STATE_DIR: &str = "/var/lib/bai-slurm";

impl LocalConfig {
    /// The system service's socket when the local backend runs in system mode.
    pub fn system_socket(&self) -> Option<PathBuf> {
        (self.mode == Some(LocalMode::System)).then(|| {
            self.socket
                .clone()
                .unwrap_or_else(|| PathBuf::from(SYSTEM_SOCKET))
        })
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PartitionConfig {
    pub name: String,
    #[serde(default)]
    pub default: bool,
    /// Backend.AI resource group this partition maps to (defaults to the name).
    pub resource_group: Option<String>,
    /// Container image for jobs that do not name one.
    pub default_image: Option<String>,
    /// Slurm duration strings, e.g. `1-00:00:00` or `UNLIMITED`.
    pub max_time: Option<String>,
    pub default_time: Option<String>,
    pub def_mem_per_cpu: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BackendAiConfig {
    pub endpoint: Option<String>,
    pub access_key: Option<String>,
    /// Better kept out of config files: `bai-slurm login` stores it in the OS keyring, or
    /// in a 0600 credentials file where there is none.
    pub secret_key: Option<String>,
    /// Whether `bai-slurm login` and the commands use the OS keyring (default true; false
    /// where a keyring exists but cannot answer, e.g. a locked one on a headless node).
    pub keyring: Option<bool>,
    pub domain: Option<String>,
    pub group: Option<String>,
    pub skip_sslcert_validation: Option<bool>,
    /// How a session's startup command finds bai-slurm inside the container
    /// (default: `bai-slurm` on the image's PATH).
    pub launcher: Option<String>,
    /// A vfolder holding the launcher (a static build), mounted read-only at `launcher_dir`.
    pub launcher_vfolder: Option<String>,
    pub launcher_dir: Option<String>,
    /// `multi-node` (default) or `single-node` for jobs asking for more than one node.
    pub cluster_mode: Option<String>,
    /// Storage shared by the login nodes and Backend.AI: a job whose working directory is
    /// under `path` gets `vfolder` mounted at `path`, so its files appear where they are.
    #[serde(default)]
    pub storage: Vec<StorageConfig>,
    /// A directory under one of the `storage` paths where each job's launcher leaves its
    /// result, so that the jobs depending on it can judge every Slurm dependency type
    /// (`launcher::gate`). Without it only `afterok` dependencies are accepted.
    pub job_dir: Option<String>,
    /// Backend.AI user (e-mail) -> Unix user name, for USER of sessions bai-slurm did not
    /// make (its own jobs carry the submitting user's name).
    #[serde(default)]
    pub users: BTreeMap<String, String>,
    /// Seconds between SIGTERM and SIGKILL at a job's time limit (Slurm's KillWait).
    pub kill_wait: Option<u32>,
    /// Sessions per GraphQL page of squeue/sacct/scontrol (default 1000).
    pub page_size: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StorageConfig {
    pub path: String,
    pub vfolder: String,
}

impl Config {
    /// The Slurm profile the site chose (22.05 when it chose none). [`Loaded::load`]
    /// refuses a value that names no profile, so a loaded config always has one.
    pub fn slurm_version(&self) -> SlurmVersion {
        self.slurm_version
            .as_deref()
            .and_then(|v| SlurmVersion::parse(v).ok())
            .unwrap_or_default()
    }

    pub fn profile(&self) -> &'static Profile {
        self.slurm_version().profile()
    }

    /// Longest batch script accepted, in bytes.
    pub fn max_script_size(&self) -> u64 {
        self.max_script_size
            .unwrap_or(crate::backend::MAX_SCRIPT_SIZE)
    }
}

/// Which backend is in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    Local,
    BackendAi,
}

/// A loaded configuration and where each part came from (for `bai-slurm doctor`).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub config: Config,
    pub files: Vec<PathBuf>,
    pub env_overrides: Vec<&'static str>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
}

impl Loaded {
    /// Reads the config files and environment in precedence order.
    pub fn load(env: &BTreeMap<String, String>) -> Result<Loaded, ConfigError> {
        let mut candidates: Vec<PathBuf> = Vec::new();
        candidates.push(
            env.get(envvars::BAI_SLURM_SYSTEM_CONFIG)
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(SYSTEM_CONFIG)),
        );
        if let Some(dir) = user_config_dir(env) {
            candidates.push(dir.join("bai-slurm/config.toml"));
        }
        if let Some(p) = env.get(envvars::BAI_SLURM_CONFIG).filter(|p| !p.is_empty()) {
            candidates.push(PathBuf::from(p));
        }
        let mut merged = toml::Table::new();
        let mut files = Vec::new();
        for path in candidates {
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(ConfigError::Read { path, source }),
            };
            let table: toml::Table =
                text.parse()
                    .map_err(|e: toml::de::Error| ConfigError::Parse {
                        path: path.clone(),
                        message: e.message().to_string(),
                    })?;
            merge(&mut merged, table);
            files.push(path);
        }
        let mut config: Config =
            toml::Value::Table(merged)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    path: files.last().cloned().unwrap_or_default(),
                    message: e.message().to_string(),
                })?;
        let env_overrides = apply_env(&mut config, env);
        if let Some(v) = config.slurm_version.as_deref()
            && let Err(e) = SlurmVersion::parse(v)
        {
            let path = if env_overrides.contains(&envvars::BAI_SLURM_SLURM_VERSION) {
                PathBuf::from(envvars::BAI_SLURM_SLURM_VERSION)
            } else {
                files.last().cloned().unwrap_or_default()
            };
            return Err(ConfigError::Parse {
                path,
                message: e.to_string(),
            });
        }
        Ok(Loaded {
            config,
            files,
            env_overrides,
        })
    }

    pub fn backend_kind(&self) -> BackendKind {
        match self.config.backend.as_deref() {
            Some("local") => BackendKind::Local,
            Some("backend.ai") | Some("backendai") => BackendKind::BackendAi,
            _ if self
                .config
                .backendai
                .endpoint
                .as_deref()
                .is_some_and(|e| !e.is_empty()) =>
            {
                BackendKind::BackendAi
            }
            _ => BackendKind::Local,
        }
    }

    pub fn cluster_name(&self) -> String {
        self.config
            .cluster_name
            .clone()
            .unwrap_or_else(|| "local".to_string())
    }
}

fn user_config_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    if let Some(x) = env.get("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        return Some(PathBuf::from(x));
    }
    env.get("HOME").map(|h| Path::new(h).join(".config"))
}

/// Recursive table merge: values of `over` replace those of `base`, tables merge.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn apply_env(config: &mut Config, env: &BTreeMap<String, String>) -> Vec<&'static str> {
    let mut used = Vec::new();
    let mut take = |name: &'static str| -> Option<String> {
        let v = env.get(name).filter(|v| !v.is_empty()).cloned();
        if v.is_some() {
            used.push(name);
        }
        v
    };
    if let Some(v) = take(envvars::BAI_SLURM_BACKEND) {
        config.backend = Some(v);
    }
    if let Some(v) = take(envvars::BAI_SLURM_STATE_DIR) {
        config.local.state_dir = Some(PathBuf::from(v));
    }
    if let Some(v) = take(envvars::BAI_SLURM_SLURM_VERSION) {
        config.slurm_version = Some(v);
    }
    let b = &mut config.backendai;
    if let Some(v) = take(envvars::BACKEND_ENDPOINT) {
        b.endpoint = Some(v);
    }
    if let Some(v) = take(envvars::BACKEND_ACCESS_KEY) {
        b.access_key = Some(v);
    }
    if let Some(v) = take(envvars::BACKEND_SECRET_KEY) {
        b.secret_key = Some(v);
    }
    if let Some(v) = take(envvars::BACKEND_DOMAIN) {
        b.domain = Some(v);
    }
    if let Some(v) = take(envvars::BACKEND_GROUP) {
        b.group = Some(v);
    }
    if let Some(v) = take(envvars::BACKEND_SKIP_SSLCERT_VALIDATION) {
        b.skip_sslcert_validation = Some(matches!(
            v.to_ascii_lowercase().as_str(),
            "1" | "true" | "yes"
        ));
    }
    used
}

/// The local backend's state directory: config (or `BAI_SLURM_STATE_DIR`), else
/// `$XDG_STATE_HOME/bai-slurm`, else `~/.local/state/bai-slurm`. Only absolute paths count
/// (a relative one would follow the current directory); with HOME unset or empty, the
/// user database's home is used. There is no fallback to /tmp: a directory others can
/// create there first is not ours.
pub fn local_state_dir(
    config: &Config,
    env: &BTreeMap<String, String>,
) -> Result<PathBuf, StateDirError> {
    if config.local.state_dir.is_none() && config.local.mode == Some(LocalMode::System) {
        return Ok(PathBuf::from(SYSTEM_STATE_DIR));
    }
    if let Some(d) = &config.local.state_dir {
        if d.is_absolute() {
            return Ok(d.clone());
        }
        return Err(StateDirError::Relative(d.clone()));
    }
    if let Some(x) = env
        .get("XDG_STATE_HOME")
        .map(Path::new)
        .filter(|x| x.is_absolute())
    {
        return Ok(x.join("bai-slurm"));
    }
    let home = env
        .get("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .or_else(|| {
            let home = PathBuf::from(crate::sys::UserInfo::current().home);
            home.is_absolute().then_some(home)
        })
        .ok_or(StateDirError::NoHome)?;
    Ok(home.join(".local/state/bai-slurm"))
}

/// No state directory can be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateDirError {
    #[error(
        "the state directory {0} is not an absolute path: set state_dir (or BAI_SLURM_STATE_DIR) to one"
    )]
    Relative(PathBuf),
    #[error(
        "no state directory: HOME is not an absolute path and the user database gives none; set BAI_SLURM_STATE_DIR, XDG_STATE_HOME or HOME"
    )]
    NoHome,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn later_files_and_env_override_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("sys.toml");
        std::fs::write(
            &sys,
            "cluster_name = \"sys\"\n[local]\ncpus = 4\nkill_wait = 9\n",
        )
        .unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".config/bai-slurm")).unwrap();
        std::fs::write(
            home.join(".config/bai-slurm/config.toml"),
            "[local]\ncpus = 2\n",
        )
        .unwrap();
        let e = env(&[
            ("BAI_SLURM_SYSTEM_CONFIG", sys.to_str().unwrap()),
            ("HOME", home.to_str().unwrap()),
            ("BAI_SLURM_STATE_DIR", "/x/state"),
        ]);
        let loaded = Loaded::load(&e).unwrap();
        assert_eq!(loaded.cluster_name(), "sys");
        assert_eq!(loaded.config.local.cpus, Some(2));
        assert_eq!(loaded.config.local.kill_wait, Some(9));
        assert_eq!(loaded.files.len(), 2);
        assert_eq!(
            local_state_dir(&loaded.config, &e),
            Ok(PathBuf::from("/x/state"))
        );
        assert_eq!(loaded.backend_kind(), BackendKind::Local);
    }

    #[test]
    fn an_endpoint_selects_backend_ai() {
        let dir = tempfile::tempdir().unwrap();
        let e = env(&[
            (
                "BAI_SLURM_SYSTEM_CONFIG",
                dir.path().join("none").to_str().unwrap(),
            ),
            ("HOME", dir.path().to_str().unwrap()),
            ("BACKEND_ENDPOINT", "http://127.0.0.1:8091"),
        ]);
        assert_eq!(
            Loaded::load(&e).unwrap().backend_kind(),
            BackendKind::BackendAi
        );
    }

    #[test]
    fn the_state_directory_is_never_relative_nor_under_tmp() {
        let c = Config::default();
        let dir = |pairs: &[(&str, &str)]| local_state_dir(&c, &env(pairs));
        assert_eq!(
            dir(&[("HOME", "/home/a"), ("XDG_STATE_HOME", "rel")]),
            Ok(PathBuf::from("/home/a/.local/state/bai-slurm"))
        );
        assert_eq!(
            dir(&[("HOME", "/home/a"), ("XDG_STATE_HOME", "/xdg")]),
            Ok(PathBuf::from("/xdg/bai-slurm"))
        );
        // HOME unset or empty: the user database's home, never /tmp or the cwd.
        for e in [&[][..], &[("HOME", "")][..], &[("HOME", "relative")][..]] {
            let d = dir(e).unwrap();
            assert!(d.is_absolute(), "{d:?}");
            assert!(!d.starts_with("/tmp"), "{d:?}");
            assert!(d.starts_with(crate::sys::UserInfo::current().home), "{d:?}");
        }
        let mut rel = Config::default();
        rel.local.state_dir = Some(PathBuf::from("state"));
        assert_eq!(
            local_state_dir(&rel, &env(&[])),
            Err(StateDirError::Relative(PathBuf::from("state")))
        );
    }

    #[test]
    fn slurm_version_chooses_the_profile_and_an_unknown_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("sys.toml");
        let load = |text: &str, extra: &[(&str, &str)]| {
            std::fs::write(&sys, text).unwrap();
            let mut e = env(&[
                ("BAI_SLURM_SYSTEM_CONFIG", sys.to_str().unwrap()),
                ("HOME", "/nonexistent"),
            ]);
            e.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            Loaded::load(&e)
        };
        let version = |l: Result<Loaded, ConfigError>| l.unwrap().config.slurm_version();
        assert_eq!(version(load("", &[])), SlurmVersion::V22_05);
        assert_eq!(
            version(load("slurm_version = \"24.11\"\n", &[])),
            SlurmVersion::V24_11
        );
        assert_eq!(
            version(load("", &[("BAI_SLURM_SLURM_VERSION", "24.11")])),
            SlurmVersion::V24_11
        );
        let err = load("slurm_version = \"23.02\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("sys.toml"), "{err}");
        assert!(
            err.contains("slurm_version \"23.02\" is not a Slurm release") && err.contains("24.11"),
            "{err}"
        );
        let err = load("", &[("BAI_SLURM_SLURM_VERSION", "25")])
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("BAI_SLURM_SLURM_VERSION: "), "{err}");
        // A number, not a string, is a type error naming the file.
        assert!(load("slurm_version = 24.11\n", &[]).is_err());
    }

    #[test]
    fn a_bad_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("sys.toml");
        std::fs::write(&sys, "[local]\ncpus = \"many\"\n").unwrap();
        let e = env(&[
            ("BAI_SLURM_SYSTEM_CONFIG", sys.to_str().unwrap()),
            ("HOME", "/nonexistent"),
        ]);
        let err = Loaded::load(&e).unwrap_err().to_string();
        assert!(err.contains("sys.toml"), "{err}");
    }
}
