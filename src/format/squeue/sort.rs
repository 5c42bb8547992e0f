//! squeue's ordering (`src/squeue/sort.c`): every key of `-S` (default `P,t,-p`) is applied
//! right to left as a full glibc merge sort, after an initial sort by start time.

use super::fields::sorted_nodes;
use super::row::JobRow;
use crate::format::common::{state_long, time_used};
use crate::format::msort::{c_cmp, sort_by, sort_by_keys};
use crate::model::{JobRecord, StepRecord, TimeLimit};

/// A sort specification that names an unknown key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSortKey(pub char);

/// `sort_jobs_by_start_time` then `sort_job_list`. Returns the `info()` lines Slurm prints
/// for ignored keys (`Invalid sort specification: b`).
pub fn sort_jobs(rows: &mut Vec<JobRow>, spec: &str, now: i64) -> Result<Vec<String>, BadSortKey> {
    sort_start(rows, now, true);
    let mut notes = Vec::new();
    let chars: Vec<char> = spec.chars().collect();
    let mut i = chars.len();
    while i > 0 {
        i -= 1;
        let c = chars[i];
        if matches!(c, ',' | '+' | '-') {
            continue;
        }
        let mut reverse = i > 0 && chars[i - 1] == '-';
        // A key may be the word `cluster` rather than a letter.
        if i + 1 >= 7
            && chars[i + 1 - 7..=i]
                .iter()
                .collect::<String>()
                .eq_ignore_ascii_case("cluster")
        {
            if i >= 7 && chars[i - 7] == '-' {
                reverse = true;
            }
            sort_by(rows, |a, b| {
                rev(c_cmp(a.job.cluster.cmp(&b.job.cluster)), reverse)
            });
            i -= 6;
            continue;
        }
        let key: Option<fn(&JobRow, &JobRow, i64) -> i32> = match c {
            'B' => {
                Some(|a, b, _| cmp_str(a.job.batch_host.as_deref(), b.job.batch_host.as_deref()))
            }
            'b' => {
                notes.push("Invalid sort specification: b".to_string());
                None
            }
            'c' | 'f' | 'h' | 'n' | 'O' => None,
            'C' => Some(|a, b, _| c_cmp(a.job.num_cpus.cmp(&b.job.num_cpus))),
            'd' => Some(|a, b, _| c_cmp(a.job.min_tmp_disk.cmp(&b.job.min_tmp_disk))),
            'D' => Some(|a, b, _| c_cmp(a.job.num_nodes.cmp(&b.job.num_nodes))),
            'e' => Some(|a, b, _| {
                c_cmp(
                    a.job
                        .end_time
                        .unwrap_or(0)
                        .cmp(&b.job.end_time.unwrap_or(0)),
                )
            }),
            'g' => Some(|a, b, _| c_cmp(a.job.group.cmp(&b.job.group))),
            'G' => Some(|a, b, _| c_cmp(a.job.gid.cmp(&b.job.gid))),
            'H' => Some(|a, b, _| {
                c_cmp(u16v(a.job.sockets_per_node).cmp(&u16v(b.job.sockets_per_node)))
            }),
            'i' => Some(|a, b, _| by_id(a, b)),
            'I' => Some(|a, b, _| {
                c_cmp(u16v(a.job.cores_per_socket).cmp(&u16v(b.job.cores_per_socket)))
            }),
            'j' => Some(|a, b, _| c_cmp(a.job.name.cmp(&b.job.name))),
            'J' => Some(|a, b, _| {
                c_cmp(u16v(a.job.threads_per_core).cmp(&u16v(b.job.threads_per_core)))
            }),
            'l' => Some(|a, b, _| c_cmp(limit_key(a.job).cmp(&limit_key(b.job)))),
            'L' => Some(|a, b, now| c_cmp(time_left(a.job, now).cmp(&time_left(b.job, now)))),
            'm' => Some(|a, b, _| c_cmp(a.job.memory.mb().cmp(&b.job.memory.mb()))),
            'M' => Some(|a, b, now| c_cmp(time_used(a.job, now).cmp(&time_used(b.job, now)))),
            'N' => Some(|a, b, _| by_nodes(a.job.nodes.as_deref(), b.job.nodes.as_deref())),
            'p' | 'Q' => Some(|a, b, _| {
                let d = c_cmp(a.part_prio.cmp(&b.part_prio));
                if d != 0 {
                    d
                } else {
                    c_cmp(a.priority.cmp(&b.priority))
                }
            }),
            'P' => Some(|a, b, _| c_cmp(a.partition.cmp(&b.partition))),
            'S' => None, // handled below: its comparator ignores the direction for unset times
            't' => Some(|a, b, _| c_cmp(a.state_compact.cmp(b.state_compact))),
            'T' => Some(|a, b, _| c_cmp(state_long(a.job).cmp(state_long(b.job)))),
            'u' => Some(|a, b, _| c_cmp(a.job.user.cmp(&b.job.user))),
            'U' => Some(|a, b, _| c_cmp(a.job.uid.cmp(&b.job.uid))),
            'v' => {
                Some(|a, b, _| cmp_str(a.job.reservation.as_deref(), b.job.reservation.as_deref()))
            }
            'V' => Some(|a, b, _| c_cmp(a.job.submit_time.cmp(&b.job.submit_time))),
            'z' => Some(|a, b, _| {
                let k = |j: &JobRecord| {
                    (
                        u16v(j.sockets_per_node),
                        u16v(j.cores_per_socket),
                        u16v(j.threads_per_core),
                    )
                };
                c_cmp(k(a.job).cmp(&k(b.job)))
            }),
            other => return Err(BadSortKey(other)),
        };
        // The keys of the default order (`P,t,-p` after the start time) compare
        // precomputed values; the others compare the rows.
        match c {
            'S' => sort_start(rows, now, reverse),
            'P' => {
                let ranks = ranks(rows.iter().map(|r| r.partition.as_ref()));
                sort_by_keys(rows, &ranks, |a, b| rev(c_cmp(a.cmp(b)), reverse));
            }
            't' => {
                let ranks = ranks(rows.iter().map(|r| r.state_compact));
                sort_by_keys(rows, &ranks, |a, b| rev(c_cmp(a.cmp(b)), reverse));
            }
            'p' | 'Q' => {
                let keys: Vec<(u32, u32)> =
                    rows.iter().map(|r| (r.part_prio, r.priority)).collect();
                sort_by_keys(rows, &keys, |a, b| rev(c_cmp(a.cmp(b)), reverse));
            }
            _ => {
                if let Some(key) = key {
                    sort_by(rows, |a, b| rev(key(a, b, now), reverse));
                }
            }
        }
    }
    Ok(notes)
}

