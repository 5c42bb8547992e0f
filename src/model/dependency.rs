//! Job dependencies (`--dependency`): what a job waits for, each item's state, and how
//! squeue `%E` / scontrol `Dependency=` print what is left of it. The parser lives in
//! `options::values::dependency`; the local backend evaluates items as slurmctld does.

use serde::{Deserialize, Serialize};

/// A dependency type (`_depend_type2str` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// Which job, array task or whole array an item names: `12`, `12_3`, `12_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// Where one item stands (`depend_state`).
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

/// One dependency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepItem {
    pub kind: DepKind,
    /// `None` for `singleton`.
    pub target: Option<DepTarget>,
    /// `+MIN`: minutes to wait after the condition holds (0 = none).
    pub delay_minutes: u32,
    /// The state: `Unfulfilled` when parsed, unless the string said `(failed)`.
    pub status: DepStatus,
}

impl DepItem {
    /// One item as `_depend_list2str` prints it: `afterok:12(unfulfilled)`,
    /// `after:12_*+5(unfulfilled)`, `singleton(unfulfilled)`.
    pub fn display(&self, status: DepStatus) -> String {
        let mut s = self.kind.name().to_string();
        match self.target {
            None => {}
            Some(DepTarget::Job(id)) => s.push_str(&format!(":{id}")),
            Some(DepTarget::Task(id, t)) => s.push_str(&format!(":{id}_{t}")),
            Some(DepTarget::WholeArray(id)) => s.push_str(&format!(":{id}_*")),
        }
        if self.target.is_some() && self.delay_minutes > 0 {
            s.push_str(&format!("+{}", self.delay_minutes));
        }
        s.push_str(&format!("({})", status.name()));
        s
    }
}

/// A whole `--dependency` value. An empty list means "no dependency".
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Dependency {
    pub items: Vec<DepItem>,
    /// `?` was used: any one item satisfies the job (otherwise all must).
    pub any: bool,
}

impl Dependency {
    /// The remaining dependencies, with each item's own `status`: see [`render_remaining`].
    pub fn display_remaining(&self) -> Option<String> {
        render_remaining(self.items.iter().map(|i| (i, i.status)), self.any)
    }
}

/// squeue `%E` / scontrol `Dependency=`: items that are not fulfilled, joined by `?` when
/// `any` else `,`. `None` when nothing remains (squeue then prints `(null)`).
pub fn render_remaining<'a>(
    items: impl IntoIterator<Item = (&'a DepItem, DepStatus)>,
    any: bool,
) -> Option<String> {
    let parts: Vec<String> = items
        .into_iter()
        .filter(|(_, st)| *st != DepStatus::Fulfilled)
        .map(|(item, st)| item.display(st))
        .collect();
    (!parts.is_empty()).then(|| parts.join(if any { "?" } else { "," }))
}

/// What an item that waits for an end (`afterany`, `afterok`, `afternotok`, `aftercorr`)
/// makes of its target, as slurmctld's `test_job_dependency`: `ended` when every record of
/// the target has finished, `complete` when every one finished COMPLETED. Both backends
/// judge by it (the local runner from its records, a Backend.AI job's launcher from the
/// results its dependencies left in the job directory).
pub fn end_condition(kind: DepKind, ended: bool, complete: bool) -> DepStatus {
    match kind {
        _ if !ended => DepStatus::Unfulfilled,
        DepKind::AfterAny | DepKind::AfterBurstBuffer => DepStatus::Fulfilled,
        DepKind::AfterNotOk if complete => DepStatus::Failed,
        DepKind::AfterNotOk => DepStatus::Fulfilled,
        DepKind::AfterOk | DepKind::AfterCorr if complete => DepStatus::Fulfilled,
        _ => DepStatus::Failed,
    }
}

#[cfg(test)]
mod end_condition_tests {
    use super::*;

    #[test]
    fn each_type_judges_an_ended_target_as_slurmctld() {
        use DepKind::*;
        use DepStatus::*;
        for kind in [AfterAny, AfterOk, AfterNotOk, AfterCorr] {
            assert_eq!(end_condition(kind, false, false), Unfulfilled, "{kind:?}");
        }
        assert_eq!(end_condition(AfterAny, true, false), Fulfilled);
        assert_eq!(end_condition(AfterOk, true, true), Fulfilled);
        assert_eq!(end_condition(AfterOk, true, false), Failed);
        assert_eq!(end_condition(AfterCorr, true, false), Failed);
        assert_eq!(end_condition(AfterNotOk, true, true), Failed);
        assert_eq!(end_condition(AfterNotOk, true, false), Fulfilled);
    }
}
