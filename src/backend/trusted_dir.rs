//! Whether a state directory (and the files in it) can be trusted by the invoking user.
//!
//! The local backend runs whatever its database says, as the user who reads it, so a
//! database another user could write is a way to run code as someone else (root's probes
//! run with `env -i`, and a shared parent such as /tmp lets anyone plant a directory where
//! a path points). The rule, as OpenSSH's StrictModes checks key files: the directory and
//! each file used in it belong to the user (or, for ancestors, to root) and nobody else
//! may write them; an ancestor others may write is accepted only when it is sticky (like
//! /tmp), where nobody can rename or remove what belongs to us.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a path is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    #[error(
        "{path} belongs to uid {owner}, not to you (uid {uid}): refusing to use it; remove it or choose another state directory (BAI_SLURM_STATE_DIR)"
    )]
    Owner { path: PathBuf, owner: u32, uid: u32 },
    #[error(
        "{path} may be written by other users (mode {mode:04o}): refusing to use it; run `chmod go-w {path}` or choose another state directory (BAI_SLURM_STATE_DIR)"
    )]
    Writable { path: PathBuf, mode: u32 },
    #[error(
        "{path} is a symbolic link inside the state directory: refusing to follow it; remove it"
    )]
    Symlink { path: PathBuf },
    #[error("{path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("cannot check {path}: {message}")]
    Io { path: PathBuf, message: String },
}

const GROUP_OTHER_WRITE: u32 = 0o022;
const STICKY: u32 = 0o1000;

/// Creates `dir` (0700, with missing parents) if needed, then checks it and its ancestors.
pub fn ensure(dir: &Path, uid: u32) -> Result<(), Untrusted> {
    use std::os::unix::fs::DirBuilderExt;
    if let Err(e) = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
    {
        return Err(Untrusted::Io {
            path: dir.to_path_buf(),
            message: format!("cannot create it: {e}"),
        });
    }
    check_dir(dir, uid)
}

/// Checks an existing directory: it is ours and only we may write it, and no ancestor
/// lets anybody else replace it.
pub fn check_dir(dir: &Path, uid: u32) -> Result<(), Untrusted> {
    let real = dir.canonicalize().map_err(|e| io(dir, e))?;
    let meta = std::fs::metadata(&real).map_err(|e| io(&real, e))?;
    if !meta.is_dir() {
        return Err(Untrusted::NotADirectory { path: real });
    }
    own_and_private(&real, &meta, uid)?;
    for ancestor in real.ancestors().skip(1) {
        let m = std::fs::metadata(ancestor).map_err(|e| io(ancestor, e))?;
        if m.uid() != uid && m.uid() != 0 {
            return Err(Untrusted::Owner {
                path: ancestor.to_path_buf(),
                owner: m.uid(),
                uid,
            });
        }
        if m.mode() & GROUP_OTHER_WRITE != 0 && m.mode() & STICKY == 0 {
            return Err(Untrusted::Writable {
                path: ancestor.to_path_buf(),
                mode: m.mode() & 0o7777,
            });
        }
    }
    Ok(())
}

/// Checks a file (or directory) inside a checked state directory, when it exists: not a
/// symbolic link, ours, and not writable by others. A missing file is fine.
pub fn check_entry(path: &Path, uid: u32) -> Result<(), Untrusted> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(path, e)),
    };
    if meta.file_type().is_symlink() {
        return Err(Untrusted::Symlink {
            path: path.to_path_buf(),
        });
    }
    own_and_private(path, &meta, uid)
}

fn own_and_private(path: &Path, meta: &std::fs::Metadata, uid: u32) -> Result<(), Untrusted> {
    if meta.uid() != uid {
        return Err(Untrusted::Owner {
            path: path.to_path_buf(),
            owner: meta.uid(),
            uid,
        });
    }
    if meta.mode() & GROUP_OTHER_WRITE != 0 {
        return Err(Untrusted::Writable {
            path: path.to_path_buf(),
            mode: meta.mode() & 0o7777,
        });
    }
    Ok(())
}

fn io(path: &Path, e: std::io::Error) -> Untrusted {
    Untrusted::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn me() -> u32 {
        nix::unistd::getuid().as_raw()
    }

    #[test]
    fn a_private_directory_of_ours_is_trusted() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("a/b/state");
        ensure(&d, me()).unwrap();
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        check_entry(&d.join("missing"), me()).unwrap();
    }

    #[test]
    fn writable_by_others_is_refused_naming_the_path() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("state");
        ensure(&d, me()).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = check_dir(&d, me()).unwrap_err();
        assert!(matches!(e, Untrusted::Writable { .. }), "{e}");
        assert!(e.to_string().contains("state"), "{e}");
    }

    #[test]
    fn an_ancestor_others_may_write_is_refused_unless_sticky() {
        let t = tempfile::tempdir().unwrap();
        let shared = t.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let d = shared.join("state");
        let e = ensure(&d, me()).unwrap_err();
        assert!(matches!(e, Untrusted::Writable { ref path, .. } if path.ends_with("shared")));
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        ensure(&d, me()).unwrap();
    }

    #[test]
    fn someone_elses_directory_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let e = check_dir(t.path(), me() + 1).unwrap_err();
        assert!(matches!(e, Untrusted::Owner { .. }), "{e}");
    }

    #[test]
    fn a_symlink_inside_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let link = t.path().join("state.db");
        std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
        let e = check_entry(&link, me()).unwrap_err();
        assert!(matches!(e, Untrusted::Symlink { .. }), "{e}");
    }
}
