//! Generators of what users type into sbatch, srun and salloc (tests/fuzz_options.rs,
//! tests/fuzz_commands.rs): one value generator per option grammar, hostlists, `#SBATCH`
//! scripts, and whole command lines drawn from the option table.

use super::{NOISE, Rng, mutate, num, time_spec};
use bai_slurm::model::array::ranges;
use bai_slurm::options::getopt::HasArg;
use bai_slurm::options::table::{self, Opt};
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------
// Value generators, one per grammar.

pub fn array_value(r: &mut Rng) -> String {
    let mut s = String::new();
    let small = |r: &mut Rng| {
        if r.chance(85) {
            r.below(1100).to_string()
        } else {
            num(r)
        }
    };
    for i in 0..=r.below(5) {
        if i > 0 {
            s.push(',');
        }
        let bracket = r.chance(10);
        if bracket {
            s.push('[');
        }
        s.push_str(&small(r));
        if r.chance(50) {
            s.push('-');
            s.push_str(&small(r));
            if r.chance(30) {
                s.push(':');
                s.push_str(&small(r));
            }
        }
        if bracket && r.chance(80) {
            s.push(']');
        }
    }
    if r.chance(25) {
        s.push('%');
        s.push_str(&num(r));
    }
    mutate(r, s)
}

pub fn dependency_value(r: &mut Rng) -> String {
    const KINDS: &[&str] = &[
        "after:",
        "afterany:",
        "afterok:",
        "afternotok:",
        "aftercorr:",
        "afterburstbuffer:",
        "afterburstb:",
        "expand:",
        "AFTEROK:",
        "afterfoo:",
        "after",
        "singleton",
        "SINGLETON",
        "",
    ];
    let id = |r: &mut Rng| -> String {
        let mut s = if r.chance(80) {
            r.range(1, 2000).to_string()
        } else {
            num(r)
        };
        // Now and then a whole large array, which becomes one item per task.
        if r.below(4000) == 0 {
            s.push_str(&format!("_[{}-{}]", r.below(10), r.range(10_000, 120_000)));
            return s;
        }
        match r.below(10) {
            0 => s.push_str(&format!("_{}", r.below(20))),
            1 => s.push_str("_*"),
            2 => s.push_str(&format!("_[{}-{}]", r.below(30), r.below(30))),
            3 => s.push_str(&format!("_[{},{}-{}:{}]", num(r), num(r), num(r), num(r))),
            4 => s.push_str(&format!("+{}", num(r))),
            5 => s.push_str(r.pick(&["(failed)", "(unfulfilled)", "(fulfilled)", "(", ")"])),
            _ => {}
        }
        s
    };
    let mut s = String::new();
    for i in 0..=r.below(4) {
        if i > 0 {
            s.push_str(r.pick(&[",", ",", "?", ":", ""]));
        }
        s.push_str(r.pick(KINDS));
        for j in 0..=r.below(3) {
            if j > 0 {
                s.push(':');
            }
            s.push_str(&id(r));
        }
    }
    mutate(r, s)
}

pub fn distribution_value(r: &mut Rng) -> String {
    const WORDS: &[&str] = &[
        "block",
        "cyclic",
        "fcyclic",
        "*",
        "",
        "arbitrary",
        "hostfile",
        "pack",
        "nopack",
        "Block",
        "plane",
        "PLANE",
        "x",
    ];
    let mut s = String::new();
    if r.chance(15) {
        s.push_str(r.pick(&["plane", "Plane", "planex"]));
        if r.chance(70) {
            s.push('=');
            s.push_str(&num(r));
        }
    } else {
        for i in 0..=r.below(4) {
            if i > 0 {
                s.push(':');
            }
            s.push_str(r.pick(WORDS));
        }
    }
    if r.chance(30) {
        s.push(',');
        s.push_str(r.pick(&["pack", "nopack", "Pack", "", "pack,nopack", "x"]));
    }
    mutate(r, s)
}

