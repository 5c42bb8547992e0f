//! The state database as a file: opened only when it is ours and really a bai-slurm
//! database, created atomically (so nobody ever sees a half-made one), and every failure
//! told with the file's name and what to do about it.
//!
//! SQLite takes an empty file for a new database. An empty or foreign state.db is refused
//! instead: starting again from job id 1 would overwrite the users' `slurm-1.out`. A new
//! database is therefore built under a temporary name and linked into place, so an empty
//! `state.db` can only come from outside (a full disk at copy time, a truncation).

use crate::backend::trusted_dir;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// PRAGMA application_id of our databases ("BAIS").
pub const APPLICATION_ID: i32 = 0x4241_4953;

/// What is wrong with the state file, in terms a user can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    Full,
    ReadOnly,
    NotOurs,
    Empty,
    Untrusted(String),
    Cannot(String),
}

impl FileProblem {
    pub fn describe(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            FileProblem::Full => format!(
                "local state database {p}: the disk is full; free space there (jobs that end meanwhile are recorded when space returns)"
            ),
            FileProblem::ReadOnly => format!(
                "local state database {p} cannot be written (read-only file or file system): check its owner and permissions"
            ),
            FileProblem::NotOurs => format!(
                "{p} is not a bai-slurm state database, or it is corrupt: move it away to start a new queue, or restore it from a backup"
            ),
            FileProblem::Empty => format!(
                "local state database {p} is empty: refusing to start a new queue over it (job ids and output files would be reused); restore it from a backup, or remove it to start again"
            ),
            FileProblem::Untrusted(why) => why.clone(),
            FileProblem::Cannot(why) => format!("local state database {p}: {why}"),
        }
    }
}

/// The problem an SQLite error means for the file, if it is one about the file (lock
/// contention and bad SQL are not).
pub fn classify(e: &rusqlite::Error) -> Option<FileProblem> {
    let rusqlite::Error::SqliteFailure(f, msg) = e else {
        return None;
    };
    Some(match f.code {
        ErrorCode::DiskFull => FileProblem::Full,
        ErrorCode::ReadOnly => FileProblem::ReadOnly,
        ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => FileProblem::NotOurs,
        ErrorCode::CannotOpen | ErrorCode::PermissionDenied | ErrorCode::SystemIoFailure => {
            FileProblem::Cannot(msg.clone().unwrap_or_else(|| f.to_string()))
        }
        _ => return None,
    })
}

/// [`classify`] for an error met in the database at `path`: on a full disk SQLite reports
/// `SQLITE_FULL` for some writes but `SQLITE_IOERR` for others (the WAL, the shared memory
/// index), so an I/O error where the file system has no space left is a full disk too (a
/// write that can succeed later).
pub fn classify_at(e: &rusqlite::Error, path: &Path) -> Option<FileProblem> {
    let problem = classify(e)?;
    let io_error = matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.code == ErrorCode::SystemIoFailure);
    if io_error && no_space_left(path) {
        return Some(FileProblem::Full);
    }
    Some(problem)
}

/// Whether the file system holding `path` (or its directory) has no block left for us.
fn no_space_left(path: &Path) -> bool {
    let dir = path.parent().unwrap_or(path);
    nix::sys::statvfs::statvfs(dir).is_ok_and(|v| v.blocks_available() == 0)
}

/// What an SQLite error means for the file, or the error itself when it is about none.
fn problem(e: &rusqlite::Error, path: &Path) -> FileProblem {
    classify_at(e, path).unwrap_or_else(|| FileProblem::Cannot(e.to_string()))
}

fn busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked))
}

/// Opens the state database at `path`, creating it when there is none.
/// `init` builds the schema of a new database (inside its first transaction).
pub fn open(
    path: &Path,
    uid: u32,
    init: impl Fn(&Connection) -> rusqlite::Result<()>,
) -> Result<Connection, FileProblem> {
    for side in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{side}", path.display()));
        trusted_dir::check_entry(&p, uid).map_err(|e| FileProblem::Untrusted(e.to_string()))?;
    }
    match std::fs::metadata(path) {
        Ok(m) if m.len() == 0 => return Err(FileProblem::Empty),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(path, &init)?,
        Err(e) => return Err(FileProblem::Cannot(e.to_string())),
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| problem(&e, path))?;
    conn.busy_timeout(Duration::from_secs(30))
        .map_err(|e| FileProblem::Cannot(e.to_string()))?;
    check_identity(&conn, path)?;
    Ok(conn)
}

