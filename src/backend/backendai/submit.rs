//! JobSpec -> the body of `POST /session` (one batch session per job, or per array task).

use super::jobid;
use crate::launcher::meta::{self, JobMeta};
use crate::model::JobSpec;
use serde_json::{Map, Value, json};

/// Site settings that shape a session request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionSettings {
    /// How the startup command reaches the launcher inside the container.
    pub launcher: String,
    /// Project (group) and domain the sessions belong to.
    pub group: String,
    pub domain: String,
    /// The image when the job names none (the partition's default).
    pub image: Option<String>,
    /// Resource group of the partition.
    pub resource_group: String,
    /// MB per CPU when the job asks for no memory.
    pub def_mem_per_cpu: u64,
    /// `single-node` or `multi-node` for jobs with more than one node.
    pub cluster_mode: String,
    /// vfolders to mount, with the absolute path each appears at in the container.
    pub mounts: Vec<(String, String)>,
    /// Whether the server takes `batchTimeout` (API v8 and later).
    pub batch_timeout: bool,
    /// The job's own mounts (`--container-mounts`), by vfolder id.
    pub job_mounts: Vec<super::placement::Mount>,
    /// Where the job may run and how much of an agent it takes.
    pub placement: super::placement::Placement,
}

/// Why a job cannot become a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfit {
    NoImage(String),
    Unsupported(String),
}

/// The resources of one container of the job.
pub fn resources(spec: &JobSpec, def_mem_per_cpu: u64) -> Map<String, Value> {
    let nodes = spec.nodes().max(1);
    let gpus = gpus_per_container(spec, nodes);
    // --cpus-per-gpu and --mem-per-gpu: what each GPU of the container brings with it.
    let per_gpu = |n: f64| (gpus.unwrap_or(0.0) * n).ceil() as u64;
    let cpus_total = spec.cpus();
    let cpus = (cpus_total.div_ceil(nodes).max(1)).max(
        spec.cpus_per_gpu
            .map_or(0, |c| per_gpu(f64::from(c)) as u32),
    );
    let mem_mb = match (spec.mem_per_node, spec.mem_per_cpu, spec.mem_per_gpu) {
        (Some(mb), _, _) if mb > 0 => mb,
        (_, Some(mb), _) => mb * u64::from(cpus),
        (_, _, Some(mb)) if gpus.is_some() => per_gpu(mb as f64).max(1),
        _ => def_mem_per_cpu.max(1) * u64::from(cpus),
    };
    let mut r = Map::new();
    r.insert("cpu".into(), json!(cpus));
    r.insert("mem".into(), json!(format!("{mem_mb}m")));
    if let Some(g) = gpus {
        gpu_slot(&mut r, g);
    }
    r
}

/// The GPUs of one container: `--gpus*` spread over the nodes, or `--gres=gpu:N`.
fn gpus_per_container(spec: &JobSpec, nodes: u32) -> Option<f64> {
    if let Some(g) = &spec.gpus {
        return Some(match g.per {
            crate::model::jobspec::GpuPer::Node => g.count,
            crate::model::jobspec::GpuPer::Task => {
                g.count * f64::from(spec.ntasks.unwrap_or(1)) / f64::from(nodes)
            }
            crate::model::jobspec::GpuPer::Job => g.count / f64::from(nodes),
        });
    }
    spec.gres
        .iter()
        .filter_map(|g| g.strip_prefix("gpu:"))
        .filter_map(|rest| rest.rsplit(':').next()?.parse::<f64>().ok())
        .next()
}

/// Whole GPUs are `cuda.device`; a fraction is `cuda.shares` (Backend.AI's fractional GPUs).
fn gpu_slot(r: &mut Map<String, Value>, count: f64) {
    if count.fract() == 0.0 {
        r.insert("cuda.device".into(), json!(count as u64));
    } else {
        r.insert("cuda.shares".into(), json!(count));
    }
}

