//! 24.11's `--tres-per-task` and what `--cpus-per-task` and `--gpus-per-task` write into it
//! (`_validate_tres_per_task` and `_set_tres_per_task_from_sibling_opt` in
//! src/common/slurm_opt.c, then the controller's TRES checks): the one string the job
//! carries as `TresPerTask=` and `SLURM_TRES_PER_TASK`, with the CPU and GPU counts the
//! backends allocate taken from it.

use super::job_opts::{JobOptions, Source};
use super::values::{Rejection, gres};
use crate::model::jobspec::GpuPer;

/// Why a `--tres-per-task` request cannot be submitted, in Slurm's three voices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TresPerTaskError {
    /// `fatal()` in the client: `prog: fatal: <text>`, exit 1.
    Fatal(String),
    /// The client's own GRES validation: `prog: error: <line>` per line, exit error_exit.
    Client(Vec<String>),
    /// The controller's refusal: `prog: error: <submit prefix><text>`, exit error_exit.
    Rejected(Rejection),
}

impl TresPerTaskError {
    /// Its stderr and exit status for command `prog`.
    pub fn render(&self, prog: &str, submit_prefix: &str, error_exit: i32) -> (String, i32) {
        match self {
            TresPerTaskError::Fatal(t) => (format!("{prog}: fatal: {t}\n"), 1),
            TresPerTaskError::Client(lines) => (
                lines
                    .iter()
                    .map(|l| format!("{prog}: error: {l}\n"))
                    .collect(),
                error_exit,
            ),
            TresPerTaskError::Rejected(r) => (
                format!("{prog}: error: {submit_prefix}{}\n", r.text()),
                error_exit,
            ),
        }
    }
}

/// TRES a task cannot ask for (`_validate_tres_per_task`), in Slurm's order.
const NOT_PER_TASK: &[&str] = &[
    "mem", "energy", "node", "billing", "fs", "vmem", "pages", "bb",
];

/// Settles the job's TRES per task. Under 24.11 (`release_24_11`): checks the option,
/// fills `cpus_per_task` and the GPUs per task from it, and leaves the string the job shows
/// in `opts.tres_per_task`. Under 22.05 the option does not exist and the job's TRES per
/// task is its GPUs per task. Either way GPUs per task of a new allocation
/// (`creates_allocation`: not an srun step inside one, which the client does not check) need
/// a task count.
pub fn settle(
    opts: &mut JobOptions,
    release_24_11: bool,
    creates_allocation: bool,
) -> Result<(), TresPerTaskError> {
    if release_24_11 {
        settle_text(opts)?;
    }
    if creates_allocation {
        gpus_need_tasks(opts, release_24_11)?;
    }
    Ok(())
}

