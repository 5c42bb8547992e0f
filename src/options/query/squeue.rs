//! `squeue`'s options, as `src/squeue/opts.c` declares them: the short option letters
//! (`SHORT`, getopt's optstring), the long options in Slurm's table order (`LONG`) and the
//! values of those without a letter. `commands/squeue.rs` parses with them; `generate/`
//! builds the man page and completions from them.

use super::c;
use crate::options::getopt::{HasArg, LongOpt, long};

pub const SHORT: &str = "A:ahi:j::lL:n:M:O:o:p:Pq:R:rs::S:t:u:U:vVw:";

pub const HELP: i32 = 0x100;
pub const USAGE: i32 = 0x101;
pub const HIDE: i32 = 0x102;
pub const START: i32 = 0x103;
pub const NOCONVERT: i32 = 0x104;
pub const ARRAY_UNIQUE: i32 = 0x105;
pub const LOCAL: i32 = 0x106;
pub const SIBLING: i32 = 0x107;
pub const FEDERATION: i32 = 0x108;
pub const ME: i32 = 0x109;
pub const JSON: i32 = 0x110;
pub const YAML: i32 = 0x111;
// 24.11's options (`opts.c` of 24.11.5).
pub const HELPSTATE: i32 = 0x112;
pub const HELPFORMAT: i32 = 0x113;
pub const HELPFORMAT2: i32 = 0x114;
pub const ONLY_JOB_STATE: i32 = 0x115;
pub const NOTME: i32 = 0x116;
pub const EXPAND_PATTERNS: i32 = 0x117;
pub const AUTOCOMP: i32 = 0x118;

/// The long options of `parse_command_line`, in Slurm's table order (it decides which
/// candidates an ambiguous prefix lists).
pub const LONG: &[LongOpt] = &[
    long("accounts", HasArg::Required, c('A')),
    long("all", HasArg::No, c('a')),
    long("array", HasArg::No, c('r')),
    long("array-unique", HasArg::No, ARRAY_UNIQUE),
    long("Format", HasArg::Required, c('O')),
    long("format", HasArg::Required, c('o')),
    long("federation", HasArg::No, FEDERATION),
    long("help", HasArg::No, HELP),
    long("hide", HasArg::No, HIDE),
    long("iterate", HasArg::Required, c('i')),
    long("jobs", HasArg::Optional, c('j')),
    long("local", HasArg::No, LOCAL),
    long("long", HasArg::No, c('l')),
    long("licenses", HasArg::Required, c('L')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("me", HasArg::No, ME),
    long("name", HasArg::Required, c('n')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("node", HasArg::Required, c('w')),
    long("nodes", HasArg::Required, c('w')),
    long("nodelist", HasArg::Required, c('w')),
    long("noheader", HasArg::No, c('h')),
    long("partitions", HasArg::Required, c('p')),
    long("priority", HasArg::No, c('P')),
    long("qos", HasArg::Required, c('q')),
    long("reservation", HasArg::Required, c('R')),
    long("sib", HasArg::No, SIBLING),
    long("sibling", HasArg::No, SIBLING),
    long("sort", HasArg::Required, c('S')),
    long("start", HasArg::No, START),
    long("steps", HasArg::Optional, c('s')),
    long("states", HasArg::Required, c('t')),
    long("usage", HasArg::No, USAGE),
    long("user", HasArg::Required, c('u')),
    long("users", HasArg::Required, c('u')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("json", HasArg::No, JSON),
    long("yaml", HasArg::No, YAML),
];

/// 24.11's table, in its order: `--helpstate`, `--helpformat`, `--helpFormat`,
/// `--only-job-state`, `--notme`, `--expand-patterns`, `--autocomplete` are new,
/// `--array-unique` is gone, and `--json`/`--yaml` take an optional data_parser.
pub const LONG_24_11: &[LongOpt] = &[
    long("autocomplete", HasArg::Required, AUTOCOMP),
    long("accounts", HasArg::Required, c('A')),
    long("all", HasArg::No, c('a')),
    long("array", HasArg::No, c('r')),
    long("expand-patterns", HasArg::No, EXPAND_PATTERNS),
    long("Format", HasArg::Required, c('O')),
    long("format", HasArg::Required, c('o')),
    long("federation", HasArg::No, FEDERATION),
    long("help", HasArg::No, HELP),
    long("helpstate", HasArg::No, HELPSTATE),
    long("helpformat", HasArg::No, HELPFORMAT),
    long("helpFormat", HasArg::No, HELPFORMAT2),
    long("hide", HasArg::No, HIDE),
    long("iterate", HasArg::Required, c('i')),
    long("jobs", HasArg::Optional, c('j')),
    long("local", HasArg::No, LOCAL),
    long("long", HasArg::No, c('l')),
    long("licenses", HasArg::Required, c('L')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("me", HasArg::No, ME),
    long("name", HasArg::Required, c('n')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("node", HasArg::Required, c('w')),
    long("nodes", HasArg::Required, c('w')),
    long("nodelist", HasArg::Required, c('w')),
    long("noheader", HasArg::No, c('h')),
    long("notme", HasArg::No, NOTME),
    long("only-job-state", HasArg::No, ONLY_JOB_STATE),
    long("partitions", HasArg::Required, c('p')),
    long("priority", HasArg::No, c('P')),
    long("qos", HasArg::Required, c('q')),
    long("reservation", HasArg::Required, c('R')),
    long("sib", HasArg::No, SIBLING),
    long("sibling", HasArg::No, SIBLING),
    long("sort", HasArg::Required, c('S')),
    long("start", HasArg::No, START),
    long("steps", HasArg::Optional, c('s')),
    long("states", HasArg::Required, c('t')),
    long("usage", HasArg::No, USAGE),
    long("user", HasArg::Required, c('u')),
    long("users", HasArg::Required, c('u')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("json", HasArg::Optional, JSON),
    long("yaml", HasArg::Optional, YAML),
];

/// The long options of the profile's release.
pub fn long_options(profile: &crate::model::profile::Profile) -> &'static [LongOpt] {
    if profile.squeue.new_options {
        LONG_24_11
    } else {
        LONG
    }
}
