//! Golden tests of the 24.11 profile: every capture of squeue, sacct, sinfo and scontrol
//! that real Slurm 24.11.5 produced (tests/golden/24.11/INDEX.md, the same scenario as the
//! 22.05 set plus 12 captures only 24.11 has), reproduced in-process under
//! `slurm_version = "24.11"` from the recorded cluster state of that run and compared byte
//! for byte (stdout, stderr, exit code).
//!
//! It prints `golden 24.11 <prog>: N/M identical` per command and `golden 24.11: N/M
//! identical` over all of them, and fails when the set of differing cases is not exactly
//! the known list below (with the reason of each), so the score can only go up. A case
//! that differs at its capture's stamp is run again at the next second: the capture read
//! the clock (`date +%s`) before it started the command, whose own clock could read the
//! next second (the report names the cases that needed it).

mod support;

use support::golden::{Set, report_in};

/// Cases that differ, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "x_sinfo_json_v0040",
        "records of another moment: it was captured after the node's resume, and the \
         nearest records (`_records/drain`) show the node drained, with another load and \
         free memory; the second capture, which keeps records of that moment, reproduces \
         it byte for byte",
    ),
    (
        "x_scontrol_yaml_show_node",
        "records of another moment (as x_sinfo_json_v0040): captured after the node's \
         resume, while the nearest records show it drained; the rest is identical",
    ),
];

/// Runs every squeue, sacct, sinfo and scontrol case of `set`, prints `<label>: N/M
/// identical`, and returns the names of the cases that differ.
fn differing(set: Set, label: &str) -> Vec<String> {
    let mut differ = Vec::new();
    let mut total = 0;
    for prog in ["squeue", "sacct", "sinfo", "scontrol"] {
        let (d, n) = report_in(set, prog);
        assert!(n > 0, "no {label} cases for {prog}");
        differ.extend(d);
        total += n;
    }
    println!(
        "{label}: {}/{total} identical (squeue, sacct, sinfo, scontrol)",
        total - differ.len()
    );
    differ.sort();
    differ
}

#[test]
fn golden_24_11() {
    let differ = differing(Set::V24_11, "golden 24.11");
    let mut want: Vec<String> = KNOWN.iter().map(|(n, _)| n.to_string()).collect();
    want.sort();
    assert_eq!(
        differ, want,
        "the 24.11 cases that differ from real Slurm changed"
    );
}

/// The second capture of the same scenario from the same Slurm 24.11.5 (tests/golden/
/// 24.11-b/CAPTURE.md: the reference's capture script with one records snapshot more,
/// after the node's resume): every case, the 24.11-only ones after the resume among them,
/// reproduced from the records of its moment. Another run's job ids, times, loads and
/// memory: what the first capture matched by chance of its moment would show here.
#[test]
fn golden_24_11_second_capture() {
    let differ = differing(Set::V24_11_B, "golden 24.11 (second capture)");
    assert!(differ.is_empty(), "cases that differ: {differ:?}");
}

