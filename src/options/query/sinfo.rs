//! `sinfo`'s options, as `src/sinfo/opts.c` declares them: the short option letters
//! (`SHORT`, getopt's optstring), the long options in Slurm's table order (`LONG`) and the
//! values of those without a letter. `commands/sinfo.rs` parses with them; `generate/`
//! builds the man page and completions from them.

use super::c;
use crate::options::getopt::{HasArg, LongOpt, long};

pub const SHORT: &str = "adehi:lM:n:No:O:p:rRsS:t:TvV";

pub const HELP: i32 = 0x100;
pub const USAGE: i32 = 0x101;
pub const HIDE: i32 = 0x102;
pub const LOCAL: i32 = 0x103;
pub const NOCONVERT: i32 = 0x104;
pub const FEDERATION: i32 = 0x105;
pub const JSON: i32 = 0x106;
pub const YAML: i32 = 0x107;
// 24.11's options (`opts.c` of 24.11.5).
pub const HELPFORMAT: i32 = 0x108;
pub const HELPFORMAT2: i32 = 0x109;
pub const HELPSTATE: i32 = 0x10a;
pub const AUTOCOMP: i32 = 0x10b;

/// 24.11 adds `-F` (`--future`).
pub const SHORT_24_11: &str = "adeFhi:lM:n:No:O:p:rRsS:t:TvV";

pub const LONG: &[LongOpt] = &[
    long("all", HasArg::No, c('a')),
    long("dead", HasArg::No, c('d')),
    long("exact", HasArg::No, c('e')),
    long("federation", HasArg::No, FEDERATION),
    long("help", HasArg::No, HELP),
    long("hide", HasArg::No, HIDE),
    long("iterate", HasArg::Required, c('i')),
    long("local", HasArg::No, LOCAL),
    long("long", HasArg::No, c('l')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("nodes", HasArg::Required, c('n')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("noheader", HasArg::No, c('h')),
    long("Node", HasArg::No, c('N')),
    long("format", HasArg::Required, c('o')),
    long("Format", HasArg::Required, c('O')),
    long("partition", HasArg::Required, c('p')),
    long("responding", HasArg::No, c('r')),
    long("list-reasons", HasArg::No, c('R')),
    long("summarize", HasArg::No, c('s')),
    long("sort", HasArg::Required, c('S')),
    long("states", HasArg::Required, c('t')),
    long("reservation", HasArg::No, c('T')),
    long("usage", HasArg::No, USAGE),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("json", HasArg::No, JSON),
    long("yaml", HasArg::No, YAML),
];

/// 24.11's table, in its order: `--autocomplete`, `--future`, `--helpformat`,
/// `--helpFormat`, `--helpstate` are new, and `--json`/`--yaml` take an optional
/// data_parser.
pub const LONG_24_11: &[LongOpt] = &[
    long("autocomplete", HasArg::Required, AUTOCOMP),
    long("all", HasArg::No, c('a')),
    long("dead", HasArg::No, c('d')),
    long("exact", HasArg::No, c('e')),
    long("federation", HasArg::No, FEDERATION),
    long("future", HasArg::No, c('F')),
    long("help", HasArg::No, HELP),
    long("helpformat", HasArg::No, HELPFORMAT),
    long("helpFormat", HasArg::No, HELPFORMAT2),
    long("helpstate", HasArg::No, HELPSTATE),
    long("hide", HasArg::No, HIDE),
    long("iterate", HasArg::Required, c('i')),
    long("local", HasArg::No, LOCAL),
    long("long", HasArg::No, c('l')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("nodes", HasArg::Required, c('n')),
    long("noconvert", HasArg::No, NOCONVERT),
    long("noheader", HasArg::No, c('h')),
    long("Node", HasArg::No, c('N')),
    long("format", HasArg::Required, c('o')),
    long("Format", HasArg::Required, c('O')),
    long("partition", HasArg::Required, c('p')),
    long("responding", HasArg::No, c('r')),
    long("list-reasons", HasArg::No, c('R')),
    long("summarize", HasArg::No, c('s')),
    long("sort", HasArg::Required, c('S')),
    long("states", HasArg::Required, c('t')),
    long("reservation", HasArg::No, c('T')),
    long("usage", HasArg::No, USAGE),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("json", HasArg::Optional, JSON),
    long("yaml", HasArg::Optional, YAML),
];

/// The short letters and long options of the profile's release.
pub fn tables(profile: &crate::model::profile::Profile) -> (&'static str, &'static [LongOpt]) {
    if profile.sinfo.new_options {
        (SHORT_24_11, LONG_24_11)
    } else {
        (SHORT, LONG)
    }
}
