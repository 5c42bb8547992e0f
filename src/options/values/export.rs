//! `--export`: how sbatch 22.05 builds the job's environment (`_fill_job_desc_from_opts`
//! in `src/sbatch/sbatch.c`; `env_merge_filter`, `find_quote_token`,
//! `env_array_merge_slurm` in `src/common/env.c`).
//!
//! | value | job environment |
//! |---|---|
//! | unset, `ALL` (any case) | the whole submit environment |
//! | `NONE` (any case) | only variables whose names start with `SLURM`; the user's login environment is loaded on the node (SLURM_GET_USER_ENV=1) |
//! | anything else | a comma list: `ALL` adds everything, `NAME=value` sets, `NAME` copies from the submit environment; then every `SLURM_*` variable of the submit environment is added (overriding the list); SLURM_GET_USER_ENV=1 |
//!
//! Tokens are split at commas outside quotes; a token wholly in matching quotes loses
//! them (`"A=1,2"` → `A=1,2`), other quotes stay in the value (`A="1,2"` sets `A` to
//! `"1,2"`). `NIL` did not exist in 22.05: it is taken as a variable name (so it exports
//! only `NIL`, if set, and the `SLURM_*` variables).
//!
//! SLURM_GET_USER_ENV=1 asks the node to load the user's login environment: on 22.05.8
//! the job then also has the login shell's variables (HOME, PATH, SHELL, USER, LOGNAME,
//! MAIL, ...) for every name the exported environment does not set; that merge is the
//! launcher's job.
//!
//! The submit environment must already contain what sbatch sets before building the job
//! (SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_UMASK, SLURM_PRIO_PROCESS,
//! SLURM_EXPORT_ENV, SLURM_JOB_DEPENDENCY, ...), since those pass every filter.

use std::collections::BTreeMap;

/// Longest variable name Slurm copies (its name buffer is 256 bytes).
const MAX_NAME: usize = 255;
/// Longest value Slurm copies (ENV_BUFSIZE is 256 KiB including the NUL).
const MAX_VALUE: usize = 256 * 1024 - 1;

/// One token of an `--export` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportItem {
    /// `ALL` inside a list.
    All,
    /// `NAME`: copy from the submit environment, if set there.
    Name(String),
    /// `NAME=value`.
    Set(String, String),
}

/// A parsed `--export`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportSpec {
    All,
    None,
    List {
        items: Vec<ExportItem>,
        /// Slurm's `Improperly formed environment variable (<token>)` errors, printed
        /// (as `error:` lines) when the job is built; the token is still used.
        warnings: Vec<String>,
    },
}

/// One token of the value: where it is in the string, and its text without the quotes
/// that enclose it whole.
struct Token {
    span: std::ops::Range<usize>,
    text: String,
}

/// `find_quote_token` over the whole value.
fn quote_tokens(s: &str) -> (Vec<String>, Vec<String>) {
    let (tokens, warnings) = token_spans(s);
    (tokens.into_iter().map(|t| t.text).collect(), warnings)
}

fn token_spans(s: &str) -> (Vec<Token>, Vec<String>) {
    let b = s.as_bytes();
    let mut tokens = Vec::new();
    let mut warnings = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let (mut single, mut double) = (false, false);
        let mut i = start;
        loop {
            let c = b.get(i).copied().unwrap_or(0);
            if c == b'\'' {
                single = !single;
            } else if c == b'"' {
                double = !double;
            } else if (c == b',' || c == 0) && !single && !double {
                let mut tok = &b[start..i];
                if tok.len() >= 2
                    && ((tok[0] == b'\'' && tok[tok.len() - 1] == b'\'')
                        || (tok[0] == b'"' && tok[tok.len() - 1] == b'"'))
                {
                    tok = &tok[1..tok.len() - 1];
                }
                tokens.push(Token {
                    span: start..i,
                    text: String::from_utf8_lossy(tok).into_owned(),
                });
                start = if c == 0 { b.len() } else { i + 1 };
                break;
            } else if c == 0 {
                let tok = String::from_utf8_lossy(&b[start..i]).into_owned();
                warnings.push(format!("Improperly formed environment variable ({tok})"));
                tokens.push(Token {
                    span: start..i,
                    text: tok,
                });
                start = b.len();
                break;
            }
            i += 1;
        }
    }
    (tokens, warnings)
}

