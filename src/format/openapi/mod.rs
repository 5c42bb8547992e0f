//! `--json` and `--yaml` of squeue, sinfo and sacct, as Slurm 22.05 prints them.
//!
//! In 22.05 these commands load the slurmrestd OpenAPI plugin in-process (`openapi/v0.0.38`
//! for squeue and sinfo, `openapi/dbv0.0.38` for sacct), let it build a `data_t` tree
//! exactly as the REST endpoint `GET /slurm/v0.0.38/jobs` (`/nodes`, `/slurmdb/.../jobs`)
//! would, and print that tree with the json-c or libyaml serializer plugin. So the output
//! is the REST response: a `meta` block naming the plugin and Slurm's version, an `errors`
//! list, then the records — every record, whatever filter options were given (squeue and
//! sinfo pass no query at all; sacct passes its job condition minus the user list).
//!
//! This module rebuilds that tree from our records ([`jobs`], [`nodes`], [`db_jobs`], into
//! a [`value`] tree) and prints it byte for byte ([`json`], [`yaml`]).

pub mod data_parser;
pub mod data_parser_db;
pub mod data_parser_sinfo;
pub mod db_jobs;
pub mod jobs;
pub mod json;
pub mod nodes;
mod num;
pub mod strsignal;
pub mod value;
pub mod yaml;

use crate::model::release::SLURM_RELEASE;
use value::{Dict, Value};

/// Which serializer: `--json` or `--yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mime {
    Json,
    Yaml,
}

/// The OpenAPI plugin that answers, as named in `meta.plugin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    /// `openapi/v0.0.38` (squeue, sinfo).
    V0038,
    /// `openapi/dbv0.0.38` (sacct).
    DbV0038,
}

impl Plugin {
    fn type_name(self) -> (&'static str, &'static str) {
        match self {
            Plugin::V0038 => ("openapi/v0.0.38", "Slurm OpenAPI v0.0.38"),
            Plugin::DbV0038 => ("openapi/dbv0.0.38", "Slurm OpenAPI DB v0.0.38"),
        }
    }
}

/// One entry of the `errors` list as the plugins' `resp_error` builds it: a description,
/// the Slurm errno with its `slurm_strerror` text, and the function that failed.
pub fn resp_error(description: Option<&str>, error: Option<(i32, &str)>, source: &str) -> Value {
    let mut e = Dict::new();
    if let Some(d) = description {
        e.push("description", Value::text(d));
    }
    if let Some((n, text)) = error {
        e.push("error_number", Value::int(n));
        e.push("error", Value::text(text));
    }
    e.push("source", Value::text(source));
    e.into()
}

/// `slurm_load_jobs` failed: it returns SLURM_ERROR, whose text is `Unspecified error`.
pub fn load_jobs_error() -> Value {
    resp_error(
        Some("Failed while looking for jobs"),
        Some((-1, "Unspecified error")),
        "slurm_load_jobs",
    )
}

/// The nodes handler's own error entry: `{error, errno}`.
pub fn nodes_error(errno: i32, text: &str) -> Value {
    let mut e = Dict::new();
    e.push("error", Value::text(text));
    e.push("errno", Value::int(errno));
    e.into()
}

/// `db_query_list` found no job (ESLURM_REST_EMPTY_RESULT).
pub fn db_nothing_found() -> Value {
    resp_error(
        Some("Nothing found"),
        Some((9003, "Nothing found with query")),
        "slurmdb_jobs_get",
    )
}

/// `db_query_list` could not reach the database (ESLURM_DB_CONNECTION).
pub fn db_connection_error() -> Value {
    resp_error(
        Some("Failed connecting to slurmdbd"),
        Some((7000, "Unable to connect to database")),
        "slurmdb_jobs_get",
    )
}

/// `populate_response_format` plus the plugin's list: `{meta, errors, <key>: [...]}`.
pub fn response(plugin: Plugin, errors: &[Value], key: &str, items: Vec<Value>) -> Value {
    let (ptype, pname) = plugin.type_name();
    let mut p = Dict::new();
    p.push("type", Value::text(ptype));
    p.push("name", Value::text(pname));
    let release = SLURM_RELEASE;
    let mut version = Dict::new();
    version.push("major", Value::Int(i64::from(release.major)));
    version.push("micro", Value::Int(i64::from(release.micro)));
    version.push("minor", Value::Int(i64::from(release.minor)));
    let mut slurm = Dict::new();
    slurm.push("version", version.into());
    slurm.push("release", Value::text(&release.text()));
    let mut meta = Dict::new();
    meta.push("plugin", p.into());
    meta.push("Slurm", slurm.into());
    let mut d = Dict::new();
    d.push("meta", meta.into());
    d.push("errors", Value::List(errors.to_vec()));
    d.push(key, Value::List(items));
    d.into()
}

/// The bytes the command prints (`printf("%s", out)`: JSON has no trailing newline, the
/// YAML document ends with `...\n`).
pub fn serialize(v: &Value, mime: Mime) -> Vec<u8> {
    match mime {
        Mime::Json => json::to_string(v).into_bytes(),
        Mime::Yaml => yaml::to_string(v).into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_frame() {
        let v = response(Plugin::V0038, &[], "nodes", vec![]);
        let text = String::from_utf8(serialize(&v, Mime::Json)).unwrap();
        assert_eq!(
            text,
            "{\n  \"meta\": {\n    \"plugin\": {\n      \"type\": \"openapi\\/v0.0.38\",\n      \
             \"name\": \"Slurm OpenAPI v0.0.38\"\n    },\n    \"Slurm\": {\n      \"version\": {\n        \
             \"major\": 22,\n        \"micro\": 8,\n        \"minor\": 5\n      },\n      \
             \"release\": \"22.05.8\"\n    }\n  },\n  \"errors\": [\n  ],\n  \"nodes\": [\n  ]\n}"
        );
    }

    #[test]
    fn error_entries_keep_resp_error_order() {
        let v = response(Plugin::DbV0038, &[db_nothing_found()], "jobs", vec![]);
        let text = String::from_utf8(serialize(&v, Mime::Json)).unwrap();
        assert!(text.contains(
            "\"errors\": [\n    {\n      \"description\": \"Nothing found\",\n      \
             \"error_number\": 9003,\n      \"error\": \"Nothing found with query\",\n      \
             \"source\": \"slurmdb_jobs_get\"\n    }\n  ],"
        ));
    }
}
