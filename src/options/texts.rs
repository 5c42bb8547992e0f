//! The fixed texts of the commands (`--help`, `--usage`, the field lists of
//! `--helpformat`), as each Slurm release prints them: verbatim copies of the recorded
//! outputs, in `commands/text/` (22.05) and `commands/text/24.11/` (what 24.11 changed).

use crate::model::profile::{Profile, SlurmVersion};

/// A fixed text a command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Help,
    Usage,
    /// `--helpformat`: the `%` letters (squeue, sinfo; 24.11 only).
    HelpFormat,
    /// `--helpFormat`: the `-O` field names (squeue, sinfo; 24.11 only).
    HelpFormatLong,
    /// `--helpstate`: the state names (squeue, sinfo, sacct; 24.11 only).
    HelpState,
    /// sacct's `--helpreason`: the reason names (24.11 only).
    HelpReason,
}

/// `prog`'s `text` in the profile's release, or None where that release has no such
/// text (22.05's `squeue --helpformat`).
pub fn text(profile: &Profile, prog: &str, text: Text) -> Option<&'static str> {
    match profile.version {
        SlurmVersion::V22_05 => v22_05(prog, text),
        // 24.11 kept sinfo's and sacct's usage, and scontrol's usage is its help.
        SlurmVersion::V24_11 => v24_11(prog, text).or_else(|| v22_05(prog, text)),
    }
}

/// [`text`] for a text every release has.
pub fn help(profile: &Profile, prog: &str) -> &'static str {
    text(profile, prog, Text::Help).unwrap_or("")
}

/// [`text`] for `--usage`.
pub fn usage(profile: &Profile, prog: &str) -> &'static str {
    text(profile, prog, Text::Usage).unwrap_or("")
}

fn v22_05(prog: &str, text: Text) -> Option<&'static str> {
    Some(match (prog, text) {
        ("sbatch", Text::Help) => include_str!("../commands/text/sbatch_help.txt"),
        ("sbatch", Text::Usage) => include_str!("../commands/text/sbatch_usage.txt"),
        ("srun", Text::Help) => include_str!("../commands/text/srun_help.txt"),
        ("srun", Text::Usage) => include_str!("../commands/text/srun_usage.txt"),
        ("salloc", Text::Help) => include_str!("../commands/text/salloc_help.txt"),
        ("salloc", Text::Usage) => include_str!("../commands/text/salloc_usage.txt"),
        ("squeue", Text::Help) => include_str!("../commands/text/squeue_help.txt"),
        ("squeue", Text::Usage) => include_str!("../commands/text/squeue_usage.txt"),
        ("scancel", Text::Help) => include_str!("../commands/text/scancel_help.txt"),
        ("scancel", Text::Usage) => include_str!("../commands/text/scancel_usage.txt"),
        ("sinfo", Text::Help) => include_str!("../commands/text/sinfo_help.txt"),
        ("sinfo", Text::Usage) => include_str!("../commands/text/sinfo_usage.txt"),
        ("sacct", Text::Help) => include_str!("../commands/text/sacct_help.txt"),
        ("sacct", Text::Usage) => include_str!("../commands/text/sacct_usage.txt"),
        ("scontrol", Text::Help | Text::Usage) => {
            include_str!("../commands/text/scontrol_help.txt")
        }
        _ => return None,
    })
}

fn v24_11(prog: &str, text: Text) -> Option<&'static str> {
    Some(match (prog, text) {
        ("sbatch", Text::Help) => include_str!("../commands/text/24.11/sbatch_help.txt"),
        ("sbatch", Text::Usage) => include_str!("../commands/text/24.11/sbatch_usage.txt"),
        ("srun", Text::Help) => include_str!("../commands/text/24.11/srun_help.txt"),
        ("srun", Text::Usage) => include_str!("../commands/text/24.11/srun_usage.txt"),
        ("salloc", Text::Help) => include_str!("../commands/text/24.11/salloc_help.txt"),
        ("salloc", Text::Usage) => include_str!("../commands/text/24.11/salloc_usage.txt"),
        ("squeue", Text::Help) => include_str!("../commands/text/24.11/squeue_help.txt"),
        ("squeue", Text::Usage) => include_str!("../commands/text/24.11/squeue_usage.txt"),
        ("squeue", Text::HelpFormat) => {
            include_str!("../commands/text/24.11/squeue_helpformat.txt")
        }
        ("squeue", Text::HelpFormatLong) => {
            include_str!("../commands/text/24.11/squeue_helpFormat.txt")
        }
        ("scancel", Text::Help) => include_str!("../commands/text/24.11/scancel_help.txt"),
        ("scancel", Text::Usage) => include_str!("../commands/text/24.11/scancel_usage.txt"),
        ("sinfo", Text::Help) => include_str!("../commands/text/24.11/sinfo_help.txt"),
        ("sinfo", Text::HelpFormat) => {
            include_str!("../commands/text/24.11/sinfo_helpformat.txt")
        }
        ("sinfo", Text::HelpFormatLong) => {
            include_str!("../commands/text/24.11/sinfo_helpFormat.txt")
        }
        ("sacct", Text::Help) => include_str!("../commands/text/24.11/sacct_help.txt"),
        ("sacct", Text::HelpState) => include_str!("../commands/text/24.11/sacct_helpstate.txt"),
        ("sacct", Text::HelpReason) => {
            include_str!("../commands/text/24.11/sacct_helpreason.txt")
        }
        ("squeue", Text::HelpState) => {
            include_str!("../commands/text/24.11/squeue_helpstate.txt")
        }
        ("sinfo", Text::HelpState) => include_str!("../commands/text/24.11/sinfo_helpstate.txt"),
        ("scontrol", Text::Help | Text::Usage) => {
            include_str!("../commands/text/24.11/scontrol_help.txt")
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_help_and_usage_in_every_release() {
        for v in SlurmVersion::ALL {
            for prog in crate::model::release::SLURM_COMMANDS {
                assert!(!help(v.profile(), prog).is_empty(), "{prog} {v:?}");
                assert!(!usage(v.profile(), prog).is_empty(), "{prog} {v:?}");
            }
        }
        let (old, new) = (
            SlurmVersion::V22_05.profile(),
            SlurmVersion::V24_11.profile(),
        );
        assert!(help(new, "sbatch").contains("--oom-kill-step"));
        assert!(!help(old, "sbatch").contains("--oom-kill-step"));
        assert_eq!(usage(new, "sacct"), usage(old, "sacct"));
        assert!(text(old, "squeue", Text::HelpFormat).is_none());
        assert!(text(new, "squeue", Text::HelpFormat).is_some());
    }
}
