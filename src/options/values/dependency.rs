//! `--dependency`: how slurmctld 22.05 reads a dependency string (`update_job_dependency`,
//! `_parse_dependency_jobid_new/_old`, `_parse_depend_state` and `_xlate_array_dep` in
//! `src/slurmctld/job_scheduler.c`) and how it prints what is left of one
//! (`_depend_list2str`, shown by squeue `%E` and scontrol `Dependency=`).
//!
//! sbatch passes the string through unchecked; errors are the controller's
//! `Job dependency problem` at submission (exit 1). Forms:
//! `after|afterany|afterok|afternotok|aftercorr|afterburstbuffer|expand:ID[:ID...]`, each
//! ID `N`, `N_T` (array task) or `N_*` (whole array), optionally `+MIN` (delay) and
//! `(state)`; `singleton`; the legacy `ID[,ID...]` (= afterany); items joined by `,` (all
//! must hold) or `?` (any one; one `?` makes the whole list OR); `N_[1-3,5]` expands to
//! one item per task. `""` and `"0"` clear the dependency.
//!
//! The parse is a faithful port of the C pointer walk, including its quirks: a `(state)`
//! is searched for in the rest of the *whole* string, so in `afterok:5,afterok:6(failed)`
//! job 5 is marked failed and job 6 is lost; after `+MIN` or `(state)` trailing junk is
//! ignored; job ids are read by `strtol` and cast to 32 bits (`-1` is 4294967295).
//! What needs the controller's job table (unknown or own job id, array resolution of a
//! plain id to `N_*`, `expand` preconditions, federation) is left to the backend.

use super::{Rejection, ValueError};
use crate::model::cnum::{at, c_bytes, starts_with_ci, strtol, strtol_at};
use std::collections::HashSet;

pub use crate::model::dependency::{
    DepItem, DepKind, DepStatus, DepTarget, Dependency, render_remaining,
};

/// Controller settings the parse depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DependencyLimits {
    /// `MaxArraySize`, bounding the tasks of an `N_[...]` expression (default 1001).
    pub max_array_size: u32,
    /// `SchedulerParameters=permit_job_expansion`: without it `expand:` is refused with
    /// `Requested operation not supported on this system`.
    pub permit_job_expansion: bool,
}

impl Default for DependencyLimits {
    fn default() -> Self {
        DependencyLimits {
            max_array_size: crate::model::array::DEFAULT_MAX_ARRAY_SIZE,
            permit_job_expansion: false,
        }
    }
}

const INFINITE: u32 = u32::MAX;
const NO_VAL: u32 = u32::MAX - 1;

fn problem() -> ValueError {
    ValueError::Rejected(Rejection::Dependency)
}

/// The C string starting at `from`.
fn cstr(buf: &[u8], from: usize) -> &[u8] {
    cstr_head(buf, from, buf.len())
}

/// At most the first `n` bytes of the C string starting at `from` (enough to compare a
/// prefix without measuring the whole rest of the string).
fn cstr_head(buf: &[u8], from: usize, n: usize) -> &[u8] {
    let rest = &buf[from.min(buf.len())..from.saturating_add(n).min(buf.len())];
    &rest[..rest.iter().position(|&c| c == 0).unwrap_or(rest.len())]
}

/// Where the `(`, `)` and `:` of the string being parsed are. The parse only moves
/// forward and only writes NULs behind where it goes on, so `strchr` from the parse
/// position to the end of the C string is the first listed position at or after it: a
/// lookup, not a scan of the rest of the string for every item (which was quadratic once
/// `N_[0-99999]` had become 100000 items).
struct Index {
    open: Vec<usize>,
    close: Vec<usize>,
    colon: Vec<usize>,
}

impl Index {
    fn new(buf: &[u8]) -> Self {
        let all = |ch: u8| -> Vec<usize> {
            let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
            (0..end).filter(|&i| buf[i] == ch).collect()
        };
        Index {
            open: all(b'('),
            close: all(b')'),
            colon: all(b':'),
        }
    }

