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

    /// Writes `<prog>: warning: <msg>` to stderr.
    pub fn warning(&mut self, msg: &str) {
        let _ = writeln!(self.err, "{}: warning: {msg}", self.prog);
    }
}
