//! A deterministic fuzzer over everything that reads what users type into sbatch, srun and
//! salloc: the `#SBATCH` directive lexer, every value parser of `options::values`
//! (array, begin/deadline, dependency, distribution, duration, export, gres/gpus, hint,
//! int, mail-type, memory, nodes, open-mode, signal; the C number rules of `cnum` through
//! them), the hostlist parser, and whole command lines through sbatch's, srun's and
//! salloc's parsers (random argv drawn from the option table, long names exact and
//! abbreviated, short letters and clusters, attached and separate values; random input
//! variables; for sbatch a random script on stdin). One million generated inputs in all
//! (`BAI_FUZZ_MULT=N` draws N times as many, `BAI_FUZZ_SEED=N` another stream of them),
//! each biased toward its grammar with noise (NULs, CR, quotes, backslashes, huge and
//! negative numbers, non-ASCII).
//!
//! Every input must be handled without a panic and within [`SLOW`]; a watchdog thread
//! aborts the run, naming the input, if one case makes no progress for [`HANG`]. Where a
//! parser has a printing counterpart, a share of the cases checks the round trip Slurm
//! relies on (hostlist compress/expand, durations and time limits as sacct and squeue
//! print them, array ranges, dependencies as squeue `%E` shows them, SLURM_DISTRIBUTION,
//! signals, mail types, memory sizes, node counts, GRES strings, quoted `#SBATCH` words).
//!
//! Run time: about 30 s for the million in a debug build on a 2-CPU machine shared with
//! other work; a summary line prints the count and the time of each part, and how many
//! command lines got as far as a job (a share of them is drawn clean for that).

mod fuzzgen;

use bai_slurm::model::array::ranges;
use bai_slurm::model::hostlist::{compress, compress_ordered, expand};
use bai_slurm::model::time_limit::{Duration, time_str2mins, time_str2secs};
use bai_slurm::model::time_limit::{long_duration, long_limit, squeue_duration};
use bai_slurm::model::{DepItem, DepKind, DepStatus, DepTarget, TimeLimit};
use bai_slurm::options::directives::{self, Notice, SBATCH};
use bai_slurm::options::table::{self, Opt};
use bai_slurm::options::values::array::{ArrayLimits, parse_array};
use bai_slurm::options::values::begin::{parse_begin, parse_deadline, parse_time, parse_time_tz};
use bai_slurm::options::values::dependency::{
    DependencyLimits, parse_dependency, render_remaining,
};
use bai_slurm::options::values::distribution::{
    DistBase, DistLevel, Distribution, Pack, parse_distribution,
};
use bai_slurm::options::values::duration::{parse_seconds, parse_time_limit};
use bai_slurm::options::values::export::{ExportItem, ExportSpec, job_environment, parse_export};
use bai_slurm::options::values::gres::{GresCount, GresItem, GresSpec, parse_gpus, parse_gres};
use bai_slurm::options::values::hint::{Hint, HintRequest, parse_hint};
use bai_slurm::options::values::int::parse_int;
use bai_slurm::options::values::mail_type::{MailType, mail_type_bits, parse_mail_type};
use bai_slurm::options::values::memory::{mbytes_to_str, parse_mbytes, str_to_mbytes};
use bai_slurm::options::values::nodes::{NodeCount, parse_node_count};
use bai_slurm::options::values::open_mode::{OpenMode, parse_open_mode};
use bai_slurm::options::values::signal::{
    SignalSpec, parse_signal_opts, sig_name2num, sig_num2name,
};
use bai_slurm::options::{salloc, sbatch, srun};
use fuzzgen::options::{
    HINTS, argv, array_value, bounded_duration, clean_env, clean_options, dependency_value,
    distribution_value, duration_value, env_vars, export_value, generic_value, gpus_value,
    gres_value, hint_value, host_list, host_name, int_value, mail_value, memory_value, nodes_value,
    open_mode_value, option_words, quote_word, script, signal_value,
};
use fuzzgen::{Rng, num, time_spec};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{Debug, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration as StdDuration, Instant};

/// Longest one case may take before it counts as a hang (debug build, busy machine).
const SLOW: StdDuration = StdDuration::from_secs(2);
/// How long the watchdog waits for a case that never returns before aborting the run.
const HANG: StdDuration = StdDuration::from_secs(30);

/// Cases started so far (the watchdog's sign of progress).
static SEQ: AtomicU64 = AtomicU64::new(0);
/// The input of the case running now, for the watchdog's report.
static CURRENT: Mutex<String> = Mutex::new(String::new());
static DONE: AtomicBool = AtomicBool::new(false);

/// Aborts the process, naming the input, when a case makes no progress for [`HANG`].
fn watchdog() {
    std::thread::spawn(|| {
        let mut last = u64::MAX;
        let mut since = Instant::now();
        while !DONE.load(Ordering::Relaxed) {
            std::thread::sleep(StdDuration::from_millis(250));
            let seq = SEQ.load(Ordering::Relaxed);
            if seq != last {
                last = seq;
                since = Instant::now();
            } else if since.elapsed() > HANG {
                let input = CURRENT.lock().map(|c| c.clone()).unwrap_or_default();
                eprintln!("fuzz_options: no progress for {HANG:?}; hung on {input}");
                std::process::abort();
            }
        }
    });
}