/// 24.11's `_validate_tres_per_task` and the controller's reading of the text.
fn settle_text(opts: &mut JobOptions) -> Result<(), TresPerTaskError> {
    let mut text = opts.tres_per_task.take();
    if let Some(t) = &text {
        for bad in NOT_PER_TASK {
            if has_item_prefix(t, bad) {
                return Err(TresPerTaskError::Fatal(format!(
                    "Invalid TRES for --tres-per-task: {bad}"
                )));
            }
        }
        text = Some(gres_as_tres(t));
    }
    let by_cli = |o: &str| matches!(opts.set_by.get(o), Some(Source::Cli | Source::Directive));
    let by_env = |o: &str| opts.set_by.get(o) == Some(&Source::Env);

    // GPUs first, then CPUs: each prepends itself, so CPUs come first.
    let gpus_per_task = match &opts.gpus {
        Some((GpuPer::Task, items)) => items.first().cloned(),
        _ => None,
    };
    if let Some(g) = &gpus_per_task {
        let name = match &g.gres_type {
            Some(t) => format!("gres/gpu:{t}"),
            None => "gres/gpu".to_string(),
        };
        let count = g.count.to_string();
        match text.as_deref().and_then(|t| find_ci(t, "gres/gpu")) {
            None => text = Some(update(text.as_deref(), &name, &count)),
            Some(_) if by_cli("gpus-per-task") && by_cli("tres-per-task") => {
                return Err(TresPerTaskError::Fatal(
                    "You can not have --tres-per-task=gres/gpu= and --gpus-per-task please use one or the other".into(),
                ));
            }
            Some(_) if by_cli("gpus-per-task") && by_env("tres-per-task") => {
                text = Some(update(text.as_deref(), "gres/gpu", &count));
            }
            // The option given with it wins: its GPUs are read from the text below.
            Some(_) => opts.gpus = None,
        }
    }
    let cpus_set = opts.cpus_per_task.is_some();
    match text
        .as_deref()
        .and_then(|t| find_ci(t, "cpu").map(|at| (t, at)))
    {
        None => {
            if let Some(c) = opts.cpus_per_task {
                text = Some(update(text.as_deref(), "cpu", &c.to_string()));
            }
        }
        Some(_) if cpus_set && by_cli("cpus-per-task") && by_cli("tres-per-task") => {
            return Err(TresPerTaskError::Fatal(
                "You can not have --tres-per-task=cpu= and --cpus-per-task please use one or the other".into(),
            ));
        }
        Some(_) if cpus_set && by_cli("cpus-per-task") && by_env("tres-per-task") => {
            let c = opts.cpus_per_task.unwrap_or(1).to_string();
            text = Some(update(text.as_deref(), "cpu", &c));
        }
        Some((t, at)) => {
            let n = atoi(&t[(at + "cpu".len() + 1).min(t.len())..]);
            if n <= 0 {
                return Err(TresPerTaskError::Fatal(format!(
                    "Invalid --tres-per-task=cpu={n}"
                )));
            }
            if cpus_set
                && by_env("cpus-per-task")
                && by_env("tres-per-task")
                && opts.cpus_per_task != Some(n as u32)
            {
                return Err(TresPerTaskError::Fatal(format!(
                    "cpus-per-task set by two different environment variables SLURM_CPUS_PER_TASK={} != SLURM_TRES_PER_TASK=cpu={n}",
                    opts.cpus_per_task.unwrap_or(0)
                )));
            }
            opts.cpus_per_task = Some(n as u32);
        }
    }
    if let Some(t) = &text {
        check_items(t, opts)?;
    }
    opts.tres_per_task = text;
    Ok(())
}

/// The controller's reading of each item: `cpu` and GPUs are what both backends give; a
/// license or a TRES that does not exist is refused as slurmctld refuses it.
fn check_items(text: &str, opts: &mut JobOptions) -> Result<(), TresPerTaskError> {
    for item in text.split(',').filter(|i| !i.is_empty()) {
        let lower = item.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("cpu") {
            if !count_is_whole(rest) {
                return Err(TresPerTaskError::Rejected(Rejection::InvalidTres));
            }
        } else if let Some(rest) = item
            .get("gres/gpu".len()..)
            .filter(|_| lower.starts_with("gres/gpu"))
        {
            let typed = match rest.as_bytes().first() {
                None => "1".to_string(),
                Some(b'=') => rest[1..].to_string(),
                Some(b':') => rest[1..].replace('=', ":"),
                Some(_) => {
                    return Err(TresPerTaskError::Client(vec![
                        Rejection::InvalidGres.text().to_string(),
                    ]));
                }
            };
            let items = gres::parse_gpus(&typed, Some(&["gpu"]))
                .map_err(|_| TresPerTaskError::Rejected(Rejection::InvalidTres))?;
            if opts.gpus.is_none() && !items.is_empty() {
                opts.gpus = Some((GpuPer::Task, items));
            } else if !matches!(opts.gpus, Some((GpuPer::Task, _))) {
                return Err(TresPerTaskError::Fatal(
                    "--tres-per-task=gres/gpu with --gpus or --gpus-per-node is not supported by bai-slurm".into(),
                ));
            }
        } else if lower.starts_with("gres/") {
            return Err(TresPerTaskError::Client(vec![
                Rejection::InvalidGres.text().to_string(),
            ]));
        } else if lower.starts_with("license/") {
            return Err(TresPerTaskError::Rejected(Rejection::InvalidLicenses));
        } else {
            return Err(TresPerTaskError::Rejected(Rejection::InvalidTres));
        }
    }
    Ok(())
}