/// `--time` and friends: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`, the infinite
/// words, and near misses.
pub fn duration_value(r: &mut Rng) -> String {
    let mut s = match r.below(12) {
        0 => r
            .pick(&[
                "-1",
                "INFINITE",
                "unlimited",
                "Infinite",
                "UNLIMITED",
                "infinite ",
            ])
            .to_string(),
        1 => num(r),
        2 => format!("{}:{}", num(r), num(r)),
        3 => format!("{}:{}:{}", num(r), num(r), num(r)),
        4 => format!("{}-{}", num(r), num(r)),
        5 => format!("{}-{}:{}", num(r), num(r), num(r)),
        6 => format!("{}-{}:{}:{}", num(r), num(r), num(r), num(r)),
        7 => {
            let mut t = String::new();
            for _ in 0..r.below(8) {
                t.push_str(r.pick(&["1", "12", ":", "-", "", "0"]));
            }
            t
        }
        _ => bounded_duration(r),
    };
    s = mutate(r, s);
    s
}

/// A well-formed duration whose fields cannot overflow Slurm's 32-bit arithmetic.
pub fn bounded_duration(r: &mut Rng) -> String {
    let f = |r: &mut Rng| r.below(100_000).to_string();
    match r.below(6) {
        0 => f(r),
        1 => format!("{}:{}", f(r), f(r)),
        2 => format!("{}:{}:{}", f(r), f(r), f(r)),
        3 => format!("{}-{}", r.below(10_000), f(r)),
        4 => format!("{}-{}:{}", r.below(10_000), f(r), f(r)),
        _ => format!("{}-{}:{}:{}", r.below(10_000), f(r), f(r), f(r)),
    }
}

pub fn export_value(r: &mut Rng) -> String {
    const TOKENS: &[&str] = &[
        "ALL",
        "all",
        "NONE",
        "NIL",
        "PATH",
        "HOME",
        "A=1",
        "B=x,y",
        "'C=1,2'",
        "\"D=3,4\"",
        "E=\"5,6\"",
        "'F",
        "G\"",
        "=",
        "=x",
        "H=",
        "SLURM_X=1",
        "",
        "é=é",
    ];
    let mut s = String::new();
    for i in 0..=r.below(5) {
        if i > 0 {
            s.push(',');
        }
        s.push_str(r.pick(TOKENS));
    }
    mutate(r, s)
}

pub fn gres_value(r: &mut Rng) -> String {
    const NAMES: &[&str] = &[
        "gpu", "mps", "shard", "nic", "", "GPU", "gres:gpu", "gres", "help",
    ];
    const TYPES: &[&str] = &["a100", "tesla", "k80", "0.5", "-1", "", "x y", "kib", "1a"];
    let count = |r: &mut Rng| -> String {
        let mut c = match r.below(6) {
            0 => format!("{}.{}", r.below(4), r.below(10_000_000)),
            1 => r
                .pick(&[".5", "1.", "0.0", "1.000000", "0.0000001"])
                .to_string(),
            _ => num(r),
        };
        if r.chance(20) {
            c.push_str(r.pick(&["k", "m", "g", "t", "p", "kb", "KiB", "mb", "x", "pb", "e"]));
        }
        c
    };
    if r.chance(5) {
        return r
            .pick(&["help", "list", "none", "NONE", "Help"])
            .to_string();
    }
    let mut s = String::new();
    for i in 0..=r.below(3) {
        if i > 0 {
            s.push_str(r.pick(&[",", ",", ",,", ":"]));
        }
        s.push_str(r.pick(NAMES));
        match r.below(4) {
            0 => {}
            1 => {
                s.push(':');
                s.push_str(&count(r));
            }
            2 => {
                s.push(':');
                s.push_str(r.pick(TYPES));
            }
            _ => {
                s.push(':');
                s.push_str(r.pick(TYPES));
                s.push(':');
                s.push_str(&count(r));
            }
        }
    }
    mutate(r, s)
}

pub fn gpus_value(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..=r.below(3) {
        if i > 0 {
            s.push(',');
        }
        if r.chance(40) {
            s.push_str(r.pick(&["a100:", "tesla:", "0.5:", ":", "gpu:"]));
        }
        s.push_str(&match r.below(4) {
            0 => format!("{}.{}", r.below(3), r.below(1000)),
            _ => num(r),
        });
    }
    mutate(r, s)
}

pub const HINTS: &[&str] = &[
    "compute_bound",
    "memory_bound",
    "multithread",
    "nomultithread",
];

