//! The parts of a job request that name where it runs and what it sees: `--nodelist`,
//! `--exclude` and `--exclusive` against the agents, `--container-mounts` against the
//! vfolders (by id: Backend.AI 26.x resolves names across every user's folders).

use super::client::{Client, ClientError, Method};
use super::partitions::Agent;
use crate::backend::{BackendError, SlurmErrno, SubmitError};
use crate::config::StorageConfig;
use crate::model::JobSpec;
use serde_json::Value;

/// A vfolder to mount: its id (or name, for the site's own mounts), the absolute path it
/// appears at (None: Backend.AI's default), and whether read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub vfolder: String,
    pub path: Option<String>,
    pub read_only: bool,
}

/// One `--container-mounts` entry, resolved against the site's storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    pub vfolder: String,
    /// A directory inside the vfolder (Backend.AI's `name/subpath` mounts).
    pub subpath: Option<String>,
    pub path: Option<String>,
    pub read_only: bool,
}

/// `--container-mounts=SRC[:DST[:FLAGS]],...` (pyxis): SRC is a vfolder name, or a path at
/// or under the root of a configured storage (`[[backendai.storage]]`), whose vfolder (or
/// the directory inside it) is mounted; DST defaults to SRC; FLAGS `ro` or `rw`.
pub fn parse_mounts(
    entries: &[String],
    storage: &[StorageConfig],
) -> Result<Vec<Wanted>, SubmitError> {
    let bad =
        |why: String| SubmitError::from(BackendError::Other(format!("--container-mounts: {why}")));
    let mut out = Vec::new();
    for entry in entries {
        let mut parts = entry.split(':');
        let src = parts.next().unwrap_or_default();
        let dst = parts.next().filter(|d| !d.is_empty());
        let flags = parts.next().unwrap_or("");
        if parts.next().is_some() {
            return Err(bad(format!("{entry}: expected SRC[:DST[:FLAGS]]")));
        }
        let mut read_only = false;
        for flag in flags.split('+').filter(|f| !f.is_empty()) {
            match flag {
                "ro" => read_only = true,
                "rw" => read_only = false,
                other => {
                    return Err(bad(format!(
                        "{entry}: mount flag {other} is not supported (ro or rw)"
                    )));
                }
            }
        }
        if let Some(d) = dst
            && !d.starts_with('/')
        {
            return Err(bad(format!(
                "{entry}: the destination must be an absolute path"
            )));
        }
        let (vfolder, subpath) = if src.starts_with('/') {
            let src_path = src.trim_end_matches('/');
            let found = storage.iter().find_map(|s| {
                let root = s.path.trim_end_matches('/');
                if src_path == root {
                    Some((s.vfolder.clone(), None))
                } else {
                    src_path
                        .strip_prefix(&format!("{root}/"))
                        .map(|rest| (s.vfolder.clone(), Some(rest.to_string())))
                }
            });
            match found {
                Some(v) => v,
                None => {
                    let roots: Vec<&str> = storage.iter().map(|s| s.path.as_str()).collect();
                    return Err(bad(format!(
                        "{src} is not storage Backend.AI can mount: name a vfolder, or a path under a storage root of [[backendai.storage]] ({})",
                        if roots.is_empty() {
                            "none configured".to_string()
                        } else {
                            roots.join(", ")
                        }
                    )));
                }
            }
        } else if src.is_empty() {
            return Err(bad(format!("{entry}: no source")));
        } else {
            match src.split_once('/') {
                Some((name, rest)) => (name.to_string(), Some(rest.to_string())),
                None => (src.to_string(), None),
            }
        };
        if subpath
            .as_deref()
            .is_some_and(|p| p.split('/').any(|c| c == ".." || c.is_empty()))
        {
            return Err(bad(format!(
                "{entry}: the source may not leave its vfolder"
            )));
        }
        let path = dst
            .map(str::to_string)
            .or_else(|| src.starts_with('/').then(|| src.to_string()));
        out.push(Wanted {
            vfolder,
            subpath,
            path,
            read_only,
        });
    }
    Ok(out)
}