    /// The first of `list` at or after `from`.
    fn strchr(list: &[usize], from: usize) -> Option<usize> {
        list.get(list.partition_point(|&p| p < from)).copied()
    }
}

/// The items so far, each type and job once: `_add_dependency_to_list` keeps the first
/// (looked up in a set rather than the list, for the same reason as [`Index`]).
#[derive(Default)]
struct Items {
    list: Vec<DepItem>,
    seen: HashSet<(DepKind, Option<DepTarget>)>,
}

impl Items {
    fn push_unique(&mut self, item: DepItem) {
        if self.seen.insert((item.kind, item.target)) {
            self.list.push(item);
        }
    }
}

/// `_parse_depend_state`: consumes `(state)`, searching for it in the rest of the string.
fn parse_state(buf: &mut [u8], idx: &Index, pos: &mut usize) -> Result<DepStatus, ValueError> {
    let Some(open) = Index::strchr(&idx.open, *pos) else {
        return Ok(DepStatus::Unfulfilled);
    };
    let close = Index::strchr(&idx.close, *pos).ok_or_else(problem)?;
    buf[close] = 0;
    let state = if cstr(buf, open + 1).eq_ignore_ascii_case(b"failed") {
        DepStatus::Failed
    } else {
        // "fulfilled" is not accepted as an input state.
        DepStatus::Unfulfilled
    };
    *pos = close + 1;
    Ok(state)
}

/// A job id with optional `_task` / `_*`: (job id, task id or NO_VAL/INFINITE, end).
fn parse_job_id(buf: &[u8], pos: usize) -> (u32, u32, usize) {
    let (job, mut tmp) = strtol_at(buf, pos);
    let task = if at(buf, tmp) == b'_' {
        if at(buf, tmp + 1) == b'*' {
            tmp += 2;
            INFINITE
        } else {
            let (t, end) = strtol_at(buf, tmp + 1);
            tmp = end;
            t as u32
        }
    } else {
        NO_VAL
    };
    (job as u32, task, tmp)
}

fn target(job: u32, task: u32) -> DepTarget {
    match task {
        INFINITE => DepTarget::WholeArray(job),
        NO_VAL => DepTarget::Job(job),
        t => DepTarget::Task(job, t),
    }
}

/// `_parse_dependency_jobid_new`: the ids after `<type>:`; returns where parsing stopped.
fn parse_new(
    buf: &mut [u8],
    idx: &Index,
    mut pos: usize,
    kind: DepKind,
    items: &mut Items,
) -> Result<usize, ValueError> {
    let mut depend_time: i32 = 0;
    loop {
        let (job, task, mut tmp) = parse_job_id(buf, pos);
        if job == 0 || !matches!(at(buf, tmp), 0 | b',' | b'?' | b':' | b'+' | b'(') {
            return Err(problem());
        }
        if at(buf, tmp) == b'+' {
            let (t, end) = strtol_at(buf, tmp + 1);
            tmp = end;
            depend_time = t as i32;
            if depend_time <= 0 {
                return Err(problem());
            }
            depend_time = depend_time.wrapping_mul(60);
        }
        let status = parse_state(buf, idx, &mut tmp)?;
        items.push_unique(DepItem {
            kind,
            target: Some(target(job, task)),
            delay_minutes: depend_time as u32 / 60,
            status,
        });
        if at(buf, tmp) != b':' {
            return Ok(tmp);
        }
        pos = tmp + 1;
    }
}