pub fn hint_value(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..=r.below(3) {
        if i > 0 {
            s.push_str(r.pick(&[",", ",", ",1", ";"]));
        }
        let hint = HINTS[r.below(4)];
        s.push_str(r.pick(&[hint, "help", "", "Compute_Bound", "x"]));
    }
    mutate(r, s)
}

pub fn int_value(r: &mut Rng) -> String {
    let s = match r.below(6) {
        0 => format!("{}{}", r.pick(&[" ", "+", "-", "\t", "  +"]), num(r)),
        1 => format!("{}{}", num(r), r.pick(&[" ", "x", "k", ".5", "\n"])),
        _ => num(r),
    };
    mutate(r, s)
}

pub const MAIL_WORDS: &[&str] = &[
    "NONE",
    "BEGIN",
    "END",
    "FAIL",
    "REQUEUE",
    "ALL",
    "INVALID_DEPEND",
    "STAGE_OUT",
    "TIME_LIMIT",
    "TIME_LIMIT_90",
    "TIME_LIMIT_80",
    "TIME_LIMIT_50",
    "ARRAY_TASKS",
];

pub fn mail_value(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..=r.below(4) {
        if i > 0 {
            s.push_str(r.pick(&[",", ",", ",,", " "]));
        }
        let w = if r.chance(85) {
            MAIL_WORDS[r.below(MAIL_WORDS.len())]
        } else {
            r.pick(&["begin", "TIME", "x", "", "TIME_LIMIT_99"])
        };
        s.push_str(w);
    }
    mutate(r, s)
}

pub fn memory_value(r: &mut Rng) -> String {
    let mut s = num(r);
    if r.chance(70) {
        s.push_str(r.pick(&[
            "K", "k", "M", "m", "G", "g", "T", "t", "KB", "mb", "Gb", "P", "B", "KiB", "MM", " ",
        ]));
    }
    mutate(r, s)
}

pub fn nodes_value(r: &mut Rng) -> String {
    let suffix = |r: &mut Rng| r.pick(&["", "", "", "k", "K", "m", "km", "mk", " ", "x"]);
    let mut s = format!("{}{}", num(r), suffix(r));
    if r.chance(40) {
        s.push('-');
        s.push_str(&num(r));
        s.push_str(suffix(r));
    }
    if r.chance(5) {
        s.push_str(r.pick(&[",4", ":2", "-", "-3"]));
    }
    mutate(r, s)
}

pub fn open_mode_value(r: &mut Rng) -> String {
    let s = r
        .pick(&[
            "append", "truncate", "a", "T", "A", "t", "x", "", " a", "apple",
        ])
        .to_string();
    mutate(r, s)
}

pub fn signal_value(r: &mut Rng) -> String {
    let mut s = String::new();
    if r.chance(30) {
        s.push_str(r.pick(&["R:", "B:", "RB:", "BR:", "R", "B", ":", "r:", "BRB:"]));
    }
    s.push_str(&match r.below(4) {
        0 => num(r),
        1 => r.pick(&["", "SIG", " ", "sig"]).to_string() + r.pick(&["x", "KILLX", "0"]),
        _ => {
            r.pick(&["", "SIG", "sig", " "]).to_string()
                + r.pick(&[
                    "HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM", "USR1", "USR2", "URG",
                    "CONT", "STOP", "TSTP", "TTIN", "TTOU", "XCPU", "term", "Usr1",
                ])
        }
    });
    if r.chance(40) {
        s.push('@');
        s.push_str(&num(r));
    }
    mutate(r, s)
}

/// Any other option's value: names, paths, patterns, and every other grammar's words.
pub fn generic_value(r: &mut Rng) -> String {
    let s = match r.below(12) {
        0 => r
            .pick(&[
                "job",
                "my job",
                "",
                "a,b",
                "%j.out",
                "out-%A_%a.txt",
                "/tmp/bai-fuzz-nonexistent/x-%x",
                "rel/dir",
                "UNLIMITED",
                "yes",
                "no",
                "none",
                "n[1-3]",
                "-",
                "--",
                "x=y",
                "é",
            ])
            .to_string(),
        1 => num(r),
        2 => host_list(r),
        3 => array_value(r),
        4 => duration_value(r),
        5 => memory_value(r),
        6 => gres_value(r),
        7 => time_spec(r),
        _ => {
            let mut t = String::new();
            for _ in 0..r.below(8) {
                t.push_str(r.pick(NOISE));
                t.push_str(r.pick(&["a", "1", "job", "x"]));
            }
            t
        }
    };
    mutate(r, s)
}