/// One part of the run: its name, how many cases ran and the slowest of them.
struct Part {
    name: &'static str,
    cases: usize,
    started: Instant,
    slowest: StdDuration,
    /// Anything else worth reporting about the part.
    note: String,
}

impl Part {
    fn new(name: &'static str) -> Self {
        Part {
            name,
            cases: 0,
            started: Instant::now(),
            slowest: StdDuration::ZERO,
            note: String::new(),
        }
    }

    /// Runs one case, reporting its input if it panics (a failed round trip included)
    /// or takes longer than [`SLOW`].
    fn case<I: Debug + ?Sized>(&mut self, input: &I, f: impl FnOnce()) {
        if let Ok(mut c) = CURRENT.lock() {
            c.clear();
            let _ = write!(c, "{}: {input:?}", self.name);
        }
        SEQ.fetch_add(1, Ordering::Relaxed);
        let t = Instant::now();
        if catch_unwind(AssertUnwindSafe(f)).is_err() {
            panic!("{}: failed on input {input:?}", self.name);
        }
        let took = t.elapsed();
        assert!(
            took <= SLOW,
            "{}: {took:?} (over {SLOW:?}) on input {input:?}",
            self.name
        );
        self.slowest = self.slowest.max(took);
        self.cases += 1;
    }

    fn summary(&self) -> String {
        format!(
            "{} {} in {:.1} s (slowest {:.1} ms){}",
            self.name,
            self.cases,
            self.started.elapsed().as_secs_f64(),
            self.slowest.as_secs_f64() * 1000.0,
            self.note
        )
    }
}

/// What a command that stops must look like: whole lines, and a status it can end with.
fn check_exit(stdout: &str, stderr: &str, code: i32, env: &BTreeMap<String, String>) {
    let error_exit = env
        .get("SLURM_EXIT_ERROR")
        .and_then(|v| v.trim().parse::<i32>().ok())
        .unwrap_or(1);
    assert!(
        [0, 1, 255, error_exit].contains(&code),
        "exit status {code}: {stderr}"
    );
    assert!(stdout.is_empty() || stdout.ends_with('\n'), "{stdout:?}");
    assert!(stderr.is_empty() || stderr.ends_with('\n'), "{stderr:?}");
    assert!(code != 0 || stderr.is_empty(), "exit 0 with {stderr:?}");
}

// ---------------------------------------------------------------------------------------
// The parts.

/// 2025-03-15T10:30:20Z.
const NOW: i64 = 1_742_034_620;

fn fuzz_directives(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("directives");
    let sbatch_opts: Vec<&'static Opt> = table::for_command(table::SBATCH).collect();
    for _ in 0..n {
        if r.chance(25) {
            // Round trip: words quoted onto #SBATCH/#SLURM lines come back unchanged.
            let mut text = String::from("#!/bin/bash\n");
            let mut expected: Vec<String> = Vec::new();
            let mut lines: Vec<usize> = Vec::new();
            let mut legacy = false;
            // The shebang is line 1.
            for lineno in 2..2 + r.below(6) {
                match r.below(5) {
                    0 => {
                        text.push_str(r.pick(&["# note", "", "  ", "\t#x", "#SBATCH", "#SBATCH #"]))
                    }
                    _ => {
                        let magic = r.pick(&["#SBATCH", "#SBATCH", "#SLURM"]);
                        legacy |= magic == "#SLURM";
                        text.push_str(magic);
                        let words: Vec<String> = (0..=r.below(4))
                            .map(|_| {
                                if r.chance(50) {
                                    option_words(r, &sbatch_opts).concat()
                                } else {
                                    generic_value(r)
                                }
                            })
                            // A line cannot hold these; an empty word would end it.
                            .map(|w| w.replace(['\n', '\0'], ""))
                            .filter(|w| !w.is_empty())
                            .collect();
                        for w in &words {
                            text.push_str(r.pick(&[" ", "\t", "  "]));
                            text.push_str(&quote_word(r, w));
                        }
                        if r.chance(20) {
                            text.push_str(r.pick(&[" # trailing", " #", "\t"]));
                        }
                        if !words.is_empty() {
                            lines.push(lineno);
                        }
                        expected.extend(words);
                    }
                }
                text.push_str(r.pick(&["\n", "\n", "\r\n"]));
            }
            p.case(&text, || {
                let scan = directives::scan(text.as_bytes(), "job.sh", &SBATCH)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(scan.args(), expected);
                let got: Vec<usize> = scan.directives.iter().map(|d| d.line).collect();
                assert_eq!(got, lines);
                assert_eq!(
                    scan.notices.iter().any(|n| matches!(n, Notice::Error(_))),
                    legacy
                );
                assert!(!scan.more_components);
            });
            continue;
        }
        let words = |r: &mut Rng| -> String {
            if r.chance(50) {
                option_words(r, &sbatch_opts).concat()
            } else {
                generic_value(r)
            }
        };
        let text = script(r, &mut { words });
        p.case(&text.escape_ascii().to_string(), || {
            let total_lines = text.split(|&c| c == b'\n').count();
            for component in 0..8 {
                let Ok(scan) = directives::scan_component(&text, "job.sh", &SBATCH, component)
                else {
                    break;
                };
                let mut last = 0;
                for d in &scan.directives {
                    assert!(d.line > last && d.line <= total_lines, "line {}", d.line);
                    last = d.line;
                    assert!(!d.args.is_empty());
                    for a in &d.args {
                        assert!(!a.is_empty() && !a.contains('\n'), "{a:?}");
                    }
                }
                if !scan.more_components {
                    break;
                }
            }
        });
    }
    p
}

