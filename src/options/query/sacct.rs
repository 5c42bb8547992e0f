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

/// 24.11's table as far as bai-slurm follows it: `--json`/`--yaml` take an optional
/// data_parser. (24.11's `--array`, `--expand-pattern`, `--helpreason` and
/// `--helpstate` are not offered yet: they are refused as unknown options.)
pub fn long_options(
    profile: &crate::model::profile::Profile,
) -> std::borrow::Cow<'static, [LongOpt]> {
    if profile.data_parsers.is_empty() {
        return std::borrow::Cow::Borrowed(LONG);
    }
    std::borrow::Cow::Owned(
        LONG.iter()
            .map(|o| match o.val {
                JSON | YAML => long(o.name, HasArg::Optional, o.val),
                _ => *o,
            })
            .collect(),
    )
}
