//! What a backend does with each part of a job request. Each backend declares it for every
//! [`Field`] in one exhaustive `match` (the compiler makes a new field be placed on every
//! backend); submission checks a request against it before anything is sent or stored, so
//! an option is honoured, done by the job's launcher, warned about or refused, never
//! dropped silently. docs/COMPAT.md's per-backend cells are locked to these declarations
//! by `tests/option_effects.rs`.

use super::{BackendError, SlurmErrno, SubmitError};
use crate::model::JobSpec;
use crate::model::jobspec::Field;

/// One backend's handling of one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// The backend acts on it: scheduling, the request it sends, the record it keeps.
    Honoured(&'static str),
    /// Kept with the job and shown by squeue, sacct and scontrol; it changes nothing else
    /// (as in Slurm for a comment, or an account without limits).
    Recorded(&'static str),
    /// The job's launcher acts on it inside the job, from the job's description (the
    /// backend itself has no such notion).
    Launcher(&'static str),
    /// Accepted, with a warning that ends `... and is ignored`.
    Warned(&'static str),
    /// Refused at submission.
    Refused(Refusal),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Slurm's own error for a request its controller cannot meet.
    Errno(SlurmErrno),
    /// An error of bai-slurm's, for what Slurm would accept but this backend cannot do.
    Unsupported(&'static str),
}

impl Handling {
    /// The class as docs/COMPAT.md spells it.
    pub fn class(self) -> &'static str {
        match self {
            Handling::Honoured(_) => "honoured",
            Handling::Recorded(_) => "recorded",
            Handling::Launcher(_) => "emulated",
            Handling::Warned(_) => "ignored (warning)",
            Handling::Refused(_) => "rejected",
        }
    }

    /// What it means, for docs/COMPAT.md.
    pub fn note(self) -> String {
        match self {
            Handling::Honoured(how) | Handling::Recorded(how) | Handling::Launcher(how) => {
                how.to_string()
            }
            Handling::Warned(why) => format!("warns: {why}"),
            Handling::Refused(Refusal::Errno(e)) => format!("error: {}", e.text()),
            Handling::Refused(Refusal::Unsupported(why)) => format!("error: {why}"),
        }
    }
}

impl Refusal {
    pub fn error(self, field: Field) -> SubmitError {
        match self {
            Refusal::Errno(e) => SubmitError::errno(e),
            Refusal::Unsupported(why) => {
                SubmitError::from(BackendError::Other(format!("{} {why}", field.option())))
            }
        }
    }
}

/// Checks a request against a backend's declarations: the first refused field is the
/// error; otherwise the warnings (without the `prog: warning: ` prefix) for warned ones.
pub fn check(
    spec: &JobSpec,
    handling: impl Fn(Field) -> Handling,
) -> Result<Vec<String>, SubmitError> {
    let mut warnings = Vec::new();
    for f in spec.fields_set() {
        match handling(f) {
            Handling::Honoured(_) | Handling::Recorded(_) | Handling::Launcher(_) => {}
            Handling::Warned(why) => warnings.push(format!("{} {why} and is ignored", f.option())),
            Handling::Refused(r) => return Err(r.error(f)),
        }
    }
    Ok(warnings)
}