/// A value the option `long` should accept (for [`Rng::clean`] command lines).
pub fn good_value(r: &mut Rng, long: &str) -> String {
    let v = match long {
        "array" => {
            let tasks: Vec<u32> = (0..=r.below(6)).map(|_| r.below(100) as u32).collect();
            let mut s = ranges(&tasks);
            if r.chance(30) {
                s.push_str(&format!("%{}", r.range(1, 4)));
            }
            return s;
        }
        "time" | "time-min" | "delay-boot" => return bounded_duration(r),
        "hint" => HINTS[r.below(HINTS.len())],
        "begin" | "deadline" => r.pick(&[
            "now+1hour",
            "2030-01-01T10:00:00",
            "noon",
            "tomorrow",
            "now",
            "16:00",
        ]),
        "dependency" => r.pick(&[
            "afterok:12",
            "singleton",
            "afterany:3:4",
            "after:5+10",
            "afterok:7_*?afternotok:8",
        ]),
        "distribution" => r.pick(&[
            "block",
            "cyclic",
            "block:cyclic",
            "cyclic:block:fcyclic",
            "plane=2",
            "arbitrary",
            "block,pack",
        ]),
        "export" => r.pick(&["ALL", "NONE", "A=1,PATH", "ALL,B=2", "'C=1,2'"]),
        "gres" => r.pick(&["gpu:2", "gpu:a100:1", "gpu", "none", "gpu:0.5"]),
        "gpus" | "gpus-per-node" | "gpus-per-task" | "gpus-per-socket" => {
            r.pick(&["1", "a100:2", "0.5", "2"])
        }
        "nice" => r.pick(&["-5", "10", "0"]),
        "mail-type" => r.pick(&["END,FAIL", "ALL", "NONE", "BEGIN"]),
        "mem" | "mem-per-cpu" | "mem-per-gpu" | "tmp" => {
            r.pick(&["4G", "512", "100M", "1T", "2048K"])
        }
        "nodes" => r.pick(&["1", "1-2", "2", "1-1"]),
        "open-mode" => r.pick(&["append", "truncate"]),
        "signal" => r.pick(&["USR1@60", "B:TERM", "R:10@5", "INT"]),
        "nodelist" | "exclude" => r.pick(&["n[1-2]", "node01", "a,b"]),
        "kill-on-invalid-dep" => r.pick(&["yes", "no"]),
        "kill-on-bad-exit" => r.pick(&["1", "0"]),
        "chdir" => r.pick(&["work", "/tmp/bai-fuzz-nonexistent/work"]),
        "output" | "error" | "input" => {
            r.pick(&["out-%j.txt", "%x-%A_%a.log", "/tmp/bai-fuzz-nonexistent/o"])
        }
        "container-mounts" => r.pick(&["/a:/b,/c:/d", "/data"]),
        "ntasks" | "cpus-per-task" | "ntasks-per-node" | "tasks-per-node" | "mincpus" | "jobid"
        | "cpus-per-gpu" | "priority" | "threads-per-core" | "cores-per-socket"
        | "sockets-per-node" | "ntasks-per-core" | "ntasks-per-socket" | "ntasks-per-gpu"
        | "core-spec" | "thread-spec" | "threads" | "wait" | "immediate" | "msg-timeout"
        | "relative" | "het-group" => return r.range(1, 64).to_string(),
        _ => r.pick(&["job", "x", "research", "debug"]),
    };
    v.to_string()
}

/// Options a clean command line may use: supported, and not ending the command early.
pub fn clean_options(cmd: u8) -> Vec<&'static Opt> {
    table::for_command(cmd)
        .filter(|o| !matches!(o.support, table::Support::Rejected(_)))
        .filter(|o| {
            !matches!(
                o.long,
                "help" | "usage" | "version" | "uid" | "gid" | "export-file" | "quiet"
            )
        })
        .collect()
}

