//! squeue's text output: parse the format, pick and order the lines, print them.
//! Pure: records, options and the clock in; bytes and diagnostics out.

pub mod fields;
pub mod row;
pub mod select;
pub mod sort;
pub mod steps;

use crate::format::common::Clock;
use crate::format::spec::{self, Item, Lookup, Parsed};
use crate::model::units::Convert;
use crate::model::{JobRecord, PartitionRecord};
use fields::{Ctx, JobField};
use row::JobRow;
use select::JobFilter;
use steps::{StepField, StepFilter};

/// The default formats (`_print_job`, `_print_job_steps`, `--start`).
pub const DEFAULT_JOB_FORMAT: &str = "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,statecompact:.2 ,timeused:.10 ,numnodes:.6 ,reasonlist:0";
pub const LONG_JOB_FORMAT: &str = "jobarrayid:.18 ,partition:.9 ,name:.8 ,username:.8 ,state:.8 ,timeused:.10 ,timelimit:.9 ,numnodes:.6 ,reasonlist:0";
pub const STEP_FORMAT: &str = "%.15i %.8j %.9P %.8u %.9M %N";
pub const START_FORMAT: &str = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";

/// A format as given: `-o` letters or `-O` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Letters(String),
    Names(String),
}

/// Everything that shapes squeue's output.
#[derive(Debug, Clone)]
pub struct View {
    pub format: Format,
    /// `-s`: list steps instead of jobs.
    pub steps: bool,
    pub no_header: bool,
    /// `-r`: one line per array task.
    pub array_expand: bool,
    pub array_unique: bool,
    /// `-P`: one line per partition of a multi-partition job.
    pub per_partition: bool,
    pub sort: Option<String>,
    pub jobs: JobFilter,
    pub step_filter: StepFilter,
    pub convert: Convert,
    /// SLURM_BITSTR_LEN is set (squeue -r sets it too).
    pub bitstr_len_set: bool,
    /// The Slurm release whose values are printed.
    pub profile: &'static crate::model::profile::Profile,
}

impl Default for View {
    fn default() -> Self {
        View {
            format: Format::Names(DEFAULT_JOB_FORMAT.to_string()),
            steps: false,
            no_header: false,
            array_expand: false,
            array_unique: false,
            per_partition: false,
            sort: None,
            jobs: JobFilter::default(),
            step_filter: StepFilter::default(),
            convert: Convert::Exact,
            bitstr_len_set: false,
            profile: Default::default(),
        }
    }
}

/// A diagnostic squeue prints on stderr, with the level that decides its prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// `squeue: error: ...`
    Error(String),
    /// `squeue: ...` (info level)
    Info(String),
}

/// What rendering produced. `failed` means squeue exits 1 after printing `out`.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub out: Vec<u8>,
    pub notes: Vec<Note>,
    pub failed: bool,
}

pub fn parse_job_format(format: &Format) -> Parsed<JobField> {
    let lookup = Lookup {
        letter: &JobField::from_letter,
        name: &JobField::from_name,
        all_upper_suffix: "",
    };
    match format {
        Format::Letters(f) => spec::parse_letters(f, &lookup),
        Format::Names(f) => spec::parse_names(f, &lookup),
    }
}

pub fn parse_step_format(format: &Format) -> Parsed<StepField> {
    let lookup = Lookup {
        letter: &StepField::from_letter,
        name: &StepField::from_name,
        all_upper_suffix: "",
    };
    match format {
        Format::Letters(f) => spec::parse_letters(f, &lookup),
        Format::Names(f) => spec::parse_names(f, &lookup),
    }
}

/// Renders squeue's job or step view.
pub fn render(
    jobs: &[JobRecord],
    partitions: &[PartitionRecord],
    view: &View,
    clock: &Clock,
) -> Rendered {
    if view.steps {
        render_steps(jobs, view, clock)
    } else {
        render_jobs(jobs, partitions, view, clock)
    }
}

