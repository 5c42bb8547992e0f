//! A deterministic fuzzer over the user-controlled format and time grammars: squeue `-o`,
//! `-O` and `-S`, sinfo `-o` and `-O`, sacct `-o`, SLURM_TIME_FORMAT and sacct's `-S`/`-E`
//! time parser. One million generated inputs in all (`BAI_FUZZ_MULT=N` draws N times as
//! many), biased toward each grammar (`%`, digits, `.`, `:`, `,`, field names) with some
//! noise. Every input is parsed; a share is also rendered against a few records.
//!
//! It checks that nothing panics and that no input makes the renderers allocate out of
//! proportion: a counting allocator measures the peak heap growth of each case, which
//! must stay under [`ALLOC_LIMIT`] (the widest output these short formats may ask for
//! is a few fields of [`MAX_WIDTH`] on a few rows).
//!
//! This binary holds a single test so that the allocator counts only its own thread.

mod fuzzgen;

use bai_slurm::format::common::Clock;
use bai_slurm::format::sacct::cell::Layout;
use bai_slurm::format::sacct::{self as sacct, Options};
use bai_slurm::format::sinfo::group::Build;
use bai_slurm::format::sinfo::{self as sinfo};
use bai_slurm::format::squeue::{self as squeue};
use bai_slurm::model::timestamp::format_time;
use bai_slurm::model::units::Convert;
use bai_slurm::model::{
    ArrayPart, JobRecord, JobState, NodeRecord, NodeState, PartitionRecord, StepId, StepRecord,
    TimeFormat, TimeLimit,
};
use bai_slurm::options::values::begin::parse_time;
use fuzzgen::formats::{
    SINFO_LETTERS, SINFO_NAMES, SQUEUE_LETTERS, SQUEUE_NAMES, letters_format, names_format,
    sacct_format, time_format,
};
use fuzzgen::{Rng, time_spec};
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Heap growth allowed for one case.
const ALLOC_LIMIT: usize = 64 << 20;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The largest growth any case caused (reported at the end).
static WORST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counters are
// plain atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as ours.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = CURRENT.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn jobs() -> Vec<JobRecord> {
    let base = JobRecord {
        job_id: 12,
        name: "job".into(),
        user: "alice".into(),
        uid: 1001,
        group: "alice".into(),
        gid: 1001,
        account: Some("research".into()),
        partition: "debug".into(),
        submit_time: 1_796_048_000,
        time_limit: TimeLimit::Minutes(60),
        num_nodes: 1,
        num_cpus: 2,
        num_tasks: Some(2),
        cpus_per_task: 1,
        command: "/bin/true".into(),
        work_dir: "/tmp".into(),
        cluster: "c".into(),
        ..Default::default()
    };
    let running = JobRecord {
        job_id: 13,
        array: Some(ArrayPart::Task {
            array_job_id: 11,
            task_id: 2,
        }),
        state: JobState::Running,
        start_time: Some(1_796_048_100),
        nodes: Some("node[01-02]".into()),
        steps: vec![
            StepRecord {
                step_id: StepId::Batch,
                name: "batch".into(),
                state: JobState::Running,
                start_time: Some(1_796_048_100),
                num_cpus: 2,
                num_tasks: 1,
                num_nodes: 1,
                nodes: "node01".into(),
                ..Default::default()
            },
            StepRecord {
                step_id: StepId::Numbered(0),
                name: "srun".into(),
                state: JobState::Completed,
                start_time: Some(1_796_048_110),
                end_time: Some(1_796_048_120),
                num_cpus: 2,
                num_tasks: 2,
                num_nodes: 2,
                nodes: "node[01-02]".into(),
                ..Default::default()
            },
        ],
        ..base.clone()
    };
    let pending = JobRecord {
        job_id: 11,
        array: Some(ArrayPart::Pending {
            array_job_id: 11,
            tasks: vec![0, 1, 3],
            throttle: Some(2),
        }),
        reason: "Resources".into(),
        ..base.clone()
    };
    let done = JobRecord {
        job_id: 10,
        state: JobState::Completed,
        start_time: Some(1_796_048_010),
        end_time: Some(1_796_048_050),
        nodes: Some("node01".into()),
        ..base
    };
    vec![running, pending, done]
}

fn partitions() -> Vec<PartitionRecord> {
    vec![PartitionRecord {
        name: "debug".into(),
        is_default: true,
        availability: "up".into(),
        max_time: TimeLimit::Infinite,
        nodes: vec!["node01".into(), "node02".into()],
        total_cpus: 4,
        ..Default::default()
    }]
}

fn nodes() -> Vec<NodeRecord> {
    ["node01", "node02"]
        .iter()
        .enumerate()
        .map(|(i, n)| NodeRecord {
            name: (*n).into(),
            hostname: (*n).into(),
            address: (*n).into(),
            state: if i == 0 {
                NodeState::Mixed
            } else {
                NodeState::Drained
            },
            cpus: 2,
            alloc_cpus: 1,
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            real_memory: 4000,
            partitions: vec!["debug".into()],
            reason: (i == 1).then(|| "down for tests".into()),
            ..Default::default()
        })
        .collect()
}