/// `bitfmt2int` + `inx2bitstr`: the indices of a `1-3,5` / `1-7:2` expression inside
/// `N_[...]`, or None when invalid or empty.
fn array_expr_indices(expr: &[u8], size: u32) -> Option<Vec<u32>> {
    let cnt = i64::from(size);
    let mut bits = vec![false; size as usize];
    let mut set = |a: i32, b: i32| -> bool {
        if a < 0 || i64::from(a) >= cnt || b < 0 || i64::from(b) >= cnt {
            return false;
        }
        for i in a..=b {
            bits[i as usize] = true;
        }
        true
    };
    if expr.is_empty() {
        return None;
    }
    if !expr.contains(&b':') {
        let (mut sum, mut start): (i32, i32) = (0, -1);
        for i in 0..=expr.len() {
            match at(expr, i) {
                c @ b'0'..=b'9' => sum = sum.wrapping_mul(10).wrapping_add(i32::from(c - b'0')),
                b'-' => {
                    start = sum;
                    sum = 0;
                }
                b',' | 0 => {
                    if i == 0 {
                        break;
                    }
                    if start == -1 {
                        start = sum;
                    }
                    if !set(start, sum) {
                        return None;
                    }
                    start = -1;
                    sum = 0;
                }
                _ => {}
            }
        }
    } else {
        let p = strtol(expr);
        let first = p.value as i32;
        let rest = &expr[p.end..];
        if rest.first() != Some(&b'-') {
            return None;
        }
        let p = strtol(&rest[1..]);
        let last = p.value as i32;
        let rest = &rest[1 + p.end..];
        if rest.first() != Some(&b':') {
            return None;
        }
        let p = strtol(&rest[1..]);
        let step = p.value as i32;
        if 1 + p.end != rest.len() || last < first || step <= 0 {
            return None;
        }
        let mut i = first;
        while i < last {
            if !set(i, i) {
                return None;
            }
            i = i.wrapping_add(step);
        }
    }
    let tasks: Vec<u32> = (0..bits.len())
        .filter(|&i| bits[i])
        .map(|i| i as u32)
        .collect();
    (!tasks.is_empty()).then_some(tasks)
}

/// `_xlate_array_dep`: rewrites `N_[1-3]` as `N_1:N_2:N_3`; None when there is nothing
/// to rewrite or the expression is invalid (the string is then parsed as it is).
fn xlate_array_dep(b: &[u8], max_array_size: u32) -> Option<Vec<u8>> {
    if !b.windows(2).any(|w| w == b"_[") {
        return None;
    }
    let mut out = Vec::with_capacity(b.len());
    let mut jobid_start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        out.push(c);
        if c.is_ascii_digit() {
            jobid_start.get_or_insert(i);
        } else if c == b'_' && at(b, i + 1) == b'[' && jobid_start.is_some() {
            let job_id = strtol(&b[jobid_start.unwrap_or(i)..]).value as u32;
            i += 2;
            let rest = &b[i..];
            let close = rest.iter().position(|&c| c == b']')?;
            let tasks = array_expr_indices(&rest[..close], max_array_size)?;
            i += close;
            for (n, t) in tasks.iter().enumerate() {
                if n == 0 {
                    out.extend_from_slice(t.to_string().as_bytes());
                } else {
                    out.extend_from_slice(format!(":{job_id}_{t}").as_bytes());
                }
            }
            jobid_start = None;
        } else {
            jobid_start = None;
        }
        i += 1;
    }
    Some(out)
}

/// The `<type>:` prefixes, in the order and with the lengths slurmctld compares
/// (`afterburstbuffer:` is compared on its first 11 characters only).
const PREFIXES: [(&str, DepKind); 7] = [
    ("afternotok:", DepKind::AfterNotOk),
    ("aftercorr:", DepKind::AfterCorr),
    ("afterany:", DepKind::AfterAny),
    ("afterok:", DepKind::AfterOk),
    ("afterburstb", DepKind::AfterBurstBuffer),
    ("after:", DepKind::After),
    ("expand:", DepKind::Expand),
];