/// The ids of the vfolders the user can mount, by name; the user's own first (a name can
/// also be a project's or another user's shared folder).
pub fn vfolder_ids(client: &Client) -> Result<Vec<(String, String)>, ClientError> {
    let (_, v) = client.request(Method::Get, "/folders", None)?;
    let mut folders: Vec<&Value> = v.as_array().map(|a| a.iter().collect()).unwrap_or_default();
    folders.sort_by_key(|f| f["is_owner"] != Value::Bool(true));
    Ok(folders
        .into_iter()
        .filter_map(|f| {
            Some((
                f["name"].as_str()?.to_string(),
                f["id"].as_str()?.to_string(),
            ))
        })
        .collect())
}

/// The job's own mounts. From API v8 (Backend.AI 24.x and later) a whole vfolder is named
/// by its id (26.x resolves names across every user's folders) and `ro` is a mount option;
/// 23.09 (API v7) takes names only and mounts each vfolder with its own permission.
/// `site` holds the mounts the site gives every job (vfolder name, path): Backend.AI maps
/// one path per vfolder, so a job cannot mount one of those again elsewhere.
pub fn container_mounts(
    client: &Client,
    spec: &JobSpec,
    storage: &[StorageConfig],
    site: &[(String, String)],
) -> Result<Vec<Mount>, SubmitError> {
    if spec.container.mounts.is_empty() {
        return Ok(Vec::new());
    }
    let mut wanted = parse_mounts(&spec.container.mounts, storage)?;
    let failure = |e: ClientError| SubmitError::from(BackendError::Other(e.to_string()));
    let by_id = client.api_version().map_err(failure)?.major >= 8;
    let ids = vfolder_ids(client).map_err(failure)?;
    // The site's mounts are named by id from API v8 on.
    let is_site = |site_vfolder: &str, name: &str| {
        site_vfolder == name
            || ids
                .iter()
                .any(|(n, id)| n == name && id.as_str() == site_vfolder)
    };
    // Asked for where the site mounts it anyway: nothing to add.
    wanted.retain(|w| {
        !site.iter().any(|(v, p)| {
            is_site(v, &w.vfolder)
                && w.subpath.is_none()
                && w.path.as_ref() == Some(p)
                && !w.read_only
        })
    });
    for w in &wanted {
        if let Some((_, p)) = site.iter().find(|(v, _)| is_site(v, &w.vfolder)) {
            return Err(SubmitError::from(BackendError::Other(format!(
                "--container-mounts: vfolder {} is mounted at {p} for every job here; it cannot be mounted again",
                w.vfolder
            ))));
        }
    }
    wanted
        .into_iter()
        .map(|w| {
            let id = ids
                .iter()
                .find(|(n, _)| *n == w.vfolder)
                .map(|(_, id)| id.clone())
                .ok_or_else(|| {
                    SubmitError::from(BackendError::Other(format!(
                        "--container-mounts: there is no vfolder {} you can mount",
                        w.vfolder
                    )))
                })?;
            if w.read_only && !by_id {
                return Err(SubmitError::from(BackendError::Other(format!(
                    "--container-mounts: {}: read-only mounts need Backend.AI 24.03 or later (API v8); this manager mounts a vfolder with its own permission",
                    w.vfolder
                ))));
            }
            let vfolder = match (&w.subpath, by_id) {
                (Some(sub), _) => format!("{}/{sub}", w.vfolder),
                (None, true) => id,
                (None, false) => w.vfolder.clone(),
            };
            Ok(Mount {
                vfolder,
                path: w.path,
                read_only: w.read_only,
            })
        })
        .collect()
}

/// Where a job may run and how much of an agent it takes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placement {
    /// `agent_list`: the agents the session may use.
    pub agents: Vec<String>,
    /// `--exclusive`: the CPUs and memory (MB) of a whole agent, per container.
    pub whole_agent: Option<(u32, u64)>,
}

