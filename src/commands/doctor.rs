//! `bai-slurm doctor`: which backend and configuration are in force, and whether they work.
//! Secrets are never printed: only where the keypair came from and its access key.

use crate::backend::Cluster;
use crate::backend::backendai::{client, settings};
use crate::backend::local::{LocalCluster, control};
use crate::cli::Invocation;
use crate::config::{BackendKind, Loaded};

pub fn run(inv: &mut Invocation<'_>) -> i32 {
    let loaded = match Loaded::load(&inv.env) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(inv.err, "bai-slurm doctor: configuration: {e}");
            return 1;
        }
    };
    let out = &mut *inv.out;
    let _ = writeln!(out, "bai-slurm {}", env!("CARGO_PKG_VERSION"));
    if loaded.files.is_empty() {
        let _ = writeln!(out, "config files: none (defaults)");
    } else {
        for f in &loaded.files {
            let _ = writeln!(out, "config file: {}", f.display());
        }
    }
    if !loaded.env_overrides.is_empty() {
        let _ = writeln!(
            out,
            "environment overrides: {}",
            loaded.env_overrides.join(", ")
        );
    }
    let _ = writeln!(out, "cluster: {}", loaded.cluster_name());
    let _ = writeln!(
        out,
        "slurm: {} (slurm_version {})",
        loaded.config.profile().release.text(),
        loaded.config.slurm_version().series()
    );
    match loaded.backend_kind() {
        BackendKind::Local => local(inv, &loaded),
        BackendKind::BackendAi => backendai(inv, &loaded),
    }
}

fn local(inv: &mut Invocation<'_>, loaded: &Loaded) -> i32 {
    if let Some(socket) = loaded.config.local.system_socket() {
        return system(inv, &socket);
    }
    let cluster = match LocalCluster::open(loaded, &inv.env) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(inv.out, "backend: local\nstatus: FAILED ({e})");
            return 1;
        }
    };
    let s = &cluster.settings;
    let out = &mut *inv.out;
    let _ = writeln!(out, "backend: local (jobs run on this machine)");
    let _ = writeln!(out, "state directory: {}", cluster.state_dir.display());
    let _ = writeln!(
        out,
        "node: {} ({} CPUs, {} MB)",
        s.node.name, s.node.cpus, s.node.memory_mb
    );
    let _ = writeln!(
        out,
        "partition: {} (DefMemPerCPU={} MB)",
        s.partition.name, s.partition.def_mem_per_cpu
    );
    let running = control::kick(&cluster.state_dir);
    let _ = writeln!(
        out,
        "queue runner: {}",
        if running {
            "running"
        } else {
            "not running (starts with the next command that needs it)"
        }
    );
    match cluster.jobs() {
        Ok(jobs) => {
            let _ = writeln!(out, "jobs known to the controller: {}", jobs.len());
            let _ = writeln!(out, "status: OK");
            0
        }
        Err(e) => {
            let _ = writeln!(out, "status: FAILED ({e})");
            1
        }
    }
}

/// System mode: the service is the controller; it answers, or nothing works.
fn system(inv: &mut Invocation<'_>, socket: &std::path::Path) -> i32 {
    let cluster = crate::backend::local::system::client::SystemCluster::new(socket.to_path_buf());
    let out = &mut *inv.out;
    let _ = writeln!(
        out,
        "backend: local, system mode (one queue for every user of this machine)"
    );
    let _ = writeln!(out, "service socket: {}", socket.display());
    match (cluster.nodes(), cluster.jobs()) {
        (Ok(nodes), Ok(jobs)) => {
            for n in &nodes {
                let _ = writeln!(
                    out,
                    "node: {} ({} CPUs, {} MB)",
                    n.name, n.cpus, n.real_memory
                );
            }
            let _ = writeln!(out, "service: answers");
            let _ = writeln!(out, "jobs known to the controller: {}", jobs.len());
            let _ = writeln!(out, "status: OK");
            0
        }
        (Err(e), _) | (_, Err(e)) => {
            let _ = writeln!(
                out,
                "service: FAILED ({})",
                match &e {
                    crate::backend::BackendError::Unreachable(why) => format!(
                        "does not answer: {why}; is it running? `systemctl status bai-slurm`"
                    ),
                    other => other.to_string(),
                }
            );
            let _ = writeln!(out, "status: FAILED");
            1
        }
    }
}

