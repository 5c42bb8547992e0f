//! Facts about this machine and its users, read from the OS.

use nix::unistd::{Gid, Group, Uid, User};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    pub uid: u32,
    pub name: String,
    pub gid: u32,
    pub group: String,
    pub home: String,
    pub shell: String,
}

impl UserInfo {
    fn from_user(u: User) -> UserInfo {
        let group = Group::from_gid(u.gid)
            .ok()
            .flatten()
            .map(|g| g.name)
            .unwrap_or_else(|| u.gid.as_raw().to_string());
        UserInfo {
            uid: u.uid.as_raw(),
            name: u.name,
            gid: u.gid.as_raw(),
            group,
            home: u.dir.to_string_lossy().into_owned(),
            shell: u.shell.to_string_lossy().into_owned(),
        }
    }

    /// The user running this process. Falls back to the numeric uid when the passwd
    /// database has no entry (containers often run with arbitrary uids).
    pub fn current() -> UserInfo {
        let uid = Uid::current();
        match User::from_uid(uid) {
            Ok(Some(u)) => UserInfo::from_user(u),
            _ => UserInfo {
                uid: uid.as_raw(),
                name: uid.as_raw().to_string(),
                gid: Gid::current().as_raw(),
                group: Gid::current().as_raw().to_string(),
                home: std::env::var("HOME").unwrap_or_else(|_| "/".into()),
                shell: "/bin/sh".into(),
            },
        }
    }
}

/// Looks a user up by name or numeric uid, as Slurm's `-u` options accept both.
pub fn lookup_user(name_or_uid: &str) -> Option<UserInfo> {
    if let Ok(Some(u)) = User::from_name(name_or_uid) {
        return Some(UserInfo::from_user(u));
    }
    let uid: u32 = name_or_uid.parse().ok()?;
    match User::from_uid(Uid::from_raw(uid)) {
        Ok(Some(u)) => Some(UserInfo::from_user(u)),
        _ => None,
    }
}

/// A user by name only (no numeric fallback).
pub fn lookup_user_by_name(name: &str) -> Option<UserInfo> {
    match User::from_name(name) {
        Ok(Some(u)) => Some(UserInfo::from_user(u)),
        _ => None,
    }
}

/// A user by uid.
/// Remembered for the life of the process: a listing of many jobs asks for the same few
/// owners again and again, and each lookup reads /etc/passwd and /etc/group.
pub fn lookup_user_by_uid(uid: u32) -> Option<UserInfo> {
    static KNOWN: std::sync::Mutex<BTreeMap<u32, Option<UserInfo>>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    known
        .entry(uid)
        .or_insert_with(|| match User::from_uid(Uid::from_raw(uid)) {
            Ok(Some(u)) => Some(UserInfo::from_user(u)),
            _ => None,
        })
        .clone()
}

/// The user name for a uid, or the number itself.
pub fn user_name(uid: u32) -> String {
    lookup_user_by_uid(uid).map_or_else(|| uid.to_string(), |u| u.name)
}

/// The full host name (`gethostname`), as sbatch records SLURM_SUBMIT_HOST.
pub fn hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_else(|| "localhost".to_string())
}

/// The short host name: everything before the first dot.
pub fn short_hostname() -> String {
    let h = hostname();
    h.split('.').next().unwrap_or(&h).to_string()
}

/// Files touched as another user: while it lives, this thread's file-system identity
/// (`setfsuid`/`setfsgid`) is that user's, so that root acting for a user (an operator's
/// `scontrol hold` of another user's job) reads and writes the user's places as the user
/// would: no link the user left there leads root anywhere else, what it makes belongs to
/// the user, and a root-squashing NFS lets it in. Only this thread changes (the syscalls
/// are per thread), and only the file-system identity: signals and the rest stay root's.
pub struct ActingAs {
    uid: Uid,
    gid: Gid,
}

impl ActingAs {
    /// Acts as `uid` (its primary group from the passwd database, else a group of its
    /// uid's number) when this process is root and `uid` is not; otherwise nothing changes.
    pub fn user(uid: u32) -> Option<ActingAs> {
        if !Uid::effective().is_root() || uid == 0 {
            return None;
        }
        let gid = lookup_user_by_uid(uid).map_or(uid, |u| u.gid);
        let before = ActingAs {
            uid: nix::unistd::setfsuid(Uid::effective()),
            gid: nix::unistd::setfsgid(Gid::effective()),
        };
        nix::unistd::setfsgid(Gid::from_raw(gid));
        nix::unistd::setfsuid(Uid::from_raw(uid));
        Some(before)
    }
}