/// A value for the option `long`. `--export-file` only ever gets names of files that do
/// not exist: a number would name an open descriptor, and reading a pipe or a device
/// (the test harness's own, say) could block.
pub fn value_for(r: &mut Rng, long: &str) -> String {
    if long == "export-file" {
        return format!(
            "{}bai-fuzz-nonexistent-{}",
            r.pick(&["", "/tmp/", "./"]),
            r.pick(&["env", "x,y", "%j", ""])
        );
    }
    if r.clean {
        return good_value(r, long);
    }
    if r.chance(8) {
        return generic_value(r);
    }
    match long {
        "array" => array_value(r),
        "begin" | "deadline" => time_spec(r),
        "dependency" => dependency_value(r),
        "distribution" => distribution_value(r),
        "time" | "time-min" | "delay-boot" => duration_value(r),
        "export" => export_value(r),
        "gres" => gres_value(r),
        "gpus" | "gpus-per-node" | "gpus-per-task" | "gpus-per-socket" => gpus_value(r),
        "hint" => hint_value(r),
        "ntasks" | "cpus-per-task" | "ntasks-per-node" | "tasks-per-node" | "mincpus" | "jobid"
        | "cpus-per-gpu" | "nice" | "priority" | "threads-per-core" | "cores-per-socket"
        | "sockets-per-node" | "ntasks-per-core" | "ntasks-per-socket" | "ntasks-per-gpu"
        | "core-spec" | "thread-spec" | "threads" | "wait" | "immediate" | "msg-timeout"
        | "relative" | "het-group" | "uid" | "gid" | "kill-on-bad-exit" => int_value(r),
        "mail-type" => mail_value(r),
        "mem" | "mem-per-cpu" | "mem-per-gpu" | "tmp" => memory_value(r),
        "nodes" => nodes_value(r),
        "open-mode" => open_mode_value(r),
        "signal" => signal_value(r),
        "nodelist" | "exclude" => host_list(r),
        "kill-on-invalid-dep" => {
            let v = r.pick(&["yes", "no", "YES", "maybe"]).to_string();
            mutate(r, v)
        }
        _ => generic_value(r),
    }
}

// ---------------------------------------------------------------------------------------
// Hostlists.

pub const HOST_PREFIXES: &[&str] = &["n", "node", "tux", "a-b", "rack1-n", "gpu_", "n.c", "x", ""];

/// A host name: a prefix and a number, padded or not, or a name without a number.
pub fn host_name(r: &mut Rng) -> String {
    let prefix = r.pick(HOST_PREFIXES);
    match r.below(10) {
        0 => r.pick(&["login", "vm", "head-node", "n1x"]).to_string(),
        1 => format!("{prefix}{:03}", r.below(1200)),
        2 => format!("{prefix}{:02}", r.below(120)),
        3 => format!("{prefix}0"),
        _ => {
            let p = if prefix.is_empty() { "n" } else { prefix };
            format!("{p}{}", r.below(40))
        }
    }
}

/// A hostlist expression, well formed or not, sometimes asking for very many hosts.
pub fn host_list(r: &mut Rng) -> String {
    // A range of tens of thousands of hosts takes tens of milliseconds to list in a debug
    // build: about one list in a thousand has one at or past Slurm's limit of 65536.
    let big = r.below(1000) == 0;
    let odd = |r: &mut Rng| -> String {
        r.pick(&[
            "+5",
            " 7",
            "-1",
            "",
            "1e3",
            "x",
            "007",
            "18446744073709551616",
        ])
        .to_string()
    };
    let mut s = String::new();
    for i in 0..=r.below(4) {
        if i > 0 {
            s.push_str(r.pick(&[",", ",", " ", ",,", "\t"]));
        }
        if r.chance(40) {
            s.push_str(&host_name(r));
            continue;
        }
        s.push_str(r.pick(HOST_PREFIXES));
        // Usually one bracket, sometimes a bracket in the prefix or a suffix after it.
        for b in 0..=usize::from(r.chance(15)) {
            if b > 0 {
                s.push_str(r.pick(&["-", ".", "x", ""]));
            }
            s.push('[');
            for j in 0..=r.below(3) {
                if j > 0 {
                    s.push(',');
                }
                let lo = r.below(40);
                match r.below(20) {
                    0 => s.push_str(&odd(r)),
                    1 => s.push_str(&format!("{lo}-{}", odd(r))),
                    2 => s.push_str(&format!("{lo}-{}", r.below(40))),
                    3 => s.push_str(&format!("{lo:04}-{:04}", lo + r.below(100))),
                    4..=10 => s.push_str(&lo.to_string()),
                    _ => s.push_str(&format!("{lo}-{}", lo + r.below(20))),
                }
            }
            if big {
                s.push_str(r.pick(&[
                    ",0-65535",
                    ",1-65536",
                    ",0-65536",
                    ",0-999999",
                    ",0-18446744073709551615",
                    ",100-99999",
                ]));
            }
            if r.chance(95) {
                s.push(']');
            }
        }
        if r.chance(10) {
            s.push_str(r.pick(&[".ib", "x", "]", "["]));
        }
    }
    mutate(r, s)
}