/// A line for each fact and check; a failing check says why on its own line
/// (`name: FAILED (reason)`). Never prints the secret key, only where it came from.
fn backendai(inv: &mut Invocation<'_>, loaded: &Loaded) -> i32 {
    let b = &loaded.config.backendai;
    let stores = settings::stores(loaded, &inv.env);
    let (resolved, found_problem) = settings::resolve_reporting(loaded, &stores);
    let out = &mut *inv.out;
    let mut failed: Vec<&str> = Vec::new();
    let _ = writeln!(
        out,
        "backend: backend.ai (jobs run as Backend.AI batch sessions)"
    );
    let endpoint = b.endpoint.clone().unwrap_or_default();
    let _ = writeln!(out, "endpoint: {endpoint}");
    let domain = b.domain.clone().unwrap_or_else(|| "default".into());
    let group = b.group.clone().unwrap_or_else(|| "default".into());
    let _ = writeln!(
        out,
        "keyring: {}",
        match (&stores.keyring, found_problem) {
            (Err(why), _) => format!("not used ({why})"),
            (Ok(_), Some(problem)) =>
                format!("not answering ({problem}); the credentials file is used"),
            (Ok(_), None) => "Secret Service on the D-Bus session bus".to_string(),
        }
    );
    if let Some(half) = settings::half_configured(loaded) {
        let _ = writeln!(out, "note: {half}; it is ignored");
    }

    // The manager answers GET / without authentication; placeholder keys do for that.
    let client_settings = match &resolved {
        Ok((s, _)) => s.clone(),
        Err(_) => client::Settings {
            endpoint: endpoint.clone(),
            access_key: "-".into(),
            secret_key: "-".into(),
            domain: domain.clone(),
            group: group.clone(),
            skip_tls_verify: b.skip_sslcert_validation.unwrap_or(false),
        },
    };
    let options = client::Options {
        retry: client::RetryPolicy {
            attempts: 2,
            ..client::RetryPolicy::default()
        },
        ..client::Options::default()
    };
    let client = match client::Client::with_options(client_settings, options) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(out, "manager: FAILED ({e})");
            let _ = writeln!(out, "status: FAILED (manager)");
            return 1;
        }
    };
    match client.server_info() {
        Ok(info) => {
            let _ = writeln!(
                out,
                "manager: Backend.AI {}, API {} (bai-slurm sends {})",
                if info.manager.is_empty() {
                    "(release not given)"
                } else {
                    &info.manager
                },
                info.server_version,
                info.api_version
            );
        }
        Err(e) => {
            let _ = writeln!(out, "manager: FAILED ({e})");
            failed.push("manager");
        }
    }

    // The keypair: a request the manager authenticates.
    let mut works = false;
    match &resolved {
        Err(e) => {
            let _ = writeln!(out, "keypair: FAILED ({e})");
            failed.push("keypair");
        }
        Ok((s, source)) if !failed.is_empty() => {
            let _ = writeln!(
                out,
                "keypair: {} from {source}; not checked (no manager)",
                s.access_key
            );
        }
        Ok((s, source)) => match client.request(client::Method::Get, "/auth/role", None) {
            Ok((_, v)) => {
                works = true;
                let _ = writeln!(
                    out,
                    "keypair: {} from {source}: OK (role {})",
                    s.access_key,
                    v["global_role"].as_str().unwrap_or("?")
                );
            }
            Err(e) => {
                let _ = writeln!(out, "keypair: FAILED ({} from {source}: {e})", s.access_key);
                failed.push("keypair");
            }
        },
    }
    if !works {
        let _ = writeln!(
            out,
            "domain: {domain} (not checked)\ngroup: {group} (not checked)"
        );
        let _ = writeln!(out, "status: FAILED ({})", failed.join(", "));
        return 1;
    }

    // Domain and project (group): the keypair's user must belong to them.
    let mut group_ok = false;
    match client.graphql(
        "{ user { email domain_name role groups { id name } } }",
        serde_json::json!({}),
    ) {
        Ok(d) => {
            let u = &d["user"];
            let _ = writeln!(
                out,
                "user: {} (role {})",
                u["email"].as_str().unwrap_or("?"),
                u["role"].as_str().unwrap_or("?")
            );
            let user_domain = u["domain_name"].as_str().unwrap_or("");
            if user_domain == domain {
                let _ = writeln!(out, "domain: {domain}: OK");
            } else {
                let _ = writeln!(
                    out,
                    "domain: FAILED ({domain} is configured, but the user is in domain {user_domain})"
                );
                failed.push("domain");
            }
            let groups: Vec<&str> = u["groups"]
                .as_array()
                .map(|a| a.iter().filter_map(|g| g["name"].as_str()).collect())
                .unwrap_or_default();
            let member = u["groups"].as_array().is_some_and(|a| {
                a.iter().any(|g| {
                    g["name"].as_str() == Some(group.as_str())
                        || g["id"].as_str() == Some(group.as_str())
                })
            });
            group_ok = member;
            if member {
                let _ = writeln!(out, "group: {group}: OK");
            } else {
                let _ = writeln!(
                    out,
                    "group: FAILED (the user is not a member of project {group}; member of: {})",
                    if groups.is_empty() {
                        "none".to_string()
                    } else {
                        groups.join(", ")
                    }
                );
                failed.push("group");
            }
        }
        Err(e) => {
            let _ = writeln!(out, "user: FAILED ({e})");
            failed.push("user");
        }
    }

    identity(out, &client, &inv.user);

    // Partitions: the resource groups the project may use (the manager answers for any
    // project name, so only for one the user is in).
    let path = format!("/scaling-groups?group={}", query_escape(&group));
    match group_ok.then(|| client.request(client::Method::Get, &path, None)) {
        None => {
            let _ = writeln!(out, "resource groups: not checked (no project)");
        }
        Some(Ok((_, v))) => {
            let open: Vec<&str> = v["scaling_groups"]
                .as_array()
                .map(|a| a.iter().filter_map(|g| g["name"].as_str()).collect())
                .unwrap_or_default();
            if open.is_empty() {
                let _ = writeln!(
                    out,
                    "resource groups: FAILED (none is open to project {group})"
                );
                failed.push("resource groups");
            } else {
                let _ = writeln!(
                    out,
                    "resource groups: {} (open to project {group})",
                    open.join(", ")
                );
            }
            if loaded.config.partitions.is_empty() {
                let _ = writeln!(out, "partitions: none configured ([[partitions]])");
            }
            for p in &loaded.config.partitions {
                let rg = p.resource_group.as_deref().unwrap_or(&p.name);
                if open.contains(&rg) {
                    let _ = writeln!(out, "partition {}: resource group {rg}: OK", p.name);
                } else {
                    let _ = writeln!(
                        out,
                        "partition {}: FAILED (resource group {rg} is not open to project {group})",
                        p.name
                    );
                    failed.push("partitions");
                }
            }
        }
        Some(Err(e)) => {
            let _ = writeln!(out, "resource groups: FAILED ({e})");
            failed.push("resource groups");
        }
    }

    // The launcher: how sessions reach bai-slurm inside their containers.
    match (&b.launcher_vfolder, &b.launcher) {
        (Some(vf), _) => match client.request(client::Method::Get, "/folders", None) {
            Ok((_, v)) => {
                let visible = v
                    .as_array()
                    .is_some_and(|a| a.iter().any(|f| f["name"].as_str() == Some(vf)));
                let at = b
                    .launcher_dir
                    .as_deref()
                    .unwrap_or("(the default directory)");
                if visible {
                    let _ = writeln!(
                        out,
                        "launcher: vfolder {vf}, mounted at {at}: OK{}",
                        b.launcher
                            .as_deref()
                            .map(|l| format!(" (runs {l})"))
                            .unwrap_or_default()
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "launcher: FAILED (vfolder {vf} ([backendai] launcher_vfolder) is not visible to this user)"
                    );
                    failed.push("launcher");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "launcher: FAILED (cannot list vfolders: {e})");
                failed.push("launcher");
            }
        },
        (None, Some(l)) => {
            let _ = writeln!(
                out,
                "launcher: {l} (must exist in every job image; not checked)"
            );
        }
        (None, None) => {
            let _ = writeln!(
                out,
                "launcher: not configured ([backendai] launcher, launcher_vfolder): jobs need \
                 bai-slurm on their image's PATH"
            );
        }
    }

    match crate::backend::backendai::submission::job_dir(&loaded.config) {
        Ok(None) => {
            let _ = writeln!(
                out,
                "job directory: not set ([backendai] job_dir): only afterok and after dependencies, no holds"
            );
        }
        Ok(Some(dir)) if std::path::Path::new(dir).is_dir() => {
            let _ = writeln!(
                out,
                "job directory: {dir} (every dependency type, holds, updates and requeue)"
            );
        }
        Ok(Some(dir)) => {
            let _ = writeln!(
                out,
                "job directory: FAILED ({dir} does not exist here; create it on the shared storage with mode 1777)"
            );
            failed.push("job directory");
        }
        Err(why) => {
            let _ = writeln!(out, "job directory: FAILED ({why})");
            failed.push("job directory");
        }
    }

    if failed.is_empty() {
        let _ = writeln!(out, "status: OK");
        0
    } else {
        failed.dedup();
        let _ = writeln!(out, "status: FAILED ({})", failed.join(", "));
        1
    }
}