/// The `--export` value as a job may carry it (SLURM_EXPORT_ENV, the job's stored
/// request): each `NAME=value` whose name says it is a credential keeps only its name. The
/// variable itself still reaches the job; its value is not copied into text the platform
/// stores and shows.
pub fn without_credential_values(raw: &str) -> String {
    let (tokens, _) = token_spans(raw);
    let mut out = String::with_capacity(raw.len());
    let mut at = 0;
    for t in tokens {
        let Some((name, _)) = t.text.split_once('=') else {
            continue;
        };
        if !crate::envvars::looks_like_credential(name) {
            continue;
        }
        out.push_str(&raw[at..t.span.start]);
        out.push_str(name);
        at = t.span.end;
    }
    out.push_str(&raw[at..]);
    out
}

/// Reads an `--export` value. Never fails: sbatch accepts any string here.
pub fn parse_export(s: &str) -> ExportSpec {
    let s = &s[..s.find('\0').unwrap_or(s.len())];
    if s.eq_ignore_ascii_case("ALL") {
        return ExportSpec::All;
    }
    if s.eq_ignore_ascii_case("NONE") {
        return ExportSpec::None;
    }
    let (tokens, warnings) = quote_tokens(s);
    let items = tokens
        .into_iter()
        .map(|t| {
            if t.eq_ignore_ascii_case("ALL") {
                ExportItem::All
            } else if let Some((name, value)) = t.split_once('=') {
                ExportItem::Set(name.to_string(), value.to_string())
            } else {
                ExportItem::Name(t)
            }
        })
        .collect();
    ExportSpec::List { items, warnings }
}

impl ExportSpec {
    /// The SLURM_EXPORT_ENV sbatch sets (the raw value) unless the spec is ALL.
    pub fn sets_export_env(&self) -> bool {
        !matches!(self, ExportSpec::All)
    }
}

/// `env_array_overwrite` through `_env_array_entry_splitter`'s size limits.
fn put(env: &mut BTreeMap<String, String>, name: &str, value: &str) {
    if name.len() <= MAX_NAME && value.len() <= MAX_VALUE {
        env.insert(name.to_string(), value.to_string());
    }
}

