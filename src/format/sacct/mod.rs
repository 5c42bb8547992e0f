//! sacct's text output: header, then each selected job and its steps, in sacct's order.

pub mod cell;
pub mod fields;
pub mod select;
pub mod spec;

use crate::format::common::Clock;
use crate::model::units::Convert;
use crate::model::{JobRecord, StepId, StepRecord};
use cell::Layout;
use fields::{Ctx, Row};
use select::JobCond;
use spec::Column;

/// Everything that shapes sacct's output.
#[derive(Debug, Clone)]
pub struct Options {
    pub columns: Vec<Column>,
    pub layout: Layout,
    pub header: bool,
    /// `-X`: jobs only.
    pub no_steps: bool,
    pub convert: Convert,
    pub cond: JobCond,
    /// The Slurm release whose values are printed.
    pub profile: &'static crate::model::profile::Profile,
    /// 24.11's `--expand-patterns`: StdOut/StdErr/StdIn as the paths written.
    pub expand_patterns: bool,
}

/// The header lines (`print_fields_header`): names, then dashes in fixed-width mode.
pub fn header(columns: &[Column], layout: &Layout) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        cell::header(
            &mut out,
            layout,
            c.width,
            c.field.name(),
            i + 1 == columns.len(),
        );
    }
    out.push(b'\n');
    if !layout.is_parsable() {
        for c in columns {
            out.extend(std::iter::repeat_n(b'-', c.width.unsigned_abs() as usize));
            out.push(b' ');
        }
        out.push(b'\n');
    }
    out
}

/// Where steps sit in the database's order: interactive, batch, extern, then numbered.
pub(crate) fn step_order(s: &StepRecord) -> (u8, u32) {
    match s.step_id {
        StepId::Interactive => (0, 0),
        StepId::Batch => (1, 0),
        StepId::Extern => (2, 0),
        StepId::Numbered(n) => (3, n),
    }
}

/// What slurmdbd returns for `--json`/`--yaml` (no client-side sort, no truncation): the
/// matching jobs in the database's order (job id), each with its selected steps in the
/// database's step order.
pub fn data_jobs<'a>(
    records: &'a [JobRecord],
    cond: &JobCond,
) -> Vec<(&'a JobRecord, Vec<&'a StepRecord>)> {
    let mut jobs = select::selected(records, cond);
    // (a requeued job's runs oldest first, as `-D` lists them)
    jobs.sort_by_key(|j| (j.job_id, j.submit_time));
    jobs.into_iter()
        .map(|job| {
            let (_, wanted) = select::step_selection(job, cond);
            let mut steps: Vec<&StepRecord> = job
                .steps
                .iter()
                .filter(|s| wanted.as_ref().is_none_or(|w| w.contains(&s.step_id)))
                .collect();
            steps.sort_by_key(|s| step_order(s));
            (job, steps)
        })
        .collect()
}

/// `-T`: times outside the window are clipped to it.
fn truncate(job: &JobRecord, c: &JobCond) -> JobRecord {
    let mut j = job.clone();
    if j.start_time.is_some_and(|s| s != 0 && s < c.start) {
        j.start_time = Some(c.start);
    }
    if j.end_time.is_none_or(|e| e == 0 || e > c.end) {
        j.end_time = Some(c.end);
    }
    for st in &mut j.steps {
        if st.start_time.is_some_and(|s| s < c.start) {
            st.start_time = Some(c.start);
        }
        if st.end_time.is_none_or(|e| e > c.end) {
            st.end_time = Some(c.end);
        }
    }
    j
}

/// The rows sacct prints for the accounting records: header (unless disabled), then
/// every job that matches, sorted, each followed by its steps.
pub fn render(records: &[JobRecord], opts: &Options, clock: &Clock) -> Vec<u8> {
    let mut out = if opts.header {
        header(&opts.columns, &opts.layout)
    } else {
        Vec::new()
    };
    // Records are borrowed; only `-T` needs changed copies.
    let chosen = select::selected(records, &opts.cond);
    let truncated: Vec<JobRecord> = if opts.cond.truncate {
        chosen.iter().map(|j| truncate(j, &opts.cond)).collect()
    } else {
        Vec::new()
    };
    let mut jobs: Vec<&JobRecord> = if opts.cond.truncate {
        truncated.iter().collect()
    } else {
        chosen
    };
    // The key is a total order, so a stable sort on it gives the same order as glibc's
    // merge sort with sacct's comparator; computing the keys once keeps the comparisons
    // in cache.
    let mut keyed: Vec<_> = jobs.iter().map(|j| (select::sort_key(j), *j)).collect();
    keyed.sort_by_key(|(k, _)| *k);
    jobs = keyed.into_iter().map(|(_, j)| j).collect();
    // One allocation for the output: a line per job and step, about as wide as the columns.
    let lines: usize = jobs.iter().map(|j| 1 + j.steps.len()).sum();
    let width: usize = opts
        .columns
        .iter()
        .map(|c| c.width.unsigned_abs() as usize + 1)
        .sum();
    out.reserve(lines.saturating_mul(width.clamp(16, 1024)));
    let ctx = Ctx {
        clock,
        convert: opts.convert,
        deltas: opts.profile.sacct,
        expand_patterns: opts.expand_patterns,
    };
    for job in &jobs {
        let (show_full, wanted_steps) = select::step_selection(job, &opts.cond);
        if show_full {
            print_row(&mut out, Row::Job(job), &ctx, opts);
        }
        if opts.no_steps {
            continue;
        }
        let mut steps: Vec<&StepRecord> = job
            .steps
            .iter()
            .filter(|s| wanted_steps.as_ref().is_none_or(|w| w.contains(&s.step_id)))
            .collect();
        steps.sort_by_key(|s| step_order(s));
        for step in steps {
            print_row(&mut out, Row::Step(job, step), &ctx, opts);
        }
    }
    out
}

