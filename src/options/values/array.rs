//! Job arrays (`--array`): how slurmctld 22.05 reads the index expression
//! (`_valid_array_inx`, `_parse_array_tok` and `_create_job_array` in
//! `src/slurmctld/job_mgr.c`). sbatch itself passes the string through unchecked, so every
//! error here is the controller's `Invalid job array specification`, printed as
//! `sbatch: error: Batch job submission failed: ...` with exit status 1.
//!
//! Syntax: comma-separated tokens `N`, `A-B` or `A-B:S`, each optionally wrapped in `[`
//! `]`, and a `%M` throttle. Indices must be ≥ 0 and below `MaxArraySize`; a step must be
//! in `1..MaxArraySize`. Numbers are read with `strtol`, so blanks and `+` before a number
//! are accepted.

use super::{Rejection, ValueError};
use crate::model::cnum::{atoi, c_bytes, strtol};

/// The controller settings that bound an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayLimits {
    /// `MaxArraySize` (default 1001): indices must be below it; 0 disables arrays.
    pub max_array_size: u32,
    /// `SchedulerParameters=max_array_tasks=N`: most tasks one array may have.
    pub max_array_tasks: Option<u32>,
}

impl Default for ArrayLimits {
    fn default() -> Self {
        ArrayLimits {
            max_array_size: crate::model::array::DEFAULT_MAX_ARRAY_SIZE,
            max_array_tasks: None,
        }
    }
}

/// A parsed `--array`: the task ids and what the tasks see in their environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// Task ids, ascending, without duplicates; never empty.
    pub tasks: Vec<u32>,
    /// `%M`: most tasks running at once (None when absent or not positive).
    pub throttle: Option<u32>,
    /// SLURM_ARRAY_TASK_STEP: the number after the first `:` of the whole string, else 1.
    pub step: i32,
}

impl ArraySpec {
    /// SLURM_ARRAY_TASK_MIN.
    pub fn min(&self) -> u32 {
        self.tasks[0]
    }
    /// SLURM_ARRAY_TASK_MAX.
    pub fn max(&self) -> u32 {
        self.tasks[self.tasks.len() - 1]
    }
    /// SLURM_ARRAY_TASK_COUNT.
    pub fn count(&self) -> usize {
        self.tasks.len()
    }
}

/// The controller's length limit for the array string.
const MAX_ARRAY_INX_LEN: usize = 4096;

fn invalid() -> ValueError {
    ValueError::Rejected(Rejection::InvalidArray)
}

/// `_parse_array_tok`: sets the token's indices in `bits`; false when invalid.
fn parse_token(tok: &[u8], bits: &mut [bool]) -> bool {
    let max = bits.len() as i64;
    let tok = tok.strip_prefix(b"[").unwrap_or(tok);
    let strip_bracket = |rest: &[u8]| -> usize { usize::from(rest.first() == Some(&b']')) };
    let ends_ok = |rest: &[u8]| rest.is_empty() || rest[0] == b'%';

    let p = strtol(tok);
    let first = p.value;
    let mut rest = &tok[p.end..];
    rest = &rest[strip_bracket(rest)..];
    if first < 0 {
        return false;
    }
    let (last, step) = if rest.first() == Some(&b'-') {
        let p = strtol(&rest[1..]);
        let last = p.value;
        rest = if p.digits {
            &rest[1 + p.end..]
        } else {
            &rest[1..]
        };
        rest = &rest[strip_bracket(rest)..];
        let mut step = 1;
        if rest.first() == Some(&b':') {
            let p = strtol(&rest[1..]);
            step = p.value;
            rest = if p.digits {
                &rest[1 + p.end..]
            } else {
                &rest[1..]
            };
            rest = &rest[strip_bracket(rest)..];
            if !ends_ok(rest) || step <= 0 || step >= max {
                return false;
            }
        } else if !ends_ok(rest) {
            return false;
        }
        if last < first {
            return false;
        }
        (last, step)
    } else if !ends_ok(rest) {
        return false;
    } else {
        (first, 1)
    };
    if last >= max {
        return false;
    }
    let mut i = first;
    while i <= last {
        bits[i as usize] = true;
        i += step;
    }
    true
}