/// Percent-encodes a query value (project names are plain, but need not be).
/// Who the jobs run as in their containers. Backend.AI 25.2 and later take the uid, gid
/// and groups an administrator set on the user (`container_uid`, `container_main_gid`,
/// `container_gids`); without them, and on older managers, the agent's container user.
fn identity(out: &mut dyn std::io::Write, client: &client::Client, me: &crate::sys::UserInfo) {
    let asked = client.graphql(
        "{ user { container_uid container_main_gid container_gids } }",
        serde_json::json!({}),
    );
    let Ok(d) = asked else {
        let _ = writeln!(
            out,
            "container identity: jobs run as the agent's container user, not as {} (this \
             manager has no per-user container uid: Backend.AI 25.2 and later have)",
            me.name
        );
        return;
    };
    let u = &d["user"];
    let (Some(uid), main_gid) = (
        u["container_uid"].as_u64(),
        u["container_main_gid"].as_u64(),
    ) else {
        let _ = writeln!(
            out,
            "container identity: WARNING: not set for this Backend.AI user; jobs run as the \
             agent's container user. An administrator sets container_uid={} \
             container_main_gid={} container_gids=[...] on the user (docs/OPERATIONS.md)",
            me.uid, me.gid
        );
        return;
    };
    let gids: Vec<u64> = u["container_gids"]
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_u64).collect())
        .unwrap_or_default();
    let listed = |g: &[u64]| g.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let gid_text = main_gid.map_or_else(|| "the agent's".to_string(), |g| g.to_string());
    let _ = write!(
        out,
        "container identity: uid {uid}, gid {gid_text}, groups [{}]",
        listed(&gids)
    );
    let mine: Vec<u64> = unix_groups(me);
    let missing: Vec<u64> = mine
        .iter()
        .copied()
        .filter(|g| !gids.contains(g) && main_gid != Some(*g))
        .collect();
    if uid != u64::from(me.uid) || main_gid != Some(u64::from(me.gid)) {
        let _ = writeln!(
            out,
            ": WARNING: differs from {} (uid {}, gid {}): the jobs' files belong to uid {uid}",
            me.name, me.uid, me.gid
        );
    } else if !missing.is_empty() {
        let _ = writeln!(
            out,
            ": WARNING: {}'s groups {} are not among them",
            me.name,
            listed(&missing)
        );
    } else {
        let _ = writeln!(out, ": OK (as {})", me.name);
    }
}

/// The user's supplementary groups (their login groups, as `id -G` lists them).
fn unix_groups(me: &crate::sys::UserInfo) -> Vec<u64> {
    let Ok(name) = std::ffi::CString::new(me.name.as_str()) else {
        return Vec::new();
    };
    nix::unistd::getgrouplist(&name, nix::unistd::Gid::from_raw(me.gid))
        .map(|g| g.iter().map(|g| u64::from(g.as_raw())).collect())
        .unwrap_or_default()
}

fn query_escape(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