fn print_row(out: &mut Vec<u8>, row: Row, ctx: &Ctx, opts: &Options) {
    let n = opts.columns.len();
    for (i, c) in opts.columns.iter().enumerate() {
        c.field
            .print(out, row, ctx, &opts.layout, c.width, i + 1 == n);
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArrayPart, JobState};

    fn job(id: u32, submit: i64, array: Option<ArrayPart>) -> JobRecord {
        JobRecord {
            job_id: id,
            name: format!("j{id}"),
            user: "alice".into(),
            uid: 1001,
            partition: "debug".into(),
            account: Some("acct".into()),
            state: JobState::Completed,
            submit_time: submit,
            eligible_time: Some(submit),
            start_time: Some(submit + 1),
            end_time: Some(submit + 2),
            num_cpus: 1,
            num_nodes: 1,
            array,
            steps: vec![
                StepRecord {
                    step_id: StepId::Numbered(0),
                    name: "s0".into(),
                    state: JobState::Completed,
                    ..Default::default()
                },
                StepRecord {
                    step_id: StepId::Batch,
                    name: "batch".into(),
                    state: JobState::Completed,
                    ..Default::default()
                },
            ],
            ..Default::default()
        }
    }

    fn opts(list: &str, layout: Layout, no_steps: bool) -> Options {
        Options {
            columns: spec::parse(&format!("{list},")).unwrap(),
            layout,
            header: true,
            no_steps,
            convert: Convert::Exact,
            cond: JobCond {
                start: 0,
                end: i64::MAX,
                ..Default::default()
            },
            profile: Default::default(),
            expand_patterns: false,
        }
    }

    fn render_str(jobs: &[JobRecord], o: &Options) -> String {
        String::from_utf8(render(jobs, o, &Clock::default())).unwrap()
    }

    #[test]
    fn order_is_submit_then_array_then_task_then_id() {
        let jobs = vec![
            job(
                30,
                100,
                Some(ArrayPart::Task {
                    array_job_id: 20,
                    task_id: 1,
                }),
            ),
            job(
                21,
                100,
                Some(ArrayPart::Task {
                    array_job_id: 20,
                    task_id: 0,
                }),
            ),
            job(12, 100, None),
            job(11, 100, None),
            job(5, 50, None),
        ];
        let out = render_str(
            &jobs,
            &opts(
                "jobid",
                Layout::Parsable2 {
                    delimiter: "|".into(),
                },
                true,
            ),
        );
        assert_eq!(out, "JobID\n5\n11\n12\n20_0\n20_1\n");
    }

    #[test]
    fn steps_follow_their_job_batch_first() {
        let out = render_str(
            &[job(1, 100, None)],
            &opts("jobid,jobname", Layout::Fixed, false),
        );
        assert_eq!(
            out,
            "JobID           JobName \n------------ ---------- \n1                    j1 \n1.batch           batch \n1.0                  s0 \n"
        );
    }

    #[test]
    fn parsable_endings_and_delimiters() {
        let jobs = [job(1, 100, None)];
        let p = render_str(
            &jobs,
            &opts(
                "jobid,state",
                Layout::Parsable {
                    delimiter: "|".into(),
                },
                true,
            ),
        );
        assert_eq!(p, "JobID|State|\n1|COMPLETED|\n");
        let p2 = render_str(
            &jobs,
            &opts(
                "jobid,state",
                Layout::Parsable2 {
                    delimiter: "::".into(),
                },
                true,
            ),
        );
        assert_eq!(p2, "JobID::State\n1::COMPLETED\n");
    }

    #[test]
    fn widths_cut_with_plus_and_dates_cut_plain() {
        let mut j = job(1, 100, None);
        j.name = "averyverylongname".into();
        let out = render_str(
            &[j],
            &opts("jobname%8,start%10,elapsed%3", Layout::Fixed, true),
        );
        let line = out.lines().nth(2).unwrap();
        let start = crate::model::timestamp::format_time(Some(101), &Default::default(), 0);
        assert_eq!(line, format!("averyve+ {} 00:00:01 ", &start[..10]));
    }
}