/// Runs one case, reporting its input if it panics or allocates out of proportion.
fn case(kind: &str, input: &str, f: impl FnOnce()) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        panic!("{kind}: panicked on input {input:?}");
    }
    let grew = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    WORST.fetch_max(grew, Ordering::Relaxed);
    assert!(
        grew <= ALLOC_LIMIT,
        "{kind}: input {input:?} allocated {grew} bytes"
    );
}

#[test]
fn format_and_time_grammars_never_panic_nor_blow_up() {
    let mult: usize = std::env::var("BAI_FUZZ_MULT")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(1);
    // SAFETY: this binary's only test; set before anything reads the time zone.
    unsafe { std::env::set_var("TZ", "UTC") };
    let started = std::time::Instant::now();
    let mut r = Rng::new(0x5eed_f00d_dead_beef);
    let (jobs, parts, nodes) = (jobs(), partitions(), nodes());
    let clock = Clock {
        now: 1_796_048_200,
        time_format: TimeFormat::Standard,
    };
    let mut total = 0usize;
    // One in RENDER cases is also rendered.
    const RENDER: usize = 16;

    for i in 0..200_000 * mult {
        let f = if r.chance(50) {
            squeue::Format::Letters(letters_format(&mut r, SQUEUE_LETTERS))
        } else {
            squeue::Format::Names(names_format(&mut r, SQUEUE_NAMES))
        };
        let steps = r.chance(20);
        let sort = r.chance(20).then(|| letters_format(&mut r, "+-,iPtuU"));
        case("squeue", &format!("{f:?} sort={sort:?}"), || {
            if steps {
                let _ = squeue::parse_step_format(&f);
            } else {
                let _ = squeue::parse_job_format(&f);
            }
            if i % RENDER == 0 {
                // Every other render under the 24.11 profile (its field deltas).
                let view = squeue::View {
                    format: f.clone(),
                    steps,
                    sort: sort.clone(),
                    profile: profile_of(i / RENDER),
                    ..Default::default()
                };
                let _ = squeue::render(&jobs, &parts, &view, &clock);
            }
        });
        total += 1;
    }

    for i in 0..200_000 * mult {
        let f = if r.chance(50) {
            sinfo::Format::Letters(letters_format(&mut r, SINFO_LETTERS))
        } else {
            sinfo::Format::Names(names_format(&mut r, SINFO_NAMES))
        };
        let node_view = r.chance(30);
        case("sinfo", &format!("{f:?}"), || {
            let _ = sinfo::parse_format(&f);
            if i % RENDER == 0 {
                let view = sinfo::View {
                    format: f.clone(),
                    no_header: false,
                    part_width_from_data: false,
                    node_width_from_data: false,
                    build: Build {
                        node_view,
                        ..Default::default()
                    },
                    sort: None,
                    convert: Convert::Exact,
                    cluster_name: None,
                };
                let _ = sinfo::render(&parts, &nodes, &view, &clock);
            }
        });
        total += 1;
    }

    for i in 0..200_000 * mult {
        let list = sacct_format(&mut r);
        let parsable = r.chance(30);
        case("sacct", &list, || {
            let Ok(columns) = sacct::spec::parse(&list) else {
                return;
            };
            if i % RENDER == 0 {
                let opts = Options {
                    columns,
                    layout: if parsable {
                        Layout::Parsable2 {
                            delimiter: "|".into(),
                        }
                    } else {
                        Layout::Fixed
                    },
                    header: true,
                    no_steps: false,
                    convert: Convert::Exact,
                    profile: profile_of(i / RENDER),
                    expand_patterns: (i / RENDER) % 4 == 1,
                    cond: sacct::select::JobCond {
                        start: 0,
                        end: i64::MAX,
                        ..Default::default()
                    },
                };
                let _ = sacct::render(&jobs, &opts, &clock);
            }
        });
        total += 1;
    }

    for _ in 0..200_000 * mult {
        let value = time_format(&mut r);
        let t = 1_796_048_000 + r.below(400 * 86400) as i64 - 200 * 86400;
        case("SLURM_TIME_FORMAT", &value, || {
            let (tf, _problem) = TimeFormat::from_env_value(Some(&value));
            let _ = format_time(Some(t), &tf, clock.now);
            let c = Clock {
                now: clock.now,
                time_format: tf,
            };
            let _ = c.time_str(Some(t), 32);
        });
        total += 1;
    }

    for _ in 0..200_000 * mult {
        let spec = time_spec(&mut r);
        let past = r.chance(50);
        case("sacct -S/-E", &spec, || {
            let _ = parse_time(&spec, clock.now, past);
        });
        total += 1;
    }

    assert_eq!(total, 1_000_000 * mult);
    println!(
        "fuzz_formats: {total} cases in {:.1} s; largest heap growth of one case {} KiB",
        started.elapsed().as_secs_f64(),
        WORST.load(Ordering::Relaxed) >> 10
    );
}

/// The default profile, and every other time 24.11's.
fn profile_of(i: usize) -> &'static bai_slurm::model::profile::Profile {
    use bai_slurm::model::profile::SlurmVersion;
    if i.is_multiple_of(2) {
        SlurmVersion::V22_05.profile()
    } else {
        SlurmVersion::V24_11.profile()
    }
}