fn render_jobs(
    jobs: &[JobRecord],
    partitions: &[PartitionRecord],
    view: &View,
    clock: &Clock,
) -> Rendered {
    let parsed = parse_job_format(&view.format);
    let mut r = Rendered {
        notes: parsed
            .unknown
            .iter()
            .map(|u| Note::Error(format!("Invalid job format specification: {u}")))
            .collect(),
        ..Default::default()
    };
    let ctx = Ctx {
        clock,
        profile: view.profile,
        convert: view.convert,
        bitstr_len_set: view.bitstr_len_set || view.array_expand,
    };
    if !view.no_header {
        print_line(&mut r.out, &parsed.items, |out, f, w, right| {
            f.print_header(out, w, right)
        });
    }
    let prio = |name: &str| {
        partitions
            .iter()
            .find(|p| p.name == name)
            .map_or(1, |p| p.priority_tier.unwrap_or(1))
    };
    let mut rows = select::job_rows(
        jobs,
        &view.jobs,
        view.per_partition,
        &prio,
        !view.array_expand,
        view.array_unique,
    );
    match sort::sort_jobs(
        &mut rows,
        view.sort.as_deref().unwrap_or("P,t,-p"),
        clock.now,
    ) {
        Ok(infos) => r.notes.extend(infos.into_iter().map(Note::Info)),
        Err(sort::BadSortKey(c)) => {
            r.notes
                .push(Note::Error(format!("Invalid sort specification: {c}")));
            r.failed = true;
            return r;
        }
    }
    // One allocation for the output: about one header-sized line per row.
    r.out
        .reserve(rows.len().saturating_mul(r.out.len().clamp(16, 1024)));
    for row in &rows {
        let mut print = |line: &JobRow| {
            print_line(&mut r.out, &parsed.items, |out, f, w, right| {
                f.print_value(out, line, &ctx, w, right)
            });
        };
        match expand_tasks(row, view.array_expand) {
            Some(lines) => lines.iter().for_each(&mut print),
            None => print(row),
        }
    }
    r
}

/// With `-r`, a pending array line becomes one line per task (None: the line as it is).
fn expand_tasks<'a>(row: &JobRow<'a>, expand: bool) -> Option<Vec<JobRow<'a>>> {
    Some(match (&row.tasks, expand) {
        (Some(tasks), true) if row.array_task_str.is_some() => {
            let mut tasks = tasks.clone();
            tasks.sort_unstable();
            tasks.dedup();
            tasks
                .into_iter()
                .map(|t| {
                    let mut one = row.clone();
                    one.array_task_id = Some(t);
                    one.array_task_str = None;
                    one.tasks = None;
                    one
                })
                .collect()
        }
        _ => return None,
    })
}

fn render_steps(jobs: &[JobRecord], view: &View, clock: &Clock) -> Rendered {
    let parsed = parse_step_format(&view.format);
    let mut r = Rendered {
        notes: parsed
            .unknown
            .iter()
            .map(|u| Note::Error(format!("Invalid job step format specification: {u}")))
            .collect(),
        ..Default::default()
    };
    if !view.no_header {
        print_line(&mut r.out, &parsed.items, |out, f, w, right| {
            f.print_header(out, w, right)
        });
    }
    let mut rows = steps::step_rows(jobs, &view.step_filter);
    sort::sort_steps(&mut rows, view.sort.as_deref().unwrap_or("P,i"), clock.now);
    for row in rows {
        print_line(&mut r.out, &parsed.items, |out, f, w, right| {
            f.print_value(out, row, clock, w, right)
        });
    }
    r
}

