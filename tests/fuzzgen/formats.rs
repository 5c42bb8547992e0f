//! Generators of the user-controlled format grammars (tests/fuzz_formats.rs,
//! tests/fuzz_commands.rs): squeue and sinfo `-o` and `-O`, sacct `-o`, SLURM_TIME_FORMAT.

use super::Rng;
use bai_slurm::format::sacct::fields::FIELDS;
use bai_slurm::format::spec::MAX_WIDTH;

pub const SQUEUE_LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub const SINFO_LETTERS: &str = "ABCDEFGHILMNOPRSTUVXYZabcdefghlmnoprstuvwz";
pub const SQUEUE_NAMES: &[&str] = &[
    "account",
    "arrayjobid",
    "arraytaskid",
    "batchhost",
    "cluster",
    "command",
    "comment",
    "cpus-per-task",
    "dependency",
    "endtime",
    "exit_code",
    "gres",
    "groupname",
    "jobid",
    "jobarrayid",
    "licenses",
    "maxcpus",
    "mincpus",
    "minmemory",
    "name",
    "nice",
    "nodelist",
    "numcpus",
    "numnodes",
    "numtasks",
    "partition",
    "priority",
    "prioritylong",
    "qos",
    "reason",
    "reasonlist",
    "schednodes",
    "starttime",
    "state",
    "statecompact",
    "stdout",
    "stderr",
    "submittime",
    "timeleft",
    "timelimit",
    "timeused",
    "tres-alloc",
    "username",
    "userid",
    "workdir",
    "stepid",
    "stepname",
    "stepstate",
    "cpufreq",
    "all",
];
pub const SINFO_NAMES: &[&str] = &[
    "allocmem",
    "allocnodes",
    "available",
    "cluster",
    "comment",
    "cores",
    "cpus",
    "cpusload",
    "cpusstate",
    "defaulttime",
    "disk",
    "extra",
    "features",
    "features_act",
    "freemem",
    "gres",
    "gresused",
    "groups",
    "maxcpuspernode",
    "memory",
    "nodeaddr",
    "nodeai",
    "nodeaiot",
    "nodehost",
    "nodelist",
    "nodes",
    "oversubscribe",
    "partition",
    "partitionname",
    "port",
    "preemptmode",
    "priorityjobfactor",
    "prioritytier",
    "reason",
    "root",
    "share",
    "size",
    "socketcorethread",
    "sockets",
    "statecompact",
    "statecomplete",
    "statelong",
    "threads",
    "time",
    "timestamp",
    "user",
    "userlong",
    "version",
    "weight",
    "all",
];
pub const NOISE: &[&str] = &[
    "%", "%%", ".", ":", ",", "-", "+", " ", "\t", "0", "9", "|", "=", "\\", "é", "\u{0}", "\n",
    "*", "[", "]", "_",
];

/// A width: mostly small, sometimes at or beyond every limit, sometimes malformed.
pub fn width(r: &mut Rng) -> String {
    match r.below(20) {
        0 => u64::MAX.to_string(),
        1 => "99999999999999999999999".to_string(),
        2 => MAX_WIDTH.to_string(),
        3 => (MAX_WIDTH + 1).to_string(),
        4 => "-5".to_string(),
        5 => String::new(),
        6 => "00012".to_string(),
        _ => r.below(40).to_string(),
    }
}

/// squeue/sinfo `-o`: text and `%[.][width]letter` items.
pub fn letters_format(r: &mut Rng, letters: &str) -> String {
    let letters: Vec<char> = letters.chars().collect();
    let mut s = String::new();
    for _ in 0..r.below(10) {
        match r.below(10) {
            0 => s.push_str(r.pick(NOISE)),
            1 => s.push_str("literal "),
            _ => {
                s.push('%');
                if r.chance(40) {
                    s.push('.');
                }
                if r.chance(50) {
                    s.push_str(&width(r));
                }
                if r.chance(90) {
                    s.push(letters[r.below(letters.len())]);
                } else {
                    s.push(char::from(r.below(128) as u8));
                }
            }
        }
    }
    if r.chance(5) {
        s.push_str("%all");
    }
    s
}

/// squeue/sinfo `-O`: `name[:[.]width[suffix]]` items separated by commas.
pub fn names_format(r: &mut Rng, names: &[&str]) -> String {
    let mut s = String::new();
    for i in 0..r.below(8) {
        if i > 0 || r.chance(5) {
            s.push(',');
        }
        let mut name = r.pick(names).to_string();
        if r.chance(10) {
            name = name.to_uppercase();
        }
        if r.chance(5) {
            name.truncate(r.below(name.len() + 1));
        }
        s.push_str(&name);
        if r.chance(50) {
            s.push(':');
            if r.chance(40) {
                s.push('.');
            }
            s.push_str(&width(r));
            if r.chance(20) {
                s.push_str(r.pick(&["|", " ", "x", ":", "::3", ".", "%"]));
            }
        }
        if r.chance(10) {
            s.push_str(r.pick(NOISE));
        }
    }
    s
}

/// sacct `-o`: `name[%width]` items separated by commas.
pub fn sacct_format(r: &mut Rng) -> String {
    let mut s = String::new();
    for i in 0..r.below(8) {
        if i > 0 || r.chance(5) {
            s.push(',');
        }
        let (_, _, name) = FIELDS[r.below(FIELDS.len())];
        let mut name = name.to_string();
        if r.chance(20) {
            name = name.to_lowercase();
        }
        if r.chance(5) {
            name.truncate(r.below(name.len() + 1));
        }
        s.push_str(&name);
        if r.chance(40) {
            s.push('%');
            if r.chance(10) {
                s.push('-');
            }
            s.push_str(&width(r));
        }
        if r.chance(8) {
            s.push_str(r.pick(NOISE));
        }
    }
    if r.chance(3) {
        s.push_str(",ALL%5");
    }
    s
}

/// SLURM_TIME_FORMAT: strftime conversions, valid and not, with text between.
pub fn time_format(r: &mut Rng) -> String {
    const CONV: &[&str] = &[
        "%Y", "%m", "%d", "%H", "%M", "%S", "%T", "%F", "%a", "%b", "%e", "%j", "%Z", "%z", "%:z",
        "%s", "%p", "%I", "%-d", "%_H", "%0e", "%E", "%O", "%q", "%", "%%", "%#", "%.3f", "%C",
        "%G", "%V", "%u", "%k", "%n", "%t", "%c", "%x", "%X", "%r", "%R", "%D",
    ];
    match r.below(20) {
        0 => return "standard".to_string(),
        1 => return "relative".to_string(),
        2 => return String::new(),
        _ => {}
    }
    let mut s = String::new();
    for _ in 0..r.below(8) {
        if r.chance(75) {
            s.push_str(r.pick(CONV));
        } else {
            s.push_str(r.pick(NOISE));
        }
    }
    s
}
