//! How a job's processes find its step servers with nothing in their environment (a
//! Slurm job's environment holds only Slurm's variables): the process that holds the
//! allocation — the job's launcher on either backend, or salloc — keeps the **job file**
//! (the step servers' addresses, the job's secret, KillWait) open as an anonymous memory
//! file named `bai-slurm-job`, close-on-exec. srun, anywhere below it in the process tree,
//! walks up its ancestors and reads the file through `/proc/PID/fd/N`, which only the
//! job's user (and root) may open. Nothing lies on disk and nothing is inherited, so a
//! process that closes every descriptor it was given (Python's subprocess does) still
//! finds it; the local launcher is a child subreaper, so even a daemonised process stays
//! below it.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

/// The memory file's name, as /proc shows it (`/memfd:bai-slurm-job (deleted)`).
pub const NAME: &str = "bai-slurm-job";

/// How many ancestors srun looks at, at most.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobFile {
    pub job_id: u32,
    /// Node names in allocation order, with their step servers' addresses.
    pub nodes: Vec<(String, String)>,
    pub secret: String,
    /// Seconds between SIGTERM and SIGKILL when a step is cancelled.
    pub kill_wait: u32,
    /// The step servers are reached through a platform's tunnel (`srun_client::Allocation`).
    #[serde(default)]
    pub remote: bool,
    /// The Slurm release the job was submitted under, where the job's processes cannot read
    /// the site's configuration (a Backend.AI container): the commands in the job follow it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm_version: Option<crate::model::profile::SlurmVersion>,
}

/// The job file, held open for as long as this value lives.
#[derive(Debug)]
pub struct Held(OwnedFd);

impl JobFile {
    /// Writes the file into a new memory file of this process and keeps it open.
    pub fn hold(&self) -> std::io::Result<Held> {
        let name = std::ffi::CString::new(NAME).map_err(std::io::Error::other)?;
        // SAFETY: memfd_create with a valid NUL-terminated name; the result is checked.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just created and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut f = std::fs::File::from(fd.try_clone()?);
        f.write_all(&serde_json::to_vec(self).map_err(std::io::Error::other)?)?;
        Ok(Held(fd))
    }

    /// The job file of job `job_id` held by the nearest ancestor of this process that
    /// holds one and belongs to the same user.
    pub fn find(job_id: u32) -> Option<JobFile> {
        // A command in a job asks more than once (its profile, then srun's allocation):
        // a file found is kept for the life of the process (its ancestors do not change).
        static FOUND: std::sync::Mutex<Option<JobFile>> = std::sync::Mutex::new(None);
        let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = found.as_ref().filter(|f| f.job_id == job_id) {
            return Some(f.clone());
        }
        let file = Self::walk_up(job_id);
        if file.is_some() {
            found.clone_from(&file);
        }
        file
    }

    fn walk_up(job_id: u32) -> Option<JobFile> {
        let me = nix::unistd::getuid().as_raw();
        let mut pid = nix::unistd::getppid().as_raw();
        for _ in 0..MAX_DEPTH {
            if pid <= 1 {
                break;
            }
            if owner(pid) == Some(me)
                && let Some(f) = held_by(pid).into_iter().find(|f| f.job_id == job_id)
            {
                return Some(f);
            }
            pid = parent(pid)?;
        }
        None
    }
}

/// The job file of job `job_id` that process `pid` (a job's launcher) holds, when it
/// belongs to this user (root, the system mode's service, reaches every user's).
pub fn held_by_process(pid: i32, job_id: u32) -> Option<JobFile> {
    let me = nix::unistd::getuid().as_raw();
    if me != 0 && owner(pid) != Some(me) {
        return None;
    }
    held_by(pid).into_iter().find(|f| f.job_id == job_id)
}

/// The job files process `pid` holds.
fn held_by(pid: i32) -> Vec<JobFile> {
    let dir = format!("/proc/{pid}/fd");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let prefix = format!("/memfd:{NAME}");
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read_link(e.path()).is_ok_and(|t| t.to_string_lossy().starts_with(&prefix))
        })
        .filter_map(|e| read(&e.path()))
        .collect()
}

fn read(path: &Path) -> Option<JobFile> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut text = Vec::new();
    // A job file is small; anything larger is not ours.
    (&mut f).take(1 << 16).read_to_end(&mut text).ok()?;
    serde_json::from_slice(&text).ok()
}

/// The real uid of process `pid`.
fn owner(pid: i32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The parent of process `pid` (/proc/PID/stat: the field after the command's `)`).
fn parent(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

impl Held {
    /// The descriptor's number in this process.
    pub fn raw_fd(&self) -> i32 {
        self.0.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_file_reads_back_through_proc() {
        let f = JobFile {
            job_id: 7,
            nodes: vec![("node01".into(), "127.0.0.1:5000".into())],
            secret: "s3cret".into(),
            kill_wait: 5,
            remote: true,
            slurm_version: Some(crate::model::profile::SlurmVersion::V24_11),
        };
        let held = f.hold().unwrap();
        let me = std::process::id() as i32;
        assert_eq!(held_by(me), vec![f.clone()]);
        assert_eq!(
            read(Path::new(&format!("/proc/self/fd/{}", held.raw_fd()))),
            Some(f)
        );
        assert_eq!(parent(me), Some(nix::unistd::getppid().as_raw()));
        assert_eq!(owner(me), Some(nix::unistd::getuid().as_raw()));
    }

    #[test]
    fn a_job_file_without_a_release_leaves_it_to_the_configuration() {
        let f: JobFile = serde_json::from_str(
            r#"{"job_id":7,"nodes":[],"secret":"s","kill_wait":30,"remote":false}"#,
        )
        .unwrap();
        assert_eq!(f.slurm_version, None);
        let text = serde_json::to_string(&JobFile {
            slurm_version: Some(crate::model::profile::SlurmVersion::V24_11),
            ..f
        })
        .unwrap();
        let back: JobFile = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back.slurm_version,
            Some(crate::model::profile::SlurmVersion::V24_11)
        );
    }
}