/// The client's GRES validation (`gres_job_state_validate`): GPUs per task need a task
/// count, in each release's words.
fn gpus_need_tasks(opts: &JobOptions, release_24_11: bool) -> Result<(), TresPerTaskError> {
    if !matches!(opts.gpus, Some((GpuPer::Task, _))) || opts.ntasks.is_some() {
        return Ok(());
    }
    let options = if release_24_11 {
        "--gpus-per-task or --tres-per-task"
    } else {
        "--gpus-per-task"
    };
    Err(TresPerTaskError::Client(vec![
        format!(
            "Failed to validate job spec. {options} used without either --gpus or -n/--ntasks is not allowed."
        ),
        Rejection::InvalidGres.text().to_string(),
    ]))
}

/// `=N` or `:N`, N a whole number (slurmctld's TRES count).
fn count_is_whole(rest: &str) -> bool {
    let mut chars = rest.chars();
    matches!(chars.next(), Some('=' | ':'))
        && !chars.as_str().is_empty()
        && chars.as_str().bytes().all(|b| b.is_ascii_digit())
}

/// The implicit binding 24.11 gives each GRES per task (`_implicitly_bind_tres_per_task`):
/// `gres/gpu:per_task:N`, joined by `+`.
pub fn implicit_binding(text: &str) -> Option<String> {
    let binds: Vec<String> = text
        .split(',')
        .filter_map(|item| {
            let rest = item.strip_prefix("gres/")?;
            let (name_type, count) = rest.rsplit_once(['=', ':'])?;
            let name = name_type.split(':').next()?;
            let count: u64 = count.parse().ok()?;
            Some(format!("gres/{name}:per_task:{count}"))
        })
        .collect();
    (!binds.is_empty()).then(|| binds.join("+"))
}