fn fuzz_array(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("array");
    for _ in 0..n {
        let limits = ArrayLimits {
            max_array_size: [1001, 1001, 1001, 0, 1, 10, 40000][r.below(7)],
            max_array_tasks: [None, None, Some(0), Some(5), Some(2000)][r.below(5)],
        };
        match r.below(4) {
            0 => {
                // Round trip: task ids printed as squeue prints them, with a throttle.
                let max = r.range(1, 1000);
                let mut tasks: Vec<u32> =
                    (0..=r.below(12)).map(|_| r.range(0, max) as u32).collect();
                if r.chance(50) {
                    let a = r.range(0, max) as u32;
                    tasks.extend(a..=(a + r.below(20) as u32).min(max as u32));
                }
                let throttle = r.chance(40).then(|| r.range(1, 50) as u32);
                let mut s = ranges(&tasks);
                if let Some(t) = throttle {
                    s.push_str(&format!("%{t}"));
                }
                tasks.sort_unstable();
                tasks.dedup();
                p.case(&s, || {
                    let spec = parse_array(&s, ArrayLimits::default()).unwrap().unwrap();
                    assert_eq!(spec.tasks, tasks);
                    assert_eq!(spec.throttle, throttle);
                    assert_eq!(spec.step, 1);
                });
            }
            1 => {
                // A-B:S is every S-th index from A up to B.
                let a = r.range(0, 999);
                let b = r.range(a, 1000);
                let step = r.range(1, 1000);
                let s = format!("{a}-{b}:{step}");
                p.case(&s, || {
                    let spec = parse_array(&s, ArrayLimits::default()).unwrap().unwrap();
                    let want: Vec<u32> = (a..=b).step_by(step as usize).map(|i| i as u32).collect();
                    assert_eq!(spec.tasks, want);
                    assert_eq!(spec.step, step as i32);
                });
            }
            _ => {
                let s = array_value(r);
                p.case(&(&s, limits), || {
                    if let Ok(Some(spec)) = parse_array(&s, limits) {
                        assert!(!spec.tasks.is_empty());
                        assert!(spec.tasks.windows(2).all(|w| w[0] < w[1]));
                        assert!(spec.max() < limits.max_array_size);
                        assert_eq!(spec.count(), spec.tasks.len());
                    }
                });
            }
        }
    }
    p
}

fn fuzz_begin(r: &mut Rng, n: usize) -> Part {
    use chrono::{TimeZone, Utc};
    let mut p = Part::new("begin");
    for _ in 0..n {
        if r.chance(15) {
            // Round trip: a full date and time, and `uts<seconds>`, name that instant.
            let mut t = r.range(0, 4_102_444_800) as i64; // 1970 .. 2100
            let s = if r.chance(50) {
                let dt = Utc.timestamp_opt(t, 0).unwrap();
                dt.format("%Y-%m-%dT%H:%M:%S").to_string()
            } else {
                t = t.max(1_000_000);
                format!("uts{t}")
            };
            p.case(&s, || {
                assert_eq!(parse_time_tz(&s, NOW, false, &Utc), Ok(t))
            });
            continue;
        }
        let s = time_spec(r);
        let now = NOW + r.below(400 * 86400) as i64 - 200 * 86400;
        p.case(&s, || {
            let _ = parse_begin(&s, now);
            let _ = parse_deadline(&s, now);
            let _ = parse_time(&s, now, true);
        });
    }
    p
}

