//! Dynamic completion: what a user types next that only the cluster knows (job ids,
//! partition names), added to clap_complete's static scripts. The scripts ask
//! `bai-slurm __complete jobs|partitions`, which prints one candidate a line and nothing
//! on errors.
//!
//! - bash: a wrapper function handles the dynamic cases and hands everything else to
//!   clap's function; its `complete` line, later in the file, takes over the command.
//! - zsh: the `_default` action of each dynamic argument's spec becomes a function that
//!   asks bai-slurm.
//! - fish: extra `complete` lines for the same options (fish merges them).

use super::defs::{Def, Dynamic, SHOW_ENTITIES, scontrol_job_keywords};
use clap::Arg;
use clap_complete::Shell;

pub fn add(def: &Def, shell: Shell, script: String) -> String {
    let name = def.cmd.get_name();
    let is_scontrol = name == "scontrol";
    if def.dynamic.is_empty() && !is_scontrol {
        return script;
    }
    match shell {
        Shell::Bash => format!("{script}{}", bash(def)),
        Shell::Zsh => zsh(def, script),
        Shell::Fish => format!("{script}{}", fish(def)),
        _ => script,
    }
}

fn words(kind: Dynamic) -> &'static str {
    match kind {
        Dynamic::Jobs => "jobs",
        Dynamic::Partitions => "partitions",
    }
}

fn arg<'a>(def: &'a Def, id: &str) -> &'a Arg {
    def.cmd
        .get_arguments()
        .find(|a| a.get_id() == id)
        .unwrap_or_else(|| panic!("{}: no argument {id}", def.cmd.get_name()))
}

/// Every spelling of an option: `-p`, `--partition`, `--partitions`.
fn spellings(a: &Arg) -> Vec<String> {
    let mut s = Vec::new();
    if let Some(c) = a.get_short() {
        s.push(format!("-{c}"));
    }
    if let Some(l) = a.get_long() {
        s.push(format!("--{l}"));
    }
    for al in a.get_all_aliases().unwrap_or_default() {
        s.push(format!("--{al}"));
    }
    s
}

/// The spellings of the options that take a value (their next word is not an operand).
fn value_options(def: &Def) -> Vec<String> {
    def.cmd
        .get_arguments()
        .filter(|a| !a.is_positional() && a.get_action().takes_values())
        .filter(|a| !a.is_require_equals_set())
        .flat_map(spellings)
        .collect()
}

const BASH_HELPERS: &str = r#"
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
_bai_slurm_words() {
    COMPREPLY=($(compgen -W "$(bai-slurm __complete "$1" 2>/dev/null)" -- "$2"))
}
"#;

fn bash(def: &Def) -> String {
    let name = def.cmd.get_name();
    let func = format!("_bai_slurm_dyn_{name}");
    let mut s = String::from(BASH_HELPERS);
    s.push_str(&format!(
        "{func}() {{\n    local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n    \
         # --opt=value: bash splits at '='.\n    \
         if [[ $prev == \"=\" && $COMP_CWORD -ge 2 ]]; then prev=\"${{COMP_WORDS[COMP_CWORD-2]}}\"; fi\n"
    ));
    let mut cases = String::new();
    let mut positional = None;
    for &(id, kind) in &def.dynamic {
        let a = arg(def, id);
        if a.is_positional() {
            positional = Some(kind);
            continue;
        }
        cases.push_str(&format!(
            "        {}) _bai_slurm_words {} \"$cur\"; return 0 ;;\n",
            spellings(a).join("|"),
            words(kind)
        ));
    }
    if !cases.is_empty() {
        s.push_str(&format!("    case \"$prev\" in\n{cases}    esac\n"));
    }
    if let Some(kind) = positional {
        s.push_str(&format!(
            "    if [[ $cur != -* ]]; then\n        case \"$prev\" in\n            {}) ;;\n            \
             *) _bai_slurm_words {} \"$cur\"; return 0 ;;\n        esac\n    fi\n",
            value_options(def).join("|"),
            words(kind)
        ));
    }
    if name == "scontrol" {
        s.push_str(&scontrol_bash(def));
    }
    s.push_str(&format!(
        "    _{name} \"$@\"\n}}\ncomplete -F {func} -o bashdefault -o default {name}\n"
    ));
    s
}

/// scontrol: the keyword is the first word that is not an option; `show job|partition`
/// and the job-list keywords take job ids or partition names.
fn scontrol_bash(def: &Def) -> String {
    let skip = value_options(def).join("|");
    let jobs_kw: Vec<&str> = scontrol_job_keywords().collect();
    format!(
        r#"    local i kw="" at=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${{COMP_WORDS[i]}}" in
            {skip}) ((i++)) ;;
            -*) ;;
            *) kw="${{COMP_WORDS[i]}}"; at=$i; break ;;
        esac
    done
    case "$kw" in
        show)
            if ((COMP_CWORD == at + 1)); then
                COMPREPLY=($(compgen -W "{entities}" -- "$cur")); return 0
            elif ((COMP_CWORD == at + 2)); then
                case "${{COMP_WORDS[at+1]}}" in
                    job*) _bai_slurm_words jobs "$cur"; return 0 ;;
                    part*) _bai_slurm_words partitions "$cur"; return 0 ;;
                esac
            fi ;;
        {jobs_kw})
            _bai_slurm_words jobs "$cur"; return 0 ;;
    esac