/// Refuses what Backend.AI cannot do and bai-slurm does not emulate (yet), with the reason.
/// `gated`: the site has a job directory, so the launchers judge every type that waits for
/// an end (`launcher::gate`); without one only `afterok` (Backend.AI's own) is possible.
pub fn check(spec: &JobSpec, gated: bool) -> Result<(), Unfit> {
    use crate::model::DepKind::*;
    if spec.hold && !gated {
        return Err(Unfit::Unsupported(
            "--hold is not supported by the Backend.AI backend without [backendai] job_dir (a held job is made again at its release from the request kept there)".into(),
        ));
    }
    let Some(dep) = &spec.dependency else {
        return Ok(());
    };
    for item in &dep.items {
        let name = item.kind.name();
        match item.kind {
            // `after` is judged at submission (`depends.rs`).
            AfterOk | After => {}
            AfterAny | AfterNotOk | AfterCorr | Singleton if gated => {}
            AfterAny | AfterNotOk | AfterCorr | Singleton => {
                return Err(Unfit::Unsupported(format!(
                    "--dependency={name} is not supported by the Backend.AI backend without [backendai] job_dir (only afterok)"
                )));
            }
            AfterBurstBuffer | Expand => {
                return Err(Unfit::Unsupported(format!(
                    "--dependency={name} is not supported by the Backend.AI backend (a session can wait only for others to end)"
                )));
            }
        }
    }
    if dep.any && dep.items.len() > 1 && !gated {
        return Err(Unfit::Unsupported(
            "--dependency with `?` is not supported by the Backend.AI backend without [backendai] job_dir".into(),
        ));
    }
    Ok(())
}

/// A held session's start: the scheduler leaves it alone until a release makes it again.
pub const HELD_UNTIL: &str = "2100-01-01T00:00:00+00:00";

/// The `startsAt` of a session: a held job's far one (`held`: also one awaiting an
/// `after` job's start), else its deferred start (`--begin`).
pub fn starts_at(held: bool, begin: Option<i64>) -> Option<String> {
    if held {
        return Some(HELD_UNTIL.to_string());
    }
    begin.map(|b| {
        chrono::DateTime::from_timestamp(b, 0)
            .unwrap_or_default()
            .to_rfc3339()
    })
}