fn fuzz_dependency(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("dependency");
    let kinds = [
        DepKind::After,
        DepKind::AfterAny,
        DepKind::AfterOk,
        DepKind::AfterNotOk,
        DepKind::AfterCorr,
        DepKind::AfterBurstBuffer,
        DepKind::Expand,
        DepKind::Singleton,
    ];
    for _ in 0..n {
        if r.chance(20) {
            // Round trip: what squeue %E shows reads back as the same dependency.
            let mut items: Vec<DepItem> = Vec::new();
            for _ in 0..=r.below(4) {
                let kind = kinds[r.below(kinds.len())];
                let target = (kind != DepKind::Singleton).then(|| {
                    let job = r.range(1, u64::from(u32::MAX)) as u32;
                    match r.below(3) {
                        0 => DepTarget::Job(job),
                        1 => DepTarget::Task(job, r.range(0, u64::from(u32::MAX) - 2) as u32),
                        _ => DepTarget::WholeArray(job),
                    }
                });
                let item = DepItem {
                    kind,
                    target,
                    delay_minutes: if target.is_some() && r.chance(30) {
                        r.range(1, 100_000) as u32
                    } else {
                        0
                    },
                    status: if r.chance(30) {
                        DepStatus::Failed
                    } else {
                        DepStatus::Unfulfilled
                    },
                };
                if !items
                    .iter()
                    .any(|i| i.kind == item.kind && i.target == item.target)
                {
                    items.push(item);
                }
            }
            let any = items.len() > 1 && r.chance(40);
            let s = render_remaining(items.iter().map(|i| (i, i.status)), any)
                .expect("no item is fulfilled");
            p.case(&s, || {
                let limits = DependencyLimits {
                    max_array_size: 1001,
                    permit_job_expansion: true,
                };
                let dep = parse_dependency(&s, limits).unwrap();
                assert_eq!(dep.items, items);
                assert_eq!(dep.any, any);
            });
            continue;
        }
        let s = dependency_value(r);
        let limits = DependencyLimits {
            max_array_size: [1001, 1001, 0, 5, 100_000][r.below(5)],
            permit_job_expansion: r.chance(50),
        };
        p.case(&s, || {
            if let Ok(dep) = parse_dependency(&s, limits) {
                let _ = dep.display_remaining();
            }
        });
    }
    p
}

fn fuzz_distribution(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("distribution");
    for _ in 0..n {
        if r.chance(25) {
            // Round trip: SLURM_DISTRIBUTION (and the --verbose echo of a plane size) reads
            // back as the same distribution, as srun in the job reads it.
            let levels = [DistLevel::Block, DistLevel::Cyclic, DistLevel::FCyclic];
            let dist = match r.below(6) {
                0 => Distribution {
                    base: DistBase::Plane(r.range(1, i32::MAX as u64) as u32),
                    pack: None,
                },
                1 => Distribution {
                    base: DistBase::Default,
                    pack: Some(if r.chance(50) {
                        Pack::Pack
                    } else {
                        Pack::NoPack
                    }),
                },
                2 => Distribution {
                    base: DistBase::Arbitrary,
                    pack: None,
                },
                _ => {
                    let mut l = vec![levels[r.below(2)]];
                    for _ in 0..r.below(3) {
                        l.push(levels[r.below(3)]);
                    }
                    Distribution {
                        base: DistBase::Levels(l),
                        pack: [None, Some(Pack::Pack), Some(Pack::NoPack)][r.below(3)],
                    }
                }
            };
            let s = dist.verbose_echo().unwrap();
            p.case(&s, || {
                assert_eq!(parse_distribution(&s, None), Ok(dist.clone()));
            });
            continue;
        }
        let s = distribution_value(r);
        let env = r.chance(20).then(|| num(r));
        p.case(&(&s, &env), || {
            if let Ok(d) = parse_distribution(&s, env.as_deref()) {
                let _ = (d.base_name(), d.env_value(), d.verbose_echo());
            }
        });
    }
    p
}

fn fuzz_duration(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("duration");
    for _ in 0..n {
        match r.below(8) {
            0 => {
                // Round trip: durations as sacct/scontrol and squeue print them.
                let secs = if r.chance(50) {
                    r.range(0, i32::MAX as u64) as i64
                } else {
                    r.range(0, 365 * 86400) as i64
                };
                let long = long_duration(secs);
                let short = squeue_duration(secs);
                p.case(&(&long, &short), || {
                    assert_eq!(time_str2secs(&long), Some(Duration::Value(secs as i32)));
                    if secs <= 365 * 86400 {
                        assert_eq!(time_str2secs(&short), Some(Duration::Value(secs as i32)));
                    }
                });
            }
            1 => {
                // Round trip: a time limit as sacct/scontrol print it reads back as --time.
                let limit = if r.chance(10) {
                    TimeLimit::Infinite
                } else {
                    TimeLimit::Minutes(r.range(1, i32::MAX as u64 / 60) as u32)
                };
                let s = long_limit(limit);
                p.case(&s, || {
                    assert_eq!(parse_time_limit(&s, "--time"), Ok(limit));
                });
            }
            2 => {
                // --time and the backends' partition limits read a limit with the same
                // Slurm function (time_str2mins): the same values as the same minutes.
                let s = bounded_duration(r);
                p.case(&s, || {
                    let slurm = match time_str2mins(&s) {
                        Some(Duration::Infinite) | Some(Duration::Value(0)) => {
                            Some(TimeLimit::Infinite)
                        }
                        Some(Duration::Value(m)) => Some(TimeLimit::Minutes(m as u32)),
                        None => None,
                    };
                    assert_eq!(TimeLimit::parse(&s), slurm);
                    assert_eq!(parse_time_limit(&s, "--time").ok(), slurm);
                });
            }
            _ => {
                let s = duration_value(r);
                p.case(&s, || {
                    let secs = time_str2secs(&s);
                    let mins = time_str2mins(&s);
                    assert!(secs.is_some() || mins.is_none());
                    let _ = parse_time_limit(&s, "--time");
                    let _ = parse_seconds(&s, "--delay-boot");
                    let _ = TimeLimit::parse(&s);
                });
            }
        }
    }
    p
}

