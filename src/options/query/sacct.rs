//! `sacct`'s options, as `src/sacct/options.c` declares them: the short option letters
//! (`SHORT`, getopt's optstring), the long options in Slurm's table order (`LONG`) and the
//! values of those without a letter. `commands/sacct.rs` parses with them; `generate/`
//! builds the man page and completions from them.

use super::c;
use crate::options::getopt::{HasArg, LongOpt, long};

pub const SHORT: &str = "aA:bBcC:DeE:f:F:g:hi:I:j:k:K:lLM:nN:o:pPq:r:s:S:Ttu:UvVW:x:X";

pub const DELIMITER: i32 = 0x100;
pub const LOCAL: i32 = 0x101;
pub const NAME: i32 = 0x102;
pub const NOCONVERT: i32 = 0x103;
pub const UNITS: i32 = 0x104;
pub const FEDERATION: i32 = 0x105;
pub const WHOLE_HETJOB: i32 = 0x106;
pub const LOCAL_UID: i32 = 0x107;
pub const ENV: i32 = 0x108;
pub const JSON: i32 = 0x109;
pub const YAML: i32 = 0x110;

pub const LONG: &[LongOpt] = &[
    long("allusers", HasArg::No, c('a')),
    long("accounts", HasArg::Required, c('A')),
    long("allocations", HasArg::No, c('X')),
    long("brief", HasArg::No, c('b')),
    long("batch-script", HasArg::No, c('B')),
    long("completion", HasArg::No, c('c')),
    long("constraints", HasArg::Required, c('C')),
    long("delimiter", HasArg::Required, DELIMITER),
    long("duplicates", HasArg::No, c('D')),
    long("federation", HasArg::No, FEDERATION),
    long("helpformat", HasArg::No, c('e')),
    long("help-fields", HasArg::No, c('e')),
    long("endtime", HasArg::Required, c('E')),
    long("env-vars", HasArg::No, ENV),
    long("file", HasArg::Required, c('f')),
    long("flags", HasArg::Required, c('F')),
    long("gid", HasArg::Required, c('g')),
    long("group", HasArg::Required, c('g')),
    long("help", HasArg::No, c('h')),
    long("local", HasArg::No, LOCAL),
    long("name", HasArg::Required, NAME),
    long("nnodes", HasArg::Required, c('i')),
    long("ncpus", HasArg::Required, c('I')),
    long("jobs", HasArg::Required, c('j')),
    long("timelimit-min", HasArg::Required, c('k')),
    long("timelimit-max", HasArg::Required, c('K')),
    long("long", HasArg::No, c('l')),
    long("allclusters", HasArg::No, c('L')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("nodelist", HasArg::Required, c('N')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("units", HasArg::Required, UNITS),
    long("noheader", HasArg::No, c('n')),
    long("fields", HasArg::Required, c('o')),
    long("format", HasArg::Required, c('o')),
    long("parsable", HasArg::No, c('p')),
    long("parsable2", HasArg::No, c('P')),
    long("qos", HasArg::Required, c('q')),
    long("partition", HasArg::Required, c('r')),
    long("reason", HasArg::Required, c('R')),
    long("state", HasArg::Required, c('s')),
    long("starttime", HasArg::Required, c('S')),
    long("truncate", HasArg::No, c('T')),
    long("uid", HasArg::Required, c('u')),
    long("use-local-uid", HasArg::No, LOCAL_UID),
    long("usage", HasArg::No, c('U')),
    long("user", HasArg::Required, c('u')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("wckeys", HasArg::Required, c('W')),
    long("whole-hetjob", HasArg::Optional, WHOLE_HETJOB),
    long("associations", HasArg::Required, c('x')),
    long("json", HasArg::No, JSON),
    long("yaml", HasArg::No, YAML),
];

// 24.11's options (`options.c` of 24.11.5).
pub const ARRAY: i32 = 0x111;
pub const HELPREASON: i32 = 0x112;
pub const HELPSTATE: i32 = 0x113;
pub const EXPAND_PATTERNS: i32 = 0x114;
pub const AUTOCOMP: i32 = 0x115;

/// 24.11's table, in its order: `--autocomplete`, `--array`, `--helpreason`, `--helpstate`,
/// `--expand-patterns` are new, and `--json`/`--yaml` take an optional data_parser.
pub const LONG_24_11: &[LongOpt] = &[
    long("autocomplete", HasArg::Required, AUTOCOMP),
    long("allusers", HasArg::No, c('a')),
    long("accounts", HasArg::Required, c('A')),
    long("allocations", HasArg::No, c('X')),
    long("array", HasArg::No, ARRAY),
    long("brief", HasArg::No, c('b')),
    long("batch-script", HasArg::No, c('B')),
    long("completion", HasArg::No, c('c')),
    long("constraints", HasArg::Required, c('C')),
    long("delimiter", HasArg::Required, DELIMITER),
    long("duplicates", HasArg::No, c('D')),
    long("federation", HasArg::No, FEDERATION),
    long("helpformat", HasArg::No, c('e')),
    long("help-fields", HasArg::No, c('e')),
    long("helpreason", HasArg::No, HELPREASON),
    long("helpstate", HasArg::No, HELPSTATE),
    long("endtime", HasArg::Required, c('E')),
    long("env-vars", HasArg::No, ENV),
    long("expand-patterns", HasArg::No, EXPAND_PATTERNS),
    long("file", HasArg::Required, c('f')),
    long("flags", HasArg::Required, c('F')),
    long("gid", HasArg::Required, c('g')),
    long("group", HasArg::Required, c('g')),
    long("help", HasArg::No, c('h')),
    long("local", HasArg::No, LOCAL),
    long("name", HasArg::Required, NAME),
    long("nnodes", HasArg::Required, c('i')),
    long("ncpus", HasArg::Required, c('I')),
    long("jobs", HasArg::Required, c('j')),
    long("timelimit-min", HasArg::Required, c('k')),
    long("timelimit-max", HasArg::Required, c('K')),
    long("long", HasArg::No, c('l')),
    long("allclusters", HasArg::No, c('L')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("nodelist", HasArg::Required, c('N')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("units", HasArg::Required, UNITS),
    long("noheader", HasArg::No, c('n')),
    long("fields", HasArg::Required, c('o')),
    long("format", HasArg::Required, c('o')),
    long("parsable", HasArg::No, c('p')),
    long("parsable2", HasArg::No, c('P')),
    long("qos", HasArg::Required, c('q')),
    long("partition", HasArg::Required, c('r')),
    long("reason", HasArg::Required, c('R')),
    long("state", HasArg::Required, c('s')),
    long("starttime", HasArg::Required, c('S')),
    long("truncate", HasArg::No, c('T')),
    long("uid", HasArg::Required, c('u')),
    long("use-local-uid", HasArg::No, LOCAL_UID),
    long("usage", HasArg::No, c('U')),
    long("user", HasArg::Required, c('u')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("wckeys", HasArg::Required, c('W')),
    long("whole-hetjob", HasArg::Optional, WHOLE_HETJOB),
    long("associations", HasArg::Required, c('x')),
    long("json", HasArg::Optional, JSON),
    long("yaml", HasArg::Optional, YAML),
];

/// The long options of the profile's release.
pub fn long_options(profile: &crate::model::profile::Profile) -> &'static [LongOpt] {
    if profile.sacct.new_options {
        LONG_24_11
    } else {
        LONG
    }
}