/// The create request for job `meta` (one array task when `meta.array_task` is set).
/// `dependencies` are the UUIDs of the sessions an afterok dependency names.
pub fn create_body(
    meta: &JobMeta,
    spec: &JobSpec,
    settings: &SessionSettings,
    dependencies: &[String],
) -> Result<Value, Unfit> {
    let image = spec
        .container
        .image
        .clone()
        .or_else(|| settings.image.clone())
        .ok_or_else(|| Unfit::NoImage(settings.resource_group.clone()))?;
    // The container has its own host name. The keypair, endpoint and configuration the
    // commands use must not travel into the session (its environ is stored by the manager
    // and seen by admins, and srun in the job must not find a scheduler).
    let travels = |k: &str| k != "HOSTNAME" && !crate::envvars::is_login_node_setting(k);
    // Backend.AI refuses a blank environ value ("blank value is not allowed"): such
    // variables travel by name and the launcher sets them again.
    let blank: Vec<&str> = spec
        .environment
        .iter()
        .filter(|(k, v)| v.is_empty() && travels(k))
        .map(|(k, _)| k.as_str())
        .collect();
    let mut environ: Map<String, Value> = spec
        .environment
        .iter()
        .filter(|(k, v)| !v.is_empty() && travels(k))
        // The container's entrypoint runs with this environ and needs the image's PATH
        // (useradd in /usr/sbin makes the job's user; without it ssh between the containers
        // fails with "No user exists for uid"): the job's PATH travels under another name
        // and the launcher puts it back for the script.
        .map(|(k, v)| {
            let k = if k == "PATH" {
                meta::PATH_ENV
            } else {
                k.as_str()
            };
            (k.to_string(), Value::String(v.clone()))
        })
        .collect();
    environ.insert(meta::META_ENV.into(), Value::String(meta.encode()));
    if !blank.is_empty() {
        environ.insert(meta::BLANK_ENV.into(), json!(blank.join("\n")));
    }
    // The login node reaches the launcher's step servers through Backend.AI's tunnel to
    // these ports: salloc's and srun's steps, scancel's signals (the secret is added by
    // the caller, which holds the keypair).
    environ.insert(
        crate::launcher::meta::STEP_PORT_ENV.into(),
        json!(super::allocation::STEP_PORT.to_string()),
    );
    if !spec.script.is_empty() {
        environ.insert(
            meta::SCRIPT_ENV.into(),
            Value::String(meta::encode_script(&spec.script)),
        );
    }
    let mut config = Map::new();
    let mut slots = resources(spec, settings.def_mem_per_cpu);
    if let Some((cpus, mem_mb)) = settings.placement.whole_agent {
        slots.insert("cpu".into(), json!(cpus));
        slots.insert("mem".into(), json!(format!("{mem_mb}m")));
    }
    config.insert("resources".into(), Value::Object(slots));
    if !settings.placement.agents.is_empty() {
        config.insert("agent_list".into(), json!(settings.placement.agents));
    }
    // With no partition configured and none asked for, the manager chooses the resource
    // group (23.09 refuses a blank one: "blank value is not allowed").
    if !settings.resource_group.is_empty() {
        config.insert("scaling_group".into(), json!(settings.resource_group));
    }
    config.insert("environ".into(), Value::Object(environ));
    config.insert(
        "preopen_ports".into(),
        json!(super::allocation::ports(spec.nodes())),
    );
    if !settings.mounts.is_empty() || !settings.job_mounts.is_empty() {
        let mut names: Vec<&String> = settings.mounts.iter().map(|(v, _)| v).collect();
        let mut map: Map<String, Value> = settings
            .mounts
            .iter()
            .map(|(v, p)| (v.clone(), json!(p)))
            .collect();
        let mut options = Map::new();
        for m in &settings.job_mounts {
            names.push(&m.vfolder);
            if let Some(p) = &m.path {
                map.insert(m.vfolder.clone(), json!(p));
            }
            if m.read_only {
                options.insert(m.vfolder.clone(), json!({"permission": "ro"}));
            }
        }
        config.insert("mounts".into(), json!(names));
        config.insert("mount_map".into(), Value::Object(map));
        if !options.is_empty() {
            config.insert("mount_options".into(), Value::Object(options));
        }
    }
    let mut body = Map::new();
    body.insert(
        "name".into(),
        json!(jobid::session_name(meta.job_id, meta.array_task)),
    );
    body.insert("image".into(), json!(image));
    body.insert("type".into(), json!("batch"));
    body.insert(
        "startupCommand".into(),
        json!(meta::startup_command(&settings.launcher)),
    );
    body.insert("enqueueOnly".into(), json!(true));
    body.insert("reuseIfExists".into(), json!(false));
    body.insert("group".into(), json!(settings.group));
    body.insert("domain".into(), json!(settings.domain));
    body.insert("tag".into(), json!(super::tag::tag(meta)));
    let nodes = spec.nodes();
    if nodes > 1 {
        body.insert("clusterSize".into(), json!(nodes));
        body.insert("clusterMode".into(), json!(settings.cluster_mode));
    }
    // A job awaiting an `after` job's start waits as a held one until a view makes it
    // again.
    if let Some(at) = starts_at(
        spec.hold || super::depends::awaits_a_start(spec),
        spec.begin,
    ) {
        body.insert("startsAt".into(), json!(at));
    }
    if let (true, Some(limit)) = (
        settings.batch_timeout,
        spec.time_limit.and_then(|l| l.seconds()),
    ) {
        // A backstop only: the launcher ends the job at its limit with Slurm's signals.
        body.insert(
            "batchTimeout".into(),
            json!(limit + i64::from(meta.kill_wait) + 60),
        );
    }
    if let Some(p) = spec.priority {
        body.insert("priority".into(), json!(p.min(100)));
    }
    if !dependencies.is_empty() {
        body.insert("dependencies".into(), json!(dependencies));
    }
    body.insert("config".into(), Value::Object(config));
    Ok(Value::Object(body))
}

