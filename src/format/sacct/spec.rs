//! sacct's field list (`-o`, `-b`, `-l`, SACCT_FORMAT, the default), parsed as
//! `parse_command_line` does it: case-insensitive prefixes in table order, `%W` widths.

use super::fields::{Field, fields_in};
use crate::model::cnum::{strncasecmp_eq, strtol};
use crate::model::profile::SacctDeltas;

pub const BRIEF_FIELDS: &str = "jobid,state,exitcode";
pub const DEFAULT_FIELDS: &str = "jobid,jobname,partition,account,alloccpus,state,exitcode";
pub const LONG_FIELDS: &str = "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt,tresusageoutave,tresusageouttot";

/// A printed column: the field and its width (negative = left-justified).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub field: Field,
    pub width: i32,
}

/// Why a field list was refused; the text is what Slurm prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecError {
    /// `error()`: `Invalid field requested: "X"`.
    Invalid(String),
    /// `fatal()`: the removed GRES fields.
    Fatal(String),
}

/// Parses the accumulated field list (each `-o` value followed by a comma).
/// A width given with `%` applies to every column of that field, as Slurm stores it in
/// its field table; an empty item ends the list, as Slurm's loop does.
pub fn parse(list: &str) -> Result<Vec<Column>, SpecError> {
    parse_in(
        list,
        crate::model::profile::Profile::default_profile().sacct,
    )
}

/// [`parse`] against the field table of a release.
pub fn parse_in(list: &str, deltas: SacctDeltas) -> Result<Vec<Column>, SpecError> {
    let mut fields: Vec<Field> = Vec::new();
    let mut widths: Vec<(Field, i32)> = Vec::new();
    let mut all_width: Option<i32> = None;
    let mut rest = list;
    while let Some(comma) = rest.find(',') {
        let token = rest[..comma].trim_start_matches(|c: char| c.is_ascii_whitespace());
        rest = &rest[comma + 1..];
        if token.is_empty() {
            break;
        }
        let (name, width) = match token.find('%') {
            Some(p) => {
                let max = crate::format::spec::MAX_WIDTH as i64;
                // sacct's `atoi`, read here as the whole `long` (C's int keeps only its
                // low 32 bits); beyond MAX_WIDTH either way.
                let w = strtol(&token.as_bytes()[p + 1..]).value.clamp(-max, max);
                (&token[..p], Some(w as i32))
            }
            None => (token, None),
        };
        if strncasecmp_eq("ALL", name, name.len()) {
            for (f, _, _) in fields_in(deltas) {
                fields.push(*f);
            }
            if let Some(w) = width {
                all_width = Some(w);
                widths.clear();
            }
            continue;
        }
        match fields_in(deltas).find(|(_, _, n)| strncasecmp_eq(n, name, name.len())) {
            Some((f, _, _)) => {
                fields.push(*f);
                if let Some(w) = width {
                    widths.retain(|(x, _)| x != f);
                    widths.push((*f, w));
                }
            }
            None => {
                for removed in ["AllocGRES", "ReqGRES"] {
                    if name.eq_ignore_ascii_case(removed) {
                        let new = if removed == "AllocGRES" {
                            "AllocTRES"
                        } else {
                            "ReqTRES"
                        };
                        return Err(SpecError::Fatal(format!(
                            "{removed} has been removed, please use {new}"
                        )));
                    }
                }
                return Err(SpecError::Invalid(format!(
                    "Invalid field requested: \"{name}\""
                )));
            }
        }
    }
    Ok(fields
        .into_iter()
        .map(|field| Column {
            field,
            width: widths
                .iter()
                .find(|(f, _)| *f == field)
                .map(|(_, w)| *w)
                .or(all_width)
                .unwrap_or(field.default_width()),
        })
        .collect())
}

/// `-e`: every field name, four to a line, each padded to 19.
pub fn help_fields() -> String {
    help_fields_in(crate::model::profile::Profile::default_profile().sacct)
}

/// [`help_fields`] of a release.
pub fn help_fields_in(deltas: SacctDeltas) -> String {
    let mut s = String::new();
    for (i, (_, _, name)) in fields_in(deltas).enumerate() {
        if i & 3 != 0 {
            s.push(' ');
        } else if i != 0 {
            s.push('\n');
        }
        s.push_str(&format!("{name:<19}"));
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &str) -> Vec<(&'static str, i32)> {
        parse(list)
            .unwrap()
            .into_iter()
            .map(|c| (c.field.name(), c.width))
            .collect()
    }

    #[test]
    fn default_list() {
        assert_eq!(
            names(&format!("{DEFAULT_FIELDS},")),
            vec![
                ("JobID", -12),
                ("JobName", 10),
                ("Partition", 10),
                ("Account", 10),
                ("AllocCPUS", 10),
                ("State", 10),
                ("ExitCode", 8)
            ]
        );
    }

    #[test]
    fn prefixes_widths_and_case() {
        assert_eq!(
            names("jobid%30,STATE%20,exit,"),
            vec![("JobID", 30), ("State", 20), ("ExitCode", 8)]
        );
        assert_eq!(names("jobid,jobid%5,"), vec![("JobID", 5), ("JobID", 5)]);
        assert_eq!(names("a,").len(), 109);
        assert_eq!(names(" jobid,,state,"), vec![("JobID", -12)]);
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse("NoSuchField,"),
            Err(SpecError::Invalid(
                "Invalid field requested: \"NoSuchField\"".into()
            ))
        );
        assert!(matches!(parse("allocgres,"), Err(SpecError::Fatal(_))));
    }
}