/// Each value's rank among the distinct values (byte order): comparing ranks is
/// comparing the values.
fn ranks<'s>(values: impl Iterator<Item = &'s str> + Clone) -> Vec<u32> {
    let mut distinct: Vec<&str> = values.clone().collect();
    distinct.sort_unstable();
    distinct.dedup();
    let index: std::collections::HashMap<&str, u32> = distinct
        .iter()
        .enumerate()
        .map(|(i, v)| (*v, i as u32))
        .collect();
    values.map(|v| index.get(v).copied().unwrap_or(0)).collect()
}

/// `sort_jobs_by_start_time` over (start time, pending) keys.
fn sort_start(rows: &mut Vec<JobRow>, now: i64, reverse: bool) {
    let keys: Vec<(i64, bool)> = rows.iter().map(|r| (r.start_time, r.pending)).collect();
    sort_by_keys(rows, &keys, |a, b| start_cmp(*a, *b, now, reverse));
}

fn rev(d: i32, reverse: bool) -> i32 {
    if reverse { -d } else { d }
}

/// Unset per-node counts are NO_VAL16 in Slurm, larger than any real count.
fn u16v(n: Option<u16>) -> u32 {
    n.map_or(0xfffe, u32::from)
}

fn limit_key(j: &JobRecord) -> u32 {
    match j.time_limit {
        TimeLimit::Infinite => u32::MAX,
        TimeLimit::Minutes(m) => m,
    }
}

fn time_left(j: &JobRecord, now: i64) -> i64 {
    match j.time_limit {
        TimeLimit::Infinite => i64::from(u32::MAX),
        TimeLimit::Minutes(m) => i64::from(m) * 60 - time_used(j, now),
    }
}

fn cmp_str(a: Option<&str>, b: Option<&str>) -> i32 {
    c_cmp(a.unwrap_or("").cmp(b.unwrap_or("")))
}

