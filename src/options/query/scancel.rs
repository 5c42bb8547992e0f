//! `scancel`'s options, as `src/scancel/opt.c` declares them: the short option letters
//! (`SHORT`, getopt's optstring), the long options in Slurm's table order (`LONG`) and the
//! values of those without a letter. `commands/scancel.rs` parses with them; `generate/`
//! builds the man page and completions from them.

use super::c;
use crate::options::getopt::{HasArg, LongOpt, long};

pub const SHORT: &str = "A:bfHiM:n:p:Qq:R:s:t:u:vVw:";
pub const OPT_CTLD: i32 = 0x100;
pub const OPT_HELP: i32 = 0x101;
pub const OPT_ME: i32 = 0x102;
pub const OPT_SIBLING: i32 = 0x103;
pub const OPT_USAGE: i32 = 0x104;
pub const OPT_WCKEY: i32 = 0x105;

/// `long_options[]` of src/scancel/opt.c, in its order.
pub const LONG: &[LongOpt] = &[
    long("account", HasArg::Required, c('A')),
    long("batch", HasArg::No, c('b')),
    long("ctld", HasArg::No, OPT_CTLD),
    long("full", HasArg::No, c('f')),
    long("help", HasArg::No, OPT_HELP),
    long("hurry", HasArg::No, c('H')),
    long("interactive", HasArg::No, c('i')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("jobname", HasArg::Required, c('n')),
    long("me", HasArg::No, OPT_ME),
    long("name", HasArg::Required, c('n')),
    long("nodelist", HasArg::Required, c('w')),
    long("partition", HasArg::Required, c('p')),
    long("qos", HasArg::Required, c('q')),
    long("quiet", HasArg::No, c('Q')),
    long("reservation", HasArg::Required, c('R')),
    long("sibling", HasArg::Required, OPT_SIBLING),
    long("signal", HasArg::Required, c('s')),
    long("state", HasArg::Required, c('t')),
    long("usage", HasArg::No, OPT_USAGE),
    long("user", HasArg::Required, c('u')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("wckey", HasArg::Required, OPT_WCKEY),
];