/// The data_parser documents bai-slurm builds (squeue and `scontrol show job`, v0.0.40 to
/// v0.0.42) are not byte-identical to 24.11's (the controller's job flags, expected start
/// times and per-core allocation are not in our records), but they have its shape: the
/// same jobs in the same order, the same keys with values of the same kind
/// (`{set, infinite, number}` objects, lists, strings, ...), and the same values where the
/// records hold them.
#[test]
fn data_parser_documents_have_24_11_s_shape() {
    use serde_json::Value;
    let cases = [
        "squeue_json",
        "x_squeue_json_t_all",
        "x_squeue_json_v0040",
        "x_squeue_json_v0041",
        "x_scontrol_json_show_job",
        "sacct_json",
        "x_sacct_json_v0040",
        "sinfo_json",
        "x_sinfo_json_v0040",
    ];
    let mut clusters = std::collections::BTreeMap::new();
    let all_cases: Vec<support::golden::Case> = ["squeue", "scontrol", "sacct", "sinfo"]
        .iter()
        .flat_map(|p| support::golden::cases_in(Set::V24_11, p))
        .collect();
    let mut problems = Vec::new();
    for name in cases {
        let case = all_cases.iter().find(|c| c.name == name).expect(name);
        let got = support::golden::run(case, &mut clusters);
        assert_eq!(
            got.rc,
            case.rc,
            "{name}: {}",
            String::from_utf8_lossy(&got.stderr)
        );
        let want: Value = serde_json::from_slice(&case.stdout).expect("golden JSON");
        let ours: Value = match serde_json::from_slice(&got.stdout) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{name}: not JSON: {e}"));
                continue;
            }
        };
        shape(name, "", &want, &ours, &mut problems);
        let ids = |v: &Value| -> Vec<u64> {
            v["jobs"]
                .as_array()
                .map(|a| a.iter().filter_map(|j| j["job_id"].as_u64()).collect())
                .unwrap_or_default()
        };
        if ids(&want) != ids(&ours) {
            problems.push(format!(
                "{name}: jobs {:?}, want {:?}",
                ids(&ours),
                ids(&want)
            ));
            continue;
        }
        for (w, o) in want["jobs"]
            .as_array()
            .into_iter()
            .flatten()
            .zip(ours["jobs"].as_array().into_iter().flatten())
        {
            for key in value_keys(name) {
                if w[key] != o[key] {
                    problems.push(format!(
                        "{name}: job {} {key}: {} (24.11: {})",
                        w["job_id"], o[key], w[key]
                    ));
                }
            }
        }
        for key in ["data_parser"] {
            if want["meta"]["plugin"][key] != ours["meta"]["plugin"][key] {
                problems.push(format!("{name}: meta.plugin.{key}"));
            }
        }
        if want["meta"]["slurm"] != ours["meta"]["slurm"]
            || want["meta"]["command"] != ours["meta"]["command"]
        {
            problems.push(format!(
                "{name}: meta {} {} (24.11: {} {})",
                ours["meta"]["slurm"],
                ours["meta"]["command"],
                want["meta"]["slurm"],
                want["meta"]["command"]
            ));
        }
    }
    for p in &problems {
        println!("  {p}");
    }
    println!(
        "data_parser documents: {} of 24.11's shape",
        if problems.is_empty() {
            "all"
        } else {
            "NOT all"
        }
    );
    assert!(problems.is_empty(), "{} differences", problems.len());
}

/// The fields whose values the records hold, by document.
fn value_keys(name: &str) -> &'static [&'static str] {
    if name.contains("sacct") {
        &[
            "account",
            "allocation_nodes",
            "array",
            "cluster",
            "derived_exit_code",
            "exit_code",
            "group",
            "job_id",
            "name",
            "nodes",
            "partition",
            "priority",
            "qos",
            "required",
            "state",
            "stdout",
            "stdin",
            "stderr",
            "user",
            "working_directory",
        ]
    } else {
        &[
            "account",
            "array_job_id",
            "array_task_id",
            "array_task_string",
            "batch_flag",
            "batch_host",
            "cluster",
            "command",
            "cpus",
            "current_working_directory",
            "derived_exit_code",
            "eligible_time",
            "exit_code",
            "group_id",
            "group_name",
            "job_state",
            "memory_per_cpu",
            "name",
            "node_count",
            "nodes",
            "partition",
            "priority",
            "qos",
            "standard_error",
            "standard_input",
            "standard_output",
            "state_reason",
            "submit_time",
            "tasks",
            "time_limit",
            "tres_req_str",
            "user_id",
            "user_name",
        ]
    }
}

/// The same keys (serde_json's maps are sorted: the order is held by golden_24_11's byte
/// comparison) and the same kinds of values, recursively (a list's first item
/// stands for all; an empty list or a null on either side matches anything).
fn shape(
    name: &str,
    path: &str,
    want: &serde_json::Value,
    ours: &serde_json::Value,
    problems: &mut Vec<String>,
) {
    use serde_json::Value;
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    if problems.len() > 40 {
        return;
    }
    match (want, ours) {
        (Value::Object(w), Value::Object(o)) => {
            let wk: Vec<&String> = w.keys().collect();
            let ok: Vec<&String> = o.keys().collect();
            if wk != ok {
                problems.push(format!("{name}: {path}: keys {ok:?}, want {wk:?}"));
                return;
            }
            for (k, v) in w {
                shape(name, &format!("{path}/{k}"), v, &o[k], problems);
            }
        }
        (Value::Array(w), Value::Array(o)) => {
            if let (Some(a), Some(b)) = (w.first(), o.first()) {
                shape(name, &format!("{path}[]"), a, b, problems);
            }
        }
        (Value::Null, _) | (_, Value::Null) => {}
        (w, o) if kind(w) != kind(o) => {
            problems.push(format!("{name}: {path}: {} want {}", kind(o), kind(w)));
        }
        _ => {}
    }
}