fn fuzz_export(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("export");
    let mut submit = BTreeMap::new();
    for (k, v) in [
        ("PATH", "/usr/bin"),
        ("HOME", "/home/u"),
        ("SLURM_X", "1"),
        ("A", "a"),
        ("NIL", "nil"),
    ] {
        submit.insert(k.to_string(), v.to_string());
    }
    for _ in 0..n {
        if r.chance(25) {
            // Round trip: a list of names and assignments (values with commas in quotes).
            let mut items = Vec::new();
            let mut parts = Vec::new();
            for _ in 0..=r.below(4) {
                let mut name: String = "ABCXYZ_"
                    .chars()
                    .nth(r.below(7))
                    .into_iter()
                    .chain((0..r.below(6)).map(|_| "ABZ09_".chars().nth(r.below(6)).unwrap_or('A')))
                    .collect();
                if ["ALL", "NONE"].iter().any(|w| name.eq_ignore_ascii_case(w)) {
                    name.push('1');
                }
                if r.chance(40) {
                    parts.push(name.clone());
                    items.push(ExportItem::Name(name));
                } else {
                    let value: String = (0..r.below(8))
                        .map(|_| "ab1/:.= ,".chars().nth(r.below(9)).unwrap_or('a'))
                        .collect();
                    let token = format!("{name}={value}");
                    parts.push(if value.contains(',') || r.chance(10) {
                        let q = if r.chance(50) { '\'' } else { '"' };
                        format!("{q}{token}{q}")
                    } else {
                        token
                    });
                    items.push(ExportItem::Set(name, value));
                }
            }
            let s = parts.join(",");
            p.case(&s, || {
                assert_eq!(
                    parse_export(&s),
                    ExportSpec::List {
                        items,
                        warnings: Vec::new()
                    }
                );
            });
            continue;
        }
        let s = export_value(r);
        let user_env = r.chance(30);
        p.case(&s, || {
            let spec = parse_export(&s);
            let _ = spec.sets_export_env();
            let env = job_environment(Some(&spec), &submit, user_env);
            // Every SLURM_* variable of the submit environment passes every filter.
            assert_eq!(env.get("SLURM_X").map(String::as_str), Some("1"));
        });
    }
    p
}

