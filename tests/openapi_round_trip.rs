//! Our 24.11 `--json` documents read by the OpenAPI schema Slurm 24.11.5 ships for each
//! data_parser version (`slurmrestd -d data_parser/vX -s openapi/slurmctld,openapi/slurmdbd
//! --generate-openapi-spec`, run in the 24.11 reference's chroot; kept in
//! tests/golden/24.11/openapi/). squeue's and `scontrol show job`'s documents are checked
//! against the answer of `GET /slurm/vX/jobs/`, sacct's against `GET /slurmdb/vX/jobs/`,
//! `scontrol show node`'s against `GET /slurm/vX/nodes/`: every value has the schema's type,
//! every key is one the schema names, every listed word is one of its enum. The documents
//! are built from the 24.11 reference's recorded cluster (after the drain, every job).

mod support;

use serde_json::Value;
use support::golden::{Case, Set, run};

const VERSIONS: [&str; 3] = ["v0.0.40", "v0.0.41", "v0.0.42"];

/// Keys Slurm 24.11's own documents have where its schemas do not list them: the task and
/// node of a step's TRES extremes (`tests/golden/24.11/_records/P3/sacct.json`, step 3.0).
const DEVIATIONS: &[fn(&str, &str) -> bool] = &[|path, key| {
    (key == "task" || key == "node")
        && path.contains("/steps[")
        && (path.contains("/max[") || path.contains("/min["))
}];

fn spec(version: &str) -> Value {
    let path = support::recorded::golden_dir()
        .join("24.11/openapi")
        .join(format!("{version}.json"));
    serde_json::from_slice(&std::fs::read(&path).expect("spec")).expect("spec JSON")
}

/// The schema of a path's 200 answer.
fn response_schema<'a>(spec: &'a Value, path: &str) -> &'a Value {
    &spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
}

fn resolve<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(spec, &spec["components"]["schemas"][name])
        }
        None => schema,
    }
}

/// Checks `value` against `schema` (the OpenAPI 3.0.3 subset Slurm's specs use: `$ref`,
/// `type`, `properties`, `items`, `enum`), collecting problems with their path.
fn check(spec: &Value, schema: &Value, value: &Value, path: &str, problems: &mut Vec<String>) {
    if problems.len() > 200 {
        return;
    }
    let schema = resolve(spec, schema);
    let ty = schema["type"].as_str().unwrap_or("");
    let ok = match (ty, value) {
        // Slurm's own documents print an absent object (a pending job's job_resources)
        // as null, which its schemas do not say.
        ("object", Value::Null) => true,
        ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("boolean", Value::Bool(_))
        | ("", _) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_)) => true,
        _ => false,
    };
    if !ok {
        problems.push(format!("{path}: {value} is not {ty}"));
        return;
    }
    if let Some(words) = schema["enum"].as_array()
        && !words.contains(value)
    {
        problems.push(format!("{path}: {value} is not one of the schema's words"));
    }
    match value {
        Value::Object(map) => {
            let props = &schema["properties"];
            for (k, v) in map {
                match props.get(k) {
                    Some(s) => check(spec, s, v, &format!("{path}/{k}"), problems),
                    None if props.is_object() && !DEVIATIONS.iter().any(|d| d(path, k)) => {
                        problems.push(format!("{path}/{k}: not in the schema"))
                    }
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                check(spec, &schema["items"], v, &format!("{path}[{i}]"), problems);
            }
        }
        _ => {}
    }
}

fn ours(
    argv: &[&str],
    user: &str,
    clusters: &mut std::collections::BTreeMap<String, support::recorded::Recorded>,
) -> Value {
    let case = Case {
        name: argv.join(" "),
        user: user.to_string(),
        cwd: "/srv/refwork".to_string(),
        argv: argv.iter().map(|a| a.to_string()).collect(),
        now: 1_796_147_256,
        phase: "drain".to_string(),
        stdout: Vec::new(),
        stderr: Vec::new(),
        rc: 0,
        set: Set::V24_11,
    };
    let got = run(&case, clusters);
    assert_eq!(
        got.rc,
        0,
        "{argv:?}: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    serde_json::from_slice(&got.stdout).unwrap_or_else(|e| panic!("{argv:?}: not JSON ({e})"))
}

#[test]
fn our_documents_are_read_by_slurm_s_own_schemas() {
    let mut clusters = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for v in VERSIONS {
        let spec = spec(v);
        let json = format!("--json={v}");
        let cases: [(&[&str], &str, String); 5] = [
            (
                &["squeue", &json, "-t", "all"],
                "alice",
                format!("/slurm/{v}/jobs/"),
            ),
            (&["squeue", &json], "alice", format!("/slurm/{v}/jobs/")),
            (
                &["scontrol", &json, "show", "job"],
                "alice",
                format!("/slurm/{v}/jobs/"),
            ),
            (
                &["scontrol", &json, "show", "node"],
                "alice",
                format!("/slurm/{v}/nodes/"),
            ),
            (
                &[
                    "sacct",
                    &json,
                    "-a",
                    "-S",
                    "2020-01-01T00:00:00",
                    "-E",
                    "now",
                ],
                "root",
                format!("/slurmdb/{v}/jobs/"),
            ),
        ];
        for (argv, user, path) in cases {
            let doc = ours(argv, user, &mut clusters);
            let schema = response_schema(&spec, &path);
            assert!(!schema.is_null(), "{v}: no schema for {path}");
            let before = problems.len();
            check(
                &spec,
                schema,
                &doc,
                &format!("{} ({v})", argv[0]),
                &mut problems,
            );
            if problems.len() == before {
                checked += 1;
            }
        }
    }
    for p in &problems {
        println!("  {p}");
    }
    println!("openapi round trip: {checked}/15 documents read by Slurm 24.11.5's schemas");
    assert!(problems.is_empty(), "{} problems", problems.len());
}

/// The checker itself, on Slurm 24.11.5's own documents: they pass (with the deviations
/// listed above), so a problem it finds in ours is one Slurm's clients would meet.
#[test]
fn slurm_s_own_documents_pass_the_checker() {
    let dir = support::recorded::golden_dir().join("24.11");
    let mut problems = Vec::new();
    for (file, version, path) in [
        (
            "x_squeue_json_v0040.stdout",
            "v0.0.40",
            "/slurm/v0.0.40/jobs/",
        ),
        (
            "x_squeue_json_v0041.stdout",
            "v0.0.41",
            "/slurm/v0.0.41/jobs/",
        ),
        (
            "x_squeue_json_t_all.stdout",
            "v0.0.42",
            "/slurm/v0.0.42/jobs/",
        ),
        (
            "x_scontrol_json_show_job.stdout",
            "v0.0.42",
            "/slurm/v0.0.42/jobs/",
        ),
        (
            "x_sacct_json_v0040.stdout",
            "v0.0.40",
            "/slurmdb/v0.0.40/jobs/",
        ),
        (
            "_records/P3/sacct.json",
            "v0.0.42",
            "/slurmdb/v0.0.42/jobs/",
        ),
    ] {
        let spec = spec(version);
        let doc: Value = serde_json::from_slice(&std::fs::read(dir.join(file)).unwrap()).unwrap();
        check(
            &spec,
            response_schema(&spec, path),
            &doc,
            file,
            &mut problems,
        );
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
