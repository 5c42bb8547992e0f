//! Every environment variable bai-slurm itself reads, in one place. (Slurm's own input
//! variables — SBATCH_*, SQUEUE_*, SLURM_* — are listed in the option table and renderers.)

/// Path of an extra config file layered over the system and user files.
pub const BAI_SLURM_CONFIG: &str = "BAI_SLURM_CONFIG";
/// Replaces `/etc/bai-slurm/config.toml` (packaging tests, chroots).
pub const BAI_SLURM_SYSTEM_CONFIG: &str = "BAI_SLURM_SYSTEM_CONFIG";
/// Where the local backend keeps its state (default: `$XDG_STATE_HOME/bai-slurm`).
pub const BAI_SLURM_STATE_DIR: &str = "BAI_SLURM_STATE_DIR";
/// Forces a backend: `local` or `backend.ai`.
pub const BAI_SLURM_BACKEND: &str = "BAI_SLURM_BACKEND";
/// Overrides the config's `slurm_version` (the Slurm release presented: `22.05`, `24.11`).
pub const BAI_SLURM_SLURM_VERSION: &str = "BAI_SLURM_SLURM_VERSION";

/// Backend.AI client SDK variables (same names as the official SDK).
pub const BACKEND_ENDPOINT: &str = "BACKEND_ENDPOINT";
pub const BACKEND_ACCESS_KEY: &str = "BACKEND_ACCESS_KEY";
pub const BACKEND_SECRET_KEY: &str = "BACKEND_SECRET_KEY";
pub const BACKEND_DOMAIN: &str = "BACKEND_DOMAIN";
pub const BACKEND_GROUP: &str = "BACKEND_GROUP";
pub const BACKEND_SKIP_SSLCERT_VALIDATION: &str = "BACKEND_SKIP_SSLCERT_VALIDATION";

/// Read by srun only when set (`launcher::srun_client::{STEPD_ENV, SECRET_ENV,
/// KILL_WAIT_ENV}`): the step servers (`node=host:port,...`), the job's secret and KillWait,
/// replacing what the job file says (`launcher::jobfile`). A debugging aid: bai-slurm
/// never puts them in a job's environment.
pub const BAI_SLURM_STEPD: &str = "BAI_SLURM_STEPD";
pub const BAI_SLURM_JOB_SECRET: &str = "BAI_SLURM_JOB_SECRET";
pub const BAI_SLURM_KILL_WAIT: &str = "BAI_SLURM_KILL_WAIT";
/// In a Backend.AI session: the ssh program node 0's launcher starts the other containers'
/// step servers with (default `ssh`), how many seconds it waits for their SSH servers
/// (default 120), and the job's PATH (`launcher::meta::PATH_ENV`).
pub const BAI_SLURM_SSH: &str = "BAI_SLURM_SSH";
pub const BAI_SLURM_SSH_WAIT: &str = "BAI_SLURM_SSH_WAIT";
pub const BAI_SLURM_PATH: &str = "BAI_SLURM_PATH";

/// bai-slurm's own debugging aid: each Backend.AI request's method and path, appended to
/// this file.
pub const BAI_SLURM_REQUEST_LOG: &str = "BAI_SLURM_REQUEST_LOG";
/// Set: salloc and srun on Backend.AI say on stderr why a tunnel to a job's containers
/// could not be opened (the manager's answer to the upgrade, for example).
pub const BAI_SLURM_TUNNEL_DEBUG: &str = "BAI_SLURM_TUNNEL_DEBUG";
/// Its local twin: the job records each process has read from the state store.
pub const BAI_SLURM_ROW_LOG: &str = "BAI_SLURM_ROW_LOG";

/// Whether a variable configures the commands on the login node (the Backend.AI SDK's
/// `BACKEND_*`, bai-slurm's config, state and backend choice): it means nothing in a job's
/// container, where it would make srun look for a scheduler instead of its job, and the
/// manager stores a session's environment where admins read it.
pub fn is_login_node_setting(name: &str) -> bool {
    name.starts_with("BACKEND_")
        || [
            BAI_SLURM_CONFIG,
            BAI_SLURM_SYSTEM_CONFIG,
            BAI_SLURM_STATE_DIR,
            BAI_SLURM_BACKEND,
            BAI_SLURM_SLURM_VERSION,
            BAI_SLURM_REQUEST_LOG,
            BAI_SLURM_ROW_LOG,
        ]
        .contains(&name)
}

/// Whether a variable's name says it holds a credential (`BACKEND_SECRET_KEY`,
/// `GITHUB_TOKEN`, `db_password`, ...): such values are never shown (`translate`) nor
/// copied into text that others can read (the `--export` string a job carries).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["SECRET", "PASSWORD", "PASSWD", "TOKEN", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}