/// The image's minimum resources from the manager's refusal of a smaller request, as
/// `(slot, value)` pairs: 23.09 says `Your resource request is smaller than the minimum
/// required by the image. (cpu=1 mem=320m)`, 26.9 `kernel_specs[0] resource request is
/// smaller than the image minimum (cpu=1 mem=320m).`
pub fn image_minimum(message: &str) -> Option<Vec<(String, String)>> {
    let rest = ["minimum required by the image.", "than the image minimum"]
        .iter()
        .find_map(|said| message.split(said).nth(1))?;
    let inside = rest.trim_start().strip_prefix('(')?;
    let inside = &inside[..inside.find(')')?];
    let pairs: Vec<(String, String)> = inside
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

/// A Backend.AI binary size (`320m`, `1g`, `1.5G`, `2048`) in bytes.
fn binary_size(text: &str) -> Option<f64> {
    let t = text
        .trim()
        .trim_end_matches(['b', 'B'])
        .trim_end_matches(['i']);
    let (num, unit) = match t.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_lowercase()),
        _ => (t, ' '),
    };
    let power = match unit {
        ' ' => 0,
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        _ => return None,
    };
    Some(num.parse::<f64>().ok()? * 1024f64.powi(power))
}

/// The create body with its CPUs and memory raised to the image's minimum, and what was
/// raised (`mem 200m -> 320m`); None when neither was below it (then another slot is, and
/// the refusal stands: GPUs are never added to a request).
pub fn raised_to_minimum(
    body: &Value,
    minimum: &[(String, String)],
) -> Option<(Value, Vec<String>)> {
    let mut raised = body.clone();
    let slots = raised
        .get_mut("config")?
        .get_mut("resources")?
        .as_object_mut()?;
    let mut changes = Vec::new();
    for (slot, min) in minimum {
        let Some(current) = slots.get(slot.as_str()) else {
            continue;
        };
        let current_text = match current {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let below = match slot.as_str() {
            "mem" => binary_size(&current_text)? < binary_size(min)?,
            "cpu" => current_text.parse::<f64>().ok()? < min.parse::<f64>().ok()?,
            _ => continue,
        };
        if below {
            changes.push(format!("{slot} {current_text} -> {min}"));
            let value = if slot == "cpu" {
                min.parse::<u64>().map_or_else(|_| json!(min), |n| json!(n))
            } else {
                json!(min)
            };
            slots.insert(slot.clone(), value);
        }
    }
    (!changes.is_empty()).then_some((raised, changes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::jobspec::{GpuPer, GpuRequest};

    fn settings() -> SessionSettings {
        SessionSettings {
            launcher: "/opt/bai-slurm/bai-slurm".into(),
            group: "default".into(),
            domain: "default".into(),
            image: Some("local/bai-batch:bookworm".into()),
            resource_group: "default".into(),
            def_mem_per_cpu: 1024,
            cluster_mode: "single-node".into(),
            mounts: vec![("home".into(), "/home/alice".into())],
            batch_timeout: false,
            ..Default::default()
        }
    }

    #[test]
    fn blank_variables_travel_by_name() {
        let spec = JobSpec {
            script: b"#!/bin/sh\n".to_vec(),
            environment: [
                ("EMPTY".to_string(), String::new()),
                ("FULL".to_string(), "x".to_string()),
                ("BACKEND_GROUP".to_string(), String::new()),
            ]
            .into(),
            ..Default::default()
        };
        let body = create_body(&JobMeta::default(), &spec, &settings(), &[]).unwrap();
        let environ = &body["config"]["environ"];
        assert!(environ.get("EMPTY").is_none(), "23.09 refuses blank values");
        assert_eq!(environ["FULL"], "x");
        assert_eq!(environ[meta::BLANK_ENV], "EMPTY");
    }

    #[test]
    fn an_allocation_preopens_a_port_per_node_and_has_no_script() {
        let spec = JobSpec {
            interactive: true,
            nodes_min: Some(3),
            ..Default::default()
        };
        let body = create_body(&JobMeta::default(), &spec, &settings(), &[]).unwrap();
        assert_eq!(body["config"]["preopen_ports"], json!([2300, 2301, 2302]));
        let environ = &body["config"]["environ"];
        assert_eq!(environ[crate::launcher::meta::STEP_PORT_ENV], "2300");
        assert!(environ.get(meta::SCRIPT_ENV).is_none());
        // the secret is the caller's to add (it holds the keypair)
        assert!(
            environ
                .get(crate::launcher::meta::STEP_SECRET_ENV)
                .is_none()
        );
    }

    #[test]
    fn a_job_becomes_a_batch_session() {
        let spec = JobSpec {
            name: "train".into(),
            script: b"#!/bin/sh\necho hi\n".to_vec(),
            ntasks: Some(2),
            cpus_per_task: Some(2),
            mem_per_cpu: Some(500),
            nodes_min: Some(2),
            time_limit: Some(crate::model::TimeLimit::Minutes(10)),
            environment: [
                ("PATH".to_string(), "/home/alice/bin:/usr/bin".to_string()),
                ("BACKEND_SECRET_KEY".to_string(), "s3cr3t".to_string()),
                ("BACKEND_ACCESS_KEY".to_string(), "AKIA".to_string()),
                ("BACKEND_ENDPOINT".to_string(), "http://m:8081".to_string()),
                (
                    "BAI_SLURM_CONFIG".to_string(),
                    "/home/alice/c.toml".to_string(),
                ),
                ("XDG_STATE_HOME".to_string(), "/home/alice/.st".to_string()),
            ]
            .into(),
            ..Default::default()
        };
        let meta = JobMeta {
            job_id: 62_000_000,
            spec: spec.clone(),
            kill_wait: 30,
            ..Default::default()
        };
        let body = create_body(&meta, &spec, &settings(), &[]).unwrap();
        assert_eq!(body["name"], "j62000000");
        assert_eq!(body["type"], "batch");
        assert_eq!(body["enqueueOnly"], true);
        assert_eq!(body["clusterSize"], 2);
        assert_eq!(body["config"]["resources"]["cpu"], 2);
        assert_eq!(body["config"]["resources"]["mem"], "1000m");
        assert_eq!(body["config"]["mount_map"]["home"], "/home/alice");
        assert!(
            body.get("batchTimeout").is_none(),
            "23.09 refuses batchTimeout"
        );
        assert_eq!(
            body["startupCommand"],
            "/opt/bai-slurm/bai-slurm __bai-launch"
        );
        let encoded = body["config"]["environ"][meta::META_ENV].as_str().unwrap();
        assert_eq!(JobMeta::decode(encoded).unwrap().job_id, 62_000_000);
        assert!(body["config"]["environ"].get("PATH").is_none());
        for login_node_only in [
            "BACKEND_SECRET_KEY",
            "BACKEND_ACCESS_KEY",
            "BACKEND_ENDPOINT",
            "BAI_SLURM_CONFIG",
        ] {
            assert!(
                body["config"]["environ"].get(login_node_only).is_none(),
                "{login_node_only}"
            );
        }
        // The user's own variables travel, as Slurm's --export=ALL has them.
        assert_eq!(
            body["config"]["environ"]["XDG_STATE_HOME"],
            "/home/alice/.st"
        );
        assert_eq!(
            body["config"]["environ"][meta::PATH_ENV],
            "/home/alice/bin:/usr/bin"
        );
        let script = body["config"]["environ"][meta::SCRIPT_ENV]
            .as_str()
            .unwrap();
        assert_eq!(meta::decode_script(script).unwrap(), spec.script);
    }

    #[test]
    fn gpus_whole_and_fractional() {
        let mut spec = JobSpec {
            gpus: Some(GpuRequest {
                gpu_type: None,
                count: 2.0,
                per: GpuPer::Node,
            }),
            ..Default::default()
        };
        assert_eq!(resources(&spec, 1024)["cuda.device"], 2);
        spec.gpus = Some(GpuRequest {
            gpu_type: None,
            count: 0.5,
            per: GpuPer::Job,
        });
        assert_eq!(resources(&spec, 1024)["cuda.shares"], 0.5);
        spec.gpus = None;
        spec.gres = vec!["gpu:a100:1".into()];
        assert_eq!(resources(&spec, 1024)["cuda.device"], 1);
        // --cpus-per-gpu and --mem-per-gpu: per GPU of the container.
        spec.gres = vec!["gpu:2".into()];
        spec.cpus_per_gpu = Some(4);
        spec.mem_per_gpu = Some(1000);
        assert_eq!(resources(&spec, 1024)["cpu"], 8);
        assert_eq!(resources(&spec, 1024)["mem"], "2000m");
    }

    #[test]
    fn what_cannot_be_expressed_is_refused() {
        let spec = JobSpec {
            dependency: Some(crate::model::Dependency {
                items: vec![crate::model::DepItem {
                    kind: crate::model::DepKind::AfterAny,
                    target: Some(crate::model::DepTarget::Job(1)),
                    delay_minutes: 0,
                    status: crate::model::DepStatus::Unfulfilled,
                }],
                any: false,
            }),
            ..Default::default()
        };
        assert!(matches!(check(&spec, false), Err(Unfit::Unsupported(_))));
        // With a job directory the launchers judge it; `after` (a start) is judged at
        // submission on every site; `afterburstbuffer` stays refused.
        assert!(check(&spec, true).is_ok());
        let mut after = spec.clone();
        if let Some(d) = after.dependency.as_mut() {
            d.items[0].kind = crate::model::DepKind::After;
        }
        assert!(check(&after, false).is_ok());
        if let Some(d) = after.dependency.as_mut() {
            d.items[0].kind = crate::model::DepKind::AfterBurstBuffer;
        }
        assert!(matches!(check(&after, true), Err(Unfit::Unsupported(_))));
        let spec = JobSpec {
            container: Default::default(),
            ..Default::default()
        };
        let meta = JobMeta::default();
        let mut s = settings();
        s.image = None;
        assert!(matches!(
            create_body(&meta, &spec, &s, &[]),
            Err(Unfit::NoImage(_))
        ));
    }

    #[test]
    fn small_requests_are_raised_to_the_images_minimum() {
        let message = "Missing or invalid API parameters. (Your resource request is smaller than the minimum required by the image. (cpu=1 mem=320m))";
        let min = image_minimum(message).unwrap();
        assert_eq!(
            min,
            [("cpu".into(), "1".into()), ("mem".into(), "320m".into())]
        );
        let body = json!({"config": {"resources": {"cpu": 1, "mem": "200m"}}});
        let (raised, changes) = raised_to_minimum(&body, &min).unwrap();
        assert_eq!(
            raised["config"]["resources"],
            json!({"cpu": 1, "mem": "320m"})
        );
        assert_eq!(changes, ["mem 200m -> 320m"]);
        // Already at the minimum: nothing to raise, the refusal stands.
        let body = json!({"config": {"resources": {"cpu": 2, "mem": "1g"}}});
        assert!(raised_to_minimum(&body, &min).is_none());
        assert!(image_minimum("Missing or invalid API parameters.").is_none());
        let message = "Missing or invalid API parameters. (kernel_specs[0] resource request is smaller than the image minimum (cpu=1 mem=320m).)";
        assert_eq!(image_minimum(message), Some(min));
        assert_eq!(binary_size("1.5g"), Some(1.5 * 1024f64.powi(3)));
        assert_eq!(binary_size("2048"), Some(2048.0));
        assert_eq!(binary_size("512MiB"), Some(512.0 * 1024f64.powi(2)));
    }
}