/// Validates `--array` as slurmctld does and expands it.
///
/// `Ok(None)` means the job is not an array: the string is empty, or it has no tokens at
/// all (`,`), in which case 22.05 quietly submits an ordinary job.
pub fn parse_array(s: &str, limits: ArrayLimits) -> Result<Option<ArraySpec>, ValueError> {
    let b = c_bytes(s);
    if b.is_empty() {
        return Ok(None);
    }
    if b.len() > MAX_ARRAY_INX_LEN {
        return Err(ValueError::Rejected(Rejection::PathnameTooLong));
    }
    if limits.max_array_size == 0 {
        return Err(invalid());
    }
    let mut bits = vec![false; limits.max_array_size as usize];
    for tok in b.split(|&c| c == b',').filter(|t| !t.is_empty()) {
        if !parse_token(tok, &mut bits) {
            return Err(invalid());
        }
    }
    let tasks: Vec<u32> = (0..bits.len())
        .filter(|&i| bits[i])
        .map(|i| i as u32)
        .collect();
    if let Some(max_tasks) = limits.max_array_tasks
        && max_tasks < limits.max_array_size
        && tasks.len() as u64 > u64::from(max_tasks)
    {
        return Err(invalid());
    }
    if tasks.is_empty() {
        return Ok(None);
    }
    let throttle = b
        .iter()
        .position(|&c| c == b'%')
        .map(|i| atoi(&b[i + 1..]))
        .filter(|&t| t > 0)
        .map(|t| t as u32);
    let step = b
        .iter()
        .position(|&c| c == b':')
        .map(|i| atoi(&b[i + 1..]))
        .unwrap_or(1);
    Ok(Some(ArraySpec {
        tasks,
        throttle,
        step,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::values::fuzz;

    fn tasks(s: &str) -> Vec<u32> {
        parse_array(s, ArrayLimits::default())
            .unwrap()
            .unwrap()
            .tasks
    }
    fn spec(s: &str) -> ArraySpec {
        parse_array(s, ArrayLimits::default()).unwrap().unwrap()
    }
    fn rejected(s: &str) -> bool {
        parse_array(s, ArrayLimits::default()) == Err(ValueError::Rejected(Rejection::InvalidArray))
    }

    #[test]
    fn accepted_forms() {
        assert_eq!(tasks("0-3"), vec![0, 1, 2, 3]);
        assert_eq!(tasks("7"), vec![7]);
        assert_eq!(tasks("1,3,5-7"), vec![1, 3, 5, 6, 7]);
        assert_eq!(tasks("0-15:4"), vec![0, 4, 8, 12]);
        assert_eq!(tasks("1-10:3"), vec![1, 4, 7, 10]);
        assert_eq!(tasks("[1-3]"), vec![1, 2, 3]);
        assert_eq!(tasks("[1,2]"), vec![1, 2]);
        assert_eq!(tasks("[0-8:4]"), vec![0, 4, 8]);
        assert_eq!(tasks("3,1,3,2"), vec![1, 2, 3]);
        assert_eq!(tasks("0-1000"), (0..=1000).collect::<Vec<_>>());
        assert_eq!(tasks("1,,2,"), vec![1, 2]);
        // strtol's leniency.
        assert_eq!(tasks(" 4"), vec![4]);
        assert_eq!(tasks("+4"), vec![4]);
        assert_eq!(tasks("1- 3"), vec![1, 2, 3]);
        // Quirks of the controller's parser, kept.
        assert_eq!(tasks("0-"), vec![0]);
        assert_eq!(tasks("["), vec![0]);
        assert_eq!(tasks("%5"), vec![0]);
    }

    #[test]
    fn throttle_and_step() {
        let s = spec("0-3%2");
        assert_eq!((s.tasks.len(), s.throttle, s.step), (4, Some(2), 1));
        assert_eq!(spec("0-99%10").throttle, Some(10));
        assert_eq!(spec("0-9%0").throttle, None);
        assert_eq!(spec("0-9%x").throttle, None);
        let s = spec("1-10:3,20");
        assert_eq!((s.min(), s.max(), s.count(), s.step), (1, 20, 5, 3));
        assert_eq!(spec("0-10:2%3").step, 2);
        assert_eq!(spec("0-10:2%3").throttle, Some(3));
        let s = spec("5");
        assert_eq!((s.min(), s.max(), s.count(), s.step), (5, 5, 1, 1));
    }

    #[test]
    fn rejected_forms() {
        for s in [
            "abc",
            "-1",
            "1-",
            "3-1",
            "1-2-3",
            "1:2",
            "0-10:0",
            "0-10:-1",
            "0-10:1001",
            "1001",
            "0-1001",
            "1x",
            "1-3x",
            "1]]",
            "1-3:2:",
            "a-3",
            "0-3%2,x",
        ] {
            assert!(rejected(s), "{s:?}");
        }
    }

    #[test]
    fn not_an_array() {
        assert_eq!(parse_array("", ArrayLimits::default()), Ok(None));
        assert_eq!(parse_array(",", ArrayLimits::default()), Ok(None));
    }

    #[test]
    fn limits() {
        let small = ArrayLimits {
            max_array_size: 10,
            max_array_tasks: None,
        };
        assert!(parse_array("0-9", small).is_ok());
        assert!(parse_array("0-10", small).is_err());
        assert!(parse_array("0-9:10", small).is_err());
        let off = ArrayLimits {
            max_array_size: 0,
            max_array_tasks: None,
        };
        assert!(parse_array("1", off).is_err());
        let capped = ArrayLimits {
            max_array_size: 1001,
            max_array_tasks: Some(3),
        };
        assert!(parse_array("0-2", capped).is_ok());
        assert!(parse_array("0-3", capped).is_err());
        assert_eq!(
            parse_array(&"1,".repeat(2049), ArrayLimits::default()),
            Err(ValueError::Rejected(Rejection::PathnameTooLong))
        );
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(13, "0123456789[]:%,-", 16, 20000) {
            let _ = parse_array(&s, ArrayLimits::default());
        }
    }
}
