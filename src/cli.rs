//! What a command runs with: its arguments, a snapshot of the environment, the clock,
//! the calling user, and the two output streams. Commands never touch process globals,
//! so tests can run them in-process and capture every byte.

use crate::sys::UserInfo;
use std::collections::BTreeMap;
use std::io::{Read, Write};

pub struct Invocation<'a> {
    /// The program name Slurm would print in messages (`sbatch`, `squeue`, ...).
    pub prog: &'static str,
    /// Arguments after the command name.
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Unix seconds at the start of the command; every "now" in the output is this one.
    pub now: i64,
    pub user: UserInfo,
    pub cwd: std::path::PathBuf,
    pub stdin: &'a mut dyn Read,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// Where user names and uids are looked up (`-u alice`, `--me`).
    pub users: &'a dyn UserDirectory,
}

/// The user database as Slurm's clients consult it (`getpwnam`/`getpwuid`). Commands go
/// through this so tests can supply users the machine does not have.
pub trait UserDirectory {
    fn by_name(&self, name: &str) -> Option<UserInfo>;
    fn by_uid(&self, uid: u32) -> Option<UserInfo>;

    /// Slurm's `uid_from_string`: a user name, else a numeric uid that exists.
    fn resolve(&self, name_or_uid: &str) -> Option<u32> {
        if let Some(u) = self.by_name(name_or_uid) {
            return Some(u.uid);
        }
        let (n, used) = crate::format::text::strtol(name_or_uid);
        if used == 0 || used != name_or_uid.len() || !(0..=i64::from(i32::MAX)).contains(&n) {
            return None;
        }
        let uid = u32::try_from(n).ok()?;
        self.by_uid(uid).map(|u| u.uid)
    }
}

/// The machine's own user database.
pub struct OsUsers;

impl UserDirectory for OsUsers {
    fn by_name(&self, name: &str) -> Option<UserInfo> {
        crate::sys::lookup_user_by_name(name)
    }
    fn by_uid(&self, uid: u32) -> Option<UserInfo> {
        crate::sys::lookup_user_by_uid(uid)
    }
}

/// A fixed list of users, for tests and for backends that know their users.
#[derive(Debug, Clone, Default)]
pub struct StaticUsers(pub Vec<UserInfo>);

impl UserDirectory for StaticUsers {
    fn by_name(&self, name: &str) -> Option<UserInfo> {
        self.0.iter().find(|u| u.name == name).cloned()
    }
    fn by_uid(&self, uid: u32) -> Option<UserInfo> {
        self.0.iter().find(|u| u.uid == uid).cloned()
    }
}

impl Invocation<'_> {
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// A variable that is set and not empty.
    pub fn var_nonempty(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// Writes `<prog>: error: <msg>` to stderr, Slurm's client log format.
    pub fn error(&mut self, msg: &str) {
        let _ = writeln!(self.err, "{}: error: {msg}", self.prog);
    }

    /// Prints what a parser decided ends the command (help, usage, version, an error) and
    /// returns its exit status.
    pub fn finish(&mut self, stdout: &str, stderr: &str, code: i32) -> i32 {
        let _ = self.out.write_all(stdout.as_bytes());
        let _ = self.err.write_all(stderr.as_bytes());
        code
    }

    /// Writes `<prog>: warning: <msg>` to stderr.
    pub fn warning(&mut self, msg: &str) {
        let _ = writeln!(self.err, "{}: warning: {msg}", self.prog);
    }
}
