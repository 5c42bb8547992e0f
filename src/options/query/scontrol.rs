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
// 24.11's options (`scontrol.c` of 24.11.5).
pub const JSON: i32 = 0x104;
pub const YAML: i32 = 0x105;
pub const AUTOCOMP: i32 = 0x106;

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

/// 24.11's table, in its order: `--autocomplete`, and `--json`/`--yaml` with an optional
/// data_parser.
pub const LONG_24_11: &[LongOpt] = &[
    long("autocomplete", HasArg::Required, AUTOCOMP),
    long("all", HasArg::No, c('a')),
    long("cluster", HasArg::Required, c('M')),
    long("clusters", HasArg::Required, c('M')),
    long("details", HasArg::No, c('d')),
    long("federation", HasArg::No, FEDERATION),
    long("future", HasArg::No, c('F')),
    long("help", HasArg::No, c('h')),
    long("hide", HasArg::No, HIDE),
    long("json", HasArg::Optional, JSON),
    long("local", HasArg::No, LOCAL),
    long("oneliner", HasArg::No, c('o')),
    long("quiet", HasArg::No, c('Q')),
    long("sibling", HasArg::No, SIBLING),
    long("uid", HasArg::Required, c('u')),
    long("usage", HasArg::No, c('h')),
    long("verbose", HasArg::No, c('v')),
    long("version", HasArg::No, c('V')),
    long("yaml", HasArg::Optional, YAML),
];

/// The long options of the profile's release.
pub fn long_options(profile: &crate::model::profile::Profile) -> &'static [LongOpt] {
    if profile.scontrol.data_and_list_commands {
        LONG_24_11
    } else {
        LONG
    }
}