impl Drop for ActingAs {
    fn drop(&mut self) {
        nix::unistd::setfsuid(self.uid);
        nix::unistd::setfsgid(self.gid);
    }
}

/// Replaces `path` with a file holding `bytes` (mode `mode`), atomically: written to
/// `<path>.tmp`, made anew (O_EXCL, so never through a link or file someone left under that
/// name), synced, and renamed over `path`.
pub fn replace_file(path: &std::path::Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

/// Reads a regular file, refusing a symbolic link as its last component (O_NOFOLLOW) and
/// anything but a regular file (a FIFO would block; O_NONBLOCK keeps the open from it).
pub fn read_no_follow(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Boot time of this machine (unix seconds), from /proc/stat.
pub fn boot_time() -> Option<i64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// The one-minute load average, from /proc/loadavg.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A /proc/meminfo value in MB (`MemTotal`, `MemFree`, ...).
pub fn meminfo_mb(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.split(':').next() == Some(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// `uname -s -r -v` as slurmd reports the OS.
pub fn os_description() -> String {
    match nix::sys::utsname::uname() {
        Ok(u) => format!(
            "{} {} {}",
            u.sysname().to_string_lossy(),
            u.release().to_string_lossy(),
            u.version().to_string_lossy()
        ),
        Err(_) => String::new(),
    }
}

pub fn machine() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.machine().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// This process's umask (what sbatch, srun and salloc send as SLURM_UMASK). It can only
/// be read by setting it, so it is put straight back.
pub fn umask() -> u32 {
    use nix::sys::stat::{Mode, umask};
    let old = umask(Mode::from_bits_truncate(0o022));
    umask(old);
    old.bits()
}

/// The path of this program, to start it again (the runner, launchers, step servers) or
/// link to it. When the file was replaced while we ran, Linux shows the old one as
/// `<path> (deleted)`; the path without that suffix is the program installed there now.
pub fn own_executable() -> std::io::Result<std::path::PathBuf> {
    std::env::current_exe().map(without_deleted_suffix)
}

fn without_deleted_suffix(p: std::path::PathBuf) -> std::path::PathBuf {
    use std::os::unix::ffi::OsStrExt;
    match p.as_os_str().as_bytes().strip_suffix(b" (deleted)") {
        Some(stripped) => std::path::PathBuf::from(std::ffi::OsStr::from_bytes(stripped)),
        None => p,
    }
}

/// The session id of this process (scontrol's AllocNode:Sid).
pub fn session_id() -> u32 {
    nix::unistd::getsid(None)
        .map(|p| p.as_raw() as u32)
        .unwrap_or(0)
}

/// getrlimit's resource type: glibc's own enum type, musl's int.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub type RlimitResource = libc::c_int;

/// The resource number of a limit named as Slurm names it (`NOFILE`).
pub fn rlimit_resource(name: &str) -> Option<RlimitResource> {
    Some(match name {
        "CPU" => libc::RLIMIT_CPU,
        "FSIZE" => libc::RLIMIT_FSIZE,
        "DATA" => libc::RLIMIT_DATA,
        "STACK" => libc::RLIMIT_STACK,
        "CORE" => libc::RLIMIT_CORE,
        "RSS" => libc::RLIMIT_RSS,
        "NPROC" => libc::RLIMIT_NPROC,
        "NOFILE" => libc::RLIMIT_NOFILE,
        "MEMLOCK" => libc::RLIMIT_MEMLOCK,
        "AS" => libc::RLIMIT_AS,
        _ => return None,
    })
}

/// This process's soft limits of `names` (`u64::MAX`: unlimited).
pub fn soft_limits(names: &[&str]) -> Vec<crate::model::rlimit::Propagated> {
    names
        .iter()
        .filter_map(|name| {
            let resource = rlimit_resource(name)?;
            let mut r = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit writes into the struct we own.
            (unsafe { libc::getrlimit(resource, &mut r) } == 0).then(|| {
                crate::model::rlimit::Propagated {
                    name: name.to_string(),
                    soft: r.rlim_cur,
                }
            })
        })
        .collect()
}

/// C's `strerror(errno)`, as Slurm's `%m` prints it (`Inappropriate ioctl for device`).
pub fn strerror(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Lets the heap of a command that reads a whole queue grow in transparent huge pages.
/// Listing 10,000 jobs touches some 30 MB of fresh heap: as 4 KiB pages that is 8,000 page
/// faults, a third of squeue's time; as 2 MiB pages, a few dozen (measured: squeue over
/// 10,000 jobs 44 ms -> 30 ms; glibc's own `glibc.malloc.hugetlb=1` tunable does the same
/// but can only be set before the process starts). The heap is grown once by 64 MiB of
/// untouched address space and marked MADV_HUGEPAGE; large blocks stay on it instead of
/// being mmapped one by one. On a kernel with THP off this changes nothing; a small
/// command touches a huge page or two. musl's malloc has no such knobs: there it does nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn prefer_huge_pages() {
    const HUGE: usize = 2 << 20;
    const PAD: usize = 64 << 20;
    // SAFETY: mallopt/malloc/free/sbrk(0)/madvise are called with valid arguments; the
    // advised range lies inside the heap glibc just grew (from the block's start to the
    // break), which it owns and has not handed out beyond that block; MADV_HUGEPAGE is a
    // hint that changes no contents.
    unsafe {
        if libc::mallopt(libc::M_MMAP_THRESHOLD, (256 << 20) as libc::c_int) == 0
            || libc::mallopt(libc::M_TOP_PAD, PAD as libc::c_int) == 0
            || libc::mallopt(libc::M_TRIM_THRESHOLD, (512 << 20) as libc::c_int) == 0
        {
            return;
        }
        // Larger than what is left at the heap's top: glibc grows it by this plus PAD.
        let block = libc::malloc(HUGE);
        if block.is_null() {
            return;
        }
        let start = (block as usize).div_ceil(HUGE) * HUGE;
        let end = libc::sbrk(0) as usize;
        if end > start + HUGE {
            let len = (end - start) / HUGE * HUGE;
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
        libc::free(block);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn prefer_huge_pages() {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_replaced_program_is_found_at_its_path() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            without_deleted_suffix(p("/usr/bin/bai-slurm (deleted)")),
            p("/usr/bin/bai-slurm")
        );
        assert_eq!(
            without_deleted_suffix(p("/usr/bin/bai-slurm")),
            p("/usr/bin/bai-slurm")
        );
        assert!(own_executable().unwrap().is_absolute());
    }

    #[test]
    fn files_a_root_service_touches_in_a_users_directory_never_go_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, b"precious").unwrap();
        // A link left at the final name, and at the temporary one.
        let name = dir.path().join("time_limit");
        std::os::unix::fs::symlink(&target, &name).unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("time_limit.tmp")).unwrap();
        assert!(read_no_follow(&name).is_err());
        replace_file(&name, b"60", 0o644).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"precious");
        assert_eq!(read_no_follow(&name).unwrap(), b"60");
        assert!(!std::fs::symlink_metadata(&name).unwrap().is_symlink());
        // A FIFO is refused at once, not waited on.
        let fifo = dir.path().join("result");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        assert!(read_no_follow(&fifo).is_err());
    }

    /// Root acting as a user reads and writes as the user; the test runs as root (the
    /// README's test command), else nothing changes.
    #[test]
    fn root_acting_as_a_user_touches_files_as_that_user() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let private = dir.path().join("root-only");
        std::fs::write(&private, b"x").unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
        let Some(acting) = ActingAs::user(4242) else {
            assert!(!Uid::effective().is_root());
            return;
        };
        let made = dir.path().join("made");
        std::fs::write(&made, b"y").unwrap();
        assert!(
            std::fs::read(&private).is_err(),
            "root's file is not the user's to read"
        );
        drop(acting);
        assert_eq!(std::fs::metadata(&made).unwrap().uid(), 4242);
        assert_eq!(std::fs::read(&private).unwrap(), b"x");
        let again = dir.path().join("again");
        std::fs::write(&again, b"z").unwrap();
        assert_eq!(std::fs::metadata(&again).unwrap().uid(), 0);
        assert!(ActingAs::user(0).is_none());
    }
}
