//! Rendering throughput: squeue (default format and a wide `-o`) over N jobs, sacct
//! (default fields and `-l`) over N job records with their steps. For each N (10,000 and
//! 100,000 by default; give others as arguments) it prints the best of a few runs and the
//! time per 10,000 output rows, so linear scaling shows as equal per-10k figures.
//!
//! `cargo bench --bench render [-- N...]`, or `scripts/bench.sh`.

use bai_slurm::format::common::Clock;
use bai_slurm::format::sacct::cell::Layout;
use bai_slurm::format::sacct::select::JobCond;
use bai_slurm::format::sacct::spec::{self as sacct_spec, DEFAULT_FIELDS, LONG_FIELDS};
use bai_slurm::format::sacct::{self, Options};
use bai_slurm::format::squeue::{self, Format, View};
use bai_slurm::model::units::Convert;
use bai_slurm::model::{
    ArrayPart, ExitStatus, JobRecord, JobState, MemoryRequest, PartitionRecord, StepId, StepRecord,
    TimeFormat, TimeLimit,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A wide `-o`: most job letters, with widths.
const WIDE: &str = "%.18i %.9P %.30j %.8u %.8g %.2t %.10M %.10l %.6D %.4C %20R %a %b %B %c %d %e %E %f %h %H %I %J %k %L %m %n %o %p %Q %q %r %S %T %V %w %W %y %Z";

const NOW: i64 = 1_796_048_340;

/// What is measured, in this order.
const CASES: [&str; 4] = [
    "squeue (default)",
    "squeue -o <wide>",
    "sacct (default)",
    "sacct -l",
];

/// N synthetic jobs: most pending or running, some finished, every 50th an array.
fn jobs(n: usize) -> Vec<JobRecord> {
    (0..n)
        .map(|i| {
            let id = 1000 + i as u32;
            let state = match i % 10 {
                0..=3 => JobState::Pending,
                4..=7 => JobState::Running,
                8 => JobState::Completed,
                _ => JobState::Failed,
            };
            let started = state != JobState::Pending;
            let submit = NOW - 86_400 + (i as i64 % 80_000);
            let node = format!("node{:04}", i % 500);
            let array = (i % 50 == 0).then(|| {
                if started {
                    ArrayPart::Task {
                        array_job_id: id,
                        task_id: (i % 7) as u32,
                    }
                } else {
                    ArrayPart::Pending {
                        array_job_id: id,
                        tasks: (0..16).collect(),
                        throttle: Some(4),
                    }
                }
            });
            let steps = if started {
                let end = (state != JobState::Running).then_some(submit + 700);
                vec![
                    StepRecord {
                        step_id: StepId::Batch,
                        name: "batch".into(),
                        state,
                        exit_code: ExitStatus::OK,
                        start_time: Some(submit + 60),
                        end_time: end,
                        num_cpus: 4,
                        num_tasks: 1,
                        num_nodes: 1,
                        nodes: node.clone(),
                        ..Default::default()
                    },
                    StepRecord {
                        step_id: StepId::Numbered(0),
                        name: "python".into(),
                        state,
                        start_time: Some(submit + 61),
                        end_time: end,
                        num_cpus: 4,
                        num_tasks: 4,
                        num_nodes: 1,
                        nodes: node.clone(),
                        ..Default::default()
                    },
                ]
            } else {
                Vec::new()
            };
            JobRecord {
                job_id: id,
                array,
                name: format!("train_{}", i % 997),
                user: format!("user{:03}", i % 300),
                uid: 2000 + (i % 300) as u32,
                group: "hpc".into(),
                gid: 100,
                account: Some(format!("proj{}", i % 40)),
                partition: ["batch", "gpu", "debug"][i % 3].into(),
                qos: Some("normal".into()),
                state,
                reason: if started { "None" } else { "Priority" }.into(),
                priority: 4_294_901_759 - i as u32,
                submit_time: submit,
                eligible_time: Some(submit),
                start_time: started.then_some(submit + 60),
                end_time: match state {
                    JobState::Pending => None,
                    JobState::Running => Some(submit + 3660),
                    _ => Some(submit + 700),
                },
                time_limit: TimeLimit::Minutes(60),
                num_nodes: 1,
                num_cpus: 4,
                num_tasks: Some(4),
                cpus_per_task: 1,
                memory: MemoryRequest::PerCpu(2048),
                nodes: started.then(|| node.clone()),
                batch_host: started.then_some(node),
                command: "/home/u/run.sh".into(),
                work_dir: "/home/u".into(),
                exit_code: if state == JobState::Failed {
                    ExitStatus::code(1)
                } else {
                    ExitStatus::OK
                },
                batch: true,
                cluster: "cluster".into(),
                steps,
                ..Default::default()
            }
        })
        .collect()
}

fn partitions() -> Vec<PartitionRecord> {
    ["batch", "gpu", "debug"]
        .iter()
        .map(|p| PartitionRecord {
            name: (*p).into(),
            availability: "up".into(),
            max_time: TimeLimit::Infinite,
            ..Default::default()
        })
        .collect()
}

/// Best of `runs` timings of `f`, with the number of output rows it produced.
fn measure(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut rows = 0;
    for _ in 0..runs {
        let t = Instant::now();
        rows = black_box(f());
        best = best.min(t.elapsed());
    }
    (best, rows)
}

fn lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

fn main() {
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    if sizes.is_empty() {
        sizes = vec![10_000, 100_000];
    }
    // SAFETY: single-threaded, before any time is formatted.
    unsafe { std::env::set_var("TZ", "UTC") };
    let clock = Clock {
        now: NOW,
        time_format: TimeFormat::Standard,
    };
    let parts = partitions();
    // (case, N, ms per 10k rows) for the scaling summary.
    let mut per_10k: Vec<(&str, usize, f64)> = Vec::new();
    println!(
        "{:<22} {:>8} {:>9} {:>12} {:>14}",
        "case", "jobs", "rows", "best (ms)", "ms / 10k rows"
    );
    for &n in &sizes {
        let records = jobs(n);
        let runs = if n <= 20_000 { 5 } else { 3 };
        // BENCH_CASE=squeue (or sacct, -l, ...) runs only the cases whose name has it.
        let only = std::env::var("BENCH_CASE").unwrap_or_default();
        let skip = |name: &str| !name.contains(only.as_str());
        let squeue_case = |format: Format| {
            let view = View {
                format,
                ..Default::default()
            };
            measure(runs, || {
                let r = squeue::render(&records, &parts, &view, &clock);
                lines(&r.out) - 1
            })
        };
        let sacct_case = |fields: &str| {
            let opts = Options {
                columns: sacct_spec::parse(fields).expect("fields"),
                layout: Layout::Fixed,
                header: true,
                no_steps: false,
                convert: Convert::Exact,
                cond: JobCond {
                    start: 0,
                    end: i64::MAX,
                    ..Default::default()
                },
                profile: Default::default(),
                expand_patterns: false,
            };
            measure(runs, || lines(&sacct::render(&records, &opts, &clock)) - 2)
        };
        for name in CASES.into_iter().filter(|name| !skip(name)) {
            let (best, rows) = match name {
                "squeue (default)" => squeue_case(Format::Names(squeue::DEFAULT_JOB_FORMAT.into())),
                "squeue -o <wide>" => squeue_case(Format::Letters(WIDE.into())),
                "sacct (default)" => sacct_case(DEFAULT_FIELDS),
                _ => sacct_case(LONG_FIELDS),
            };
            let ms = best.as_secs_f64() * 1e3;
            let unit = ms * 10_000.0 / rows.max(1) as f64;
            println!("{name:<22} {n:>8} {rows:>9} {ms:>12.1} {unit:>14.2}");
            per_10k.push((name, n, unit));
        }
    }
    if sizes.len() > 1 {
        let (lo, hi) = (sizes[0], sizes[sizes.len() - 1]);
        println!("\nscaling: time per 10k rows at N={hi} divided by that at N={lo} (1.0 = linear)");
        for name in CASES {
            let at = |n: usize| {
                per_10k
                    .iter()
                    .find(|(c, m, _)| *c == name && *m == n)
                    .map_or(f64::NAN, |(_, _, u)| *u)
            };
            println!("{name:<22} {:>6.2}", at(hi) / at(lo));
        }
    }
}