// ---------------------------------------------------------------------------------------
// Directives and command lines.

/// Quotes `word` so that the directive lexer gives it back unchanged: bare when it can be,
/// else with backslashes or in quotes (where a backslash escapes the next character too).
pub fn quote_word(r: &mut Rng, word: &str) -> String {
    let special = |c: char| " \t\x0b\x0c\r\"'\\#".contains(c);
    let separator = ["hetjob", "packjob"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w));
    let bare_ok = !word.contains(special) && !word.starts_with(':') && !separator;
    match r.below(4) {
        0 if bare_ok => word.to_string(),
        1 if !word.contains([' ', '\t', '\x0b', '\x0c', '\r']) && !separator => {
            let mut s = String::new();
            for c in word.chars() {
                if special(c) || c == ':' || r.chance(5) {
                    s.push('\\');
                }
                s.push(c);
            }
            s
        }
        2 => {
            let mut s = String::from("'");
            for c in word.chars() {
                if c == '\'' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
            s.push('\'');
            s
        }
        _ => {
            let mut s = String::from("\"");
            for c in word.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
            s.push('"');
            s
        }
    }
}

/// A random script for the lexer: directive lines (`#SBATCH`, `#SLURM`, near misses)
/// full of quotes, backslashes, comments, separators, CRs and NULs, between comments,
/// blank lines and commands. `words` supplies the directive's words.
pub fn script(r: &mut Rng, words: &mut dyn FnMut(&mut Rng) -> String) -> Vec<u8> {
    const MAGIC: &[&str] = &[
        "#SBATCH ",
        "#SBATCH ",
        "#SBATCH ",
        "#SBATCH\t",
        "#SBATCH",
        "#SLURM ",
        "#sbatch ",
        " #SBATCH ",
        "#SBATCHX",
        "#PBS ",
        "#SBATC",
    ];
    const PIECES: &[&str] = &[
        "\"",
        "'",
        "\\",
        "\\\\",
        " ",
        "\t",
        "#",
        " # comment",
        ":",
        " : ",
        "hetjob",
        " hetjob",
        "packjob",
        "HetJob ",
        "\"\"",
        "''",
        "\r",
        "\u{0}",
        "é",
        "\"a b\"",
        "'c d'",
        "-n",
        "2",
    ];
    let mut out: Vec<u8> = Vec::new();
    if r.clean {
        out.extend_from_slice(b"#!/bin/sh\n");
        for _ in 0..r.below(6) {
            out.extend_from_slice(b"#SBATCH");
            for _ in 0..=r.below(3) {
                let w = words(r);
                out.push(b' ');
                out.extend_from_slice(quote_word(r, &w).as_bytes());
            }
            out.push(b'\n');
        }
        out.extend_from_slice(b"srun hostname\n");
        return out;
    }
    if r.chance(90) {
        out.extend_from_slice(b"#!/bin/sh\n");
    }
    for _ in 0..r.below(12) {
        match r.below(10) {
            0 => out.extend_from_slice(r.pick(&["# comment", "", "   ", "\t# x", "#"]).as_bytes()),
            1 if r.chance(30) => out.extend_from_slice(r.pick(&["echo hi", "srun x"]).as_bytes()),
            2 => out.push(0xff),
            _ => {
                out.extend_from_slice(r.pick(MAGIC).as_bytes());
                for i in 0..r.below(6) {
                    if i > 0 {
                        out.extend_from_slice(r.pick(&[" ", " ", "\t", "  "]).as_bytes());
                    }
                    if r.chance(60) {
                        let w = words(r);
                        out.extend_from_slice(quote_word(r, &w).as_bytes());
                    } else {
                        out.extend_from_slice(r.pick(PIECES).as_bytes());
                    }
                }
            }
        }
        out.extend_from_slice(r.pick(&["\n", "\n", "\n", "\r\n", ""]).as_bytes());
    }
    out
}

