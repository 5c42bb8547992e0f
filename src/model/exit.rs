//! Exit status as Slurm shows it: `<return code>:<signal>`.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExitStatus {
    pub code: i32,
    pub signal: i32,
}

impl ExitStatus {
    pub const OK: ExitStatus = ExitStatus { code: 0, signal: 0 };

    pub fn code(code: i32) -> Self {
        ExitStatus { code, signal: 0 }
    }
    pub fn signal(signal: i32) -> Self {
        ExitStatus { code: 0, signal }
    }

    /// From a raw wait(2) status word, as slurmstepd records it.
    pub fn from_wait_status(raw: i32) -> Self {
        if libc::WIFSIGNALED(raw) {
            ExitStatus::signal(libc::WTERMSIG(raw))
        } else {
            ExitStatus::code(libc::WEXITSTATUS(raw))
        }
    }

    pub fn is_success(self) -> bool {
        self.code == 0 && self.signal == 0
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.code, self.signal)
    }
}
