//! `scontrol`'s options, as `src/scontrol/scontrol.c` declares them: the short option
//! letters (`SHORT`, getopt's optstring), the long options in Slurm's table order (`LONG`)
//! and the values of those without a letter. `commands/scontrol.rs` parses with them;
//! `generate/` builds the man page and completions from them.

use super::c;
use crate::options::getopt::{HasArg, LongOpt, long};

pub const SHORT: &str = "adhM:FoQu:vV";

pub const FEDERATION: i32 = 0x100;
pub const HIDE: i32 = 0x101;
pub const LOCAL: i32 = 0x102;
pub const SIBLING: i32 = 0x103;

pub const LONG: &[LongOpt] = &[
    long("all", HasArg::No, c('a')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("details", HasArg::No, c('d')),
    long("federation", HasArg::No, FEDERATION),
    long("future", HasArg::No, c('F')),
    long("help", HasArg::No, c('h')),
    long("hide", HasArg::No, HIDE),
    long("local", HasArg::No, LOCAL),
    long("oneliner", HasArg::No, c('o')),
    long("quiet", HasArg::No, c('Q')),
    long("sibling", HasArg::No, SIBLING),
    long("uid", HasArg::Required, c('u')),
    long("usage", HasArg::No, c('h')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
];