/// `_sort_job_by_time_start` on (start time, pending): an unset time sorts after every
/// other, whatever the direction; a pending job's past start time counts as now.
fn start_cmp(a: (i64, bool), b: (i64, bool), now: i64, reverse: bool) -> i32 {
    let ((sa, pa), (sb, pb)) = (a, b);
    if sa == 0 {
        return 1;
    }
    if sb == 0 {
        return -1;
    }
    let eff = |pending: bool, s: i64| if pending && s < now { now } else { s };
    rev(c_cmp(eff(pa, sa).cmp(&eff(pb, sb))), reverse)
}

/// `_sort_job_by_id`: array tasks sort by array id, then task id.
fn by_id(a: &JobRow, b: &JobRow) -> i32 {
    let id = |r: &JobRow| match r.array_task_id {
        None => r.job.job_id,
        Some(_) => r.array_job_id,
    };
    let (mut x, mut y) = (id(a), id(b));
    if x == y {
        x = a.array_task_id.unwrap_or(0xffff_fffe);
        y = b.array_task_id.unwrap_or(0xffff_fffe);
    }
    c_cmp(x.cmp(&y))
}

/// `hostlist_cmp_first`: compares the first host of each sorted list.
fn by_nodes(a: Option<&str>, b: Option<&str>) -> i32 {
    let first = |l: Option<&str>| {
        let s = sorted_nodes(l.unwrap_or(""));
        crate::model::hostlist::expand(&s)
            .and_then(|h| h.into_iter().next())
            .unwrap_or_default()
    };
    c_cmp(natural_cmp(&first(a), &first(b)))
}

/// Host names compare by prefix, then by their numeric suffix.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let split = |s: &str| {
        let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
        let (p, n) = s.split_at(s.len() - digits);
        (p.to_string(), n.parse::<u64>().unwrap_or(0))
    };
    split(a).cmp(&split(b))
}

/// `sort_step_list` (default `P,i`) for the `-s` view.
pub fn sort_steps(steps: &mut Vec<(&JobRecord, &StepRecord)>, spec: &str, now: i64) {
    let chars: Vec<char> = spec.chars().collect();
    let mut i = chars.len();
    while i > 0 {
        i -= 1;
        let c = chars[i];
        if matches!(c, ',' | '+' | '-') {
            continue;
        }
        let reverse = i > 0 && chars[i - 1] == '-';
        type Key = fn(&(&JobRecord, &StepRecord), &(&JobRecord, &StepRecord), i64) -> i32;
        let key: Option<Key> = match c {
            'i' => Some(|a, b, _| {
                let d = c_cmp(a.0.job_id.cmp(&b.0.job_id));
                if d != 0 {
                    d
                } else {
                    c_cmp(step_num(a.1).cmp(&step_num(b.1)))
                }
            }),
            'N' => Some(|a, b, _| by_nodes(Some(&a.1.nodes), Some(&b.1.nodes))),
            'P' => Some(|a, b, _| c_cmp(a.0.partition.cmp(&b.0.partition))),
            'l' => Some(|a, b, _| {
                c_cmp(
                    a.1.time_limit
                        .unwrap_or(u32::MAX)
                        .cmp(&b.1.time_limit.unwrap_or(u32::MAX)),
                )
            }),
            'S' => Some(|a, b, _| {
                c_cmp(
                    a.1.start_time
                        .unwrap_or(0)
                        .cmp(&b.1.start_time.unwrap_or(0)),
                )
            }),
            'M' => Some(|a, b, now| {
                let used = |s: &StepRecord| now - s.start_time.unwrap_or(0);
                c_cmp(used(a.1).cmp(&used(b.1)))
            }),
            'u' => Some(|a, b, _| c_cmp(a.0.user.cmp(&b.0.user))),
            'U' => Some(|a, b, _| c_cmp(a.0.uid.cmp(&b.0.uid))),
            _ => None,
        };
        if let Some(key) = key {
            sort_by(steps, |a, b| rev(key(a, b, now), reverse));
        }
    }
}

/// Step ids as Slurm numbers them: batch, extern and interactive are the largest.
pub fn step_num(s: &StepRecord) -> u32 {
    use crate::model::StepId;
    match s.step_id {
        StepId::Numbered(n) => n,
        StepId::Interactive => 0xffff_fffa,
        StepId::Batch => 0xffff_fffb,
        StepId::Extern => 0xffff_fffc,
    }
}