/// Builds a new database beside `path` and links it into place; when another process
/// won the race, its database is used.
fn create(
    path: &Path,
    init: &impl Fn(&Connection) -> rusqlite::Result<()>,
) -> Result<(), FileProblem> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = PathBuf::from(format!(
        "{}.new-{}-{nanos}",
        path.display(),
        std::process::id()
    ));
    let built = (|| -> rusqlite::Result<()> {
        let conn = Connection::open(&tmp)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)?;
        let tx = conn.unchecked_transaction()?;
        init(&tx)?;
        tx.commit()?;
        conn.close().map_err(|(_, e)| e)
    })();
    let linked =
        built
            .map_err(|e| problem(&e, &tmp))
            .and_then(|()| match std::fs::hard_link(&tmp, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => Err(FileProblem::Full),
                Err(e) => Err(FileProblem::Cannot(e.to_string())),
            });
    for side in ["", "-wal", "-shm", "-journal"] {
        let _ = std::fs::remove_file(format!("{}{side}", tmp.display()));
    }
    linked
}

/// A database that is not ours (or not a database) is refused before anything is read.
/// Databases of bai-slurm before application ids are recognised by their schema.
fn check_identity(conn: &Connection, path: &Path) -> Result<(), FileProblem> {
    let read = |pragma: &str| -> Result<i64, FileProblem> {
        conn.pragma_query_value(None, pragma, |r| r.get(0))
            .map_err(|e| problem(&e, path))
    };
    let id = read("application_id")?;
    if id == i64::from(APPLICATION_ID) {
        return Ok(());
    }
    let has_jobs: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('jobs', 'submissions', 'meta')",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n == 3)
        .map_err(|e| problem(&e, path))?;
    if id == 0 && read("user_version")? >= 1 && has_jobs {
        // Ours from before application ids: mark it (best effort; read-only users can read).
        let _ = conn.pragma_update(None, "application_id", APPLICATION_ID);
        return Ok(());
    }
    Err(FileProblem::NotOurs)
}

/// Switches an existing database to WAL if it is not yet (it stays so). Only lock
/// contention is worth waiting for; any other failure is reported at once.
pub fn ensure_wal(conn: &Connection) -> Result<(), rusqlite::Error> {
    let mut delay = Duration::from_millis(5);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0)) {
            Ok(m) if m.eq_ignore_ascii_case("wal") => return Ok(()),
            Err(e) if !busy(&e) => return Err(e),
            _ if std::time::Instant::now() >= deadline => {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                    Some("cannot switch to WAL journal mode".into()),
                ));
            }
            _ => {
                std::thread::sleep(delay);
                delay = (delay * 2).min(Duration::from_millis(200));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> u32 {
        nix::unistd::getuid().as_raw()
    }

    fn schema(c: &Connection) -> rusqlite::Result<()> {
        c.execute_batch(
            "CREATE TABLE meta(k); CREATE TABLE jobs(j); CREATE TABLE submissions(s); PRAGMA user_version = 1;",
        )
    }

    #[test]
    fn a_new_database_is_created_whole_and_marked() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state.db");
        let c = open(&p, me(), schema).unwrap();
        let id: i32 = c
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
        let mode: String = c
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        // Nothing left behind but the database and its WAL files.
        for e in std::fs::read_dir(t.path()).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            assert!(
                name.starts_with("state.db") && !name.contains(".new-"),
                "{name}"
            );
        }
        drop(c);
        open(&p, me(), schema).unwrap();
    }

    #[test]
    fn an_empty_file_is_refused_not_reinitialised() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state.db");
        std::fs::write(&p, b"").unwrap();
        assert_eq!(open(&p, me(), schema).err(), Some(FileProblem::Empty));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 0);
    }

    #[test]
    fn garbage_and_foreign_databases_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state.db");
        std::fs::write(&p, vec![0x5a; 8192]).unwrap();
        let started = std::time::Instant::now();
        assert_eq!(open(&p, me(), schema).err(), Some(FileProblem::NotOurs));
        assert!(started.elapsed() < Duration::from_secs(1));
        let q = t.path().join("other.db");
        Connection::open(&q)
            .unwrap()
            .execute_batch("CREATE TABLE x(y); INSERT INTO x VALUES (1);")
            .unwrap();
        assert_eq!(open(&q, me(), schema).err(), Some(FileProblem::NotOurs));
    }

    #[test]
    fn a_database_from_before_application_ids_is_ours() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("state.db");
        let c = Connection::open(&p).unwrap();
        schema(&c).unwrap();
        drop(c);
        open(&p, me(), schema).unwrap();
    }

    #[test]
    fn problems_name_the_file() {
        let p = Path::new("/x/state.db");
        for f in [
            FileProblem::Full,
            FileProblem::ReadOnly,
            FileProblem::NotOurs,
            FileProblem::Empty,
            FileProblem::Cannot("x".into()),
        ] {
            assert!(f.describe(p).contains("/x/state.db"), "{f:?}");
        }
    }
}
