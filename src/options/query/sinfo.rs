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