/// Prints one line: each field, then its suffix; literal text as is.
pub fn print_line<F: Copy>(
    out: &mut Vec<u8>,
    items: &[Item<F>],
    mut cell: impl FnMut(&mut Vec<u8>, F, usize, bool),
) {
    for item in items {
        match item {
            Item::Text(t) => out.extend_from_slice(t.as_bytes()),
            Item::Field {
                field,
                width,
                right,
                suffix,
            } => {
                cell(out, *field, *width, *right);
                out.extend_from_slice(suffix.as_bytes());
            }
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ArrayPart, ExitStatus, JobState, MemoryRequest, TimeLimit};

    fn clock() -> Clock {
        Clock {
            now: 1_000_000,
            time_format: crate::model::TimeFormat::Relative,
        }
    }

    fn job(id: u32, state: JobState, prio: u32) -> JobRecord {
        JobRecord {
            job_id: id,
            name: format!("job{id}"),
            user: "alice".into(),
            uid: 1001,
            group: "alice".into(),
            gid: 1001,
            account: Some("research".into()),
            partition: "debug".into(),
            qos: Some("normal".into()),
            state,
            reason: if state == JobState::Pending {
                "Priority".into()
            } else {
                "None".into()
            },
            priority: prio,
            submit_time: 999_000,
            time_limit: TimeLimit::Minutes(60),
            num_nodes: 1,
            num_cpus: 2,
            num_tasks: Some(2),
            memory: MemoryRequest::PerCpu(1024),
            command: "/w/run.sh".into(),
            work_dir: "/w".into(),
            ..Default::default()
        }
    }

    fn render_with(jobs: &[JobRecord], format: Format, f: impl FnOnce(&mut View)) -> String {
        let mut view = View {
            format,
            ..Default::default()
        };
        f(&mut view);
        let r = render(jobs, &[], &view, &clock());
        String::from_utf8(r.out).unwrap()
    }

    fn letters(jobs: &[JobRecord], f: &str) -> String {
        render_with(jobs, Format::Letters(f.into()), |v| v.no_header = true)
    }

    #[test]
    fn every_letter_of_a_running_job() {
        let mut j = job(7, JobState::Running, 10);
        j.start_time = Some(999_400);
        j.end_time = Some(1_003_000);
        j.nodes = Some("n2,n1".into());
        j.batch = true;
        j.batch_host = Some("n1".into());
        j.exit_code = ExitStatus::OK;
        let cases = [
            ("%a", "research"),
            ("%A", "7"),
            ("%b", "N/A"),
            ("%B", "n1"),
            ("%c", "0"),
            ("%C", "2"),
            ("%d", "0"),
            ("%D", "1"),
            ("%E", "(null)"),
            ("%f", "(null)"),
            ("%F", "7"),
            ("%g", "alice"),
            ("%G", "1001"),
            ("%h", "OK"),
            ("%H", "*"),
            ("%i", "7"),
            ("%I", "*"),
            ("%j", "job7"),
            ("%J", "*"),
            ("%k", "(null)"),
            ("%K", "N/A"),
            ("%l", "1:00:00"),
            ("%L", "50:00"),
            ("%m", "1G"),
            ("%M", "10:00"),
            ("%n", ""),
            ("%N", "n[1-2]"),
            ("%o", "/w/run.sh"),
            ("%O", "0"),
            ("%p", "0.00000000232831"),
            ("%P", "debug"),
            ("%q", "normal"),
            ("%Q", "10"),
            ("%r", "None"),
            ("%R", "n[1-2]"),
            ("%t", "R"),
            ("%T", "RUNNING"),
            ("%u", "alice"),
            ("%U", "1001"),
            ("%v", "(null)"),
            ("%w", "(null)"),
            ("%W", "(null)"),
            ("%x", ""),
            ("%X", "N/A"),
            ("%y", "0"),
            ("%Y", "(null)"),
            ("%z", "*:*:*"),
            ("%Z", "/w"),
        ];
        for (f, want) in cases {
            assert_eq!(
                letters(std::slice::from_ref(&j), f),
                format!("{want}\n"),
                "{f}"
            );
        }
    }

    #[test]
    fn widths_justification_and_cutting() {
        let j = job(123456, JobState::Pending, 1);
        assert_eq!(
            letters(std::slice::from_ref(&j), "%.3i|%3i|%.8j|%3j|%.12j|"),
            "123|123|job12345|job|   job123456|\n"
        );
        // Right-justified values are cut; time values are not.
        assert_eq!(
            letters(std::slice::from_ref(&j), "%.2M|%.2l"),
            "0:00|1:00:00\n"
        );
    }

    #[test]
    fn pending_reason_and_array_ids() {
        let mut meta = job(13, JobState::Pending, 5);
        meta.array = Some(ArrayPart::Pending {
            array_job_id: 13,
            tasks: vec![0, 1, 2, 3],
            throttle: Some(2),
        });
        let out = letters(std::slice::from_ref(&meta), "%i %F %K %R");
        assert_eq!(out, "13_[0-3%2] 13 0-3%2 (Priority)\n");
        let expanded = render_with(
            std::slice::from_ref(&meta),
            Format::Letters("%i".into()),
            |v| {
                v.no_header = true;
                v.array_expand = true;
            },
        );
        assert_eq!(expanded, "13_0\n13_1\n13_2\n13_3\n");
    }

    #[test]
    fn header_and_names() {
        let out = render_with(
            &[],
            Format::Names("jobid:.6 ,name:4,reasonlist:3".into()),
            |_| {},
        );
        // A left-justified width always cuts, even the node list header.
        assert_eq!(out, " JOBID NAMENOD\n");
    }

    #[test]
    fn default_sort_is_partition_state_priority() {
        let mut a = job(1, JobState::Running, 5);
        a.start_time = Some(999_500);
        let b = job(2, JobState::Pending, 9);
        let c = job(3, JobState::Pending, 7);
        let mut d = job(4, JobState::Pending, 8);
        d.partition = "batch".into();
        let out = letters(&[a, b, c, d], "%i");
        assert_eq!(out, "4\n2\n3\n1\n");
    }

    #[test]
    fn sort_keys_and_direction() {
        let jobs = [
            job(3, JobState::Pending, 1),
            job(1, JobState::Pending, 1),
            job(2, JobState::Pending, 1),
        ];
        let asc = render_with(&jobs, Format::Letters("%i".into()), |v| {
            v.no_header = true;
            v.sort = Some("i".into());
        });
        assert_eq!(asc, "1\n2\n3\n");
        let desc = render_with(&jobs, Format::Letters("%i".into()), |v| {
            v.no_header = true;
            v.sort = Some("-i".into());
        });
        assert_eq!(desc, "3\n2\n1\n");
    }
}