"#,
        entities = SHOW_ENTITIES.join(" "),
        jobs_kw = jobs_kw.join("|"),
    )
}

const ZSH_HELPERS: &str = r#"
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
(( $+functions[_bai_slurm_jobs] )) ||
_bai_slurm_jobs() {
    local -a ids
    ids=(${(f)"$(bai-slurm __complete jobs 2>/dev/null)"})
    _wanted jobs expl 'job id' compadd -a ids
}
(( $+functions[_bai_slurm_partitions] )) ||
_bai_slurm_partitions() {
    local -a parts
    parts=(${(f)"$(bai-slurm __complete partitions 2>/dev/null)"})
    _wanted partitions expl 'partition' compadd -a parts
}
(( $+functions[_bai_slurm_show_id] )) ||
_bai_slurm_show_id() {
    case $line[1] in
        job*) _bai_slurm_jobs ;;
        part*) _bai_slurm_partitions ;;
        *) _default ;;
    esac
}
"#;

fn zsh_function(kind: Dynamic) -> &'static str {
    match kind {
        Dynamic::Jobs => "_bai_slurm_jobs",
        Dynamic::Partitions => "_bai_slurm_partitions",
    }
}

/// Points the `_default` action of the spec lines that start with one of `prefixes` at
/// `function`; panics when none does, so a change in clap_complete's output is noticed.
fn zsh_retarget(script: &str, prefixes: &[String], function: &str) -> String {
    let mut hits = 0;
    let out: Vec<String> = script
        .lines()
        .map(|l| {
            if prefixes.iter().any(|p| l.starts_with(p.as_str()))
                && let Some(at) = l.rfind(":_default'")
            {
                hits += 1;
                return format!("{}:{function}{}", &l[..at], &l[at + ":_default".len()..]);
            }
            l.to_string()
        })
        .collect();
    assert!(hits > 0, "no zsh spec starts with {prefixes:?}");
    out.join("\n") + "\n"
}

fn zsh(def: &Def, mut script: String) -> String {
    for &(id, kind) in &def.dynamic {
        let a = arg(def, id);
        let prefixes: Vec<String> = if a.is_positional() {
            vec![format!("'*::{id}"), format!("':{id}"), format!("'::{id}")]
        } else {
            spellings(a)
                .iter()
                .flat_map(|s| {
                    if s.starts_with("--") {
                        vec![format!("'{s}=["), format!("'{s}+[")]
                    } else {
                        vec![format!("'{s}+["), format!("'{s}=[")]
                    }
                })
                .collect()
        };
        script = zsh_retarget(&script, &prefixes, zsh_function(kind));
    }
    if def.cmd.get_name() == "scontrol" {
        script = zsh_retarget(&script, &["'*::job_ids".to_string()], "_bai_slurm_jobs");
        script = zsh_retarget(&script, &["'::ID".to_string()], "_bai_slurm_show_id");
    }
    let tail = "\nif [ \"$funcstack[1]\" = ";
    let at = script
        .rfind(tail)
        .expect("clap_complete's zsh script ends with its dispatch");
    format!("{}{ZSH_HELPERS}{}", &script[..at], &script[at..])
}

fn fish(def: &Def) -> String {
    let name = def.cmd.get_name();
    let mut s = String::from(
        "# bai-slurm: job ids and partition names come from `bai-slurm __complete`.\n",
    );
    for &(id, kind) in &def.dynamic {
        let a = arg(def, id);
        let source = format!("'(bai-slurm __complete {} 2>/dev/null)'", words(kind));
        if a.is_positional() {
            s.push_str(&format!("complete -c {name} -f -a {source}\n"));
            continue;
        }
        let mut line = format!("complete -c {name}");
        if let Some(c) = a.get_short() {
            line.push_str(&format!(" -s {c}"));
        }
        if let Some(l) = a.get_long() {
            line.push_str(&format!(" -l {l}"));
        }
        for al in a.get_all_aliases().unwrap_or_default() {
            line.push_str(&format!(" -l {al}"));
        }
        s.push_str(&format!("{line} -x -a {source}\n"));
    }
    if name == "scontrol" {
        let jobs_kw: Vec<&str> = scontrol_job_keywords().collect();
        s.push_str(&format!(
            "complete -c scontrol -n '__fish_seen_subcommand_from {}' -f -a '(bai-slurm __complete jobs 2>/dev/null)'\n",
            jobs_kw.join(" ")
        ));
        s.push_str(
            "complete -c scontrol -n '__fish_seen_subcommand_from show; and __fish_seen_subcommand_from job' -f -a '(bai-slurm __complete jobs 2>/dev/null)'\n",
        );
        s.push_str(
            "complete -c scontrol -n '__fish_seen_subcommand_from show; and __fish_seen_subcommand_from partition' -f -a '(bai-slurm __complete partitions 2>/dev/null)'\n",
        );
    }
    s
}