/// One option as a user may type it for `cmd`, abbreviated or not, with a value that
/// suits it (or none, or one too many).
pub fn option_words(r: &mut Rng, opts: &[&'static Opt]) -> Vec<String> {
    let o = opts[r.below(opts.len())];
    let value = value_for(r, o.long);
    let mut long = format!("--{}", o.long);
    if !r.clean && r.chance(20) {
        // A prefix: unique, ambiguous or too short to mean anything.
        let keep = 2 + r.below(o.long.len() + 1);
        long.truncate(keep.min(long.len()));
    }
    let short = o.short.filter(|_| r.chance(50));
    match (o.arg, short) {
        (HasArg::No, Some(c)) => {
            let mut w = format!("-{c}");
            if !r.clean && r.chance(20) {
                w.push(
                    *['v', 'Q', 'H', 'l', 'O', 'h', 'V']
                        .get(r.below(7))
                        .unwrap_or(&'v'),
                );
            }
            vec![w]
        }
        (HasArg::No, None) if !r.clean && r.chance(5) => vec![format!("{long}={value}")],
        (HasArg::No, None) => vec![long],
        (HasArg::Optional, Some(c)) => match r.below(3) {
            0 => vec![format!("-{c}")],
            _ => vec![format!("-{c}{value}")],
        },
        (HasArg::Optional, None) => match r.below(3) {
            0 => vec![long],
            _ => vec![format!("{long}={value}")],
        },
        (HasArg::Required, Some(c)) => match r.below(3) {
            0 => vec![format!("-{c}{value}")],
            _ => vec![format!("-{c}"), value],
        },
        (HasArg::Required, None) => match r.below(3) {
            0 => vec![format!("{long}={value}")],
            _ => vec![long, value],
        },
    }
}

/// A random command line for `cmd`: options from its table, noise, and operands.
pub fn argv(r: &mut Rng, opts: &[&'static Opt], operands: &[&str]) -> Vec<String> {
    let mut args = Vec::new();
    for _ in 0..r.below(8) {
        if !r.clean && r.chance(5) {
            args.push(
                r.pick(&[
                    "-", "--", "-=", "--=", "---x", "-\u{0}", "--bogus", "-?", "é", "-é", "--é",
                    "-:", "--n",
                ])
                .to_string(),
            );
        } else {
            args.extend(option_words(r, opts));
        }
    }
    if !operands.is_empty() && (r.clean || r.chance(40)) {
        args.push(r.pick(operands).to_string());
        if r.chance(50) {
            args.push(generic_value(r));
        }
    }
    args
}

/// The input variables of options a clean command line may use.
pub fn clean_env<'a>(vars: &[(&'a str, &'a str)], clean: &[&Opt]) -> Vec<(&'a str, &'a str)> {
    vars.iter()
        .filter(|(_, long)| clean.iter().any(|o| o.long == *long))
        .copied()
        .collect()
}

/// Random input variables: each of `vars` (variable, option) set now and then.
pub fn env_vars(r: &mut Rng, vars: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for _ in 0..r.below(4) {
        let (var, long) = vars[r.below(vars.len())];
        env.insert(var.to_string(), value_for(r, long));
    }
    if !r.clean && r.chance(5) {
        env.insert(
            "SLURM_EXIT_ERROR".into(),
            r.pick(&["", "0", "3", "x", "-1", "300"]).into(),
        );
    }
    if r.chance(10) {
        env.insert("SLURM_DIST_PLANESIZE".into(), num(r));
    }
    env
}
