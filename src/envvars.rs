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

/// Whether a variable's name says it holds a credential (`BACKEND_SECRET_KEY`,
/// `GITHUB_TOKEN`, `db_password`, ...): such values are never shown (`translate`) nor
/// copied into text that others can read (the `--export` string a job carries).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["SECRET", "PASSWORD", "PASSWD", "TOKEN", "CREDENTIAL"]
        .iter()
        .any(|w| upper.contains(w))
}
