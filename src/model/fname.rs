//! IO file name patterns (`-o/-e/-i`), expanded as slurmstepd's fname.c does it.

/// Slurm's NO_VAL: what `%a` prints for a job that is not an array task.
pub const NO_VAL: u32 = 0xffff_fffe;
const MAX_WIDTH: usize = 10;

/// The facts a pattern can refer to.
#[derive(Debug, Clone, Default)]
pub struct FnameContext<'a> {
    pub job_id: u32,
    /// (array job id, task id) for array tasks.
    pub array: Option<(u32, u32)>,
    /// None for the batch step.
    pub step_id: Option<u32>,
    pub node_id: u32,
    pub node_name: &'a str,
    pub task_id: u32,
    pub user: &'a str,
    pub job_name: &'a str,
}

/// `fname_single_task_io`: an all-digit pattern sends only that task's IO to the file.
pub fn single_task(pattern: &str) -> Option<u32> {
    if !pattern.is_empty() && pattern.bytes().all(|b| b.is_ascii_digit()) {
        pattern.parse().ok()
    } else {
        None
    }
}

/// Whether srun opens the file itself (srun's fname.c: `IO_ALL`) rather than each node
/// for its tasks: a name with no per-task part (`%t`, `%n`, `%N`, `%u`), that is not a
/// task number nor `none`. One file then takes every task's output, through srun.
pub fn srun_opens_itself(pattern: &str) -> bool {
    if pattern.eq_ignore_ascii_case("none") || single_task(pattern).is_some() {
        return false;
    }
    if pattern.contains('\\') {
        return true;
    }
    let b = pattern.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            i += 2;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if matches!(b.get(j), Some(b't' | b'n' | b'N' | b'u')) {
            return false;
        }
        i = j;
    }
    true
}

/// Expands `pattern` relative to `cwd`. A pattern containing a backslash is taken
/// literally with its backslashes removed, as Slurm does.
pub fn expand(pattern: &str, ctx: &FnameContext<'_>, cwd: &str) -> String {
    let mut name = String::new();
    if !pattern.starts_with('/') {
        name.push_str(cwd);
        if !name.ends_with('/') {
            name.push('/');
        }
    }
    if pattern.contains('\\') {
        name.extend(pattern.chars().filter(|&c| c != '\\'));
        return name;
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            name.push(chars[i]);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'%') {
            name.push('%');
            i += 2;
            continue;
        }
        let mut j = i + 1;
        let mut width = 0usize;
        while j < chars.len() && chars[j].is_ascii_digit() {
            width = (width * 10 + chars[j].to_digit(10).unwrap_or(0) as usize).min(1000);
            j += 1;
        }
        let width = width.min(MAX_WIDTH);
        let Some(&c) = chars.get(j) else {
            // A trailing `%` or `%<digits>` stays as written.
            name.extend(&chars[i..]);
            break;
        };
        let num = |v: u32| format!("{v:0width$}");
        let rendered = match c {
            'a' => Some(num(ctx.array.map_or(NO_VAL, |(_, t)| t))),
            'A' => Some(num(ctx.array.map_or(ctx.job_id, |(a, _)| a))),
            'j' => Some(num(ctx.job_id)),
            'J' => Some(match ctx.step_id {
                Some(s) => format!("{}.{s}", num(ctx.job_id)),
                None => num(ctx.job_id),
            }),
            'n' => Some(num(ctx.node_id)),
            'N' => Some(ctx.node_name.to_string()),
            's' => Some(match ctx.step_id {
                Some(s) => num(s),
                None => "batch".to_string(),
            }),
            't' => Some(num(ctx.task_id)),
            'u' => Some(ctx.user.to_string()),
            'x' => Some(ctx.job_name.to_string()),
            _ => None,
        };
        match rendered {
            Some(r) => {
                name.push_str(&r);
                i = j + 1;
            }
            None => {
                // Unknown letters are left as written, width digits included.
                name.extend(&chars[i..=j]);
                i = j + 1;
            }
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_files_srun_opens_itself() {
        for p in [
            "out.txt",
            "%j-%s.out",
            "%A_%a.log",
            "%x.out",
            "100%%t",
            "a\\%t",
        ] {
            assert!(srun_opens_itself(p), "{p}");
        }
        for p in [
            "%t.out",
            "x-%3n",
            "%N",
            "u%u",
            "none",
            "0",
            "%A_%a/%A_%a_%t_log.out",
        ] {
            assert!(!srun_opens_itself(p), "{p}");
        }
    }

    fn ctx() -> FnameContext<'static> {
        FnameContext {
            job_id: 128,
            array: Some((120, 7)),
            node_name: "node01",
            user: "alice",
            job_name: "train",
            ..Default::default()
        }
    }

    #[test]
    fn expands_batch_tokens() {
        assert_eq!(expand("slurm-%j.out", &ctx(), "/w"), "/w/slurm-128.out");
        assert_eq!(expand("/o/%A_%a.out", &ctx(), "/w"), "/o/120_7.out");
        assert_eq!(
            expand("%x-%u-%N-%n-%s-%t-%J-%%", &ctx(), "/"),
            "/train-alice-node01-0-batch-0-128-%"
        );
        assert_eq!(expand("%4j_%3a", &ctx(), "/w/"), "/w/0128_007");
        assert_eq!(expand("%20j", &ctx(), "/w"), "/w/0000000128");
    }

    #[test]
    fn non_arrays_and_odd_patterns() {
        let c = FnameContext {
            job_id: 5,
            ..Default::default()
        };
        assert_eq!(expand("%A_%a", &c, "/w"), "/w/5_4294967294");
        assert_eq!(expand("a%qb%", &c, "/w"), "/w/a%qb%");
        assert_eq!(expand("a\\%j", &c, "/w"), "/w/a%j");
        assert_eq!(single_task("3"), Some(3));
        assert_eq!(single_task("3a"), None);
    }
}
