//! The Slurm release bai-slurm presents itself as: what `--version` prints, the version
//! `scontrol show config` and the nodes report, and the `meta.Slurm` block of `--json`.
//!
//! This is the one place it is spelled. DESIGN.md §3.11 makes the release a per-site
//! profile (`slurm_version`: 22.05 now, 24.11 next); that setting will choose the
//! [`Release`] here, and everything that prints a version asks this module.

/// The Slurm commands bai-slurm is installed as, in the order they are installed.
pub const SLURM_COMMANDS: [&str; 8] = [
    "sbatch", "squeue", "scancel", "srun", "salloc", "sinfo", "sacct", "scontrol",
];

/// A Slurm release, `major.minor.micro` (`22.05.8` is 22, 5, 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub major: u32,
    pub minor: u32,
    pub micro: u32,
}

/// The release whose behaviour bai-slurm reproduces (recorded from a real 22.05.8).
pub const SLURM_RELEASE: Release = Release {
    major: 22,
    minor: 5,
    micro: 8,
};

impl Release {
    /// `22.05.8`, as `SLURM_VERSION_STRING` spells it.
    pub fn text(self) -> String {
        format!("{}.{:02}.{}", self.major, self.minor, self.micro)
    }

    /// The release series, `22.05`.
    pub fn series(self) -> String {
        format!("{}.{:02}", self.major, self.minor)
    }

    /// `SLURM_VERSION_NUMBER`: `major << 16 | minor << 8 | micro` (1443080 for 22.05.8).
    pub fn number(self) -> u32 {
        (self.major << 16) | (self.minor << 8) | self.micro
    }

    /// What every command prints for `--version` (`print_slurm_version`, as the Debian
    /// packages build it): `slurm-wlm 22.05.8`, without a newline.
    pub fn version_line(self) -> String {
        format!("slurm-wlm {}", self.text())
    }
}

/// [`SLURM_RELEASE`]'s `--version` line: `slurm-wlm 22.05.8`.
pub fn version_line() -> String {
    SLURM_RELEASE.version_line()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelled_as_slurm_spells_it() {
        assert_eq!(SLURM_RELEASE.text(), "22.05.8");
        assert_eq!(SLURM_RELEASE.series(), "22.05");
        assert_eq!(version_line(), "slurm-wlm 22.05.8");
        assert_eq!(SLURM_RELEASE.number(), 1443080);
        let next = Release {
            major: 24,
            minor: 11,
            micro: 5,
        };
        assert_eq!(next.text(), "24.11.5");
    }
}