fn fuzz_gres(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("gres");
    let known: &[&str] = &["gpu", "mps", "shard"];
    for _ in 0..n {
        if r.chance(20) {
            // Round trip: GRES items as the TRES strings print them read back the same.
            // Whole counts are Slurm's; fractions are our extension (cuda.shares).
            let gpus_only = r.chance(40);
            let items: Vec<GresItem> = (0..=r.below(3))
                .map(|_| GresItem {
                    name: if gpus_only {
                        "gpu".into()
                    } else {
                        r.pick(&["gpu", "mps", "shard", "nic", "fpga_x"]).into()
                    },
                    gres_type: r
                        .chance(50)
                        .then(|| r.pick(&["a100", "tesla", "h100", "rtx_6000", "l4"]).into()),
                    count: if r.chance(20) {
                        let micro = r.range(1, 999_999 * 1_000_000);
                        if micro.is_multiple_of(1_000_000) {
                            GresCount::Whole(micro / 1_000_000)
                        } else {
                            GresCount::Fraction(micro)
                        }
                    } else if r.chance(10) {
                        GresCount::Whole(r.range(1, u64::MAX - 1))
                    } else {
                        GresCount::Whole(r.range(1, 64))
                    },
                })
                .collect();
            let full: Vec<String> = items.iter().map(ToString::to_string).collect();
            let s = if gpus_only {
                full.iter()
                    .map(|i| i.trim_start_matches("gpu:").to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            } else {
                full.join(",")
            };
            p.case(&s, || {
                if gpus_only {
                    assert_eq!(parse_gpus(&s, Some(known)), Ok(items));
                } else {
                    assert_eq!(parse_gres(&s, None), Ok(GresSpec::Items(items)));
                }
            });
            continue;
        }
        let gpus = r.chance(40);
        let s = if gpus { gpus_value(r) } else { gres_value(r) };
        let k = r.chance(50).then_some(known);
        p.case(&s, || {
            if gpus {
                let _ = parse_gpus(&s, k);
            } else if let Ok(GresSpec::Items(items)) = parse_gres(&s, k) {
                for i in items {
                    let _ = (i.to_string(), i.count.as_f64(), i.count.is_fractional());
                }
            }
        });
    }
    p
}

fn fuzz_hint(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("hint");
    let all = [
        Hint::ComputeBound,
        Hint::MemoryBound,
        Hint::Multithread,
        Hint::NoMultithread,
    ];
    for _ in 0..n {
        if r.chance(20) {
            let picks: Vec<usize> = (0..=r.below(4)).map(|_| r.below(4)).collect();
            let s = picks
                .iter()
                .map(|&i| {
                    if r.chance(30) {
                        HINTS[i].to_uppercase()
                    } else {
                        HINTS[i].to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",");
            let want: Vec<Hint> = picks.iter().map(|&i| all[i]).collect();
            p.case(&s, || {
                assert_eq!(parse_hint(&s), Ok(HintRequest::Hints(want)));
            });
            continue;
        }
        let s = hint_value(r);
        p.case(&s, || {
            let _ = parse_hint(&s);
        });
    }
    p
}

fn fuzz_int(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("int");
    for _ in 0..n {
        if r.chance(20) {
            // strtol's forms of a positive int: blanks, a plus sign, leading zeros.
            let v = r.range(1, i32::MAX as u64) as i32;
            let s = format!(
                "{}{}{v}",
                r.pick(&["", "", " ", "\t", "  "]),
                r.pick(&["", "", "+", "0", "00"])
            );
            p.case(&s, || {
                assert_eq!(parse_int("--ntasks", &s, true), Ok(v));
                assert_eq!(parse_int("--ntasks", &s, false), Ok(v));
            });
            continue;
        }
        let s = int_value(r);
        p.case(&s, || {
            let a = parse_int("--ntasks", &s, true);
            let b = parse_int("--core-spec", &s, false);
            if let Ok(v) = a {
                assert_eq!(b, Ok(v));
            }
        });
    }
    p
}

fn fuzz_mail_type(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("mail-type");
    for _ in 0..n {
        if r.chance(25) {
            // Round trip: print_mail_type's text reads back as the same flags.
            let bits = MailType(r.below(1 << 11) as u16);
            let s = bits.display();
            p.case(&s, || assert_eq!(mail_type_bits(&s), Some(bits)));
            continue;
        }
        let s = mail_value(r);
        p.case(&s, || {
            if let Ok(m) = parse_mail_type(&s) {
                let again = mail_type_bits(&m.display());
                assert_eq!(again, Some(m), "{}", m.display());
            }
        });
    }
    p
}

fn fuzz_memory(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("memory");
    for _ in 0..n {
        match r.below(5) {
            0 => {
                // Round trip: mbytes_to_str reads back, except where it prints P or `?`,
                // which str_to_mbytes does not take (in Slurm neither).
                let mb = loop {
                    let mb = match r.below(4) {
                        0 => r.range(1, 1 << 20) * 1024,
                        1 => r.range(1, 1 << 10) << 20,
                        _ => r.range(1, 1 << 40),
                    };
                    if mb % (1 << 30) != 0 {
                        break mb;
                    }
                };
                let s = mbytes_to_str(mb);
                p.case(&s, || assert_eq!(str_to_mbytes(&s), Some(mb)));
            }
            1 => {
                // Every suffix is its multiple of a megabyte; kilobytes round up.
                let v = r.range(0, 1 << 40);
                let unit = r.below(4);
                let suffix = ["K", "M", "G", "T"][unit];
                let s = format!(
                    "{v}{}{}",
                    if r.chance(50) {
                        suffix.to_lowercase()
                    } else {
                        suffix.into()
                    },
                    r.pick(&["", "B", "b"])
                );
                let want = match unit {
                    0 => v.div_ceil(1024),
                    1 => v,
                    2 => v * 1024,
                    _ => v * 1024 * 1024,
                };
                p.case(&s, || assert_eq!(str_to_mbytes(&s), Some(want)));
            }
            _ => {
                let s = memory_value(r);
                p.case(&s, || {
                    let _ = parse_mbytes(&s, "--mem");
                    if let Some(mb) = str_to_mbytes(&s) {
                        let _ = mbytes_to_str(mb);
                    }
                });
            }
        }
    }
    p
}

fn fuzz_nodes(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("nodes");
    for _ in 0..n {
        if r.chance(20) {
            // Round trip: the --verbose echo of a node count reads back the same.
            let min = r.range(0, i32::MAX as u64) as i32;
            let max = match r.below(3) {
                0 => min,
                1 => r.range(min as u64, i32::MAX as u64) as i32,
                _ => 0,
            };
            let count = NodeCount { min, max };
            let s = count.to_string();
            p.case(&s, || assert_eq!(parse_node_count(&s), Ok(count)));
            continue;
        }
        let s = nodes_value(r);
        p.case(&s, || {
            if let Ok(c) = parse_node_count(&s) {
                assert!(c.min >= 0 && (c.max == 0 || c.max >= c.min), "{c:?}");
            }
        });
    }
    p
}

fn fuzz_open_mode(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("open-mode");
    for _ in 0..n {
        let s = open_mode_value(r);
        p.case(&s, || {
            if let Ok(m) = parse_open_mode(&s) {
                assert_eq!(parse_open_mode(m.letter()), Ok(m));
                assert!(matches!(m, OpenMode::Append | OpenMode::Truncate));
            }
        });
    }
    p
}

fn fuzz_signal(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("signal");
    for _ in 0..n {
        if r.chance(25) {
            // Round trip: signal_opts_to_cmdline's text reads back as the same option.
            let sbatch = r.chance(50);
            let spec = SignalSpec {
                signal: if r.chance(50) {
                    r.range(1, 64) as u16
                } else {
                    r.range(1, 0xffff) as u16
                },
                seconds: if r.chance(30) {
                    60
                } else {
                    r.range(0, 0xffff) as u16
                },
                reservation: r.chance(30),
                batch_only: sbatch && r.chance(30),
            };
            let s = spec.to_string();
            let n = i32::from(spec.signal);
            p.case(&s, || {
                assert_eq!(parse_signal_opts(&s, sbatch), Ok(spec));
                assert_eq!(sig_name2num(&sig_num2name(n)), n);
                assert_eq!(sig_name2num(&format!("sig{}", sig_num2name(n))), {
                    if sig_num2name(n).parse::<i32>().is_ok() {
                        0
                    } else {
                        n
                    }
                });
            });
            continue;
        }
        let s = signal_value(r);
        let sbatch = r.chance(50);
        p.case(&s, || {
            if let Ok(spec) = parse_signal_opts(&s, sbatch) {
                assert!(spec.signal >= 1);
                assert_eq!(parse_signal_opts(&spec.to_string(), sbatch), Ok(spec));
            }
            let _ = sig_name2num(&s);
        });
    }
    p
}

fn fuzz_hostlist(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("hostlist");
    let (mut largest, mut refused) = (0, 0);
    for _ in 0..n {
        match r.below(4) {
            0 => {
                // Round trip, grouped form (distinct node names, as its callers have):
                // the same set of hosts, once each; compressing again gives the same text.
                let mut hosts: Vec<String> = Vec::new();
                for _ in 0..=r.below(12) {
                    let h = host_name(r);
                    if !hosts.contains(&h) {
                        hosts.push(h);
                    }
                }
                p.case(&hosts, || {
                    let text = compress(&hosts);
                    let back = expand(&text).unwrap_or_else(|| panic!("{text:?} does not expand"));
                    let set: BTreeSet<&String> = back.iter().collect();
                    assert_eq!(set.len(), back.len(), "{text:?} names a host twice");
                    assert_eq!(set, hosts.iter().collect::<BTreeSet<_>>(), "{text:?}");
                    assert_eq!(compress(&back), text);
                });
            }
            1 => {
                // Round trip, ordered form (job node lists): the same hosts in order.
                let hosts: Vec<String> = (0..=r.below(12)).map(|_| host_name(r)).collect();
                p.case(&hosts, || {
                    let text = compress_ordered(&hosts);
                    assert_eq!(expand(&text).as_ref(), Some(&hosts), "{text:?}");
                });
            }
            _ => {
                let s = host_list(r);
                p.case(&s, || match expand(&s) {
                    Some(hosts) => {
                        largest = largest.max(hosts.len());
                        let _ = compress(&hosts);
                        let _ = compress_ordered(&hosts);
                    }
                    None => refused += 1,
                });
            }
        }
    }
    p.note = format!("; largest list {largest} hosts, {refused} refused");
    p
}

fn fuzz_sbatch(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("sbatch");
    let opts: Vec<&'static Opt> = table::for_command(table::SBATCH).collect();
    let env_vars_table: Vec<(&str, &str)> = opts
        .iter()
        .flat_map(|o| o.sbatch_env.iter().map(move |v| (*v, o.long)))
        .collect();
    let clean_opts = clean_options(table::SBATCH);
    let clean_vars = clean_env(&env_vars_table, &clean_opts);
    let cwd = Path::new("/tmp/bai-fuzz-nonexistent-cwd");
    let mut submitted = 0;
    for _ in 0..n {
        r.clean = r.chance(40);
        let (opts, operands): (&[&Opt], &[&str]) = if r.clean {
            (&clean_opts, &[])
        } else {
            (
                &opts,
                &[
                    "/tmp/bai-fuzz-nonexistent/job.sh",
                    "bai-fuzz-nonexistent.sh",
                ],
            )
        };
        let args = argv(r, opts, operands);
        let env = env_vars(
            r,
            if r.clean {
                &clean_vars
            } else {
                &env_vars_table
            },
        );
        // One directive word: an option with its value attached, or (noise) a lone value.
        let words = |r: &mut Rng| -> String {
            let mut w = option_words(r, opts);
            if w.len() < 2 {
                w.concat()
            } else if r.clean && w[0].starts_with("--") {
                format!("{}={}", w[0], w[1])
            } else if !r.clean && r.chance(50) {
                w.swap_remove(1)
            } else {
                w.concat()
            }
        };
        let body = script(r, &mut { words });
        p.case(&(&args, &env, body.escape_ascii().to_string()), || {
            let mut stdin: &[u8] = &body;
            let input = sbatch::SbatchInput {
                args: &args,
                env: &env,
                cwd,
                stdin: &mut stdin,
                hostname: "login1".into(),
                now: NOW,
                umask: 0o022,
                max_array_size: 1001,
                profile: bai_slurm::model::profile::Profile::default_profile(),
            };
            match sbatch::parse(input) {
                sbatch::SbatchOutcome::Exit {
                    stdout,
                    stderr,
                    code,
                } => check_exit(&stdout, &stderr, code, &env),
                sbatch::SbatchOutcome::Submit(req) => {
                    assert!(req.spec.work_dir.starts_with('/'));
                    for m in &req.messages {
                        assert!(m.starts_with("sbatch: ") && !m.contains('\n'), "{m:?}");
                    }
                    submitted += 1;
                }
            }
        });
    }
    r.clean = false;
    p.note = format!("; {submitted} would submit");
    p
}

fn fuzz_srun(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("srun");
    let opts: Vec<&'static Opt> = table::for_command(table::SRUN).collect();
    let clean_opts = clean_options(table::SRUN);
    let clean_vars = clean_env(srun::SRUN_ENV, &clean_opts);
    let mut ran = 0;
    for _ in 0..n {
        r.clean = r.chance(40);
        let (opts, operands, vars): (&[&Opt], &[&str], &[(&str, &str)]) = if r.clean {
            (&clean_opts, &["hostname", "true"], &clean_vars)
        } else {
            (&opts, &["hostname", "true", "--", "-n"], srun::SRUN_ENV)
        };
        let args = argv(r, opts, operands);
        let env = env_vars(r, vars);
        p.case(&(&args, &env), || match srun::parse(&args, &env, NOW) {
            srun::SrunOutcome::Exit {
                stdout,
                stderr,
                code,
            } => check_exit(&stdout, &stderr, code, &BTreeMap::new()),
            srun::SrunOutcome::Run(req) => {
                assert!(!req.argv.is_empty());
                ran += 1;
            }
        });
    }
    r.clean = false;
    p.note = format!("; {ran} would run");
    p
}

fn fuzz_salloc(r: &mut Rng, n: usize) -> Part {
    let mut p = Part::new("salloc");
    let opts: Vec<&'static Opt> = table::for_command(table::SALLOC).collect();
    let clean_opts = clean_options(table::SALLOC);
    let clean_vars = clean_env(salloc::SALLOC_ENV, &clean_opts);
    let mut ran = 0;
    for _ in 0..n {
        r.clean = r.chance(40);
        let (opts, operands, vars): (&[&Opt], &[&str], &[(&str, &str)]) = if r.clean {
            (&clean_opts, &["bash", "true"], &clean_vars)
        } else {
            (&opts, &["bash", "true", "--", "-c"], salloc::SALLOC_ENV)
        };
        let args = argv(r, opts, operands);
        let env = env_vars(r, vars);
        p.case(&(&args, &env), || match salloc::parse(&args, &env, NOW) {
            salloc::SallocOutcome::Exit {
                stdout,
                stderr,
                code,
            } => check_exit(&stdout, &stderr, code, &BTreeMap::new()),
            salloc::SallocOutcome::Run(_) => ran += 1,
        });
    }
    r.clean = false;
    p.note = format!("; {ran} would allocate");
    p
}

/// A part of the run: draws and runs its share of the cases.
type PartFn = fn(&mut Rng, usize) -> Part;

#[test]
fn option_grammars_never_panic_nor_hang_and_round_trip() {
    let mult: usize = std::env::var("BAI_FUZZ_MULT")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(1);
    // SAFETY: this binary's only test; set before anything reads the time zone.
    unsafe { std::env::set_var("TZ", "UTC") };
    watchdog();
    let started = Instant::now();
    // BAI_FUZZ_SEED=N explores another stream (N must not be 0).
    let seed = std::env::var("BAI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&s: &u64| s != 0)
        .unwrap_or(0x0b7_5eed_cafe_f00d);
    let mut r = Rng {
        state: seed,
        clean: false,
    };
    // How many cases each part draws, per million.
    let plan: &[(PartFn, usize)] = &[
        (fuzz_directives, 120_000),
        (fuzz_array, 50_000),
        (fuzz_begin, 50_000),
        (fuzz_dependency, 50_000),
        (fuzz_distribution, 30_000),
        (fuzz_duration, 50_000),
        (fuzz_export, 30_000),
        (fuzz_gres, 50_000),
        (fuzz_hint, 20_000),
        (fuzz_int, 30_000),
        (fuzz_mail_type, 30_000),
        (fuzz_memory, 40_000),
        (fuzz_nodes, 30_000),
        (fuzz_open_mode, 10_000),
        (fuzz_signal, 40_000),
        (fuzz_hostlist, 100_000),
        (fuzz_sbatch, 110_000),
        (fuzz_srun, 90_000),
        (fuzz_salloc, 70_000),
    ];
    let mut total = 0;
    let mut lines = Vec::new();
    for (part, n) in plan {
        let p = part(&mut r, n * mult);
        total += p.cases;
        lines.push(p.summary());
    }
    DONE.store(true, Ordering::Relaxed);
    println!(
        "fuzz_options: {total} cases (seed {seed:#x}) in {:.1} s\n  {}",
        started.elapsed().as_secs_f64(),
        lines.join("\n  ")
    );
    assert_eq!(total, 1_000_000 * mult);
}