/// The environment the job starts with, from `spec` (None = option not given) and the
/// submit environment. `get_user_env` is true when `--get-user-env` was given; Slurm then
/// adds SLURM_GET_USER_ENV=1, as it does for `NONE` and for lists.
pub fn job_environment(
    spec: Option<&ExportSpec>,
    submit_env: &BTreeMap<String, String>,
    get_user_env: bool,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    let mut user_env = get_user_env;
    let merge_all = |env: &mut BTreeMap<String, String>| {
        for (k, v) in submit_env {
            put(env, k, v);
        }
    };
    match spec {
        None | Some(ExportSpec::All) => merge_all(&mut env),
        Some(ExportSpec::None) => {
            for (k, v) in submit_env.iter().filter(|(k, _)| k.starts_with("SLURM")) {
                put(&mut env, k, v);
            }
            user_env = true;
        }
        Some(ExportSpec::List { items, .. }) => {
            for item in items {
                match item {
                    ExportItem::All => merge_all(&mut env),
                    ExportItem::Set(k, v) => put(&mut env, k, v),
                    ExportItem::Name(k) => {
                        if let Some(v) = submit_env.get(k) {
                            put(&mut env, k, v);
                        }
                    }
                }
            }
            for (k, v) in submit_env.iter().filter(|(k, _)| k.starts_with("SLURM_")) {
                put(&mut env, k, v);
            }
            user_env = true;
        }
    }
    if user_env {
        env.insert("SLURM_GET_USER_ENV".to_string(), "1".to_string());
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_values_are_left_out_of_the_export_string() {
        assert_eq!(
            without_credential_values("ALL,BACKEND_SECRET_KEY=s3cr3t,A=1"),
            "ALL,BACKEND_SECRET_KEY,A=1"
        );
        assert_eq!(
            without_credential_values("\"GITHUB_TOKEN=a,b\",PATH,db_password='x'"),
            "GITHUB_TOKEN,PATH,db_password"
        );
        assert_eq!(without_credential_values("NONE"), "NONE");
        assert_eq!(without_credential_values("A=1,B"), "A=1,B");
    }
    use crate::options::values::fuzz;

    fn submit() -> BTreeMap<String, String> {
        [
            ("HOME", "/home/a"),
            ("PATH", "/bin"),
            ("FOO", "foo"),
            ("SLURM_SUBMIT_DIR", "/w"),
            ("SLURMD_X", "d"),
            ("SLURM_EXPORT_ENV", "x"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }
    fn keys(env: &BTreeMap<String, String>) -> Vec<&str> {
        env.keys().map(String::as_str).collect()
    }

    #[test]
    fn parse_forms() {
        assert_eq!(parse_export("ALL"), ExportSpec::All);
        assert_eq!(parse_export("all"), ExportSpec::All);
        assert_eq!(parse_export("None"), ExportSpec::None);
        let ExportSpec::List { items, warnings } = parse_export("ALL,A=1,B") else {
            panic!()
        };
        assert_eq!(
            items,
            vec![
                ExportItem::All,
                ExportItem::Set("A".into(), "1".into()),
                ExportItem::Name("B".into())
            ]
        );
        assert!(warnings.is_empty());
        assert_eq!(
            parse_export("NIL"),
            ExportSpec::List {
                items: vec![ExportItem::Name("NIL".into())],
                warnings: vec![]
            }
        );
        assert_eq!(
            parse_export(""),
            ExportSpec::List {
                items: vec![],
                warnings: vec![]
            }
        );
    }

    #[test]
    fn quoting() {
        let ExportSpec::List { items, .. } = parse_export("\"A=1,2\",B='x,y',C=3,,D") else {
            panic!()
        };
        assert_eq!(
            items,
            vec![
                ExportItem::Set("A".into(), "1,2".into()),
                ExportItem::Set("B".into(), "'x,y'".into()),
                ExportItem::Set("C".into(), "3".into()),
                ExportItem::Name("".into()),
                ExportItem::Name("D".into()),
            ]
        );
        let ExportSpec::List { items, warnings } = parse_export("A=1,B='oops") else {
            panic!()
        };
        assert_eq!(items[1], ExportItem::Set("B".into(), "'oops".into()));
        assert_eq!(
            warnings,
            vec!["Improperly formed environment variable (B='oops)".to_string()]
        );
        let ExportSpec::List { items, .. } = parse_export("X=a=b") else {
            panic!()
        };
        assert_eq!(items, vec![ExportItem::Set("X".into(), "a=b".into())]);
    }

    #[test]
    fn all_and_unset_copy_everything() {
        let env = job_environment(None, &submit(), false);
        assert_eq!(env, submit());
        let env = job_environment(Some(&ExportSpec::All), &submit(), false);
        assert_eq!(env, submit());
        let env = job_environment(Some(&ExportSpec::All), &submit(), true);
        assert_eq!(env["SLURM_GET_USER_ENV"], "1");
    }

    #[test]
    fn none_keeps_slurm_prefixed() {
        let env = job_environment(Some(&parse_export("NONE")), &submit(), false);
        assert_eq!(
            keys(&env),
            vec![
                "SLURMD_X",
                "SLURM_EXPORT_ENV",
                "SLURM_GET_USER_ENV",
                "SLURM_SUBMIT_DIR"
            ]
        );
    }

    #[test]
    fn lists() {
        let env = job_environment(Some(&parse_export("FOO,BAR=2,MISSING")), &submit(), false);
        assert_eq!(
            keys(&env),
            vec![
                "BAR",
                "FOO",
                "SLURM_EXPORT_ENV",
                "SLURM_GET_USER_ENV",
                "SLURM_SUBMIT_DIR"
            ]
        );
        assert_eq!(env["BAR"], "2");
        let env = job_environment(Some(&parse_export("ALL,FOO=new")), &submit(), false);
        assert_eq!(env["FOO"], "new");
        assert_eq!(env["HOME"], "/home/a");
        assert_eq!(env["SLURM_GET_USER_ENV"], "1");
        // SLURM_* from the submit environment win over the list.
        let env = job_environment(Some(&parse_export("SLURM_SUBMIT_DIR=/x")), &submit(), false);
        assert_eq!(env["SLURM_SUBMIT_DIR"], "/w");
        // ...but not SLURMD_*, which only NONE keeps.
        assert!(!env.contains_key("SLURMD_X"));
        let env = job_environment(Some(&parse_export("NIL")), &submit(), false);
        assert_eq!(
            keys(&env),
            vec!["SLURM_EXPORT_ENV", "SLURM_GET_USER_ENV", "SLURM_SUBMIT_DIR"]
        );
        assert!(parse_export("NIL").sets_export_env());
        assert!(!parse_export("ALL").sets_export_env());
    }

    #[test]
    fn size_limits() {
        let long = "N".repeat(256);
        let env = job_environment(Some(&parse_export(&format!("{long}=1"))), &submit(), false);
        assert!(!env.contains_key(&long));
    }

    #[test]
    fn never_panics() {
        for s in fuzz::strings(37, "AB=,'\"LNOE", 20, 20000) {
            let _ = job_environment(Some(&parse_export(&s)), &submit(), false);
        }
    }
}
