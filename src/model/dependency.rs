//! Job dependencies (`--dependency`): what a job waits for, and how squeue/scontrol print
//! what is left of it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DepKind {
    After,
    AfterAny,
    AfterOk,
    AfterNotOk,
    AfterCorr,
    AfterBurstBuffer,
    Singleton,
    Expand,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::After => "after",
            DepKind::AfterAny => "afterany",
            DepKind::AfterOk => "afterok",
            DepKind::AfterNotOk => "afternotok",
            DepKind::AfterCorr => "aftercorr",
            DepKind::AfterBurstBuffer => "afterburstbuffer",
            DepKind::Singleton => "singleton",
            DepKind::Expand => "expand",
        }
    }
}

/// Which part of an array a dependency names: `12`, `12_3` or `12_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DepTarget {
    Job(u32),
    Task(u32, u32),
    WholeArray(u32),
}

impl DepTarget {
    pub fn job_id(self) -> u32 {
        match self {
            DepTarget::Job(id) | DepTarget::Task(id, _) | DepTarget::WholeArray(id) => id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepItem {
    pub kind: DepKind,
    /// None for `singleton`.
    pub target: Option<DepTarget>,
    /// `after:12+5`: minutes to wait after the target started.
    pub delay_minutes: u32,
}

/// A whole `--dependency` value.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dependency {
    pub items: Vec<DepItem>,
    /// `?` separated: any one item satisfies the job (otherwise all must).
    pub any: bool,
}

/// Where one item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DepStatus {
    Unfulfilled,
    Fulfilled,
    Failed,
}

impl DepStatus {
    pub fn name(self) -> &'static str {
        match self {
            DepStatus::Unfulfilled => "unfulfilled",
            DepStatus::Fulfilled => "fulfilled",
            DepStatus::Failed => "failed",
        }
    }
}

impl DepItem {
    /// `afterok:12(unfulfilled)`, `after:12+5(unfulfilled)`, `singleton(unfulfilled)`.
    pub fn display(&self, status: DepStatus) -> String {
        let mut s = self.kind.name().to_string();
        if let Some(t) = self.target {
            s.push(':');
            match t {
                DepTarget::Job(id) => s.push_str(&id.to_string()),
                DepTarget::Task(id, task) => s.push_str(&format!("{id}_{task}")),
                DepTarget::WholeArray(id) => s.push_str(&format!("{id}_*")),
            }
        }
        if self.delay_minutes > 0 {
            s.push_str(&format!("+{}", self.delay_minutes));
        }
        s.push_str(&format!("({})", status.name()));
        s
    }
}

/// The remaining dependencies as squeue `%E` prints them: fulfilled items are dropped,
/// and `(null)` when nothing is left.
pub fn remaining_display(dep: &Dependency, statuses: &[DepStatus]) -> Option<String> {
    let parts: Vec<String> = dep
        .items
        .iter()
        .zip(statuses)
        .filter(|(_, st)| **st != DepStatus::Fulfilled)
        .map(|(item, st)| item.display(*st))
        .collect();
    if parts.is_empty() {
        None
    } else {
        Some(parts.join(if dep.any { "?" } else { "," }))
    }
}