/// `slurm_format_tres_string(.., "gres")`: items written `gres:gpu:2` become `gres/gpu:2`.
fn gres_as_tres(text: &str) -> String {
    if !text.contains("gres:") {
        return text.to_string();
    }
    text.split(',')
        .map(|i| match i.strip_prefix("gres:") {
            Some(rest) => format!("gres/{rest}"),
            None => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether an item starts with `name` (`xstrncasecmp` at the start or after a comma).
fn has_item_prefix(text: &str, name: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.starts_with(name) || lower.contains(&format!(",{name}"))
}

/// `xstrcasestr`: where `needle` first occurs, case aside.
fn find_ci(text: &str, needle: &str) -> Option<usize> {
    text.to_ascii_lowercase().find(needle)
}

/// C's `atoi`: leading blanks, a sign, then digits; 0 when there are none.
fn atoi(s: &str) -> i64 {
    crate::model::cnum::strtol(crate::model::cnum::c_bytes(s)).value
}

/// `slurm_option_update_tres_per_task`: `name=count` put in place of the item `name`
/// starts, or before every other item when there is none.
fn update(text: Option<&str>, name: &str, count: &str) -> String {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return format!("{name}={count}");
    };
    let Some(at) = find_ci(text, name) else {
        return format!("{name}={count},{text}");
    };
    let prefix = text[..at].trim_end_matches(',');
    let suffix = text[at..].split_once(',').map(|(_, s)| s).unwrap_or("");
    [prefix, &format!("{name}={count}"), suffix]
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::table;

    fn opts(args: &[(&'static str, &str, Source)]) -> JobOptions {
        let mut o = JobOptions::default();
        for (name, value, source) in args {
            let opt = table::OPTIONS.iter().find(|o| o.long == *name).unwrap();
            o.apply(opt, Some(value), *source, 0, 1001).unwrap();
        }
        o
    }

    #[test]
    fn cpus_and_gpus_per_task_are_written_into_the_text_cpus_first() {
        let mut o = opts(&[
            ("ntasks", "1", Source::Cli),
            ("cpus-per-task", "2", Source::Cli),
            ("gpus-per-task", "2", Source::Cli),
        ]);
        settle(&mut o, true, true).unwrap();
        assert_eq!(o.tres_per_task.as_deref(), Some("cpu=2,gres/gpu=2"));
        let mut o = opts(&[
            ("ntasks", "1", Source::Cli),
            ("gpus-per-task", "a100:1", Source::Cli),
        ]);
        settle(&mut o, true, true).unwrap();
        assert_eq!(o.tres_per_task.as_deref(), Some("gres/gpu:a100=1"));
        // 22.05 has no such text.
        let mut o = opts(&[("cpus-per-task", "2", Source::Cli)]);
        settle(&mut o, false, true).unwrap();
        assert_eq!(o.tres_per_task, None);
    }

    #[test]
    fn the_text_gives_the_job_its_cpus_and_gpus() {
        let mut o = opts(&[
            ("ntasks", "1", Source::Cli),
            ("tres-per-task", "cpu=3,gres:gpu:2", Source::Cli),
        ]);
        settle(&mut o, true, true).unwrap();
        assert_eq!(o.cpus_per_task, Some(3));
        assert_eq!(o.tres_per_task.as_deref(), Some("cpu=3,gres/gpu:2"));
        let Some((GpuPer::Task, items)) = &o.gpus else {
            panic!()
        };
        assert_eq!(items[0].count.to_string(), "2");
        // A CPU count read as atoi reads it, case aside.
        let mut o = opts(&[("tres-per-task", "CPU:4", Source::Cli)]);
        settle(&mut o, true, true).unwrap();
        assert_eq!(o.cpus_per_task, Some(4));
    }

    #[test]
    fn refusals_speak_as_slurm_does() {
        let fatal = |a: &[(&'static str, &str, Source)]| {
            let mut o = opts(a);
            match settle(&mut o, true, true) {
                Err(TresPerTaskError::Fatal(t)) => t,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(
            fatal(&[
                ("tres-per-task", "cpu=2", Source::Cli),
                ("cpus-per-task", "2", Source::Cli)
            ]),
            "You can not have --tres-per-task=cpu= and --cpus-per-task please use one or the other"
        );
        assert_eq!(
            fatal(&[("tres-per-task", "mem=2", Source::Cli)]),
            "Invalid TRES for --tres-per-task: mem"
        );
        assert_eq!(
            fatal(&[("tres-per-task", "cpu=x", Source::Cli)]),
            "Invalid --tres-per-task=cpu=0"
        );
        let refused = |t: &str| {
            let mut o = opts(&[
                ("ntasks", "1", Source::Cli),
                ("tres-per-task", t, Source::Cli),
            ]);
            settle(&mut o, true, true).unwrap_err()
        };
        assert_eq!(
            refused("gpu:1"),
            TresPerTaskError::Rejected(Rejection::InvalidTres)
        );
        assert_eq!(
            refused("cpu=2x"),
            TresPerTaskError::Rejected(Rejection::InvalidTres)
        );
        assert_eq!(
            refused("license/foo=1"),
            TresPerTaskError::Rejected(Rejection::InvalidLicenses)
        );
        assert!(matches!(refused("gres/mps=1"), TresPerTaskError::Client(_)));
        // A command-line -c over SLURM_TRES_PER_TASK rewrites the text.
        let mut o = opts(&[
            ("tres-per-task", "cpu=2", Source::Env),
            ("cpus-per-task", "4", Source::Cli),
        ]);
        settle(&mut o, true, true).unwrap();
        assert_eq!(o.tres_per_task.as_deref(), Some("cpu=4"));
        assert_eq!(o.cpus_per_task, Some(4));
    }

    #[test]
    fn gpus_per_task_need_a_task_count_only_for_a_new_allocation() {
        for release_24_11 in [false, true] {
            let mut o = opts(&[("gpus-per-task", "1", Source::Cli)]);
            match settle(&mut o, release_24_11, true) {
                Err(TresPerTaskError::Client(lines)) => {
                    assert!(lines[0].contains("used without either --gpus or -n/--ntasks"))
                }
                other => panic!("{other:?}"),
            }
            // A step inside a job: the client leaves it to the allocation.
            let mut o = opts(&[("gpus-per-task", "1", Source::Cli)]);
            assert_eq!(settle(&mut o, release_24_11, false), Ok(()));
        }
    }

    #[test]
    fn gpus_per_task_bind_implicitly() {
        assert_eq!(
            implicit_binding("cpu=2,gres/gpu=1").as_deref(),
            Some("gres/gpu:per_task:1")
        );
        assert_eq!(
            implicit_binding("gres/gpu:a100=2").as_deref(),
            Some("gres/gpu:per_task:2")
        );
        assert_eq!(implicit_binding("cpu=2"), None);
    }
}