/// Parses `--dependency` as `update_job_dependency` does (minus the job-table checks).
/// Errors: `Rejected(Dependency)`, or `Rejected(NotSupported)` for a refused `expand`.
pub fn parse_dependency(s: &str, limits: DependencyLimits) -> Result<Dependency, ValueError> {
    let b = c_bytes(s);
    let mut dep = Dependency::default();
    if b.is_empty() || b == b"0" {
        return Ok(dep);
    }
    let mut buf = xlate_array_dep(b, limits.max_array_size).unwrap_or_else(|| b.to_vec());
    buf.push(0);
    let idx = Index::new(&buf);
    let mut items = Items::default();
    let mut tok = 0;
    loop {
        if starts_with_ci(cstr_head(&buf, tok, 9), "singleton") {
            tok += 9;
            let status = parse_state(&mut buf, &idx, &mut tok)?;
            items.push_unique(DepItem {
                kind: DepKind::Singleton,
                target: None,
                delay_minutes: 0,
                status,
            });
            match at(&buf, tok) {
                b',' => tok += 1,
                b'?' => {
                    tok += 1;
                    dep.any = true;
                }
                0 => break,
                _ => return Err(problem()),
            }
            continue;
        }
        let colon = Index::strchr(&idx.colon, tok);
        if colon.is_none() && at(&buf, tok).is_ascii_digit() {
            // Old format: a bare job id, meaning afterany.
            let (job, task, end) = parse_job_id(&buf, tok);
            if job == 0 || !matches!(at(&buf, end), 0 | b',') {
                return Err(problem());
            }
            items.push_unique(DepItem {
                kind: DepKind::AfterAny,
                target: Some(target(job, task)),
                delay_minutes: 0,
                status: DepStatus::Unfulfilled,
            });
            if at(&buf, end) == b',' {
                tok = end + 1;
                continue;
            }
            break;
        }
        let Some(colon) = colon else {
            return Err(problem());
        };
        let rest = cstr_head(&buf, tok, 11);
        let kind = PREFIXES
            .iter()
            .find(|(p, _)| starts_with_ci(rest, p))
            .map(|&(_, k)| k)
            .ok_or_else(problem)?;
        if kind == DepKind::Expand && !limits.permit_job_expansion {
            return Err(ValueError::Rejected(Rejection::NotSupported));
        }
        let end = parse_new(&mut buf, &idx, colon + 1, kind, &mut items)?;
        match at(&buf, end) {
            b',' => tok = end + 1,
            b'?' => {
                tok = end + 1;
                dep.any = true;
            }
            _ => break,
        }
    }
    dep.items = items.list;
    Ok(dep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;
    use DepKind::*;
    use DepTarget::*;

    fn parse(s: &str) -> Dependency {
        parse_dependency(s, DependencyLimits::default()).unwrap()
    }
    fn shown(s: &str) -> String {
        parse(s)
            .display_remaining()
            .unwrap_or_else(|| "(null)".into())
    }
    fn item(kind: DepKind, t: DepTarget) -> DepItem {
        DepItem {
            kind,
            target: Some(t),
            delay_minutes: 0,
            status: DepStatus::Unfulfilled,
        }
    }

    #[test]
    fn every_type() {
        assert_eq!(parse("after:5").items, vec![item(After, Job(5))]);
        assert_eq!(parse("afterany:5").items, vec![item(AfterAny, Job(5))]);
        assert_eq!(parse("afterok:5").items, vec![item(AfterOk, Job(5))]);
        assert_eq!(parse("afternotok:5").items, vec![item(AfterNotOk, Job(5))]);
        assert_eq!(parse("aftercorr:5").items, vec![item(AfterCorr, Job(5))]);
        assert_eq!(
            parse("afterburstbuffer:5").items,
            vec![item(AfterBurstBuffer, Job(5))]
        );
        assert_eq!(parse("AFTEROK:5").items, vec![item(AfterOk, Job(5))]);
        let s = parse("singleton");
        assert_eq!((s.items[0].kind, s.items[0].target), (Singleton, None));
    }

    #[test]
    fn ids_tasks_and_delays() {
        assert_eq!(
            parse("afterok:5:6_2:7_*").items,
            vec![
                item(AfterOk, Job(5)),
                item(AfterOk, Task(6, 2)),
                item(AfterOk, WholeArray(7))
            ]
        );
        let d = parse("after:5+10:6");
        // The delay carries over to the following ids of the same type, as in Slurm.
        assert_eq!(d.items[0].delay_minutes, 10);
        assert_eq!(d.items[1].delay_minutes, 10);
        assert_eq!(shown("after:5+10"), "after:5+10(unfulfilled)");
        assert_eq!(shown("afterok: 5"), "afterok:5(unfulfilled)");
        assert_eq!(shown("afterok:-1"), "afterok:4294967295(unfulfilled)");
        assert_eq!(shown("afterok:5_-1"), "afterok:5_*(unfulfilled)");
        assert_eq!(shown("afterok:5_"), "afterok:5_0(unfulfilled)");
    }

    /// Found by tests/fuzz_options.rs: `N_[...]` with a large MaxArraySize becomes that many
    /// items, and each one scanned the rest of the string and the items so far (quadratic:
    /// this test ran for over a minute in a debug build).
    #[test]
    fn large_array_expressions_parse_in_linear_time() {
        let limits = DependencyLimits {
            max_array_size: 100_000,
            permit_job_expansion: false,
        };
        let started = std::time::Instant::now();
        let d = parse_dependency("afterok:7_[0-99999],afterany:8", limits).unwrap();
        assert_eq!(d.items.len(), 100_001);
        assert_eq!(d.items[99_999], item(AfterOk, Task(7, 99_999)));
        assert_eq!(d.items[100_000], item(AfterAny, Job(8)));
        let fuzzed = "afterburstbuffer:154_2:443_[-24947,2147]483648-16:8]";
        assert_eq!(
            parse_dependency(fuzzed, limits),
            Err(ValueError::Rejected(Rejection::Dependency))
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn separators() {
        let d = parse("afterok:5,afternotok:6");
        assert!(!d.any);
        assert_eq!(
            shown("afterok:5,afternotok:6"),
            "afterok:5(unfulfilled),afternotok:6(unfulfilled)"
        );
        let d = parse("afterok:5?afternotok:6");
        assert!(d.any);
        assert_eq!(
            shown("afterok:5,afterok:6?afterok:7"),
            "afterok:5(unfulfilled)?afterok:6(unfulfilled)?afterok:7(unfulfilled)"
        );
        assert_eq!(
            shown("singleton?afterok:3"),
            "singleton(unfulfilled)?afterok:3(unfulfilled)"
        );
        assert_eq!(
            shown("afterok:3,singleton"),
            "afterok:3(unfulfilled),singleton(unfulfilled)"
        );
    }

    #[test]
    fn legacy_ids() {
        assert_eq!(parse("5").items, vec![item(AfterAny, Job(5))]);
        assert_eq!(
            parse("5,6_1,7_*").items,
            vec![
                item(AfterAny, Job(5)),
                item(AfterAny, Task(6, 1)),
                item(AfterAny, WholeArray(7))
            ]
        );
    }

    #[test]
    fn states_on_input() {
        assert_eq!(shown("afterok:12(unfulfilled)"), "afterok:12(unfulfilled)");
        assert_eq!(shown("afterok:2(failed)"), "afterok:2(failed)");
        assert_eq!(shown("afterok:2(FAILED)"), "afterok:2(failed)");
        // "fulfilled" is not taken from input.
        assert_eq!(shown("afterok:2(fulfilled)"), "afterok:2(unfulfilled)");
        assert_eq!(shown("singleton(failed)"), "singleton(failed)");
        assert_eq!(
            shown("afterok:1(unfulfilled),afterok:2(failed)"),
            "afterok:1(unfulfilled),afterok:2(failed)"
        );
        // Slurm's search for "(" runs past the item: job 5 takes job 6's state, job 6 is lost.
        assert_eq!(shown("afterok:5,afterok:6(failed)"), "afterok:5(failed)");
        assert_eq!(shown("afterok:5:6(failed)"), "afterok:5(failed)");
        // Junk after a state or a delay is ignored.
        assert_eq!(shown("afterok:5(failed)xyz"), "afterok:5(failed)");
        assert_eq!(shown("after:5+3xyz"), "after:5+3(unfulfilled)");
    }

    #[test]
    fn duplicates_are_dropped() {
        assert_eq!(parse("afterok:5:5,afterok:5").items.len(), 1);
        assert_eq!(parse("afterok:5,afterany:5").items.len(), 2);
        assert_eq!(parse("singleton,singleton").items.len(), 1);
    }

    #[test]
    fn array_expressions() {
        assert_eq!(
            shown("afterok:12_[1-3]"),
            "afterok:12_1(unfulfilled),afterok:12_2(unfulfilled),afterok:12_3(unfulfilled)"
        );
        assert_eq!(
            parse("afterany:7_[0,4]:8").items,
            vec![
                item(AfterAny, Task(7, 0)),
                item(AfterAny, Task(7, 4)),
                item(AfterAny, Job(8))
            ]
        );
        // The step form leaves out its last index, as Slurm's bitfmt2int does.
        assert_eq!(
            parse("afterok:9_[1-7:3]").items,
            vec![item(AfterOk, Task(9, 1)), item(AfterOk, Task(9, 4))]
        );
        // Out of range: not rewritten, then refused.
        assert!(parse_dependency("afterok:9_[5000]", DependencyLimits::default()).is_err());
        assert!(parse_dependency("afterok:9_[1-3", DependencyLimits::default()).is_err());
    }

    #[test]
    fn cleared() {
        assert_eq!(parse(""), Dependency::default());
        assert_eq!(parse("0"), Dependency::default());
        assert_eq!(parse("0").display_remaining(), None);
    }

    #[test]
    fn rejected() {
        for s in [
            "bogus",
            "afterok",
            "afterok:",
            "afterok:0",
            "afterok:x",
            "afterok:5x",
            "afterok:5,",
            "afterok:5?",
            "after:5+0",
            "after:5+",
            "after:5+-1",
            "5?6",
            "5x",
            "5,afterok:6",
            "singletonx",
            "singleton,",
            "singleton(failed",
            "afterok:5(failed",
            "afterok::5",
            "before:5",
            "00",
            "after",
            ",5",
            "afterok:5;6",
        ] {
            assert_eq!(
                parse_dependency(s, DependencyLimits::default()),
                Err(ValueError::Rejected(Rejection::Dependency)),
                "{s:?}"
            );
        }
        assert_eq!(
            parse_dependency("expand:5", DependencyLimits::default()),
            Err(ValueError::Rejected(Rejection::NotSupported))
        );
        let allow = DependencyLimits {
            permit_job_expansion: true,
            ..DependencyLimits::default()
        };
        assert_eq!(
            parse_dependency("expand:5", allow).unwrap().items,
            vec![item(Expand, Job(5))]
        );
        assert_eq!(
            parse_dependency("x", DependencyLimits::default())
                .unwrap_err()
                .message(),
            "Job dependency problem"
        );
    }

    #[test]
    fn prefix_quirks() {
        // afterburstbuffer is recognised by its first 11 characters.
        assert_eq!(
            parse("afterburstbxyz:4").items,
            vec![item(AfterBurstBuffer, Job(4))]
        );
    }

    #[test]
    fn rendering_with_statuses() {
        let d = parse("afterok:1,afterok:2,afterany:3");
        let st = [
            DepStatus::Fulfilled,
            DepStatus::Failed,
            DepStatus::Unfulfilled,
        ];
        assert_eq!(
            render_remaining(d.items.iter().zip(st), d.any).as_deref(),
            Some("afterok:2(failed),afterany:3(unfulfilled)")
        );
        let all_done = [DepStatus::Fulfilled; 3];
        assert_eq!(render_remaining(d.items.iter().zip(all_done), d.any), None);
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(
            31,
            "afterokny:_*[]()?,+0123456789singletonfailed",
            30,
            30000,
        ) {
            let _ =
                parse_dependency(&s, DependencyLimits::default()).map(|d| d.display_remaining());
        }
    }
}
