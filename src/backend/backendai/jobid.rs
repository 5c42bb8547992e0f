//! Job ids on Backend.AI (DESIGN.md §3.2).
//!
//! Every client parses job ids as `\d+`, and nothing but the session itself may hold state,
//! so sbatch picks the id before it creates the session and puts it in the session name:
//! `j<id>` for a job, `j<id>_<task>` for an array task. A name lookup (`name == "j<id>"`, or
//! `name like "j<id>_%"` for arrays) resolves an id in one request.
//!
//! The id is the submission time in seconds since 2024-01-01 UTC, which grows with time and
//! stays below 2^30 until 2058. Two submissions from one login node in the same second take
//! consecutive ids (a small counter file, locked, remembers the last id handed out). Two login
//! nodes choosing the same id in the same second collide on the session name — Backend.AI
//! refuses a second live session with the same name for one user — and the loser takes the
//! next id. Backend.AI takes the name of an *ended* session again, so sbatch first asks
//! whether any session it may see carries the id (a node whose ids ran ahead of the clock
//! after a burst would otherwise reuse another node's id). Users who cannot see each
//! other's sessions can still be given one id in one second (docs/COMPAT.md).
//!
//! Sessions created outside bai-slurm (notebooks, services) get an id from their UUID in
//! [2^30, 2^31), so they never meet ours.

use std::io::{Read, Seek, Write};
use std::path::Path;

/// 2024-01-01T00:00:00Z.
pub const EPOCH: i64 = 1_704_067_200;
pub const FOREIGN_BASE: u32 = 1 << 30;

/// The id the clock suggests for a submission at `now`.
pub fn clock_id(now: i64) -> u32 {
    (now - EPOCH).clamp(1, i64::from(FOREIGN_BASE - 1)) as u32
}

/// `j<id>` or `j<id>_<task>`.
pub fn session_name(job_id: u32, task: Option<u32>) -> String {
    match task {
        Some(t) => format!("j{job_id}_{t}"),
        None => format!("j{job_id}"),
    }
}

/// Reads a session name back: `(job id, array task)`, or None for a name bai-slurm did not
/// make.
/// Whether the session of job `job` (array task `task`) is one that a dependency on
/// `target` names: a task names that task only, a job id every task of its array.
pub fn names_target(job: u32, task: Option<u32>, target: crate::model::DepTarget) -> bool {
    match target {
        crate::model::DepTarget::Task(want, want_task) => job == want && task == Some(want_task),
        other => job == other.job_id(),
    }
}

pub fn parse_session_name(name: &str) -> Option<(u32, Option<u32>)> {
    let rest = name.strip_prefix('j')?;
    let (id, task) = match rest.split_once('_') {
        Some((id, task)) => (id, Some(task)),
        None => (rest, None),
    };
    let digits = |s: &str| {
        !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && !(s.len() > 1 && s.starts_with('0'))
    };
    if !digits(id) || task.is_some_and(|t| !digits(t)) {
        return None;
    }
    let id: u32 = id.parse().ok().filter(|&v| v > 0 && v < FOREIGN_BASE)?;
    let task = match task {
        Some(t) => Some(t.parse().ok()?),
        None => None,
    };
    Some((id, task))
}

/// The id of a session bai-slurm did not create: from its UUID, in [2^30, 2^31).
pub fn foreign_id(uuid: &str) -> u32 {
    let hex: String = uuid
        .chars()
        .filter(char::is_ascii_hexdigit)
        .take(8)
        .collect();
    let v = u32::from_str_radix(&hex, 16).unwrap_or(0);
    FOREIGN_BASE + (v % FOREIGN_BASE)
}

/// Hands out ids on this login node: the clock's id, or one more than the last one given
/// out if that is not smaller. The counter file is locked while it is read and written.
pub fn next_id(counter: &Path, now: i64) -> std::io::Result<u32> {
    if let Some(dir) = counter.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(counter)?;
    let mut file = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| std::io::Error::from(e))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let id = following(&text, now);
    file.rewind()?;
    file.set_len(0)?;
    write!(file, "{id}")?;
    file.flush()?;
    Ok(id)
}

/// The id after the counter file's `text` (the last id handed out) at `now`: the clock's,
/// or one more than the last if that is not smaller.
fn following(text: &str, now: i64) -> u32 {
    let last: u32 = text.trim().parse().unwrap_or(0);
    clock_id(now).max(last.saturating_add(1))
}

/// The id [`next_id`] would hand out now, without handing it out.
pub fn peek_id(counter: &Path, now: i64) -> u32 {
    following(&std::fs::read_to_string(counter).unwrap_or_default(), now)
}

/// After a name clash: remember that `id` is taken so the next call moves past it.
pub fn mark_taken(counter: &Path, id: u32) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(counter)?;
    let mut file = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| std::io::Error::from(e))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    let last: u32 = text.trim().parse().unwrap_or(0);
    if id > last {
        file.rewind()?;
        file.set_len(0)?;
        write!(file, "{id}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(session_name(62_000_000, None), "j62000000");
        assert_eq!(session_name(62_000_000, Some(7)), "j62000000_7");
        assert_eq!(parse_session_name("j62000000"), Some((62_000_000, None)));
        assert_eq!(
            parse_session_name("j62000000_7"),
            Some((62_000_000, Some(7)))
        );
        for bad in [
            "j",
            "x12",
            "j012",
            "j12_",
            "j12_x",
            "j12-3",
            "jupyter-notebook",
            "j1073741824",
        ] {
            assert_eq!(parse_session_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn ids_grow_with_time_and_never_repeat_on_one_node() {
        let dir = tempfile::tempdir().unwrap();
        let counter = dir.path().join("last-job-id");
        let now = EPOCH + 1000;
        let a = next_id(&counter, now).unwrap();
        let b = next_id(&counter, now).unwrap();
        let c = next_id(&counter, now + 60).unwrap();
        assert_eq!((a, b, c), (1000, 1001, 1060));
        mark_taken(&counter, 2000).unwrap();
        assert_eq!(next_id(&counter, now + 61).unwrap(), 2001);
        assert!(clock_id(EPOCH + 34 * 365 * 86400) < 1 << 30);
    }

    #[test]
    fn foreign_ids_stay_apart() {
        let id = foreign_id("f6f3c6c8-1234-4abc-8def-000000000000");
        assert!((1 << 30..1 << 31).contains(&id), "{id}");
        assert_eq!(id, foreign_id("f6f3c6c8-ffff-4abc-8def-000000000000"));
    }
}