/// `--nodelist`, `--exclude` and `--exclusive` against the agents of the job's resource
/// group (node names are agent ids, as sinfo shows them). Backend.AI's `agent_list` is an
/// assignment, not a choice: one agent per container (23.09 and 26.x alike). So the agents
/// are picked here: those named first, then the allowed ones with the most free CPUs.
pub fn placement(
    spec: &JobSpec,
    agents: &[Agent],
    resource_group: &str,
) -> Result<Placement, SubmitError> {
    let needed = spec.nodelist.is_some() || spec.exclude.is_some() || spec.exclusive;
    if !needed {
        return Ok(Placement::default());
    }
    if agents.is_empty() {
        return Err(BackendError::Other(
            "--nodelist, --exclude and --exclusive need the agents, which Backend.AI does not show to this keypair".into(),
        )
        .into());
    }
    let listed = |list: &Option<String>| -> Result<Vec<String>, SubmitError> {
        let Some(list) = list else {
            return Ok(Vec::new());
        };
        match crate::model::hostlist::expand(list) {
            Some(names) if names.iter().all(|n| agents.iter().any(|a| a.id == *n)) => Ok(names),
            _ => Err(SubmitError::errno(SlurmErrno::InvalidNodeName)),
        }
    };
    let required = listed(&spec.nodelist)?;
    let excluded = listed(&spec.exclude)?;
    if required.iter().any(|n| excluded.contains(n)) {
        return Err(SubmitError::errno(SlurmErrno::InvalidNodeName));
    }
    let unavailable = || SubmitError::errno(SlurmErrno::RequestedNodeConfigUnavailable);
    let member = |id: &str| {
        agents
            .iter()
            .find(|a| a.id == id && a.resource_group == resource_group)
    };
    let mut chosen: Vec<&Agent> = Vec::new();
    for n in &required {
        chosen.push(member(n).ok_or_else(unavailable)?);
    }
    let want = (spec.nodes() as usize).max(required.len());
    let mut others: Vec<&Agent> = agents
        .iter()
        .filter(|a| a.resource_group == resource_group)
        .filter(|a| !excluded.contains(&a.id) && !required.contains(&a.id))
        .filter(|a| a.status == "ALIVE" && a.schedulable)
        .collect();
    others.sort_by(|a, b| (b.cpus - b.used_cpus).total_cmp(&(a.cpus - a.used_cpus)));
    chosen.extend(others.into_iter().take(want.saturating_sub(chosen.len())));
    if chosen.len() < want {
        return Err(unavailable());
    }
    let agents_list = if required.is_empty() && excluded.is_empty() {
        Vec::new()
    } else {
        chosen.iter().map(|a| a.id.clone()).collect()
    };
    // A whole agent. With agent_list: the smallest of those assigned, so that it fits on
    // each. Without: the largest of the group, so that wherever it fits it takes it all.
    let size = |a: &&Agent| {
        (
            a.cpus.floor().max(1.0) as u32,
            (a.mem_bytes / 1_048_576.0).max(1.0) as u64,
        )
    };
    let whole_agent = spec.exclusive.then(|| {
        let pick = if agents_list.is_empty() {
            agents
                .iter()
                .filter(|a| a.resource_group == resource_group)
                .map(|a| size(&a))
                .max()
        } else {
            chosen.iter().map(size).min()
        };
        pick.unwrap_or((1, 1))
    });
    Ok(Placement {
        agents: agents_list,
        whole_agent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage() -> Vec<StorageConfig> {
        vec![StorageConfig {
            path: "/data".into(),
            vfolder: "data".into(),
        }]
    }

    fn agent(id: &str, cpus: f64, used: f64) -> Agent {
        Agent {
            id: id.into(),
            status: "ALIVE".into(),
            resource_group: "default".into(),
            schedulable: true,
            cpus,
            mem_bytes: cpus * 1_073_741_824.0,
            used_cpus: used,
            used_mem_bytes: 0.0,
            architecture: "x86_64".into(),
            version: String::new(),
        }
    }

    #[test]
    fn agents_are_assigned_as_slurm_places_nodes() {
        let agents = [
            agent("a1", 8.0, 6.0),
            agent("a2", 8.0, 0.0),
            agent("a3", 4.0, 0.0),
        ];
        let spec = |nodelist: Option<&str>, exclude: Option<&str>, nodes: u32| JobSpec {
            nodelist: nodelist.map(Into::into),
            exclude: exclude.map(Into::into),
            nodes_min: Some(nodes),
            ..Default::default()
        };
        let got = |s: JobSpec| placement(&s, &agents, "default").map(|p| p.agents);
        assert_eq!(got(spec(Some("a1"), None, 1)).unwrap(), ["a1"]);
        // Named first, then the most free CPUs.
        assert_eq!(got(spec(Some("a3"), None, 2)).unwrap(), ["a3", "a2"]);
        assert_eq!(got(spec(None, Some("a2"), 1)).unwrap(), ["a3"]);
        assert_eq!(got(spec(Some("a[1-2]"), None, 1)).unwrap(), ["a1", "a2"]);
        let errno = |r: Result<Vec<String>, SubmitError>| r.unwrap_err().errno;
        assert_eq!(
            errno(got(spec(Some("zz"), None, 1))),
            Some(SlurmErrno::InvalidNodeName)
        );
        assert_eq!(
            errno(got(spec(None, Some("zz"), 1))),
            Some(SlurmErrno::InvalidNodeName)
        );
        assert_eq!(
            errno(got(spec(Some("a1"), Some("a1"), 1))),
            Some(SlurmErrno::InvalidNodeName)
        );
        assert_eq!(
            errno(got(spec(None, Some("a[1-3]"), 1))),
            Some(SlurmErrno::RequestedNodeConfigUnavailable)
        );
        // --exclusive: the largest agent, or the smallest of those assigned.
        let whole = |s: JobSpec| placement(&s, &agents, "default").unwrap().whole_agent;
        let excl = |nodelist: Option<&str>| JobSpec {
            exclusive: true,
            ..spec(nodelist, None, 1)
        };
        assert_eq!(whole(excl(None)), Some((8, 8192)));
        assert_eq!(whole(excl(Some("a3"))), Some((4, 4096)));
        assert_eq!(
            placement(&excl(None), &agents, "default").unwrap().agents,
            Vec::<String>::new()
        );
    }

    #[test]
    fn mounts_name_a_vfolder_or_a_storage_path() {
        let m = |e: &str| parse_mounts(&[e.to_string()], &storage());
        let w = |v: &str, sub: Option<&str>, p: Option<&str>, ro: bool| Wanted {
            vfolder: v.into(),
            subpath: sub.map(Into::into),
            path: p.map(Into::into),
            read_only: ro,
        };
        assert_eq!(
            m("/data:/data").unwrap(),
            [w("data", None, Some("/data"), false)]
        );
        assert_eq!(m("/data").unwrap(), [w("data", None, Some("/data"), false)]);
        assert_eq!(
            m("/data/in/x:/in:ro").unwrap(),
            [w("data", Some("in/x"), Some("/in"), true)]
        );
        assert_eq!(
            m("ds:/mnt/ds:ro").unwrap(),
            [w("ds", None, Some("/mnt/ds"), true)]
        );
        assert_eq!(m("ds/sub").unwrap(), [w("ds", Some("sub"), None, false)]);
        assert_eq!(m("ds").unwrap(), [w("ds", None, None, false)]);
        for bad in [
            "/scratch:/scratch",
            "/database:/x",
            "ds:rel",
            "ds:/x:private",
            ":/x",
            "a:/b:ro:x",
            "/data/../etc:/x",
            "ds//x",
        ] {
            let e = m(bad).unwrap_err();
            assert!(
                format!("{e:?}").contains("--container-mounts"),
                "{bad}: {e:?}"
            );
        }
    }
}
